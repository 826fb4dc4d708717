"""The probe of the search over sorted orders (``optbb.osdt.numeric.engine._probe``): without regularization and with
a depth limit of 5 or more, the exact search runs first with stumps as its frames' first incumbents and no blocks
start, for a bounded work; when it ends within it its tree is certified, else the usual search follows from the
probe's best tree.  Both ways the optimum is the binary dp's over every cut, and the tree returned has it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optbb.common.data import BinaryDataset
from optbb.osdt import cut_dataset, solve
from optbb.osdt.numeric import engine as E
from twins.brute_numeric import tree_objective


def every_cut(X: np.ndarray) -> np.ndarray:
    out = [X[:, j] <= (a + b) / 2 for j in range(X.shape[1]) for a, b in zip(np.unique(X[:, j])[:-1],
                                                                             np.unique(X[:, j])[1:])]
    return np.stack(out or [np.ones(X.shape[0], dtype=bool)], axis=1).astype(np.uint8)


@st.composite
def problems(draw):
    """``(X, y, w, depth)``: 8-24 rows of 2-3 columns of few values, 2-3 classes, weights half the time, a label
    rule a deep tree can fit (often without errors) with some noise."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    n, m, k = draw(st.integers(8, 24)), draw(st.integers(2, 3)), draw(st.integers(2, 3))
    X = rng.integers(0, draw(st.integers(3, 8)), (n, m)).astype(np.float64)
    y = ((X[:, 0] > X[:, 1]).astype(np.int64) + (rng.random(n) < draw(st.sampled_from([0.0, 0.2])))) % k
    w = rng.integers(1, 4, n).astype(np.float64) if draw(st.booleans()) else None
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0] % 2
    return X, y, w, draw(st.integers(5, 6))


def solve_columns(X, y, w, depth, **options):
    labels = [str(c) for c in range(max(2, int(np.max(y)) + 1))]
    return E.solve_cuts(cut_dataset(X, y, None, w, labels), 0.0, max_depth=depth, **options)


@given(problems(), st.sampled_from([None, 0, 3]))
@settings(deadline=None, max_examples=60)
def test_probe_and_fallback_reach_the_dp_optimum(problem, passes):
    """With the probe's work as it is, none, or three passes (then the search after it starts from its tree)."""
    X, y, w, depth = problem
    B = every_cut(X)
    data = BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, tuple(str(c) for c in range(int(y.max()) + 1)))
    reference = solve(data, 0.0, max_depth=depth)
    old = E.PROBE_PASSES
    try:
        if passes is not None:
            E.PROBE_PASSES = passes
        res = solve_columns(X, y, w, depth)
    finally:
        E.PROBE_PASSES = old
    assert res.status.name == reference.status.name == "OPTIMAL"
    assert res.objective == pytest.approx(reference.objective, abs=1e-12)
    assert tree_objective(res.model.predict(X), y, 0.0, res.model.n_leaves, w) == pytest.approx(res.objective,
                                                                                              abs=1e-12)
    assert res.model.depth <= depth
    assert res.counters.get("probe") or "probe_nodes" in res.counters


def test_a_tree_without_errors_is_certified_by_the_probe():
    """Two interleaved half-moons need a deep tree; at depth 6 one without errors exists, and the probe finds it."""
    from sklearn.datasets import make_moons

    X, y = make_moons(300, noise=0.1, random_state=0)
    res = solve_columns(X, y, None, 8)
    assert res.status.name == "OPTIMAL" and res.objective == 0.0 and res.counters.get("probe")


def test_no_probe_with_regularization_a_node_limit_no_warm_start_or_a_shallow_limit():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3, dtype=np.float64)
    y = np.array([0, 1, 1, 0] * 3)
    for options, lam, depth in (({}, 0.01, 5), ({"node_limit": 10 ** 6}, 0.0, 5), ({"warm_start": None}, 0.0, 5),
                                ({}, 0.0, 4)):
        res = E.solve_cuts(cut_dataset(X, y, None, None, ["0", "1"]), lam, max_depth=depth, **options)
        assert res.status.name == "OPTIMAL" and "probe" not in res.counters and "probe_nodes" not in res.counters
