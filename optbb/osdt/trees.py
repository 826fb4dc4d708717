"""Tree construction shared by both OSDT searches: a :class:`~optbb.osdt.model.Tree` from a leaf set (each leaf a
tuple of ``(feature, value)`` literals) with its majority labels and counts, and the check of multi-class labels."""
from __future__ import annotations

import numpy as np

from ..common.bounds import majority_labels
from .model import Tree


def leaf_stats(X: np.ndarray, y: np.ndarray, leaves, n_classes: int, weights: np.ndarray | None = None):
    """Per leaf: :func:`leaf_stat` of the rows of ``X`` it captures."""
    out = []
    for leaf in leaves:
        hit = np.ones(X.shape[0], dtype=bool)
        for f, v in leaf:
            hit &= X[:, f] == v
        out.append(leaf_stat(y[hit], None if weights is None else weights[hit], n_classes))
    return out


def leaf_stat(labels: np.ndarray, weights: np.ndarray | None, n_classes: int) -> tuple:
    """(majority label, samples, misclassified samples, class counts, weight of the misclassified samples) of a
    leaf holding ``labels`` (with ``weights``): the label by (weighted) majority with ties to the largest label;
    class counts are weights when ``weights`` is given."""
    cnt = np.bincount(labels, weights=weights, minlength=n_classes)
    lab = int(majority_labels(cnt))
    return _stat(cnt, lab, int(labels.size), int(np.count_nonzero(labels == lab)), weights is not None)


def leaf_stats_of(leaf_of: np.ndarray, n_leaves: int, y: np.ndarray, n_classes: int,
                  weights: np.ndarray | None = None) -> list[tuple]:
    """:func:`leaf_stat` of each of ``n_leaves`` leaves, row ``i`` in leaf ``leaf_of[i]``, all counted at once."""
    at = leaf_of * n_classes + y
    size = n_leaves * n_classes
    rows = np.bincount(at, minlength=size).reshape(n_leaves, n_classes)
    cnt = rows if weights is None else np.bincount(at, weights=weights, minlength=size).reshape(n_leaves, n_classes)
    sizes = rows.sum(axis=1).tolist()
    return [_stat(cnt[leaf], lab, sizes[leaf], int(rows[leaf, lab]), weights is not None)
            for leaf, lab in enumerate(majority_labels(cnt).tolist())]


def _stat(cnt: np.ndarray, lab: int, size: int, right: int, weighted: bool) -> tuple:
    counts = [int(v) if float(v).is_integer() else float(v) for v in cnt.tolist()]  # the form JSON reads back
    wrong = cnt.sum() - cnt[lab]
    return lab, size, size - right, counts, float(wrong) if weighted else int(wrong)


def make_tree(X, y, leaves, names, n_classes, weights=None) -> tuple[Tree, float]:
    """The :class:`Tree` of a leaf set with (weighted) majority labels, and the weight of its errors (their number
    when unweighted).  Leaves carry their numbers of samples and of misclassified samples, and their class counts
    (class weights when weighted)."""
    stats = leaf_stats(X, y, leaves, n_classes, weights)
    tree = Tree(list(leaves), [s[0] for s in stats], list(names), [s[1] for s in stats], [s[2] for s in stats],
                class_counts=[s[3] for s in stats])
    return tree, sum(s[4] for s in stats)


def check_labels(labels, n_samples: int) -> np.ndarray:
    """Integer class labels ``0 .. k-1`` (k >= 2 allowed) of length ``n_samples``, or a ValueError."""
    y = np.asarray(labels)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"labels must be a 1-D array of {n_samples} class indices, got shape {y.shape}")
    whole = y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y))
    if y.dtype.kind not in "iub" and not whole:
        raise ValueError(f"labels must be integers 0..k-1, got dtype {y.dtype}")
    y = y.astype(np.int64)
    if y.size and (y.min() < 0):
        raise ValueError(f"labels must be integers 0..k-1, got a negative label {int(y.min())}")
    return y
