"""OSDT on numeric columns: every cut of every column is a feature, so the certified tree is optimal over every
threshold; the model prints, exports and predicts on the raw columns.

Checked against a brute force written here (``tests/twins/brute_numeric.py``: depth <= 2, every threshold of the
rows reaching each node), against today's binary dp on a matrix of every cut built here, and against ``solve`` on
0/1 data (binary columns take exactly the former path)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from optbb import export
from optbb.common.data import BinaryDataset
from optbb.common.result import Status
from optbb.corels import CorelsClassifier
from optbb.osdt import OSDTClassifier, cut_dataset, solve
from optbb.osdt.numeric.engine import ABLATIONS as NUMERIC_BOUNDS
from optbb.osdt.numeric.engine import solve_cuts
from optbb.osdt.model import cut_threshold, threshold_text
from optbb.osdt.numeric.cuts import (CutDataset, all_cuts, column_values, count_cuts, is_binary_column,
                                     sorted_columns)
from twins.brute_numeric import optimal_objective, tree_objective

VALUES = (-2.5, -1.0, 0.0, 0.5, 1.0, 1.25, 3.0, 7.75, 100.0)  # few values: many ties
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def numeric_problems(draw, max_rows=14, max_columns=3, zero_weights=True):
    """``(X, y, w, lam, depth)``: 2-``max_rows`` rows of 1-``max_columns`` columns drawn from a few values (ties;
    now and then a 0/1 column), 2-4 classes, uniform, integer or real weights, lambda 0 to 0.2."""
    n = draw(st.integers(2, max_rows))
    m = draw(st.integers(1, max_columns))
    pool = draw(st.sampled_from([VALUES, (0.0, 1.0), VALUES[:4]]))
    X = draw(hnp.arrays(np.float64, (n, m), elements=st.sampled_from(pool)))
    k = draw(st.integers(2, 4))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    kind = draw(st.sampled_from(["none", "integer", "real"]))
    w = None
    if kind == "integer":
        w = draw(hnp.arrays(np.float64, n, elements=st.integers(0 if zero_weights else 1, 3)))
    elif kind == "real":
        w = draw(hnp.arrays(np.float64, n, elements=st.floats(0.1, 3.0)))
    lam = draw(st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.2]))
    depth = draw(st.integers(1, 2))
    positive = y if w is None else y[w > 0]
    assume(len(np.unique(positive)) >= 2)
    return X, y, w, lam, depth


@given(numeric_problems())
@settings(FAST, max_examples=300)
def test_depth_two_is_the_brute_force_over_every_threshold(problem):
    X, y, w, lam, depth = problem
    clf = OSDTClassifier(regularization=lam, max_depth=depth).fit(X, y, sample_weight=w)
    assert clf.result_.status.name == "OPTIMAL"
    expected = optimal_objective(X, y, lam, depth, w)
    assert clf.result_.objective == pytest.approx(expected, abs=1e-9)
    # the fitted tree, read on the raw rows, has that objective
    assert tree_objective(clf.predict(X), y, lam, clf.tree_.n_leaves, w) == pytest.approx(expected, abs=1e-9)
    assert clf.tree_.depth <= depth
    # the search over sorted orders itself (OSDTClassifier gives few cuts with lambda > 0 to the dp over cuts)
    res = sorted_orders(X, y, lam, depth, w)
    assert res.status.name == "OPTIMAL" and res.objective == pytest.approx(expected, abs=1e-9)
    assert tree_objective(res.model.predict(X), y, lam, res.model.n_leaves, w) == pytest.approx(expected, abs=1e-9)


def sorted_orders(X, y, lam, depth, w=None):
    """The search over sorted orders (optbb.osdt.numeric.engine), whatever the number of cuts."""
    return solve_columns(X, y, lam, max_depth=depth, sample_weight=w)


def solve_columns(X, y, lam, names=None, *, sample_weight=None, **options):
    """The search over sorted orders on raw columns ``X`` (class indices ``y``), whatever the number of cuts."""
    labels = [str(c) for c in range(max(2, int(np.max(y)) + 1))]
    return solve_cuts(cut_dataset(X, y, names, sample_weight, labels), lam, **options)


def every_cut(X: np.ndarray) -> np.ndarray:
    """The 0/1 matrix of every cut of every column, half-way between consecutive distinct values (built here, not
    with optbb's cuts)."""
    out = []
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        out += [X[:, j] <= (a + b) / 2 for a, b in zip(u[:-1], u[1:])]
    if not out:
        out = [np.ones(X.shape[0], dtype=bool)]
    return np.stack(out, axis=1).astype(np.uint8)


@given(numeric_problems(max_rows=20, zero_weights=False))
@settings(FAST, max_examples=60)
def test_depth_three_is_the_binary_dp_on_every_cut(problem):
    X, y, w, lam, _ = problem
    clf = OSDTClassifier(regularization=lam, max_depth=3).fit(X, y, sample_weight=w)
    B = every_cut(X)
    k = int(y.max()) + 1
    data = BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, tuple(str(c) for c in range(k)))
    reference = solve(data, lam, max_depth=3)
    assert clf.result_.status.name == reference.status.name == "OPTIMAL"
    assert clf.result_.objective == pytest.approx(reference.objective, abs=1e-9)
    assert tree_objective(clf.predict(X), y, lam, clf.tree_.n_leaves, w) == pytest.approx(reference.objective,
                                                                                          abs=1e-9)
    assert sorted_orders(X, y, lam, 3, w).objective == pytest.approx(reference.objective, abs=1e-9)


