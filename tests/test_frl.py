"""Tests of optbb.frl: objective values of the paper's tables, bounds against brute force, the search against the
exhaustive optimum of Program 2.9, determinism, estimator contract, mining and the bank-full loader."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import twins.frl as nv
from strategies import frl_problems
from optbb.common.data import from_arrays
from optbb.common.mining import MinedAntecedents, mine_classwise
from optbb.common.result import Status
from optbb.frl import FRLClassifier, SoftFRLClassifier, make_falling
from optbb.frl import bounds as B
from optbb.frl import objective as O
from optbb.frl.counts import frl_cn_limit

N_BANK = 45211
# with NUMBA_DISABLE_JIT=1 (coverage runs) the kernels run as plain Python: fewer search cases, no bank-full search
NOJIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
SEARCH_CASES = 25 if NOJIT else 250


def L(counts, w=7.0, C=1e-6, C1=None):
    p = np.array([c[0] for c in counts], dtype=np.int64)
    m = np.array([c[1] for c in counts], dtype=np.int64)
    if C1 is None:
        return O.frl_objective(p, m, float(N_BANK), w, C)
    return O.soft_objective(p, m, float(N_BANK), w, C, C1)


def R(counts, w=7.0):
    p = np.array([c[0] for c in counts], dtype=np.int64)
    m = np.array([c[1] for c in counts], dtype=np.int64)
    return O.weighted_risk(p, m, float(N_BANK), w)


TABLE1 = [(978, 531), (434, 1113), (504, 1539), (242, 794), (658, 4092), (108, 707), (2365, 31146)]


# ---------------------------------------------------------------------------------------------------------------
# Section 7 of the spec: every derived value


def test_table1_objective():
    assert round(L(TABLE1), 6) == 0.560290
    assert round(R(TABLE1), 6) == 0.560284
    assert sum(p for p, _ in TABLE1) == 5289 and sum(m for _, m in TABLE1) == 39922
    alpha = O.proportions(np.array([p for p, _ in TABLE1]), np.array([m for _, m in TABLE1]))
    assert np.allclose(np.round(alpha, 4), [.6481, .2805, .2467, .2336, .1385, .1325, .0706])
    assert O.is_falling(np.array([p for p, _ in TABLE1]), np.array([m for _, m in TABLE1]))
    assert all(a > 1 / 8 for a in alpha[:-1]) and alpha[-1] <= 1 / 8  # Corollary 4.5


def test_a_list_is_falling_when_its_probabilities_never_rise():
    """``FallingRuleList.is_falling`` reads the output probabilities (softFRL's pulled-down ones), through the same
    crosswise comparison as ``objective.is_falling`` on counts."""
    from optbb.common.mining import Antecedent
    from optbb.frl import FallingRuleList

    def rule_list(probabilities):
        k = len(probabilities) - 1
        p = np.array(probabilities)
        return FallingRuleList([Antecedent((j,), (False,)) for j in range(k)], [f"x{j}" for j in range(k)], p, p,
                               np.ones(k + 1, np.int64), np.ones(k + 1, np.int64), 7.0)

    assert rule_list([0.4]).is_falling() and rule_list([0.6, 0.6, 0.2, 0.0]).is_falling()
    assert not rule_list([0.6, 0.2, 0.2 + 1e-12]).is_falling() and not rule_list([0.0, 1e-300]).is_falling()


FRL_TABLES = {  # name: (counts, w, C, L)
    "Table 2": ([(934, 495), (31, 19), (9, 7), (4315, 39401)], 1.0, 1e-6, 0.106968),
    "Table 3": ([(677, 361), (185, 99), (111, 65), (5, 4), (390, 919), (3921, 38474)], 3.0, 1e-6, 0.292213),
    "Table 4": ([(978, 531), (426, 1030), (504, 1539), (242, 796), (3139, 36026)], 5.0, 1e-6, 0.433328),
    "Table 11": ([(978, 531), (426, 1030), (653, 2621), (803, 4634), (2429, 31106)], 7.0, 0.01, 0.611078),
    "Table 12": ([(2883, 11799), (2406, 28123)], 7.0, 0.1, 0.733496),
    "Table 20": ([(978, 531), (426, 1030), (504, 1539), (787, 4471), (2594, 32351)], 7.0, 1e-6, 0.569091),
    "Table 22": ([(729, 311), (185, 154), (64, 68), (426, 1030), (302, 921), (444, 1413), (671, 4435),
                  (2468, 31590)], 7.0, 1e-6, 0.566418),
}


@pytest.mark.parametrize("name", sorted(FRL_TABLES))
def test_frl_table_objectives(name):
    counts, w, C, expected = FRL_TABLES[name]
    assert sum(p for p, _ in counts) == 5289 and sum(m for _, m in counts) == 39922
    assert round(L(counts, w, C), 6) == expected


def test_risk_of_other_tables():
    assert round(R(FRL_TABLES["Table 11"][0]), 6) == 0.571078
    assert round(R(FRL_TABLES["Table 12"][0]), 6) == 0.633496
    assert round(R(FRL_TABLES["Table 20"][0]), 6) == 0.569087
    assert round(R(FRL_TABLES["Table 22"][0]), 6) == 0.566411
    t19 = [(978, 531), (426, 1030), (504, 1539), (787, 4471), (460, 3313), (550, 4331), (1080, 12709), (504, 11998)]
    assert round(R(t19), 6) == 0.569087
    t21 = [(729, 311), (249, 222), (426, 1030), (504, 1538), (790, 4750), (648, 4754), (135, 1061), (571, 4904),
           (587, 6800), (650, 14552)]
    assert round(R(t21), 6) == 0.574816


SOFT_TABLES = {  # name: (counts, w, C, C1, L~)
    "Table 6": ([(557, 280), (263, 143), (154, 98), (4315, 39401)], 1.0, 1e-6, 0.5, 0.106968),
    "Table 7": ([(547, 289), (418, 225), (9, 7), (4, 8), (390, 919), (281, 1559), (3640, 36915)], 3.0, 1e-6, 0.5,
                0.292214),
    "Table 8": ([(978, 533), (426, 1030), (2380, 18659), (1505, 19700)], 5.0, 1e-6, 0.5, 0.464226),
    "Table 9": ([(978, 533), (435, 1120), (970, 4504), (2255, 19970), (651, 13795)], 7.0, 1e-6, 0.5, 0.586122),
    "Table 14": ([(934, 495), (2245, 11535), (1677, 22591), (433, 5301)], 7.0, 0.01, 0.5, 0.625982),
    "Table 17": ([(978, 531), (1686, 22974), (367, 3806), (1927, 8961), (126, 1374), (93, 1110), (18, 192),
                  (72, 648), (22, 326)], 7.0, 1e-6, 0.05, 0.589157),
}


@pytest.mark.parametrize("name", sorted(SOFT_TABLES))
def test_soft_table_objectives(name):
    counts, w, C, C1, expected = SOFT_TABLES[name]
    assert sum(p for p, _ in counts) == 5289 and sum(m for _, m in counts) == 39922
    assert round(L(counts, w, C, C1), 6) == expected


def test_soft_table_parts():
    counts = SOFT_TABLES["Table 14"][0]
    alpha = O.proportions(np.array([p for p, _ in counts]), np.array([m for _, m in counts]))
    assert round(R(counts), 6) == 0.592776
    assert round(O.monotonicity_penalty(alpha), 6) == 0.006411
    out = make_falling(alpha)
    assert round(alpha[-1], 4) == 0.0755 and round(out[-1], 4) == 0.0691
    counts = SOFT_TABLES["Table 17"][0]
    alpha = O.proportions(np.array([p for p, _ in counts]), np.array([m for _, m in counts]))
    assert round(R(counts), 6) == 0.579063
    assert round(O.monotonicity_penalty(alpha), 6) == 0.201732
    counts = SOFT_TABLES["Table 9"][0]
    alpha = O.proportions(np.array([p for p, _ in counts]), np.array([m for _, m in counts]))
    assert O.monotonicity_penalty(alpha) == 0.0


# ---------------------------------------------------------------------------------------------------------------
# objective twins


counts_st = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)).filter(lambda t: t[0] + t[1] > 0),
                     min_size=1, max_size=8)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(counts_st, st.sampled_from([0.5, 1.0, 3.0, 7.0, 2.5]), st.sampled_from([0.0, 1e-6, 0.01]),
       st.sampled_from([0.005, 0.05, 0.5]))
def test_objectives_match_twin(counts, w, C, C1):
    n = sum(p + m for p, m in counts)
    p = np.array([c[0] for c in counts], dtype=np.int64)
    m = np.array([c[1] for c in counts], dtype=np.int64)
    assert math.isclose(O.frl_objective(p, m, float(n), w, C), nv.objective(counts, n, w, C), abs_tol=1e-12)
    assert math.isclose(O.soft_objective(p, m, float(n), w, C, C1), nv.soft_objective(counts, n, w, C, C1),
                        abs_tol=1e-12)
    assert O.is_falling(p, m) == nv.falling(counts)
    alpha = O.proportions(p, m)
    out = make_falling(alpha)
    assert np.allclose(out, nv.make_falling(list(alpha)))
    assert np.all(out[:-1] >= out[1:]) and np.all(out <= alpha)


def test_theorem_2_8_threshold_is_best():
    rng = np.random.default_rng(1)
    for _ in range(200):
        k = rng.integers(1, 6)
        p = rng.integers(0, 30, size=k)
        m = rng.integers(1, 30, size=k)
        w = float(rng.choice([1.0, 3.0, 7.0]))
        alpha = p / (p + m)
        best = O.weighted_risk(p, m, 100.0, w)
        for tau in np.linspace(0, 1, 41):
            risk = sum(w * pj if aj <= tau else mj for pj, mj, aj in zip(p, m, alpha)) / 100.0
            assert best <= risk + 1e-12


# ---------------------------------------------------------------------------------------------------------------
# bounds against brute force on tiny problems


def _prefix_state(prefix, cols, pos, neg):
    counts = nv.list_counts(prefix, cols, pos, neg)
    rp, rn = counts[-1]
    lp, ln = (counts[-2] if prefix else (1, 0))
    return counts[:-1], lp, ln, rp, rn


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems())
def test_frl_bounds_against_brute_force(prob):
    """Prop. 4.2, Thm 4.6 (bound and stopping inequality), Cor. 4.5 and the early-exit limit of the scan."""
    X, y, w, C, rng = prob
    n = len(y)
    cols, pos, neg = nv.masks(X, y)
    prefix, _ = nv.random_prefix(cols, pos, neg, rng, require_falling=True)
    counts, lp, ln, rp, rn = _prefix_state(prefix, cols, pos, neg)
    best, _ = nv.frl_optimum(X, y, w, C, prefix)
    feasible = bool(B.prefix_feasible(lp, ln, rp, rn))
    # Proposition 4.2: feasible (some falling completion exists) iff tilde alpha <= alpha_last
    assert feasible == math.isfinite(best)
    if not feasible:
        return
    L_e = 0.0
    if prefix:
        L_e = sum(nv.risk_term(p, m, w) for p, m in counts) / n + C * len(counts)
    bound = B.frl_prefix_bound(L_e, lp, ln, rp, rn, float(n), w, C)
    assert best >= bound - 1e-12  # Theorem 4.6: never prunes a prefix whose best completion beats the bound
    if B.frl_should_stop(lp, ln, rp, rn, float(n), w, C):  # Inequality (9): the else clause now is optimal
        stop_now = L_e + nv.risk_term(rp, rn, w) / n
        assert math.isclose(stop_now, best, abs_tol=1e-12)
    # early-exit limit: any negative count at or above it fails the candidate test
    P_rem, N_rem = rp, rn
    L_best = best + float(rng.choice([0.0, 1e-3, 0.05, 1.0]))
    for cp in range(1, P_rem + 1):
        lim = frl_cn_limit(cp, P_rem, N_rem, L_e, L_best, float(n), w, C, True)
        for cn in range(0, N_rem + 1):
            if cn < lim or cp + cn == P_rem + N_rem:
                continue
            r_p, r_n = P_rem - cp, N_rem - cn
            passes = (w * cp > cn and B.prefix_feasible(cp, cn, r_p, r_n)
                      and L_e + O.rule_risk(cp, cn, w) / n + C
                      + B.frl_completion_bound(cp, cn, r_p, r_n, float(n), w, C) < L_best)
            assert not passes


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems())
def test_corollary_4_5_on_exhaustive_optimum(prob):
    X, y, w, C, _ = prob
    _, lists = nv.frl_optimal_lists(X, y, w, C)
    cols, pos, neg = nv.masks(X, y)
    for d in lists:
        counts = nv.list_counts(d, cols, pos, neg)
        assert all(w * p > m for p, m in counts[:-1])


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=6), st.sampled_from([0.005, 0.05, 0.5, 2.0]))
def test_soft_bounds_against_brute_force(prob, C1):
    """Theorem 5.2: the bound and the stopping rule, on all compatible completions of a random prefix."""
    X, y, w, C, rng = prob
    n = len(y)
    cols, pos, neg = nv.masks(X, y)
    prefix, _ = nv.random_prefix(cols, pos, neg, rng, require_falling=False)
    counts, _, _, rp, rn = _prefix_state(prefix, cols, pos, neg)
    best, _ = nv.soft_optimum(X, y, w, C, C1, prefix)
    amin = min([p / (p + m) for p, m in counts], default=1.0)
    Lt_e = 0.0
    if prefix:
        Lt_e = sum(nv.risk_term(p, m, w) for p, m in counts) / n + C * len(counts) + C1 * nv.penalty(counts)
    bound = B.soft_prefix_bound(Lt_e, rp, rn, amin, float(n), w, C, C1)
    assert best >= bound - 1e-12
    T = B.soft_stop_cost(rp, rn, amin, float(n), w, C1)
    if T <= B.soft_continue_bound(rp, rn, amin, float(n), w, C, C1):
        assert math.isclose(Lt_e + T, best, abs_tol=1e-12)


def test_soft_inf_g_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(300):
        rp, rn = int(rng.integers(1, 50)), int(rng.integers(1, 50))
        n = float(rp + rn + rng.integers(0, 50))
        amin = float(rng.uniform(0.01, 1.0))
        w, C, C1 = float(rng.choice([1.0, 7.0])), 1e-3, float(rng.choice([0.005, 0.5, 5.0]))
        v = B.soft_inf_g(rp, rn, amin, n, w, C, C1)
        zeta = max(amin, rp / (rp + rn), 1 / (1 + w))
        if zeta >= 1:
            assert v == math.inf
            continue
        grid = np.linspace(zeta, 1.0, 20001)[1:]
        g = (1 / grid - 1) * rp / n + C + C1 * (grid - amin)
        assert v <= g.min() + 1e-12 and v >= min(g.min(), B.soft_g(zeta, rp, amin, n, C, C1)) - 1e-6


def test_curiosity_functions():
    assert B.curiosity_frl(0.5, 10, 20, 0.8) == pytest.approx(0.8 * 0.5 + 0.2 * 0.5)
    assert B.curiosity_frl(0.5, 10, 0, 0.8) == pytest.approx(0.4)
    assert B.curiosity_soft(0.3, 0.4, 0, 10, 1.0) == pytest.approx(0.3)
    assert B.curiosity_soft(0.402, 0.4, 0, 10, 1.0) == pytest.approx(0.2)  # 101 * 0.4 - 100 * 0.402
    assert B.curiosity_soft(0.404, 0.4, 0, 10, 1.0) == pytest.approx(0.0, abs=1e-9)  # 0 at 1.01 alpha_min
    assert B.curiosity_soft(0.41, 0.4, 0, 10, 1.0) == 0.0


# ---------------------------------------------------------------------------------------------------------------
# the search against the exhaustive optimum


def _fit(cls, X, y, **kw):
    return cls(max_card=1, min_class_support=0.0, random_state=0, **kw).fit(X, y)


@settings(max_examples=SEARCH_CASES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems())
def test_frl_search_finds_exhaustive_optimum(prob):
    X, y, w, C, _ = prob
    est = _fit(FRLClassifier, X, y, positive_weight=w, regularization=C, n_iter=4000)
    best, _ = nv.frl_optimum(X, y, w, C)
    assert est.result_.objective == pytest.approx(best, abs=1e-9)
    rl = est.rule_list_
    assert rl.is_falling()
    counts = list(zip(rl.n_pos.tolist(), rl.n_neg.tolist()))
    assert nv.falling(counts)
    assert nv.objective(counts, len(y), w, C) == pytest.approx(est.result_.objective, abs=1e-9)
    assert est.result_.status is Status.ITERATION_LIMIT


@settings(max_examples=SEARCH_CASES * 2 // 5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=5), st.sampled_from([0.005, 0.05, 0.5]))
def test_soft_search_finds_exhaustive_optimum(prob, C1):
    X, y, w, C, _ = prob
    """Eq. (12) gives curiosity 0 to an antecedent that captures no positive, so such a rule is drawn only when every
    candidate has curiosity 0: the search reaches the optimum over lists whose rules all capture a positive, and
    never goes below the exhaustive optimum."""
    est = _fit(SoftFRLClassifier, X, y, positive_weight=w, regularization=C, monotonicity_penalty=C1, n_iter=4000)
    best, _ = nv.soft_optimum(X, y, w, C, C1)
    reachable, _ = nv.soft_optimum(X, y, w, C, C1, positive_rules_only=True)
    assert best - 1e-9 <= est.result_.objective <= reachable + 1e-9
    rl = est.rule_list_
    counts = list(zip(rl.n_pos.tolist(), rl.n_neg.tolist()))
    assert nv.soft_objective(counts, len(y), w, C, C1) == pytest.approx(est.result_.objective, abs=1e-9)
    assert np.all(np.diff(rl.probabilities) <= 0)
    assert np.allclose(rl.probabilities, nv.make_falling(list(rl.proportions)))


def _random_data(seed, n=200, k=10):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, k)) < 0.35).astype(np.uint8)
    logit = X @ rng.normal(0, 1.5, size=k) - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.uint8)
    return X, y


def test_reference_feasibility_flag_runs():
    X, y = _random_data(5)
    a = FRLClassifier(n_iter=300, random_state=1, min_class_support=0.05).fit(X, y)
    b = FRLClassifier(n_iter=300, random_state=1, min_class_support=0.05, feasibility="reference").fit(X, y)
    assert a.rule_list_.is_falling()
    assert b.result_.objective <= nv.objective(list(zip(b.rule_list_.n_pos, b.rule_list_.n_neg)), len(y), 7.0,
                                               1e-6) + 1e-9


def test_early_exit_does_not_change_the_trajectory():
    """The blocked negative scan stops early only when the candidate surely fails: any block size, including one
    that never stops early, gives the same iterations."""
    from optbb.common.data import from_arrays
    from optbb.frl import solve
    from optbb.frl.packing import SearchData

    rng = np.random.default_rng(11)
    n, k = (1500, 12) if NOJIT else (6000, 40)
    X = (rng.random((n, k)) < rng.uniform(0.05, 0.6, size=k)).astype(np.uint8)
    y = (rng.random(n) < 0.08 + 0.5 * X[:, 0] * X[:, 1] + 0.2 * X[:, 2]).astype(np.uint8)
    ds = from_arrays(X, y)
    data = SearchData(X, y)
    runs = [solve(ds, n_iter=300, feasibility="paper" if paper else "reference", random_state=5, scan_block=b,
                  packed=data)
            for paper in (True, False) for b in (1, 16, 10 ** 9)]
    for group in (runs[:3], runs[3:]):
        for r in group[1:]:
            assert np.array_equal(r.series["iteration_objectives"], group[0].series["iteration_objectives"])
            assert np.array_equal(r.series["candidates_per_level"], group[0].series["candidates_per_level"])
            assert r.counters["iteration_of_best"] == group[0].counters["iteration_of_best"]
    assert runs[0].counters["early_exits"] > 0
    # without the level-1 pair cache (used when it would be too large) the trajectory is the same as well
    SearchData.PAIR_WORK_LIMIT, saved = 0, SearchData.PAIR_WORK_LIMIT
    try:
        nopairs = SearchData(X, y)
    finally:
        SearchData.PAIR_WORK_LIMIT = saved
    assert not nopairs.use_pairs
    for soft in (False, True):
        a, b = (solve(ds, soft=soft, n_iter=200, random_state=2, packed=d).series for d in (data, nopairs))
        assert np.array_equal(a["iteration_objectives"], b["iteration_objectives"])


# ---------------------------------------------------------------------------------------------------------------
# determinism, traces, limits


def test_same_seed_same_list_and_traces():
    X, y = _random_data(0)
    a = FRLClassifier(n_iter=400, random_state=7, min_class_support=0.05).fit(X, y)
    b = FRLClassifier(n_iter=400, random_state=7, min_class_support=0.05).fit(X, y)
    assert a.rule_list_.names == b.rule_list_.names
    assert np.array_equal(a.search_trace_["objective"], b.search_trace_["objective"])
    assert np.array_equal(a.candidates_, b.candidates_)
    c = FRLClassifier(n_iter=400, random_state=8, min_class_support=0.05).fit(X, y)
    assert len(c.search_trace_) == 400
    assert not np.array_equal(a.search_trace_["objective"], c.search_trace_["objective"])
    for est in (a, c):
        tr = est.search_trace_
        assert np.all(np.diff(tr["best_objective"]) <= 0)
        assert np.all(np.diff(tr["time"]) >= 0)
        assert tr["best_objective"].iloc[-1] == pytest.approx(est.result_.objective)
        rt = est.result_.trace
        assert list(rt.columns[:4]) == ["time", "objective", "lower_bound", "queue_size"]
        assert np.all(np.diff(rt["objective"]) < 0)
        cand = est.result_.series["candidates_per_level"]
        assert cand.shape[0] == 400 and np.all(cand[:, 0] >= -1)
    s1 = SoftFRLClassifier(n_iter=300, random_state=3, min_class_support=0.05).fit(X, y)
    s2 = SoftFRLClassifier(n_iter=300, random_state=3, min_class_support=0.05).fit(X, y)
    assert s1.rule_list_.names == s2.rule_list_.names
    assert np.array_equal(s1.search_trace_["objective"], s2.search_trace_["objective"])


@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier])
@pytest.mark.parametrize("limit", [0, 1, 137, 2999])
def test_recording_limit_keeps_first_rows_and_every_improvement(cls, limit):
    """Past ``max_recorded_iterations`` the per-iteration rows stop, and nothing else changes: the same list, the
    same trace of improvements, time-free counters and mean candidate counts as a fully recorded run."""
    X, y = _random_data(5, n=400, k=12)
    full = cls(n_iter=3000, random_state=4, min_class_support=0.05).fit(X, y)
    part = cls(n_iter=3000, random_state=4, min_class_support=0.05, max_recorded_iterations=limit).fit(X, y)
    assert part.rule_list_.names == full.rule_list_.names
    fc, pc = full.result_.counters, part.result_.counters
    assert (fc["iterations_recorded"], pc["iterations_recorded"], pc["iterations"]) == (3000, limit, 3000)
    for k in ("iteration_of_best", "mean_candidates_level0", "mean_candidates_all_levels", "candidate_scans"):
        assert pc[k] == fc[k], k
    cols = ["objective", "nodes"]
    assert np.array_equal(part.result_.trace[cols].to_numpy(), full.result_.trace[cols].to_numpy())
    assert part.result_.trace["objective"].iloc[-1] == pytest.approx(full.result_.objective)
    cols = ["iteration", "objective", "best_objective"]
    assert np.array_equal(part.search_trace_[cols].to_numpy(), full.search_trace_[cols].to_numpy()[:limit])
    w = part.candidates_.shape[1]
    assert part.candidates_.shape[0] == limit
    assert np.array_equal(part.candidates_, full.candidates_[:limit, :w]) and (full.candidates_[:limit, w:] == -1).all()


def test_time_limit_and_interrupt(monkeypatch):
    X, y = _random_data(1, n=2000, k=14)
    est = FRLClassifier(n_iter=10 ** 7, random_state=0, time_limit=0.3, min_class_support=0.05).fit(X, y)
    assert est.result_.status is Status.TIME_LIMIT
    assert 0 < est.result_.counters["iterations"] < 10 ** 7
    assert est.rule_list_.is_falling()

    import optbb.common.limits as limits

    class FakeGuard(limits.InterruptGuard):
        calls = 0

        @property
        def interrupted(self):
            FakeGuard.calls += 1
            return FakeGuard.calls > 2

        @interrupted.setter
        def interrupted(self, value):
            pass

    monkeypatch.setattr(limits, "InterruptGuard", FakeGuard)
    est = FRLClassifier(n_iter=10 ** 7, random_state=0, min_class_support=0.05).fit(X, y)
    assert est.result_.status is Status.INTERRUPTED
    assert est.result_.counters["iterations"] > 0 and math.isfinite(est.result_.objective)


# ---------------------------------------------------------------------------------------------------------------
# estimator contract


def test_estimator_contract_and_predictions():
    from sklearn.base import clone

    X, y = _random_data(2)
    X0, y0 = X.copy(), y.copy()
    est = FRLClassifier(n_iter=200, random_state=0, min_class_support=0.05)
    params = est.get_params()
    assert params["positive_weight"] == 7.0 and params["feasibility"] == "paper"
    clone(est)
    assert est.fit(X, y) is est
    assert np.array_equal(X, X0) and np.array_equal(y, y0)
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(axis=1), 1)
    rl = est.rule_list_
    cap = rl.capture(X)
    assert np.allclose(proba[:, 1], rl.probabilities[cap])
    assert np.array_equal(est.predict(X), (proba[:, 1] > 1 / 8).astype(int))
    for j in range(len(rl) + 1):  # training counts agree with the capture
        assert int(((cap == j) & (y == 1)).sum()) == rl.n_pos[j]
        assert int(((cap == j) & (y == 0)).sum()) == rl.n_neg[j]
    text = str(rl)
    assert "IF" in text and "ELSE" in text and "objective" in text
    df = rl.to_frame()
    assert list(df.columns) == ["rule", "antecedent", "probability", "n_pos", "n_neg"]
    soft = SoftFRLClassifier(n_iter=200, random_state=0, min_class_support=0.05).fit(X, y)
    assert "proportion" in soft.rule_list_.to_frame().columns
    assert soft.get_params()["monotonicity_penalty"] == 0.5
    assert SoftFRLClassifier().get_params()["n_iter"] == 6000


@pytest.mark.parametrize("kw, msg", [
    ({"positive_weight": 0}, "positive_weight"), ({"positive_weight": float("nan")}, "positive_weight"),
    ({"regularization": -1}, "regularization"), ({"n_iter": 0}, "n_iter"), ({"n_iter": 2.5}, "n_iter"),
    ({"p_stop": 1.0}, "p_stop"), ({"curiosity_weight": 1.5}, "curiosity_weight"), ({"max_card": 0}, "max_card"),
    ({"min_class_support": 0.7}, "min_class_support"), ({"feasibility": "loose"}, "feasibility"),
    ({"random_state": "abc"}, "random_state"), ({"random_state": -3}, "random_state"),
    ({"random_state": 1.5}, "random_state"), ({"time_limit": -1}, "time_limit"), ({"negations": "yes"}, "negations"),
    ({"max_recorded_iterations": -1}, "max_recorded_iterations"),
    ({"max_recorded_iterations": 2.5}, "max_recorded_iterations"),
])
def test_bad_parameters(kw, msg):
    X, y = _random_data(3, n=40, k=4)
    with pytest.raises(ValueError, match=msg):
        FRLClassifier(**{"n_iter": 5, **kw}).fit(X, y)


def test_bad_soft_parameter():
    X, y = _random_data(3, n=40, k=4)
    with pytest.raises(ValueError, match="monotonicity_penalty"):
        SoftFRLClassifier(n_iter=5, monotonicity_penalty=-0.1).fit(X, y)


def test_bad_data():
    X, y = _random_data(3, n=40, k=4)
    est = FRLClassifier(n_iter=5)
    Xn = X.astype(float)
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(Xn, y)
    X2 = X.copy()
    X2[0, 0] = 2
    with pytest.raises(ValueError, match="not binary"):
        est.fit(X2, y)
    assert list(est.fit(X, y * 3).classes_) == [0, 3]  # any two labels; the larger is the positive class
    with pytest.raises(ValueError, match="single class"):
        est.fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="length mismatch"):
        est.fit(X, y[:-1])
    est.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


def test_antecedents_are_columns_with_card_1_and_no_support():
    rng = np.random.default_rng(4)
    X = (rng.random((30, 6)) < 0.4).astype(np.uint8)
    X[:, 4] = X[:, 1]
    X[:, 5] = 0
    y = (rng.random(30) < 0.5).astype(np.uint8)
    y[:2] = [0, 1]
    est = FRLClassifier(max_card=1, min_class_support=0.0, n_iter=10, random_state=0).fit(X, y)
    assert est.antecedent_names_ == ["x0", "x1", "x2", "x3", "x5"]
    assert est.n_antecedents_ == 5
    # the mined antecedents, as CorelsClassifier keeps them: their matrix is the columns of X they stand for
    assert isinstance(est.antecedents_, MinedAntecedents) and est.antecedents_.complete
    assert np.array_equal(est.antecedents_.transform(X), X[:, [0, 1, 2, 3, 5]])
    assert np.array_equal(est.antecedents_.data.X, X[:, [0, 1, 2, 3, 5]])


def test_mine_classwise_exact_threshold():
    # 30 positives, an item in exactly 3 of them: 10 % support, which 0.1 * 30 = 3.0000000000000004 would miss
    y = np.array([1] * 30 + [0] * 70, dtype=np.uint8)
    X = np.zeros((100, 2), dtype=np.uint8)
    X[:3, 0] = 1
    X[:2, 1] = 1
    mined = mine_classwise(from_arrays(X, y), max_card=1, min_support=0.1)
    assert mined.data.feature_names == ["x0"]


# ---------------------------------------------------------------------------------------------------------------
# bank-full


@pytest.fixture(scope="module")
def bank(shared_dir):
    from optbb.datasets.bank import load_bank_full

    return load_bank_full(shared_dir / "data" / "frl")


def test_bank_loader_and_discretisation(bank, shared_dir):
    from optbb.datasets.bank import discretize_bank, read_items

    assert bank.X.shape == (45211, 48)
    assert int(bank.y.sum()) == 5289
    assert np.all(bank.X.sum(axis=1) == 12)
    rows, y = discretize_bank(shared_dir / "data" / "frl" / "bank-full.csv")
    assert rows == read_items(shared_dir / "data" / "frl" / "bank-full_items.txt.gz")
    assert np.array_equal(y, bank.y)


def test_bank_mining_and_table1(bank):
    names = bank.feature_names
    mined = mine_classwise(bank, max_card=2, min_support=0.1, dedupe=False)
    assert mined.data.n_features == 267  # the reference's 267 distinct itemsets
    from optbb.frl.antecedents import reference_twins

    assert len(reference_twins(mined, bank.X, bank.y, 0.1)) == 14  # 281 antecedents with the tuple-order twins

    def col(*items):
        c = np.ones(bank.n_samples, dtype=bool)
        for it in items:
            c &= bank.X[:, names.index(it)].astype(bool)
        return c

    rules = [col("poutcome=success", "default=no"), col("60<=age<100", "default=no"), col("17<=age<30", "housing=no"),
             col("previous>=2", "housing=no"), col("campaign=1", "housing=no"), col("previous>=2", "education=tertiary")]
    free = np.ones(bank.n_samples, dtype=bool)
    counts = []
    yb = bank.y.astype(bool)
    for r in rules:
        hit = r & free
        counts.append((int((hit & yb).sum()), int((hit & ~yb).sum())))
        free &= ~hit
    counts.append((int((free & yb).sum()), int((free & ~yb).sum())))
    assert counts == TABLE1


@pytest.mark.skipif(NOJIT, reason="a bank-full search in plain Python takes minutes")
def test_bank_short_run(bank):
    est = FRLClassifier(n_iter=200, random_state=0, feature_names=bank.feature_names).fit(bank.X, bank.y)
    assert est.n_antecedents_ == 259
    assert est.rule_list_.is_falling()
    assert est.result_.objective < 0.59
    assert est.keep_duplicates is False
    dup = FRLClassifier(n_iter=20, random_state=0, keep_duplicates=True,
                        feature_names=bank.feature_names).fit(bank.X, bank.y)
    assert dup.n_antecedents_ == 281


@pytest.mark.slow
def test_bank_full_runs(bank):
    est = FRLClassifier(n_iter=3000, random_state=0, feature_names=bank.feature_names).fit(bank.X, bank.y)
    assert est.result_.objective < 0.5700
    assert est.rule_list_.is_falling()
    soft = SoftFRLClassifier(n_iter=6000, random_state=0, feature_names=bank.feature_names).fit(bank.X, bank.y)
    assert soft.result_.objective < 0.62


def test_solve_shape_and_option_checks():
    """solve(data, regularization, *, options...): C is the second positional parameter, data that is not a
    BinaryDataset is a TypeError naming its type, and each bad option a ValueError naming the parameter."""
    from optbb.common.data import from_arrays
    from optbb.frl import solve

    rng = np.random.default_rng(3)
    X = (rng.random((80, 6)) < 0.4).astype(np.uint8)
    y = (X[:, 0] | X[:, 1]).astype(np.uint8)
    ds = from_arrays(X, y)
    a = solve(ds, 0.01, n_iter=30, random_state=1)
    b = solve(ds, regularization=0.01, n_iter=30, random_state=1)
    assert a.objective == b.objective and a.model.names == b.model.names
    with pytest.raises(TypeError, match="ndarray"):
        solve(X, 0.01)
    bad = {"regularization": -1.0, "positive_weight": 0.0, "monotonicity_penalty": -0.5, "n_iter": 0,
           "p_stop": 1.0, "curiosity_weight": 1.5, "feasibility": "neither", "random_state": -1,
           "max_recorded_iterations": -1, "scan_block": 0, "soft": "yes", "target": float("nan")}
    for name, value in bad.items():
        with pytest.raises(ValueError, match=f"'{name}' parameter of optbb.frl.solve"):
            solve(ds, **{name: value})
    with pytest.raises(ValueError, match="'n_iter'"):
        solve(ds, n_iter=True)
