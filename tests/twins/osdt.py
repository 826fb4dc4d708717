"""Brute-force twin of OSDT: every decision tree on a few binary features, objective computed directly.

Slow and obviously correct; plain numpy, nothing from optbb.  ``all_trees`` lists every tree (as its leaves) up to a
depth; ``osdt_brute_force`` takes the minimum objective over the same space, computed per region (the set of trees
of a region is every single leaf plus every split of it into two subtrees), keeping for each number of leaves only
the fewest errors, which is all the objective depends on.  Trees never split on a feature already on their path
(such a split leaves an empty side and cannot help; the search excludes it too).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["all_trees", "tree_errors", "tree_objective", "min_errors_by_leaves", "osdt_brute_force"]


def all_trees(n_features: int, max_depth: int, path: tuple = ()):
    """Every tree (list of leaves, each a tuple of (feature, value)) below the region ``path``."""
    yield [path]
    if max_depth <= 0:
        return
    used = {f for f, _ in path}
    for f in range(n_features):
        if f in used:
            continue
        for left in all_trees(n_features, max_depth - 1, path + ((f, 0),)):
            for right in all_trees(n_features, max_depth - 1, path + ((f, 1),)):
                yield left + right


def tree_errors(X, y, leaves) -> int:
    """Misclassified samples when each leaf predicts its majority label (a tie predicts 1)."""
    X, y = np.asarray(X), np.asarray(y)
    errors = 0
    for leaf in leaves:
        hit = np.ones(len(y), dtype=bool)
        for f, v in leaf:
            hit &= X[:, f] == v
        pos = int(y[hit].sum())
        neg = int(hit.sum()) - pos
        errors += pos if neg > pos else neg
    return errors


def objective_value(errors: int, n_leaves: int, n_samples: int, lam: float) -> float:
    """The regularised risk of a tree: ``errors / N + lambda * leaves`` (OSDT Eq. 4)."""
    return errors / n_samples + lam * n_leaves


def tree_objective(X, y, leaves, lam) -> float:
    return objective_value(tree_errors(X, y, leaves), len(leaves), len(y), lam)


def min_errors_by_leaves(X, y, max_depth: int | None = None) -> dict[int, int]:
    """For each number of leaves, the fewest errors of a tree with that many leaves (Pareto front only)."""
    X, y = np.asarray(X, dtype=np.int64), np.asarray(y, dtype=np.int64)
    n_features = X.shape[1]
    depth = n_features if max_depth is None else min(max_depth, n_features)

    @lru_cache(maxsize=None)
    def region(path: tuple, depth_left: int) -> tuple:
        hit = np.ones(len(y), dtype=bool)
        for f, v in path:
            hit &= X[:, f] == v
        pos = int(y[hit].sum())
        neg = int(hit.sum()) - pos
        best = {1: pos if neg > pos else neg}
        if depth_left > 0:
            used = {f for f, _ in path}
            for f in range(n_features):
                if f in used:
                    continue
                zero = dict(region(tuple(sorted(path + ((f, 0),))), depth_left - 1))
                one = dict(region(tuple(sorted(path + ((f, 1),))), depth_left - 1))
                for l0, e0 in zero.items():
                    for l1, e1 in one.items():
                        k = l0 + l1
                        if k not in best or e0 + e1 < best[k]:
                            best[k] = e0 + e1
        return _pareto(best)

    return dict(region((), depth))


def _pareto(best: dict[int, int]) -> tuple:
    """Drop (leaves, errors) pairs with more leaves and no fewer errors than another: they never minimise
    ``errors / N + lambda * leaves`` for lambda > 0, under any cap on leaves either."""
    out, lowest = [], None
    for k, e in sorted(best.items()):
        if lowest is None or e < lowest:
            out.append((k, e))
            lowest = e
    return tuple(out)


def osdt_brute_force(X, y, lam, max_depth: int | None = None, max_leaves: int | None = None):
    """``(objective, errors, leaves)`` of an optimal tree (fewest leaves among ties of the objective value)."""
    n = len(y)
    best = None
    for k, e in sorted(min_errors_by_leaves(X, y, max_depth).items()):
        if max_leaves is not None and k > max_leaves:
            continue
        obj = objective_value(e, k, n, lam)
        if best is None or obj < best[0]:
            best = (obj, e, k)
    return best
