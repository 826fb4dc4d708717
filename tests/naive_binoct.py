"""Brute-force twins of BinOCT / RBinOCT: the best complete decision tree of a fixed depth.

``complete_brute_force`` enumerates every assignment of features to the ``2^d - 1`` internal nodes (tiny problems
only).  ``complete_dp`` computes the same minimum by recursion over regions: a complete tree of depth ``d`` on a
region is a feature at the root and two complete trees of depth ``d - 1`` on the halves, and the objective (errors,
plus ``lambda N`` per non-empty leaf for RBinOCT) adds up over the halves.  It handles Monk1 at depth 3 in well
under a second and certifies the optimum independently of the MIP.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from optbb.baselines.binoct import tree_from_features

__all__ = ["complete_brute_force", "complete_dp"]


def complete_brute_force(X, y, depth: int, regularization: float | None = None):
    """``(best objective, a best tree)``; objective = errors (BinOCT) or errors / N + lambda * non-empty leaves."""
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.uint8)
    n, m = X.shape
    best, best_tree = math.inf, None
    for feats in itertools.product(range(m), repeat=(1 << depth) - 1):
        t = tree_from_features(X, y, depth, feats, [f"x{j}" for j in range(m)])
        err = sum(t.errors)
        obj = err if regularization is None else err / n + regularization * t.n_leaves
        if obj < best - 1e-12:
            best, best_tree = obj, t
    return best, best_tree


def complete_dp(X, y, depth: int, regularization: float | None = None) -> float:
    """The same minimum as ``complete_brute_force`` by recursion over regions (no tree returned)."""
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.uint8)
    n = X.shape[0]
    pen = 0.0 if regularization is None else regularization * n

    def best(rows: np.ndarray, d: int) -> float:
        if rows.size == 0:
            return 0.0
        if d == 0:
            pos = int(y[rows].sum())
            return min(pos, rows.size - pos) + pen
        out = math.inf
        for f in range(X.shape[1]):
            col = X[rows, f]
            out = min(out, best(rows[col == 0], d - 1) + best(rows[col == 1], d - 1))
        return out

    total = best(np.arange(n), depth)
    return total if regularization is None else total / n