@given(st.floats(-1e12, 1e12), st.floats(-1e12, 1e12))
@settings(FAST, max_examples=200)
def test_a_cut_lies_between_its_two_values_and_prints_as_itself(a, b):
    assume(a != b)
    lo, hi = min(a, b), max(a, b)
    t = cut_threshold(lo, hi)
    assert lo <= t < hi
    assert lo < t or np.nextafter(lo, np.inf) == hi  # strictly between unless nothing is
    assert float(threshold_text(t)) == t



@given(numeric_problems(max_rows=10, max_columns=4))
@settings(FAST, max_examples=100)
def test_the_values_of_each_column_found_once_give_the_cuts(problem):
    """``column_values`` (what a numeric fit computes once and hands to the search) counts the cuts ``all_cuts``
    makes and reads 0/1 columns on every row, zero weights included."""
    X, _, w, _, _ = problem
    columns = column_values(X, w)
    keep = np.ones(len(X), bool) if w is None else w > 0
    for j in range(X.shape[1]):
        assert np.array_equal(columns.values[j], np.unique(X[keep, j]))
        assert columns.binary[j] == is_binary_column(X[:, j])
    n_cuts = count_cuts(X, columns=columns)
    assert count_cuts(X, w) == n_cuts
    _, cuts = all_cuts(X, [f"x{j}" for j in range(X.shape[1])], w)
    assert cuts.n_features == max(n_cuts, 1)  # with no cut at all, all_cuts keeps one above a column's values

COLUMN_KINDS = {  # how sorted_columns orders each: counted, radix-sorted, sorted as doubles
    "small integers": lambda rng, n: rng.integers(-3, 4, n).astype(float),
    "signed zeros": lambda rng, n: rng.choice([-0.0, 0.0, 1.0, 2.5], n),
    "integers of wide span": lambda rng, n: (rng.integers(0, 60000, n) * (rng.random(n) < 0.3)).astype(float),
    "integers of wider span": lambda rng, n: rng.integers(-10**6, 10**6, n).astype(float),
    "tied doubles": lambda rng, n: rng.normal(size=n).round(1),
    "doubles": lambda rng, n: rng.normal(size=n),
}


@pytest.mark.parametrize("n", [1, 2, 37, 600, 2500])
def test_each_column_is_ranked_and_ordered_as_a_stable_sort(n):
    """``sorted_columns`` (counting sorts, radix sorts and unstable sorts of doubles, ties then put by row) gives
    the distinct values, the ranks and the stable orders that ``np.unique`` and a stable argsort give."""
    rng = np.random.default_rng(n)
    X = np.column_stack([make(rng, n) for make in COLUMN_KINDS.values()])
    values, ranks, orders = sorted_columns(X)
    for j, kind in enumerate(COLUMN_KINDS):
        distinct, inverse = np.unique(X[:, j], return_inverse=True)
        assert np.array_equal(values[j], distinct), kind
        assert np.array_equal(ranks[j], inverse), kind
        assert np.array_equal(orders[j], np.argsort(X[:, j], kind="stable")), kind
        first = orders[j][np.r_[0, np.flatnonzero(np.diff(ranks[j][orders[j]])) + 1]]
        assert np.array_equal(np.signbit(values[j]), np.signbit(X[first, j])), kind  # -0.0 as its first row has it
    assert ranks.dtype == orders.dtype == np.int32


def test_thresholds_are_short_decimals():
    assert cut_threshold(1.9, 3.0) == 2.0 and threshold_text(2.0) == "2"
    assert cut_threshold(2.4, 2.5) == 2.45
    assert cut_threshold(4.95, 5.05) == 5.0
    assert cut_threshold(1.0, 2.0) == 1.5  # 2 itself is not below 2


# ---------------------------------------------------------------------------------------------------------------
# the model: text, DOT, LaTeX, JSON, predict on raw rows


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    X = d.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    X["flag"] = np.random.default_rng(0).integers(0, 2, len(X))  # a 0/1 column beside the numeric ones
    return X, d.target.map({0: "setosa", 1: "versicolor", 2: "virginica"})


def test_the_tree_prints_and_exports_thresholds_by_name(iris):
    X, y = iris
    clf = OSDTClassifier(regularization=0, max_depth=2).fit(X, y)
    assert clf.result_.objective * len(y) == pytest.approx(6)
    d = clf.tree_.to_dict()
    assert d["feature_names"] == list(X.columns) and d["column_kinds"][-1] == "binary"
    name, t = X.columns[d["feature"]], d["threshold"]
    # among the optimal trees (ties: setosa apart at 1.9-3 cm of petal length or 0.6-1 of width, or versicolor
    # apart at 4.4-4.5 of length), the root cuts between two consecutive values with the shortest decimal there
    values = np.unique(X[name])
    a = values[np.searchsorted(values, t, side="right") - 1]
    b = values[np.searchsorted(values, t, side="right")]
    assert a <= t < b and len(threshold_text(t)) <= len(threshold_text(a)) + 1
    t = threshold_text(t)
    assert d["name"] == f"{name}<={t}"
    text = clf.tree_.text()
    assert text.splitlines()[0] == f"if {name} <= {t}:" and f"else:  # {name} > {t}" in text
    assert f'label="{name} <= {t}"' in clf.tree_.to_dot()
    assert rf"\If {{$\text{{{name.replace('_', chr(92) + '_')}}} \le {t}$}}" in clf.tree_.to_latex()


