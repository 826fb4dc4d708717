"""The Rashomon set of rule lists (``optbb.corels.rashomon_set``) against its brute-force twin
(``tests/twins/rule_lists_rashomon.py``): counts, listing order, indexing, sampling, exact summaries, limits, bad
inputs, the estimator method, and COMPAS."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from optbb.common import driver
from optbb.common.data import BinaryDataset
from optbb.common.rashomon import RashomonSet, within
from optbb.common.result import Status
from optbb.corels import CorelsClassifier, rashomon_set
from optbb.corels.rashomon import kernel as K
from twins.rule_lists_rashomon import count_members, evaluate, rashomon_members


def dataset(A, y, k, w=None) -> BinaryDataset:
    return BinaryDataset(A, y, [f"a{j}" for j in range(A.shape[1])], w, tuple(f"c{c}" for c in range(k)))


@st.composite
def problems(draw):
    """``(A, y, k, w, lam, max_length)``: 6-30 rows, 2-6 antecedents, 2-4 classes, real weights half the time."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(6, 30))
    m = draw(st.integers(2, 6))
    k = draw(st.integers(2, 4))
    A = (rng.random((n, m)) < rng.uniform(0.2, 0.7)).astype(np.uint8)
    y = rng.integers(0, k, n).astype(np.uint8)
    w = rng.uniform(0.1, 3.0, n).round(draw(st.sampled_from([1, 6]))) if draw(st.booleans()) else None
    lam = draw(st.sampled_from([0.0, 0.005, 0.01, 0.02, 0.04]))
    max_length = draw(st.sampled_from([None, 0, 1, 2, 3, 8]))
    return A, y, k, w, lam, max_length


def prefix_of(model) -> tuple:
    return tuple(r.antecedent for r in model.rules)


def check_against_twin(A, y, k, w, lam, max_length, rs: RashomonSet, optimum, limit, members) -> None:
    listed = [prefix_of(mdl) for mdl in rs]
    assert rs.count == len(members) == len(listed)
    assert set(listed) == set(members) and len(set(listed)) == len(listed)
    assert sum(lv.count for lv in rs.levels) == rs.count
    # objective order, each model's objective recomputed from scratch equal to its level's and within the bound
    objectives = [rs.objective_of_index(i) for i in range(rs.count)]
    assert all(a <= b for a, b in zip(objectives, objectives[1:]))
    for i, p in enumerate(listed):
        again = evaluate(A, y, p, lam, np.ones(len(y)) if w is None else w, k)[0]
        assert again == pytest.approx(objectives[i], rel=1e-12, abs=1e-12)
        assert within(objectives[i], rs.bound)
    assert [prefix_of(rs[i]) for i in range(rs.count)] == listed
    # exact summaries, against the twin's predictions
    counts = np.zeros((len(y), k), dtype=np.int64)
    usage = np.zeros(A.shape[1], dtype=np.int64)
    for p, (_, _, pred) in members.items():
        counts[np.arange(len(y)), pred] += 1
        usage[list(p)] += 1
    assert np.array_equal(rs.class_counts(), counts)
    assert list(rs.feature_usage()) == usage.tolist()
    if members:
        assert rs.optimum == pytest.approx(optimum, rel=1e-12, abs=1e-12)
    assert rs.status is Status.OPTIMAL and rs.complete_below == rs.bound


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(), st.sampled_from([0.0, 0.02, 0.1, 0.3, 1.0]))
def test_epsilon_sets_match_the_twin(problem, epsilon):
    A, y, k, w, lam, max_length = problem
    optimum, limit, members = rashomon_members(A, y, lam, epsilon=epsilon, max_length=max_length, sample_weight=w,
                                               n_classes=k)
    rs = rashomon_set(dataset(A, y, k, w), lam, epsilon=epsilon, max_length=max_length)
    assert rs.bound == pytest.approx(limit, rel=1e-12, abs=1e-15)
    assert rs.optimum == pytest.approx(optimum, rel=1e-12, abs=1e-12)
    check_against_twin(A, y, k, w, lam, max_length, rs, optimum, limit, members)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(), st.sampled_from([0.0, 0.01, 0.05, 0.15]))
