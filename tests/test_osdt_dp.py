"""The dynamic-programming OSDT search (``search="dp"``): brute force, the leaf-set search, golden values, DL optima,
limits and the dispatch of ``solve`` / ``OSDTClassifier``."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from golden import dl_data, golden_params, osdt_data  # noqa: E402
from twins.brute_trees import optimal_objective, optimal_tree_cost  # noqa: E402

from optbb.common.data import from_arrays  # noqa: E402
from optbb.common.result import Status  # noqa: E402
from optbb.datasets.dl import DL_OPTIMA  # noqa: E402
from optbb.osdt import OSDTClassifier, solve  # noqa: E402
from optbb.osdt.dp import engine as dp_search  # noqa: E402
from optbb.osdt.dp.engine import solve_dp  # noqa: E402

# golden rows that take more than a few seconds on a loaded 2-core machine
SLOW_GOLDEN = {("tic-tac-toe", "0.005"), ("fico_binary", "0.005"), ("car-evaluation", "0.005")}


# ---------------------------------------------------------------------------------------------------------------
# brute force and the leaf-set search
# ---------------------------------------------------------------------------------------------------------------


@st.composite
def problems(draw, n_classes):
    n = draw(st.integers(1, 14))
    m = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m), min_size=n, max_size=n)),
                 dtype=np.uint8).reshape(n, m)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)), dtype=np.int64)
    max_depth = draw(st.sampled_from([None, 0, 1, 2, 3]))
    lam = draw(st.sampled_from([0.0, 0.01, 0.03, 0.07, 0.1, 0.2, 0.5]))
    if lam == 0.0 and max_depth is None:
        max_depth = 2
    return X, y, lam, max_depth


def _check_against_brute_force(problem, warm, depth2_solver=None):
    X, y, lam, max_depth = problem
    res = solve_dp(X, y, lam, max_depth=max_depth, warm_start=warm, depth2_solver=depth2_solver)
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(optimal_objective(X, y, lam, max_depth), abs=1e-9)
    assert res.lower_bound == res.objective
    if max_depth is not None:
        assert res.model.depth <= max_depth
    # the model's own counts give the objective
    pred = np.asarray(res.model.predictions)[res.model.leaf_index(X)]
    assert int(np.sum(pred != y)) / len(y) + lam * res.model.n_leaves == pytest.approx(res.objective, abs=1e-12)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(2), st.sampled_from(["cart", None]), st.sampled_from([None, True, False]))
def test_brute_force_two_classes(problem, warm, depth2_solver):
    _check_against_brute_force(problem, warm, depth2_solver)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(3), st.sampled_from(["cart", None]), st.sampled_from([None, True, False]))
def test_brute_force_three_classes(problem, warm, depth2_solver):
    _check_against_brute_force(problem, warm, depth2_solver)



@st.composite
def support_pairs(draw):
    """A small problem (2 or 3 classes, sometimes integer weights), a support ``B`` and a support ``A`` differing
    from it in one to three samples: the similar support bound is tight when the samples added to ``A`` are
    errors of every tree."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, m, k = draw(st.integers(4, 12)), draw(st.integers(1, 3)), draw(st.sampled_from([2, 2, 3]))
    X = (rng.random((n, m)) < 0.5).astype(np.uint8)
    y = rng.integers(0, k, n)
    w = rng.integers(1, 4, n).astype(np.float64) if draw(st.booleans()) else np.ones(n)
    B = rng.random(n) < 0.6
    A = B.copy()
    A[rng.choice(n, size=draw(st.integers(1, min(3, n))), replace=False)] ^= True
    lam_n = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    return X, y, w, A, B, lam_n


def _subproblem_optimum(X, y, w, rows, lam_n):
    """Optimum of ``errors + lam_n * leaves`` (weights) on the samples ``rows``, by brute force."""
    if not rows.any():
        return lam_n
    total = float(w[rows].sum())
    errors, leaves = optimal_tree_cost(X[rows], y[rows], lam_n / total, None, w[rows])
    return errors + lam_n * leaves


