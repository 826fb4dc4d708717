"""OSDT experiment tasks shared by the osdt-* studies: data location, OSDT / CART / BinOCT runs on a data set or a
cross-validation fold, each returning a JSON-serialisable dict for the cached runner.

Data: the bundled OSDT sets (``optbb.datasets.load_osdt``); FICO only from a user path (``OPTBB_FICO`` or
``../shared/data/osdt/fico_binary.csv.gz``), never copied into the repository; the 10-fold splits from
``../shared/data/osdt`` (``OPTBB_SHARED_DATA`` overrides the parent folder).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .report import SHARED_DATA, accuracy, search_fields

OSDT_SPLITS = SHARED_DATA / "osdt"

# data set name (as load_osdt) -> file stem in the OSDT repository / shared splits, display name
DATASETS = {
    "compas": ("compas-binary", "COMPAS"),
    "fico": ("fico_binary", "FICO"),
    "tic-tac-toe": ("tic-tac-toe", "Tic-Tac-Toe"),
    "car": ("car-evaluation", "Car"),
    "monk1": ("monk1-train", "Monk1"),
    "monk2": ("monk2-train", "Monk2"),
    "monk3": ("monk3-train", "Monk3"),
}

# lambda grids of the reference code (spec osdt.md section 4.1)
LAMBDAS = {
    "compas": [0.025, 0.01, 0.005, 0.001, 0.0005],
    "car": [0.1, 0.05, 0.025, 0.01, 0.005, 0.0025],
    "tic-tac-toe": [0.1, 0.05, 0.025, 0.01, 0.005, 0.0025],
    "monk1": [0.1, 0.05, 0.025],
    "monk2": [0.1, 0.025, 0.01, 0.005],
    "monk3": [0.1, 0.025, 0.01, 0.005],
    "fico": [0.05, 0.005, 0.001, 0.00035],
}

FICO_ENV = "OPTBB_FICO"


def fico_path() -> Path | None:
    """The user's FICO file: ``$OPTBB_FICO``, else the shared copy beside the repository, else None."""
    env = os.environ.get(FICO_ENV)
    for p in ([Path(env)] if env else []) + [OSDT_SPLITS / "fico_binary.csv.gz", OSDT_SPLITS / "fico_binary.csv"]:
        if p.is_file():
            return p
    return None


def available(names) -> list[str]:
    """The data sets of ``names`` that can be loaded here (FICO only with a user file)."""
    return [n for n in names if n != "fico" or fico_path() is not None]


def load(name: str, fold: int | None = None, split: str = "train"):
    """A data set (whole, as in the one-fold runs) or fold ``fold`` (1..10) of the shared 10-fold splits."""
    from optbb.common.data import read_osdt_csv
    from optbb.datasets import load_osdt

    if fold is None:
        if name == "fico":
            p = fico_path()
            if p is None:
                raise FileNotFoundError(f"FICO is not bundled; set {FICO_ENV} to your fico_binary.csv")
            return load_osdt("fico", path=p)
        return load_osdt(name)
    p = _fold_file(name, fold, split)
    if p is None:
        p = OSDT_SPLITS / f"{DATASETS[name][0]}.csv.{split}{fold}.csv"
        raise FileNotFoundError(f"fold file {p} not found (the 10-fold splits live in {OSDT_SPLITS}; set "
                                "OPTBB_SHARED_DATA to the folder holding osdt/)")
    return read_osdt_csv(p)


def _fold_file(name: str, fold: int, split: str) -> Path | None:
    """``<stem>.csv.<split><fold>.csv``, plain or gzip-compressed (the FICO training folds are)."""
    base = OSDT_SPLITS / f"{DATASETS[name][0]}.csv.{split}{fold}.csv"
    for p in (base, Path(f"{base}.gz")):
        if p.is_file():
            return p
    return None


def has_folds(name: str) -> bool:
    return _fold_file(name, 1, "train") is not None and _fold_file(name, 1, "test") is not None


_WARM = False


def warm_up() -> None:
    """Compile the OSDT kernels on a trivial problem so no timing includes JIT compilation."""
    global _WARM
    if _WARM:
        return
    from optbb.datasets import load_osdt
    from optbb.osdt import solve

    solve(load_osdt("monk1"), 0.2, search="leaf_set")
    solve(load_osdt("compas"), 0.005, search="leaf_set")
    _WARM = True


