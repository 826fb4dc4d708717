"""OSDT with real sample and class weights and with k >= 2 classes: the dynamic-programming search against a
brute force (tests/twins/brute_trees.py), integer weights against repeated rows, a huge weight, the estimator
with k classes (probabilities, scikit-learn model selection and calibration), class weights, model forms."""
from __future__ import annotations

import json
import time
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optbb import export
from optbb.common.data import from_arrays
from optbb.common.result import Status
from optbb.osdt import OSDTClassifier, Tree, solve
from optbb.osdt.dp import depth2 as D2
from optbb.osdt.dp.engine import solve_dp
from optbb.osdt.support import UNIT_BITS, weight_layers, weight_units
from twins.brute_trees import optimal_objective
from conftest import class_bitsets

QUICK = settings(max_examples=160, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------------------------------------------------------
# brute force with real weights
# ---------------------------------------------------------------------------------------------------------------


@st.composite
def weighted_problems(draw, n_classes):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < draw(st.sampled_from([0.3, 0.5]))).astype(np.uint8)
    y = rng.integers(0, n_classes, n).astype(np.int64)
    if draw(st.booleans()):  # labels that follow the features, so deeper trees pay off
        y = (X[:, 0] + X[:, -1] * (n_classes - 1) + (rng.random(n) < 0.2)) % n_classes
    kind = draw(st.sampled_from(["real", "integer", "mixed", "tiny-and-huge"]))
    if kind == "real":
        w = rng.random(n) * draw(st.sampled_from([1e-3, 1.0, 1e3]))
    elif kind == "integer":
        w = rng.integers(0, 5, n).astype(np.float64)
    elif kind == "mixed":
        w = rng.choice([0.0, 0.5, 1.0, 1.25, 3.0], n)
    else:
        w = rng.choice([1e-6, 1.0, 1e6], n)
    if not np.any(w > 0):
        w[0] = 1.0
    max_depth = draw(st.sampled_from([None, None, 0, 1, 2, 3]))
    lam = draw(st.sampled_from([0.0, 0.01, 0.03, 0.07, 0.1, 0.2, 0.5]))
    if lam == 0.0 and max_depth is None:
        max_depth = 2
    return X, y.astype(np.int64), w, lam, max_depth


def model_objective(tree: Tree, lam: float) -> float:
    """The objective a fitted tree's own leaf class counts give (weights, or numbers when the weights are
    uniform)."""
    counts = tree.leaf_class_counts()
    wrong = sum(c.sum() - c[p] for c, p in zip(counts, tree.predictions))
    return wrong / counts.sum() + lam * tree.n_leaves


def check_weighted(problem, warm):
    X, y, w, lam, max_depth = problem
    res = solve_dp(X, y, lam, max_depth=max_depth, warm_start=warm, sample_weight=w)
    assert res.status is Status.OPTIMAL
    expected = optimal_objective(X, y, lam, max_depth, sample_weight=w)
    assert res.objective == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert res.lower_bound == res.objective
    if max_depth is not None:
        assert res.model.depth <= max_depth
    assert model_objective(res.model, lam) == pytest.approx(res.objective, rel=1e-12, abs=1e-12)


@QUICK
@given(weighted_problems(2), st.sampled_from(["cart", None]))
def test_weighted_brute_force_two_classes(problem, warm):
    check_weighted(problem, warm)


@QUICK
@given(weighted_problems(3), st.sampled_from(["cart", None]))
def test_weighted_brute_force_three_classes(problem, warm):
    check_weighted(problem, warm)


@pytest.mark.slow
@SLOW
@given(weighted_problems(2), st.sampled_from(["cart", None]))
def test_weighted_brute_force_two_classes_many(problem, warm):
    check_weighted(problem, warm)


@pytest.mark.slow
@SLOW
@given(weighted_problems(3), st.sampled_from(["cart", None]))
def test_weighted_brute_force_three_classes_many(problem, warm):
    check_weighted(problem, warm)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.05]), st.sampled_from([None, 3]))
