"""Bundled benchmark data, with provenance, and the loaders that read it.

The files live in ``optbb/datasets/data/`` (origins, licences and checksums in ``data/PROVENANCE.md``):

* ``corels/``: the CORELS ProPublica COMPAS train/test split (KDD 2017 set, fold 0) in the CORELS text format;
* ``osdt/``: OSDT's binarised data sets (COMPAS, MONK 1-3, tic-tac-toe, car evaluation), gzip-compressed;
* ``frl/``: UCI bank-full as FRL item lists (reconstructed discretisation) and its labels.

FICO HELOC data is never bundled: FICO's terms forbid redistributing it.  ``load_osdt("fico", path=...)`` reads a
copy you obtained yourself.  The ProPublica raw CSV is not bundled either; ``optbb.datasets.propublica`` builds the
CORELS cross-validation folds from it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..common.data import BinaryDataset, read_corels, read_osdt_csv

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class _Entry:
    description: str
    files: tuple[str, ...]  # relative to DATA_DIR; the first one is the main file


_DATASETS: dict[str, _Entry] = {
    "corels-compas-train": _Entry(
        "ProPublica COMPAS, CORELS format: 6,489 training samples x 155 mined antecedents (+ .label, .minor)",
        ("corels/compas_train.out.gz", "corels/compas_train.label", "corels/compas_train.minor")),
    "corels-compas-test": _Entry(
        "ProPublica COMPAS, CORELS format: 721 test samples x the same 155 antecedents (+ .label)",
        ("corels/compas_test.out.gz", "corels/compas_test.label")),
    "osdt-compas": _Entry(
        "ProPublica COMPAS, OSDT binarisation: 6,907 samples x 12 binary features",
        ("osdt/compas-binary.csv.gz",)),
    "osdt-monk1": _Entry("UCI MONK's problem 1 (train set), one-hot: 124 samples x 11 features",
                         ("osdt/monk1-train.csv.gz",)),
    "osdt-monk2": _Entry("UCI MONK's problem 2 (train set), one-hot: 169 samples x 11 features",
                         ("osdt/monk2-train.csv.gz",)),
    "osdt-monk3": _Entry("UCI MONK's problem 3 (train set), one-hot: 122 samples x 11 features",
                         ("osdt/monk3-train.csv.gz",)),
    "osdt-tic-tac-toe": _Entry("UCI Tic-Tac-Toe endgame, one-hot: 958 samples x 18 features",
                               ("osdt/tic-tac-toe.csv.gz",)),
    "osdt-car": _Entry("UCI Car Evaluation, one-hot: 1,728 samples x 15 features",
                       ("osdt/car-evaluation.csv.gz",)),
    "frl-bank-full": _Entry(
        "UCI Bank Marketing (bank-full) as FRL item lists: 45,211 samples x 12 items each (+ labels)",
        ("frl/bank-full_items.txt.gz", "frl/bank-full_all.Y.gz")),
}

OSDT_NAMES = ("compas", "monk1", "monk2", "monk3", "tic-tac-toe", "car")

_FICO_MESSAGE = (
    "the FICO HELOC data set is not bundled with optbb: FICO's data terms forbid redistributing it (OSDT's "
    "binarisation included). Obtain it yourself (e.g. the OSDT repository's data/preprocessed/fico_binary.csv, "
    "or the raw HELOC file from the FICO Explainable Machine Learning Challenge) and call "
    "load_osdt('fico', path=...)."
)


def list_datasets() -> dict[str, str]:
    """Names of the bundled data sets, each with a one-line description, in a stable order."""
    return {name: entry.description for name, entry in _DATASETS.items()}


def _entry(name: str) -> _Entry:
    if name in _DATASETS:
        return _DATASETS[name]
    if "fico" in name.lower():
        raise ValueError(_FICO_MESSAGE)
    raise ValueError(f"unknown data set {name!r}; bundled data sets: {', '.join(_DATASETS)}")


def data_path(name: str) -> Path:
    """Path of a bundled file.

    ``name`` is a data set name from ``list_datasets()`` (its main file is returned; ``data_files`` lists the
    companion files too) or a file path relative to the data folder, e.g. ``"corels/compas_train.label"``.
    """
    if any(name in entry.files for entry in _DATASETS.values()):
        return DATA_DIR / name
    return DATA_DIR / _entry(name).files[0]


def data_files(name: str) -> list[Path]:
    """All bundled files of data set ``name`` (main file first)."""
    return [DATA_DIR / f for f in _entry(name).files]


def load_compas_corels(split: str = "train") -> BinaryDataset:
    """The CORELS ProPublica COMPAS split shipped with CORELS (``split`` is ``"train"`` or ``"test"``).

    Columns are the 155 mined antecedents (e.g. ``sex:Male,age:18-20``), labels
    ``recidivate-within-two-years:No`` / ``:Yes``.  The training split carries the authors' equivalent-points
    minority vector (``.minor``), checked against the one computed from the data.  This is fold 0 of the
    KDD 2017 10-fold set (7,210 records: 6,489 train, 721 test); the JMLR folds of 6,907 records come from
    ``optbb.datasets.propublica``.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    files = data_files(f"corels-compas-{split}")
    return read_corels(files[0], files[1], files[2] if split == "train" else None)