def _minority(X, y, w, rows):
    """Weight of the equivalent-points minority of ``rows``: in each group of identical feature rows, all but the
    largest class (OSDT Thm B.2)."""
    groups: dict = {}
    for i in np.flatnonzero(rows):
        groups.setdefault(X[i].tobytes(), []).append(i)
    return sum(w[g].sum() - max(w[[i for i in g if y[i] == c]].sum() for c in set(y[g])) for g in groups.values())


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(support_pairs())
def test_subproblem_bounds_hold_against_brute_force(problem):
    """The dp search's bounds never exceed the optimum of the support they bound: similar support (OSDT Thm F.1),
    one-step lookahead (Lemma 3.2 with Thm B.2), and a leaf declared exact (Thm 3.3, Thm B.2) is optimal."""
    from optbb.osdt import bounds as OB

    X, y, w, A, B, lam_n = problem
    opt_a, opt_b = _subproblem_optimum(X, y, w, A, lam_n), _subproblem_optimum(X, y, w, B, lam_n)
    assert OB.similar_support_bound(opt_a, float(w[A ^ B].sum())) <= opt_b + 1e-9
    counts = np.bincount(y[B], weights=w[B], minlength=3) if B.any() else np.zeros(3)
    errors, z = float(counts.sum() - counts.max()), _minority(X, y, w, B)
    assert OB.lookahead_bound(errors, z, lam_n) <= opt_b + 1e-9
    if OB.leaf_is_exact(errors, z, lam_n):
        assert opt_b == pytest.approx(errors + lam_n, abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.sampled_from([0.02, 0.05, 0.1]), st.sampled_from([None, 2, 3]))
