"""Real-valued sample and class weights in FRL and softFRL: the weighted objective against numpy and the brute-force
twin, every pruning bound restated with weights against the twin, the search against the weighted optimum, integer
weights against repeated rows, class weights against the equivalent sample weights, the weighted miner, a huge
weight without repeated rows, and the scikit-learn tools that weigh or score."""
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
from optbb.common.mining import mine_classwise
from optbb.frl import FRLClassifier, SoftFRLClassifier, solve
from optbb.frl import bounds as B
from optbb.frl import objective as O
from optbb.frl.counts import frl_cn_limit
from optbb.frl.packing import SearchData

NOJIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
SEARCH_CASES = 20 if NOJIT else 150


def _weights(rng, n, kind):
    """Positive real weights of a few shapes: spread over two decades, dyadic (exact sums), or one huge weight."""
    if kind == "real":
        return np.exp(rng.uniform(-2.3, 2.3, n))
    if kind == "dyadic":
        return rng.integers(1, 12, n) / 4.0
    w = rng.uniform(0.5, 2.0, n)
    w[rng.integers(n)] = 1e4
    return w


def _numpy_objective(A, y, wts, rules, w, C, C1=None):
    """L (or L~) of the list ``rules`` (columns of ``A``) by direct weighted sums, written from the definitions."""
    free = np.ones(len(y), dtype=bool)
    pos, neg = [], []
    for r in list(rules) + [None]:
        hit = free.copy() if r is None else free & (A[:, r] == 1)
        pos.append(wts[hit & (y == 1)].sum())
        neg.append(wts[hit & (y == 0)].sum())
        free &= ~hit
    pos, neg = np.array(pos), np.array(neg)
    risk = np.where(w * pos > neg, neg, w * pos).sum() / wts.sum()
    L = risk + C * len(rules)
    if C1 is not None:
        alpha = pos / (pos + neg)
        running = np.minimum.accumulate(np.concatenate([[1.0], alpha]))[:-1]
        L += C1 * np.maximum(alpha - running, 0).sum()
    return L, pos, neg


# ---------------------------------------------------------------------------------------------------------------
# the objective of a given list


