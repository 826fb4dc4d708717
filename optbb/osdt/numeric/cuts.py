"""Every cut of numeric columns as a binary feature: the matrix an optimal tree over all thresholds searches.

A numeric column with training values ``v_1 < v_2 < ... < v_U`` offers the splits ``x <= t`` with ``t`` between two
consecutive values; any ``t`` in ``[v_i, v_{i+1})`` splits the training rows alike, so there are ``U - 1`` distinct
cuts.  A split at a tree node on a cut between values of the node's own rows is one of these global cuts, and a
global cut that does not separate the node's rows leaves an empty child (never needed): the optimal binary tree over
the matrix of all cuts is the optimal tree over every threshold.  A column holding only 0 and 1 stays one feature,
the column itself.

``t`` is printed as the shortest decimal strictly between the two values (``2.45`` between 2.4 and 2.5), so the
printed tree predicts exactly as the fitted one on every training value.  Only rows of positive weight give values:
a row of weight 0 is left out of the search, so it moves no cut.

:func:`column_values` sorts each column once; :func:`cut_map` makes the :class:`~optbb.osdt.model.CutMap` of every
cut (for each feature, its column and threshold); :func:`all_cuts` the matrix and the map; :class:`CutDataset`
(:func:`cut_dataset`) is the :class:`~optbb.common.data.BinaryDataset` of all cuts that :func:`optbb.osdt.solve`
takes, whose trees then predict on the raw numeric columns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Callable

import numpy as np

from ...common.data import BinaryDataset, check_targets, default_label_names
from ...common.jit import njit
from ...common.validation import check_numeric_columns
from ..model import CutMap, cut_threshold


def is_binary_column(x: np.ndarray) -> bool:
    """Whether a column holds only 0 and 1 (then it stays one feature, the column itself)."""
    return bool(np.all((x == 0) | (x == 1)))


@dataclass(frozen=True)
class ColumnValues:
    """What the cuts of numeric columns are made of, computed once per fit: ``values[j]`` the distinct values of
    column ``j`` on the rows of positive weight (ascending), ``binary[j]`` whether the column holds only 0 and 1
    (on every row, as :func:`is_binary_column`).  ``ranks`` and ``orders``: those rows (numbered among themselves)
    as :func:`sorted_columns` ranks and orders them, when known (:func:`column_values` leaves them out of a large
    ``X``: the search over sorted orders ranks the columns itself once its arrays fit the memory limit)."""

    values: list
    binary: list
    ranks: np.ndarray | None = field(default=None, repr=False, compare=False)
    orders: np.ndarray | None = field(default=None, repr=False, compare=False)


def column_values(X, sample_weight=None) -> ColumnValues:
    """The :class:`ColumnValues` of ``X`` (finite numbers, rows x columns) with weights ``sample_weight``: one sort
    of each column's values, one column at a time (8 bytes a row besides the values), or with the ranks and orders
    too for at most :data:`SMALL_VALUES` values (two sorts cost a small fit more than the memory saved)."""
    X = np.asarray(X, dtype=np.float64)
    keep = None if sample_weight is None else np.asarray(sample_weight) > 0
    if keep is not None and keep.all():
        keep = None
    ranks = orders = None
    if X.size <= SMALL_VALUES:  # ranked at once too, which a small fit's search then reads
        values, ranks, orders = sorted_columns(X if keep is None else X[keep])
    else:
        values = [distinct_values(X[:, j] if keep is None else X[keep, j]) for j in range(X.shape[1])]
    binary = [len(v) <= 2 and is_binary_column(v) and (keep is None or is_binary_column(X[~keep, j]))
              for j, v in enumerate(values)]
    return ColumnValues(values, binary, ranks, orders)


SMALL_VALUES = 1 << 18  # column_values ranks up to this many values (2 MB of ranks and orders) with their sort


def distinct_values(x: np.ndarray) -> np.ndarray:
    """The distinct values of ``x`` ascending, each as the first row holding it has it (``-0.0`` or ``0.0``, as a
    stable sort gives it: :func:`sorted_columns`)."""
    v = np.unique(x)
    z = int(np.searchsorted(v, 0.0))
    if z < len(v) and v[z] == 0.0:
        v[z] = x[int(np.argmax(x == 0.0))]
    return v


_RADIX_SPAN = 1 << 16  # integer columns spanning fewer values than this sort by radix (numpy's stable 16-bit sort)
_BLOCK_VALUES = 1 << 16  # sorted_columns sorts this many values at once, at least a column


def sorted_columns(X: np.ndarray, ranks: np.ndarray | None = None, orders: np.ndarray | None = None,
                   stop: Callable[[], bool] | None = None) -> tuple[list, np.ndarray, np.ndarray] | list | None:
    """``(values, ranks, orders)`` of ``X`` (float64, finite, rows x columns) from one sort per column:
    ``values[j]`` the distinct values of column ``j`` ascending, and int32 ``(m, N)`` arrays: ``ranks[j, i]`` the
    index of row ``i``'s value in ``values[j]``, ``orders[j]`` the rows by ascending value, ties by row.  Given
    ``ranks`` and ``orders`` (int32 (m, N), C-ordered rows), it writes into them and returns ``values`` alone, or
    None when ``stop()`` says so between two columns (a time limit: a column of 1,000,000 rows takes 0.1-0.2 s).
    Columns are done a block at a time (:data:`_BLOCK_VALUES` values, at least a column): besides the outputs, it
    holds about 48 bytes a row of a block (more for a column of
    integers spanning more values than rows, counted in 24 bytes a value of the span)."""
    X = np.asarray(X, dtype=np.float64)
    n, m = X.shape
    given = ranks is not None
    ranks = np.empty((m, n), dtype=np.int32) if ranks is None else ranks
    orders = np.empty((m, n), dtype=np.int32) if orders is None else orders
    values: list = []
    if n:
        block = max(1, min(m, _BLOCK_VALUES // n))  # columns at once: all of a small X, one of a large one
        work, found = np.empty((3, n), dtype=np.int64), np.empty((block, n))
        count = np.empty(block, np.int64)
        for j in range(0, m, block):
            if stop is not None and stop():
                return None
            xt = np.ascontiguousarray(X[:, j:j + block].T)
            low, span, by_value = _orders(xt)
            if span.max() > work.shape[1]:  # a counted column of integers spanning more values than rows
                work = np.empty((3, int(span.max())), dtype=np.int64)
            b = xt.shape[0]
            _rank_columns(xt, low, span, by_value, ranks[j:j + b], orders[j:j + b], found, count, work)
            values += [found[i, :count[i]].copy() for i in range(b)]
    else:
        values = [np.empty(0) for _ in range(m)]
    return values if given else (values, ranks, orders)


def _orders(Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lo, span, by_value)`` for :func:`_rank_columns`: an integer-valued column (a row of ``Xt``) whose values
    span at most ``4 N + 1024`` integers is counted, not sorted (``span[j]`` > 0, ``lo[j]`` its least value);
    ``by_value[j]`` argsorts each other column, ties in any order.  Integer-valued ones spanning fewer than
    :data:`_RADIX_SPAN` sort as uint16 offsets, which numpy sorts by radix, several times faster than its sort of
    doubles with many ties; other doubles by numpy's quicksort (with ties in any order: :func:`_rank_columns` puts
    them by row), 3-4 times faster than its stable sort on 1,000,000 rows."""
    m, n = Xt.shape
    lo, hi = Xt.min(axis=1), Xt.max(axis=1)
    whole = (np.abs(lo) < 2.0 ** 52) & (np.abs(hi) < 2.0 ** 52) & np.all(Xt == np.floor(Xt), axis=1)
    gap = np.subtract(hi, lo, out=np.full(m, np.inf), where=whole)  # -1e308 .. 1e308 would overflow
    counted = whole & (gap < 4 * n + 1024)
    span = np.where(counted, gap + 1, 0).astype(np.int64)
    radix = whole & ~counted & (gap < _RADIX_SPAN)
    rest = ~(counted | radix)
    by_value = np.empty((m, n) if (radix | rest).any() else (m, 0), dtype=np.intp)
    if radix.any():
        by_value[radix] = np.argsort((Xt[radix] - lo[radix, None]).astype(np.uint16), axis=1, kind="stable")
    if rest.any():
        by_value[rest] = np.argsort(Xt[rest], axis=1, kind="quicksort")
    return lo, span, by_value


