"""CORELS: golden objectives, ablation agreement, brute-force agreement, limits."""
import csv
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORELS_MAPS, DATA, check_corels_every_policy_and_map, corels_fold
from strategies import corels_problems
from twins.corels import corels_brute_force
from optbb.common.data import from_arrays
from optbb.corels import ABLATIONS, POLICIES, RuleList, solve

GOLDEN = list(csv.DictReader(open(DATA / "corels" / "corels_propublica.csv")))


def _golden(lam, quick_only):
    return [(int(r["fold"]), float(r["objective"])) for r in GOLDEN
            if float(r["lambda"]) == lam and (r["quick"] == "1" or not quick_only)]


@pytest.mark.parametrize("lam", [0.01, 0.02])
def test_golden_all_folds(lam):
    for fold, expected in _golden(lam, quick_only=False):
        result = solve(corels_fold(fold), lam)
        assert result.status.name == "OPTIMAL"
        assert abs(result.objective - expected) < 1e-9, (fold, result.objective, expected)
        assert result.lower_bound == result.objective and result.gap == 0
        assert abs(result.model.objective - result.objective) < 1e-12


@pytest.mark.parametrize("fold,expected", _golden(0.005, quick_only=True))
def test_golden_lambda_0005_quick(fold, expected):
    result = solve(corels_fold(fold, with_minor=True), 0.005)
    assert result.status.name == "OPTIMAL"
    assert abs(result.objective - expected) < 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("fold,expected", _golden(0.005, quick_only=False))
def test_golden_lambda_0005_all(fold, expected):
    result = solve(corels_fold(fold), 0.005)
    assert result.status.name == "OPTIMAL"
    assert abs(result.objective - expected) < 1e-9


def _variants():
    yield {}
    for p in POLICIES:
        yield {"policy": p}
    for m in CORELS_MAPS:
        yield {"map_type": m}
    for a in ABLATIONS:
        yield {"ablation": (a,)}
    yield {"ablation": ("support", "accurate_support")}


@pytest.mark.parametrize("variant", list(_variants()), ids=str)
def test_every_variant_reaches_the_optimum(variant):
    """Fold 0 at lambda 0.01 (golden) for every switch; without the equivalent points bound the search is
    intractable there (as in the paper's Table 4), so that variant is checked at lambda 0.05 against the default."""
    lam, expected = 0.01, _golden(0.01, quick_only=False)[0][1]
    if "equivalent_points" in variant.get("ablation", ()):
        lam, expected = 0.05, solve(corels_fold(0), 0.05).objective
    result = solve(corels_fold(0), lam, **variant)
    assert result.status.name == "OPTIMAL"
    assert abs(result.objective - expected) < 1e-9


def test_ablations_change_work_not_answer():
    base = solve(corels_fold(0), 0.01).counters
    no_la = solve(corels_fold(0), 0.01, ablation=("lookahead",)).counters
    no_map = solve(corels_fold(0), 0.01, map_type="none").counters
    assert no_la["nodes_evaluated"] > base["nodes_evaluated"]
    assert no_map["queue_insertions"] > base["queue_insertions"]


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(corels_problems())
def test_brute_force_agreement_every_policy_and_map(problem):
    A, y, lam = problem
    expected, _ = corels_brute_force(A, y, lam)
    data = from_arrays(A, y)
    check_corels_every_policy_and_map(data, lam, expected, A, y)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(corels_problems(), st.sets(st.sampled_from(ABLATIONS)))
def test_brute_force_agreement_every_ablation(problem, ablation):
    A, y, lam = problem
    expected, _ = corels_brute_force(A, y, lam)
    result = solve(from_arrays(A, y), lam, ablation=tuple(ablation))
    assert result.objective == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(corels_problems(), st.integers(1, 20))
def test_stopped_search_reports_a_valid_lower_bound(problem, nodes):
    A, y, lam = problem
    expected, _ = corels_brute_force(A, y, lam)
    result = solve(from_arrays(A, y), lam, node_limit=nodes, policy="bfs")
    assert result.lower_bound <= expected + 1e-12 <= result.objective + 2e-12
    assert result.status.name in ("OPTIMAL", "NODE_LIMIT")
    if result.status.name == "NODE_LIMIT":
        assert result.counters["nodes_evaluated"] == nodes