@pytest.mark.parametrize("kind", ["real", "dyadic", "huge"])
def test_objective_of_a_given_list_against_numpy(kind):
    rng = np.random.default_rng(3)
    n, k = 500, 8
    A = (rng.random((n, k)) < 0.3).astype(np.uint8)
    y = (rng.random(n) < 0.35).astype(np.uint8)
    wts = _weights(rng, n, kind)
    rules = [2, 5, 0]
    for w, C, C1 in ((7.0, 1e-3, None), (1.5, 0.01, 0.5)):
        L, pos, neg = _numpy_objective(A, y, wts, rules, w, C, C1)
        if C1 is None:
            kernel = O.frl_objective(pos, neg, wts.sum(), w, C)
        else:
            kernel = O.soft_objective(pos, neg, wts.sum(), w, C, C1)
        assert kernel == pytest.approx(L, rel=1e-12, abs=1e-12)
        cols, p, m = nv.masks(A, y)
        counts = nv.list_counts(rules, cols, p, m, wts)
        twin = (nv.objective(counts, nv.total(y, wts), w, C) if C1 is None
                else nv.soft_objective(counts, nv.total(y, wts), w, C, C1))
        assert twin == pytest.approx(L, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("soft", [False, True])
def test_search_reports_the_weighted_objective_of_its_list(soft):
    """The search's objective and the model's counts are those of numpy's weighted sums on the list it returns."""
    rng = np.random.default_rng(8)
    n, k = 400, 10
    A = (rng.random((n, k)) < 0.3).astype(np.uint8)
    y = (rng.random(n) < 0.3 + 0.4 * A[:, 0]).astype(np.uint8)
    wts = _weights(rng, n, "real")
    r = solve(from_arrays(A, y, sample_weight=wts), soft=soft, n_iter=500, random_state=1, positive_weight=3.0,
              regularization=0.002)
    rules = [a.features[0] for a in r.model.antecedents]
    L, pos, neg = _numpy_objective(A, y, wts, rules, 3.0, 0.002, 0.5 if soft else None)
    assert r.objective == pytest.approx(L, rel=1e-10)
    assert np.allclose(r.model.n_pos, pos) and np.allclose(r.model.n_neg, neg)
    assert r.model.n_pos.dtype == np.float64
    assert np.allclose(r.model.proportions, pos / (pos + neg))
    if not soft:
        assert r.model.is_falling()


# ---------------------------------------------------------------------------------------------------------------
# every bound with weights, against the brute-force twin


def _prefix(cols, pos, neg, rng, wts, require_falling):
    """A random compatible prefix (falling if asked) of length 0-3, with the twin's weighted counts."""
    prefix, _ = nv.random_prefix(cols, pos, neg, rng, require_falling, wts)
    counts = nv.list_counts(prefix, cols, pos, neg, wts)
    rp, rn = counts[-1]
    lp, ln = counts[-2] if prefix else (1, 0)
    return prefix, counts[:-1], float(lp), float(ln), float(rp), float(rn)


@settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=6), st.sampled_from(["real", "dyadic", "huge"]))
def test_frl_bounds_with_weights_against_brute_force(prob, kind):
    """Prop. 4.2 (feasibility), Thm 4.6 (the bound L*(e) and the stopping Inequality (9)) and Cor. 4.5 on weighted
    counts; the early-exit limit of the scan with its real-valued margin."""
    X, y, w, C, rng = prob
    wts = _weights(rng, len(y), kind)
    n = float(wts.sum())
    cols, pos, neg = nv.masks(X, y)
    prefix, counts, lp, ln, rp, rn = _prefix(cols, pos, neg, rng, wts, require_falling=True)
    best, arg = nv.frl_optimum(X, y, w, C, prefix, weights=wts)
    feasible = bool(B.prefix_feasible(lp, ln, rp, rn))
    assert feasible == math.isfinite(best)
    if not feasible:
        return
    L_e = float(sum(nv.risk_term(p, m, w) for p, m in counts) / nv.total(y, wts)) + C * len(counts)
    bound = B.frl_prefix_bound(L_e, lp, ln, rp, rn, n, w, C)
    assert best >= bound - 1e-9
    if B.frl_should_stop(lp, ln, rp, rn, n, w, C):
        assert math.isclose(L_e + O.rule_risk(rp, rn, w) / n, best, abs_tol=1e-9)
    if not prefix:  # Corollary 4.5 on the weighted optimum: every rule captures positive weight above threshold
        full = nv.list_counts(arg, cols, pos, neg, wts)
        assert all(w * p > m for p, m in full[:-1])
    # the early-exit limit: a negative weight at or above it fails the candidate test, whatever the real counts
    L_best = best + float(rng.choice([0.0, 1e-3, 0.05]))
    for _ in range(200 if rp > 0 else 0):
        cp = float(rng.uniform(0, rp))
        cn = float(rng.uniform(0, rn))
        lim = frl_cn_limit(cp, rp, rn, L_e, L_best, n, w, C, True, 1e-9 * n, False)
        if cp <= 0 or cn < lim:
            continue
        r_p, r_n = rp - cp, rn - cn
        passes = (w * cp > cn and B.prefix_feasible(cp, cn, r_p, r_n)
                  and L_e + O.rule_risk(cp, cn, w) / n + C + B.frl_completion_bound(cp, cn, r_p, r_n, n, w, C)
                  < L_best)
        assert not passes, (cp, cn, rp, rn, L_e, L_best, n, w, C, lim, prefix)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=5), st.sampled_from([0.005, 0.05, 0.5, 2.0]), st.sampled_from(["real", "huge"]))
