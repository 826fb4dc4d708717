"""What the OSDT tests share: the OSDT and DL data sets and the certified OSDT objectives (``shared/golden``)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from optbb.common.data import BinaryDataset, read_osdt_csv
from optbb.datasets import load_osdt
from optbb.datasets.dl import load_dl

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SHARED = HERE.parent.parent / "shared"
BUNDLED = {"compas-binary": "compas", "monk1-train": "monk1", "monk2-train": "monk2", "monk3-train": "monk3",
           "tic-tac-toe": "tic-tac-toe", "car-evaluation": "car"}


def osdt_data(name: str) -> BinaryDataset:
    """An OSDT data set: the tests/data copy, else the shared data, else the copy bundled with optbb; else skip
    (FICO is never copied into the repository: its terms forbid it)."""
    for path in (DATA / "osdt" / f"{name}.csv", SHARED / "data" / "osdt" / f"{name}.csv",
                 SHARED / "data" / "osdt" / f"{name}.csv.gz"):
        if path.is_file():
            return read_osdt_csv(path)
    if name in BUNDLED:
        return load_osdt(BUNDLED[name])
    pytest.skip(f"{name} is neither bundled nor in the shared data ({SHARED / 'data' / 'osdt'}); it is not "
                "redistributable with optbb")


def dl_data(name: str):
    """DL set ``name`` as ``(X, y)`` (:func:`optbb.datasets.dl.load_dl`): the tests/data copy, else the shared
    data; else skip."""
    for base in (DATA, SHARED / "data"):
        if (base / "dl" / f"{name}.txt.gz").is_file():
            data = load_dl(base / "dl" / f"{name}.txt.gz")
            return data.X, data.y
    pytest.skip(f"DL set {name} not found (tests/data/dl or {SHARED / 'data' / 'dl'})")


def golden_params(leave_out=frozenset(), slow=frozenset()) -> list:
    """One pytest parameter per row of the certified OSDT objectives (shared/golden, else tests/data), without the
    ``(dataset, lambda)`` rows in ``leave_out``, the rows in ``slow`` marked slow; one skipped parameter when the
    file is absent."""
    for path in (SHARED / "golden" / "osdt_objectives.csv", DATA / "osdt" / "osdt_objectives.csv"):
        if path.is_file():
            with open(path) as fh:
                rows = [r for r in csv.DictReader(fh) if (r["dataset"], r["lambda"]) not in leave_out]
            return [pytest.param(r, id=f"{r['dataset']}-{r['lambda']}",
                                 marks=[pytest.mark.slow] if (r["dataset"], r["lambda"]) in slow else [])
                    for r in rows]
    return [pytest.param(None, marks=pytest.mark.skip(reason="osdt_objectives.csv not found"))]
