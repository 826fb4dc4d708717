"""``TreeBackend``: the Rashomon set of trees (a :class:`~optbb.osdt.rashomon.TreeSpace` and its root) as
:class:`~optbb.common.rashomon.RashomonSet` reads it: levels, listing, unranking, and the exact per-sample class
counts and per-feature usage, computed on the subproblems without listing a tree."""
from __future__ import annotations

import numpy as np

from ..common.rashomon import Level, within
from .model import Tree
from .rashomon import KEY, TreeSpace
from .rashomon_kernel import combinations
from .rashomon_store import N_SIZE


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
    def _order(self) -> list[int]:
        """The subproblems below the root, parents before children (children have less depth or support)."""
        sp = self.space
        seen, stack = {self.root}, [self.root]
        while stack:
            _, lefts, rights = sp.options(stack.pop())
            for child in (*lefts.tolist(), *rights.tolist()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        nodes = sp.store.nodes
        return sorted(seen, key=lambda i: (-int(nodes.rows[i, -1]), -int(nodes.ints[i, N_SIZE])))

    def outside(self) -> tuple[dict, list[int]]:
        """Per subproblem, an array over its pairs: the number of ways the rest of a member completes a subtree of
        that pair (top-down: the root's pairs within the bound weigh 1, a split passes its weight times the
        sibling's count to each child)."""
        if self._weights is not None:
            return self._weights
        sp = self.space
        order = self._order()
        root_keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        w = {i: np.zeros(sp.keys(i).size, dtype=np.int64) for i in order}
        w[self.root][np.searchsorted(sp.keys(self.root), root_keys)] = 1
        for node in order:
            here = w[node]
            if not here.any():
                continue
            _, lefts, rights = sp.options(node)
            for left, right in zip(lefts.tolist(), rights.tolist()):
                i, j, at = self._combinations(node, left, right)
                through = here[at]
                keep = through > 0
                np.add.at(w[left], i[keep], through[keep] * sp.counts(right)[j[keep]])
                np.add.at(w[right], j[keep], through[keep] * sp.counts(left)[i[keep]])
        self._weights = (w, order)
        return self._weights

    def _combinations(self, node: int, left: int, right: int):
        """Index arrays ``(i, j, at)``: left pair ``i`` and right pair ``j`` combine into ``node``'s pair ``at``."""
        sp = self.space
        return combinations(sp.keys(node), sp.keys(left), sp.keys(right), sp.leaf_errors(node), sp.exclude_useless)

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: per training row, the members predicting each class (a subproblem is a leaf of as
        many members as its outside weight at its leaf pair, and predicts its label for each of its rows)."""
        w, order = self.outside()
        sp = self.space
        a = sp.a
        out = np.zeros((a.n, a.K), dtype=np.int64)
        for node in order:
            keys, leaf = sp.keys(node), sp.leaf_errors(node) * KEY + 1
            at = np.searchsorted(keys, leaf)
            if at < keys.size and keys[at] == leaf and w[node][at]:
                out[sp.rows(node), sp.label(node)] += w[node][at]
        return out

    def feature_usage(self) -> list[int]:
        """Per feature, the members using it: the count minus the members of a recount without its splits (the
        recounts of all features at once, bottom-up, one column per feature)."""
        sp = self.space
        m = sp.a.m
        order = self._order()
        without: dict = {}
        for node in reversed(order):
            keys, leaf_key = sp.keys(node), sp.leaf_errors(node) * KEY + 1
            c = np.zeros((keys.size, m), dtype=np.int64)
            leaf = np.searchsorted(keys, leaf_key)
            if leaf < keys.size and keys[leaf] == leaf_key:
                c[leaf] = 1
            feats, lefts, rights = sp.options(node)
            for f, left, right in zip(feats.tolist(), lefts.tolist(), rights.tolist()):
                i, j, at = self._combinations(node, left, right)
                ways = without[left][i] * without[right][j]
                ways[:, f] = 0
                np.add.at(c, at, ways)
            without[node] = c
        root = without[self.root]
        keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        kept = root[np.searchsorted(sp.keys(self.root), keys)].sum(0) if keys.size else np.zeros(m, dtype=np.int64)
        total = sum(lv.count for lv in self.levels)
        return [total - int(x) for x in kept]
