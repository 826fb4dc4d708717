"""Rashomon sets of trees over numeric columns: the members are trees over the raw columns with their thresholds
(``petal_length <= 2.45``), predict on raw rows as the set does, read back from JSON and score their objective."""
import json
import re

import numpy as np
import pytest

from optbb.common.data import BinaryDataset
from optbb.osdt import OSDTClassifier, Tree, cut_dataset, rashomon_set

IRIS_CLASSES = ["setosa", "versicolor", "virginica"]
CANCER_CLASSES = ["malignant", "benign"]


@pytest.fixture(scope="module")
def iris():
    """Iris with a 0/1 column beside the numeric ones; labels as class indices."""
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    X = d.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    X["flag"] = np.random.default_rng(0).integers(0, 2, len(X))
    return X, d.target.to_numpy()


@pytest.fixture(scope="module")
def cancer():
    """Four breast-cancer columns, rounded so that they have about a hundred cuts."""
    from sklearn.datasets import load_breast_cancer

    d = load_breast_cancer(as_frame=True)
    digits = {"mean radius": 0, "mean texture": 0, "worst area": -2, "worst concave points": 2}
    X = d.data[list(digits)].round(digits)
    return X, d.target.to_numpy()


def numeric_set(X, y, classes, regularization, weights=None, **kwargs):
    data = cut_dataset(X, y, sample_weight=weights, label_names=tuple(classes))
    return rashomon_set(data, regularization, classes=list(classes), **kwargs)


@pytest.fixture(scope="module")
def sets(iris, cancer):
    """(rows, class indices, weights, set) of each case: iris, weighted iris, the breast-cancer columns."""
    (Xi, yi), (Xc, yc) = iris, cancer
    w = np.random.default_rng(1).integers(1, 4, len(Xi)).astype(float)
    return [(Xi, yi, None, numeric_set(Xi, yi, IRIS_CLASSES, 0.02, epsilon=0.1, max_depth=2)),
            (Xi, yi, w, numeric_set(Xi, yi, IRIS_CLASSES, 0.02, w, epsilon=0.1, max_depth=2)),
            (Xc, yc, None, numeric_set(Xc, yc, CANCER_CLASSES, 0.01, epsilon=0.1, max_depth=2))]


def split_tests(tree: Tree) -> list[str]:
    """The test of every branch of the tree's text (``if ...:`` and ``else:  # ...``)."""
    return [a or b for a, b in re.findall(r"^ *(?:if (.+):|else:  # (.+))$", tree.text(), flags=re.M)]


def splits(node: dict):
    """The split nodes of a tree's dict form."""
    if "prediction" not in node:
        yield node
        yield from splits(node["true"])
        yield from splits(node["false"])


def test_members_are_trees_over_the_raw_columns(sets):
    for X, _, _, rs in sets:
        assert rs.count > 1
        columns = "|".join(re.escape(c) for c in X.columns)
        test = re.compile(rf"^(?:({columns}) (?:<=|>) -?\d+(?:\.\d+)?|flag == [01])$")
        for tree in rs:
            assert tree.cuts is not None and list(tree.cuts.column_names) == list(X.columns)
            tests = split_tests(tree)
            assert len(tests) == 2 * (tree.n_leaves - 1)
            assert all(test.match(t) for t in tests), tests
        assert any("<=" in t for tree in rs for t in split_tests(tree))


def test_raw_predictions_are_the_sets(sets):
    for X, _, _, rs in sets:
        every = rs.predict(X, models=slice(0, rs.count))
        assert every.shape == (rs.count, len(X))
        for i, tree in enumerate(rs):
            assert np.array_equal(tree.predict(X), every[i])
            assert np.array_equal(tree.predict(X.to_numpy()), every[i])
        assert set(np.unique(every)) <= set(IRIS_CLASSES + CANCER_CLASSES)


