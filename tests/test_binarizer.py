"""Binarizer: threshold guessing from a gradient-boosted ensemble (strategy="gbdt") and unique output names."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline

from optbb import Binarizer
from optbb.corels import CorelsClassifier
from optbb.osdt import OSDTClassifier


def _frame(n=600, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(18, 70, n), "priors": rng.poisson(2, n),
                       "sex": rng.choice(["Male", "Female"], n), "score": rng.normal(size=n),
                       "juvenile": rng.integers(0, 2, n)})
    y = (((df.age < 26) & (df.priors >= 2)) | (df.priors >= 6) | (df.score > 1.2)).astype(int).to_numpy()
    return df, y


def _ensemble_thresholds_by_hand(df, y, n_estimators, max_depth):
    """The twin: fit the same ensemble on the same design matrix, read every numeric split."""
    cats = sorted(df.sex.unique())
    X = np.column_stack([df.age, df.priors] + [(df.sex == c).astype(float) for c in cats]
                        + [df.score, df.juvenile]).astype(float)
    gb = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=max_depth, random_state=0).fit(X, y)
    cols = {0: "age", 1: "priors", 4: "score"}
    out: dict[str, set] = {}
    for tree in gb.estimators_.ravel():
        t = tree.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            if t.feature[node] in cols:
                out.setdefault(cols[t.feature[node]], set()).add(float(t.threshold[node]))
    return {c: sorted(v) for c, v in out.items()}


@pytest.mark.parametrize("n_estimators,max_depth", [(10, 1), (20, 2)])
def test_gbdt_thresholds_are_the_ensembles_splits(n_estimators, max_depth):
    df, y = _frame()
    b = Binarizer(strategy="gbdt", n_estimators=n_estimators, max_depth=max_depth).fit(df, y)
    expect = _ensemble_thresholds_by_hand(df, y, n_estimators, max_depth)
    assert {c: list(t) for c, t in b.thresholds_.items()} == expect
    Z = b.transform(df)
    names = list(b.get_feature_names_out())
    for (col, kind, t), k in zip(b.specs_, range(Z.shape[1])):
        if kind == "le":
            np.testing.assert_array_equal(Z[:, k], (df[col].to_numpy() <= t).astype(np.uint8))
            assert names[k].startswith(f"{col}<=")
    assert "sex=Male" in names and "juvenile" in names  # categories and 0/1 columns as before


def test_gbdt_names_are_readable():
    df, y = _frame()
    names = list(Binarizer(strategy="gbdt", n_estimators=40).fit(df, y).get_feature_names_out())
    assert "age<=25.5" in names  # the planted cut age < 26, as the ensemble places it (midpoint of 25 and 26)
    assert "priors<=5.5" in names and "priors<=1.5" in names


def test_gbdt_finds_fewer_features_than_quantiles_for_the_same_fit():
    df, y = _frame()
    q = Binarizer(n_thresholds=9).fit(df, y)
    g = Binarizer(strategy="gbdt", max_thresholds=4).fit(df, y)
    assert len(g.get_feature_names_out()) < len(q.get_feature_names_out())
    assert sum(len(t) for t in g.thresholds_.values()) == 4


def test_max_thresholds_keeps_the_most_important():
    df, y = _frame()
    full = Binarizer(strategy="gbdt", n_estimators=40).fit(df, y)
    n_all = sum(len(t) for t in full.thresholds_.values())
    assert n_all > 3
    previous = None
    for k in range(1, n_all + 1):
        b = Binarizer(strategy="gbdt", n_estimators=40, max_thresholds=k).fit(df, y)
        kept = {(c, t) for c, ts in b.thresholds_.items() for t in ts}
        assert len(kept) == k
        assert kept <= {(c, t) for c, ts in full.thresholds_.items() for t in ts}
        if previous is not None:
            assert previous <= kept  # nested: one importance ranking
        previous = kept
    # the single most important split of this target is one of the planted cuts
    top = Binarizer(strategy="gbdt", n_estimators=40, max_thresholds=1).fit(df, y).thresholds_
    ((col, ts),) = top.items()
    assert (col == "score" and abs(ts[0] - 1.2) < 0.05) or (col, ts[0]) in {("age", 25.5), ("priors", 1.5),
                                                                              ("priors", 5.5)}


def test_gbdt_intervals_partition_each_column():
    df, y = _frame()
    b = Binarizer(strategy="gbdt", intervals=True).fit(df, y)
    Z = b.transform(df)
    for col in b.thresholds_:
        cols = [k for k, s in enumerate(b.specs_) if s[0] == col]
        np.testing.assert_array_equal(Z[:, cols].sum(axis=1), 1)
    names = list(b.get_feature_names_out())
    assert "age<=25" in names and "age>=26" in names  # integer column: (25.5, ...] prints as whole years


def test_gbdt_fit_is_deterministic_and_pipelines():
    df, y = _frame()
    a = Binarizer(strategy="gbdt").fit(df, y)
    b = Binarizer(strategy="gbdt").fit(df, y)
    assert list(a.get_feature_names_out()) == list(b.get_feature_names_out())
    pipe = make_pipeline(Binarizer(strategy="gbdt", max_thresholds=4), OSDTClassifier(regularization=0.02))
    pipe.set_output(transform="pandas").fit(df, y)
    assert np.mean(pipe.predict(df) == y) > 0.8
    assert "<=" in str(pipe[-1])


@pytest.mark.parametrize("kwargs,match", [
    ({"strategy": "tree"}, "strategy"), ({"strategy": "gbdt", "n_estimators": 0}, "n_estimators"),
    ({"strategy": "gbdt", "max_depth": 1.5}, "max_depth"), ({"strategy": "gbdt", "max_thresholds": 0},
                                                            "max_thresholds"),
    ({"strategy": "gbdt", "max_thresholds": True}, "max_thresholds"), ({"n_thresholds": 0}, "n_thresholds"),
])
def test_bad_parameters_name_themselves(kwargs, match):
    df, y = _frame(n=50)
    with pytest.raises(ValueError, match=match):
        Binarizer(**kwargs).fit(df, y)


def test_gbdt_needs_labels():
    df, y = _frame(n=50)
    with pytest.raises(ValueError, match="needs the labels"):
        Binarizer(strategy="gbdt").fit(df)
    with pytest.raises(ValueError, match="one label per row"):
        Binarizer(strategy="gbdt").fit(df, y[:10])
    with pytest.raises(ValueError, match="two classes"):
        Binarizer(strategy="gbdt").fit(df, np.zeros(50))


# ---------------------------------------------------------------------------------------------------------------
# unique output names (a numeric column "a" with threshold 3 and a 0/1 column "a<3" used to give "a<3" twice)


def test_clashing_names_are_made_unique_deterministically():
    df = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6, 7, 8], "a<3": [0, 1, 0, 1, 1, 0, 1, 0]})
    b = Binarizer(thresholds={"a": [3]}).fit(df)
    assert list(b.get_feature_names_out()) == ["a<3_2", "a<3"]  # the user's 0/1 column keeps its name
    assert list(Binarizer(thresholds={"a": [3]}).fit(df[["a<3", "a"]]).get_feature_names_out()) == ["a<3",
                                                                                                      "a<3_2"]


def test_suffixes_skip_names_already_taken():
    df = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6], "a<3": [0, 1, 0, 1, 1, 0], "a<3_2": [1, 1, 0, 0, 1, 0]})
    names = list(Binarizer(thresholds={"a": [3]}).fit(df).get_feature_names_out())
    assert names == ["a<3_3", "a<3", "a<3_2"]
    assert len(set(names)) == len(names)


def test_categories_clashing_with_columns():
    df = pd.DataFrame({"c": ["x", "y", "x", "y"], "c=x": [1, 0, 0, 1]})
    names = list(Binarizer().fit(df).get_feature_names_out())
    assert names == ["c=x_2", "c=y", "c=x"]


def test_unique_names_make_pandas_pipelines_work():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.integers(0, 10, 200), "a<3": rng.integers(0, 2, 200)})
    y = ((df["a"] < 3) ^ (df["a<3"] == 1)).astype(int)
    pipe = make_pipeline(Binarizer(thresholds={"a": [3]}), CorelsClassifier(regularization=0.01, max_card=2))
    pipe.set_output(transform="pandas").fit(df, y)
    assert list(pipe[-1].feature_names_in_) == ["a<3_2", "a<3"]
    assert np.mean(pipe.predict(df) == y) == 1.0


def test_close_thresholds_print_differently():
    df = pd.DataFrame({"v": np.arange(12340.0, 12350.0)})
    b = Binarizer(thresholds={"v": [12345.25, 12345.75]}).fit(df)
    names = list(b.get_feature_names_out())
    assert names == ["v<12345.2", "v<12345.8"]  # four digits would print both as v<1.235e+04
    # a printed threshold splits the training values as the real one: 12,345 is below 12,345.25
    b = Binarizer(thresholds={"v": [12345.25]}).fit(df)
    assert list(b.get_feature_names_out()) == ["v<12345.2"]
    df2 = pd.DataFrame({"v": [1.0, 2.0, 12345.0, 12345.2, 12346.0]})
    assert list(Binarizer(thresholds={"v": [12345.25]}).fit(df2).get_feature_names_out()) == ["v<12345.25"]
    b = Binarizer(thresholds={"v": [0.1, np.nextafter(0.1, 1)]}).fit(pd.DataFrame({"v": [0.0, 1.0]}))
    assert list(b.get_feature_names_out()) == ["v<0.10000000000000001", "v<0.10000000000000002"]  # all 17 digits


def test_quantile_names_unchanged():
    df = pd.DataFrame({"age": [18, 20, 25, 30, 35, 40, 50, 60], "sex": list("MFMFMFMF"), "j": [0, 1] * 4})
    assert list(Binarizer().fit(df).get_feature_names_out()) == ["age<25", "age<35", "age<50", "sex=F", "sex=M",
                                                                  "j"]
    assert list(Binarizer(intervals=True, thresholds={"age": [25, 40]}).fit(df[["age"]])
                .get_feature_names_out()) == ["age<25", "age=25-39", "age>=40"]
    real = pd.DataFrame({"v": [0.5, 1.5, 2.5, 3.5]})
    assert list(Binarizer(intervals=True, thresholds={"v": [1, 2.5]}).fit(real).get_feature_names_out()) == [
        "v<1", "1<=v<2.5", "v>=2.5"]


def test_duplicate_input_columns_are_refused():
    with pytest.raises(ValueError, match="unique column names"):  # scikit-learn's own check
        Binarizer().fit(pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"]))


# ---------------------------------------------------------------------------------------------------------------
# column settings and bad input


@pytest.mark.parametrize("categorical", [["grade", "sex"], ("grade", "sex"), {"sex", "grade"},
                                         np.array(["grade", "sex"])])
def test_categorical_columns_by_name(categorical):
    df = pd.DataFrame({"age": [20, 30, 40, 50], "grade": [1, 2, 1, 3], "sex": list("MFMF")})
    assert list(Binarizer(categorical=categorical).fit(df).get_feature_names_out()) == [
        "age<30", "age<40", "age<50", "grade=1", "grade=2", "grade=3", "sex=F", "sex=M"]


@pytest.mark.parametrize("categorical", [[1, 2], (1, 2), {2, 1}, np.array([1, 2])])
def test_categorical_columns_of_an_array_by_index(categorical):
    X = np.array([[20, 1, "M"], [30, 2, "F"], [40, 1, "M"], [50, 3, "F"]], dtype=object)
    assert list(Binarizer(categorical=categorical).fit(X).get_feature_names_out()) == [
        "x0<30", "x0<40", "x0<50", "x1=1", "x1=2", "x1=3", "x2=F", "x2=M"]


@pytest.mark.parametrize("kwargs,match", [
    ({"categorical": "sex"}, "categorical must be 'auto' or a list of columns, got 'sex'"),
    ({"thresholds": [26]}, r"thresholds must be a dict \{column: \[values\]\} or None"),
    ({"thresholds": {"age": [26, np.nan]}}, "thresholds for column 'age' must be finite numbers"),
    ({"max_categories": 1}, r"column 'sex' has 2 categories \(more than max_categories=1\)"),
    ({"categorical": ["sex", "race"]}, r"categorical names columns that X does not have: \['race'\]"),
    ({"categorical": [7]}, r"categorical names columns that X does not have: \[7\]"),
    ({"thresholds": {"agee": [26]}}, r"thresholds names columns that X does not have: \['agee'\]"),
    ({"categorical": []}, "column 'sex' is not numeric .*; mark it categorical when fitting"),
])
def test_bad_column_settings_are_value_errors(kwargs, match):
    df, _ = _frame(n=50)
    with pytest.raises(ValueError, match=match):
        Binarizer(**kwargs).fit(df)


def test_bad_rows_are_value_errors():
    df, _ = _frame(n=50)
    with pytest.raises(ValueError, match="column 'sex' has missing values"):
        Binarizer().fit(df.assign(sex=df.sex.where(df.age > 30)))
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 5\)\)"):
        Binarizer().fit(df.iloc[:0])
    b = Binarizer().fit(df)
    with pytest.raises(ValueError, match="column 'juvenile' was 0/1 during fit but now has other values"):
        b.transform(df.assign(juvenile=2))