@pytest.mark.parametrize("mixed", [False, True])
def test_json_round_trip_predicts_the_same_on_raw_x(iris, mixed):
    X, y = iris
    if mixed:  # the label depends on the 0/1 column too
        y = np.where(X["flag"] == 1, y, "virginica")
    clf = OSDTClassifier(regularization=0.001, max_depth=3).fit(X, y)
    assert (4 in clf.tree_.cuts.columns) == mixed and ("flag == 1" in clf.tree_.text()) == mixed
    text = clf.tree_.to_json()
    back = export.from_json(text)
    assert back == clf.tree_ and back.to_json() == text and back.text() == clf.tree_.text()
    raw = X.to_numpy()
    rng = np.random.default_rng(0)
    unseen = np.column_stack([rng.uniform(0, 8, (50, 4)), rng.integers(0, 2, 50)])
    for rows in (raw, unseen):
        frame = pd.DataFrame(rows, columns=X.columns)
        assert np.array_equal(back.predict(rows), clf.predict(frame))
        assert np.allclose(back.predict_proba(rows), clf.predict_proba(frame))
    if mixed:
        with pytest.raises(ValueError, match="not binary in column 'flag'"):
            back.predict(np.column_stack([raw[:, :4], np.full(len(raw), 2)]))


def test_json_of_a_numeric_tree_is_checked():
    tree = OSDTClassifier(regularization=0, max_depth=1).fit(np.array([[1.0], [2.0], [3.0]]), [0, 0, 1]).tree_
    d = tree.to_dict()
    assert d["threshold"] == 2.5 and tree.predict(np.array([[2.5], [2.6]])).tolist() == [0, 1]
    for key, value, match in (("threshold", None, "needs a finite threshold"),
                              ("threshold", "2.5", "needs a finite threshold"),
                              ("feature", 1, r"feature must lie in \[0, 0\]")):
        with pytest.raises(ValueError, match=match):
            export.from_dict({**d, key: value})
    with pytest.raises(ValueError, match="column_kinds"):
        export.from_dict({**d, "column_kinds": ["text"]})


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_predict_checks_the_columns_as_before(iris):
    X, y = iris
    clf = OSDTClassifier(regularization=0.01, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="5 features"):
        clf.predict(X.iloc[:, :4].to_numpy())
    with pytest.raises(ValueError, match="feature names should match"):
        clf.predict(X.rename(columns={"petal_length": "pl"}))
    bad = X.copy()
    bad.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN in column 'petal_length'"):
        clf.predict(bad)
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


# ---------------------------------------------------------------------------------------------------------------
# input errors name the column


@pytest.mark.parametrize("column, match", [
    (["red", "blue", "red", "green"], r"column 'c' is categorical .*one-hot"),
    (pd.Categorical([1, 2, 3, 1]), r"column 'c' is categorical"),
    (pd.array(["a", "b", "a", "b"], dtype="string"), r"column 'c' is categorical"),
    ([1.0, np.nan, 2.0, 3.0], r"NaN in column 'c' \(row 1\)"),
    ([1.0, np.inf, 2.0, 3.0], r"infinity in column 'c'"),
])
def test_categorical_text_and_missing_values_name_the_column(column, match):
    X = pd.DataFrame({"a": [0.5, 1.5, 2.5, 3.5], "c": column})
    with pytest.raises(ValueError, match=match):
        OSDTClassifier(regularization=0.1, max_depth=2).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match=match):
        cut_dataset(X, np.array([0, 1, 0, 1]))


def test_numpy_text_and_missing_values_name_the_column():
    X = np.array([[0.5, "1"], [1.5, "x"], [2.5, "2"]], dtype=object)
    with pytest.raises(ValueError, match=r"column 1 \(x1\) holds text \('x'\)"):
        OSDTClassifier(max_depth=2).fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match=r"NaN in column 1 \(x1\)"):
        OSDTClassifier(max_depth=2).fit(np.array([[0.5, 1], [1.5, np.nan]]), [0, 1])
    # a 0/1 categorical column is a 0/1 column, and numbers in an object array are numbers
    X01 = pd.DataFrame({"a": [0.5, 1.5, 2.5, 3.5], "c": pd.Categorical([0, 1, 1, 0])})
    assert OSDTClassifier(max_depth=1).fit(X01, [0, 1, 1, 0]).score(X01, [0, 1, 1, 0]) == 1
    assert OSDTClassifier(max_depth=1).fit(X[[0, 2]][:, :1], [0, 1]).predict(np.array([[0.6]])).tolist() == [0]



