"""The pair bounds of the dp search without depth limit (``pair_bounds``): each bound against brute force on small
random problems (2-3 classes, weights, grouped one-hot and ordered threshold columns), the search with and without
them against the brute-force optimum, the budget deepening of the split loop, the root's bound passes, and the
ablation switches."""
import os
import sys
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

from optbb.common.result import Status  # noqa: E402
from optbb.osdt.dp import kernel as D  # noqa: E402
from optbb.osdt.dp import pairs as P  # noqa: E402
from optbb.osdt.dp.engine import DPEngine, pairs_pay, search_dataset, solve_dp  # noqa: E402
from twins.brute_trees import optimal_objective  # noqa: E402


def _columns(rng, n, kind):
    """Binary columns of one kind: independent bits, the indicators of one text column (one per value, exactly one
    set per row), or the thresholds ``x >= t`` of one ordered column."""
    if kind == "bits":
        return (rng.random((n, rng.integers(1, 3))) < 0.5).astype(np.uint8)
    values = rng.integers(0, rng.integers(2, 5), n)
    levels = np.unique(values)
    if kind == "onehot":
        return (values[:, None] == levels[None, :]).astype(np.uint8)
    return (values[:, None] >= levels[None, 1:]).astype(np.uint8)


@st.composite
def problems(draw, max_rows=18):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, max_rows))
    kinds = draw(st.lists(st.sampled_from(["bits", "onehot", "ordered"]), min_size=1, max_size=3))
    X = np.hstack([_columns(rng, n, kind) for kind in kinds] + [_columns(rng, n, "bits")[:, :1]])[:, :6]
    k = draw(st.sampled_from([2, 2, 3]))
    y = rng.integers(0, k, n)
    w = rng.integers(1, 4, n).astype(np.float64) if draw(st.booleans()) else None
    lam = draw(st.sampled_from([0.005, 0.02, 0.04, 0.07, 0.12]))
    return X, y, w, lam


def _min_errors_by_leaves(X, y, w, rows, k):
    """``E[L]``: the least weight of errors of a tree of exactly ``L`` leaves on ``rows`` (every split with two
    non-empty sides), by brute force; ``inf`` where no such tree exists."""
    n, m = X.shape

    @lru_cache(maxsize=None)
    def best(support: frozenset, leaves: int) -> float:
        idx = sorted(support)
        if leaves == 1:
            counts = np.bincount(y[idx], weights=w[idx], minlength=k)
            return float(counts.sum() - counts.max())
        out = np.inf
        for f in range(m):
            one = frozenset(i for i in idx if X[i, f] == 1)
            zero = support - one
            if not one or not zero:
                continue
            for a in range(1, leaves):
                out = min(out, best(zero, a) + best(one, leaves - a))
        return out

    support = frozenset(np.flatnonzero(rows).tolist())
    return [np.inf] + [best(support, L) for L in range(1, len(support) + 1)]


def _minority(X, y, w, rows, k):
    """Weight of the equivalent-points minority of ``rows`` (OSDT Thm B.2)."""
    groups: dict = {}
    for i in np.flatnonzero(rows):
        groups.setdefault(X[i].tobytes(), []).append(i)
    return sum(w[g].sum() - np.bincount(y[g], weights=w[g], minlength=k).max() for g in groups.values())


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_rows=12))
def test_each_pair_bound_holds_against_brute_force(problem):
    """On a random support: the best tree of at most three leaves is exact, a support declared solved has that
    optimum, and every child's floor is at most the cost of each of its trees of two leaves or more."""
    X, y, w, lam = problem
    k = max(2, int(y.max()) + 1)
    w = np.ones(len(y)) if w is None else w
    engine = DPEngine(search_dataset(X, y, w), lam, None, None, pair_bounds=True)
    engine.start()
    lam_n = engine.lam_n
    units = engine.qf if engine.qf is not None else np.ones(len(y))
    rng = np.random.default_rng(len(y))
    rows = rng.random(len(y)) < 0.8
    if not rows.any():
        rows[0] = True
    S = np.packbits(np.concatenate([rows, np.zeros(64 * engine.W - len(y), bool)]), bitorder="little").view(
        np.uint64)
    E = _min_errors_by_leaves(X, y, units, rows, k)
    z = _minority(X, y, units, rows, k)
    cost = [e + lam_n * L for L, e in enumerate(E)]
    sides = np.empty((2, X.shape[1], 3), np.int64)
    counts, totals = engine.tables.counts[0], engine.tables.totals[0]
    v, _ = P.small_tree(S, int(E[1]), engine.data, counts, totals, sides, lam_n)
    assert v == pytest.approx(min(cost[1:4]), abs=1e-9)
    if P.small_tree_wins(v, z, lam_n):
        assert v == pytest.approx(min(cost[1:]), abs=1e-9)
    for f in range(X.shape[1]):
        for one in (0, 1):
            child = rows & (X[:, f] == one)
            if not child.any() or child.sum() == rows.sum() or sides[one, f, 0] == 0:
                continue
            Ec = _min_errors_by_leaves(X, y, units, child, k)
            floor = P.split_floor(sides, f, one, _minority(X, y, units, child, k), lam_n)
            for L in range(2, len(Ec)):
                assert floor <= Ec[L] + lam_n * L + 1e-9, (f, one, L)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(), st.sampled_from([True, False]), st.sampled_from([True, False]), st.sampled_from([True, False]))