def test_agrees_with_leaf_set_search(seed, lam, max_depth):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 40)), int(rng.integers(1, 6))
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = rng.integers(0, 2, n).astype(np.uint8)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    data = from_arrays(X, y)
    a = solve(data, lam, search="dp", max_depth=max_depth)
    b = solve(data, lam, search="leaf_set", max_depth=max_depth)
    assert a.status is Status.OPTIMAL and b.status is Status.OPTIMAL
    assert a.objective == pytest.approx(b.objective, abs=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# golden values and the DL optima
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", golden_params(slow=SLOW_GOLDEN))
def test_golden_objectives_dp(row):
    data = osdt_data(row["dataset"])
    res = solve(data, float(row["lambda"]), search="dp", time_limit=600)
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(float(row["objective"]), abs=1e-9)
    assert res.lower_bound == res.objective
    assert sum(res.model.errors) == int(row["errors"])


def _dl_params(depth):
    out = []
    for name, opt in DL_OPTIMA.items():
        if opt[depth - 2] is None:
            continue
        slow = name not in ("vote", "tic-tac-toe", "heart-cleveland")
        out.append(pytest.param(name, opt[depth - 2], id=name, marks=[pytest.mark.slow] if slow else []))
    return out


def _dl_check(name, depth, expected, monkeypatch=None):
    """The published optimum, with the depth-2 solver whatever the data's size (``monkeypatch`` given) or as the
    search decides."""
    X, y = dl_data(name)
    lam = 1.0 / (len(y) * 2 ** (depth + 3))  # below 1 / (N 2^(d+2)): errors come first
    data = from_arrays(X, y)
    if monkeypatch is not None:
        monkeypatch.setattr(dp_search, "DEPTH2_MIN_WORK", 0)
    res = solve(data, lam, max_depth=depth)
    assert res.status is Status.OPTIMAL
    assert sum(res.model.errors) == expected
    assert res.model.depth <= depth


@pytest.mark.parametrize("name,expected", _dl_params(2))
def test_dl_depth2_optima(name, expected, monkeypatch):
    _dl_check(name, 2, expected, monkeypatch)


@pytest.mark.parametrize("name,expected", _dl_params(3))
def test_dl_depth3_optima(name, expected, monkeypatch):
    _dl_check(name, 3, expected, monkeypatch)


@pytest.mark.parametrize("name", ["vote", "heart-cleveland", "tic-tac-toe"])
def test_dl_depth3_optima_as_the_search_decides(name):
    """Below :data:`~optbb.osdt.dp.engine.DEPTH2_MIN_WORK` (these three) the search leaves the depth-2 solver
    out: the published optimum all the same."""
    X, _ = dl_data(name)
    assert not dp_search.depth2_pays(X.shape[1], (X.shape[0] + 63) // 64, 3)
    _dl_check(name, 3, DL_OPTIMA[name][1])


def test_the_depth2_solver_is_left_out_only_of_small_searches():
    X, y = dl_data("vote")
    small = solve_dp(X, y, 0.001, max_depth=3)
    forced = solve_dp(X, y, 0.001, max_depth=3, depth2_solver=True)
    assert small.counters["depth2_calls"] == 0 < forced.counters["depth2_calls"]
    assert small.objective == pytest.approx(forced.objective, abs=1e-12)
    assert dp_search.depth2_pays(100, 20, 4) and not dp_search.depth2_pays(11, 2, 3)
    assert not dp_search.depth2_pays(100, 20, dp_search.D.UNLIMITED)


@pytest.mark.parametrize("name", ["vote", "heart-cleveland", "tic-tac-toe"])
def test_dl_depth3_optima_without_count_tables(name, monkeypatch):
    """The depth-2 solver without count tables (as for tables over 64 MB) at depth 3: the published optimum."""
    from optbb.osdt.dp import kernel as D
    from optbb.osdt.dp.engine import DPEngine

    monkeypatch.setattr(DPEngine, "_new_tables", lambda self: D.NO_TABLES)
    _dl_check(name, 3, DL_OPTIMA[name][1])


def test_dl_zero_regularization_is_minimum_errors():
    X, y = dl_data("vote")
    res = solve(from_arrays(X, y), 0.0, max_depth=2)
    assert res.status is Status.OPTIMAL and sum(res.model.errors) == 17


# ---------------------------------------------------------------------------------------------------------------
# anytime behaviour and limits
# ---------------------------------------------------------------------------------------------------------------


def test_stopped_search_bound_never_exceeds_optimum():
    data = osdt_data("tic-tac-toe")
    optimum = 154 / 958 + 9 * 0.01  # 154 errors, 9 leaves
    for kw in ({"node_limit": 50}, {"node_limit": 2000}, {"node_limit": 20000}, {"time_limit": 0.2}):
        res = solve(data, 0.01, search="dp", **kw)
        assert res.lower_bound <= optimum + 1e-12, kw
        assert res.lower_bound <= res.objective and res.objective >= optimum - 1e-12
        if res.status is not Status.OPTIMAL:
            assert res.status in (Status.NODE_LIMIT, Status.TIME_LIMIT)
        tr = res.trace
        assert np.all(np.diff(tr["lower_bound"].to_numpy()) >= -1e-15)  # the bound only rises
        assert np.all(tr["lower_bound"].to_numpy() <= optimum + 1e-12)
    full = solve(data, 0.01, search="dp")
    assert full.trace["lower_bound"].iloc[-1] == pytest.approx(optimum, abs=1e-9)


def test_memory_limit_stops_with_a_valid_certificate():
    data = osdt_data("tic-tac-toe")
    cap = 2 << 20
    res = solve(data, 0.005, search="dp", memory_limit=cap)
    assert res.status is Status.MEMORY_LIMIT
    assert res.counters["memory_bytes"] <= cap
    assert res.lower_bound <= 0.154279749 + 1e-12 <= res.objective + 1e-12
    tiny = solve(data, 0.005, search="dp", memory_limit=1000)
    assert tiny.status is Status.MEMORY_LIMIT and tiny.model is not None


def test_counters_and_model():
    data = osdt_data("compas-binary")
    res = solve(data, 0.005, search="dp")
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(0.355968583, abs=1e-9)
    assert res.model.n_leaves == 5
    for key in ("nodes", "subproblems", "total_time", "time_to_optimum", "memory_bytes", "depth2_calls"):
        assert key in res.counters
    assert res.counters["memory_bytes"] >= res.counters["memo_bytes"] > 0


def test_three_class_labels_through_solve():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (40, 4)).astype(np.uint8)
    labels = (X[:, 0] + X[:, 1] + (rng.random(40) < 0.1)).astype(np.int64) % 3
    data = from_arrays(X, labels)
    res = solve(data, 0.02, max_depth=3)
    assert res.objective == pytest.approx(optimal_objective(X, labels, 0.02, 3), abs=1e-9)
    assert set(res.model.predictions) <= {0, 1, 2}


# ---------------------------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------------------------


def test_auto_picks_dp_unless_a_leaf_set_option_is_set():
    data = osdt_data("monk1-train")
    assert "subproblems" in solve(data, 0.05).counters
    assert "trees_evaluated" in solve(data, 0.05, policy="objective").counters
    assert "trees_evaluated" in solve(data, 0.05, max_leaves=4).counters
    assert "trees_evaluated" in solve(data, 0.05, search="leaf_set").counters


@pytest.mark.parametrize("kw,match", [({"max_leaves": 4}, "max_leaves"), ({"policy": "objective"}, "policy"),
                                      ({"ablation": ("support",)}, "ablation"),
                                      ({"upper_bound": 0.5}, "upper_bound")])
def test_dp_refuses_leaf_set_options(kw, match):
    data = osdt_data("monk1-train")
    with pytest.raises(ValueError, match=match):
        solve(data, 0.05, search="dp", **kw)


def test_bad_arguments():
    data = osdt_data("monk1-train")
    with pytest.raises(ValueError, match="search"):
        solve(data, 0.05, search="bfs")
    with pytest.raises(ValueError, match="regularization"):
        solve(data, 0.0, search="dp")  # lambda = 0 needs a max_depth
    with pytest.raises(ValueError, match="max_depth"):
        solve(data, 0.05, search="dp", max_depth=-1)
    three = from_arrays(data.X, np.arange(data.n_samples) % 3)
    with pytest.raises(ValueError, match="3 classes; search='leaf_set' takes two classes only"):
        solve(three, 0.05, search="leaf_set")
    with pytest.raises(ValueError, match="two classes only"):
        solve(three, 0.05, max_leaves=4)


def test_estimator_search_parameter():
    data = osdt_data("monk1-train")
    a = OSDTClassifier(regularization=0.025).fit(data.X, data.y)
    b = OSDTClassifier(regularization=0.025, search="leaf_set").fit(data.X, data.y)
    assert a.result_.objective == pytest.approx(b.result_.objective, abs=1e-12)
    assert "subproblems" in a.result_.counters and "trees_evaluated" in b.result_.counters
    assert np.array_equal(a.predict(data.X), data.y)
    with pytest.raises(ValueError, match="max_leaves"):
        OSDTClassifier(search="dp", max_leaves=3).fit(data.X, data.y)
    c = OSDTClassifier(regularization=0.0, max_depth=2).fit(data.X, data.y)
    assert c.tree_.depth <= 2


def test_stopped_search_returns_its_best_tree():
    data = osdt_data("tic-tac-toe")
    first = solve(data, 0.005, search="dp", node_limit=1)  # the CART warm start
    later = solve(data, 0.005, search="dp", node_limit=3000)
    assert later.status is Status.NODE_LIMIT
    assert later.objective <= first.objective
    for res in (first, later):
        pred = np.asarray(res.model.predictions)[res.model.leaf_index(data.X)]
        assert np.sum(pred != data.y) / data.n_samples + 0.005 * res.model.n_leaves == \
            pytest.approx(res.objective, abs=1e-12)
        assert res.lower_bound <= 0.154279749 + 1e-12


def test_stopped_search_fits_no_cart_completion_once_their_time_is_up(monkeypatch):
    from optbb.osdt.dp import trees as dp_trees

    monkeypatch.setattr(dp_trees, "GREEDY_SECONDS", -1.0)
    monkeypatch.setattr(dp_trees, "cart_warm_start", lambda *args: pytest.fail("CART fitted after its time"))
    data = osdt_data("tic-tac-toe")
    res = solve(data, 0.005, search="dp", initial_tree=None, node_limit=3000)
    assert res.status is Status.NODE_LIMIT
    pred = np.asarray(res.model.predictions)[res.model.leaf_index(data.X)]
    assert np.sum(pred != data.y) / data.n_samples + 0.005 * res.model.n_leaves == pytest.approx(res.objective)
