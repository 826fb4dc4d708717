"""ProPublica COMPAS recidivism data: the CORELS (JMLR 2018) Feature Set A pipeline, from the raw CSV.

Reproduces the authors' preprocessing (spec ``corels.md`` sections 3.9 and 4.4):

* start from ProPublica's ``compas-scores-two-years.csv`` (7,214 records) and drop the records whose
  ``c_jail_in`` is empty, leaving 6,907;
* six categorical attributes: ``sex`` (Female, Male); ``age`` at ``c_jail_in`` computed from ``dob``
  (18-20, 21-22, 23-25, 26-45, >45); ``juvenile-felonies``, ``juvenile-misdemeanors`` and ``juvenile-crimes``
  (felonies + misdemeanors + other juvenile counts), each ``=0`` / ``>0``; ``priors`` (=0, =1, 2-3, >3).
  The label is ``two_year_recid``;
* ten folds: ``numpy.random.seed(67)``, one permutation of the 6,907 rows, ``numpy.array_split`` into 10 parts;
  fold ``i`` tests part ``i`` and trains on the other nine concatenated in order;
* antecedents mined on each training fold: every (attribute, value) pair, with both values of binary attributes,
  then every conjunction of two values of distinct attributes, each kept iff its support lies strictly between
  ``0.005 N`` and ``0.995 N``.  Values of an attribute are taken in order of first appearance in the training
  fold, and a value whose single clause fails the support filter takes no part in conjunctions (the reference
  miner's behaviour).  A test fold uses the training fold's antecedents, evaluated on the test rows.

With these rules, the written ``.out``, ``.label`` and ``.minor`` files reproduce the authors' ten training folds
(nlarusstone/corels-test, ``data/CrossValidation/compas_{i}_train.*``) bit for bit, and ``propublica_binary``
their ``compas-binary.csv``.  The raw CSV is not bundled with optbb (ProPublica gives no explicit licence; cite
Larson, Mattu, Kirchner and Angwin 2016): pass its path, or keep the project's ``shared`` folder beside it.
"""
from __future__ import annotations

import os
from bisect import bisect_left
from datetime import date, timedelta
from itertools import combinations, product
from pathlib import Path

import numpy as np
import pandas as pd

from ..common.data import BinaryDataset
from ..common.equivalence import minority_vector
from ..common.mining import Antecedent, MinedAntecedents
from .registry import check_split

RAW_CSV_NAME = "compas-scores-two-years.csv"
_DEFAULT_RAW = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "compas" / "raw" / RAW_CSV_NAME

ATTRIBUTES = ("sex", "age", "juvenile-felonies", "juvenile-misdemeanors", "juvenile-crimes", "priors")
LABEL = "recidivate-within-two-years"
LABEL_NAMES = (f"{LABEL}:No", f"{LABEL}:Yes")
SEED = 67  # c + o + m + p + a + s = 3 + 15 + 13 + 16 + 1 + 19
N_FOLDS = 10
MIN_SUPPORT = 0.005
MAX_CARDINALITY = 2


def _resolve_raw(raw_csv: str | os.PathLike | None) -> Path:
    path = Path(raw_csv) if raw_csv is not None else _DEFAULT_RAW
    if not path.is_file():
        how = "raw_csv" if raw_csv is not None else f"raw_csv was not given and the default {_DEFAULT_RAW}"
        raise FileNotFoundError(
            f"{how} does not exist: the ProPublica file {RAW_CSV_NAME} is not bundled with optbb. "
            "Download it from https://github.com/propublica/compas-analysis and pass its path as raw_csv."
        )
    return path


def _age_years(dob: str, jail_in: str) -> int:
    """Age as the reference computes it: the year reached by adding the elapsed time to 0001-01-01.

    This is one more than the completed years for 6,899 of the 6,907 records; the reference's bins are applied to
    this value (binning the completed years instead would move 1,031 records to another age bin).  Only the dates
    matter: the time of day never moves the result across a year boundary.
    """
    born = date.fromisoformat(dob[:10])
    jailed = date.fromisoformat(jail_in[:10])
    return (date(1, 1, 1) + timedelta(days=(jailed - born).days)).year


def _age_bin(a: int) -> str:
    return ("18-20", "21-22", "23-25", "26-45", ">45")[bisect_left((20, 22, 25, 45), a)]


def _priors_bin(p: int) -> str:
    return ("=0", "=1", "2-3", ">3")[bisect_left((0, 1, 3), p)]


