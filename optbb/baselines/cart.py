"""CART baseline (scikit-learn trees) with the pruning settings the papers used.

CORELS compares against R's ``rpart`` with the complexity parameter cp in {.001, .003, .01, .03, .1} (default .01):
rpart grows a Gini tree with ``minsplit = 20`` and ``minbucket = 7`` and then prunes every split whose
misclassification improvement is below ``cp`` times the root node's misclassification, by weakest-link
(cost-complexity) pruning on the misclassification risk.  :class:`CARTClassifier` does the same on a scikit-learn
tree grown with those minimum sizes; it is close to rpart, not identical (rpart also stops growing early at cp and
breaks ties differently).  OSDT's comparison uses ``max_leaf_nodes``, FRL's ROC comparison ``class_weight``.
"""
from __future__ import annotations

import sys
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import StrOptions

from ..common.limits import parse_memory
from ..common.validation import LIMIT_CONSTRAINTS, MAX_NODES, Number


class CARTClassifier(BaseEstimator, ClassifierMixin):
    """A decision tree pruned like rpart (``cp``) or scikit-learn (``ccp_alpha``), or grown to ``max_leaf_nodes``.

    Parameters
    ----------
    cp : rpart complexity parameter, or None for no rpart-style pruning.
    ccp_alpha : scikit-learn cost-complexity parameter (Gini impurity units).
    max_leaf_nodes : at most this many leaves (best-first growth), or None.
    max_depth : depth limit (rpart's default maxdepth is 30).
    min_samples_split, min_samples_leaf : rpart's minsplit = 20 and minbucket = round(20 / 3) = 7 by default.
    class_weight : None, "balanced" or a dict ``{label: weight}`` (misclassification costs).
    random_state : seeds the feature permutation used to break ties between equally good splits.
    node_limit : at most this many nodes grown (>= 3; best-first growth to ``(node_limit + 1) // 2`` leaves).
    memory_limit : bytes, a size such as ``"2G"``, ``"auto"`` (half of the physical memory) or None: a fit whose
        estimated memory (the float32 copy of ``X`` and at most ``2 N`` nodes) exceeds it is refused with a
        ValueError before growing.
    time_limit : accepted for the common estimator contract and checked, but CART has no search to stop: the
        greedy growth always runs to completion (``O(N m depth)`` time).
    verbose : >= 1 prints the grown and pruned tree sizes and the fit time to stderr.
    """

    _parameter_constraints: dict = {
        "cp": [Number(Real, 0, 1, closed="left"), None],
        "ccp_alpha": [Number(Real, 0, None, closed="left")],
        "max_leaf_nodes": [Number(Integral, 2, None, closed="left"), None],
        "max_depth": [Number(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Number(Integral, 2, None, closed="left")],
        "min_samples_leaf": [Number(Integral, 1, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "random_state": ["random_state"],
        **LIMIT_CONSTRAINTS,
        "node_limit": [Number(Integral, 3, MAX_NODES, closed="both"), None],
    }

    def __init__(self, cp=0.01, ccp_alpha=0.0, max_leaf_nodes=None, max_depth=30, min_samples_split=20,
                 min_samples_leaf=7, class_weight=None, random_state=0, time_limit=None, node_limit=None,
                 memory_limit="auto", verbose=0):
        self.cp = cp
        self.ccp_alpha = ccp_alpha
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.class_weight = class_weight
        self.random_state = random_state
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        self._validate_params()
        t0 = time.perf_counter()
        shape = np.shape(X)
        cap = parse_memory(self.memory_limit)
        if cap is not None and len(shape) == 2:
            need = 4 * shape[0] * shape[1] + 2 * shape[0] * 96  # float32 X; <= 2N nodes of ~96 bytes
            if need > cap:
                raise ValueError(f"memory_limit {cap} bytes is below the {need} bytes CART needs for this X")
        max_leaves = self.max_leaf_nodes
        if self.node_limit is not None:
            max_leaves = min(max_leaves or MAX_NODES, (self.node_limit + 1) // 2)
        self.tree_model_ = DecisionTreeClassifier(
            criterion="gini", max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, max_leaf_nodes=max_leaves, ccp_alpha=self.ccp_alpha,
            class_weight=self.class_weight, random_state=self.random_state).fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.tree_model_.classes_
        self.n_features_in_ = self.tree_model_.n_features_in_
        t = self.tree_model_.tree_
        # weighted class counts per node (sklearn stores weighted fractions from 1.4 on; rescale by the node weight)
        value = t.value[:, 0, :]
        value = value / np.maximum(value.sum(axis=1, keepdims=True), 1e-300) * t.weighted_n_node_samples[:, None]
        self.node_value_ = value
        leaf_of = np.arange(t.node_count)
        if self.cp is not None and self.cp > 0:
            keep_leaf = _rpart_prune(t.children_left, t.children_right, value, self.cp)
            # map every node to its highest ancestor that became a leaf (sklearn numbers parents before children)
            for node in np.flatnonzero(t.children_left >= 0):
                if keep_leaf[node] or leaf_of[node] != node:
                    leaf_of[[t.children_left[node], t.children_right[node]]] = leaf_of[node]
        self.leaf_of_ = leaf_of
        leaves = np.unique(leaf_of[t.children_left == -1])
        self.n_leaves_ = int(len(leaves))
        if self.verbose:
            print(f"CART: {t.n_leaves} leaves grown, {self.n_leaves_} after pruning, "
                  f"{time.perf_counter() - t0:.3f} s", file=sys.stderr)
        return self

    def apply(self, X):
        return self.leaf_of_[self.tree_model_.apply(X)]

    def predict_proba(self, X):
        v = self.node_value_[self.apply(X)]
        return v / v.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self.node_value_[self.apply(X)], axis=1)]


def _rpart_prune(left, right, value, cp: float) -> np.ndarray:
    """Weakest-link pruning on the misclassification risk with threshold ``cp * R(root)``.

    Returns a boolean per node: True where the node becomes a leaf of the pruned tree (its subtree is cut).
    """
    n = len(left)
    risk = value.sum(axis=1) - value.max(axis=1)  # misclassified weight if the node were a leaf
    alpha = cp * risk[0]
    cut = np.zeros(n, dtype=bool)
    while True:
        # subtree risk and leaf count of every node in the current (partly cut) tree, bottom-up
        sub_risk = risk.copy()
        n_leaves = np.ones(n)
        best, best_g = -1, np.inf
        for node in _postorder(left, right, cut):
            if left[node] >= 0 and not cut[node]:
                sub_risk[node] = sub_risk[left[node]] + sub_risk[right[node]]
                n_leaves[node] = n_leaves[left[node]] + n_leaves[right[node]]
                g = (risk[node] - sub_risk[node]) / (n_leaves[node] - 1)
                if g < best_g - 1e-12:
                    best, best_g = node, g
        if best < 0 or best_g > alpha:
            return cut
        cut[best] = True


def _postorder(left, right, cut) -> list[int]:
    out, stack = [], [(0, False)]
    while stack:
        node, seen = stack.pop()
        if seen or left[node] < 0 or cut[node]:
            out.append(node)
            continue
        stack.append((node, True))
        stack.append((right[node], False))
        stack.append((left[node], False))
    return out