def test_weighted_solve_through_the_dataset(seed, lam, max_depth):
    """``solve`` reads ``data.sample_weight`` ("auto" picks the dynamic-programming search)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (20, 4)).astype(np.uint8)
    y = rng.integers(0, 2, 20).astype(np.uint8)
    y[:2] = [0, 1]
    w = rng.random(20) * 3
    res = solve(from_arrays(X, y, sample_weight=w), lam, max_depth=max_depth)
    assert "subproblems" in res.counters
    assert res.objective == pytest.approx(optimal_objective(X, y, lam, max_depth, sample_weight=w), abs=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# integer weights are repeated rows
# ---------------------------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.005, 0.02, 0.05]), st.sampled_from([None, 2, 3]),
       st.sampled_from([2, 3]))
def test_integer_weights_equal_repeated_rows(seed, lam, max_depth, k):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(5, 40)), int(rng.integers(2, 7))
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = ((X[:, 0] ^ X[:, 1]) + (rng.random(n) < 0.25)) % k
    w = rng.integers(0, 5, n)
    if w.sum() == 0:
        w[0] = 1
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    # without a warm start both searches take the same steps on the same counts: the same tree
    a = solve_dp(X, y, lam, max_depth=max_depth, warm_start=None, sample_weight=w.astype(float))
    b = solve_dp(Xr, yr, lam, max_depth=max_depth, warm_start=None)
    assert abs(a.objective - b.objective) <= 1e-12
    assert a.model.leaves == b.model.leaves and a.model.predictions == b.model.predictions
    assert a.counters["nodes"] == b.counters["nodes"]
    c = solve_dp(X, y, lam, max_depth=max_depth, sample_weight=w.astype(float))  # CART warm start
    assert abs(c.objective - b.objective) <= 1e-12


def test_estimator_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (60, 5)).astype(np.uint8)
    y = np.where((X[:, 0] & X[:, 2]) | (rng.random(60) < 0.15), "yes", "no")
    w = np.tile([1, 2, 0, 3], 15)
    a = OSDTClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    b = OSDTClassifier(regularization=0.02).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert abs(a.result_.objective - b.result_.objective) <= 1e-12
    assert np.array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.tree_.leaf_class_counts().sum(), w.sum())


def test_weight_units_and_layers():
    w = np.array([1.0, 2.0, 2.0, 7.0])
    assert np.array_equal(weight_units(w).units, [1, 2, 2, 7]) and weight_units(w).unit == 1  # integers as they are
    for w, D in (([1 / 3, 2 / 3, 1.0], 3), ([0.1, 0.3, 0.6], 10), ([50 / 37, 1.0, 0.5], 74)):
        units = weight_units(np.array(w))  # fractions of a small denominator: exact, so their ties are ties
        assert units.exact and units.unit == Fraction(1, D)
        assert np.array_equal(units.units, np.rint(np.array(w) * D))
    real = np.array([0.1, 0.2, 0.3, 1e-30])
    units = weight_units(real)
    q = units.units
    assert not units.exact and q.min() >= 1 and 2 ** (UNIT_BITS - 2) <= q.sum() < 2**UNIT_BITS
    # each row is off by at most half a unit, and the 1e-30 row takes one unit
    np.testing.assert_allclose(q / q.sum(), real / real.sum(), atol=2.0 ** (2 - UNIT_BITS))
    for q in (np.array([1, 3, 3, 1]), np.arange(1, 200), np.array([10**7, 1, 1])):
        layers, mult = weight_layers(q)
        assert np.array_equal((layers * mult[:, None]).sum(axis=0), q)
        assert len(mult) <= min(len(np.unique(q)), int(q.max()).bit_length())


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3]))
def test_depth2_weighted_counts_and_solver(seed, k):
    """The depth-2 solver's pair counts with weight layers are weighted pair sums; its optimum is that of the
    repeated rows."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 90)), int(rng.integers(1, 5))
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = rng.integers(0, k, n)
    q = rng.choice([1, 2, 5, 1000], n) if rng.random() < 0.5 else rng.integers(1, 300, n)
    mask = rng.random(n) < 0.8
    layers, mult = weight_layers(q)
    from optbb.common.bitset import pack, pack_rows

    xb = np.ascontiguousarray(pack_rows(X.T))
    yb = np.ascontiguousarray(pack_rows(((y[None, None, :] == np.arange(k)[:, None, None])
                                         & layers[None]).reshape(-1, n)))
    sb = np.ascontiguousarray(pack(mask))
    counts, totals = D2.pair_counts(xb, yb, sb, D2.AUTO, mult)
    onehot = ((y[:, None] == np.arange(k)[None, :]) & mask[:, None]) * q[:, None]
    Xi = X.astype(np.int64)
    np.testing.assert_array_equal(totals, onehot.sum(axis=0))
    np.testing.assert_array_equal(counts, np.einsum("nc,nf,ng->cfg", onehot, Xi, Xi))
    lam_n = float(rng.integers(0, 8) * q.mean())
    rows = np.repeat(np.arange(n)[mask], q[mask])
    Xr, yr = X[rows], y[rows]
    ref = D2.depth2(np.ascontiguousarray(pack_rows(Xr.T)), class_bitsets(yr, k),
                    np.ascontiguousarray(pack(np.ones(len(rows), bool))), lam_n) if len(rows) else None
    got = D2.depth2(xb, yb, sb, lam_n, mult)
    if ref is not None:
        assert got[0] == ref[0] and got[1:] == ref[1:]