def test_bound_sets_match_the_twin(problem, above):
    A, y, k, w, lam, max_length = problem
    best, _, _ = rashomon_members(A, y, lam, epsilon=0.0, max_length=max_length, sample_weight=w, n_classes=k)
    optimum, limit, members = rashomon_members(A, y, lam, bound=best + above, max_length=max_length,
                                               sample_weight=w, n_classes=k)
    rs = rashomon_set(dataset(A, y, k, w), lam, bound=best + above, max_length=max_length)
    assert rs.bound == limit
    check_against_twin(A, y, k, w, lam, max_length, rs, optimum, limit, members)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(), st.sampled_from([0.0, 0.01, 0.05, 0.3]), st.booleans())
def test_staged_sets_under_a_limit_match_the_twin(problem, above, absolute):
    """With a time limit the set is enumerated in stages from the optimum up, each pruned by the accurate support
    and the permutations of a known optimum; a limit that leaves them time ends with the same set."""
    A, y, k, w, lam, max_length = problem
    best, _, _ = rashomon_members(A, y, lam, epsilon=0.0, max_length=max_length, sample_weight=w, n_classes=k)
    bound = dict(bound=best + above) if absolute else dict(epsilon=above)
    optimum, limit, members = rashomon_members(A, y, lam, max_length=max_length, sample_weight=w, n_classes=k,
                                               **bound)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = rashomon_set(dataset(A, y, k, w), lam, max_length=max_length, time_limit=600, **bound)
    assert rs.bound == pytest.approx(limit, rel=1e-12, abs=1e-15)
    check_against_twin(A, y, k, w, lam, max_length, rs, optimum, limit, members)


def test_a_staged_set_that_finishes_is_complete_up_to_its_bound_exactly():
    """The last stage was enumerated within ``optimum + 1.0 * (bound - optimum)``, which may differ from the bound in
    its last bits: a finished set then said it was complete below a number just under its bound."""
    A, y, lam, _, max_length = many_lists()
    optimum = rashomon_set(dataset(A, y, 2), lam, epsilon=0.0, max_length=max_length).optimum
    bound = next(b for b in (round(optimum + k / 997, 9) for k in range(5, 2000)) if optimum + (b - optimum) != b)
    rs = rashomon_set(dataset(A, y, 2), lam, bound=float(bound), max_length=max_length, time_limit=600)
    assert rs.status is Status.OPTIMAL and rs.complete_below == rs.bound == bound