def load_osdt(name: str, path: str | os.PathLike | None = None) -> BinaryDataset:
    """One of OSDT's binarised data sets: ``"compas"``, ``"monk1"``, ``"monk2"``, ``"monk3"``,
    ``"tic-tac-toe"``, ``"car"``; or ``"fico"`` from a file you supply.

    The label is the last column (``recidivate-within-two-years:1`` for COMPAS, ``class_1`` otherwise).
    ``path`` reads that file (OSDT's ``;``-separated CSV with a header, ``.gz`` accepted) instead of the bundled
    copy; it is required for ``"fico"``, which optbb does not redistribute.
    """
    if path is not None:
        if name not in OSDT_NAMES and name != "fico":
            raise ValueError(f"unknown OSDT data set {name!r}; expected one of {', '.join(OSDT_NAMES)} or 'fico'")
        if not Path(path).is_file():
            raise FileNotFoundError(f"path {os.fspath(path)!r} does not exist")
        return read_osdt_csv(path)
    if name == "fico":
        raise ValueError(_FICO_MESSAGE)
    if name not in OSDT_NAMES:
        raise ValueError(f"unknown OSDT data set {name!r}; expected one of {', '.join(OSDT_NAMES)} "
                         "(or 'fico' with path=...)")
    return read_osdt_csv(data_path(f"osdt-{name}"))


def load_bank_full_items(as_frame: bool = False) -> tuple[list[list[str]] | pd.DataFrame, np.ndarray]:
    """UCI bank-full as FRL transactions: ``(items, y)``.

    ``items`` has one entry per row of UCI ``bank-full.csv`` (45,211, file order), each a list of 12 items such
    as ``"30<=age<40"``, ``"job=technician"``, ``"campaign>=3"`` (the reconstructed discretisation described in
    ``data/PROVENANCE.md``).  With ``as_frame=True`` it is instead a 0/1 ``uint8`` DataFrame with one column per
    distinct item, in order of first appearance.  ``y`` is a ``uint8`` array, 1 = subscribed a term deposit
    (5,289 positives).
    """
    from ..frl.data import read_items, read_labels

    items_path, labels_path = data_files("frl-bank-full")
    items, y = read_items(items_path), read_labels(labels_path)
    if len(items) != len(y):
        raise ValueError(f"{items_path} has {len(items)} rows but {labels_path} has {len(y)} labels")
    if not as_frame:
        return items, y
    columns: dict[str, int] = {}
    for row in items:
        for item in row:
            columns.setdefault(item, len(columns))
    rows = np.repeat(np.arange(len(items)), [len(row) for row in items])
    cols = np.fromiter((columns[item] for row in items for item in row), dtype=np.int64, count=rows.size)
    X = np.zeros((len(items), len(columns)), dtype=np.uint8)
    X[rows, cols] = 1
    return pd.DataFrame(X, columns=list(columns)), y


__all__ = [
    "DATA_DIR",
    "OSDT_NAMES",
    "data_files",
    "data_path",
    "list_datasets",
    "load_bank_full_items",
    "load_compas_corels",
    "load_osdt",
]