def test_soft_bounds_with_weights_against_brute_force(prob, C1, kind):
    """Theorem 5.2 (bound and stopping rule) on weighted counts."""
    X, y, w, C, rng = prob
    wts = _weights(rng, len(y), kind)
    n = float(wts.sum())
    cols, pos, neg = nv.masks(X, y)
    prefix, counts, _, _, rp, rn = _prefix(cols, pos, neg, rng, wts, require_falling=False)
    best, _ = nv.soft_optimum(X, y, w, C, C1, prefix, weights=wts)
    amin = min([float(p / (p + m)) for p, m in counts], default=1.0)
    Lt_e = 0.0
    if prefix:
        Lt_e = (float(sum(nv.risk_term(p, m, w) for p, m in counts) / nv.total(y, wts)) + C * len(counts)
                + C1 * nv.penalty(counts))
    assert best >= B.soft_prefix_bound(Lt_e, rp, rn, amin, n, w, C, C1) - 1e-9
    T = B.soft_stop_cost(rp, rn, amin, n, w, C1)
    if T <= B.soft_continue_bound(rp, rn, amin, n, w, C, C1):
        assert math.isclose(Lt_e + T, best, abs_tol=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# the search against the exhaustive weighted optimum


def _fit(cls, X, y, wts, **kw):
    return cls(max_card=1, min_class_support=0.0, random_state=0, **kw).fit(X, y, sample_weight=wts)


@settings(max_examples=SEARCH_CASES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=6), st.sampled_from(["real", "dyadic", "huge"]))
def test_frl_search_finds_weighted_optimum(prob, kind):
    X, y, w, C, rng = prob
    wts = _weights(rng, len(y), kind)
    best, _ = nv.frl_optimum(X, y, w, C, weights=wts)
    for n_iter in (3000, 60000):  # as for softFRL below: a longer run if skewed weights make the optimum rare
        est = _fit(FRLClassifier, X, y, wts, positive_weight=w, regularization=C, n_iter=n_iter)
        assert est.result_.objective >= best - 1e-9
        if est.result_.objective <= best + 1e-9:
            break
    assert est.result_.objective == pytest.approx(best, abs=1e-9)
    rl = est.rule_list_
    assert rl.is_falling()
    counts = nv.list_counts([a.features[0] for a in rl.antecedents], *nv.masks(X, y), wts)
    assert nv.falling(counts)
    assert np.allclose(rl.n_pos, [float(p) for p, _ in counts]) and np.allclose(rl.n_neg, [float(m) for _, m in counts])


@settings(max_examples=SEARCH_CASES // 2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(frl_problems(max_cols=5), st.sampled_from([0.005, 0.05, 0.5]), st.sampled_from(["real", "huge"]))
def test_soft_search_never_below_weighted_optimum(prob, C1, kind):
    """As without weights (docs/frl.md): the search never reports less than the exhaustive optimum, and reaches the
    optimum over lists whose rules all capture a positive (skewed weights can make that list a rare draw: a second,
    longer run when the first misses it)."""
    X, y, w, C, rng = prob
    wts = _weights(rng, len(y), kind)
    best, _ = nv.soft_optimum(X, y, w, C, C1, weights=wts)
    reachable, _ = nv.soft_optimum(X, y, w, C, C1, positive_rules_only=True, weights=wts)
    for n_iter in (3000, 60000):
        est = _fit(SoftFRLClassifier, X, y, wts, positive_weight=w, regularization=C, monotonicity_penalty=C1,
                   n_iter=n_iter)
        assert est.result_.objective >= best - 1e-9
        if est.result_.objective <= reachable + 1e-9:
            break
    assert est.result_.objective <= reachable + 1e-9


# ---------------------------------------------------------------------------------------------------------------
# integer weights are repeated rows; class weights are sample weights


def _random_data(seed, n=300, k=10):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, k)) < 0.35).astype(np.uint8)
    y = (rng.random(n) < 0.15 + 0.5 * X[:, 0] * X[:, 1] + 0.2 * X[:, 2]).astype(np.uint8)
    return X, y, rng


