"""``BinaryDataset``: the one data representation every solver reads, and its readers.

A dataset holds ``n_features`` binary columns (raw features for OSDT, mined antecedents for CORELS and FRL) over
``n_samples`` rows, both as a dense ``uint8`` matrix and as packed bitsets, one bitset per column.
"""
from __future__ import annotations

import csv
import gzip
import io
import os
import zlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .bitset import pack, pack_columns, pack_rows, unpack, unpack_rows
from .equivalence import equivalence_classes, minority_vector
from .weights import check_sample_weight

MAX_CLASSES = 255  # labels are stored as uint8


@dataclass(eq=False)
class BinaryDataset:
    """Binary features, class labels, optional sample weights, names.

    Attributes
    ----------
    X : (n_samples, n_features) uint8 array of 0/1.
    y : (n_samples,) uint8 array of class indices ``0 .. k-1``, ``k = len(label_names)`` (0/1 for two classes).
    feature_names : list of column names (unique).
    sample_weight : (n_samples,) float64 array or None (uniform).
    label_names : names of the classes, label 0 first (two by default; CORELS reads any ``k >= 2``, the other
        solvers two).
    minority : packed equivalent-points minority bitset given by the user (``.minor`` file), or None.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    sample_weight: np.ndarray | None = None
    label_names: tuple[str, ...] = ("0", "1")
    minority: np.ndarray | None = None
    _bits: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.label_names = tuple(str(n) for n in self.label_names)
        if len(self.label_names) < 2:
            raise ValueError(f"label_names must name at least two classes, got {list(self.label_names)}")
        self.X, self.y, self.sample_weight = check_binary_arrays(self.X, self.y, self.sample_weight,
                                                                 len(self.label_names))
        names = [str(n) for n in self.feature_names]
        if len(names) != self.X.shape[1]:
            raise ValueError(f"feature_names has {len(names)} entries but X has {self.X.shape[1]} columns")
        dup = _duplicates(names)
        if dup:
            raise ValueError(f"duplicate feature names: {dup[:5]}")
        self.feature_names = names

    @classmethod
    def from_bits(cls, bits: np.ndarray, y: np.ndarray, feature_names: list[str], sample_weight: np.ndarray | None,
                  label_names: tuple[str, str], X: np.ndarray | None = None) -> "BinaryDataset":
        """Dataset whose columns are the packed rows ``bits`` of already checked data (labels, weights and unique
        names taken as they are): the mined-antecedent matrix, built without re-checking what is binary by
        construction.  ``X`` is the unpacked matrix when the caller has built it."""
        data = object.__new__(cls)
        data.X = np.ascontiguousarray(unpack_rows(bits, y.shape[0]).T) if X is None else X
        data.y, data.feature_names, data.sample_weight = y, list(feature_names), sample_weight
        data.label_names, data.minority, data._bits = label_names, None, bits
        return data

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def bits(self) -> np.ndarray:
        """(n_features, n_words) uint64: column ``j`` packed over the samples."""
        if self._bits is None:
            self._bits = pack_columns(self.X)
        return self._bits

    @property
    def n_classes(self) -> int:
        return len(self.label_names)

    @property
    def y_bits(self) -> np.ndarray:
        """Packed bitset of the samples with label 1."""
        return pack(self.y == 1)

    def class_bits(self) -> np.ndarray:
        """(n_classes, n_words) uint64: row ``j`` packs the samples of class ``j``."""
        return pack_rows(self.y[None, :] == np.arange(self.n_classes)[:, None])

    def minority_bits(self) -> np.ndarray:
        """Equivalent-points minority bitset computed from the data (checked against a given ``.minor``)."""
        z = minority_vector(self.X, self.y, self.sample_weight)
        if self.minority is not None:
            given = unpack(self.minority, self.n_samples)
            if not np.array_equal(_group_minority_counts(self, given), _group_minority_counts(self, z)):
                raise ValueError("the given .minor vector disagrees with the equivalent-points minority computed from "
                                 f"the data ({int(given.sum())} flagged points given, {int(z.sum())} computed)")
        return pack(z)

    def subset(self, rows: np.ndarray | None = None, columns: Sequence[int] | None = None) -> "BinaryDataset":
        """A new dataset restricted to some rows and/or columns (the ``.minor`` vector is dropped)."""
        rows = np.arange(self.n_samples) if rows is None else np.asarray(rows)
        cols = np.arange(self.n_features) if columns is None else np.asarray(columns, dtype=np.int64)
        w = None if self.sample_weight is None else self.sample_weight[rows]
        return BinaryDataset(self.X[np.ix_(rows, cols)], self.y[rows], [self.feature_names[c] for c in cols],
                             w, self.label_names)


def fingerprint(*arrays: np.ndarray | None) -> int:
    """A 32-bit checksum (CRC-32) of arrays' shapes, types and bytes (None counts as absent): what tells the data an
    estimator was fitted on from other data, or from the same arrays changed in place since, read in C order
    whatever their layout (one pass at about 1 GB/s, 60 ms on 1,000,000 x 10 float64; not a defence against data
    made to collide)."""
    crc = 0
    for a in arrays:
        if a is None:
            crc = zlib.crc32(b"none", crc)
            continue
        crc = zlib.crc32(f"{a.dtype.str}{a.shape}".encode(), crc)
        if a.flags.c_contiguous:
            crc = zlib.crc32(memoryview(a).cast("B"), crc)
            continue
        for start in range(0, a.shape[0], _ROWS_AT_ONCE):  # row by row in C order, whatever the layout
            crc = zlib.crc32(memoryview(np.ascontiguousarray(a[start:start + _ROWS_AT_ONCE])).cast("B"), crc)
    return crc


_ROWS_AT_ONCE = 1 << 16  # rows of a non-C-ordered array copied at once by fingerprint


def _group_minority_counts(data: BinaryDataset, z: np.ndarray) -> np.ndarray:
    """Per equivalence class, the number of flagged points (ties may flag either label, so compare counts)."""
    groups = equivalence_classes(data.X)
    return np.bincount(groups, weights=z.astype(np.float64), minlength=int(groups.max(initial=-1)) + 1)


def _duplicates(names: Iterable[str]) -> list[str]:
    seen, dup = set(), []
    for n in names:
        if n in seen:
            dup.append(n)
        seen.add(n)
    return dup


def check_binary_arrays(X, y, sample_weight=None, n_classes: int = 2):
    """Validate and copy ``X`` (0/1 matrix), ``y`` (0/1 labels, or class indices ``0 .. n_classes-1``) and optional
    weights.

    Raises ``ValueError`` naming the problem: NaN or inf, non-binary values, wrong dimensions, length mismatch,
    empty data, zero features, negative or non-finite weights.  Nothing passed in is modified.
    """
    X = _as_numeric(X, "X")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (samples x features), got an array of shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError("X is empty: it has 0 samples")
    if X.shape[1] == 0:
        raise ValueError("X has 0 features")
    check_binary(X, "X")
    y, w = check_targets(y, X.shape[0], sample_weight, n_classes)
    return np.ascontiguousarray(X, dtype=np.uint8), y, w


def check_targets(y, n_samples: int, sample_weight=None, n_classes: int = 2):
    """``(y, sample_weight)`` checked and copied for ``n_samples`` rows: labels 0/1, or class indices ``0 ..
    n_classes-1`` (uint8), and non-negative finite weights (float64) or None; a ValueError names the problem."""
    y = _as_numeric(y, "y").reshape(-1) if np.ndim(y) else _as_numeric(y, "y")
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"length mismatch: X has {n_samples} samples but y has {y.shape[0]}")
    if n_classes == 2:
        check_binary(y, "y")
    else:
        _check_classes(y, n_classes)
    w = None if sample_weight is None else check_sample_weight(sample_weight, n_samples)
    return np.ascontiguousarray(y, dtype=np.uint8), w


def _as_numeric(a, name: str) -> np.ndarray:
    if isinstance(a, (pd.DataFrame, pd.Series)):
        a = a.to_numpy()
    try:
        arr = np.array(a, copy=True)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} cannot be converted to an array: {exc}") from None
    if arr.dtype == bool:
        return arr.astype(np.uint8)
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} contains non-numeric values; expected 0/1") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} has dtype {arr.dtype}; expected 0/1 numbers")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _check_classes(y: np.ndarray, k: int) -> None:
    if k > MAX_CLASSES:
        raise ValueError(f"at most {MAX_CLASSES} classes are supported, got {k} label names")
    bad = (y != np.round(y)) | (y < 0) | (y >= k)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"y must hold class indices 0 .. {k - 1} (one per label name): value {y[i]!r} at index {i}")


def check_binary(a: np.ndarray, name: str) -> None:
    """A ValueError naming the first value of ``a`` that is neither 0 nor 1."""
    bad = (a != 0) & (a != 1)
    if np.any(bad):
        idx = np.argwhere(bad)[0]
        raise ValueError(f"{name} is not binary: value {a[tuple(idx)]!r} at index {tuple(int(i) for i in idx)}; "
                         "expected only 0 and 1 (use optbb.Binarizer for numeric or categorical data)")


def from_arrays(X, y, feature_names: Sequence[str] | None = None, sample_weight=None,
                label_names: Sequence[str] | None = None) -> BinaryDataset:
    """Build a dataset from a 0/1 matrix (numpy or pandas) and labels (0/1, or class indices ``0 .. k-1``).

    ``label_names`` defaults to ``("0", "1")``, or ``("0", ..., str(k-1))`` when ``y`` holds a class index above 1."""
    if label_names is None:
        label_names = default_label_names(y)
    if feature_names is None:
        if isinstance(X, pd.DataFrame):
            feature_names = [str(c) for c in X.columns]
        else:
            feature_names = [f"x{j}" for j in range(np.shape(X)[1] if np.ndim(X) == 2 else 0)]
    return BinaryDataset(X, y, list(feature_names), sample_weight, tuple(label_names))


def default_label_names(y) -> tuple[str, ...]:
    """``("0", "1")``, or ``("0", ..., str(k-1))`` when ``y`` holds a class index ``k - 1`` above 1."""
    top = np.max(_as_numeric(y, "y"), initial=1) if np.size(y) else 1
    k = int(top) + 1 if float(top) == int(top) and top >= 1 else 2
    return tuple(str(j) for j in range(k))


def from_dataframe(df: pd.DataFrame, label: str | None = None) -> BinaryDataset:
    """Dataset from a DataFrame of 0/1 columns; the label is column ``label`` (default: the last column)."""
    if df.shape[1] < 2:
        raise ValueError("the table needs at least one feature column and one label column")
    label = df.columns[-1] if label is None else label
    if label not in df.columns:
        raise ValueError(f"label column {label!r} not found")
    X = df.drop(columns=[label])
    return from_arrays(X, df[label], [str(c) for c in X.columns], label_names=("0", "1"))


def read_binary_csv(path: str | os.PathLike, label: str | None = None, sep: str | None = None) -> BinaryDataset:
    """Read a CSV of 0/1 columns with a header; the label is ``label`` or the last column.

    The separator is sniffed (``,`` or ``;``) unless given.
    """
    data = from_dataframe(read_csv_frame(path, sep), label)
    _check_two_classes(data, path)
    return data


def read_csv_frame(path: str | os.PathLike, sep: str | None = None) -> pd.DataFrame:
    """The table of a CSV file with a header (``.gz`` accepted), its separator sniffed (``,`` or ``;``) unless
    given; duplicate column names are a ``ValueError`` (pandas would rename them silently, "a", "a.1")."""
    with open_text(path) as fh:
        text = fh.read()
    first = text.split("\n", 1)[0]
    if sep is None:
        sep = ";" if first.count(";") > first.count(",") else ","
    header = next(csv.reader(io.StringIO(first), delimiter=sep), [])
    dup = _duplicates(h.strip() for h in header)
    if dup:
        raise ValueError(f"{path}: duplicate column names in the header: {dup[:5]}")
    return pd.read_csv(io.StringIO(text), sep=sep)


def _check_two_classes(data: BinaryDataset, path) -> None:
    if np.all(data.y == data.y[0]):
        raise ValueError(f"{path}: the label has a single class ({int(data.y[0])} for all {data.n_samples} samples);"
                         " a classifier needs two classes")


def read_osdt_csv(path: str | os.PathLike) -> BinaryDataset:
    """Read OSDT's ``;``-separated binary CSV (header, 0/1 features, label last)."""
    return read_binary_csv(path, sep=";")


