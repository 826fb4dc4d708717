"""The trees of the search over sorted orders, read in Python: a preorder tree over the ranks of the columns (row 0
the column of a split, -1 for a leaf; row 1 its threshold rank, left: ``rank <= it``), its cost, its pruning and the
:class:`~optbb.osdt.model.Tree` over the raw columns it becomes.

Rows go left by their rank when the search has ranked the columns, else by their raw value (``x <= values[r]``,
the same side): a search stopped by its memory limit before ranking anything still prices and returns its CART
tree.
"""
from __future__ import annotations

import math

import numpy as np

from ..model import CutMap, Tree, cut_threshold
from ..support import leaf_stats_of
from .memo import subtree_end


class TreeWalks:
    """The walks of preorder trees of :class:`~optbb.osdt.numeric.engine.CutEngine` (its ``X``, ``values``,
    ``yi``, ``q``, ``lam_n``, ``data`` (None until ranked), ``binary``, ``column_names``, ``y``, ``w``, ``n``,
    ``k``)."""

    def _left(self, j: int, r: int, rows: np.ndarray) -> np.ndarray:
        """Whether each of ``rows`` goes left at the split of column ``j`` at rank ``r``."""
        if self.data is not None:
            return self.data.R[j, rows] <= r
        return self.X[rows, j] <= self.values[j][r]

    def _leaf_cost(self, rows: np.ndarray) -> float:
        """Cost (search units) of one leaf holding ``rows``: the weight of all but its largest class, plus
        ``lam_n``."""
        counts = np.bincount(self.yi[rows], weights=self.q[rows], minlength=self.k)
        return counts.sum() - counts.max() + self.lam_n

    def _cost(self, tree: np.ndarray) -> float:
        """Cost (search units) of a preorder tree over the ranks."""
        cost = 0.0
        for rows in self._leaf_rows(tree):
            cost += self._leaf_cost(rows)
        return cost

    def pruned(self, tree: np.ndarray) -> np.ndarray:
        """``tree`` with every split that costs at least as much as a leaf in its place made a leaf, bottom up
        (a CART tree may split into two leaves of one class)."""
        return self.pruned_cost(tree)[0]

    def pruned_cost(self, tree: np.ndarray) -> tuple[np.ndarray, float]:
        """:meth:`pruned` and the pruned tree's cost, its leaves' costs added left to right (as :meth:`_cost`
        adds them, so the two agree to the last bit)."""
        out: list[tuple[int, int, float]] = []  # preorder: column (-1: leaf), threshold rank, a leaf's cost

        def walk(pos, rows):  # -> (next position in tree, cost of the pruned subtree)
            leaf = self._leaf_cost(rows)
            at = len(out)
            j = int(tree[0, pos])
            out.append((j, int(tree[1, pos]), 0.0) if j >= 0 else (-1, 0, leaf))
            if j < 0:
                return pos + 1, leaf
            left = self._left(j, int(tree[1, pos]), rows)
            end, cost_l = walk(pos + 1, rows[left])
            end, cost_r = walk(end, rows[~left])
            if leaf <= cost_l + cost_r:
                del out[at:]
                out.append((-1, 0, leaf))
                return end, leaf
            return end, cost_l + cost_r

        walk(0, np.arange(self.n))
        cost = 0.0
        for j, _, c in out:
            if j < 0:
                cost += c
        return np.array([(j, t) for j, t, _ in out], dtype=np.int64).T.copy(), cost

    def _leaf_rows(self, tree: np.ndarray) -> list[np.ndarray]:
        out: list[np.ndarray] = []

        def walk(pos, rows):
            j = int(tree[0, pos])
            if j < 0:
                out.append(rows)
                return pos + 1
            left = self._left(j, int(tree[1, pos]), rows)
            return walk(walk(pos + 1, rows[left]), rows[~left])

        walk(0, np.arange(self.n))
        return out

    def cut_map(self, splits: list[tuple[int, int]]) -> CutMap:
        """The :class:`CutMap` of the splits ``(column, rank)`` of a tree, in that order."""
        thresholds = [None if self.binary[j] else cut_threshold(self.values[j][r], self.values[j][r + 1])
                      for j, r in splits]
        return CutMap(self.column_names, self.binary, [j for j, _ in splits], thresholds)

    def model(self, tree: np.ndarray):
        """``(Tree over the raw columns, weight of its errors)`` for a preorder tree, made in one walk of it: its
        features are its splits ``(column, rank)`` ordered by column, then threshold (:meth:`cut_map`), a cut's
        feature 1 on its left (``x <= t``), a 0/1 column's on its right (``x == 1``); its leaves are numbered in the
        order of a walk taking the branch where the feature is 1 first, as :meth:`~optbb.osdt.model.Tree.over_columns`
        numbers them."""
        splits = sorted({(int(tree[0, i]), int(tree[1, i])) for i in range(tree_length(tree)) if tree[0, i] >= 0})
        index = {s: f for f, s in enumerate(splits)}
        leaves: list[tuple] = []
        leaf_of = np.empty(self.n, dtype=np.int64)

        def walk(pos, rows, path):  # -> the shape of the subtree at ``pos``
            j = int(tree[0, pos])
            if j < 0:
                leaf_of[rows] = len(leaves)
                leaves.append(tuple(sorted(path)))
                return ("leaf", len(leaves) - 1)
            f, left = index[(j, int(tree[1, pos]))], self._left(j, int(tree[1, pos]), rows)
            sides = ((pos + 1, rows[left]), (_subtree_end(tree, pos + 1), rows[~left]))
            one, zero = sides[::-1] if self.binary[j] else sides
            one = walk(*one, path + [(f, 1)])
            zero = walk(*zero, path + [(f, 0)])
            return ("split", f, zero, one)

        shape = walk(0, np.arange(self.n), [])
        stats = leaf_stats_of(leaf_of, len(leaves), self.y, self.k, self.w)
        kept = self.cut_map(splits)
        model = Tree.from_shape(shape, leaves, [s[0] for s in stats], kept.feature_names(), [s[1] for s in stats],
                                [s[2] for s in stats], None, [s[3] for s in stats], cuts=kept)
        wrong = [s[4] for s in stats]
        return model, sum(wrong) if self.w is None else math.fsum(wrong)  # fsum: the same in any order of the leaves


def tree_length(tree: np.ndarray) -> int:
    """Nodes of a preorder tree (the array may be longer): :func:`~optbb.osdt.numeric.memo.subtree_end` run as Python,
    since compiling it (or loading it from Numba's cache) for this one call from Python cost 74 ms (10 ms) on a
    process's first numeric fit."""
    return int(_subtree_end(tree, 0))


_subtree_end = getattr(subtree_end, "py_func", subtree_end)  # the function itself when Numba is disabled


def prefix(tree: np.ndarray) -> np.ndarray:
    """A copy of the nodes of a preorder tree buffer."""
    return tree[:, :tree_length(tree)].copy()


def graft(top: np.ndarray, parts: list[np.ndarray]) -> np.ndarray:
    """The preorder tree ``top`` with its leaves, in preorder, replaced by the trees ``parts``."""
    rest = iter(parts)
    return np.concatenate([next(rest) if top[0, pos] < 0 else top[:, pos:pos + 1]
                           for pos in range(top.shape[1])], axis=1)

