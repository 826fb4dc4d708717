"""Brute-force twin of the Rashomon set of trees: lists every tree on tiny data and keeps those within the bound.

Imports nothing from optbb.  A tree is ``("leaf",)`` or ``(feature, zero subtree, one subtree)``; every split has
two non-empty sides and at most ``max_depth`` splits lie on a path (None: no limit); with ``exclude_useless`` a split
into two leaves must lower the errors.  Objective: ``errors / N + lam * leaves`` (errors and ``N`` in weight with
``sample_weight``; a leaf predicts its class of largest weight, ties to the larger class; each class's weight is
summed in row order, a leaf's errors are the other classes' weights added in class order).
"""
from __future__ import annotations

import numpy as np

TOLERANCE = 1e-9  # a tree is a member when its objective is at most bound + TOLERANCE * max(1, bound)


def _leaf(rows, y, w, k):
    amounts = np.bincount(y[rows], weights=w[rows], minlength=k)
    label = k - 1 - int(np.argmax(amounts[::-1]))
    return float(sum(a for c, a in enumerate(amounts.tolist()) if c != label)), label


def all_trees(X, y, max_depth=None, sample_weight=None, exclude_useless=True, n_classes=None):
    """Every tree with ``(shape, errors, leaves)``."""
    X, y = np.asarray(X, dtype=np.int64), np.asarray(y, dtype=np.int64)
    n, m = X.shape
    k = int(n_classes or y.max() + 1)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)

    def rec(rows, d):
        err, _ = _leaf(rows, y, w, k)
        out = [(("leaf",), err, 1)]
        if d == 0:
            return out
        for f in range(m):
            zero, one = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
            if not zero.size or not one.size:
                continue
            for a in rec(zero, d - 1):
                for b in rec(one, d - 1):
                    if exclude_useless and a[2] == 1 and b[2] == 1 and a[1] + b[1] >= err:
                        continue
                    out.append(((f, a[0], b[0]), a[1] + b[1], a[2] + b[2]))
        return out

    return rec(np.arange(n), m if max_depth is None else max_depth)


def rashomon_members(X, y, lam, bound=None, epsilon=None, max_depth=None, sample_weight=None, exclude_useless=True,
                     n_classes=None):
    """``(optimum, bound, members)``: members as ``(objective, leaves, shape)`` sorted by objective."""
    total = len(y) if sample_weight is None else float(np.sum(sample_weight))
    trees = [(e / total + lam * leaves, leaves, shape)
             for shape, e, leaves in all_trees(X, y, max_depth, sample_weight, exclude_useless, n_classes)]
    optimum = min(t[0] for t in trees)
    limit = (1 + epsilon) * optimum if epsilon is not None else bound
    members = [t for t in trees if t[0] <= limit + TOLERANCE * max(1.0, abs(limit))]
    members.sort(key=lambda t: (t[0], t[1]))
    return optimum, limit, members



def predict(shape, X, labels: dict):
    """Predictions of a twin tree on the rows of ``X``: ``labels`` maps each leaf (its tuple of literals
    ``(feature, value)``, sorted) to its label."""
    X = np.asarray(X, dtype=np.int64)
    out = []
    for row in X:
        node, path = shape, []
        while node[0] != "leaf":
            f, zero, one = node
            path.append((f, int(row[f])))
            node = one if row[f] else zero
        out.append(labels[tuple(sorted(path))])
    return np.array(out)


def leaf_labels(shape, X, y, sample_weight=None, n_classes=None):
    """Each leaf's majority label (ties to the larger class) on the training rows reaching it."""
    X, y = np.asarray(X, dtype=np.int64), np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    k = int(n_classes or y.max() + 1)
    out = {}

    def rec(node, rows, path):
        if node[0] == "leaf":
            out[tuple(sorted(path))] = _leaf(rows, y, w, k)[1]
            return
        f, zero, one = node
        rec(zero, rows[X[rows, f] == 0], path + [(f, 0)])
        rec(one, rows[X[rows, f] == 1], path + [(f, 1)])

    rec(shape, np.arange(len(y)), [])
    return out