@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integer_weights_equal_repeated_rows(cls, seed):
    """Same antecedents (the class supports are weights), same random stream, same decisions: the same list, the
    same objective and the same objective at every iteration."""
    X, y, rng = _random_data(seed)
    wts = rng.integers(0, 5, len(y))
    kw = dict(n_iter=800, random_state=seed, positive_weight=3.0, regularization=0.002, min_class_support=0.1)
    a = cls(**kw).fit(X, y, sample_weight=wts)
    b = cls(**kw).fit(np.repeat(X, wts, axis=0), np.repeat(y, wts))
    assert a.antecedent_names_ == b.antecedent_names_
    assert a.rule_list_.names == b.rule_list_.names
    assert a.result_.objective == b.result_.objective
    assert np.array_equal(a.search_trace_["objective"], b.search_trace_["objective"])
    assert np.array_equal(a.rule_list_.n_pos, b.rule_list_.n_pos)
    assert np.array_equal(a.rule_list_.probabilities, b.rule_list_.probabilities)


def test_weights_scale_free_and_uniform_weights_are_no_weights():
    X, y, _ = _random_data(4)
    kw = dict(n_iter=500, random_state=3, min_class_support=0.05)
    plain = FRLClassifier(**kw).fit(X, y)
    for c in (1.0, 2.5):
        est = FRLClassifier(**kw).fit(X, y, sample_weight=np.full(len(y), c))
        assert est.rule_list_.names == plain.rule_list_.names
        assert est.result_.objective == plain.result_.objective


def test_zero_weight_leaves_the_sample_out():
    X, y, rng = _random_data(5)
    wts = rng.uniform(0.5, 2.0, len(y))
    wts[::7] = 0
    kw = dict(n_iter=500, random_state=2, min_class_support=0.05)
    a = FRLClassifier(**kw).fit(X, y, sample_weight=wts)
    keep = wts > 0
    b = FRLClassifier(**kw).fit(X[keep], y[keep], sample_weight=wts[keep])
    assert a.rule_list_.names == b.rule_list_.names
    assert a.result_.objective == b.result_.objective


@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier])
def test_class_weight_equals_sample_weight(cls):
    X, y, rng = _random_data(6)
    labels = np.where(y == 1, "yes", "no")
    sw = rng.uniform(0.5, 3.0, len(y))
    kw = dict(n_iter=600, random_state=4, min_class_support=0.05)
    # "balanced": n / (2 * class weight), counted on the sample weights
    for base in (None, sw):
        b = np.ones(len(y)) if base is None else base
        tot = {c: b[labels == c].sum() for c in ("no", "yes")}
        equiv = b * np.array([b.sum() / (2 * tot[c]) for c in labels])
        a = cls(class_weight="balanced", **kw).fit(X, labels, sample_weight=base)
        e = cls(**kw).fit(X, labels, sample_weight=equiv)
        assert a.rule_list_.names == e.rule_list_.names
        assert a.result_.objective == pytest.approx(e.result_.objective, rel=1e-12)
    d = cls(class_weight={"yes": 4.0}, **kw).fit(X, labels, sample_weight=sw)
    e = cls(**kw).fit(X, labels, sample_weight=sw * np.where(labels == "yes", 4.0, 1.0))
    assert d.rule_list_.names == e.rule_list_.names
    assert d.result_.objective == pytest.approx(e.result_.objective, rel=1e-12)


def test_solve_reads_the_weights_of_its_data():
    """The weights are the dataset's (``data.sample_weight``), nothing beside it: the estimators fold their
    ``class_weight`` into them first."""
    X, y, rng = _random_data(7)
    sw = rng.uniform(0.2, 5.0, len(y))
    kw = dict(n_iter=400, random_state=9)
    wts = sw * np.where(y == 1, 2.0, 1.0)
    r = solve(from_arrays(X, y, sample_weight=wts), **kw)
    L, pos, _ = _numpy_objective(X, y, wts, [a.features[0] for a in r.model.antecedents], 7.0, 1e-6)
    assert r.objective == pytest.approx(L, rel=1e-10) and np.allclose(r.model.n_pos, pos)
    for name, value in (("sample_weight", sw), ("class_weight", {1: 2.0})):
        with pytest.raises(TypeError, match=name):
            solve(from_arrays(X, y), **{name: value}, **kw)
    with pytest.raises(ValueError, match="sample_weight"):
        from_arrays(X, y, sample_weight=-sw)


