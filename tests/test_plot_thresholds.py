"""Plots of trees fitted on numeric columns: threshold splits drawn by column and condition, as the text form prints
them (``petal_length <= 2.45`` / ``petal_length > 2.45``); trees over 0/1 features labelled as before; the Rashomon
plots of a numeric fit's set."""
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from matplotlib.text import Text  # noqa: E402

from optbb import plot  # noqa: E402
from optbb.osdt import OSDTClassifier, Tree  # noqa: E402

CONDITION = re.compile(r"^(sepal|petal)_(length|width) (<=|>) \d+(\.\d+)?$")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    data = load_iris(as_frame=True)
    X = data.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    return X, data.target.to_numpy()


@pytest.fixture(scope="module")
def iris_fit(iris):
    X, y = iris
    return OSDTClassifier(regularization=0.01, max_depth=2).fit(X, y)


def texts(ax) -> list[str]:
    """The non-empty texts drawn on ``ax`` (its Text artists: labels, ticks and title included)."""
    return [t.get_text() for t in ax.findobj(Text) if t.get_text()]


def branch_tests(tree: Tree) -> list[str]:
    """The tests of the tree's text form: ``x <= t`` of each ``if x <= t:`` line, ``x > t`` of each
    ``else:  # x > t`` line."""
    out = []
    for line in tree.text().splitlines():
        line = line.strip()
        if line.startswith("if "):
            out.append(line[3:-1])
        elif line.startswith("else:  # "):
            out.append(line[len("else:  # "):])
    return out


def split_nodes(node: dict) -> list[dict]:
    if "prediction" in node:
        return []
    return [node] + split_nodes(node["true"]) + split_nodes(node["false"])


def test_tree_of_a_numeric_fit_draws_its_splits_as_its_text_prints_them(iris_fit):
    tree = iris_fit.tree_
    assert tree.cuts is not None and tree.depth == 2 and tree.n_leaves == 3
    drawn = texts(plot.tree(tree))
    tests = branch_tests(tree)
    assert len(tests) == 4
    for test in tests:  # petal_width <= 0.8, petal_width > 0.8, ...
        assert CONDITION.match(test), test
        assert drawn.count(test) == 1, (test, drawn)
    d = tree.to_dict()
    for node in split_nodes(d):  # each split node names its column
        assert d["feature_names"][node["feature"]] in drawn
    assert not [t for t in drawn if "<=" in t and " <= " not in t]  # no feature name such as petal_width<=0.8
    assert "1" not in drawn and "0" not in drawn
    for leaf in ("predict 0\nn=50", "predict 1", "predict 2"):
        assert any(t.startswith(leaf) for t in drawn), leaf


def test_tree_read_back_from_json_draws_the_same_texts(iris_fit):
    tree = iris_fit.tree_
    again = Tree.from_json(tree.to_json())
    assert again.cuts is not None
    assert sorted(texts(plot.tree(again))) == sorted(texts(plot.tree(tree)))


def test_tree_draws_on_the_given_axes_with_a_title(iris_fit):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert plot.tree(iris_fit.tree_, ax=ax, title="iris") is ax
    assert ax.get_title() == "iris"
    assert set(branch_tests(iris_fit.tree_)) <= set(texts(ax))


def test_tree_over_binary_features_labels_as_before():
    tree = Tree([((0, 1),), ((0, 0), (1, 1)), ((0, 0), (1, 0))], [1, 0, 1], ["a", "b"], n_samples=[5, 3, 2],
                errors=[0, 1, 0])
    ax = plot.tree(tree)
    drawn = [t.get_text() for t in ax.texts if t.get_text()]
    assert sorted(drawn) == sorted(["a", "b", "1", "0", "1", "0", "predict 1\nn=5", "predict 0\nn=3",
                                    "predict 1\nn=2"])
    edges = [t for t in ax.texts if t.get_text() in ("0", "1")]
    assert all(t.get_horizontalalignment() == "left" for t in edges)  # placed as before


