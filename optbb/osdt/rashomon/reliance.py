"""Compiled model reliance of the trees of a Rashomon set (:mod:`optbb.common.reliance`), on the preorder arrays of
:mod:`optbb.osdt.rashomon.listing`.

A tree relies on column ``j`` only through its splits on ``j``: a row whose flip changes its prediction goes, at
the first split on ``j`` of its path, into the other subtree, and is predicted there as the other rows are.  So per
distinct row the kernel walks the row's path, and from each split on it walks the other side down with the flipped
row: ``depth * depth`` steps per row and tree, and each row a flip moves adds ``other[j, x_j] (amounts[p] -
amounts[p'])`` to the numerator of ``j``.
"""
from __future__ import annotations

import numpy as np

from ...common.jit import njit


@njit(cache=True, inline="always")
def _leaf_of(feat, right, row, start, flip):
    """The leaf the row reaches from node ``start``, with column ``flip`` flipped (-1: none)."""
    v = start
    while feat[v] >= 0:
        x = row[feat[v]] ^ (1 if feat[v] == flip else 0)
        v = right[v] if x else v + 1
    return v


@njit(cache=True)
def tree_reliances(feat, node, labels, rows, amounts, other, out_feat, out_num):
    """For each tree ``i`` (preorder rows of ``feat`` / ``node``; ``labels`` the class of each subproblem as a
    leaf), the columns it splits on (ascending, into ``out_feat[i]``, -1 after) and the numerators of its reliance
    on them (``out_num[i]``)."""
    n_models, width = feat.shape
    m = rows.shape[1]
    right = np.empty(width, dtype=np.int64)
    end = np.empty(width, dtype=np.int64)
    path = np.empty(width, dtype=np.int64)
    acc = np.zeros(m)
    used = np.zeros(m, dtype=np.bool_)
    for i in range(n_models):
        f = feat[i]
        size = 0
        while size < width and f[size] != -2:
            size += 1
        for t in range(size - 1, -1, -1):  # children after their parent: ends known right to left
            if f[t] < 0:
                end[t] = t + 1
            else:
                right[t] = end[t + 1]
                end[t] = end[right[t]]
                used[f[t]] = True
        for r in range(rows.shape[0]):
            row = rows[r]
            depth, v = 0, 0
            while f[v] >= 0:
                path[depth] = v
                depth += 1
                v = right[v] if row[f[v]] else v + 1
            p = labels[node[i, v]]
            for q in range(depth):
                s = path[q]
                j = f[s]
                other_side = s + 1 if row[j] else right[s]
                p2 = labels[node[i, _leaf_of(f, right, row, other_side, j)]]
                if p2 != p:
                    acc[j] += other[j, row[j]] * (amounts[r, p] - amounts[r, p2])
        k = 0
        for j in range(m):
            if used[j]:
                out_feat[i, k], out_num[i, k] = j, acc[j]
                k += 1
                used[j], acc[j] = False, 0.0
        for t in range(k, out_feat.shape[1]):
            out_feat[i, t], out_num[i, t] = -1, 0.0