def test_numbers_in_object_columns_are_numbers():
    """pandas 3 counts the object dtype as a string dtype: an object column of numbers was refused as categorical."""
    X = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6], "b": [2.5, 3.5, 1.5, .5, 2, 9]})
    y = [0, 1, 0, 1, 1, 0]
    as_numbers = OSDTClassifier(regularization=0, max_depth=2).fit(X, y)
    as_objects = OSDTClassifier(regularization=0, max_depth=2).fit(X.astype(object), y)
    assert as_objects.tree_ == as_numbers.tree_
    assert np.array_equal(as_objects.predict(X.astype(object)), as_numbers.predict(X))
    mixed = X.astype(object).assign(b=["2.5", "x", "1.5", ".5", "2", "9"])
    with pytest.raises(ValueError, match=r"column 'b' is categorical"):
        OSDTClassifier(regularization=0, max_depth=2).fit(mixed, y)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_tree_reads_a_frame_by_column_name_and_refuses_nan(iris, seed):
    """A tree (the estimator's ``tree_``, or read back from JSON) read a DataFrame by position, so columns in
    another order gave other predictions, and a NaN went silently down the 'else' branch."""
    X, y = iris
    clf = OSDTClassifier(regularization=0.005, max_depth=3).fit(X, y)
    order = np.random.default_rng(seed).permutation(X.shape[1])
    shuffled = X.iloc[:, order]
    for tree in (clf.tree_, export.from_json(clf.tree_.to_json())):
        assert np.array_equal(tree.predict(shuffled), clf.predict(X))
        assert np.allclose(tree.predict_proba(shuffled), clf.predict_proba(X))
        with pytest.raises(ValueError, match="lacks 1 of the model's columns \\('petal_length'\\)"):
            tree.predict(X.drop(columns="petal_length"))
        missing = X.copy()
        missing.iloc[4, 2] = np.nan
        for rows in (missing, missing.to_numpy()):
            with pytest.raises(ValueError, match=r"NaN in column 'petal_length' \(row 4\)"):
                tree.predict(rows)
        assert np.array_equal(tree.predict(X.to_numpy()), clf.predict(X))  # a matrix is read by position


def test_binary_trees_and_rule_lists_read_a_frame_by_column_name():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 2, (200, 5)), columns=list("abcde"))
    y = (X["a"] & ~X["c"]) | X["e"]
    shuffled = X[["e", "d", "c", "b", "a"]]
    tree = OSDTClassifier(regularization=0.01).fit(X, y).tree_
    rules = CorelsClassifier(regularization=0.01).fit(X, y).rule_list_
    for model in (tree, export.from_json(tree.to_json()), rules, export.from_json(rules.to_json())):
        assert np.array_equal(model.predict(shuffled), model.predict(X.to_numpy()))


def test_huge_values_give_no_overflow_warning():
    X = np.array([[1e308, 1], [-1e308, 2], [0, 3], [5, 1], [1e308, 7], [2, 2]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = OSDTClassifier(regularization=0, max_depth=2).fit(X, [0, 1, 0, 1, 0, 1])
    assert clf.score(X, [0, 1, 0, 1, 0, 1]) == 1 and clf.result_.objective == 0



def test_the_route_with_regularization_reads_the_rows_per_cut(iris):
    """With a regularization, with or without a depth limit, the search over sorted orders takes data with 64 cuts
    or more and a few rows per cut (the GOSDT suite's iris .005, gaussian_1k .05 and .02 and sine_1k .05 without a
    depth limit; wine and fico_1k at depths 3 and 4), and the dp over the cuts data with many rows per cut or fewer
    than 64 cuts."""
    from optbb.osdt.solve import DP_FEW_CUTS, DP_ROWS_PER_CUT, route

    X, y = iris
    few = cut_dataset(X.drop(columns="flag"), pd.factorize(y)[0])
    assert few.n_samples < DP_ROWS_PER_CUT * few.n_features
    assert route(few, 0.01) == route(few, 0.01, max_depth=3) == route(few, 0.0, max_depth=3) == "numeric"
    rng = np.random.default_rng(0)
    many = cut_dataset(rng.integers(0, 10, (500, 2)).astype(float), rng.integers(0, 2, 500))
    assert many.n_samples >= DP_ROWS_PER_CUT * many.n_features
    assert route(many, 0.01) == route(many, 0.01, max_depth=3) == "dp" and route(many, 0.0, max_depth=3) == "numeric"
    # below DP_FEW_CUTS cuts the dp whatever the rows per cut: 40 rows of two 20-valued columns at lambda .02 took
    # 5.7 s on the sorted orders, 14 ms on the dp
    x = rng.integers(0, 20, (40, 2)).astype(float)
    small = cut_dataset(x, ((x[:, 0] > 0.7 * x[:, 1]) ^ (rng.random(40) < 0.2)).astype(int))
    assert small.n_features < DP_FEW_CUTS and small.n_samples < DP_ROWS_PER_CUT * small.n_features
    assert route(small, 0.02) == route(small, 0.02, max_depth=4) == "dp"
    assert route(small, 0.0, max_depth=4) == "numeric"
    fit = OSDTClassifier(regularization=0.02).fit(x, small.y).result_
    assert fit.status is Status.OPTIMAL and fit.counters["total_time"] < 5
    codes = pd.factorize(y)[0]
    B, _ = all_cuts(X.to_numpy(np.float64), list(X.columns))
    cuts = BinaryDataset(B, codes, [f"c{j}" for j in range(B.shape[1])], None, tuple(map(str, range(codes.max() + 1))))
    for depth in (None, 3):
        sorted_orders = OSDTClassifier(regularization=0.05, max_depth=depth).fit(X, y).result_
        dp = solve(cuts, 0.05, max_depth=depth)
        assert sorted_orders.status is dp.status is Status.OPTIMAL
        assert sorted_orders.objective == pytest.approx(dp.objective, abs=1e-12)



@st.composite
def one_column(draw):
    """``(x, y, w, lam)``: 2-12 rows of one column drawn from a few values, 2-3 classes, uniform, integer or real
    weights, lambda .005 to .2."""
    n = draw(st.integers(2, 12))
    x = draw(hnp.arrays(np.float64, (n, 1), elements=st.sampled_from(VALUES)))
    k = draw(st.integers(2, 3))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    kind = draw(st.sampled_from(["none", "integer", "real"]))
    w = None if kind == "none" else draw(hnp.arrays(np.float64, n, elements=(
        st.integers(1, 3) if kind == "integer" else st.floats(0.1, 3.0))))
    assume(len(np.unique(x)) >= 2 and len(np.unique(y)) >= 2 and not set(np.unique(x)) <= {0.0, 1.0})
    return x, y, w, draw(st.sampled_from([0.005, 0.02, 0.05, 0.2]))


def best_partition_by_brute_force(x, y, w, lam):
    """Every set of cuts between the distinct values of one column: each a partition into intervals, each leaf
    predicting its (weighted) majority."""
    w = np.ones(len(y)) if w is None else w
    values = np.unique(x)
    best = np.inf
    for mask in range(1 << (len(values) - 1)):
        edges = [values[0] - 1] + [values[i] for i in range(len(values) - 1) if mask >> i & 1] + [values[-1]]
        wrong = 0.0
        for lo, hi in zip(edges[:-1], edges[1:]):
            inside = (x > lo) & (x <= hi)
            wrong += w[inside].sum() - max(w[inside & (y == c)].sum() for c in np.unique(y))
        best = min(best, wrong / w.sum() + lam * (len(edges) - 1))
    return best


@given(one_column())
@settings(FAST, max_examples=200)
def test_one_column_without_a_depth_limit_is_the_best_partition_into_intervals(problem):
    """A tree on one column is a partition into intervals: the interval DP against every set of cuts, and against
    the search over sorted orders."""
    x, y, w, lam = problem
    clf = OSDTClassifier(regularization=lam).fit(x, y, sample_weight=w)
    expected = best_partition_by_brute_force(x[:, 0], y, w, lam)
    assert clf.result_.status is Status.OPTIMAL and "intervals" in clf.result_.counters
    assert clf.result_.objective == pytest.approx(expected, abs=1e-9)
    assert tree_objective(clf.predict(x), y, lam, clf.tree_.n_leaves, w) == pytest.approx(expected, abs=1e-9)
    res = solve_cuts(cut_dataset(x, y, sample_weight=w), lam, max_depth=None)
    assert res.status is Status.OPTIMAL and res.objective == pytest.approx(expected, abs=1e-9)


def test_the_interval_dp_is_taken_only_where_it_is_exact():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 1))
    y = (np.sin(3 * x[:, 0]) > 0).astype(int)
    data = cut_dataset(x, y)
    from optbb.osdt.solve import route

    assert route(data, 0.01) == "intervals"
    assert route(data, 0.01, max_depth=3) != "intervals" and route(data, 0.0, max_depth=3) != "intervals"
    assert route(cut_dataset(np.column_stack([x, x ** 2]), y), 0.01) != "intervals"
    fast = OSDTClassifier(regularization=0.01).fit(x, y)
    limited = OSDTClassifier(regularization=0.01, node_limit=10 ** 9).fit(x, y)  # the search over sorted orders
    assert "intervals" not in limited.result_.counters and limited.result_.status is Status.OPTIMAL
    assert fast.result_.objective == pytest.approx(limited.result_.objective, abs=1e-12)
    assert fast.tree_.text().startswith("if x0 <= ")


