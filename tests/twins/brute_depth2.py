"""Brute force over every decision tree of depth <= 2 on dense 0/1 data (imports nothing from optbb).

A tree is ``(f_root, f_left, f_right)`` with -1 for "no split"; "left" is the branch where the root feature is 0.
Every feature is tried at every node, including splits with an empty side, so nothing is assumed about which
trees can be optimal.
"""
from __future__ import annotations

import numpy as np


def leaf_errors(y: np.ndarray, n_classes: int) -> int:
    """Samples of a leaf outside its most frequent class."""
    if y.size == 0:
        return 0
    return int(y.size - np.bincount(y, minlength=n_classes).max())


def tree_errors(X: np.ndarray, y: np.ndarray, mask: np.ndarray, n_classes: int, tree) -> int:
    """Errors of tree ``(f_root, f_left, f_right)`` on the rows selected by the boolean ``mask``."""
    f, gl, gr = tree
    if f < 0:
        return leaf_errors(y[mask], n_classes)
    err = 0
    for side, g in ((0, gl), (1, gr)):
        rows = mask & (X[:, f] == side)
        if g < 0:
            err += leaf_errors(y[rows], n_classes)
        else:
            err += leaf_errors(y[rows & (X[:, g] == 0)], n_classes) + leaf_errors(y[rows & (X[:, g] == 1)], n_classes)
    return err


def n_leaves(tree) -> int:
    f, gl, gr = tree
    return 1 if f < 0 else 2 + (gl >= 0) + (gr >= 0)


def all_trees(m: int, max_depth: int = 2):
    """Every tree of depth <= max_depth (0, 1 or 2) over m features."""
    yield (-1, -1, -1)
    if max_depth < 1:
        return
    for f in range(m):
        yield (f, -1, -1)
        if max_depth < 2:
            continue
        for g in range(m):
            yield (f, g, -1)
            yield (f, -1, g)
            for h in range(m):
                yield (f, g, h)


def all_costs(X, y, mask, n_classes, lam_n, max_depth=2):
    """List of ``(cost, errors, leaves, tree)`` for every tree of depth <= max_depth."""
    out = []
    for t in all_trees(X.shape[1], max_depth):
        e = tree_errors(X, y, mask, n_classes, t)
        L = n_leaves(t)
        out.append((e + lam_n * L, e, L, t))
    return out


def best(X, y, mask, n_classes, lam_n, max_depth=2, tol=1e-9):
    """``(cost, fewest leaves among the trees within tol of the optimum)``."""
    rows = all_costs(X, y, mask, n_classes, lam_n, max_depth)
    cost = min(r[0] for r in rows)
    return cost, min(r[2] for r in rows if r[0] <= cost + tol)


def min_errors_at_most(X, y, mask, n_classes, max_leaves):
    """Minimum errors of a depth <= 2 tree with at most ``max_leaves`` leaves."""
    return min(r[1] for r in all_costs(X, y, mask, n_classes, 0.0) if r[2] <= max_leaves)
