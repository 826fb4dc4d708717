"""predict_proba / decision_function of every optbb classifier: rows sum to 1, agree with predict (ties included),
survive JSON, and work inside GridSearchCV(scoring="roc_auc") and CalibratedClassifierCV."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import GridSearchCV

from optbb import export
from optbb.baselines.binoct import BinOCTClassifier
from optbb.common.proba import smoothed_probabilities
from optbb.corels import CorelsClassifier
from optbb.frl.estimator import FRLClassifier, SoftFRLClassifier
from optbb.osdt import OSDTClassifier


def _data(n=120, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d))
    logit = 1.5 * X[:, 0] - 1.2 * X[:, 1] + 0.8 * X[:, 2] * X[:, 3] - 0.4
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * logit))).astype(int)
    return X, y


ESTIMATORS = {
    "corels": lambda: CorelsClassifier(regularization=0.02, max_card=2, time_limit=10),
    "osdt": lambda: OSDTClassifier(regularization=0.03, time_limit=10),
    "binoct": lambda: BinOCTClassifier(max_depth=2, time_limit=10),
    "frl": lambda: FRLClassifier(n_iter=200, random_state=0, positive_weight=1.0, min_class_support=0.05),
    "softfrl": lambda: SoftFRLClassifier(n_iter=200, random_state=0, positive_weight=1.0, min_class_support=0.05),
}
# the label each model predicts is argmax of predict_proba, except FRL's cost-sensitive threshold 1/(1+w)
ARGMAX = ("corels", "osdt", "binoct")


def _labels(y, kind):
    return np.where(y == 1, "yes", "no") if kind == "str" else y


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("labels", ["int", "str"])
def test_rows_sum_to_one_and_agree_with_predict(name, labels):
    X, y = _data()
    yl = _labels(y, labels)
    est = ESTIMATORS[name]().fit(X, yl)
    rng = np.random.default_rng(1)
    Xt = np.vstack([X, rng.integers(0, 2, size=(200, X.shape[1]))])  # every cell of the model, seen or not
    proba = est.predict_proba(Xt)
    pred = est.predict(Xt)
    assert proba.shape == (Xt.shape[0], 2)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    dec = est.decision_function(Xt)
    assert dec.shape == (Xt.shape[0],)
    np.testing.assert_array_equal(est.classes_[(dec > 0).astype(int)], pred)
    if name in ARGMAX:
        np.testing.assert_array_equal(est.classes_[np.argmax(proba, axis=1)], pred)
        assert np.all(proba.max(axis=1) > 0.5)  # a strict majority: no tie left for argmax to break
    else:
        np.testing.assert_array_equal(est.classes_[(proba[:, 1] > est.threshold_).astype(int)], pred)


def _tie_data():
    """20 samples, 10 of each class, and a feature that splits them into two blocks of 5 + 5: every model has the
    same 10 errors, so the optimum is the one-rule / one-leaf model whose training counts tie 10 / 10 (BinOCT's
    depth-1 tree: two leaves tied 5 / 5); the solvers label a tie classes_[1]."""
    X = np.array([[0], [1]] * 10)
    y = np.array([0, 0, 1, 1] * 5)
    return X, y


@pytest.mark.parametrize("name", ARGMAX)
def test_ties_go_to_the_predicted_label(name):
    X, y = _tie_data()
    est = {"corels": lambda: CorelsClassifier(regularization=0.01, max_card=1),
           "osdt": lambda: OSDTClassifier(regularization=0.01),
           "binoct": lambda: BinOCTClassifier(max_depth=1)}[name]().fit(X, np.where(y == 1, "b", "a"))
    proba = est.predict_proba(X)
    assert list(est.predict(X)) == ["b"] * 20  # the tie rule: classes_[1]
    # (c_k + 1 + [k == label]) / (n + K + 1): 11/23 vs 12/23 for the 10/10 tie, 6/13 vs 7/13 for 5/5
    expect = [6 / 13, 7 / 13] if name == "binoct" else [11 / 23, 12 / 23]
    np.testing.assert_allclose(proba, np.tile(expect, (20, 1)))
    np.testing.assert_array_equal(est.classes_[np.argmax(proba, axis=1)], est.predict(X))
    assert np.all(est.decision_function(X) > 0)


def test_smoothing_formula_and_its_limits():
    p = smoothed_probabilities([[3, 0], [0, 0], [5, 5]], [0, 1, 1])
    np.testing.assert_allclose(p, [[5 / 6, 1 / 6], [1 / 3, 2 / 3], [6 / 13, 7 / 13]])
    p3 = smoothed_probabilities([[2, 1, 1], [0, 4, 4]], [0, 2])
    np.testing.assert_allclose(p3, [[4 / 8, 2 / 8, 2 / 8], [1 / 12, 5 / 12, 6 / 12]])
    big = smoothed_probabilities([[7000, 3000]], [0])
    np.testing.assert_allclose(big, [[0.7, 0.3]], atol=2e-4)  # tends to the frequencies
    np.testing.assert_allclose(smoothed_probabilities([[1.5, 0.25]], [0]).sum(), 1.0)  # real weights
    with pytest.raises(ValueError, match="labels"):
        smoothed_probabilities([[1, 2]], [2])
    with pytest.raises(ValueError, match="non-negative"):
        smoothed_probabilities([[-1, 2]], [1])


def test_probabilities_are_the_training_frequencies_of_the_capturing_rule():
    X, y = _data(seed=3)
    est = CorelsClassifier(regularization=0.02, max_card=1).fit(X, y)
    A = est.antecedents_.transform(X)
    idx = est.rule_list_.capture_antecedents(A)
    proba = est.predict_proba(X)
    labels = [r.prediction for r in est.rule_list_.rules] + [est.rule_list_.default_prediction]
    for k in np.unique(idx):
        yk = y[idx == k]
        c = np.array([(yk == 0).sum(), (yk == 1).sum()], dtype=float)
        c[labels[k]] += 1
        np.testing.assert_allclose(proba[idx == k], np.tile((c + 1) / (c.sum() + 2), ((idx == k).sum(), 1)))


def test_tree_leaf_frequencies():
    X, y = _data(seed=4)
    est = OSDTClassifier(regularization=0.02).fit(X, y)
    idx = est.tree_.leaf_index(X)
    for k in range(est.tree_.n_leaves):
        yk = y[idx == k]
        assert est.tree_.class_counts[k] == [int((yk == 0).sum()), int((yk == 1).sum())]


@pytest.mark.parametrize("name", ["corels", "osdt"])
def test_counts_survive_json(name):
    X, y = _data(seed=5)
    est = ESTIMATORS[name]().fit(X, y)
    model = est.rule_list_ if name == "corels" else est.tree_
    back = export.from_json(export.to_json(model))
    if name == "corels":
        A = est.antecedents_.transform(X)
        np.testing.assert_array_equal(back.predict_proba_antecedents(A), model.predict_proba_antecedents(A))
        assert back.default_class_counts == model.default_class_counts
    else:
        np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
        assert dict(zip(back.leaves, back.class_counts)) == dict(zip(model.leaves, model.class_counts))


def test_models_without_stored_counts_derive_them():
    """A JSON written before counts were stored (or a hand-made model) still gives the same probabilities."""
    X, y = _data(seed=6)
    est = CorelsClassifier(regularization=0.02).fit(X, y)
    d = export.to_dict(est.rule_list_)
    d.pop("default_class_counts")
    for r in d["rules"]:
        r.pop("class_counts")
    old = export.from_dict(d)
    A = est.antecedents_.transform(X)
    np.testing.assert_array_equal(old.predict_proba_antecedents(A), est.rule_list_.predict_proba_antecedents(A))
    t = OSDTClassifier(regularization=0.03).fit(X, y).tree_
    dt = export.to_dict(t)

    def strip(node):
        node.pop("class_counts", None)
        for branch in ("true", "false"):
            if branch in node:
                strip(node[branch])

    strip(dt)
    np.testing.assert_array_equal(export.from_dict(dt).predict_proba(X), t.predict_proba(X))


def test_predict_proba_needs_fit_and_the_right_width():
    from sklearn.exceptions import NotFittedError

    X, y = _data()
    for make in ESTIMATORS.values():
        with pytest.raises(NotFittedError):
            make().predict_proba(X)
    est = ESTIMATORS["osdt"]().fit(X, y)
    with pytest.raises(ValueError):
        est.predict_proba(X[:, :3])


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_grid_search_roc_auc(name):
    X, y = _data(n=90, seed=7)
    grid = {"corels": {"regularization": [0.01, 0.05]}, "osdt": {"regularization": [0.02, 0.1]},
            "binoct": {"max_depth": [1, 2]}, "frl": {"regularization": [1e-6, 0.05]},
            "softfrl": {"regularization": [1e-6, 0.05]}}[name]
    gs = GridSearchCV(ESTIMATORS[name](), grid, scoring="roc_auc", cv=3, error_score="raise").fit(X, y)
    assert np.all(np.isfinite(gs.cv_results_["mean_test_score"]))
    assert 0.5 < gs.best_score_ <= 1.0


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_calibrated_classifier(name, method):
    X, y = _data(n=90, seed=8)
    Xdf = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cal = CalibratedClassifierCV(ESTIMATORS[name](), method=method, cv=3).fit(Xdf, y)
    p = cal.predict_proba(Xdf)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.mean(cal.predict(Xdf) == y) > 0.6
