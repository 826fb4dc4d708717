"""UCI bank-full (Moro et al. 2011) for FRL: the reconstructed item file and the discretisation behind it.

The paper's discretisation was not published.  The item file ``bank-full_items.txt.gz`` (one line per row of
``bank-full.csv``, 12 space-separated ``attr=value`` items each) reproduces every count printed in the paper's
tables (spec ``frl_reference_run.md``, Section 3).  Its bins are half-open ``[lo, hi)`` (:func:`discretize_bank`);
of the ``balance`` edges only ``[1000, 2000)`` is attested, 0 and 5000 are a guess.  The other attributes keep
their raw UCI value (``job=blue-collar``), except ``duration``, ``month``, ``day`` and ``pdays``, left out: no table
of the paper uses them, and binning ``duration`` contradicts Table 12.

The label is ``y=yes`` (1): 5,289 positives and 39,922 negatives out of 45,211 rows.  The item and label files
are bundled with the package (``optbb.datasets``, data set ``frl-bank-full``).  This module is the one bank-full
loader: :func:`read_bank_items` reads the files, :func:`load_bank_full` gives a :class:`BinaryDataset` and
``optbb.datasets.load_bank_full_items`` the item lists or a DataFrame.
"""
from __future__ import annotations

import os
import re
from functools import partial

import numpy as np
import pandas as pd

from ..common.data import BinaryDataset, open_text
from .registry import data_files

CATEGORICAL = ["job", "marital", "education", "default", "housing", "loan", "contact", "poutcome"]
ATTRIBUTE_ORDER = ["age", "job", "marital", "education", "default", "balance", "housing", "loan", "contact",
                   "campaign", "previous", "poutcome"]


BINS = {"age": [(17, 30), (30, 40), (40, 50), (50, 60), (60, 100)],
        "balance": [(None, 0), (0, 1000), (1000, 2000), (2000, 5000), (5000, None)]}


def _bin(attr: str, x: int) -> str:
    """The item of ``x`` in the bins of ``attr``: ``lo<=attr<hi``, ``attr<hi`` or ``attr>=lo``."""
    for lo, hi in BINS[attr]:
        if (lo is None or x >= lo) and (hi is None or x < hi):
            return f"{attr}<{hi}" if lo is None else f"{attr}>={lo}" if hi is None else f"{lo}<={attr}<{hi}"
    raise ValueError(f"value {x} falls in no bin")


def _count(attr: str, lo: int, top: int, x: int) -> str:
    """``attr=x`` for ``lo <= x < top``, else ``attr>=top`` (``campaign=1``, ``campaign=2``, ``campaign>=3``)."""
    return f"{attr}={x}" if lo <= x < top else f"{attr}>={top}"


def discretize_bank(csv_path: str | os.PathLike) -> tuple[list[list[str]], np.ndarray]:
    """Items per row (in :data:`ATTRIBUTE_ORDER`) and 0/1 labels from the raw ``bank-full.csv`` (``;``-separated),
    with the bins documented in this module."""
    df = pd.read_csv(csv_path, sep=";")
    binned = {"age": partial(_bin, "age"), "balance": partial(_bin, "balance"),
              "campaign": partial(_count, "campaign", 1, 3), "previous": partial(_count, "previous", 0, 2)}
    rows = [[binned[a](int(r[a])) if a in binned else f"{a}={r[a]}" for a in ATTRIBUTE_ORDER]
            for r in (rec._asdict() for rec in df.itertuples(index=False))]
    y = (df["y"].astype(str) == "yes").to_numpy().astype(np.uint8)
    return rows, y


def read_items(path: str | os.PathLike) -> list[list[str]]:
    """One list of items per line of a (gzipped) item file."""
    with open_text(path) as fh:
        return [line.split() for line in fh if line.strip()]


def read_labels(path: str | os.PathLike) -> np.ndarray:
    """0/1 labels, one per line (the reference repo's ``bank-full_all.Y``, optionally gzipped)."""
    with open_text(path) as fh:
        vals = [int(tok) for tok in fh.read().split()]
    y = np.array(vals, dtype=np.int64)
    if np.any((y != 0) & (y != 1)):
        raise ValueError(f"{path}: labels must be 0 or 1")
    return y.astype(np.uint8)


def items_to_dataset(rows: list[list[str]], y: np.ndarray, label_names=("no", "yes")) -> BinaryDataset:
    """One binary column per distinct item (ordered by attribute, then by item), 1 where the row holds it."""
    if len(rows) != len(y):
        raise ValueError(f"length mismatch: {len(rows)} item rows but {len(y)} labels")
    vocab = sorted({it for r in rows for it in r}, key=_item_key)
    return BinaryDataset(item_matrix(rows, vocab), np.asarray(y, dtype=np.uint8), vocab, None, label_names)


def item_matrix(rows: list[list[str]], vocab: list[str]) -> np.ndarray:
    """``uint8`` matrix with one column per item of ``vocab``, 1 where the row holds the item."""
    index = {it: k for k, it in enumerate(vocab)}
    r = np.repeat(np.arange(len(rows)), [len(row) for row in rows])
    c = np.fromiter((index[it] for row in rows for it in row), dtype=np.int64, count=r.size)
    X = np.zeros((len(rows), len(vocab)), dtype=np.uint8)
    X[r, c] = 1
    return X


def _item_key(item: str):
    m = re.search(r"[A-Za-z_]+", item)
    attr = m.group(0) if m else item
    rank = ATTRIBUTE_ORDER.index(attr) if attr in ATTRIBUTE_ORDER else len(ATTRIBUTE_ORDER)
    return rank, item


def read_bank_items(data_dir: str | os.PathLike | None = None, items_path=None,
                    labels_path=None) -> tuple[list[list[str]], np.ndarray]:
    """``(items, y)`` of bank-full: the bundled files, or ``data_dir`` holding ``bank-full_items.txt.gz`` and
    ``bank-full_all.Y`` (or the two paths)."""
    if data_dir is None and items_path is None and labels_path is None:
        items_path, labels_path = data_files("frl-bank-full")
    elif items_path is None or labels_path is None:
        if data_dir is None:
            raise ValueError("give data_dir (the folder with bank-full_items.txt.gz and bank-full_all.Y) or both "
                             "items_path and labels_path")
        items_path = items_path or os.path.join(data_dir, "bank-full_items.txt.gz")
        labels_path = labels_path or os.path.join(data_dir, "bank-full_all.Y")
    items, y = read_items(items_path), read_labels(labels_path)
    if len(items) != len(y):
        raise ValueError(f"{items_path} has {len(items)} rows but {labels_path} has {len(y)} labels")
    return items, y


def load_bank_full(data_dir: str | os.PathLike | None = None, items_path=None, labels_path=None) -> BinaryDataset:
    """bank-full as items (see :func:`read_bank_items` for the arguments): a :class:`BinaryDataset` with one
    binary column per item."""
    return items_to_dataset(*read_bank_items(data_dir, items_path, labels_path))