@st.composite
def tying_problems(draw):
    """Like :func:`problems`, with antecedents that are the values of two or three categorical columns: values of
    one column capture disjoint rows, so many orderings of a prefix err exactly as much (ties)."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(8, 30))
    k = draw(st.integers(2, 3))
    cols = [np.eye(c, dtype=np.uint8)[rng.integers(0, c, n)] for c in rng.integers(2, 4, draw(st.integers(2, 3)))]
    A = np.hstack(cols)[:, : draw(st.integers(3, 7))]
    y = rng.integers(0, k, n).astype(np.uint8)
    w = rng.integers(1, 10, n) / draw(st.sampled_from([3.0, 10.0])) if draw(st.booleans()) else None
    lam = draw(st.sampled_from([0.0, 0.01, 0.03]))
    return A, y, k, w, lam, draw(st.sampled_from([None, 2, 3]))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(tying_problems(), st.sampled_from([0.0, 0.05, 0.3]), st.booleans())
def test_tied_orderings_are_listed_as_members(problem, epsilon, staged):
    """An ordering that errs exactly as much as one already stored is not expanded (an alias of it); the set still
    holds every list extending it, with its own objective, rank and summaries (ties.unfold)."""
    A, y, k, w, lam, max_length = problem
    optimum, limit, members = rashomon_members(A, y, lam, epsilon=epsilon, max_length=max_length, sample_weight=w,
                                               n_classes=k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = rashomon_set(dataset(A, y, k, w), lam, epsilon=epsilon, max_length=max_length,
                          time_limit=600 if staged else None)
    check_against_twin(A, y, k, w, lam, max_length, rs, optimum, limit, members)
    assert [rs.index(rs[i]) for i in range(rs.count)] == list(range(rs.count))


def test_tied_orderings_occur_and_are_not_expanded():
    """On one-hot columns most orderings tie: the enumeration stores them as aliases and expands fewer prefixes
    than there are lists, while the set matches the twin."""
    rng = np.random.default_rng(5)
    A = np.hstack([np.eye(3, dtype=np.uint8)[rng.integers(0, 3, 40)] for _ in range(2)])
    y = rng.integers(0, 2, 40).astype(np.uint8)
    optimum, limit, members = rashomon_members(A, y, 0.01, epsilon=0.3, max_length=3)
    rs = rashomon_set(dataset(A, y, 2), 0.01, epsilon=0.3, max_length=3)
    check_against_twin(A, y, 2, None, 0.01, 3, rs, optimum, limit, members)
    assert rs.counters["tied_orderings"] > 0


def test_tied_orderings_past_the_memory_limit_leave_a_partial_set(monkeypatch):
    """When writing out the members below tied orderings would pass ``memory_limit``, the set says MEMORY_LIMIT and
    claims no completeness (it holds the members found without them)."""
    from optbb.corels.rashomon.engine import Search

    rng = np.random.default_rng(5)
    A = np.hstack([np.eye(3, dtype=np.uint8)[rng.integers(0, 3, 40)] for _ in range(2)])
    y = rng.integers(0, 2, 40).astype(np.uint8)
    full = rashomon_set(dataset(A, y, 2), 0.01, epsilon=0.3, max_length=3)
    monkeypatch.setattr(Search, "unfold_bytes", lambda self: 1 << 40)
    with pytest.warns(UserWarning, match="partial"):
        rs = rashomon_set(dataset(A, y, 2), 0.01, epsilon=0.3, max_length=3, memory_limit="1G")
    assert rs.status is Status.MEMORY_LIMIT and rs.complete_below == -math.inf
    assert 0 < rs.count < full.count and {prefix_of(m) for m in rs} < {prefix_of(m) for m in full}


def test_a_partial_set_is_complete_from_the_optimum_up():
    """Stopped after its first stage, the set holds every list within it (the optimum's level and up), says which
    levels are complete, and warns that count is not the set's size."""
    A, y, lam, _, max_length = many_lists()
    full = rashomon_set(dataset(A, y, 2), lam, epsilon=0.1, max_length=max_length)
    for share in (0.9, 0.7, 0.5, 0.3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rs = rashomon_set(dataset(A, y, 2), lam, epsilon=0.1, max_length=max_length,
                              node_limit=int(share * full.counters["nodes"]))
        if rs.status is Status.OPTIMAL or rs.complete_below < rs.optimum:
            continue
        assert rs.status is Status.NODE_LIMIT and rs.optimum == full.optimum and rs.count > 0
        assert any("partial" in str(w.message) and str(rs.count) in str(w.message) for w in caught)
        assert rs.count_complete == full.count_within(bound=rs.complete_below)
        frame = rs.objectives()
        assert list(frame["complete"]) == [lv.objective <= rs.complete_below + 1e-9 for lv in rs.levels]
        return
    pytest.fail("no node limit stopped the set after a stage")


def small_set(members: int):
    """A problem whose set (epsilon 1) has a few members: 12 rows, 3 antecedents, found by a seeded search."""
    rng = np.random.default_rng(7)
    while True:
        A = (rng.random((12, 3)) < 0.5).astype(np.uint8)
        y = rng.integers(0, 2, 12).astype(np.uint8)
        _, _, found = rashomon_members(A, y, 0.05, epsilon=0.5, max_length=2)
        if len(found) == members:
            return A, y, found


def test_sample_is_uniform_and_distinct():
    A, y, found = small_set(6)
    rs = rashomon_set(dataset(A, y, 2), 0.05, epsilon=0.5, max_length=2)
    assert rs.count == 6
    draws = 6000
    hits = {p: 0 for p in found}
    for seed in range(draws):
        (model,) = rs.sample(1, random_state=seed)
        hits[prefix_of(model)] += 1
    observed = np.array(list(hits.values()), dtype=np.float64)
    statistic = float(((observed - draws / 6) ** 2 / (draws / 6)).sum())
    assert chi2.sf(statistic, df=5) > 1e-3, hits
    four = [prefix_of(m) for m in rs.sample(4, random_state=1)]
    assert len(set(four)) == 4 and set(four) <= set(found)
    assert sorted(prefix_of(m) for m in rs.sample(10, random_state=2)) == sorted(found)  # k >= count: all


def test_levels_are_ordered_by_objective_then_rules_then_errors():
    rng = np.random.default_rng(11)
    A = (rng.random((25, 5)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 3, 25).astype(np.uint8)
    rs = rashomon_set(dataset(A, y, 3), 0.0, bound=0.6, max_length=3)
    keys = [(lv.objective, lv.size, lv.errors) for lv in rs.levels]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all(isinstance(lv.errors, int) for lv in rs.levels)
    assert rs.count > 50 and any(a[0] == b[0] for a, b in zip(keys, keys[1:]))  # lambda 0: ties broken by size


def test_weighted_levels_key_errors_by_float_sums():
    rng = np.random.default_rng(5)
    A = (rng.random((20, 4)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 20).astype(np.uint8)
    w = rng.uniform(0.1, 2.0, 20)
    rs = rashomon_set(dataset(A, y, 2, w), 0.01, epsilon=0.3, max_length=3)
    assert all(isinstance(lv.errors, float) for lv in rs.levels)
    for i in range(rs.count):
        model = rs[i]
        assert model.objective == rs.objective_of_index(i)  # the same float: the same sums in the same order


def test_many_levels_grow_the_pair_table():
    rng = np.random.default_rng(9)  # real weights: nearly every list its own float errors, so its own level
    A = (rng.random((30, 6)) < 0.4).astype(np.uint8)
    y = rng.integers(0, 3, 30).astype(np.uint8)
    w = rng.uniform(0.1, 3.0, 30)
    optimum, limit, members = rashomon_members(A, y, 0.0, bound=1.0, max_length=None, sample_weight=w, n_classes=3)
    rs = rashomon_set(dataset(A, y, 3, w), 0.0, bound=1.0)
    assert rs.counters["pairs"] > 256 and len(rs.levels) == rs.counters["pairs"]  # 256: the first capacity
    check_against_twin(A, y, 3, w, 0.0, None, rs, optimum, limit, members)


# -- the empty set and bad inputs ------------------------------------------------------------------------------
def test_bound_below_the_optimum_gives_an_empty_set_with_a_warning():
    rng = np.random.default_rng(2)
    A = (rng.random((20, 4)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 20).astype(np.uint8)
    optimum, _, _ = rashomon_members(A, y, 0.02, epsilon=0.0, max_length=2)
    with pytest.warns(UserWarning, match="below the optimum"):
        rs = rashomon_set(dataset(A, y, 2), 0.02, bound=optimum * 0.9, max_length=2)
    assert rs.count == 0 and list(rs) == [] and rs.levels == []
    assert rs.optimum == pytest.approx(optimum) and "below the optimum" in rs.counters["empty"]
    assert rs.class_counts().shape == (20, 2) and not rs.class_counts().to_numpy().any()
    assert list(rs.feature_usage()) == [0] * 4


@pytest.mark.parametrize("kwargs, match", [
    ({}, "exactly one"), ({"epsilon": 0.1, "bound": 0.3}, "exactly one"), ({"epsilon": -0.1}, "epsilon"),
    ({"bound": float("nan")}, "bound"), ({"epsilon": "0.1"}, "epsilon"),
    ({"epsilon": 0.1, "max_length": -1}, "max_length"), ({"epsilon": 0.1, "max_length": 1.5}, "max_length"),
    ({"epsilon": 0.1, "max_length": True}, "max_length"), ({"epsilon": 0.1, "max_length": "2"}, "max_length"),
    ({"epsilon": 0.1, "time_limit": -1}, "time_limit"), ({"epsilon": 0.1, "node_limit": 0}, "node_limit"),
    ({"epsilon": 0.1, "memory_limit": "lots"}, "memory_limit"),
])
def test_bad_arguments_are_value_errors_naming_them(kwargs, match):
    data = dataset(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8), np.array([0, 1, 1]), 2)
    with pytest.raises(ValueError, match=match):
        rashomon_set(data, 0.01, **kwargs)


@pytest.mark.parametrize("lam", [-0.01, float("nan"), float("inf"), "0.1", None])
def test_bad_regularization_is_a_value_error_naming_it(lam):
    data = dataset(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8), np.array([0, 1, 1]), 2)
    with pytest.raises(ValueError, match="regularization"):
        rashomon_set(data, lam, epsilon=0.1)


def test_data_must_be_a_binary_dataset():
    with pytest.raises(TypeError, match="BinaryDataset"):
        rashomon_set(np.zeros((3, 2)), 0.01, epsilon=0.1)


def test_index_out_of_range():
    data = dataset(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=np.uint8), np.array([0, 1, 1, 0]), 2)
    rs = rashomon_set(data, 0.01, epsilon=1.0)
    with pytest.raises(IndexError):
        rs[rs.count]
    assert prefix_of(rs[-1]) == prefix_of(list(rs)[-1])


# -- limits -----------------------------------------------------------------------------------------------------
def many_lists():
    """Eight antecedents, at most five rules and a loose bound: 8,633 members of 8,801 lists."""
    rng = np.random.default_rng(3)
    A = (rng.random((40, 8)) < 0.3).astype(np.uint8)
    y = rng.integers(0, 2, 40).astype(np.uint8)
    return A, y, 0.01, 0.5, 5


@pytest.fixture(scope="module")
def all_lists():
    """The twin's scores of every list of :func:`many_lists`."""
    A, y, lam, _, max_length = many_lists()
    return rashomon_members(A, y, lam, bound=2.0, max_length=max_length)[2]


def check_partial(rs: RashomonSet, status: Status, everything: dict) -> None:
    """A stopped set: its models are members, it holds every list within ``complete_below``, and its summaries
    count what it holds."""
    _, _, _, bound, max_length = many_lists()
    assert rs.status is status and rs.complete_below < rs.bound
    listed = [prefix_of(m) for m in rs]
    assert len(listed) == rs.count == len(set(listed))
    for i, p in enumerate(listed):
        assert within(everything[p][0], bound) and len(p) <= max_length
        assert everything[p][0] == pytest.approx(rs.objective_of_index(i), abs=1e-12)
    complete = {p for p, v in everything.items() if within(v[0], rs.complete_below)}
    assert complete and complete <= set(listed)
    assert rs.count_within(bound=rs.complete_below) == len(complete)
    assert rs.class_counts().sum(1).tolist() == [rs.count] * 40
    usage = np.zeros(8, dtype=np.int64)
    for p in listed:
        usage[list(p)] += 1
    assert list(rs.feature_usage()) == usage.tolist()


def test_node_limit_stops_with_a_complete_part(all_lists):
    A, y, lam, bound, max_length = many_lists()
    full = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length)
    assert full.status is Status.OPTIMAL and full.count == 8633 and full.counters["nodes"] > 6000
    rs = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length, node_limit=6000)
    assert rs.counters["nodes"] <= 6000 and rs.count < full.count
    check_partial(rs, Status.NODE_LIMIT, all_lists)


