"""The shortest decimal between two values (thresholds of the Binarizer and of trees over numeric columns) against
its twin in exact decimal arithmetic."""
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from optbb.preprocessing.thresholds import shortest_decimal
from twins.shortest_decimal import shortest_decimal as twin

finite = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def intervals(draw):
    """``(lo, hi)`` with ``lo <= hi``: any two doubles, or a value and one a few ulps or a short decimal above."""
    lo = draw(finite | st.decimals(-1000, 1000, places=3).map(float))
    kind = draw(st.sampled_from(["any", "ulps", "step"]))
    if kind == "any":
        hi = draw(finite)
    elif kind == "ulps":
        hi = lo
        for _ in range(draw(st.integers(1, 4))):
            hi = math.nextafter(hi, math.inf)
    else:
        hi = lo + draw(st.sampled_from([1e-9, 1e-3, 0.01, 0.1, 0.5, 1.0, 7.0, 1e6]))
    lo, hi = min(lo, hi), max(lo, hi)
    return (lo, hi) if math.isfinite(hi) else (lo, lo)


@settings(max_examples=500, deadline=None)
@given(intervals())
def test_shortest_decimal_is_the_twins(pair):
    lo, hi = pair
    assert shortest_decimal(lo, hi) == twin(lo, hi)


def test_shortest_decimal_at_the_ends_of_the_doubles():
    tiny, big = 5e-324, 1.7976931348623157e308
    for lo, hi in [(0.0, tiny), (-tiny, 0.0), (-0.0, 0.0), (0.0, 0.0), (big / 2, big), (-big, -big / 2),
                   (-1.0, -0.5), (4.9, math.nextafter(5.0, 0.0))]:
        assert shortest_decimal(lo, hi) == twin(lo, hi), (lo, hi)