# ---------------------------------------------------------------------------------------------------------------
# a huge weight costs no more than its row
# ---------------------------------------------------------------------------------------------------------------


def _huge_weight_fit():
    from optbb.datasets import load_osdt

    d = load_osdt("monk1")
    w = np.ones(d.n_samples)
    w[3] = 1e7
    return OSDTClassifier(regularization=0.01).fit(d.X, d.y, sample_weight=w), d, w


def test_huge_weight_is_cheap_in_memory():
    _huge_weight_fit()  # compile
    tracemalloc.start()
    try:
        clf, d, w = _huge_weight_fit()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, peak  # repeated rows would hold 10^7 rows
    assert clf.result_.status is Status.OPTIMAL
    assert clf.predict(d.X[3:4])[0] == d.y[3]  # the heavy row is classified correctly


@pytest.mark.slow
def test_huge_weight_is_fast():
    _huge_weight_fit()
    start = time.perf_counter()
    _huge_weight_fit()
    assert time.perf_counter() - start < 5.0


# ---------------------------------------------------------------------------------------------------------------
# the estimator with k classes and class weights
# ---------------------------------------------------------------------------------------------------------------


def three_class_data(seed=3, n=45, m=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    code = (X[:, 0] + X[:, 1] + (rng.random(n) < 0.15)) % 3
    return X, code, np.array(["low", "mid", "top"])[code]


@pytest.mark.parametrize("max_depth", [None, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_three_class_estimator_is_exact(max_depth, weighted):
    X, code, y = three_class_data()
    w = np.random.default_rng(1).random(len(y)) * 2 if weighted else None
    clf = OSDTClassifier(regularization=0.02, max_depth=max_depth).fit(X, y, sample_weight=w)
    assert list(clf.classes_) == ["low", "mid", "top"]
    assert clf.result_.status is Status.OPTIMAL
    assert clf.result_.objective == pytest.approx(optimal_objective(X, code, 0.02, max_depth, sample_weight=w),
                                                  abs=1e-9)
    pred = clf.predict(X)
    assert set(pred) <= set(clf.classes_)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[np.argmax(proba, axis=1)], pred)
    assert clf.decision_function(X).shape == (len(y), 3)


def test_class_weight_balanced_equals_its_sample_weight():
    X, code, y = three_class_data(seed=5, n=60)
    counts = np.bincount(code)
    sw = len(y) / (3 * counts.astype(np.float64))[code]
    a = OSDTClassifier(regularization=0.01, class_weight="balanced").fit(X, y)
    b = OSDTClassifier(regularization=0.01).fit(X, y, sample_weight=sw)
    assert abs(a.result_.objective - b.result_.objective) <= 1e-12
    assert a.tree_.leaves == b.tree_.leaves and np.array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
    # a dict naming every class equals the same factors as sample weights
    c = OSDTClassifier(regularization=0.01, class_weight={"low": 1.0, "mid": 2.5, "top": 0.5}).fit(X, y)
    d = OSDTClassifier(regularization=0.01).fit(X, y, sample_weight=np.array([1.0, 2.5, 0.5])[code])
    assert abs(c.result_.objective - d.result_.objective) <= 1e-12
    assert np.array_equal(c.predict(X), d.predict(X))
    assert c.result_.objective == pytest.approx(
        optimal_objective(X, code, 0.01, sample_weight=np.array([1.0, 2.5, 0.5])[code]), abs=1e-9)


def test_class_weight_changes_the_tree_towards_the_rare_class():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 4)).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1] & X[:, 2]) & (rng.random(200) < 0.8)).astype(int)  # rare positives
    plain = OSDTClassifier(regularization=0.02).fit(X, y)
    balanced = OSDTClassifier(regularization=0.02, class_weight="balanced").fit(X, y)
    assert (balanced.predict(X) == 1).sum() > (plain.predict(X) == 1).sum()