def test_memory_limit_stops_before_the_arrays_outgrow_it(all_lists):
    A, y, lam, bound, max_length = many_lists()
    full = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length, memory_limit=None)
    cap = full.counters["memory_bytes"] - 1
    rs = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length, memory_limit=cap)
    assert rs.counters["memory_bytes"] <= cap and rs.count < full.count
    check_partial(rs, Status.MEMORY_LIMIT, all_lists)


def test_limit_while_the_optimum_is_searched_gives_an_empty_set():
    A, y, lam, _, max_length = many_lists()
    rs = rashomon_set(dataset(A, y, 2), lam, epsilon=0.1, max_length=max_length, node_limit=50)
    assert rs.status is Status.NODE_LIMIT and rs.count == 0
    assert rs.complete_below < rs.optimum and not rs.counters["optimum_certified"]


def test_time_limit_returns_the_members_found():
    rng = np.random.default_rng(0)  # 14 antecedents, up to 7 rules: millions of members
    A = (rng.random((200, 14)) < 0.3).astype(np.uint8)
    y = rng.integers(0, 2, 200).astype(np.uint8)
    rs = rashomon_set(dataset(A, y, 2), 0.0, bound=0.6, max_length=7, time_limit=0.2)
    assert rs.status is Status.TIME_LIMIT and rs.count > 0
    assert rs.counters["total_time"] < 2.0
    assert rs.complete_below < rs.bound
    assert rs.counters["optimum_certified"] == (rs.complete_below >= rs.optimum)
    for model in rs.sample(200, random_state=0):
        assert within(evaluate(A, y, prefix_of(model), 0.0, np.ones(len(y)), 2)[0], 0.6)


