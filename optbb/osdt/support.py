"""What every tree engine reads of the training rows: integer weight units, their layers, the packed data tuple.

**One weight scaling** (:func:`weight_units`), chosen once for the dp search, the numeric search and the Rashomon
sets: a search counts in integer weight units, so every sum it makes is exact (in int64, and in float64, below
2**53) and its ties are ties.  Integer weights stay as they are, so a weight ``k`` is exactly ``k`` repeated rows;
weights that are fractions of a small common denominator (``k / 3``, ``k / 10``, class weights ``n / (k n_c)``) are
counted exactly in units of ``1 / D``, so weights that tie as numbers tie as units; other real weights are scaled by
the power of two that brings their total just below ``2**UNIT_BITS`` and rounded (at least 1 unit a row), which
differs from the real objective by less than ``n * 2**-40`` of the total weight for any tree.  ``2**40`` leaves room
for the Rashomon sets' pair keys (``errors * 2**20 + leaves`` in int64).  The models and their objectives are always
recomputed from the real weights (float sums in row order, as ``np.bincount`` makes them); where float sums break a
tie that the units keep, the Rashomon sets decide as the float sums do.

**Weight layers** (:func:`weight_layers`): the units as a few boolean layers with one integer weight each, so that a
weighted count over a support is ``L`` popcounts per word (:func:`layered`); unweighted data is one layer whose
weight is a ``uint8`` 1, for which :func:`layered` compiles to a plain popcount.

**The packed data tuple** (:data:`Packed`, made by :func:`pack`): feature bitsets, class bitsets per layer, the
equivalent-points minority per layer (Angelino et al. 2018, Thm 20: the errors every tree makes on a support), the
layers, their weights.  The dp kernels and the Rashomon kernels read it by field name.
"""
from __future__ import annotations

import math
from collections import namedtuple
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from ..common.bitset import pack_rows, popcount64
from ..common.bounds import majority_labels
from ..common.equivalence import minority_vector

UNIT_BITS = 40  # real weights are scaled so that their total is below 2**40 units
UNLIMITED = 1 << 30  # the depth budget of a search without max_depth (never decremented to 0)

# ``xbits[f]``: the rows with feature ``f`` = 1; ``ybits[c * L + l]``: the rows of class ``c`` in weight layer ``l``;
# ``zbits[l]``: the equivalent-points minority rows of layer ``l``; ``wbits[l]``: layer ``l``; ``mult[l]``: the
# units of a row of layer ``l`` (int64; unweighted data: one layer and a uint8 ``1``, see :func:`layered`).
Packed = namedtuple("Packed", "xbits ybits zbits wbits mult nested")


class Units(NamedTuple):
    """Weights as integer units: ``units`` (int64, one per row) and ``unit``, the weight of one unit (a
    :class:`~fractions.Fraction`: ``float(e * unit)`` is the weight of ``e`` units, correctly rounded); ``exact``:
    the units are the weights themselves (integers, or fractions of a common denominator), not an approximation."""

    units: np.ndarray
    unit: Fraction
    exact: bool


MAX_DENOMINATOR = 1 << 20  # weights that are fractions p / q with q up to this count exactly (k / 3, k / 10, ...)


def weight_units(w: np.ndarray) -> Units:
    """Positive weights as int64 units (module docstring): integer weights unchanged, weights that are fractions of
    a common denominator ``D`` (``k / 3``, ``0.3``, ``50 / 37``: each within two ulps of ``p / q``, ``D`` the least
    common multiple of the ``q``, at most :data:`MAX_DENOMINATOR`) as ``D`` times themselves, while their total in
    units stays below ``2**UNIT_BITS``; else the weights times the power of two that brings their total just below
    it, rounded (at least 1).  Exact units make every tie of the weights a tie of the units."""
    w = np.asarray(w, dtype=np.float64)
    total = float(w.sum())
    denominator = common_denominator(w)
    if denominator is not None and total * denominator < 2.0 ** UNIT_BITS:
        return Units(np.rint(w * denominator).astype(np.int64), Fraction(1, denominator), True)
    shift = UNIT_BITS - 1 - int(np.ceil(np.log2(total)))
    units = np.maximum(np.round(np.ldexp(w, shift)), 1.0).astype(np.int64)
    return Units(units, Fraction(2) ** -shift, False)


