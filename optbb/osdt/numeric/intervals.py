"""The optimal tree on one numeric column without a depth limit, exactly: an interval dynamic program.

On one ordered column a tree's leaves are intervals of the column's values, and every partition of the values into
``k`` intervals is the set of leaves of some tree of ``k`` leaves (split at any boundary, then each side again).  So
the optimum of ``errors / N + lambda * leaves`` is the best partition:

    ``best[j] = min over i < j of best[i] + errors(values i .. j-1) / N + lambda``,  ``best[0] = 0``,

where ``errors`` of an interval is what its majority class leaves (weights summed when weighted), over the column's
``V`` distinct values: ``O(V^2 K)`` in one pass, certified by construction.  Ties go to fewer leaves.  The tree
returned splits each run of intervals at its middle boundary (a balanced tree; every tree on those intervals has
the same objective).
"""
from __future__ import annotations

import time

import numpy as np

from ...common.jit import njit
from ...common.result import SearchResult, Status, common_counters
from ..model import Tree, make_tree
from .cuts import CutDataset

MAX_VALUES = 4096  # distinct values up to which the interval DP is used (about 0.1 s at the most)


def fits_intervals(data: CutDataset) -> bool:
    """Whether ``data`` is one numeric column of at most :data:`MAX_VALUES` distinct values."""
    return (len(data.column_names) == 1 and not data.columns.binary[0]
            and 2 <= len(data.columns.values[0]) <= MAX_VALUES)


@njit(cache=True)
def best_partition(cum, total, lam, best, prev, leaves):
    """The interval DP (module docstring) on the cumulative class amounts ``cum`` ((V + 1, K), row ``j`` the
    amounts of values ``0 .. j-1``): ``best[j]`` the optimum of the first ``j`` values, ``prev[j]`` where its last
    interval starts, ``leaves[j]`` its number of intervals."""
    V, K = cum.shape[0] - 1, cum.shape[1]
    best[0], prev[0], leaves[0] = 0.0, -1, 0
    for j in range(1, V + 1):
        b, p, n_leaves = np.inf, -1, 0
        for i in range(j):
            size = top = 0.0
            for c in range(K):
                a = cum[j, c] - cum[i, c]
                size += a
                top = max(top, a)
            cost = best[i] + (size - top) / total + lam
            if cost < b or (cost == b and leaves[i] + 1 < n_leaves):
                b, p, n_leaves = cost, i, leaves[i] + 1
        best[j], prev[j], leaves[j] = b, p, n_leaves


def solve_intervals(data: CutDataset, regularization: float, started: float | None = None) -> SearchResult:
    """The certified optimal tree of ``data`` (:func:`fits_intervals`) for ``regularization > 0`` without a depth
    limit, over binary features that are cuts of ``data.cuts`` (the caller maps it to the raw column)."""
    started = time.perf_counter() if started is None else started
    values = np.asarray(data.columns.values[0], dtype=np.float64)
    x, y = data.raw[:, 0], np.asarray(data.y, dtype=np.int64)
    w = np.ones(len(y)) if data.sample_weight is None else np.asarray(data.sample_weight, dtype=np.float64)
    at = np.minimum(np.searchsorted(values, x), len(values) - 1)  # rows of weight 0 may hold other values
    amounts = np.zeros((len(values), data.n_classes))
    np.add.at(amounts, (at, y), w)
    cum = np.vstack([np.zeros((1, data.n_classes)), np.cumsum(amounts, axis=0)])
    total = float(w.sum())
    V = len(values)
    best, prev, leaves = np.empty(V + 1), np.empty(V + 1, np.int64), np.empty(V + 1, np.int64)
    best_partition(cum, total, float(regularization), best, prev, leaves)
    starts, j = [], V
    while j > 0:
        j = int(prev[j])
        starts.append(j)
    cuts = sorted(s - 1 for s in starts if s > 0)  # cut f lies between values f and f + 1 (cut_map's order)
    tree, wrong = _balanced_tree(data, cuts, x, y, w)
    objective = wrong / total + regularization * tree.n_leaves
    seconds = time.perf_counter() - started
    counters = {"intervals": len(cuts) + 1, "distinct_values": V, **common_counters(
        nodes=V, improvements=1, total_time=seconds, time_to_optimum=seconds,
        memory_bytes=int(cum.nbytes + amounts.nbytes), kernel_load_time=0.0)}
    return SearchResult(tree, float(objective), float(objective), Status.OPTIMAL, counters)


def _balanced_tree(data: CutDataset, cuts: list, x, y, w):
    """The tree splitting the intervals between ``cuts`` at the middle cut, then each side likewise, over the
    binary features of ``data.cuts`` (feature ``f`` is ``x <= threshold f``); with its error weight.  Its leaf
    statistics are counted on the cuts used only (a column each)."""
    local = {f: k for k, f in enumerate(cuts)}
    leaves = []

    def split(lo: int, hi: int, path: tuple) -> None:  # the intervals between cuts[lo:hi]
        if lo == hi:
            leaves.append(tuple(sorted(path)))
            return
        mid = (lo + hi) // 2
        split(lo, mid, path + ((local[cuts[mid]], 1),))
        split(mid + 1, hi, path + ((local[cuts[mid]], 0),))

    split(0, len(cuts), ())
    thresholds = data.cuts.thresholds
    X = np.zeros((len(x), max(1, len(cuts))), dtype=np.uint8)
    for k, f in enumerate(cuts):
        X[:, k] = x <= thresholds[f]
    small, wrong = make_tree(X, y, leaves, [f"c{k}" for k in range(X.shape[1])], data.n_classes,
                             None if data.sample_weight is None else w)
    leaves = [tuple((cuts[k], v) for k, v in leaf) for leaf in small.leaves]
    tree = Tree(leaves, small.predictions, data.feature_names, small.n_samples, small.errors,
                class_counts=small.class_counts)
    return tree, wrong
