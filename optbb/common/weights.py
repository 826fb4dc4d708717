"""Sample and class weights as one per-sample weight vector, the form every weighted kernel reads.

A weighted objective replaces "errors / N" by "weight of the misclassified samples / total weight"; integer weights
then give exactly the objective of repeated rows (sums of integers are exact in float64 up to 2**53).
"""

from __future__ import annotations

import numpy as np


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """``sample_weight`` as a new float64 vector of ``n_samples`` finite, non-negative weights, not all zero (a
    single number weighs every sample alike, as in scikit-learn); a ``ValueError`` naming the problem otherwise."""
    w = np.array(sample_weight, dtype=np.float64, copy=True)
    if w.ndim == 0:
        w = np.full(n_samples, w)
    if w.ndim > 2 or (w.ndim == 2 and w.shape[1] != 1):
        raise ValueError(f"sample_weight must be 1-D (one weight per sample), got shape {w.shape}")
    w = w.reshape(-1)
    if w.shape[0] != n_samples:
        raise ValueError(f"length mismatch: X has {n_samples} samples but sample_weight has {w.shape[0]}")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or inf")
    if np.any(w < 0):
        raise ValueError("sample_weight contains negative values")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise ValueError("sample_weight sums to more than the largest float: scale the weights down")
    if total <= 0:
        raise ValueError("sample_weight sums to zero")
    return w


def combined_weights(y: np.ndarray, sample_weight: np.ndarray | None, class_weight, classes: np.ndarray,
                     name: str) -> np.ndarray | None:
    """``sample_weight * class_weight[y]`` as a float64 vector, or None when every sample weighs the same.

    ``y`` holds class indices ``0 .. len(classes) - 1``; ``class_weight`` is None, ``"balanced"`` (scikit-learn's
    ``n_samples / (n_classes * count)``, counted on ``sample_weight`` when given) or a dict ``{label: weight}``.
    ``sample_weight`` has already been checked (finite, non-negative, not all zero).  A dict may name labels that
    ``y`` lacks (a cross-validation fold without them) when it weighs every label of ``y``, as in scikit-learn:
    their weights are unused.  Raises ``ValueError`` naming ``name`` when the weights leave a single class, a dict's
    weight is not a finite non-negative number, or a dict names a label absent from ``y`` and leaves one of ``y``
    unweighted (a likely typo).
    """
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(y.shape[0]) if sample_weight is None else np.array(sample_weight, dtype=np.float64, copy=True)
    if class_weight is not None:
        with np.errstate(over="ignore"):
            w *= _class_factors(y, w, class_weight, classes, name)[y]
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name}: sample_weight times class_weight overflows to inf")
    if np.count_nonzero(np.bincount(y, weights=w, minlength=len(classes)) > 0) < 2:
        raise ValueError(f"{name}: after the weights, only one class has positive weight; a classifier needs two")
    return None if np.all(w == w[0]) else w


def _class_factors(y: np.ndarray, w: np.ndarray, class_weight, classes: np.ndarray, name: str) -> np.ndarray:
    k = len(classes)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"{name}: class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
        totals = np.bincount(y, weights=w, minlength=k)
        return np.where(totals > 0, w.sum() / (k * np.maximum(totals, 1e-300)), 0.0)
    if not isinstance(class_weight, dict):
        raise ValueError(f"{name}: class_weight must be None, 'balanced' or a dict, got {type(class_weight).__name__}")
    factors = np.ones(k)
    index = {label: i for i, label in enumerate(classes.tolist())}
    absent, weighted = [], set()
    for label, factor in class_weight.items():
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)) \
                or not np.isfinite(factor) or factor < 0:
            raise ValueError(f"{name}: class_weight[{label!r}] must be a finite non-negative number, got {factor!r}")
        key = label.item() if isinstance(label, np.generic) else label
        if key in index:
            factors[index[key]] = float(factor)
            weighted.add(index[key])
        else:
            absent.append(label)
    unweighted = [c for i, c in enumerate(classes.tolist()) if i not in weighted]
    if absent and unweighted:  # scikit-learn's rule: absent labels are fine when every label of y is weighed
        raise ValueError(f"{name}: class_weight names label {absent[0]!r}, which is not in y (classes: "
                         f"{classes.tolist()}), and gives no weight to {unweighted}; a class_weight naming labels "
                         "absent from y (as in a cross-validation fold) must weigh every label of y")
    return factors


def drop_zero_weights(w: np.ndarray | None, *rows: np.ndarray) -> tuple:
    """``(w, *rows)`` as a search reads them: the samples of weight 0 left out of ``w`` and of each row-aligned array
    in ``rows`` (they change no objective, and leaving them out makes integer weights exactly repeated rows, zero
    repetitions included), then equal weights replaced by None (every objective is a rate, so they change nothing and
    the popcount kernels run).  What needs no change is returned as it came (the same objects)."""
    if w is None:
        return (None, *rows)
    w = np.asarray(w, dtype=np.float64)
    if not np.all(w > 0):
        keep = w > 0
        w, rows = w[keep], tuple(a[keep] for a in rows)
    return (None if np.all(w == w[:1]) else w, *rows)