def read_corels(out_path: str | os.PathLike, label_path: str | os.PathLike,
                minor_path: str | os.PathLike | None = None) -> BinaryDataset:
    """Read the CORELS text format (``.gz`` accepted).

    ``.out``: one line per antecedent, ``{name} b1 ... bN``.  ``.label``: one such line per class, ``k >= 2``
    lines (two: the negative class first), every sample marked in exactly one line; line ``j`` is class ``j``.
    ``.minor`` (optional): one line, the equivalent-points minority vector; it is checked against the vector
    computed from the data and a mismatch is a ``ValueError``.  Trailing spaces, CRLF and a missing final newline
    are accepted; ragged lines, tokens other than 0/1 and wrong counts are errors naming file and line.
    """
    names, rows = _read_bit_lines(out_path)
    if not rows:
        raise ValueError(f"{out_path}: no antecedent lines")
    lnames, lrows = _read_bit_lines(label_path)
    if len(lrows) < 2:
        raise ValueError(f"{label_path}: expected 2 label lines (negative class first) or one line per class, "
                         f"found {len(lrows)}")
    n = rows[0].shape[0]
    if lrows[0].shape[0] != n:  # the other label lines have its length (_read_bit_lines refuses ragged files)
        raise ValueError(f"{label_path}: line 1 has {lrows[0].shape[0]} values but {out_path} has {n} samples")
    marks = np.sum(lrows, axis=0)
    if np.any(marks != 1):
        bad = int(np.argmax(marks != 1))
        what = "the two label lines are not complementary" if len(lrows) == 2 else \
            "every sample must be marked in exactly one label line"
        raise ValueError(f"{label_path}: {what} (sample {bad} is marked in {int(marks[bad])})")
    y = np.argmax(np.stack(lrows), axis=0).astype(np.uint8)
    data = BinaryDataset(np.stack(rows, axis=1), y, names, None, tuple(lnames))
    _check_two_classes(data, label_path)
    if minor_path is not None:
        _, mrows = _read_bit_lines(minor_path)
        if len(mrows) != 1:
            raise ValueError(f"{minor_path}: expected 1 line, found {len(mrows)}")
        if mrows[0].shape[0] != n:
            raise ValueError(f"{minor_path}: has {mrows[0].shape[0]} values but the data has {n} samples")
        data.minority = pack(mrows[0])
        data.minority_bits()  # raises if it disagrees with the data
    return data