def test_search_with_and_without_pair_bounds_is_optimal(problem, pair_bounds, deepening, passes):
    X, y, w, lam = problem
    res = solve_dp(X, y, lam, sample_weight=w, pair_bounds=pair_bounds, budget_deepening=deepening,
                   bound_passes=passes)
    assert res.status is Status.OPTIMAL and res.lower_bound == res.objective
    assert res.objective == pytest.approx(optimal_objective(X, y, lam, None, w), abs=1e-9)
    pred = np.asarray(res.model.predictions)[res.model.leaf_index(X)]
    wt = np.ones(len(y)) if w is None else w
    assert float(wt[pred != y].sum()) / wt.sum() + lam * res.model.n_leaves == pytest.approx(res.objective, abs=1e-9)


def test_the_switch_turns_them_off_and_they_prune():
    rng = np.random.default_rng(3)
    X = (rng.random((300, 12)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3]) | (rng.random(300) < 0.1)).astype(np.int64)
    on = solve_dp(X, y, 0.01, pair_bounds=True)
    off = solve_dp(X, y, 0.01, pair_bounds=False)
    assert on.objective == pytest.approx(off.objective, abs=1e-12)
    assert on.status is off.status is Status.OPTIMAL
    assert on.counters["subproblems_expanded"] < off.counters["subproblems_expanded"]
    for flag in (True, False):
        engine = DPEngine(search_dataset(X, y), 0.01, None, None, pair_bounds=flag)
        assert engine.ip[D.P_PAIRS] == int(flag)
    deep = solve_dp(X, y, 0.01, budget_deepening=True)
    flat = solve_dp(X, y, 0.01, budget_deepening=False)
    assert deep.objective == pytest.approx(flat.objective, abs=1e-12)
    assert deep.counters["subproblems_expanded"] != flat.counters["subproblems_expanded"]
    for flag in (True, False):
        assert DPEngine(search_dataset(X, y), 0.01, None, None, budget_deepening=flag).ip[D.P_DEEPEN] == int(flag)
    # a depth limit has its own depth-2 solver: no pair bounds there
    assert DPEngine(search_dataset(X, y), 0.01, 3, None, pair_bounds=True).ip[D.P_PAIRS] == 0


def test_they_are_left_out_where_counting_pairs_costs_too_much():
    assert pairs_pay(27, 15, 2)  # tic-tac-toe's 27 indicators
    assert not pairs_pay(1000, 20, 2)


def test_four_leaves_that_beat_three_by_a_hair_are_found():
    """Exclusive-or cells of 10, 10, 10 and 1 rows: the best tree of at most three leaves errs on 1 row (cost
    1 + 3 lambda N), the four-leaf tree on none (4 lambda N); at lambda N = 0.8 the four leaves win by 0.2, so a
    solve rule with a looser threshold than ``z + 4 lambda N`` stops at three."""
    cells = {(0, 0): 10, (1, 1): 10, (0, 1): 10, (1, 0): 1}
    X = np.array([c for c, size in cells.items() for _ in range(size)], dtype=np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(np.int64)
    lam = 0.8 / len(y)
    assert not P.small_tree_wins(1 + 3 * 0.8, 0, 0.8)
    res = solve_dp(X, y, lam, pair_bounds=True, warm_start=None)
    assert res.model.n_leaves == 4
    assert res.objective == pytest.approx(4 * lam, abs=1e-12) == optimal_objective(X, y, lam)


def test_bound_passes_raise_the_bound_of_a_stopped_search():
    """Pure noise: no certificate in 1,500 subproblems; the passes' bound is valid (below the optimum the full
    search certifies) and above the bound the search reports without them."""
    rng = np.random.default_rng(1)
    X = (rng.random((400, 10)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 400)
    full = solve_dp(X, y, 0.01)
    assert full.status is Status.OPTIMAL
    with_passes = solve_dp(X, y, 0.01, node_limit=1500, bound_passes=True)
    without = solve_dp(X, y, 0.01, node_limit=1500, bound_passes=False)
    for res in (with_passes, without):
        assert res.status is Status.NODE_LIMIT
        assert res.lower_bound <= full.objective + 1e-12 <= res.objective + 1e-12
    assert with_passes.lower_bound > without.lower_bound
    assert DPEngine(search_dataset(X, y), 0.01, None, None).bound_passes
    assert not DPEngine(search_dataset(X, y), 0.01, 3, None).bound_passes


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 2, 3]), st.sampled_from([0.01, 0.03, 0.08]))
def test_nested_thresholds_are_tried_once_and_change_no_optimum(seed, max_depth, lam):
    """Numeric columns through their cuts: a threshold that splits a subproblem as the one below it is skipped
    (``nested``), with the brute-force optimum over every cut."""
    from optbb.osdt.numeric.cuts import cut_dataset
    from optbb.osdt.support import nested_cuts

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 16))
    X = np.column_stack([rng.integers(0, rng.integers(2, 6), n) for _ in range(int(rng.integers(1, 3)))])
    y = rng.integers(0, 2, n)
    data = cut_dataset(X.astype(float), y)
    nested = nested_cuts(data.cuts.columns, data.cuts.thresholds)
    assert all(nested[f] == (data.cuts.columns[f] == data.cuts.columns[f - 1]) for f in range(1, len(nested)))
    res = solve_dp(data.X, data.y, lam, max_depth=max_depth, nested=nested)
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(optimal_objective(data.X, data.y, lam, max_depth), abs=1e-9)