@njit(cache=True)
def _rank_columns(Xt, lo, span, by_value, ranks, orders, values, counts, work):
    """For each column ``j`` (a row of ``Xt``): the rank of each row's value into ``ranks[j]``, the rows by rank and
    then by row (a counting sort, so ties come by row) into ``orders[j]``, and the distinct values into
    ``values[j, :counts[j]]`` (each the value of the first row that holds it, so ``-0.0`` and ``0.0`` give what a
    stable sort gives).  The ranks come from counting the integers ``lo[j] .. lo[j] + span[j] - 1`` when
    ``span[j] > 0``, else from ``by_value[j]``, the column argsorted with ties in any order.  ``work``: int64
    (3, at least N and every span), scratch.  (Loops, not slices: Numba compiled the slices' checks for seconds.)"""
    m, n = Xt.shape
    start, place, seen = work[0], work[1], work[2]
    for j in range(m):
        x, rk = Xt[j], ranks[j]
        if span[j] > 0:
            r = _count_ranks(x, lo[j], span[j], seen, rk, start)
        else:
            r = _sorted_ranks(x, by_value[j], rk, start)
        if span[j] == 0 and 16 * r >= n:  # short runs of ties: the order by value, each run put by row
            _ties_by_row(by_value[j], start, r, n, orders[j])
        else:  # few values: rows in index order, each to the next place of its rank
            for k in range(r):
                place[k] = start[k]
            for i in range(n):
                orders[j, place[rk[i]]] = i
                place[rk[i]] += 1
        counts[j] = r
        for k in range(r):
            values[j, k] = x[orders[j, start[k]]]