def test_tree_fitted_on_binary_columns_names_its_features(iris):
    X, y = iris
    B = pd.DataFrame({"long_petal": (X["petal_length"] > 2.5).astype(int),
                      "wide_petal": (X["petal_width"] > 1.7).astype(int)})
    clf = OSDTClassifier(regularization=0.01, max_depth=2).fit(B, y)
    assert clf.tree_.cuts is None
    drawn = texts(plot.tree(clf.tree_))
    assert {"long_petal", "wide_petal", "1", "0"} <= set(drawn)
    assert not [t for t in drawn if "<=" in t or " == " in t]


def test_tree_mixing_a_numeric_and_a_binary_column():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 70, 200).astype(float), "sex": rng.integers(0, 2, 200)})
    y = ((X["sex"] == 1) & (X["age"] > 40.5)).astype(int).to_numpy()
    clf = OSDTClassifier(regularization=0.01, max_depth=2).fit(X, y)
    tree = clf.tree_
    assert tree.cuts is not None and sorted(tree.cuts.binary) == [False, True]
    assert branch_tests(tree) == ["sex == 1", "age <= 40.5", "age > 40.5", "sex == 0"]
    drawn = texts(plot.tree(tree))
    assert {"age <= 40.5", "age > 40.5", "age", "sex", "1", "0"} <= set(drawn)  # the cut as a test, the 0/1 column
    assert "sex == 1" not in drawn  # as before: its name, branches 1 and 0


def test_rashomon_plots_of_a_numeric_fit(iris_fit):
    rset = iris_fit.rashomon_set(epsilon=0.1)
    assert rset.count > 1
    usage = rset.feature_usage()
    used = [str(name) for name, n in usage.items() if int(n) > 0]
    assert 1 < len(used) < len(usage)  # every cut is a feature, most unused
    ax = plot.rashomon_feature_usage(rset)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted(used)  # the used cuts, by column and threshold (petal_width<=0.8)
    assert all(re.match(r"^(sepal|petal)_(length|width)<=\d+(\.\d+)?$", label) for label in labels)
    fig = ax.figure
    fig.canvas.draw()
    box = fig.bbox
    for t in ax.get_yticklabels():  # the margin holds the names
        extent = t.get_window_extent()
        assert extent.x0 >= box.x0 - 1e-6 and extent.x1 <= box.x1 + 1e-6, t.get_text()
    for draw in (plot.rashomon_objectives, plot.rashomon_count_vs_epsilon, plot.rashomon_agreement):
        assert draw(rset).figure is not None
    member = rset[0]
    drawn = texts(plot.tree(member))  # the set's trees are over the raw columns: tests with thresholds
    assert member.cuts is not None
    assert any(re.fullmatch(r"(sepal|petal)_(length|width) <= \d+(\.\d+)?", t) for t in drawn), drawn
    assert not any(re.search(r"\w<=\d", t) for t in drawn), drawn  # no cut drawn as a feature name


def test_rashomon_feature_usage_of_binary_features_keeps_used_names():
    from optbb.common.data import BinaryDataset
    from optbb.osdt import rashomon_set

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (60, 4)).astype(np.uint8)
    y = (X[:, 0] ^ (X[:, 1] & rng.integers(0, 2, 60).astype(np.uint8))).astype(bool)
    rset = rashomon_set(BinaryDataset(X, y, ["a", "b", "c", "d"]), 0.02, epsilon=0.2, max_depth=2)
    usage = rset.feature_usage()
    ax = plot.rashomon_feature_usage(rset, top=2)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    shares = {name: int(n) for name, n in usage.items() if int(n) > 0}
    assert len(labels) == min(2, len(shares))
    assert set(labels) <= set(shares) and min(shares[n] for n in labels) >= sorted(shares.values())[-len(labels)]