# ---------------------------------------------------------------------------------------------------------------
# binary data: exactly the former path


@pytest.mark.parametrize("seed, lam, depth, k, weighted", [
    (0, 0.01, None, 2, False), (1, 0.0, 3, 2, True), (2, 0.02, 4, 3, False), (3, 0.005, 3, 4, True),
])
def test_binary_data_gives_the_same_tree_as_solve(seed, lam, depth, k, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (150, 8)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] | (rng.random(150) < 0.2)).astype(int) + (X[:, 2] * rng.integers(0, k - 1, 150))
    w = rng.uniform(0.5, 2, 150) if weighted else None
    clf = OSDTClassifier(regularization=lam, max_depth=depth).fit(X, y, sample_weight=w)
    data = BinaryDataset(X, y, [f"x{j}" for j in range(8)], w, tuple(str(c) for c in range(max(2, y.max() + 1))))
    ref = solve(data, lam, max_depth=depth).model
    tree = clf.tree_
    assert tree.cuts is None and not isinstance(clf._data, CutDataset)
    assert tree.leaves == ref.leaves and tree.predictions == ref.predictions and tree.text() == ref.text()
    assert "column_kinds" not in tree.to_dict()
    with pytest.raises(ValueError, match="X is not binary"):
        clf.predict(np.where(X == 1, 2, 0))


# ---------------------------------------------------------------------------------------------------------------
# solve on a CutDataset, memory, Rashomon sets


def test_solve_takes_a_cut_dataset_and_its_tree_reads_raw_columns(iris):
    X, y = iris
    codes = pd.factorize(y, sort=True)[0]
    data = cut_dataset(X, codes, label_names=("setosa", "versicolor", "virginica"))
    assert data.n_features == data.cuts.n_features == 119 + 1 and data.cuts.n_columns == 5
    result = solve(data, 0.0, max_depth=2)
    assert result.status.name == "OPTIMAL" and result.objective * len(y) == pytest.approx(6)
    tree = result.model
    assert tree.cuts.n_columns == 5 and tree.depth <= 2  # 3 or 4 leaves: with no cost per leaf, both are optimal
    assert tree_objective(tree.predict(X.to_numpy()), codes, 0.0, 3) == pytest.approx(result.objective)