@njit(cache=True)
def _count_ranks(x, lo, span, seen, rk, start):
    """Ranks of the integer values ``x`` (``lo .. lo + span - 1``) into ``rk``, the first place of each rank in
    the sorted column into ``start``; returns the number of distinct values."""
    for v in range(span):
        seen[v] = 0
    for i in range(x.shape[0]):
        seen[np.int64(x[i] - lo)] += 1
    r, at = 0, 0
    for v in range(span):
        if seen[v] > 0:
            start[r] = at
            at += seen[v]
            seen[v] = r
            r += 1
    for i in range(x.shape[0]):
        rk[i] = seen[np.int64(x[i] - lo)]
    return r


@njit(cache=True)
def _ties_by_row(o, start, r, n, out):
    """``out`` = the order ``o`` (rows by value, ties in any order; the ``r`` runs of equal values start at
    ``start``) with each run's rows ascending: a stable order.  Runs of a few rows by insertion, longer ones by a
    sort (a copy of ``o`` and one pass where the counting placement wrote every row at random: 0.9 -> 0.5 s for 10
    columns of 1,000,000 doubles)."""
    for i in range(n):
        out[i] = o[i]
    for k in range(r):
        a, b = start[k], start[k + 1] if k + 1 < r else n
        if b - a > 16:
            out[a:b] = np.sort(out[a:b])
            continue
        for i in range(a + 1, b):
            v, h = out[i], i - 1
            while h >= a and out[h] > v:
                out[h + 1] = out[h]
                h -= 1
            out[h + 1] = v


@njit(cache=True)
def _sorted_ranks(x, o, rk, start):
    """:func:`_count_ranks` from ``o``, the rows of ``x`` by ascending value (ties in any order)."""
    r = 0
    start[0] = 0
    for i in range(x.shape[0]):
        if i > 0 and x[o[i]] != x[o[i - 1]]:
            r += 1
            start[r] = i
        rk[o[i]] = r
    return r + 1


def count_cuts(X, sample_weight=None, *, columns: ColumnValues | None = None) -> int:
    """The number of features :func:`all_cuts` would make of ``X`` (finite numbers), without making them.
    ``columns``: ``column_values(X, sample_weight)`` when already known."""
    columns = column_values(X, sample_weight) if columns is None else columns
    return sum(1 if b else max(len(v) - 1, 0) for v, b in zip(columns.values, columns.binary))


def all_cuts(X, column_names, sample_weight=None) -> tuple[np.ndarray, CutMap]:
    """``(features, cut_map)``: the uint8 matrix of every cut of every numeric column of ``X`` (finite numbers,
    rows x columns) and its map (:func:`cut_map`).  Cuts lie between consecutive distinct values of the rows of
    positive ``sample_weight`` (all rows when None)."""
    X = np.asarray(X, dtype=np.float64)
    cuts = cut_map(column_values(X, sample_weight), [str(n) for n in column_names])
    return cuts.transform(X), cuts


