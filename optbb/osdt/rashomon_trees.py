"""``TreeBackend``: the Rashomon set of trees (a :class:`~optbb.osdt.rashomon.TreeSpace` and its root) as
:class:`~optbb.common.rashomon.RashomonSet` reads it: levels, listing, unranking, and the exact per-sample class
counts and per-feature usage, computed on the subproblems without listing a tree."""
from __future__ import annotations

import numpy as np

from ..common.rashomon import Level, within
from .model import Tree
from .rashomon import KEY, TreeSpace
from .rashomon_summary import class_counts, outside_weights, parents_first, usage_recounts


class TreeBackend:
    """The members of ``root`` (a subproblem id) with cost at most ``bound``."""

    def __init__(self, space: TreeSpace, root: int, bound: float, feature_names, classes):
        self.space, self.root, self.bound = space, root, bound
        self.feature_names, self.classes = list(feature_names), classes
        a = space.a
        pairs = [(int(k) // KEY, int(k) % KEY, int(c)) for k, c in zip(space.keys(root), space.counts(root))]
        rows = [(space.cost(e, leaves), leaves, e, c) for e, leaves, c in pairs if within(space.cost(e, leaves), bound)]
        rows.sort()
        self._pairs = [(e, leaves) for _, leaves, e, _ in rows]
        self.levels = [Level(cost, leaves, e * a.weight_unit, c) for cost, leaves, e, c in rows]
        self._weights = None
        self._leaf_info: dict = {}

    # -- models -------------------------------------------------------------------------------------------------
    def model(self, level: int, k: int) -> Tree:
        return self.tree(self.space.unrank(self.root, *self._pairs[level], k))

    def models(self, level: int):
        for shape in self.space.shapes(self.root, *self._pairs[level]):
            yield self.tree(shape)

    def tree(self, shape) -> Tree:
        """A :class:`Tree` keeping the shape (the leaves alone do not fix the order of the splits)."""
        leaves, preds, sizes, errors, counts = [], [], [], [], []

        def walk(node, path):
            if node[0] == "leaf":
                sub = node[1]
                size, wrong, per = self.leaf_info(sub)
                leaves.append(tuple(sorted(path)))
                preds.append(self.space.label(sub))
                sizes.append(size)
                errors.append(wrong)
                counts.append(list(per))
                return ("leaf", len(leaves) - 1)
            _, f, zero, one = node
            z = walk(zero, path + ((f, 0),))
            return ("split", f, z, walk(one, path + ((f, 1),)))

        shape = walk(shape, ())
        return Tree.from_shape(shape, leaves, preds, self.feature_names, sizes, errors, self.classes, counts)

    def leaf_info(self, node: int) -> tuple:
        """``(rows, misclassified rows, class amounts)`` of a subproblem as a leaf (weights for a weighted fit)."""
        got = self._leaf_info.get(node)
        if got is None:
            a, rows = self.space.a, self.space.rows(node)
            per = a.class_amounts(rows)
            label = self.space.label(node)
            wrong = int(rows.size - np.count_nonzero(a.y[rows] == label))
            per = [int(x) for x in per] if not a.weighted else [int(x) * a.weight_unit for x in per]
            got = self._leaf_info[node] = (int(rows.size), wrong, per)
        return got

    def predict(self, model: Tree, X) -> np.ndarray:
        return model.predict(X)

    def features_of(self, model: Tree) -> set:
        return set(model.features_used())

    # -- exact summaries ----------------------------------------------------------------------------------------
    def _root_pairs(self) -> np.ndarray:
        """The indices of the root's pairs within the bound (the levels) among its pairs."""
        keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        return np.searchsorted(self.space.keys(self.root), keys).astype(np.int64)

    def outside(self) -> tuple[np.ndarray, np.ndarray]:
        """``(weights, order)``: per pair of the pool, the number of ways the rest of a member completes a subtree
        of that pair, and the subproblems below the root, parents first
        (:func:`~optbb.osdt.rashomon_summary.outside_weights`)."""
        if self._weights is None:
            s = self.space.store
            order = parents_first(s.nodes, s.pools, self.root)
            w = outside_weights(s.nodes, s.pools, order, self._root_pairs(), self.space.exclude_useless)
            self._weights = (w, order)
        return self._weights

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: per training row, the members predicting each class (a subproblem is a leaf of as
        many members as its outside weight at its leaf pair, and predicts its label for each of its rows)."""
        w, order = self.outside()
        s, a = self.space.store, self.space.a
        return class_counts(s.nodes, s.pools, order, w, a.n, a.K)

    def feature_usage(self) -> list[int]:
        """Per feature, the members using it: the count minus the members of a recount without its splits (the
        recounts of all features at once, bottom-up, one column per feature)."""
        s = self.space.store
        order = parents_first(s.nodes, s.pools, self.root)
        kept = usage_recounts(s.nodes, s.pools, order, self._root_pairs(), self.space.a.m, self.space.exclude_useless)
        total = sum(lv.count for lv in self.levels)
        return [total - int(x) for x in kept]