def test_node_limit_is_exact():
    result = solve(corels_fold(0), 0.005, node_limit=500)
    assert result.status.name == "NODE_LIMIT"
    assert result.counters["nodes_evaluated"] == 500
    assert result.lower_bound <= 0.3523552124 + 1e-9 and 0.3523552124 <= result.objective + 1e-9


def test_memory_limit_without_equivalent_points():
    limit = 8 << 20
    result = solve(corels_fold(0), 0.005, ablation=("equivalent_points",), memory_limit=limit)
    assert result.status.name == "MEMORY_LIMIT"
    assert result.counters["memory_bytes"] <= limit
    assert result.lower_bound <= 0.3523552124 + 1e-9 and 0.3523552124 <= result.objective + 1e-9
    assert not math.isnan(result.gap) and result.gap > 0


def test_time_limit_is_honoured():
    result = solve(corels_fold(0), 0.005, ablation=("equivalent_points",), time_limit=1.0)
    assert result.status.name == "TIME_LIMIT"
    assert result.counters["total_time"] < 1.5
    assert result.lower_bound <= 0.3523552124 + 1e-9


@pytest.mark.parametrize("limit, status", [({"memory_limit": 100_000}, "MEMORY_LIMIT"),
                                           ({"time_limit": 60}, "TIME_LIMIT")])
def test_mine_and_solve_without_room_left_for_the_search(monkeypatch, limit, status):
    """A complete mining that leaves the search too little memory to start, or that ends as the time runs out (here
    the clock is moved past the limit): no search runs, the result is the empty list with that status."""
    from optbb.corels import search as corels_search

    mine = corels_search.mine_antecedents

    def mine_then_wait(*args, budget, **kw):
        mined = mine(*args, budget=budget, **kw)
        budget.start -= limit.get("time_limit", 0)
        return mined

    monkeypatch.setattr(corels_search, "mine_antecedents", mine_then_wait)
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]] * 10, dtype=np.uint8)
    mined, result = corels_search.mine_and_solve(from_arrays(X, X[:, 0] & X[:, 1]), 0.01, **limit)
    assert mined.complete and result.status.name == status
    assert len(result.model) == 0 and result.counters["nodes_evaluated"] == 0


def test_trace_is_monotone():
    result = solve(corels_fold(0), 0.005)
    tr = result.trace
    assert list(tr.columns[:4]) == ["time", "objective", "lower_bound", "queue_size"]
    assert (np.diff(tr["objective"]) <= 0).all()
    assert tr["objective"].iloc[-1] == result.objective


@pytest.mark.parametrize("bad,match", [(-0.1, "regularization"), (float("nan"), "regularization"),
                                       ("x", "regularization")])
def test_bad_regularization(bad, match):
    with pytest.raises(ValueError, match=match):
        solve(corels_fold(0), bad)


def test_bad_names():
    with pytest.raises(ValueError, match="policy"):
        solve(corels_fold(0), 0.01, policy="random")
    with pytest.raises(ValueError, match="map_type"):
        solve(corels_fold(0), 0.01, map_type="trie")
    with pytest.raises(ValueError, match="ablation"):
        solve(corels_fold(0), 0.01, ablation=("magic",))


def test_large_lambda_gives_empty_list():
    result = solve(corels_fold(0), 0.6)
    assert result.status.name == "OPTIMAL" and len(result.model) == 0


def test_predict_refuses_what_it_cannot_read():
    A = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 5, dtype=np.uint8)
    model = solve(from_arrays(A, A[:, 0]), 0.01).model
    assert len(model) == 1 and np.array_equal(model.predict(A), A[:, 0])
    with pytest.raises(ValueError, match=r"X must have 2 feature columns, got shape \(20, 1\)"):
        model.predict(A[:, :1])
    d = model.to_dict()
    for rule in d["rules"]:
        del rule["features"], rule["negated"]
    with pytest.raises(ValueError, match="does not know its antecedents' literals"):
        RuleList.from_dict(d).predict(A)