class CutDataset(BinaryDataset):
    """The :class:`~optbb.common.data.BinaryDataset` of every cut of raw numeric columns (:func:`cut_dataset`), with
    the :class:`~optbb.osdt.model.CutMap` that reads them (``cuts``): :func:`optbb.osdt.solve` returns trees over the
    raw columns for it.  ``raw``: the numeric columns themselves (float64), which the search over sorted orders
    reads, with ``columns`` (their :class:`ColumnValues`); ``column_names`` name them.  The matrix of cuts (``X``,
    ``bits``) and the map are made on first use: a search over sorted orders never makes them."""

    def __init__(self, raw: np.ndarray, y: np.ndarray, column_names, sample_weight: np.ndarray | None,
                 label_names, columns: ColumnValues):
        self.raw, self.y, self.sample_weight = raw, y, sample_weight
        self.column_names, self.columns = list(column_names), columns
        self.label_names, self.minority = tuple(label_names), None
        self._X = self._bits = self._cuts = None
        self._n_features = max(count_cuts(raw, columns=columns), 1)

    n_features = property(attrgetter("_n_features"), doc="The number of cuts (one for a 0/1 column).")

    @property
    def cuts(self) -> CutMap:
        if self._cuts is None:
            self._cuts = cut_map(self.columns, self.column_names)
        return self._cuts

    @property
    def X(self) -> np.ndarray:
        """The uint8 matrix of every cut (made on first use)."""
        if self._X is None:
            self._X = self.cuts.transform(self.raw)
        return self._X

    @property
    def feature_names(self) -> list[str]:
        return self.cuts.feature_names()

    @property
    def n_samples(self) -> int:
        return int(self.raw.shape[0])

    def release(self) -> None:
        """Drop what only a search reads and can be made again: the columns' ranks and orders (8 bytes a value), the
        matrix of cuts and its packed bits."""
        self.columns = ColumnValues(self.columns.values, self.columns.binary)
        self._X = self._bits = None

    def __getstate__(self) -> dict:
        """Pickled without what :meth:`release` drops."""
        state = dict(self.__dict__, _X=None, _bits=None)
        state["columns"] = ColumnValues(self.columns.values, self.columns.binary)
        return state

    def __repr__(self) -> str:
        return (f"CutDataset({self.n_samples} rows, {len(self.column_names)} columns, {self.n_features} cuts, "
                f"{self.n_classes} classes)")


def cut_map(columns: ColumnValues, column_names) -> CutMap:
    """The :class:`~optbb.osdt.model.CutMap` of every cut of columns whose values are ``columns``, column by column
    and thresholds ascending, a 0/1 column kept as one feature.  A numeric column constant on the rows of positive
    weight has no cut; when no column has a feature at all, the first one keeps one cut at its largest value (a
    feature equal to 1 on every row the search sees, which no optimal tree splits on)."""
    cols, thresholds = [], []
    for j, (values, binary) in enumerate(zip(columns.values, columns.binary)):
        if binary:
            cols.append(j)
            thresholds.append(None)
            continue
        cols += [j] * (len(values) - 1)
        thresholds += [cut_threshold(lo, hi) for lo, hi in zip(values[:-1], values[1:])]
    if not cols:  # a feature equal to 1 everywhere, which no optimal tree splits on
        cols, thresholds = [0], [float(columns.values[0][-1])]
    return CutMap(column_names, columns.binary, cols, thresholds)


def cut_dataset(X, y, feature_names=None, sample_weight=None, label_names=None, *,
                columns: ColumnValues | None = None) -> CutDataset:
    """The dataset of every cut of ``X`` (numbers, a numpy array or DataFrame; 0/1 columns stay one feature each)
    for labels ``y`` (class indices ``0 .. k-1``, ``k = len(label_names)``; default ``"0" .. str(k - 1)`` with
    ``k`` the largest index plus one, at least 2) and ``sample_weight``.
    ``feature_names`` name the columns (default: the DataFrame's, else ``x0, x1, ...``).  A ValueError names a
    column that holds text, categories, NaN or infinity, or a label or weight out of place.  ``columns``:
    ``column_values(X, sample_weight)`` when already known."""
    names = None if feature_names is None else [str(n) for n in feature_names]
    if names is None and hasattr(X, "columns"):
        names = [str(c) for c in X.columns]
    Xf = check_numeric_columns(X, names)
    names = names if names is not None else [f"x{j}" for j in range(Xf.shape[1])]
    if len(names) != Xf.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names but X has {Xf.shape[1]} columns")
    if label_names is None:
        label_names = default_label_names(y)
    return checked_cut_dataset(Xf, y, names, sample_weight, label_names, columns)


def checked_cut_dataset(X: np.ndarray, y, names, sample_weight, label_names,
                        columns: ColumnValues | None = None) -> CutDataset:
    """:func:`cut_dataset` of columns already checked (float64, finite; an estimator's ``fit`` checks them first):
    only the labels and weights are checked here."""
    label_names = tuple(str(n) for n in label_names)
    y, w = check_targets(y, X.shape[0], sample_weight, max(2, len(label_names)))
    columns = column_values(X, w) if columns is None else columns
    return CutDataset(X, y, list(names), w, label_names, columns)