def open_text(path):
    """A text file (UTF-8, a byte-order mark skipped, universal newlines), gunzipped when its name ends in ``.gz``."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline=None)
    return open(path, "r", encoding="utf-8-sig", newline=None)


def _read_bit_lines(path) -> tuple[list[str], list[np.ndarray]]:
    names, rows = [], []
    with open_text(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.strip()
            if not line:
                continue
            name, rest = _split_name(line, path, lineno)
            tokens = rest.split()
            joined = "".join(tokens)
            if len(joined) != len(tokens):
                raise ValueError(f"{path}, line {lineno}: tokens must be single 0/1 digits")
            bits = np.frombuffer(joined.encode("ascii", "replace"), dtype=np.uint8) - ord("0")
            if bits.size and bits.max() > 1:
                bad = tokens[int(np.argmax(bits > 1))]
                raise ValueError(f"{path}, line {lineno}: token {bad!r} is not 0 or 1")
            if rows and bits.shape[0] != rows[0].shape[0]:
                raise ValueError(f"{path}, line {lineno}: {bits.shape[0]} values, but line 1 has {rows[0].shape[0]} "
                                 "(ragged file)")
            names.append(name)
            rows.append(bits.copy())
    return names, rows


def _split_name(line: str, path, lineno: int) -> tuple[str, str]:
    if line.startswith("{"):
        end = line.find("}")
        if end < 0:
            raise ValueError(f"{path}, line {lineno}: unterminated '{{' in the antecedent name")
        return line[1:end], line[end + 1:]
    parts = line.split(None, 1)
    if parts[0] in ("0", "1"):
        raise ValueError(f"{path}, line {lineno}: the line starts with a 0/1 value; each line needs a name first, "
                         "such as {{name}} 0 1 1 ...")
    return parts[0], parts[1] if len(parts) > 1 else ""