def _zero_or_more(counts: pd.Series) -> np.ndarray:
    return np.where(counts.to_numpy() > 0, ">0", "=0")


def propublica_categorical(raw_csv: str | os.PathLike | None = None) -> pd.DataFrame:
    """The 6,907-row categorical table of Feature Set A, in the raw file's row order.

    Columns: ``sex``, ``age``, ``juvenile-felonies``, ``juvenile-misdemeanors``, ``juvenile-crimes``, ``priors``
    (string values such as ``"Male"``, ``"18-20"``, ``"=0"``, ``">3"``) and the label
    ``recidivate-within-two-years`` (0/1).
    """
    raw = pd.read_csv(_resolve_raw(raw_csv), dtype={"c_jail_in": str, "dob": str})
    raw = raw[raw["c_jail_in"].notna() & (raw["c_jail_in"] != "")].reset_index(drop=True)
    ages = [_age_years(d, j) for d, j in zip(raw["dob"], raw["c_jail_in"])]
    juvenile_all = raw["juv_fel_count"] + raw["juv_misd_count"] + raw["juv_other_count"]
    return pd.DataFrame({
        "sex": raw["sex"].to_numpy(dtype=str),
        "age": [_age_bin(a) for a in ages],
        "juvenile-felonies": _zero_or_more(raw["juv_fel_count"]),
        "juvenile-misdemeanors": _zero_or_more(raw["juv_misd_count"]),
        "juvenile-crimes": _zero_or_more(juvenile_all),
        "priors": [_priors_bin(int(p)) for p in raw["priors_count"]],
        LABEL: raw["two_year_recid"].to_numpy(dtype=np.uint8),
    })


def propublica_binary(raw_csv: str | os.PathLike | None = None) -> pd.DataFrame:
    """The 6,907-row 0/1 table in the layout of the authors' ``compas-binary.csv``.

    Per attribute, one column ``attr:value`` per value in sorted order, except that a two-valued attribute keeps
    only its first value (``sex:Female``, ``juvenile-felonies:=0``, ...); the label column is
    ``recidivate-within-two-years:1``.  13 feature columns plus the label.
    """
    cat = propublica_categorical(raw_csv)
    cols = {}
    for attr in ATTRIBUTES:
        values = sorted(cat[attr].unique())
        for v in values[:1] if len(values) == 2 else values:
            cols[f"{attr}:{v}"] = (cat[attr] == v).to_numpy(dtype=np.uint8)
    cols[f"{LABEL}:1"] = cat[LABEL].to_numpy(dtype=np.uint8)
    return pd.DataFrame(cols)


