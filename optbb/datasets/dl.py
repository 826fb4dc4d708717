"""Loader for the DL8.5 / MurTree benchmark format, and the published minimum-error optima of those sets.

Format: one sample per line, space-separated integers, the class label first, then the 0/1 features; gzip is
accepted (``.gz``).  The 15 binarised UCI sets of Aglin, Nijssen & Schaus (AAAI 2020), as published in the
MurTree data repository (github.com/MurTree/murtree-data, folder ``DL/``, MIT), are not bundled with optbb; they
live in the project's ``shared/data/dl/`` folder beside the repository (or any folder you pass).

All 15 sets have binary labels.  :class:`~optbb.common.data.BinaryDataset` holds binary labels only, so a file
with more than two classes (or labels other than 0/1) is refused with a ``ValueError``.
"""
from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import numpy as np

from ..common.data import BinaryDataset, _check_two_classes

DL_NAMES = ("anneal", "australian-credit", "breast-wisconsin", "diabetes", "heart-cleveland", "hypothyroid",
            "ionosphere", "kr-vs-kp", "mushroom", "pendigits", "segment", "splice-1", "tic-tac-toe", "vehicle",
            "vote")

# Minimum training errors of a tree of depth <= 2 and <= 3 (None: not published), from pydl8.5's test suite
# (tests/test_DL85Classifier.py), as listed in shared/data/dl/README.md; DL8.5 is exact and STreeD agrees.
DL_OPTIMA: dict[str, tuple[int | None, int | None]] = {
    "anneal": (137, 112), "australian-credit": (87, 73), "breast-wisconsin": (22, 15), "diabetes": (177, 162),
    "heart-cleveland": (60, 41), "hypothyroid": (70, 61), "ionosphere": (32, None), "kr-vs-kp": (418, 198),
    "mushroom": (252, None), "pendigits": (153, None), "segment": (9, 0), "splice-1": (508, None),
    "tic-tac-toe": (282, 216), "vehicle": (75, None), "vote": (17, 12),
}


def default_shared_dir() -> Path:
    """The ``shared`` folder beside the repository (``$OPTBB_SHARED`` overrides it)."""
    env = os.environ.get("OPTBB_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared"


def dl_path(name: str, shared_dir: str | os.PathLike | None = None) -> Path:
    """Path of DL set ``name`` (e.g. ``"vote"``) in ``shared_dir/data/dl/``."""
    if name not in DL_NAMES:
        raise ValueError(f"unknown DL data set {name!r}; expected one of {', '.join(DL_NAMES)} or a file path")
    base = Path(shared_dir) if shared_dir is not None else default_shared_dir()
    for candidate in (base / "data" / "dl" / f"{name}.txt.gz", base / "data" / "dl" / f"{name}.txt"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"DL data set {name!r} not found under {base / 'data' / 'dl'}; pass shared_dir= "
                            "(the folder holding data/dl/) or a file path")


def load_dl(path_or_name: str | os.PathLike, shared_dir: str | os.PathLike | None = None) -> BinaryDataset:
    """Read a DL-format file (label first, 0/1 features; ``.gz`` accepted) into a :class:`BinaryDataset`.

    ``path_or_name`` is a file path or one of :data:`DL_NAMES`, looked up in ``shared_dir/data/dl/``
    (default: :func:`default_shared_dir`).  Features are named ``x0, x1, ...``.  Ragged lines, tokens other than
    integers, features other than 0/1, labels other than 0/1 (more than two classes) and single-class files are
    ``ValueError`` naming the file and line.
    """
    p = Path(path_or_name)
    if not p.is_file():
        if isinstance(path_or_name, str) and path_or_name in DL_NAMES:
            p = dl_path(path_or_name, shared_dir)
        else:
            raise FileNotFoundError(f"path_or_name {os.fspath(path_or_name)!r} is neither a file nor a DL data set "
                                    f"name ({', '.join(DL_NAMES)})")
    rows = _read_rows(p)
    y, X = rows[:, 0], rows[:, 1:]
    if X.shape[1] == 0:
        raise ValueError(f"{p}: no feature columns (each line needs a label and at least one feature)")
    bad = np.flatnonzero((X != 0) & (X != 1))
    if bad.size:
        i, j = divmod(int(bad[0]), X.shape[1])
        raise ValueError(f"{p}, line {i + 1}: feature {j} has value {int(X[i, j])}; expected 0 or 1")
    labels = np.unique(y)
    if not np.all(np.isin(labels, (0, 1))):
        raise ValueError(f"{p}: labels {labels.tolist()[:10]}; optbb's BinaryDataset holds binary 0/1 labels only")
    data = BinaryDataset(X.astype(np.uint8), y.astype(np.uint8), [f"x{j}" for j in range(X.shape[1])])
    _check_two_classes(data, p)
    return data


def _read_rows(path: Path) -> np.ndarray:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        text = io.TextIOWrapper(fh, encoding="ascii", errors="replace").read()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ValueError(f"{path}: empty file")
    width = len(lines[0].split())
    for i, ln in enumerate(lines):
        if len(ln.split()) != width:
            raise ValueError(f"{path}, line {i + 1}: {len(ln.split())} values, but line 1 has {width} (ragged file)")
    tokens = " ".join(lines).split()
    try:
        return np.array(tokens, dtype=np.int64).reshape(len(lines), width)
    except (ValueError, OverflowError):
        k = next(k for k, tok in enumerate(tokens) if not _is_int64(tok))
        raise ValueError(f"{path}, line {k // width + 1}: token {tokens[k]!r} is not an integer of the int64 "
                         "range") from None


def _is_int64(token: str) -> bool:
    """Whether numpy reads ``token`` as an int64: it parses as ``int()`` does."""
    try:
        return -(1 << 63) <= int(token) < 1 << 63
    except ValueError:
        return False