def test_orders_above_the_memory_limit_stop_with_the_initial_tree():
    """The search's arrays (orders of 3 levels 290 kB, ranks and keys 96 kB, ...) pass the limit: it stops at once
    with the CART tree, whose fit (a float32 copy of X and about 64 bytes a row: 256 kB) fits beside what is held
    (labels, weights and the columns' values: 144 kB); with room for neither, with the root leaf."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3000, 4)), rng.integers(0, 2, 3000)
    clf = OSDTClassifier(regularization=0, max_depth=4, memory_limit=600_000).fit(X, y)
    assert clf.result_.status.name == "MEMORY_LIMIT"
    assert clf.result_.lower_bound <= clf.result_.objective and clf.predict(X).shape == (3000,)
    assert clf.result_.counters["memory_bytes"] <= 600_000
    assert clf.result_.objective < np.bincount(y).min() / len(y)  # the CART tree, better than the root leaf
    tight = OSDTClassifier(regularization=0, max_depth=4, memory_limit=200_000).fit(X, y).result_
    assert tight.status.name == "MEMORY_LIMIT" and tight.model.n_leaves == 1


def test_rashomon_set_of_a_numeric_fit_reads_raw_rows(iris):
    X, y = iris
    clf = OSDTClassifier(regularization=0.02, max_depth=2).fit(X.iloc[:, :2], y)
    rs = clf.rashomon_set(epsilon=0.0)
    assert rs.prepare(X.iloc[:, :2]).shape == (150, clf._data.cuts.n_features)


@pytest.mark.slow
@given(numeric_problems(max_rows=30, max_columns=4))
@settings(FAST, max_examples=1000)
def test_depth_two_brute_force_on_larger_problems(problem):
    test_depth_two_is_the_brute_force_over_every_threshold.hypothesis.inner_test(problem)


@given(numeric_problems(max_rows=24, max_columns=3, zero_weights=False), st.integers(3, 4))
@settings(FAST, max_examples=40)
def test_deeper_trees_are_the_binary_dp_on_every_cut(problem, depth):
    """The search over sorted orders (frames, interval bounds, the larger child first) at depth 3 and 4 against
    the binary dp on the matrix of every cut."""
    X, y, w, lam, _ = problem
    res = sorted_orders(X, y, lam, depth, w)
    B = every_cut(X)
    data = BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, tuple(str(c) for c in range(int(y.max()) + 1)))
    reference = solve(data, lam, max_depth=depth)
    assert res.status.name == reference.status.name == "OPTIMAL"
    assert res.objective == pytest.approx(reference.objective, abs=1e-9)
    assert res.model.depth <= depth


@pytest.mark.parametrize("depth", [2, 3])
def test_positions_past_the_records_are_searched_as_well(monkeypatch, depth):
    """With room for the records of two positions per column, the depth-2 solver evaluates the rest without the
    columns' bounds, and finds the same optimum."""
    from optbb.osdt.numeric import engine as cut_search
    X, y = hard_numeric_problem(n=200, m=4, seed=5)
    full = OSDTClassifier(regularization=0, max_depth=depth).fit(X, y).result_
    monkeypatch.setattr(cut_search, "RECORD_ENTRIES", 16)
    small = OSDTClassifier(regularization=0, max_depth=depth).fit(X, y).result_
    assert small.status.name == full.status.name == "OPTIMAL" and small.objective == full.objective



@pytest.mark.parametrize("depth, classes, weighted", [(2, 2, False), (3, 2, False), (2, 3, True), (3, 3, True)])
def test_columns_swept_by_value_or_on_their_order_give_the_same_tree(monkeypatch, depth, classes, weighted):
    """The depth-2 solver sweeps a column whose values span few ranks from its class weights by value, any other on
    its order; both find the first of the least stumps, so with no room for the class weights by value (every
    column swept on its order) the search and its tree are the same."""
    from optbb.osdt.numeric import engine as cut_search
    rng = np.random.default_rng(7)
    n = 600
    X = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 40, n), rng.normal(size=n),
                         rng.integers(0, 300, n)]).astype(float)
    y = (((X[:, 0] > 2) ^ (X[:, 2] > 0.3)) | (rng.random(n) < 0.2)).astype(int)
    if classes == 3:
        y = y + (X[:, 1] > 30)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    by_value = OSDTClassifier(regularization=0, max_depth=depth).fit(X, y, sample_weight=w)
    monkeypatch.setattr(cut_search, "HIST_BINS", 1)
    on_order = OSDTClassifier(regularization=0, max_depth=depth).fit(X, y, sample_weight=w)
    assert by_value.result_.status.name == on_order.result_.status.name == "OPTIMAL"
    assert by_value.result_.objective == on_order.result_.objective
    assert by_value.tree_.to_dict() == on_order.tree_.to_dict()
    assert by_value.result_.counters["splits_evaluated"] == on_order.result_.counters["splits_evaluated"]

def hard_numeric_problem(n=400, m=5, seed=3, decimals=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)).round(decimals)
    y = ((X[:, 0] * X[:, 1] > 0) ^ (rng.random(n) < 0.2)).astype(int)
    return X, y


def test_a_node_limit_ends_with_a_tree_and_a_valid_lower_bound():
    X, y = hard_numeric_problem()
    full = OSDTClassifier(regularization=0, max_depth=3).fit(X, y).result_
    assert full.status.name == "OPTIMAL" and full.lower_bound == full.objective
    stopped = OSDTClassifier(regularization=0, max_depth=3, node_limit=3).fit(X, y).result_
    assert stopped.status.name == "NODE_LIMIT"
    assert stopped.lower_bound <= full.objective <= stopped.objective
    assert stopped.model.depth <= 3