def propublica_folds(raw_csv: str | os.PathLike | None = None,
                     n_samples: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ten (train_idx, test_idx) pairs: row indices into ``propublica_categorical``'s table.

    Seed 67, one ``permutation`` of the rows, ``array_split`` into 10; fold ``i`` tests part ``i`` and trains on
    the others concatenated in order (6,216 or 6,217 training rows, 691 or 690 test rows).  Give ``n_samples``
    to skip reading the CSV (6,907 for this data).
    """
    n = len(propublica_categorical(raw_csv)) if n_samples is None else int(n_samples)
    parts = np.array_split(np.random.RandomState(SEED).permutation(n), N_FOLDS)
    return [(np.concatenate([parts[j] for j in range(N_FOLDS) if j != i]), parts[i]) for i in range(N_FOLDS)]


def mine_categorical(table: pd.DataFrame, attributes=ATTRIBUTES, max_cardinality: int = MAX_CARDINALITY,
                     min_support: float = MIN_SUPPORT, label: str = LABEL,
                     label_names: tuple[str, str] = LABEL_NAMES) -> MinedAntecedents:
    """Mine antecedents from a categorical table as the CORELS reference miner does.

    ``table`` holds the categorical ``attributes`` and the 0/1 column ``label``.

    Single clauses ``attr:value`` (values in order of first appearance) with support strictly inside
    ``(min_support N, (1 - min_support) N)``, then conjunctions of up to ``max_cardinality`` clauses over distinct
    attributes (attribute order, then value order) built from the surviving single-clause values, with the same
    strict filter.  Identical bit vectors are all kept.  The returned antecedents index the one-hot columns
    ``source_feature_names`` (every ``attr:value`` pair, surviving or not), so ``transform`` applies them to
    the one-hot table of other rows (see ``onehot``).
    """
    n = len(table)
    lo, hi = n * min_support, n * (1.0 - min_support)
    values = {a: list(pd.unique(table[a])) for a in attributes}
    onehot_names = [f"{a}:{v}" for a in attributes for v in values[a]]
    column = {name: j for j, name in enumerate(onehot_names)}
    X = onehot(table, onehot_names)

    def passes(col: np.ndarray) -> bool:
        s = int(col.sum())
        return lo < s < hi

    kept = {a: [v for v in values[a] if passes(X[:, column[f"{a}:{v}"]])] for a in attributes}
    ants, cols = [], []
    for card in range(1, max_cardinality + 1):
        for attrs in combinations(attributes, card):
            for vals in product(*(kept[a] for a in attrs)):
                ant = Antecedent(tuple(column[f"{a}:{v}"] for a, v in zip(attrs, vals)), (False,) * card)
                col = ant.evaluate(X)
                if passes(col):
                    ants.append(ant)
                    cols.append(col)
    if not ants:
        raise ValueError(f"no antecedent has support strictly between {lo:g} and {hi:g} of {n} rows")
    names = [a.name(onehot_names) for a in ants]
    y = table[label].to_numpy(dtype=np.uint8)
    data = BinaryDataset(np.stack(cols, axis=1), y, names, None, tuple(label_names))
    return MinedAntecedents(data, ants, onehot_names)


def onehot(table: pd.DataFrame, names: list[str]) -> np.ndarray:
    """0/1 matrix with one column per ``attr:value`` name (split at the first colon) over the table's rows."""
    cols = []
    for name in names:
        attr, value = name.split(":", 1)
        cols.append((table[attr].astype(str) == value).to_numpy(dtype=np.uint8))
    return np.stack(cols, axis=1)


def propublica_fold_dataset(raw_csv: str | os.PathLike | None = None, fold: int = 0,
                            split: str = "train") -> BinaryDataset:
    """Mined-antecedent dataset of one cross-validation fold (``split`` is ``"train"`` or ``"test"``).

    The training fold's antecedents are mined on its rows; the test fold evaluates those same antecedents on the
    test rows, in the fold's test order.  Labels are named ``recidivate-within-two-years:No`` / ``:Yes``.
    """
    check_split(split)
    _check_fold(fold)
    train, test = fold_datasets(propublica_categorical(raw_csv), fold)
    return train if split == "train" else test


def _check_fold(fold: int) -> None:
    if isinstance(fold, bool) or not isinstance(fold, (int, np.integer)) or not 0 <= fold < N_FOLDS:
        raise ValueError(f"fold must be an integer in 0..{N_FOLDS - 1}, got {fold!r}")


def fold_datasets(table: pd.DataFrame, fold: int) -> tuple[BinaryDataset, BinaryDataset]:
    """(train, test) datasets of one fold from the categorical table (``propublica_categorical``).

    Lets a caller read the raw CSV once for all ten folds; see ``propublica_fold_dataset``.
    """
    _check_fold(fold)
    train_idx, test_idx = propublica_folds(n_samples=len(table))[int(fold)]
    mined = mine_categorical(table.iloc[train_idx].reset_index(drop=True))
    test_table = table.iloc[test_idx].reset_index(drop=True)
    X = mined.transform(onehot(test_table, mined.source_feature_names))
    test = BinaryDataset(X, test_table[LABEL].to_numpy(dtype=np.uint8), list(mined.data.feature_names), None,
                         LABEL_NAMES)
    return mined.data, test


def _bit_line(name: str, bits: np.ndarray) -> str:
    return "{%s} %s\n" % (name, " ".join(np.asarray(bits, dtype=np.uint8).astype(str)))


def write_corels(data: BinaryDataset, root: str | os.PathLike, minor: bool = True) -> list[Path]:
    """Write ``root.out``, ``root.label`` and (if ``minor``) ``root.minor`` in the CORELS text format.

    ``.out``: one line ``{name} b1 ... bN`` per column of ``data``; ``.label``: one line per class,
    ``{label_names[j]} ...`` marking the samples of class ``j`` (two classes: label 0 first, then label 1);
    ``.minor``: ``{group_minority} ...``, the equivalent-points minority vector computed over all columns
    (``optbb.common.equivalence``).  Returns the paths written.
    """
    files = {".out": zip(data.feature_names, data.X.T),
             ".label": ((name, data.y == j) for j, name in enumerate(data.label_names))}
    if minor:
        files[".minor"] = [("group_minority", minority_vector(data.X, data.y, data.sample_weight))]
    paths = [Path(os.fspath(root) + ext) for ext in files]
    for path, lines in zip(paths, files.values()):
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(_bit_line(name, bits) for name, bits in lines)
    return paths

