"""The bundled data files: their names, descriptions and paths (``optbb/datasets/data/``, provenance in
``data/PROVENANCE.md``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
    "adult": _Entry(
        "UCI Adult, raw columns: a random sample of 5,000 training and 2,500 test rows (income >50K or not)",
        ("adult/adult-train-sample.csv.gz", "adult/adult-test-sample.csv.gz")),
}

OSDT_NAMES = ("compas", "monk1", "monk2", "monk3", "tic-tac-toe", "car")

_FICO_MESSAGE = (
    "the FICO HELOC data set is not bundled with optbb: FICO's data terms forbid redistributing it (OSDT's "
    "binarisation included). Obtain it yourself (e.g. the OSDT repository's data/preprocessed/fico_binary.csv, "
    "or the raw HELOC file from the FICO Explainable Machine Learning Challenge) and call "
    "load_osdt('fico', path=...)."
)


def check_split(split) -> None:
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")


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