def test_weights_need_the_dp_search():
    X, code, y = three_class_data()
    y2 = (code > 0).astype(int)
    w = np.linspace(0.5, 2.0, len(y2))
    with pytest.raises(ValueError, match="sample_weight"):
        OSDTClassifier(search="leaf_set").fit(X, y2, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight"):
        OSDTClassifier(search="leaf_set", class_weight="balanced").fit(X, y2)
    with pytest.raises(ValueError, match="sample_weight"):
        OSDTClassifier(max_leaves=3).fit(X, y2, sample_weight=w)  # "auto" cannot take both
    with pytest.raises(ValueError, match="sample_weight"):
        solve(from_arrays(X, y2, sample_weight=w), 0.05, search="leaf_set")
    # uniform weights are no weights: the leaf-set search takes them
    ones = OSDTClassifier(regularization=0.05, search="leaf_set").fit(X, y2, sample_weight=np.ones(len(y2)))
    none = OSDTClassifier(regularization=0.05, search="leaf_set").fit(X, y2)
    assert ones.result_.objective == none.result_.objective
    assert "subproblems" in OSDTClassifier(regularization=0.05).fit(X, y2, sample_weight=w).result_.counters


def test_more_than_two_classes_need_the_dp_search():
    X, _, y = three_class_data()
    for kw in ({"search": "leaf_set"}, {"policy": "objective"}, {"max_leaves": 3}):
        with pytest.raises(ValueError, match="classes"):
            OSDTClassifier(**kw).fit(X, y)


def test_bad_class_weight():
    X, _, y = three_class_data()
    with pytest.raises(ValueError, match="class_weight"):
        OSDTClassifier(class_weight="equal").fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        OSDTClassifier(class_weight={"nope": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        OSDTClassifier(class_weight={"low": -1.0}).fit(X, y)


def test_grid_search_roc_auc_and_calibration():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (120, 5)).astype(np.uint8)
    y = np.where((X[:, 0] | X[:, 3]) ^ (rng.random(120) < 0.15), "pos", "neg")
    grid = GridSearchCV(OSDTClassifier(), {"regularization": [0.01, 0.05], "class_weight": [None, "balanced"]},
                        scoring="roc_auc", cv=3).fit(X, y)
    assert np.isfinite(grid.best_score_) and 0.5 < grid.best_score_ <= 1.0
    cal = CalibratedClassifierCV(OSDTClassifier(regularization=0.02), cv=3).fit(X, y)
    p = cal.predict_proba(X)
    assert p.shape == (120, 2) and np.allclose(p.sum(axis=1), 1.0)
    X3, _, y3 = three_class_data(n=90)
    grid3 = GridSearchCV(OSDTClassifier(max_depth=3), {"regularization": [0.01, 0.05]}, scoring="roc_auc_ovr",
                         cv=3).fit(X3, y3)
    assert np.isfinite(grid3.best_score_)
    cal3 = CalibratedClassifierCV(OSDTClassifier(regularization=0.02), cv=3).fit(X3, y3)
    assert cal3.predict_proba(X3).shape == (90, 3)


# ---------------------------------------------------------------------------------------------------------------
# model forms carry k labels and weighted counts
# ---------------------------------------------------------------------------------------------------------------


def test_three_class_tree_round_trips():
    X, _, y = three_class_data()
    w = np.random.default_rng(4).random(len(y)) + 0.25
    clf = OSDTClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    tree = clf.tree_
    s = tree.to_json()
    d = json.loads(s)
    assert d["classes"] == ["low", "mid", "top"]
    back = export.from_json(s)
    assert isinstance(back, Tree)
    assert export.to_json(back) == s
    assert np.array_equal(back.predict(X), clf.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X))
    text = tree.text()
    assert text.count("predict") == tree.n_leaves
    assert all(label in text for label in set(clf.predict(X)))
    assert set(Tree.from_json(s).leaves) == set(tree.leaves)


def test_stopped_weighted_search_returns_a_consistent_tree_and_bound():
    from optbb.datasets import load_osdt

    d = load_osdt("tic-tac-toe")
    w = np.random.default_rng(0).random(d.n_samples) + 0.5
    data = from_arrays(d.X, d.y, d.feature_names, sample_weight=w)
    full = solve(data, 0.02)
    assert full.status is Status.OPTIMAL
    for limit in (1, 30, 300):
        res = solve(data, 0.02, node_limit=limit)
        assert res.lower_bound <= full.objective + 1e-12 <= res.objective + 2e-12
        assert model_objective(res.model, 0.02) == pytest.approx(res.objective, abs=1e-12)
