"""Model reliance of every model of a Rashomon set, exact: the rows, weights and labels it is measured on
(:class:`SwitchRows`), the per-model results in a sparse table (:class:`Reliances`) and the computation through a
model's ``predict`` for families without a compiled one (:func:`reliance_by_prediction`).

Model reliance of a model ``f`` on a 0/1 column ``j`` (Fisher, Rudin & Dominici 2019, Eq. 3.5) is ``e_switch -
e_orig`` for the 0-1 loss, where ``e_switch`` averages the loss of row ``i`` with its value of ``j`` replaced by
that of row ``l``, over the ordered pairs of distinct rows ``(i, l)``.  Row ``i`` with its own value changes
nothing, so with ``x'_i`` the row with ``j`` flipped and ``c_v`` the rows holding ``v`` in column ``j``::

    MR_j(f) = sum_i c_{1 - x_ij} (L(f(x'_i), y_i) - L(f(x_i), y_i)) / (n (n - 1))

an integer over ``n (n - 1)``: the counts are summed as integers and divided once, so a model that does not split
on ``j`` (or whose flips change no prediction) has reliance exactly 0.  With weights ``w`` (total ``W``), row ``i``
counts ``w_i / W`` and its partner ``l != i`` is drawn in proportion to ``w_l``::

    MR_j(f) = sum_i w_i C_{1 - x_ij} / (W - w_i) (L(f(x'_i), y_i) - L(f(x_i), y_i)) / W

(``C_v``: the weight of the rows holding ``v``), which is Eq. 3.5 again for equal weights (they are computed as
unit weights, exactly).  Only the rows whose flip changes the prediction add a term.

The computation runs over the distinct rows of ``X``: each holds, per class, the sum of ``1`` (or ``w_i / (W -
w_i)``) over its rows of that class (``amounts``), and a flip that turns prediction ``p`` into ``p'`` on it adds
``other[j, x_j] (amounts[p] - amounts[p'])``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SwitchRows:
    """What the reliance of every model on the same ``(X, y, w)`` shares.

    ``rows``: the distinct rows of ``X`` (uint8, ``(R, m)``); ``amounts``: ``(R, K)`` per distinct row and class,
    the sum over its rows of that class of 1 (equal weights) or ``w_i / (W - w_i)`` (rows whose label is no class
    of the models add nothing: no flip changes their loss); ``other``: ``(m, 2)`` per column and value ``v`` the
    count (or weight) of the rows holding ``1 - v``; ``divisor``: ``n (n - 1)``, or ``W``."""

    rows: np.ndarray
    amounts: np.ndarray
    other: np.ndarray
    divisor: float

    @classmethod
    def of(cls, X: np.ndarray, y_index: np.ndarray, n_classes: int, sample_weight=None) -> "SwitchRows":
        """``X`` 0/1, ``y_index`` each row's class index among the models' classes (-1: none of them)."""
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n, m = X.shape
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w is not None and np.all(w == w[0]):
            w = None  # equal weights: Eq. 3.5 itself, in integers
        rows, inverse = np.unique(X, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        known = y_index >= 0
        if w is None:
            share, ones, total = np.ones(n), X.sum(0, dtype=np.float64), float(n)
            divisor = float(max(n * (n - 1), 1))
        else:
            total = float(w.sum())
            rest = total - w
            share = np.divide(w, rest, out=np.zeros(n), where=rest > 0)
            ones, divisor = w @ X.astype(np.float64), total
        amounts = np.zeros((rows.shape[0], max(n_classes, 1)))
        np.add.at(amounts, (inverse[known], y_index[known]), share[known])
        other = np.ascontiguousarray(np.stack([ones, total - ones], axis=1))  # value 0 meets the ones, 1 the zeros
        return cls(rows, amounts, other, divisor)


def check_weights(sample_weight, n: int) -> np.ndarray | None:
    """``sample_weight`` as float64 of ``n`` finite non-negative numbers with a positive sum (a copy), or None."""
    if sample_weight is None:
        return None
    w = np.array(sample_weight, dtype=np.float64, copy=True).reshape(-1)
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has {w.shape[0]} entries but X has {n} rows")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise ValueError("sample_weight must be finite, non-negative and not all zero")
    return w


@dataclass
class Reliances:
    """The reliance of ``n`` models on ``n_features`` columns, sparse: row ``i`` of ``feat`` lists the columns of
    model ``i`` whose reliance may differ from 0 (-1: none), ``num`` the numerators (reliance times ``divisor``)."""

    feat: np.ndarray
    num: np.ndarray
    divisor: float
    n_features: int

    @property
    def n_models(self) -> int:
        return int(self.feat.shape[0])

    def dense(self) -> np.ndarray:
        """``(n_models, n_features)`` reliances."""
        out = np.zeros((self.n_models, self.n_features))
        i, k = np.nonzero(self.feat >= 0)
        out[i, self.feat[i, k]] = self.num[i, k]
        return out / self.divisor

    def _entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        i, k = np.nonzero(self.feat >= 0)
        return i, self.feat[i, k], self.num[i, k]

    def range(self) -> tuple[np.ndarray, np.ndarray]:
        """Per column, the least and the largest reliance over the models (0 for a column some model ignores)."""
        _, f, v = self._entries()
        low = np.full(self.n_features, np.inf)
        high = np.full(self.n_features, -np.inf)
        np.minimum.at(low, f, v)
        np.maximum.at(high, f, v)
        some_zero = np.bincount(f, minlength=self.n_features) < self.n_models
        low = np.where(some_zero, np.minimum(low, 0.0), low)
        high = np.where(some_zero, np.maximum(high, 0.0), high)
        return low / self.divisor, high / self.divisor

    def of_model(self, i: int) -> np.ndarray:
        """The reliances of model ``i`` on every column."""
        out = np.zeros(self.n_features)
        used = self.feat[i] >= 0
        out[self.feat[i, used]] = self.num[i, used]
        return out / self.divisor

    def distribution(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """The distinct reliances of column ``j`` over the models, sorted, and how many models have each."""
        mine = self.feat == j
        values = self.num[mine] / self.divisor
        zeros = self.n_models - values.size
        values, counts = np.unique(values, return_counts=True)
        if zeros:
            at = np.searchsorted(values, 0.0)
            if at < values.size and values[at] == 0.0:
                counts[at] += zeros
            else:
                values, counts = np.insert(values, at, 0.0), np.insert(counts, at, zeros)
        return values, counts


def merge_counts(parts: list) -> tuple[np.ndarray, np.ndarray]:
    """One ``(values, counts)`` distribution of several (each as :meth:`Reliances.distribution` gives it)."""
    if not parts:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    values = np.concatenate([v for v, _ in parts])
    counts = np.concatenate([c for _, c in parts]).astype(np.int64)
    merged, at = np.unique(values, return_inverse=True)
    return merged, np.bincount(at.reshape(-1), weights=counts, minlength=merged.size).astype(np.int64)


def reliance_by_prediction(predict, plan: SwitchRows) -> np.ndarray:
    """The numerators of one model's reliance on each column through its ``predict`` (class indices of the rows of
    a 0/1 matrix): the distinct rows predicted as they are and with each column flipped."""
    rows = plan.rows
    base = np.asarray(predict(rows), dtype=np.int64)
    at = np.arange(rows.shape[0])
    out = np.zeros(rows.shape[1])
    for j in range(rows.shape[1]):
        flipped = rows.copy()
        flipped[:, j] ^= 1
        other = np.asarray(predict(flipped), dtype=np.int64)
        moved = np.flatnonzero(other != base)
        gain = plan.amounts[at[moved], base[moved]] - plan.amounts[at[moved], other[moved]]
        out[j] = float(np.dot(plan.other[j, rows[moved, j]], gain))
    return out