def test_ctrl_c_returns_the_members_found(all_lists, monkeypatch):
    """Ctrl-C (the driver's interrupt flag) during the enumeration: status INTERRUPTED, the members found, complete
    below ``complete_below``."""
    import optbb.common.limits as limits

    class CtrlC(limits.InterruptGuard):
        checks = 0

        @property
        def interrupted(self):
            CtrlC.checks += 1
            return CtrlC.checks > 40  # after the optimum's search and a few chunks of the enumeration

        @interrupted.setter
        def interrupted(self, value):
            pass

    monkeypatch.setattr(limits, "InterruptGuard", CtrlC)
    A, y, lam, bound, max_length = many_lists()
    rs = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length)
    check_partial(rs, Status.INTERRUPTED, all_lists)


def test_ctrl_c_in_the_last_chunk_of_a_stage_ends_the_set(all_lists, monkeypatch):
    """A signal that arrived in the chunk that finished a stage of a staged set (under a limit) was lost: the next
    stages ran on, and the set came back whole (OPTIMAL).  It now ends the set after that stage, INTERRUPTED and
    complete up to it."""
    import signal

    from optbb.corels.rashomon.engine import Search

    step, stages = Search.step, []

    def step_then_ctrl_c(self, work):
        code = step(self, work)
        if code == driver.DONE and self.mode == K.ENUMERATE:
            stages.append(self.limit)
            if len(stages) == 1:
                signal.raise_signal(signal.SIGINT)
        return code

    monkeypatch.setattr(Search, "step", step_then_ctrl_c)
    A, y, lam, bound, max_length = many_lists()
    rs = rashomon_set(dataset(A, y, 2), lam, bound=bound, max_length=max_length, time_limit=600)
    assert len(stages) == 1 and rs.status is Status.INTERRUPTED
    assert rs.complete_below == pytest.approx(rs.optimum) and rs.complete_below < rs.bound
    check_partial(rs, Status.INTERRUPTED, all_lists)


