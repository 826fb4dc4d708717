"""Binarizer messages and readable thresholds (issue 28, items 11 and 12): bad parameters named, thresholds the
Binarizer would ignore refused, "every column is constant" said only when true, the ensemble of strategy="gbdt" on
values float32 cannot hold, and quantile thresholds printed as short decimals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optbb import Binarizer


@pytest.mark.parametrize("value", ["x", 0, 2.5, True])
def test_max_categories_is_checked_as_a_parameter(value):
    with pytest.raises(ValueError, match="The 'max_categories' parameter of Binarizer must be an int"):
        Binarizer(max_categories=value).fit(pd.DataFrame({"s": list("ab")}))


def test_random_state_is_checked_as_a_parameter():
    with pytest.raises(ValueError, match="The 'random_state' parameter of Binarizer"):
        Binarizer(random_state="seed").fit(pd.DataFrame({"v": [1, 2]}))


def test_an_empty_thresholds_list_is_refused_by_name():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0], "w": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="thresholds for column 'v' is empty"):
        Binarizer(thresholds={"v": []}).fit(df)


def test_thresholds_for_a_categorical_column_are_refused():
    df = pd.DataFrame({"v": [1, 2, 3], "s": list("abc")})
    with pytest.raises(ValueError, match="thresholds names column 's', which is categorical"):
        Binarizer(thresholds={"s": [1]}).fit(df)
    with pytest.raises(ValueError, match="thresholds names column 'v', which is categorical"):
        Binarizer(thresholds={"v": [2]}, categorical=["v"]).fit(df)


@pytest.mark.parametrize("x", [1 + np.arange(6) * 1e-12, 1e300 * (1 + np.arange(6) / 8), -1e-300 * np.arange(6)])
def test_gbdt_splits_values_float32_cannot_hold(x):
    y = np.array([0, 0, 0, 1, 1, 1])
    b = Binarizer(strategy="gbdt").fit(pd.DataFrame({"v": x}), y)
    assert len(b.thresholds_["v"]) >= 1
    Z = b.transform(pd.DataFrame({"v": x}))
    assert np.any(np.all(Z == (y == (0 if x[0] < x[-1] else 1))[:, None], axis=0))  # the planted cut is found
    q = Binarizer(n_thresholds=1).fit(pd.DataFrame({"v": x}))
    assert len(q.thresholds_["v"]) == 1


def test_no_feature_message_says_why():
    with pytest.raises(ValueError, match="every column is constant"):
        Binarizer().fit(pd.DataFrame({"v": [2.0, 2.0, 2.0]}))
    with pytest.raises(ValueError, match="every column is constant"):
        Binarizer(strategy="gbdt").fit(pd.DataFrame({"v": [2.0, 2.0, 2.0]}), [0, 1, 1])


def test_quantile_thresholds_are_short_decimals_splitting_the_training_rows_alike():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=500), "b": rng.normal(size=500) * 1e-6 + 1000})
    b = Binarizer(n_thresholds=5).fit(df)
    def digits(text):
        return len(text.lstrip("-").replace(".", "").lstrip("0"))

    for col in df:
        exact = np.unique(np.quantile(df[col], np.arange(1, 6) / 6, method="higher"))
        names = [n for n in b.get_feature_names_out() if n.startswith(col)]
        assert all(digits(n.split("<")[1]) < digits(repr(t)) for n, t in zip(names, exact)), (names, exact)
        assert col == "b" or all(digits(n.split("<")[1]) <= 4 for n in names), names
        Z = b.transform(df)[:, [k for k, s in enumerate(b.specs_) if s[0] == col]]
        np.testing.assert_array_equal(Z, (df[col].to_numpy()[:, None] < exact[None, :]).astype(np.uint8))
    assert Binarizer(n_thresholds=1).fit(pd.DataFrame({"a": [-0.45772582566733916, -0.2, 0.3]}))\
        .get_feature_names_out()[0] == "a<-0.3"
