"""CORELS with real-valued sample weights, class weights and k >= 2 classes: brute-force agreement, integer weights
equal repeated rows, a huge weight costs nothing special, scikit-learn tools, k-row .label files."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORELS_MAPS
from twins.corels import corels_brute_force, rule_list_objective
from optbb.common.data import BinaryDataset, from_arrays, read_corels
from optbb.common.mining import mine_antecedents
from optbb.corels import ABLATIONS, POLICIES, CorelsClassifier, RuleList, solve

LAMBDAS = (0.0, 0.005, 0.01, 0.03, 0.05, 0.1, 0.2, 0.5)
ROOT = Path(__file__).resolve().parents[1]


@st.composite
def problems(draw, max_classes=4, weights=None):
    """``(A, y, lam, w, options)``: 1-30 samples, 1-5 antecedents, 2-``max_classes`` label values, optional
    weights (``weights``: None = none, "real" = reals in [0, 10] with zeros, "int" = integers 0-4), and a random
    policy / map / set of ablations.  Half the time rows are repeated, so equivalent points have mixed labels."""
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 5))
    k = draw(st.integers(2, max_classes))
    A = np.array(draw(st.lists(st.integers(0, 1), min_size=n * m, max_size=n * m)), dtype=np.uint8).reshape(n, m)
    if draw(st.booleans()):
        A[n // 2:] = A[: n - n // 2]
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.uint8)
    lam = draw(st.sampled_from(LAMBDAS))
    w = None
    if weights == "real":
        w = np.array(draw(st.lists(st.one_of(st.just(0.0), st.floats(0.01, 10.0)), min_size=n, max_size=n)))
        if w.sum() <= 0:
            w[0] = 1.0
    elif weights == "int":
        w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.float64)
        if w.sum() <= 0:
            w[0] = 1.0
    options = {"policy": draw(st.sampled_from(POLICIES)), "map_type": draw(st.sampled_from(CORELS_MAPS)),
               "ablation": tuple(sorted(draw(st.sets(st.sampled_from(ABLATIONS)))))}
    return A, y, lam, w, k, options


def _dataset(A, y, k, w=None):
    return BinaryDataset(A, y, [f"a{j}" for j in range(A.shape[1])], w, tuple(f"c{j}" for j in range(k)))


def _check_against_brute_force(problem, tol):
    A, y, lam, w, k, options = problem
    expected, _ = corels_brute_force(A, y, lam, sample_weight=w)
    result = solve(_dataset(A, y, k, w), lam, **options)
    assert result.status.name == "OPTIMAL"
    assert result.objective == pytest.approx(expected, abs=tol), options
    prefix = [r.antecedent for r in result.model.rules]
    assert rule_list_objective(A, y, prefix, lam, w) == pytest.approx(result.objective, abs=tol)
    assert result.model.objective == pytest.approx(result.objective, abs=tol)
    assert result.lower_bound == result.objective


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems())
def test_k_classes_agree_with_brute_force(problem):
    _check_against_brute_force(problem, 1e-12)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_classes=3, weights="real"))
def test_real_weights_agree_with_brute_force(problem):
    _check_against_brute_force(problem, 1e-9)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_classes=5, weights="real") | problems(max_classes=5))
def test_brute_force_agreement_many(problem):
    _check_against_brute_force(problem, 1e-9)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_classes=3, weights="int"))
def test_integer_weights_equal_repeated_rows(problem):
    A, y, lam, w, k, options = problem
    reps = w.astype(np.int64)
    weighted = solve(_dataset(A, y, k, w), lam, **options)
    repeated = solve(_dataset(np.repeat(A, reps, axis=0), np.repeat(y, reps), k), lam, **options)
    assert weighted.objective == repeated.objective
    assert [r.antecedent for r in weighted.model.rules] == [r.antecedent for r in repeated.model.rules]
    assert [r.prediction for r in weighted.model.rules] == [r.prediction for r in repeated.model.rules]
    assert weighted.model.default_prediction == repeated.model.default_prediction


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(max_classes=3, weights="real"), st.integers(1, 10))
def test_stopped_weighted_search_reports_a_valid_lower_bound(problem, nodes):
    A, y, lam, w, k, _ = problem
    expected, _ = corels_brute_force(A, y, lam, sample_weight=w)
    result = solve(_dataset(A, y, k, w), lam, node_limit=nodes, policy="bfs")
    assert result.lower_bound <= expected + 1e-9 <= result.objective + 2e-9


def test_uniform_weights_are_the_unweighted_search():
    rng = np.random.default_rng(1)
    A, y = rng.integers(0, 2, (80, 6)).astype(np.uint8), rng.integers(0, 3, 80).astype(np.uint8)
    plain = solve(_dataset(A, y, 3), 0.01)
    same = solve(_dataset(A, y, 3, np.full(80, 2.5)), 0.01)
    timings = ("total_time", "time_to_optimum", "kernel_load_time")
    assert plain.objective == same.objective
    assert {k: v for k, v in plain.counters.items() if k not in timings} == \
        {k: v for k, v in same.counters.items() if k not in timings}


def test_zero_weight_rows_count_for_nothing():
    rng = np.random.default_rng(2)
    A, y = rng.integers(0, 2, (60, 5)).astype(np.uint8), rng.integers(0, 2, 60).astype(np.uint8)
    w = rng.random(60)
    w[::3] = 0
    keep = w > 0
    a = solve(_dataset(A, y, 2, w), 0.01)
    b = solve(_dataset(A[keep], y[keep], 2, w[keep]), 0.01)
    assert a.objective == b.objective


# ---------------------------------------------------------------------------------------------------------------
# estimator: weights, class weights, k classes


def _frame(n=240, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    signal = X[:, 0] + 2 * X[:, 1] * (k > 2)
    y = np.where(rng.random(n) < 0.75, signal % k, rng.integers(0, k, n))
    return X, np.array(["ant", "bee", "cat", "dog"])[y]


def test_integer_weights_equal_repeated_rows_through_mining():
    X, y = _frame()
    w = np.tile([1, 3, 0, 2], 60)
    a = CorelsClassifier(regularization=0.01, min_support=0.02).fit(X, y, sample_weight=w)
    b = CorelsClassifier(regularization=0.01, min_support=0.02).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert a.result_.objective == b.result_.objective
    assert str(a) == str(b)
    assert [x.name(["f"] * 6) for x in a.antecedents_.antecedents] == \
        [x.name(["f"] * 6) for x in b.antecedents_.antecedents]


def test_weighted_mining_support():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (50, 4)).astype(np.uint8)
    y = rng.integers(0, 2, 50).astype(np.uint8)
    w = rng.integers(0, 5, 50).astype(np.float64)
    data = from_arrays(X, y)
    mined = mine_antecedents(data, 2, 0.1, sample_weight=w)
    for a, col in zip(mined.antecedents, mined.data.X.T):
        assert 0.1 * w.sum() <= float(w @ col) <= 0.9 * w.sum()
        assert np.array_equal(col, a.evaluate(X))
    rows = np.repeat(np.arange(50), w.astype(np.int64))
    repeated = mine_antecedents(from_arrays(X[rows], y[rows]), 2, 0.1)
    assert [str(a) for a in mined.antecedents] == [str(a) for a in repeated.antecedents]


def test_class_weight_is_a_sample_weight_per_class():
    X, y = _frame(k=2, seed=4)
    classes = np.unique(y)
    cw = {classes[0]: 1.0, classes[1]: 3.5}
    a = CorelsClassifier(regularization=0.01, class_weight=cw).fit(X, y)
    b = CorelsClassifier(regularization=0.01).fit(X, y, sample_weight=np.where(y == classes[1], 3.5, 1.0))
    assert a.result_.objective == pytest.approx(b.result_.objective, abs=1e-12) and str(a) == str(b)
    bal = CorelsClassifier(regularization=0.01, class_weight="balanced").fit(X, y)
    counts = np.array([np.sum(y == c) for c in classes])
    sw = (len(y) / (2 * counts))[np.searchsorted(classes, y)]
    ref = CorelsClassifier(regularization=0.01).fit(X, y, sample_weight=sw)
    assert bal.result_.objective == pytest.approx(ref.result_.objective, abs=1e-12)
    with pytest.raises(ValueError, match="class_weight"):
        CorelsClassifier(class_weight={"nope": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        CorelsClassifier(class_weight="even").fit(X, y)


def test_three_classes_predict_and_proba():
    X, y = _frame(k=3)
    est = CorelsClassifier(regularization=0.005).fit(X, y)
    assert list(est.classes_) == ["ant", "bee", "cat"]
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), 3)
    assert np.allclose(proba.sum(axis=1), 1.0) and (proba > 0).all()
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    assert est.decision_function(X).shape == (len(y), 3)
    assert set(est.predict(X)) <= set(est.classes_)
    # the objective is the training error rate of the predictions plus lambda per rule
    err = np.mean(est.predict(X) != y)
    assert est.result_.objective == pytest.approx(err + 0.005 * len(est.rule_list_), abs=1e-12)
    weighted = CorelsClassifier(regularization=0.005).fit(X, y, sample_weight=np.linspace(0.1, 3, len(y)))
    p = weighted.predict_proba(X)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(weighted.classes_[p.argmax(axis=1)], weighted.predict(X))


def test_three_class_rule_list_json_round_trip():
    X, y = _frame(k=3)
    est = CorelsClassifier(regularization=0.005).fit(X, y, sample_weight=np.linspace(0.5, 2, len(y)))
    model = est.rule_list_
    back = RuleList.from_json(model.to_json())
    assert back.label_names == model.label_names and len(back.label_names) == 3
    assert np.array_equal(back.predict(X), model.predict(X))
    assert np.allclose(back.class_counts(), model.class_counts())
    assert "cat" in model.text() or "bee" in model.text() or "ant" in model.text()


def test_gridsearch_roc_auc_and_calibration_run():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import GridSearchCV

    X, y = _frame(k=2, seed=5)
    grid = GridSearchCV(CorelsClassifier(), {"regularization": [0.01, 0.05]}, scoring="roc_auc", cv=3).fit(X, y)
    assert np.isfinite(grid.best_score_)
    cal = CalibratedClassifierCV(CorelsClassifier(regularization=0.02), cv=3).fit(X, y)
    p = cal.predict_proba(X)
    assert p.shape == (len(y), 2) and np.allclose(p.sum(axis=1), 1.0)


def test_k_row_label_file_round_trip(tmp_path):
    from optbb.datasets.propublica import write_corels

    rng = np.random.default_rng(6)
    A = rng.integers(0, 2, (30, 4)).astype(np.uint8)
    y = rng.integers(0, 3, 30).astype(np.uint8)
    data = BinaryDataset(A, y, ["a", "b", "c,d", "e"], None, ("label=low", "label=mid", "label=high"))
    write_corels(data, tmp_path / "d", minor=True)
    lines = (tmp_path / "d.label").read_text().splitlines()
    assert [ln.split("}")[0] for ln in lines] == ["{label=low", "{label=mid", "{label=high"]
    back = read_corels(tmp_path / "d.out", tmp_path / "d.label", tmp_path / "d.minor")
    assert back.label_names == data.label_names and np.array_equal(back.y, y) and np.array_equal(back.X, A)
    assert solve(back, 0.01).objective == solve(data, 0.01).objective
    (tmp_path / "bad.label").write_text("{a} 1 0 0\n{b} 0 1 0\n{c} 0 1 1\n")
    (tmp_path / "bad.out").write_text("{x} 1 0 1\n")
    with pytest.raises(ValueError, match="exactly one label line"):
        read_corels(tmp_path / "bad.out", tmp_path / "bad.label")


def test_binary_label_file_is_unchanged(tmp_path):
    from optbb.datasets.propublica import write_corels

    data = BinaryDataset(np.array([[1], [0], [1]], dtype=np.uint8), np.array([1, 0, 0], dtype=np.uint8), ["a"],
                         None, ("no", "yes"))
    write_corels(data, tmp_path / "d", minor=False)
    assert (tmp_path / "d.label").read_text() == "{no} 0 1 1\n{yes} 1 0 0\n"


# ---------------------------------------------------------------------------------------------------------------
# a huge weight: no row repetition, so it costs what the unweighted problem costs


def _heavy_problem():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (1000, 12))
    y = (X[:, 0] ^ (rng.random(1000) < 0.2)).astype(int)
    w = np.ones(1000)
    w[3] = 1e7
    return X, y, w


def test_huge_weight_is_not_expanded():
    X, y, w = _heavy_problem()
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            est = CorelsClassifier(regularization=0.01).fit(X, y, sample_weight=w)
            low = CorelsClassifier(regularization=1e-8, min_support=0.0, max_card=1).fit(X, y, sample_weight=w)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 << 20
    assert est.result_.status.name == "OPTIMAL" and low.result_.status.name == "OPTIMAL"
    # the heavy row dominates: it is classified correctly by both lists
    assert est.predict(X[3:4])[0] == y[3] and low.predict(X[3:4])[0] == y[3]
    assert est.result_.counters["n_samples"] == 1000


@pytest.mark.slow
def test_huge_weight_costs_under_5_seconds_and_200_mb():
    code = textwrap.dedent("""
        import json, resource, sys, time, warnings
        sys.path.insert(0, sys.argv[1])
        import numpy as np
        from optbb.corels import CorelsClassifier
        from test_corels_weights_classes import _heavy_problem
        X, y, w = _heavy_problem()
        CorelsClassifier(regularization=0.01).fit(X[:50], y[:50])   # compile / load the kernels first
        CorelsClassifier(regularization=0.01).fit(X[:50], y[:50], sample_weight=w[:50] + 0.5)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = CorelsClassifier().fit(X, y, sample_weight=w)
        dt = time.perf_counter() - t
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"seconds": dt, "extra_mb": (rss1 - rss0) / 1024}))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["seconds"] < 5
    assert figures["extra_mb"] < 200


def test_each_kind_of_data_runs_its_own_compiled_kernel():
    """Two classes without weights run the kernel compiled for ``Y`` None (the popcount fast path only); ``k``
    classes and weights run the one compiled for the per-class bitsets, and all three agree with brute force."""
    from numba import types
    from optbb.corels import kernel as K

    rng = np.random.default_rng(3)
    A = rng.integers(0, 2, size=(40, 5)).astype(np.uint8)
    for y, w in ((rng.integers(0, 2, 40), None), (rng.integers(0, 3, 40), None),
                 (rng.integers(0, 2, 40), rng.uniform(0.5, 2.0, 40))):
        r = solve(_dataset(A, y, int(y.max()) + 1, w), 0.01)
        expected, _ = corels_brute_force(A, y, 0.01, sample_weight=w)
        assert r.status.name == "OPTIMAL" and r.objective == pytest.approx(expected, abs=1e-12)
    y_types = {sig[1] for sig in K.run_chunk.signatures}
    assert types.none in y_types
    assert any(isinstance(t, types.Array) for t in y_types)