# -- the estimator ----------------------------------------------------------------------------------------------
def raw_problem():
    rng = np.random.default_rng(4)
    X = pd.DataFrame((rng.random((80, 4)) < 0.5).astype(int), columns=["young", "priors", "male", "juvenile"])
    y = np.where((X.young & X.priors) | X.juvenile, "yes", "no")
    flip = rng.random(80) < 0.1
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    return X, y


def test_estimator_set_over_its_antecedents_predicts_raw_features():
    X, y = raw_problem()
    clf = CorelsClassifier(regularization=0.02, max_card=2).fit(X, y)
    rs = clf.rashomon_set(epsilon=0.15)
    assert rs.status is Status.OPTIMAL and rs.count > 1
    assert rs.optimum == pytest.approx(clf.result_.objective, abs=1e-12)
    assert list(rs.feature_usage().index) == list(clf.antecedents_.data.feature_names)
    first = rs[0]
    assert first.objective == pytest.approx(clf.rule_list_.objective, abs=1e-12)
    predictions = rs.predict(X, models=range(rs.count))
    with pytest.raises(ValueError):
        rs.predict(X.iloc[:, :2])  # checked as predict checks X
    assert predictions.shape == (rs.count, len(X)) and set(np.unique(predictions)) <= {"no", "yes"}
    A = clf.antecedents_.data.X
    for i, model in enumerate(rs):
        assert np.array_equal(predictions[i], model.predict(X.to_numpy()))
        assert np.array_equal(predictions[i], clf.classes_[model.rule_classes()[model.capture_antecedents(A)]])
    # the same set as the function over the antecedents the estimator mined
    again = rashomon_set(clf.antecedents_.data, clf.regularization, epsilon=0.15)
    assert [prefix_of(m) for m in again] == [prefix_of(m) for m in rs]
    assert np.array_equal(again.class_counts(), rs.class_counts())