def osdt_task(dataset: str, regularization: float, fold: int | None = None, policy: str = "curiosity",
              ablation=(), initial_tree: str | None = "cart", time_limit=None, memory_limit=None, max_leaves=None,
              max_depth=None, trace: bool = False, tree: bool = False, repeats: int = 1,
              search: str = "leaf_set") -> dict:
    """One OSDT run: objective, bound, status, counters, leaves, training (and test, on a fold) accuracy.

    With ``repeats`` > 1 a run that took under a second is repeated and its times are the medians (the search is
    deterministic, so every other field is the same in each repetition)."""
    from optbb.osdt import solve

    warm_up()
    data = load(dataset, fold, "train")

    def run():
        return solve(data, regularization, search=search, policy=policy, ablation=tuple(ablation),
                     initial_tree=initial_tree, time_limit=time_limit, memory_limit=memory_limit,
                     max_leaves=max_leaves, max_depth=max_depth)

    res = run()
    times = [(res.counters["total_time"], res.counters["time_to_optimum"])]
    while len(times) < repeats and res.counters["total_time"] < 1.0:
        again = run().counters
        times.append((again["total_time"], again["time_to_optimum"]))
    out = {**search_fields(res), "n_leaves": res.model.n_leaves, "depth": res.model.depth,
           "train_accuracy": accuracy(res.model.predict(data.X), data.y), "n_samples": data.n_samples,
           **{k: res.counters.get(k) for k in ("trees_evaluated", "trees_to_optimum", "total_time",
                                               "time_to_optimum", "memory_bytes", "max_queue_size",
                                               "best_is_cart")}}
    if len(times) > 1:
        out["total_time"], out["time_to_optimum"] = (float(np.median(t)) for t in zip(*times))
        out["repeats"] = len(times)
    if fold is not None:
        test = load(dataset, fold, "test")
        out["test_accuracy"] = accuracy(res.model.predict(test.X), test.y)
    if trace:
        out["trace"] = res.trace.to_dict(orient="list")
    if tree:
        out["tree"] = str(res.model)
    return out


def cart_task(dataset: str, n_leaves: int, fold: int | None = None, max_depth: int | None = 5,
              tree: bool = False) -> dict:
    """scikit-learn CART (Gini) grown best-first to at most ``n_leaves`` leaves (depth <= 5 as the OSDT code)."""
    from sklearn.tree import DecisionTreeClassifier, export_text

    data = load(dataset, fold, "train")
    clf = DecisionTreeClassifier(max_leaf_nodes=max(int(n_leaves), 2), max_depth=max_depth, random_state=0)
    clf.fit(data.X, data.y)
    out = {"n_leaves": int(clf.get_n_leaves()), "train_accuracy": accuracy(clf.predict(data.X), data.y)}
    if fold is not None:
        test = load(dataset, fold, "test")
        out["test_accuracy"] = accuracy(clf.predict(test.X), test.y)
    if tree:
        out["tree"] = export_text(clf, feature_names=list(data.feature_names), decimals=0)
    return out


def binoct_task(dataset: str, depth: int, time_limit: float, fold: int | None = None,
                regularization: float | None = None, formulation: str = "binoct", tree: bool = False) -> dict:
    """BinOCT (or RBinOCT with ``regularization``) on HiGHS, one thread."""
    from optbb.baselines.binoct import BinOCTClassifier

    data = load(dataset, fold, "train")
    clf = BinOCTClassifier(max_depth=depth, time_limit=time_limit, regularization=regularization, threads=1,
                           formulation=formulation).fit(data.X, data.y)
    clf.tree_.feature_names = list(data.feature_names)
    out = {"status": clf.status_, "mip_gap": clf.mip_gap_, "objective": clf.objective_,
           "lower_bound": clf.lower_bound_, "gap": clf.gap_, "errors": clf.errors_,
           "n_leaves": clf.n_leaves_, "n_leaves_merged": clf.n_leaves_merged_,
           "train_accuracy": accuracy(clf.predict(data.X), data.y), "solve_time": clf.solve_time_}
    if fold is not None:
        test = load(dataset, fold, "test")
        out["test_accuracy"] = accuracy(clf.predict(test.X), test.y)
    if tree:
        out["tree"] = str(clf.tree_)
    return out


def pct(x) -> str:
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{100 * x:.3f}"
