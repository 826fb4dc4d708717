"""The CART start of every tree engine (``initial_tree="cart"``): scikit-learn's greedy tree as the first
incumbent, fitted once here for all of them.

:func:`fit_cart` fits it; :func:`cart_warm_start` reads it as the leaves of a tree over 0/1 features (the leaf-set
and dp searches, and the dp search's completions of a stopped search), :func:`cart_tree` as a preorder tree over
the ranks of numeric columns (the numeric search).  Under a time limit a fit is left out when its estimated time
(:func:`cart_seconds`) is over :data:`CART_SHARE` of the time left (:func:`cart_affordable`); under a memory limit
the numeric search leaves it out when its memory (:func:`cart_bytes`) would pass the limit.
"""
from __future__ import annotations

import math
import time

import numpy as np

from .model import Literal

CART_SECONDS_PER_CELL = 6e-8  # scikit-learn's CART on 0/1 features: 1,000,000 x 40 took 1.25 s (3.1e-8 a cell)
# on raw numeric columns each level sorts every column's values at its nodes: make_classification(10**6, 10) took
# 5.8 s at depth 2, 6.9 s at depth 3, 13.8 s at depth 5 (1.2-1.5e-8 s a row, column, level and log2 of the rows)
CART_SECONDS_PER_SORTED = 2e-8
CART_SHARE = 0.25  # of the time left that the CART warm start may take under a time limit
# scikit-learn's CART holds a float32 copy of X and about 60 bytes a row (sample indices, weights, the values of a
# node's column): 92 MB more resident memory on 1,000,000 x 10, 40 MB on 300,000 x 30
CART_BYTES_PER_ROW = 64
CART_FIXED_BYTES = 1 << 16


def cart_seconds(n_samples: int, n_features: int, levels: int | None = None) -> float:
    """A generous estimate of the seconds a CART fit on ``n_samples x n_features`` 0/1 data takes, or with
    ``levels`` (the levels it grows) on raw numeric columns."""
    if levels is None:
        return CART_SECONDS_PER_CELL * n_samples * n_features
    return CART_SECONDS_PER_SORTED * n_samples * max(1.0, math.log2(max(n_samples, 1))) * n_features * max(1, levels)


def cart_levels(n_samples: int, max_depth: int | None, lam: float) -> int:
    """The levels a CART tree on numeric columns grows at most: ``max_depth``, fewer than its ``1 / (2 lambda)``
    leaves, and at most ``log2`` of the rows that its sorts cost ``N log N`` for in all (:func:`cart_seconds`)."""
    levels = math.ceil(math.log2(max(n_samples, 2)))
    if max_depth is not None:
        levels = min(levels, int(max_depth))
    if lam > 0:
        levels = min(levels, max(1, int(min(0.5 / lam, n_samples)) - 1))
    return max(levels, 1)


def cart_bytes(n_samples: int, n_features: int) -> int:
    """A generous estimate of the bytes a CART fit on ``n_samples x n_features`` adds to resident memory."""
    return 4 * n_samples * n_features + CART_BYTES_PER_ROW * n_samples + CART_FIXED_BYTES


def cart_affordable(n_samples: int, n_features: int, time_limit: float | None, started: float,
                    levels: int | None = None) -> bool:
    """Whether a CART warm start fits in :data:`CART_SHARE` of the time left (the clock started at ``started``,
    a ``time.perf_counter()``): without a time limit, always; else the search starts without it.  ``levels``: a
    fit on raw numeric columns growing that many levels (:func:`cart_seconds`)."""
    if time_limit is None:
        return True
    left = time_limit - (time.perf_counter() - started)
    return cart_seconds(n_samples, n_features, levels) <= CART_SHARE * left


