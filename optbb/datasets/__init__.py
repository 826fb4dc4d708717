"""Bundled benchmark data, with provenance, and the loaders that read it.

The files live in ``optbb/datasets/data/`` (origins, licences and checksums in ``data/PROVENANCE.md``):

* ``corels/``: the CORELS ProPublica COMPAS train/test split (KDD 2017 set, fold 0) in the CORELS text format;
* ``osdt/``: OSDT's binarised data sets (COMPAS, MONK 1-3, tic-tac-toe, car evaluation), gzip-compressed;
* ``frl/``: UCI bank-full as FRL item lists (reconstructed discretisation) and its labels;
* ``adult/``: a random sample of UCI Adult (raw numeric and categorical columns) for the continuous-data tutorial.

FICO HELOC data is never bundled: FICO's terms forbid redistributing it.  ``load_osdt("fico", path=...)`` reads a
copy you obtained yourself.  The ProPublica raw CSV is not bundled either; ``optbb.datasets.propublica`` builds the
CORELS cross-validation folds from it.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..common.data import BinaryDataset, read_corels, read_osdt_csv
from .bank import item_matrix, items_to_dataset, load_bank_full, read_bank_items
from .registry import _FICO_MESSAGE, DATA_DIR, OSDT_NAMES, check_split, data_files, data_path, list_datasets

ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
                 "income")

def load_compas_corels(split: str = "train") -> BinaryDataset:
    """The CORELS ProPublica COMPAS split shipped with CORELS (``split`` is ``"train"`` or ``"test"``).

    Columns are the 155 mined antecedents (e.g. ``sex:Male,age:18-20``), labels
    ``recidivate-within-two-years:No`` / ``:Yes``.  The training split carries the authors' equivalent-points
    minority vector (``.minor``), checked against the one computed from the data.  This is fold 0 of the
    KDD 2017 10-fold set (7,210 records: 6,489 train, 721 test); the JMLR folds of 6,907 records come from
    ``optbb.datasets.propublica``.
    """
    check_split(split)
    return read_corels(*data_files(f"corels-compas-{split}"))  # .out, .label and, for "train" only, .minor


def load_osdt(name: str, path: str | os.PathLike | None = None) -> BinaryDataset:
    """One of OSDT's binarised data sets: ``"compas"``, ``"monk1"``, ``"monk2"``, ``"monk3"``,
    ``"tic-tac-toe"``, ``"car"``; or ``"fico"`` from a file you supply.

    The label is the last column (``recidivate-within-two-years:1`` for COMPAS, ``class_1`` otherwise).
    ``path`` reads that file (OSDT's ``;``-separated CSV with a header, ``.gz`` accepted) instead of the bundled
    copy; it is required for ``"fico"``, which optbb does not redistribute.
    """
    if name not in OSDT_NAMES and name != "fico":
        raise ValueError(f"unknown OSDT data set {name!r}; expected one of {', '.join(OSDT_NAMES)} "
                         "(or 'fico' with path=...)")
    if path is None:
        if name == "fico":
            raise ValueError(_FICO_MESSAGE)
        return read_osdt_csv(data_path(f"osdt-{name}"))
    if not Path(path).is_file():
        raise FileNotFoundError(f"path {os.fspath(path)!r} does not exist")
    return read_osdt_csv(path)


def load_bank_full_items(as_frame: bool = False) -> tuple[list[list[str]] | pd.DataFrame, np.ndarray]:
    """UCI bank-full as FRL transactions: ``(items, y)``.

    ``items`` has one entry per row of UCI ``bank-full.csv`` (45,211, file order), each a list of 12 items such
    as ``"30<=age<40"``, ``"job=technician"``, ``"campaign>=3"`` (the reconstructed discretisation described in
    ``data/PROVENANCE.md``).  With ``as_frame=True`` it is instead a 0/1 ``uint8`` DataFrame with one column per
    distinct item, in order of first appearance.  ``y`` is a ``uint8`` array, 1 = subscribed a term deposit
    (5,289 positives).
    """
    items, y = read_bank_items()
    if not as_frame:
        return items, y
    columns = list(dict.fromkeys(item for row in items for item in row))
    return pd.DataFrame(item_matrix(items, columns), columns=columns), y


def load_adult(split: str = "train", path: str | os.PathLike | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """UCI Adult as ``(X, y)``: ``X`` the 14 raw columns (numeric and categorical, ``?`` kept as a category),
    ``y`` the income class, ``"<=50K"`` or ``">50K"`` (the test file's trailing periods removed).

    Without ``path``: the bundled random sample (5,000 rows of ``adult.data`` for ``"train"``, 2,500 of
    ``adult.test`` for ``"test"``; ``data/PROVENANCE.md`` says how they were drawn).  With ``path``: the folder
    holding the UCI files ``adult.data`` and ``adult.test`` (all 32,561 / 16,281 rows).
    """
    check_split(split)
    if path is None:
        df = pd.read_csv(data_files("adult")[0 if split == "train" else 1])
    else:
        f = Path(path) / ("adult.data" if split == "train" else "adult.test")
        if not f.is_file():
            raise FileNotFoundError(f"path {os.fspath(path)!r} holds no {f.name} (the UCI Adult files)")
        df = pd.read_csv(f, names=list(ADULT_COLUMNS), skipinitialspace=True, comment="|")
        df["income"] = df["income"].str.rstrip(".")
    return df.drop(columns="income"), df["income"].rename("income")


__all__ = ["ADULT_COLUMNS", "DATA_DIR", "OSDT_NAMES", "data_files", "data_path", "items_to_dataset", "list_datasets",
           "load_adult", "load_bank_full", "load_bank_full_items", "load_compas_corels", "load_osdt"]