@pytest.mark.parametrize("depth, lam", [(3, 0.0), (3, 0.004), (4, 0.0)])
def test_every_node_limit_ends_with_a_valid_lower_bound(depth, lam):
    """Stopped after any number of root splits (two columns: the search soon reaches the last one, where the
    frames' bounds rise above ``2 lam``), the lower bound is at most the optimum and the tree at least it."""
    X, y = hard_numeric_problem(n=300, m=2, seed=1)
    full = OSDTClassifier(regularization=lam, max_depth=depth).fit(X, y).result_
    nodes = full.counters["nodes"]
    for limit in sorted({1, 2, 3, *range(1, nodes, max(1, nodes // 12))}):
        stopped = OSDTClassifier(regularization=lam, max_depth=depth, node_limit=limit).fit(X, y).result_
        assert stopped.lower_bound <= full.objective + 1e-12 <= stopped.objective + 2e-12


def test_the_initial_tree_is_the_cart_tree_on_raw_columns_or_better():
    from sklearn.tree import DecisionTreeClassifier

    X, y = hard_numeric_problem()
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    stopped = OSDTClassifier(regularization=0, max_depth=3, node_limit=1).fit(X, y).result_
    assert stopped.objective <= 1 - cart.score(X, y) + 1e-12



@pytest.mark.parametrize("seed", [66, 133, 163, 229, 231])
def test_a_cart_tree_taken_in_the_middle_of_the_search_keeps_it_optimal(monkeypatch, seed):
    """Without regularization the CART tree comes once the search has run a while (here at once, after its first
    step); taken as the root's best, it tightens the frames' bounds, and the search still ends with the optimum of
    a search without it, which the binary dp on every cut confirms.  On these problems (5 of 300 seeds) the CART
    tree at depth 3 is cheaper than the blocks tree, so it is taken: without that the test would prove nothing."""
    from optbb.common import driver
    from optbb.osdt.numeric import engine as cut_search

    taken = []
    try_cart = cut_search.CutEngine.try_cart

    def spy(engine):
        before = engine._best()[0]
        try_cart(engine)
        taken.append(engine.fr is not None and engine._best()[0] < before)

    monkeypatch.setattr(cut_search, "CART_AFTER", 0.0)
    monkeypatch.setattr(driver, "FIRST_WORK", 1)
    monkeypatch.setattr(cut_search.CutEngine, "try_cart", spy)
    X, y = hard_numeric_problem(n=60, m=4, seed=seed, decimals=1)
    names = [f"x{j}" for j in range(4)]
    res = solve_columns(X, y, 0.0, names, max_depth=3)
    cold = solve_columns(X, y, 0.0, names, max_depth=3, warm_start=None)
    B = every_cut(X)
    reference = solve(BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])]), 0.0, max_depth=3)
    assert taken == [True]
    assert res.status.name == cold.status.name == reference.status.name == "OPTIMAL"
    assert res.objective == cold.objective == pytest.approx(reference.objective, abs=1e-12)


@pytest.mark.parametrize("depth, lam", [(3, 0.0), (4, 0.0), (4, 0.004)])
def test_the_first_tree_grows_the_depth2_optimum_by_blocks(depth, lam):
    """Stopped after its first node, the search over sorted orders holds a tree at least as good as the optimum of
    depth 2 (its leaves grown into optimal subtrees), of the right depth, costing what it predicts; a cold start
    (no initial tree) holds no better one."""
    X, y = hard_numeric_problem(n=300)
    names = [f"x{j}" for j in range(X.shape[1])]
    two = sorted_orders(X, y, lam, 2)
    res = solve_columns(X, y, lam, names, max_depth=depth, node_limit=1)
    assert res.objective <= two.objective + 1e-12
    assert res.model.depth <= depth
    assert res.objective == pytest.approx(np.mean(res.model.predict(X) != y) + lam * res.model.n_leaves, abs=1e-12)
    cold = solve_columns(X, y, lam, names, max_depth=depth, node_limit=1, warm_start=None)
    assert cold.objective >= res.objective - 1e-12


@pytest.mark.parametrize("lam, weighted", [(0.0, False), (0.013, False), (0.007, True)])
def test_the_pruned_cart_tree_costs_what_its_leaves_cost(lam, weighted):
    from optbb.osdt.cart import cart_tree
    from optbb.osdt.numeric.engine import CutEngine

    X, y = hard_numeric_problem(n=300)
    w = np.random.default_rng(1).random(len(y)) + 0.1 if weighted else None
    engine = CutEngine(X, y, w, 2, lam, 4, [f"x{j}" for j in range(X.shape[1])], [False] * X.shape[1])
    tree, cost = engine.pruned_cost(cart_tree(X, y, w, engine.values, 4, lam))
    assert np.array_equal(tree, engine.pruned(tree)) and cost == engine._cost(tree)



def test_values_beyond_float32_fit_and_are_optimal():
    """The CART start reads the columns as float32 (where 1e300 is infinite); the search reads them as they are."""
    rng = np.random.default_rng(5)
    X = rng.choice([-1e300, -3e38, 0.0, 1.0, 2.0, 4e38, 1e300], size=(30, 2))
    y = rng.integers(0, 2, 30)
    for depth in (1, 2):
        res = OSDTClassifier(max_depth=depth, regularization=0).fit(X, y).result_
        assert res.status.name == "OPTIMAL"
        assert res.objective == pytest.approx(optimal_objective(X, y, 0.0, depth, None), abs=1e-12)