def common_denominator(w: np.ndarray) -> int | None:
    """The least ``D <= MAX_DENOMINATOR`` such that every weight times ``D`` is an integer up to the rounding of the
    weight itself (two ulps of the product), or None."""
    values = np.unique(w)
    D = 1
    for _ in range(64):  # each round adds a prime factor to D, or returns
        scaled = values * D
        bad = np.abs(scaled - np.rint(scaled)) > 2 * np.spacing(scaled)
        if not bad.any():
            return D
        v = float(values[np.argmax(bad)])
        q = Fraction(v).limit_denominator(MAX_DENOMINATOR)
        if abs(float(q) - v) > 2 * math.ulp(v):
            return None
        D = math.lcm(D, q.denominator)
        if D > MAX_DENOMINATOR:
            return None
    return None


def weight_layers(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(layers, mult)``: boolean ``(L, n)`` layer membership and int64 ``(L,)`` layer weights with
    ``q = sum_l mult[l] * layers[l]``, the fewer layers of two forms: one layer per distinct weight, or the binary
    digits of the weights (``mult[l] = 2**l``).  A count over a support then costs ``L`` popcounts per word."""
    q = np.asarray(q, dtype=np.int64)
    s = np.sort(q)  # np.unique hashed 1,000,000 distinct weights in 0.9 s, sorting takes 0.1 s
    values = s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s
    n_bits = int(q.max()).bit_length()
    if len(values) <= n_bits:
        return q[None, :] == values[:, None], values.astype(np.int64)
    digits = np.arange(n_bits, dtype=np.int64)
    layers = np.empty((n_bits, len(q)), dtype=bool)
    for d in range(n_bits):  # digit by digit: no (n_bits, n) int64 temporary
        np.not_equal((q >> d) & 1, 0, out=layers[d])
    keep = layers.any(axis=1)
    return layers[keep], (np.int64(1) << digits)[keep]


def pack(X: np.ndarray, xbits: np.ndarray, y: np.ndarray, n_classes: int, units: np.ndarray | None,
         nested: np.ndarray | None = None) -> Packed:
    """The :data:`Packed` tuple of 0/1 rows ``X`` (their columns already packed: ``xbits``), class indices ``y`` and
    weight units (None: unweighted).  ``nested[f]`` (uint8, default all 0) says feature ``f`` holds every row of
    feature ``f - 1`` (the next threshold ``x <= t`` of the same column, :func:`nested_cuts`)."""
    n = X.shape[0]
    if units is None:
        layers, mult = np.ones((1, n), dtype=bool), np.ones(1, dtype=np.uint8)
    else:
        layers, mult = weight_layers(units)
    # packed once each and combined word by word (packing the (k, L, n) products took 0.75 s on 1,000,000
    # samples of 42 weight layers)
    wbits = pack_rows(layers)
    cbits = pack_rows(np.stack([(y == c) for c in range(n_classes)]))
    ybits = (cbits[:, None, :] & wbits[None, :, :]).reshape(-1, wbits.shape[1])
    zbits = pack_rows(minority_vector(X, y, units).astype(bool)[None, :]) & wbits
    c = np.ascontiguousarray
    nested = np.zeros(xbits.shape[0], np.uint8) if nested is None else nested.astype(np.uint8)
    return Packed(c(xbits), c(ybits), c(zbits), c(wbits), c(mult), c(nested))


def nested_cuts(columns, thresholds) -> np.ndarray:
    """``nested[f] = 1`` where feature ``f`` is ``x <= t`` on the same column as feature ``f - 1`` with a larger
    threshold (the order of :func:`optbb.osdt.numeric.cuts.cut_map`), so that it holds every row of ``f - 1``: on a
    support where the two count the same weight their splits are the same."""
    nested = np.zeros(len(columns), np.uint8)
    for f in range(1, len(columns)):
        t0, t1 = thresholds[f - 1], thresholds[f]
        nested[f] = columns[f] == columns[f - 1] and t0 is not None and t1 is not None and t1 > t0
    return nested


def layered(w, bits, row0, i, mult):
    """The units of the rows of word ``w`` (word ``i`` of a support) in rows ``row0 .. row0 + L - 1`` of ``bits``
    (the ``L`` weight layers of one class, or the minority): ``sum_l mult[l] * popcount(w & bits[row0 + l, i])``."""
    s = 0
    for layer in range(mult.shape[0]):
        s += mult[layer] * popcount64(w & bits[row0 + layer, i])
    return s


@overload(layered)
def _layered_typed(w, bits, row0, i, mult):
    # Chosen when a kernel is compiled: the layer weights of weighted data are int64, those of unweighted data one
    # uint8 ``1`` (a plain popcount), so each compiled kernel holds only its own counting loop.
    if mult.dtype == types.uint8:
        return lambda w, bits, row0, i, mult: popcount64(w & bits[row0, i])
    return layered


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
    wrong = sum(v for c, v in enumerate(cnt.tolist()) if c != lab)  # the other classes, in class order
    return lab, size, size - right, counts, float(wrong) if weighted else int(wrong)
