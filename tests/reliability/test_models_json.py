"""Every model predicts on the raw features it was learned from and gives the labels it stores, in memory and after
a JSON round trip (issue 25, issue 28 items 10 and 12)."""
from __future__ import annotations

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

from optbb import export
from optbb.common.data import from_arrays
from optbb.corels import CorelsClassifier, RuleList
from optbb.corels import solve as corels_solve
from optbb.frl import FRLClassifier, SoftFRLClassifier
from optbb.osdt import OSDTClassifier

ESTIMATORS = {
    "corels": lambda: CorelsClassifier(regularization=0.01),
    "frl": lambda: FRLClassifier(n_iter=100, random_state=0, min_class_support=0.05),
    "softfrl": lambda: SoftFRLClassifier(n_iter=100, random_state=0, min_class_support=0.05),
    "osdt": lambda: OSDTClassifier(regularization=0.02),
}


def _data(labels=("no", "yes"), seed=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(150, 5)).astype(np.uint8)
    hit = (X[:, 0] & (1 - X[:, 1])) | X[:, 2]
    return X, np.where(hit == 1, labels[1], labels[0]).astype(object)


def _model(est):
    return getattr(est, "tree_", None) or est.rule_list_


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("labels", [("no", "yes"), (3, 7)])
def test_model_from_json_predicts_the_estimators_labels_on_raw_features(name, labels):
    """``RuleList.predict`` took the antecedent matrix (IndexError on raw X) and the rule lists gave class indices."""
    X, y = _data(labels)
    if labels == (3, 7):
        y = y.astype(np.int64)
    est = ESTIMATORS[name]().fit(X, y)
    back = export.from_json(export.to_json(_model(est)))
    expected = est.predict(X)
    assert set(np.unique(expected)) == set(labels)  # the lists are not trivial: both labels are predicted
    assert np.array_equal(back.predict(X), expected)
    assert np.array_equal(_model(est).predict(X), expected)
    assert np.allclose(back.predict_proba(X), est.predict_proba(X))


def test_rule_list_of_a_corels_format_table_predicts_on_that_table():
    """For antecedents given directly as columns, the antecedent matrix is the raw matrix the list predicts on."""
    A, y = _data()
    est = CorelsClassifier(regularization=0.01, max_card=1, negations=False).fit(A, y)
    back = export.from_json(export.to_json(est.rule_list_))
    assert np.array_equal(back.predict(A), est.predict(A))
    solved = corels_solve(from_arrays(A, (y == "yes").astype(np.uint8)), 0.01).model
    back = export.from_json(export.to_json(solved))
    assert np.array_equal(back.predict(A), solved.predict_antecedents(A))
    assert np.array_equal(back.capture(A), solved.capture_antecedents(A))
    assert np.array_equal(back.predict_proba(A), solved.predict_proba_antecedents(A))


def test_antecedent_forms_agree_with_the_raw_forms():
    X, y = _data()
    est = CorelsClassifier(regularization=0.01).fit(X, y)
    rl, A = est.rule_list_, est.antecedents_.transform(X)
    assert A.shape[1] != X.shape[1]
    assert np.array_equal(rl.capture_antecedents(A), rl.capture(X))
    assert np.array_equal(rl.predict_antecedents(A), rl.predict(X))
    assert np.array_equal(rl.predict_proba_antecedents(A), rl.predict_proba(X))
    with pytest.raises(ValueError, match="X must have 5 feature columns"):
        rl.predict(A)


def test_predict_features_is_a_deprecated_alias_of_predict():
    X, y = _data()
    rl = CorelsClassifier(regularization=0.01).fit(X, y).rule_list_
    with pytest.warns(FutureWarning, match="use RuleList.predict"):
        got = rl.predict_features(X)
    assert np.array_equal(got, rl.predict(X))


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_date_labels_are_written_as_text(name):
    """An OSDT tree fitted on ``datetime.date`` labels failed in ``to_json`` (not JSON serializable); every model now
    writes such labels as CORELS writes its label names, as their text."""
    days = (datetime.date(2020, 1, 1), datetime.date(2021, 6, 30))
    X, y = _data(days)
    est = ESTIMATORS[name]().fit(X, y.astype("datetime64[D]"))  # scikit-learn reads dates as datetime64 only
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = export.to_json(_model(est))
    back = export.from_json(s)
    assert export.to_json(back) == s
    assert np.array_equal(back.predict(X), [str(d) for d in est.predict(X)])


@pytest.mark.parametrize("bad", [["a"], ["a", "a"], ["a", {"b": 1}], "ab"])
def test_stored_classes_are_checked(bad):
    X, y = _data()
    for name in ("corels", "frl", "osdt"):
        d = export.to_dict(_model(ESTIMATORS[name]().fit(X, y)))
        d["classes"] = bad
        with pytest.raises(ValueError, match="classes"):
            export.from_dict(d)


def test_rule_list_dot_edges_cannot_be_read_as_a_class_name():
    """Edges labelled "yes" / "no" read as predictions when a class is named "yes"."""
    X, y = _data()
    for name in ("corels", "frl"):
        dot = export.to_dot(_model(ESTIMATORS[name]().fit(X, y)))
        assert 'label="yes"' not in dot and 'label="no"' not in dot
        assert 'label="if true"' in dot and 'label="else"' in dot


def test_rule_list_without_classes_still_predicts_class_indices():
    X, y = _data()
    A = pd.DataFrame(X).to_numpy()
    model = corels_solve(from_arrays(A, (y == "yes").astype(np.uint8)), 0.01).model
    assert model.classes is None and set(np.unique(model.predict(A))) == {0, 1}
    assert isinstance(RuleList.from_json(model.to_json()).predict(A)[0], np.integer)
