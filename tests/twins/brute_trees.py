"""Brute-force optimal decision trees for small problems: the obvious recursion, no bounds, no pruning.

A twin of the dynamic-programming OSDT search that imports nothing from optbb.  Cost of a tree:
``errors / N + lam * leaves``; ``k`` classes (labels 0..k-1), a leaf predicts a most frequent class; optional
``max_depth`` (splits on a path).  Every split of every feature is tried (also splits with an empty side).
With ``sample_weight``, ``errors`` is the weight of the misclassified samples and ``N`` the total weight (a leaf
predicts a class of largest weight).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np


def optimal_tree_cost(X, y, lam: float, max_depth: int | None = None, sample_weight=None) -> tuple[float, int]:
    """``(errors, leaves)`` of a tree minimising ``errors + lam * N * leaves`` (ties: fewer leaves); ``errors`` and
    ``N`` are weights when ``sample_weight`` is given."""
    X = np.asarray(X, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n, m = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    lam_n = lam * (n if sample_weight is None else float(w.sum()))
    depth = m if max_depth is None else min(max_depth, m)
    k = int(y.max()) + 1

    @lru_cache(maxsize=None)
    def best(rows: frozenset, d: int) -> tuple[float, float, int]:
        idx = sorted(rows)
        counts = np.bincount(y[idx], weights=w[idx], minlength=k) if idx else np.zeros(1)
        errors = float(counts.sum() - counts.max())
        if sample_weight is None:
            errors = int(round(errors))
        out = (errors + lam_n, errors, 1)
        if d == 0:
            return out
        for f in range(m):
            zero = frozenset(i for i in idx if X[i, f] == 0)
            one = rows - zero
            a, b = best(zero, d - 1), best(one, d - 1)
            cand = (a[1] + b[1] + lam_n * (a[2] + b[2]), a[1] + b[1], a[2] + b[2])
            if (cand[0], cand[2]) < (out[0], out[2]):
                out = cand
        return out

    _, errors, leaves = best(frozenset(range(n)), depth)
    return errors, leaves


def optimal_objective(X, y, lam: float, max_depth: int | None = None, sample_weight=None) -> float:
    """Optimal ``errors / N + lam * leaves`` (weighted with ``sample_weight``)."""
    errors, leaves = optimal_tree_cost(X, y, lam, max_depth, sample_weight)
    total = len(y) if sample_weight is None else float(np.sum(sample_weight))
    return errors / total + lam * leaves