@pytest.mark.parametrize("per_word", [False, True])
def test_early_exit_does_not_change_the_weighted_trajectory(per_word, monkeypatch):
    """Dyadic weights have exact sums, so any block size of the early-exiting negative scan, the pair cache or its
    absence, and either layout of the weights (per sample, or per word with the samples sorted by weight) give the
    same iterations."""
    rng = np.random.default_rng(12)
    n, k, iters = (1500, 12, 40) if NOJIT else (5000, 30, 300)
    X = (rng.random((n, k)) < rng.uniform(0.05, 0.6, size=k)).astype(np.uint8)
    y = (rng.random(n) < 0.08 + 0.5 * X[:, 0] * X[:, 1] + 0.2 * X[:, 2]).astype(np.uint8)
    wts = rng.integers(1, 40, n) / 8.0
    ds = from_arrays(X, y, sample_weight=wts)
    reference = solve(ds, n_iter=iters, random_state=5).series["iteration_objectives"]
    monkeypatch.setattr(SearchData, "MIN_LEVELS", 10 ** 6 if per_word else 0)
    data = SearchData(X, y, wts)
    assert data.per_word == per_word
    assert np.array_equal(solve(ds, n_iter=iters, random_state=5, packed=data).series["iteration_objectives"],
                          reference)
    runs = [solve(ds, n_iter=iters, random_state=5, scan_block=b, packed=data) for b in (1, 16, 10 ** 9)]
    for r in runs[1:]:
        assert np.array_equal(r.series["iteration_objectives"], runs[0].series["iteration_objectives"])
        assert np.array_equal(r.series["candidates_per_level"], runs[0].series["candidates_per_level"])
    assert runs[0].counters["early_exits"] > 0
    monkeypatch.setattr(SearchData, "PAIR_WORK_LIMIT", 0)
    nopairs = SearchData(X, y, wts)
    assert data.use_pairs and not nopairs.use_pairs
    for soft in (False, True):
        a, b = (solve(ds, soft=soft, n_iter=iters, random_state=2, packed=d).series for d in (data, nopairs))
        assert np.array_equal(a["iteration_objectives"], b["iteration_objectives"])


# ---------------------------------------------------------------------------------------------------------------
# mining, binary only, a huge weight


def test_weighted_mining_support_is_a_fraction_of_the_class_weight():
    y = np.array([1] * 10 + [0] * 10, dtype=np.uint8)
    X = np.zeros((20, 3), dtype=np.uint8)
    X[0, 0] = 1          # one positive of weight 9 out of 18: 50 % of the positive weight
    X[1:4, 1] = 1        # three positives of weight 1: 3 / 18 of the positive weight
    X[10:12, 2] = 1      # two negatives of weight 1 out of 10
    wts = np.ones(20)
    wts[0] = 9.0
    data = from_arrays(X, y)
    names = lambda s, w: list(mine_classwise(data, max_card=1, min_support=s, weights=w).data.feature_names)  # noqa
    assert names(0.3, wts) == ["x0"]
    assert names(0.3, None) == ["x1"]            # by rows: 3 of 10 positives
    assert names(0.2, wts) == ["x0", "x2"]       # 2 / 10 of the negative weight
    assert names(1 / 6, wts) == ["x0", "x1", "x2"]  # 3 / 18 exactly
    reps = np.repeat(np.arange(20), wts.astype(int))
    for s in (0.05, 0.2, 0.3):
        assert names(s, wts) == list(mine_classwise(from_arrays(X[reps], y[reps]), max_card=1,
                                                    min_support=s).data.feature_names)