def test_estimator_set_without_antecedents_holds_the_default_rule():
    X, y = raw_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no antecedent passes the support filter
        clf = CorelsClassifier(regularization=0.02, max_card=1, min_support=0.5).fit(X, y, sample_weight=[0] + [1] * 79)
    assert clf.antecedents_.data is None
    rs = clf.rashomon_set(epsilon=0.1)
    assert rs.count == 1 and len(rs[0]) == 0 and rs.optimum == pytest.approx(clf.result_.objective)
    assert rs.class_counts().shape == (79, 2) and list(rs.feature_usage()) == []
    assert np.array_equal(rs.predict(X)[0], clf.predict(X))


def test_estimator_set_needs_a_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CorelsClassifier().rashomon_set(epsilon=0.1)


# -- COMPAS -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def compas():
    from optbb.datasets import load_compas_corels

    try:
        return load_compas_corels()
    except FileNotFoundError as exc:  # the package data is missing from this install
        pytest.skip(f"the bundled COMPAS files are absent: {exc}")


def test_compas_two_rules_count_matches_a_direct_count(compas):
    rs = rashomon_set(compas, 0.01, epsilon=0.05, max_length=2)
    optimum, limit, count = count_members(compas.X, compas.y, 0.01, 2, epsilon=0.05)
    assert rs.optimum == pytest.approx(optimum, abs=1e-12) and rs.count == count
    listed = [prefix_of(m) for m in rs[:50]]
    for p, model in zip(listed, rs[:50]):
        assert model.objective <= limit + 1e-9 and len(p) <= 2


def test_compas_five_rules_partial_set_certifies_the_optimum_first(compas):
    """The optimum's level of COMPAS (lambda .01, five rules) is complete within 20M prefixes evaluated, the
    optimum's own search included; expanding every tied ordering took 54-69M."""
    with pytest.warns(UserWarning, match="partial"):
        rs = rashomon_set(compas, 0.01, epsilon=0.05, max_length=5, node_limit=20_000_000)
    assert rs.status is Status.NODE_LIMIT and rs.counters["optimum_certified"]
    assert rs.complete_below >= rs.optimum == pytest.approx(0.3679734936045616, abs=1e-12)
    assert rs.count_complete >= 1 and rs.counters["tied_orderings"] > 0


