"""Brute force over every decision tree of depth <= 2 on numeric columns, every threshold of every column tried at
every node (imports nothing from optbb).

A split at a node is ``x_j <= t`` with ``t`` half-way between two consecutive distinct values of column ``j`` among
the rows that reach that node, as the problem is stated; nothing is assumed about global cuts.  The objective is
``(weight of the misclassified rows) / (total weight) + lam * leaves``, a leaf predicting its heaviest class.
"""
from __future__ import annotations

import numpy as np


def leaf_error(y: np.ndarray, w: np.ndarray, n_classes: int) -> float:
    """Weight of the rows of a leaf outside its heaviest class."""
    if y.size == 0:
        return 0.0
    per_class = np.bincount(y, weights=w, minlength=n_classes)
    return float(per_class.sum() - per_class.max())


def node_cuts(X: np.ndarray, rows: np.ndarray):
    """Every ``(column, threshold)`` splitting the rows ``rows`` (a boolean mask) into two non-empty sides."""
    for j in range(X.shape[1]):
        values = np.unique(X[rows, j])
        for lo, hi in zip(values[:-1], values[1:]):
            yield j, (lo + hi) / 2


def best_cost(X, y, w, rows, n_classes: int, lam_w: float, depth: int) -> float:
    """Least ``errors + lam_w * leaves`` (weights) of a tree of depth <= ``depth`` on the rows ``rows``."""
    best = leaf_error(y[rows], w[rows], n_classes) + lam_w
    if depth == 0:
        return best
    for j, t in node_cuts(X, rows):
        left = rows & (X[:, j] <= t)
        right = rows & ~(X[:, j] <= t)
        cost = (best_cost(X, y, w, left, n_classes, lam_w, depth - 1)
                + best_cost(X, y, w, right, n_classes, lam_w, depth - 1))
        best = min(best, cost)
    return best


def optimal_objective(X, y, lam: float, max_depth: int, sample_weight=None, n_classes: int | None = None) -> float:
    """The optimal objective over every tree of depth <= ``max_depth`` (0, 1 or 2) on numeric ``X``."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    k = int(y.max()) + 1 if n_classes is None else n_classes
    total = float(w.sum())
    rows = np.ones(len(y), dtype=bool)
    return best_cost(X, y, w, rows, k, lam * total, max_depth) / total


def tree_objective(predictions, y, lam: float, n_leaves: int, sample_weight=None) -> float:
    """The objective of a fitted tree from its predictions on its training rows."""
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return float(w[np.asarray(predictions) != y].sum() / w.sum()) + lam * n_leaves
