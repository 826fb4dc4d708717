"""The dp search without depth limit starts from the root's optimal tree of depth <= 2 (``root_depth2``): that
incumbent is the brute-force optimum of depth 2, the search ends at the brute-force optimum with and without it, a
search stopped at a limit returns a tree at least as good, and the switch and the size rule decide when it runs."""
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

from optbb.common.result import Status  # noqa: E402
from optbb.osdt.dp import kernel as D  # noqa: E402
from optbb.osdt.dp.engine import DPEngine, root_depth2_pays, search_dataset, solve_dp  # noqa: E402
from test_osdt_pair_bounds import problems  # noqa: E402
from twins.brute_trees import optimal_objective  # noqa: E402


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_rows=14), st.sampled_from([True, False]))
def test_the_root_incumbent_is_the_best_tree_of_depth_two_and_the_optimum_is_kept(problem, root_depth2):
    X, y, w, lam = problem
    engine = DPEngine(search_dataset(X, y, w), lam, None, None, root_depth2=root_depth2)
    engine.start()
    total = len(y) if w is None else float(w.sum())
    depth2 = optimal_objective(X, y, lam, 2, w)
    leaf = optimal_objective(X, y, lam, 0, w)
    expected = depth2 if root_depth2 else leaf
    assert engine.inc_cost / engine.total == pytest.approx(expected, abs=1e-9)
    assert engine._tree_cost(engine.inc_leaves) == pytest.approx(engine.inc_cost, abs=1e-9)
    res = solve_dp(X, y, lam, sample_weight=w, warm_start=None, root_depth2=root_depth2)
    assert res.status is Status.OPTIMAL and res.lower_bound == res.objective
    assert res.objective == pytest.approx(optimal_objective(X, y, lam, None, w), abs=1e-9)
    pred = np.asarray(res.model.predictions)[res.model.leaf_index(X)]
    wt = np.ones(len(y)) if w is None else w
    assert float(wt[pred != y].sum()) / total + lam * res.model.n_leaves == pytest.approx(res.objective, abs=1e-9)


def test_a_stopped_search_returns_a_tree_at_least_as_good_as_the_depth_two_optimum():
    """Two informative columns among noise, the search stopped after 5 subproblems: with the root incumbent its
    tree costs at most the depth-2 optimum; the search starts from the root leaf without it."""
    rng = np.random.default_rng(5)
    X = (rng.random((600, 14)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) ^ (rng.random(600) < 0.1)).astype(np.int64)
    best2 = optimal_objective(X, y, 0.01, 2)
    on = solve_dp(X, y, 0.01, warm_start=None, node_limit=5, pair_bounds=False, root_depth2=True)
    off = solve_dp(X, y, 0.01, warm_start=None, node_limit=5, pair_bounds=False, root_depth2=False)
    assert on.status is off.status is Status.NODE_LIMIT
    assert on.objective <= best2 + 1e-12
    assert on.lower_bound <= best2 + 1e-12 and off.lower_bound <= best2 + 1e-12
    for flag, start in ((True, best2), (False, optimal_objective(X, y, 0.01, 0))):
        engine = DPEngine(search_dataset(X, y), 0.01, None, None, pair_bounds=False, root_depth2=flag)
        engine.start()
        assert engine.incumbent() == pytest.approx(start, abs=1e-12)


def test_the_size_rule_and_the_switch():
    assert root_depth2_pays(626, 194, 2, D.UNLIMITED)  # compas_processed's cuts, no depth limit
    assert not root_depth2_pays(626, 194, 2, 4)  # a depth limit has its own depth-2 solver
    assert not root_depth2_pays(27, 15, 2, D.UNLIMITED)  # tic-tac-toe: small, the pair bounds count the pairs
    assert not root_depth2_pays(5000, 200, 2, D.UNLIMITED)  # too many pairs to count
    X = (np.random.default_rng(0).random((50, 6)) < 0.5).astype(np.uint8)
    y = X[:, 0].astype(np.int64)
    assert DPEngine(search_dataset(X, y), 0.01, None, None, root_depth2=True).root_depth2
    assert not DPEngine(search_dataset(X, y), 0.01, None, None).root_depth2
    assert not DPEngine(search_dataset(X, y), 0.01, 1, None, root_depth2=True).root_depth2  # no room for depth 2
