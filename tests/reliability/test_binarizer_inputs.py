"""Binarizer inputs that gave wrong features without a word (issue 28): datetimes and timedeltas read as raw numbers
in their own unit, complex numbers cut to their real part, categories compared as text, unknown categories encoded
as zeros, and integer or boolean keys of thresholds / categorical taken as positions of a DataFrame's columns."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from optbb import Binarizer

DATES = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02 17:33:04", "2020-01-05", "2020-02-01"],
                                 format="ISO8601"))


# ---------------------------------------------------------------------------------------------------------------
# datetimes, timedeltas, complex numbers


@pytest.mark.parametrize("fit_unit", ["us", "ns", "s"])
@pytest.mark.parametrize("transform_unit", ["us", "ns"])
def test_datetimes_are_read_alike_in_any_unit_with_readable_names(fit_unit, transform_unit):
    b = Binarizer(n_thresholds=1).fit(pd.DataFrame({"d": DATES.dt.as_unit(fit_unit)}))
    assert list(b.get_feature_names_out()) == ["d<2020-01-05"]
    Z = b.transform(pd.DataFrame({"d": DATES.dt.as_unit(transform_unit)}))
    assert Z.ravel().tolist() == [1, 1, 0, 0]
    assert b.thresholds_["d"].dtype == np.dtype("datetime64[ns]")


def test_datetime_quantile_thresholds_are_round_times_splitting_the_training_rows_alike():
    b = Binarizer(n_thresholds=2).fit(pd.DataFrame({"d": DATES}))
    names = list(b.get_feature_names_out())
    assert names == ["d<2020-01-02", "d<2020-01-05"]  # not 2020-01-02 17:33:04 nor epoch numbers
    assert b.transform(pd.DataFrame({"d": DATES})).tolist() == [[1, 1], [0, 1], [0, 0], [0, 0]]


def test_datetime_arrays_and_datetime_objects():
    a = DATES.to_numpy().astype("datetime64[us]").reshape(-1, 1)
    b = Binarizer(n_thresholds=1).fit(a)
    assert list(b.get_feature_names_out()) == ["x0<2020-01-05"]
    assert b.transform(a.astype("datetime64[ns]")).ravel().tolist() == [1, 1, 0, 0]
    objects = pd.DataFrame({"d": pd.Series([dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 9),
                                            dt.datetime(2020, 3, 1)], dtype=object)})
    assert list(Binarizer(n_thresholds=1).fit(objects).get_feature_names_out()) == ["d<2020-01-09"]


def test_timezone_aware_datetimes_compare_the_same_instants_in_any_timezone():
    paris = pd.DataFrame({"d": DATES.dt.tz_localize("Europe/Paris")})
    b = Binarizer(n_thresholds=2).fit(paris)
    assert all(n.endswith(" UTC") for n in b.get_feature_names_out())
    same_instants = pd.DataFrame({"d": paris.d.dt.tz_convert("America/New_York").dt.as_unit("us")})
    np.testing.assert_array_equal(b.transform(same_instants), b.transform(paris))
    with pytest.raises(ValueError, match="column 'd' held timezone-aware datetimes during fit but holds "
                                         "timezone-naive datetimes"):
        b.transform(pd.DataFrame({"d": DATES}))


def test_timedeltas_have_readable_names_in_any_unit():
    wait = pd.to_timedelta(["1 days", "2 days 3h", "3 days 4h", "5 days"])
    b = Binarizer(n_thresholds=2).fit(pd.DataFrame({"wait": wait}))
    assert list(b.get_feature_names_out()) == ["wait<2 days", "wait<3 days"]
    Z = b.transform(pd.DataFrame({"wait": pd.Series(wait).dt.as_unit("s")}))
    assert Z.tolist() == [[1, 1], [0, 1], [0, 0], [0, 0]]
    b = Binarizer(thresholds={"wait": ["3 days 04:00:00"]}).fit(pd.DataFrame({"wait": wait}))
    assert list(b.get_feature_names_out()) == ["wait<3 days 04:00:00"]
    assert b.transform(pd.DataFrame({"wait": wait})).ravel().tolist() == [1, 1, 0, 0]


def test_time_thresholds_given_by_the_user_and_gbdt():
    df = pd.DataFrame({"d": DATES})
    b = Binarizer(thresholds={"d": ["2020-01-03"]}, intervals=True).fit(df)
    assert list(b.get_feature_names_out()) == ["d<2020-01-03", "d>=2020-01-03"]
    assert b.transform(df).tolist() == [[1, 0], [1, 0], [0, 1], [0, 1]]
    with pytest.raises(ValueError, match="thresholds for column 'd' must be dates such as '2020-01-03', got the "
                                         "number 3"):
        Binarizer(thresholds={"d": [3]}).fit(df)
    g = Binarizer(strategy="gbdt").fit(df, [0, 0, 1, 1])
    assert list(g.get_feature_names_out()) == ["d<=2020-01-04"]  # a round time between the 2nd and 3rd dates
    assert g.transform(df).ravel().tolist() == [1, 1, 0, 0]


def test_complex_numbers_are_refused():
    with pytest.raises(ValueError, match="column 'z' holds complex numbers"):
        Binarizer().fit(pd.DataFrame({"z": [1 + 2j, 3 + 0j, 1j]}))
    b = Binarizer(n_thresholds=1).fit(pd.DataFrame({"z": [1.0, 2.0, 3.0]}))
    with pytest.raises(ValueError, match="column 'z' holds complex numbers"):
        b.transform(pd.DataFrame({"z": [1 + 2j, 3 + 0j, 1j]}))


# ---------------------------------------------------------------------------------------------------------------
# categories by value, unknown categories, missing values


def test_categories_are_compared_by_value():
    b = Binarizer(categorical=["c"]).fit(pd.DataFrame({"c": [1, 2, 3, 1]}))
    assert list(b.get_feature_names_out()) == ["c=1", "c=2", "c=3"]
    assert b.transform(pd.DataFrame({"c": [1.0, 2.0]})).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert b.categories_ == {"c": [1, 2, 3]}
    floats = Binarizer(categorical=["c"]).fit(pd.DataFrame({"c": [1.0, 2.5, 1.0]}))
    assert list(floats.get_feature_names_out()) == ["c=1", "c=2.5"]
    assert floats.transform(pd.DataFrame({"c": np.array([1, 1])})).tolist() == [[1, 0], [1, 0]]


def test_unknown_categories_follow_handle_unknown():
    df = pd.DataFrame({"c": [1, 2, 3, 1], "s": list("abab")})
    b = Binarizer(categorical=["c", "s"]).fit(df)
    with pytest.raises(ValueError, match=r"unknown categories \['5'\] in column 'c'"):
        b.transform(pd.DataFrame({"c": [1.0, 5.0], "s": ["a", "b"]}))
    with pytest.raises(ValueError, match=r"unknown categories \['z'\] in column 's'"):
        b.transform(pd.DataFrame({"c": [1, 2], "s": ["a", "z"]}))
    ignore = Binarizer(categorical=["c", "s"], handle_unknown="ignore").fit(df)
    Z = ignore.transform(pd.DataFrame({"c": [1.0, 5.0], "s": ["z", "b"]}))
    assert Z.tolist() == [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    with pytest.raises(ValueError, match="handle_unknown"):
        Binarizer(handle_unknown="zeros").fit(df)


def test_missing_categories_are_refused_in_fit_and_transform():
    df = pd.DataFrame({"s": list("abab")})
    with pytest.raises(ValueError, match="column 's' has missing values"):
        Binarizer().fit(pd.DataFrame({"s": ["a", None, "b"]}))
    b = Binarizer(handle_unknown="ignore").fit(df)
    with pytest.raises(ValueError, match="column 's' has missing values"):
        b.transform(pd.DataFrame({"s": ["a", None]}))


# ---------------------------------------------------------------------------------------------------------------
# naming columns: labels for DataFrames, positions for arrays, never booleans


def test_integer_keys_are_labels_of_a_dataframe():
    df = pd.DataFrame({1: [10, 20, 30, 40], 0: [1, 2, 3, 4]})
    b = Binarizer(thresholds={0: [3]}, n_thresholds=1).fit(df)
    assert b.get_feature_names_out()[-1] == "0<3"
    assert b.transform(df)[:, -1].tolist() == [1, 1, 0, 0]
    wide = pd.DataFrame({10: [1, 2, 3, 4], 20: [5, 6, 7, 8]})
    assert list(Binarizer(thresholds={10: [2]}, n_thresholds=1).fit(wide).get_feature_names_out())[0] == "10<2"
    assert "1=10" in Binarizer(categorical=[1]).fit(df).get_feature_names_out()


def test_keys_do_not_match_labels_of_another_type():
    df = pd.DataFrame({"1": [1, 2, 3, 4], "0": [5, 6, 7, 8]})
    with pytest.raises(ValueError, match=r"thresholds names columns that X does not have: \[0\] \(X is a DataFrame"):
        Binarizer(thresholds={0: [3]}).fit(df)
    assert list(Binarizer(thresholds={"0": [6]}, n_thresholds=1).fit(df).get_feature_names_out())[-1] == "0<6"
    with pytest.raises(ValueError, match=r"categorical names columns that X does not have: \['0'\]"):
        Binarizer(categorical=["0"]).fit(pd.DataFrame({0: ["a", "b"], 1: [1, 2]}))


@pytest.mark.parametrize("param", ["categorical", "thresholds"])
def test_booleans_name_no_column(param):
    df = pd.DataFrame({"a": [1, 2, 3], "b": list("xyz")})
    kwargs = {"categorical": [True]} if param == "categorical" else {"thresholds": {True: [2]}}
    with pytest.raises(TypeError, match=f"{param} names column True: a boolean is neither"):
        Binarizer(**kwargs).fit(df)
    with pytest.raises(TypeError, match=f"{param} names column True"):
        Binarizer(**kwargs).fit(df.to_numpy())


def test_arrays_name_columns_by_position_only():
    X = np.array([[1, 5], [2, 6], [3, 7], [4, 8]])
    assert list(Binarizer(categorical=[1]).fit(X).get_feature_names_out())[-1] == "x1=8"
    with pytest.raises(ValueError, match=r"names columns that X does not have: \['x1'\] \(X is an array"):
        Binarizer(categorical=["x1"]).fit(X)
    with pytest.raises(ValueError, match=r"names columns that X does not have: \[2\]"):
        Binarizer(thresholds={2: [1]}).fit(X)