@pytest.mark.slow
def test_compas_five_rules_within_ten_seconds_certifies_the_optimum_first(compas):
    """Issue reproducer: ``time_limit=10`` leaves the set complete from the optimum up."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = rashomon_set(compas, 0.01, epsilon=0.05, max_length=5, time_limit=10)
    assert rs.complete_below >= rs.optimum and rs.counters["total_time"] <= 11.5


@pytest.mark.slow
def test_compas_three_rules_count_matches_a_direct_count(compas):
    rs = rashomon_set(compas, 0.01, epsilon=0.05, max_length=3)
    optimum, _, count = count_members(compas.X, compas.y, 0.01, 3, epsilon=0.05)
    assert rs.optimum == pytest.approx(optimum, abs=1e-12) and rs.count == count
    assert not math.isnan(rs.complete_below)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rs.class_counts().sum(1).tolist() == [rs.count] * compas.n_samples


def test_regularization_above_one_is_refused_as_by_the_tree_set():
    A, y, _, _, max_length = many_lists()
    with pytest.raises(ValueError, match="regularization"):
        rashomon_set(dataset(A, y, 2), 1.5, epsilon=0.1, max_length=max_length)


# -- lists of indices, index(model), labelled class counts -------------------------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(), st.sampled_from([0.0, 0.1, 1.0]))
def test_index_inverts_indexing(problem, epsilon):
    """index(rset[i]) == i for every member, and for the member read back from its JSON (weights, 2-4 classes, the
    empty list)."""
    from optbb.corels.model import RuleList

    A, y, k, w, lam, max_length = problem
    rs = rashomon_set(dataset(A, y, k, w), lam, epsilon=epsilon, max_length=max_length)
    for i in range(rs.count):
        assert rs.index(rs[i]) == i
        assert rs.index(RuleList.from_json(rs[i].to_json())) == i


def test_index_of_a_partial_set_and_of_what_is_no_member():
    """A set stopped by a node limit indexes the members it found; a list whose antecedents are not a member's, or
    with another prediction, or a tree, is refused."""
    A, y, lam, epsilon, max_length = many_lists()
    with pytest.warns(UserWarning, match="partial"):
        part = rashomon_set(dataset(A, y, 2), lam, epsilon=epsilon, max_length=max_length, node_limit=3000)
    assert part.status is Status.NODE_LIMIT and part.count > 10
    assert [part.index(part[i]) for i in range(part.count)] == list(range(part.count))
    rs = rashomon_set(dataset(A, y, 2), lam, epsilon=0.05, max_length=2)
    members = {prefix_of(m) for m in rs}
    wide = rashomon_set(dataset(A, y, 2), lam, epsilon=0.5, max_length=3)
    outside = [m for m in wide if prefix_of(m) not in members][:50]
    assert outside
    for model in outside:
        with pytest.raises(ValueError, match="not in the set"):
            rs.index(model)
    changed = rs[0]
    changed.default_prediction = 1 - changed.default_prediction
    with pytest.raises(ValueError, match="not in the set"):
        rs.index(changed)
    again = rs[1]
    again.rules = again.rules + again.rules[:1]  # an antecedent twice
    with pytest.raises(ValueError, match="not in the set"):
        rs.index(again)
    from optbb.osdt import rashomon_set as tree_set
    with pytest.raises(TypeError, match="holds RuleList models"):
        rs.index(tree_set(dataset(A, y, 2), 0.05, epsilon=0.0, max_depth=1)[0])


def test_estimator_set_indexes_the_fitted_list_and_labels_its_class_counts():
    X, y = raw_problem()
    clf = CorelsClassifier(regularization=0.02, max_card=2).fit(X, y)
    rs = clf.rashomon_set(epsilon=0.15)
    i = rs.index(clf.rule_list_)
    assert prefix_of(rs[i]) == prefix_of(clf.rule_list_)
    assert rs.objective_of_index(i) == pytest.approx(rs.optimum, abs=1e-12)
    assert [prefix_of(m) for m in rs[[i, 0, -1]]] == [prefix_of(rs[i]), prefix_of(rs[0]), prefix_of(rs[rs.count - 1])]
    counts = rs.class_counts()
    assert isinstance(counts, pd.DataFrame) and list(counts.columns) == ["no", "yes"]
    assert (counts.dtypes == np.int64).all() and counts.sum(axis=1).tolist() == [rs.count] * len(X)
    predictions = rs.predict(X, models=np.arange(rs.count))
    assert counts["no"].tolist() == (predictions == "no").sum(0).tolist()


def test_index_of_sampled_members_of_compas(compas):
    """COMPAS, lambda .01, epsilon .05, at most three rules (31,148 lists): index(rset[i]) == i for 300 sampled i."""
    rs = rashomon_set(compas, 0.01, epsilon=0.05, max_length=3)
    drawn = rs.sample_indices(300, random_state=4) + [0, rs.count - 1]
    assert [rs.index(m) for m in rs[drawn]] == drawn
