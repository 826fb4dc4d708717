"""Equivalent points (CORELS Thm 20, OSDT Thm B.2): the minority vector computed from the data.

Samples are equivalent when they have identical rows over the columns the solver splits on (antecedents for
CORELS, features for OSDT).  Whatever model is learned, equivalent samples receive the same prediction, so in
each class of equivalent samples at least the minority label is misclassified.
"""
from __future__ import annotations

import numpy as np


def equivalence_classes(X: np.ndarray) -> np.ndarray:
    """Class index per sample (samples with identical rows of ``X`` share an index)."""
    X = np.ascontiguousarray(X, dtype=np.uint8)
    packed = np.packbits(X, axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1])))[:, 0]
    _, inverse = np.unique(keys, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def minority_vector(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Indicator ``z`` of the points that carry their equivalence class's minority label.

    Per class, the label with the smaller (weighted) count is the minority; on an exact tie the label-1 points
    are flagged, as in the reference CORELS (the flagged weight is the same either way).
    Sum of ``z`` (weighted) / N is the root value of the equivalent points bound (CORELS Prop. 19).
    """
    groups = equivalence_classes(X)
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    n_groups = int(groups.max(initial=-1)) + 1
    w1 = np.bincount(groups, weights=w * y, minlength=n_groups)
    w0 = np.bincount(groups, weights=w * (1 - y), minlength=n_groups)
    minority_label = np.where(w1 <= w0, 1, 0)
    return (y == minority_label[groups]).astype(np.uint8)
