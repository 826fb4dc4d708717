"""class_weight naming a label that a training set lacks (a cross-validation fold without it) is accepted, as in
scikit-learn, when it weighs every label of y: that label's weight has no sample to weigh.  Other class_weight
checks stay, and so does scikit-learn's refusal of a dict that names an absent label and leaves a label of y
unweighted (a likely typo)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold, cross_val_score

from optbb.corels import CorelsClassifier
from optbb.frl import FRLClassifier
from optbb.osdt import OSDTClassifier

ESTIMATORS = [lambda: CorelsClassifier(regularization=0.05), lambda: OSDTClassifier(regularization=0.05),
              lambda: FRLClassifier()]
IDS = ["corels", "osdt", "frl"]


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 4))
    y = np.where(X[:, 0] == 1, 1, 0)
    return X, y


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_class_weight_label_absent_from_y_is_ignored(make):
    X, y = _data()
    weighted = make().set_params(class_weight={0: 1.0, 1: 1.0, 7: 5.0}).fit(X, y)
    plain = make().fit(X, y)
    assert np.array_equal(weighted.predict(X), plain.predict(X))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_class_weight_in_cross_val_score_with_a_fold_missing_a_label(make):
    X, y = _data(30)
    y = y.copy()
    y[:5] = 2  # label 2 only in the first fold: the training set of the split that tests on it has no 2
    if isinstance(make(), (CorelsClassifier, OSDTClassifier)):
        est = make()
    else:  # FRL takes two classes: label 2 absent from every training set
        y[:5] = y[5:10]
        est = make()
    est.set_params(class_weight={0: 1.0, 1: 2.0, 2: 3.0})
    scores = cross_val_score(est, X, y, cv=KFold(3))
    assert scores.shape == (3,) and np.all(np.isfinite(scores))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("bad", ["heavy", [1, 2], {1: -1.0}, {7: 2.0}, {1: 2.0, 7: 2.0}])
def test_class_weight_other_checks_remain(make, bad):
    X, y = _data()
    with pytest.raises(ValueError, match="class_weight"):
        make().set_params(class_weight=bad).fit(X, y)