def test_json_round_trips(sets, tmp_path):
    for X, _, _, rs in sets:
        for tree in rs:
            text = tree.to_json()
            back = Tree.from_json(text)
            assert back == tree and back.text() == tree.text()
            assert np.array_equal(back.predict(X), tree.predict(X))
            d = json.loads(text)
            assert d["feature_names"] == list(X.columns)
            for node in splits(d):  # a column and, on a numeric one, its threshold
                assert ("threshold" in node) == (X.columns[node["feature"]] != "flag")
        dumped = json.loads(rs.to_json(tmp_path / "set.json", models=slice(0, 3)))
        assert [Tree.from_dict({**dumped["shared"], **d}) for d in dumped["models"]] == rs[:3]


def test_objectives_are_recomputed_from_predictions(sets):
    for X, y, w, rs in sets:
        classes = np.asarray(rs[0].classes)
        weights = np.ones(len(y)) if w is None else w
        for i, tree in enumerate(rs):
            wrong = tree.predict(X) != classes[y]
            objective = weights[wrong].sum() / weights.sum() + rs.regularization * tree.n_leaves
            assert objective == pytest.approx(rs.objective_of_index(i), abs=1e-9)
            assert sum(tree.errors) == np.count_nonzero(wrong)


def test_usage_and_frame_name_the_cuts(sets):
    X, _, _, rs = sets[0]
    usage = rs.feature_usage()
    used = {name for name, n in usage.items() if int(n) > 0}
    members = [set(tree.feature_names) for tree in rs]
    assert used == set().union(*members)
    for name in used:
        assert int(usage[name]) == sum(name in names for names in members)
    frame = rs.to_frame()
    assert [set(f) for f in frame["features"]] == members
    assert list(frame["model"]) == [str(tree) for tree in rs]


def test_a_single_leaf_member_predicts_on_raw_rows(iris):
    X, y = iris
    rs = numeric_set(X, y, IRIS_CLASSES, 0.2, bound=1.0, max_depth=1)
    leaf = next(tree for tree in rs if tree.n_leaves == 1)
    assert leaf.cuts is not None and leaf.feature_names == []
    i = next(i for i, tree in enumerate(rs) if tree.n_leaves == 1)
    assert np.array_equal(leaf.predict(X), rs.predict(X, models=[i])[0])
    assert Tree.from_json(leaf.to_json()) == leaf


def test_binary_data_keeps_trees_over_its_features():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (60, 4)).astype(np.uint8)
    y = X[:, 0] ^ (X[:, 1] & rng.integers(0, 2, 60).astype(np.uint8))
    rs = rashomon_set(BinaryDataset(X, y.astype(bool), ["a", "b", "c", "d"]), 0.02, epsilon=0.2, max_depth=2)
    assert rs.prepare is None and all(tree.cuts is None for tree in rs)
    assert all(re.fullmatch(r"[abcd] == [01]", t) for tree in rs for t in split_tests(tree))
    assert np.array_equal(rs.predict(X, models=[0])[0], rs[0].predict(X))


def test_the_estimators_set_of_a_numeric_fit(iris):
    X, y = iris
    clf = OSDTClassifier(regularization=0.02, max_depth=2).fit(X, y)
    rs = clf.rashomon_set(epsilon=0.1)
    assert all(tree.cuts is not None for tree in rs)
    every = rs.predict(X, models=slice(0, rs.count))
    assert all(np.array_equal(tree.predict(X), every[i]) for i, tree in enumerate(rs))


def test_index_finds_trees_over_raw_columns(sets, iris):
    """index(rset[i]) == i for members over raw columns and for them read back from JSON (their features are the
    cuts they split on, renumbered); the estimator's tree of a numeric fit is found in its set; a threshold no cut
    has is no member."""
    for _, _, _, rs in sets:
        for i, tree in enumerate(rs):
            assert rs.index(tree) == i and rs.index(Tree.from_json(tree.to_json())) == i
    X, y = iris
    clf = OSDTClassifier(regularization=0.02, max_depth=2).fit(X, y)
    es = clf.rashomon_set(epsilon=0.1)
    i = es.index(clf.tree_)
    assert es[i].same_shape(clf.tree_) and es.objective_of_index(i) == pytest.approx(es.optimum, abs=1e-12)
    d = json.loads(es[0].to_json())
    next(splits(d))["threshold"] += 1e-3  # between two cuts, or past them all
    with pytest.raises(ValueError, match="not in the set"):
        es.index(Tree.from_dict(d))
