"""``TreeBackend``: the Rashomon set of trees (a :class:`~optbb.osdt.rashomon.TreeSpace` and its root) as
:class:`~optbb.common.rashomon.RashomonSet` reads it: levels, listing, unranking, and the exact per-sample class
counts and per-feature usage, computed on the subproblems without listing a tree."""
from __future__ import annotations

import numpy as np

from ..common.rashomon import Level, within
from .model import Tree
from .rashomon import KEY, Node, TreeSpace
from .rashomon_kernel import combinations


class TreeBackend:
    """The members of ``root`` with cost at most ``bound``."""

    def __init__(self, space: TreeSpace, root: Node, bound: float, feature_names, classes):
        self.space, self.root, self.bound = space, root, bound
        self.feature_names, self.classes = list(feature_names), classes
        a = space.a
        rows = [(space.cost(e, leaves), leaves, e, c) for (e, leaves), c in root.pairs.items()
                if within(space.cost(e, leaves), bound)]
        rows.sort()
        self._pairs = [(e, leaves) for _, leaves, e, _ in rows]
        self.levels = [Level(cost, leaves, e * a.weight_unit, c) for cost, leaves, e, c in rows]
        self._weights = None

    # -- models -------------------------------------------------------------------------------------------------
    def model(self, level: int, k: int) -> Tree:
        return self.tree(self.space.unrank(self.root, *self._pairs[level], k))

    def models(self, level: int):
        for shape in self.space.shapes(self.root, *self._pairs[level]):
            yield self.tree(shape)

    def tree(self, shape) -> Tree:
        """A :class:`Tree` keeping the shape (the leaves alone do not fix the order of the splits)."""
        a = self.space.a
        leaves, preds, sizes, errors, counts = [], [], [], [], []

        def walk(node, path):
            if node[0] == "leaf":
                sub = node[1]
                if sub.leaf_info is None:
                    sub.leaf_info = (sub.S.bit_count(), (sub.S & ~a.classes[sub.label]).bit_count(),
                                     leaf_class_amounts(a, sub))
                leaves.append(tuple(sorted(path)))
                preds.append(sub.label)
                sizes.append(sub.leaf_info[0])
                errors.append(sub.leaf_info[1])
                counts.append(list(sub.leaf_info[2]))
                return ("leaf", len(leaves) - 1)
            _, f, zero, one = node
            z = walk(zero, path + ((f, 0),))
            return ("split", f, z, walk(one, path + ((f, 1),)))

        shape = walk(shape, ())
        return Tree.from_shape(shape, leaves, preds, self.feature_names, sizes, errors, self.classes, counts)

    def predict(self, model: Tree, X) -> np.ndarray:
        return model.predict(X)

    def features_of(self, model: Tree) -> set:
        return set(model.features_used())

    # -- exact summaries ----------------------------------------------------------------------------------------
    def _order(self) -> list[Node]:
        """The subproblems below the root, parents before children (children have less depth or support)."""
        seen, stack = {id(self.root): self.root}, [self.root]
        while stack:
            for _, left, right in stack.pop().options:
                for child in (left, right):
                    if id(child) not in seen:
                        seen[id(child)] = child
                        stack.append(child)
        return sorted(seen.values(), key=lambda n: (-n.d, -n.S.bit_count()))

    def outside(self) -> tuple[dict, list[Node]]:
        """Per subproblem, an array over its pairs: the number of ways the rest of a member completes a subtree of
        that pair (top-down: the root's pairs within the bound weigh 1, a split passes its weight times the
        sibling's count to each child)."""
        if self._weights is not None:
            return self._weights
        order = self._order()
        root_keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        w = {id(n): np.zeros(n.keys.size, dtype=np.int64) for n in order}
        w[id(self.root)][np.searchsorted(self.root.keys, root_keys)] = 1
        for node in order:
            here = w[id(node)]
            if not here.any():
                continue
            for _, left, right in node.options:
                i, j, at = self._combinations(node, left, right)
                through = here[at]
                keep = through > 0
                np.add.at(w[id(left)], i[keep], through[keep] * right.counts[j[keep]])
                np.add.at(w[id(right)], j[keep], through[keep] * left.counts[i[keep]])
        self._weights = (w, order)
        return self._weights

    def _combinations(self, node: Node, left: Node, right: Node):
        """Index arrays ``(i, j, at)``: left pair ``i`` and right pair ``j`` combine into ``node``'s pair ``at``."""
        return combinations(node.keys, left.keys, right.keys, node.leaf_errors, self.space.exclude_useless)

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: per training row, the members predicting each class (a subproblem is a leaf of as
        many members as its outside weight at its leaf pair, and predicts its label for each of its rows)."""
        w, order = self.outside()
        a = self.space.a
        out = np.zeros((a.n, a.K), dtype=np.int64)
        for node in order:
            at = np.searchsorted(node.keys, node.leaf_errors * KEY + 1)
            if at < node.keys.size and node.keys[at] == node.leaf_errors * KEY + 1 and w[id(node)][at]:
                out[a.rows(node.S), node.label] += w[id(node)][at]
        return out

    def feature_usage(self) -> list[int]:
        """Per feature, the members using it: the count minus the members of a recount without its splits (the
        recounts of all features at once, bottom-up, one column per feature)."""
        m = self.space.a.m
        order = self._order()
        without: dict = {}
        for node in reversed(order):
            c = np.zeros((node.keys.size, m), dtype=np.int64)
            leaf = np.searchsorted(node.keys, node.leaf_errors * KEY + 1)
            if leaf < node.keys.size and node.keys[leaf] == node.leaf_errors * KEY + 1:
                c[leaf] = 1
            for f, left, right in node.options:
                i, j, at = self._combinations(node, left, right)
                ways = without[id(left)][i] * without[id(right)][j]
                ways[:, f] = 0
                np.add.at(c, at, ways)
            without[id(node)] = c
        root = without[id(self.root)]
        keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        kept = root[np.searchsorted(self.root.keys, keys)].sum(0) if keys.size else np.zeros(m, dtype=np.int64)
        total = sum(lv.count for lv in self.levels)
        return [total - int(x) for x in kept]


def leaf_class_amounts(a, node: Node) -> list:
    """A leaf's training class counts (weights, for a weighted fit)."""
    per = [a.mass(node.S & c) for c in a.classes]
    return per if a.table is None else [x * a.weight_unit for x in per]
