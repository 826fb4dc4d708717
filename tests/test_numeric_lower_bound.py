"""The lower bound a search over sorted orders reports while it runs (``CutEngine.lower_bound``): at every point of
the search at most the optimum, the binary dp's over every cut, with a regularization, with and without a depth
limit, with the depth-2 first incumbents and with a probe's stumps.  A frame's splits are bounded by
``min(c, (D + 2) lambda N)``, ``c`` the cost of its first incumbent, the optimal tree of depth ``D`` (a tree of at
most ``D + 1`` leaves has depth at most ``D``)."""
from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optbb.common.data import BinaryDataset
from optbb.common.limits import Limits
from optbb.osdt import cut_dataset, solve
from optbb.osdt.numeric import engine as E
from optbb.osdt.numeric import layout as L
from test_numeric_probe import every_cut


@st.composite
def problems(draw):
    """``(X, y, w, lam, depth)``: 10-40 rows of 2-3 columns of few values, 2-3 classes, weights half the time, a
    label rule with noise, lambda .005-.08, no depth limit or 3-5."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    n, m, k = draw(st.integers(10, 40)), draw(st.integers(2, 3)), draw(st.integers(2, 3))
    X = rng.integers(0, draw(st.integers(3, 9)), (n, m)).astype(np.float64)
    y = ((X[:, 0] > X[:, 1]).astype(np.int64) + (rng.random(n) < draw(st.sampled_from([0.1, 0.3])))) % k
    w = rng.integers(1, 4, n).astype(np.float64) if draw(st.booleans()) else None
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0] % 2
    lam = draw(st.sampled_from([0.005, 0.01, 0.02, 0.04, 0.08]))
    return X, y, w, lam, draw(st.sampled_from([None, 3, 4, 5]))


def bounds_along(X, y, w, lam, depth, probe: bool, work: int = 7, doubling: int | None = None
                 ) -> tuple[list[float], float]:
    """The lower bounds the engine reports after every ``work`` units (doubled every ``doubling`` chunks, so that a
    long search is read often early and in a bounded number of chunks), and its optimum."""
    labels = [str(c) for c in range(max(2, int(np.max(y)) + 1))]
    data = cut_dataset(X, y, None, w, labels)
    engine = E._engine(data, data.raw, np.asarray(data.y, dtype=np.int64), w, lam, depth, None,
                       Limits(None, None, None),
                       time.perf_counter(), ())
    engine.blocks_start = not probe
    if probe:
        engine.ip[L.P_OPEN] = 1
    assert engine.start() is None
    engine.load_kernels()
    bounds = []
    while engine.step(work) != E.driver.DONE:
        bounds.append(engine.lower_bound())
        if doubling and len(bounds) % doubling == 0:
            work *= 2
    return bounds, engine.incumbent()


def reference(X, y, w, lam, depth) -> float:
    B = every_cut(X)
    data = BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, tuple(str(c) for c in range(int(y.max()) + 1)))
    res = solve(data, lam, max_depth=depth)
    assert res.status.name == "OPTIMAL"
    return res.objective


@given(problems(), st.booleans())
@settings(deadline=None, max_examples=80)
def test_every_lower_bound_on_the_way_is_at_most_the_optimum(problem, probe):
    X, y, w, lam, depth = problem
    if probe and depth is None:
        # the probe runs with a depth limit only (solve_cuts); without one, its stumps as first incumbents took up
        # to 300 s on 38 rows at lambda .005
        depth = 5
    best = reference(X, y, w, lam, depth)
    bounds, found = bounds_along(X, y, w, lam, depth, probe, doubling=100)
    assert found == pytest.approx(best, abs=1e-12)
    assert all(b <= best + 1e-12 for b in bounds)


def test_the_bound_of_every_split_lifts_the_bound_above_two_leaves():
    """On a problem whose search takes many chunks, the bound passes ``2 lambda`` (every split's bound before) within
    the first percent of them, and stays at most the optimum."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3)).round(2)
    y = ((X[:, 0] * X[:, 1] > 0) ^ (rng.random(120) < 0.25)).astype(np.int64)
    lam = 0.02
    bounds, found = bounds_along(X, y, None, lam, 4, False, work=500)
    assert len(bounds) > 1000 and max(bounds) <= found + 1e-12
    lifted = [i for i, b in enumerate(bounds) if b > 2 * lam + 1e-12]
    assert lifted and lifted[0] < len(bounds) // 100
