"""CORELS under a memory cap on a search that would outgrow it: the copies made while the arrays grow count against
the cap, and the growth is geometric, so the peak RSS stays near the cap and the stop comes without a crawl."""
from __future__ import annotations

import pytest

from .support import _code, _random_binary, _run_child, jit_only

MB = 1 << 20

# 1,000 x 300 random features with random labels at lambda 0.0005: uncapped it grows to about 1 GB (OPTIMAL after
# 15-25 s).  Before the copies were counted, a 100M cap grew the peak RSS by 145 MiB (290 growths creeping up to
# the cap, 2.6-3.7 s) and a 200M cap by 321 MiB (9.4 s); now by 90-94 MiB (30 growths, 0.7-1.0 s) and 180 MiB
# (1.4-2.5 s), where the uncapped search takes 0.9 s and 2.3 s to reach the same size.
CAPPED_CHILD = """
y = (np.random.default_rng(5).random(1000) < 0.5).astype(np.uint8)
data = from_arrays(X, y)
import gc
import optbb.corels.search as S
from optbb.corels import solve
solve(data, 0.005, memory_limit=4 << 20, time_limit=10)  # compiles every path the measured search takes
growths = [0]
_grow = S.CorelsEngine.grow
def counted(self, *args, **kwargs):
    growths[0] += 1
    return _grow(self, *args, **kwargs)
S.CorelsEngine.grow = counted
gc.collect()
reset_peak()
base = rss_now()
r = solve(data, 0.0005, memory_limit={cap}, time_limit=120)
report(r, growth=peak_rss() - base, growths=growths[0])
"""


def _check(cap_mb: int):
    r = _run_child(_code(_random_binary(1000, 300), CAPPED_CHILD.replace("{cap}", repr(f"{cap_mb}M"))))
    print(f"CORELS 1000 x 300 under {cap_mb}M: peak RSS growth {r['growth'] / MB:.1f} MiB, accounted "
          f"{r['counters']['memory_bytes'] / MB:.1f} MiB, {r['growths']} growths, {r['total_time']:.2f} s")
    assert r["status"] == "MEMORY_LIMIT", r
    assert r["counters"]["memory_bytes"] <= cap_mb * MB
    assert r["growth"] <= 1.1 * cap_mb * MB, r
    # geometric growth: a few growths per part, not hundreds of small ones near the cap
    assert r["growths"] <= 200, r
    assert r["lower_bound"] <= r["objective"]


@jit_only
def test_corels_peak_rss_within_a_100m_cap():
    _check(100)


@jit_only
@pytest.mark.slow
def test_corels_peak_rss_within_a_200m_cap():
    _check(200)
