"""The GOSDT reference suite for ``benchmarks/gosdt_suite.py``: loading, the published optima, exact optima.

The 14 data sets live in ``../shared/data/gosdt_suite/`` (see its README); they are research-use data and are read
from there, never copied into optbb.  :func:`load` reads one as the suite defines it: the last column is the label,
missing values are 0, a text column becomes one 0/1 indicator per value, and a numeric column stays raw, so that a
solver offered every threshold of it solves the same problem as the published runs.

:func:`known_optima` reads ``known_optima.csv`` (the best objective any published solver reached in 30 s per pair,
rounded to 6 decimals, and whether one certified it) and :func:`exact_value` recovers the exact value behind a
rounded one.  On a data set of one numeric column every tree is a partition of the sorted values into contiguous
intervals, one leaf each, and every such partition is the leaves of some tree of threshold splits, so
:func:`interval_optimum` computes the optimum exactly by dynamic programming over the intervals.

This module imports nothing from optbb.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SUITE = Path(__file__).resolve().parents[2] / "shared" / "data" / "gosdt_suite"
DATASETS = ["chudi", "monk_1", "monk_2", "monk_3", "iris", "tic-tac-toe", "gaussian_1k", "fico_1k", "sine_1k",
            "car_evaluation", "coupon_bar", "compas_binned", "fico_binary", "compas_processed"]
LAMBDAS = [0.1, 0.05, 0.02, 0.01, 0.005]
ROUNDING = 5e-7  # known_optima.csv holds 6 decimals


@dataclass
class Suite:
    """One data set of the suite: ``X`` float64 (raw numeric columns and 0/1 indicators), ``y`` labels
    ``0 .. k-1``, the column names and whether each column is numeric (more than two values)."""

    X: np.ndarray
    y: np.ndarray
    names: list[str]
    numeric: np.ndarray

    @property
    def cuts(self) -> int:
        """Candidate splits: every gap between two consecutive distinct values of each column."""
        return int(sum(len(np.unique(self.X[:, j])) - 1 for j in range(self.X.shape[1])))


def load(name: str, root: Path = SUITE) -> Suite:
    """The data set ``name`` (one of :data:`DATASETS`) as the suite defines it."""
    import pandas as pd

    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; the suite has {', '.join(DATASETS)}")
    df = pd.read_csv(root / f"{name}.csv").fillna(0)
    _, y = np.unique(df.iloc[:, -1].astype(str).to_numpy(), return_inverse=True)
    columns, names = [], []
    for col in df.columns[:-1]:
        if pd.api.types.is_numeric_dtype(df[col]):
            columns.append(df[col].to_numpy(np.float64))
            names.append(str(col))
            continue
        values = df[col].astype(str).to_numpy()
        for v in sorted(set(values)):  # one indicator per value
            columns.append((values == v).astype(np.float64))
            names.append(f"{col}={v}")
    X = np.column_stack(columns)
    numeric = np.array([len(np.unique(X[:, j])) > 2 for j in range(X.shape[1])])
    return Suite(X, y.astype(np.int64), names, numeric)


@dataclass
class Known:
    """A row of ``known_optima.csv``: the best published objective (rounded), whether it is certified, by whom."""

    objective: float
    certified: bool
    source: str


def known_optima(root: Path = SUITE) -> dict[tuple[str, float], Known]:
    """``(dataset, lambda) -> Known`` from ``known_optima.csv``."""
    with open(root / "known_optima.csv", newline="") as fh:
        return {(r["dataset"], float(r["lam"])): Known(float(r["objective"]), r["certified"] == "True", r["source"])
                for r in csv.DictReader(fh)}


def exact_value(rounded: float, n: int, lam: float, tol: float = ROUNDING) -> float | None:
    """The one value ``errors / n + lam * leaves`` (integers ``errors`` in ``0..n``, ``leaves >= 1``) within ``tol``
    of ``rounded``, or None when there is none or more than one (then only the rounded value is known)."""
    found: set[float] = set()
    for leaves in range(1, int(math.floor((rounded + tol) / lam + 1e-9)) + 1):
        errors = round((rounded - lam * leaves) * n)
        for e in (errors - 1, errors, errors + 1):
            v = e / n + lam * leaves
            if 0 <= e <= n and abs(v - rounded) <= tol:
                found.add(round(v, 12))
    return found.pop() if len(found) == 1 else None


def interval_optimum(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[float, int, int]:
    """Exact optimum of ``errors / n + lam * leaves`` over the trees on the single column ``x``.

    The distinct values of ``x`` in order are bins with class counts ``c[b, k]``; a leaf is a run of bins ``j .. i-1``
    (rows of equal value cannot be separated) whose errors are its rows less its largest class.  With prefix sums
    ``S`` of the counts, ``best[i] = min_j best[j] + (rows - max_k) of (S[i] - S[j]) + lam * n``, in units of rows,
    ``O(bins^2 * k)``.  Returns ``(objective, errors, leaves)``."""
    n = len(y)
    values, bins = np.unique(x, return_inverse=True)
    k = int(y.max()) + 1
    counts = np.zeros((len(values), k), dtype=np.int64)
    np.add.at(counts, (bins, y), 1)
    S = np.vstack([np.zeros((1, k), dtype=np.int64), np.cumsum(counts, axis=0)])
    m = len(values)
    price = lam * n  # a leaf's price in rows
    best = np.zeros(m + 1)
    start = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, m + 1):
        seg = S[i] - S[:i]  # (i, k): the class counts of the runs j .. i-1
        cost = best[:i] + seg.sum(axis=1) - seg.max(axis=1) + price
        j = int(np.argmin(cost))
        best[i], start[i] = cost[j], j
    leaves, errors, i = 0, 0, m
    while i > 0:
        j = int(start[i])
        seg = S[i] - S[j]
        errors += int(seg.sum() - seg.max())
        leaves += 1
        i = j
    return errors / n + lam * leaves, errors, leaves