def test_more_than_two_classes_is_a_clear_error():
    X, y, _ = _random_data(1, n=60)
    y3 = y.astype(int) + (np.arange(60) % 3 == 0)
    for cls in (FRLClassifier, SoftFRLClassifier):
        with pytest.raises(ValueError, match=f"Only binary classification is supported.*{cls.__name__} is binary"):
            cls(n_iter=5).fit(X, y3)


def test_a_huge_weight_is_a_weight_not_rows():
    """Weight 10**7 on one row: counted as a weight (the row is not repeated), the objective is numpy's."""
    X, y, rng = _random_data(9, n=200, k=8)
    wts = np.ones(len(y))
    wts[int(np.flatnonzero(y == 1)[0])] = 1e7
    est = FRLClassifier(n_iter=300, random_state=0, min_class_support=0.05).fit(X, y, sample_weight=wts)
    A = np.column_stack([a.evaluate(X) for a in est.rule_list_.antecedents]) if len(est.rule_list_) else None
    L, pos, neg = _numpy_objective(A if A is not None else np.zeros((len(y), 0)), y, wts,
                                   list(range(len(est.rule_list_))), 7.0, 1e-6)
    assert est.result_.objective == pytest.approx(L, rel=1e-12)
    assert est.rule_list_.n_pos.sum() + est.rule_list_.n_neg.sum() == pytest.approx(wts.sum())


@pytest.mark.slow
@pytest.mark.skipif(NOJIT, reason="measures the compiled search")
def test_a_huge_weight_costs_little_time_and_memory():
    """Weight 10**7 on one sample (605 MB when weights were repeated rows): under 5 s and 200 MB of peak RSS growth
    in a fresh process, loosely."""
    from reliability.support import _code, _run_child

    r = _run_child(_code("""
        import gc
        from optbb.frl import FRLClassifier, SoftFRLClassifier
        rng = np.random.default_rng(1)
        X = (rng.random((3000, 16)) < 0.35).astype(np.uint8)
        y = (rng.random(3000) < 0.3).astype(np.uint8)
        w = rng.uniform(0.5, 2.0, 3000)
        FRLClassifier(n_iter=20, random_state=0).fit(X, y, sample_weight=w)   # compile or load the kernels
        SoftFRLClassifier(n_iter=20, random_state=0).fit(X, y, sample_weight=w)
        w = np.ones(3000)
        w[0] = 1e7
        gc.collect()
        reset_peak()
        base = rss_now()
        t0 = time.perf_counter()
        FRLClassifier(random_state=0).fit(X, y, sample_weight=w)
        SoftFRLClassifier(random_state=0).fit(X, y, sample_weight=w)
        print("RESULT " + json.dumps({"seconds": time.perf_counter() - t0, "growth": peak_rss() - base}), flush=True)
    """))
    assert r["seconds"] < 5.0, r
    assert r["growth"] < 200 * 2 ** 20, r


# ---------------------------------------------------------------------------------------------------------------
# scikit-learn tools


def test_grid_search_roc_auc_and_calibration():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import GridSearchCV

    X, y, rng = _random_data(10, n=240)
    wts = rng.uniform(0.5, 2.0, len(y))
    grid = GridSearchCV(FRLClassifier(n_iter=100, random_state=0, min_class_support=0.05),
                        {"positive_weight": [1.0, 3.0], "class_weight": [None, "balanced"]}, scoring="roc_auc", cv=3)
    grid.fit(X, y, sample_weight=wts)
    assert np.isfinite(grid.best_score_) and set(grid.best_params_) == {"positive_weight", "class_weight"}
    cal = CalibratedClassifierCV(SoftFRLClassifier(n_iter=100, random_state=0, min_class_support=0.05), cv=3)
    cal.fit(X, y, sample_weight=wts)
    p = cal.predict_proba(X)
    assert p.shape == (len(y), 2) and np.allclose(p.sum(axis=1), 1.0)