@given(numeric_problems(max_rows=20, max_columns=3, zero_weights=False), st.sampled_from([0.01, 0.03, 0.1]))
@settings(FAST, max_examples=40)
def test_without_a_depth_limit_the_sparse_tree_is_the_binary_dp_on_every_cut(problem, lam):
    """With a positive regularization and no max_depth the search over sorted orders bounds the depth by the leaves
    a tree better than the first one can have; the binary dp without depth limit on every cut agrees."""
    X, y, w, _, _ = problem
    res = sorted_orders(X, y, lam, None, w)
    B = every_cut(X)
    data = BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, tuple(str(c) for c in range(int(y.max()) + 1)))
    reference = solve(data, lam)
    assert res.status.name == reference.status.name == "OPTIMAL"
    assert res.objective == pytest.approx(reference.objective, abs=1e-9)


def test_a_numeric_fit_keeps_neither_the_matrix_of_cuts_nor_the_orders():
    """The fitted estimator keeps the raw columns and their values, not what only the search reads (the matrix of
    cuts, 1 byte per row and cut; the ranks and orders, 8 bytes per value): they are made again when its Rashomon
    set needs them, and a pickle holds none of them (nor the training data: ``rashomon_set`` takes it again)."""
    import pickle

    X, y = hard_numeric_problem(n=40, m=3, seed=3, decimals=1)
    for est in (OSDTClassifier(regularization=0.05), OSDTClassifier(regularization=0.0, max_depth=2)):
        est.fit(X, y)
        assert est._data._X is None and est._data.columns.ranks is None and est._data.columns.orders is None
        count = est.rashomon_set(epsilon=0.01).count
        assert est._data._X is not None  # made for the set
        again = pickle.loads(pickle.dumps(est))
        assert again._data is None
        assert np.array_equal(again.predict(X), est.predict(X))
        assert again.rashomon_set(epsilon=0.01, X=X, y=y).count == count
        assert again._data._X is not None and again.rashomon_set(epsilon=0.01).count == count


# ---------------------------------------------------------------------------------------------------------------
# the bounds of the search over sorted orders, each switched off (optbb.osdt.numeric.engine.ABLATIONS)

NUMERIC_ABLATIONS = [(name,) for name in NUMERIC_BOUNDS] + [NUMERIC_BOUNDS]


@given(numeric_problems(), st.sampled_from(NUMERIC_ABLATIONS))
@settings(FAST, max_examples=200)
def test_every_numeric_bound_switched_off_keeps_the_brute_force_optimum(problem, ablation):
    X, y, w, lam, depth = problem
    res = solve_columns(X, y, lam, sample_weight=w, max_depth=depth, ablation=ablation)
    assert res.status.name == "OPTIMAL"
    assert res.objective == pytest.approx(optimal_objective(X, y, lam, depth, w), abs=1e-9)


@given(numeric_problems(max_rows=24, max_columns=3), st.sampled_from(NUMERIC_ABLATIONS))
@settings(FAST, max_examples=40)
def test_every_numeric_bound_switched_off_keeps_the_depth_three_optimum(problem, ablation):
    """At depth 3 (frames over the depth-2 solver) against the binary dp on every cut."""
    X, y, w, lam, _ = problem
    res = solve_columns(X, y, lam, sample_weight=w, max_depth=3, ablation=ablation)
    B = every_cut(X)
    labels = tuple(str(c) for c in range(max(2, int(y.max()) + 1)))
    ref = solve(BinaryDataset(B, y, [f"c{j}" for j in range(B.shape[1])], w, labels), lam, max_depth=3)
    assert res.objective == pytest.approx(ref.objective, abs=1e-9)


def test_each_numeric_bound_switch_turns_its_bound_off():
    """Same optimum, more work: the interval bound and its shrinking prune split positions (of the frames and of
    the depth-2 solver), the records of the columns' stumps the columns the depth-2 solver sweeps, and with a
    regularization the leaf count stops frames whose best tree costs at most 4 lambda N."""
    X, y = hard_numeric_problem(n=200, m=4, seed=3, decimals=2)
    work = {"interval_bound": ("splits_evaluated", "depth2_positions"),
            "interval_shrinking": ("splits_evaluated", "depth2_positions"), "column_records": ("depth2_sweeps",),
            "leaf_count_stop": ("splits_evaluated",)}
    for name in NUMERIC_BOUNDS:
        lam, depth = (0.01, 4) if name == "leaf_count_stop" else (0.0, 3)
        full = solve_columns(X, y, lam, max_depth=depth)
        off = solve_columns(X, y, lam, max_depth=depth, ablation=(name,))
        assert off.objective == full.objective
        assert sum(off.counters[c] for c in work[name]) > sum(full.counters[c] for c in work[name]), name
    with pytest.raises(ValueError, match="not bounds of the numeric search"):
        solve_columns(X, y, 0.0, max_depth=3, ablation=("lookahead",))


def test_cut_dataset_names_the_classes_of_y_by_default():
    """Three classes without label_names: the classes are "0", "1", "2" (it said y was not binary)."""
    X = np.array([[0.5], [1.5], [2.5], [3.5]])
    data = cut_dataset(X, np.array([0, 1, 2, 1]))
    assert data.label_names == ("0", "1", "2") and data.n_classes == 3
    assert solve(data, 0.0, max_depth=2).objective == 0.0