def fit_cart(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None, max_depth: int | None,
             max_leaf_nodes: int | None, **rules):
    """The ``tree_`` of scikit-learn's CART fitted on ``(X, y, sample_weight)`` (``random_state=0``), without the
    estimator's checks of its parameters and input (on a tiny problem they took about as long as the fit): the
    arguments are checked already (finite numbers), and ``X`` is handed over as the float32 copy the checks would
    have made (a value beyond float32's range reads as infinite, which CART splits off; the checks refused it, which
    made the whole fit fail).  ``rules``: more hyper-parameters (the leaf sizes of :func:`cart_warm_start`)."""
    from sklearn import config_context
    from sklearn.tree import DecisionTreeClassifier

    with np.errstate(over="ignore"):
        X32 = np.asarray(X, dtype=np.float32)
    clf = DecisionTreeClassifier(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes, random_state=0, **rules)
    with config_context(skip_parameter_validation=True):
        clf.fit(X32, y, sample_weight=sample_weight, check_input=False)
    return clf.tree_


def cart_warm_start(X: np.ndarray, y: np.ndarray, lam: float, max_depth, max_leaves,
                    sample_weight: np.ndarray | None = None) -> list[tuple[Literal, ...]] | None:
    """Leaves of a CART tree on 0/1 features with the hyper-parameters the OSDT reference ties to lambda (at most
    ``1 / (2 lambda)`` leaves, and never more than the ``N`` samples: no tree has more leaves than samples), or None
    when no split is allowed.  With ``sample_weight`` the leaf-size rules are weight fractions (``lambda`` of the
    total weight per leaf) instead of sample counts."""
    n = X.shape[0]
    max_leaf_nodes = int(math.floor(min(0.5 / lam, n)))  # a float min first: 0.5 / 1e-320 is inf
    if max_leaves is not None:
        max_leaf_nodes = min(max_leaf_nodes, int(max_leaves))
    if max_leaf_nodes < 2 or (max_depth is not None and max_depth < 1) or len(np.unique(y)) < 2:
        return None
    if sample_weight is None:
        sizes = dict(min_samples_split=max(int(math.ceil(2 * lam * n)), 2),
                     min_samples_leaf=max(int(math.ceil(lam * n)), 1))
    else:
        sizes = dict(min_weight_fraction_leaf=min(lam, 0.5))
    tree = fit_cart(X, y, sample_weight, max_depth, max_leaf_nodes, min_impurity_decrease=lam, **sizes)
    return leaves_from_sklearn(tree, X.shape[1])


def cart_tree(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, values: list, max_depth: int | None,
              lam: float) -> np.ndarray:
    """A CART tree grown on the raw numeric columns ``X`` to ``max_depth`` (at most ``1 / (2 lambda)`` leaves when
    ``lambda > 0``) as a preorder tree over the ranks of ``values`` (each column's distinct values, ascending): row 0
    the column of a split (-1 for a leaf), row 1 its threshold rank (left: rank <= it)."""
    t = fit_cart(X, y, w, max_depth, None if lam <= 0 else max(2, int(min(0.5 / lam, X.shape[0]))))
    nodes, thresholds = [], []

    def walk(node):
        j = int(t.feature[node])
        if t.children_left[node] < 0:
            nodes.append(-1)
            thresholds.append(0)
            return
        r = int(np.searchsorted(values[j], t.threshold[node], side="right")) - 1
        if r < 0 or r >= len(values[j]) - 1:  # splits nothing on these values: keep the side holding the rows
            walk(t.children_left[node] if r >= 0 else t.children_right[node])
            return
        nodes.append(j)
        thresholds.append(r)
        walk(t.children_left[node])
        walk(t.children_right[node])

    walk(0)
    return np.array([nodes, thresholds], dtype=np.int64)


def leaves_from_sklearn(t, n_features: int) -> list[tuple[Literal, ...]]:
    """Leaves of a fitted scikit-learn tree (a ``DecisionTreeClassifier``'s ``tree_``) on 0/1 features (left branch =
    feature 0)."""
    out: list[tuple[Literal, ...]] = []
    stack: list[tuple[int, tuple[Literal, ...]]] = [(0, ())]
    while stack:
        node, lits = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out.append(lits)
            continue
        f = int(t.feature[node])
        stack.append((right, lits + ((f, 1),)))
        stack.append((left, lits + ((f, 0),)))
    return out
