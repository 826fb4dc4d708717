"""Sparse optimal trees over every threshold against optimal trees on gbdt thresholds and CART, on UCI adult.

Usage::

    python benchmarks/osdt_sparse_numeric.py [--lambdas 0.1,0.07,0.06,0.05,0.02,0.01,0.005] [--time-limit 120]
                                             [--seed 0] [--max-thresholds N]
                                             [--out benchmarks/results/osdt_sparse_numeric.md]

Data: the 5,000-row sample (seed 0) of the six numeric columns of UCI adult (age, fnlwgt, education-num,
capital-gain, capital-loss, hours-per-week; ``../shared/data/adult/raw``, provenance in
``../shared/data/PROVENANCE.md``) that ``benchmarks/osdt_continuous.py`` loads (its ``load("adult5k")``), split
80/20 into training and test rows (stratified, ``--seed``).

For each lambda (``--lambdas``) three trees are fitted on the training rows, with ``regularization=lambda`` and no
depth limit:

* exact: ``OSDTClassifier(regularization=lambda, time_limit=...)`` on the raw numeric columns: every cut ``x <= t``
  between two consecutive training values of every column is a binary feature (the dp search over all of them), so
  a certified tree is the sparse optimal tree over every threshold; a search stopped by its time limit gives its
  best tree and a lower bound;
* gbdt: ``optbb.Binarizer(strategy="gbdt")`` (its defaults: 40 stumps, ``n_estimators=40, max_depth=1``, every
  threshold the ensemble splits on, or the ``--max-thresholds`` most important) fitted on the training rows, then
  ``OSDTClassifier(regularization=lambda, time_limit=...)`` on its 0/1 columns.  Its thresholds are cuts of the
  exact search too, so its objective is never below a certified exact one;
* CART: scikit-learn ``DecisionTreeClassifier(max_leaf_nodes=L, random_state=0)`` grown best-first on the raw
  columns to the exact tree's number of leaves ``L`` (and a second one to the gbdt tree's when it differs).

Columns: training and test accuracy, leaves, the objective ``training error rate + lambda * leaves`` (the one OSDT
minimises, computed for CART alike), the status, lower bound and gap (objective minus lower bound) of the OSDT
searches, and the wall time of the fit (``time.perf_counter``; for gbdt the Binarizer's fit and transform
included, given apart).  Two untimed warm-up fits on 300 rows (numeric and 0/1 columns, 3 s at most each) load the
compiled kernels first; the fits run one after the other in this process.  Results: ``<out>`` (Markdown, with the
exact and gbdt trees).  The default lambdas run from 0.1, where the exact search certifies at once, down past the
smallest lambda it certifies within the default time limit; the default run takes about 9 minutes.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's optbb
sys.path.insert(0, str(HERE))

import osdt_continuous  # noqa: E402  (the adult sample's loader)
from optbb import Binarizer  # noqa: E402
from optbb.datasets import load_adult  # noqa: E402
from optbb.osdt import OSDTClassifier  # noqa: E402

LAMBDAS = "0.1,0.07,0.06,0.05,0.02,0.01,0.005"


def adult_sample(seed: int):
    """``(X_train, X_test, y_train, y_test)``: the adult sample of ``osdt_continuous.load`` as DataFrames of the
    numeric columns (named as in the UCI files), split 80/20 stratified."""
    from sklearn.model_selection import train_test_split

    X, y = osdt_continuous.load("adult5k")
    names = load_adult("train", path=osdt_continuous.SHARED / "adult" / "raw")[0].select_dtypes("number").columns
    X = pd.DataFrame(X, columns=[str(c) for c in names])
    return train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)


def n_cuts(X: pd.DataFrame) -> int:
    return sum(len(np.unique(X[c])) - 1 for c in X.columns)


def osdt_row(method, clf, Z, Zt, y, yt, seconds, extra=None) -> dict:
    r = clf.result_
    return {"method": method, "train": float(np.mean(clf.predict(Z) == y)),
            "test": float(np.mean(clf.predict(Zt) == yt)), "leaves": clf.tree_.n_leaves, "objective": r.objective,
            "status": r.status.name.lower(), "lower_bound": r.lower_bound, "seconds": seconds, "extra": extra or "",
            "tree": clf.tree_.text()}


def run_exact(lam, X, Xt, y, yt, time_limit) -> dict:
    t0 = time.perf_counter()
    clf = OSDTClassifier(regularization=lam, time_limit=time_limit).fit(X, y)
    return osdt_row("exact (every threshold)", clf, X, Xt, y, yt, time.perf_counter() - t0)


def run_gbdt(lam, X, Xt, y, yt, time_limit, max_thresholds) -> dict:
    t0 = time.perf_counter()
    binarizer = Binarizer(strategy="gbdt", max_thresholds=max_thresholds).set_output(transform="pandas").fit(X, y)
    Z, Zt = binarizer.transform(X), binarizer.transform(Xt)
    t1 = time.perf_counter()
    clf = OSDTClassifier(regularization=lam, time_limit=time_limit).fit(Z, y)
    t2 = time.perf_counter()
    return osdt_row(f"gbdt ({Z.shape[1]} thresholds)", clf, Z, Zt, y, yt, t2 - t0,
                    f"binarize {t1 - t0:.2f} s + fit {t2 - t1:.2f} s")


def run_cart(lam, leaves, of, X, Xt, y, yt) -> dict:
    """CART grown to ``leaves`` leaves, the number of the tree(s) ``of`` names."""
    from sklearn.tree import DecisionTreeClassifier

    t0 = time.perf_counter()
    if leaves > 1:
        cart = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
        p, pt, got = cart.predict(X), cart.predict(Xt), int(cart.get_n_leaves())
    else:  # one leaf: the majority class
        major = np.bincount(y).argmax()
        p, pt, got = np.full(len(y), major), np.full(len(yt), major), 1
    seconds = time.perf_counter() - t0
    train = float(np.mean(p == y))
    return {"method": f"CART (leaves of {of})", "train": train, "test": float(np.mean(pt == yt)), "leaves": got,
            "objective": 1 - train + lam * got, "status": "-", "lower_bound": None, "seconds": seconds, "extra": "",
            "tree": None}


def warm_up(X, y) -> None:
    """Load the compiled kernels (dp search, depth-2 solver) on a few hundred rows, untimed (3 s at most each)."""
    OSDTClassifier(regularization=0.01, time_limit=3).fit(X.iloc[:300], y[:300])
    OSDTClassifier(regularization=0.01, time_limit=3).fit((X.iloc[:300] > X.iloc[:300].median()).astype(int),
                                                           y[:300])


def fmt_row(lam, r) -> str:
    bound = "-" if r["lower_bound"] is None else f"{r['lower_bound']:.4f}"
    gap = "-" if r["lower_bound"] is None else f"{r['objective'] - r['lower_bound']:.4f}"
    seconds = f"{r['seconds']:.2f}" + (f" ({r['extra']})" if r["extra"] else "")
    return (f"| {lam:g} | {r['method']} | {r['train']:.4f} | {r['test']:.4f} | {r['leaves']} | {r['objective']:.4f} "
            f"| {r['status']} | {bound} | {gap} | {seconds} |")


def header(args, shape, cuts) -> str:
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "optbb"], capture_output=True,
                           text=True).stdout.strip()
    state = commit + (" (with uncommitted changes to optbb/)" if dirty else "")
    return (f"# Sparse trees over every threshold against gbdt thresholds and CART (UCI adult, numeric columns)\n\n"
            f"`python benchmarks/osdt_sparse_numeric.py {' '.join(sys.argv[1:])}` at {state}, "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f} at the start, "
            f"{os.cpu_count()} cores, time limit {args.time_limit:g} s per OSDT fit, no depth limit.\n\n"
            f"Data: the 5,000-row sample (seed 0) of adult's six numeric columns (`osdt_continuous.load('adult5k')`), "
            f"split 80/20 (stratified, seed {args.seed}): {shape[0]:,} training rows, {shape[1]:,} test rows; "
            f"{cuts:,} cuts on the training rows (the exact search's binary features). gbdt: "
            f"`Binarizer(strategy='gbdt', max_thresholds={args.max_thresholds})`. Objective: training error rate "
            f"+ lambda x leaves. Gap: objective - lower bound (0 when certified).\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lambdas", default=LAMBDAS)
    p.add_argument("--time-limit", type=float, default=120.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-thresholds", type=int, default=None)
    p.add_argument("--out", default=str(HERE / "results" / "osdt_sparse_numeric.md"))
    args = p.parse_args()
    lambdas = [float(v) for v in args.lambdas.split(",")]
    X, Xt, y, yt = adult_sample(args.seed)
    head = header(args, (len(X), len(Xt)), n_cuts(X))
    warm_up(X, y)
    lines = ["| lambda | method | train acc. | test acc. | leaves | objective | status | lower bound | gap "
             "| time (s) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    trees, certified = [], {}
    for lam in lambdas:
        exact = run_exact(lam, X, Xt, y, yt, args.time_limit)
        gbdt = run_gbdt(lam, X, Xt, y, yt, args.time_limit, args.max_thresholds)
        sizes = {exact["leaves"]: "exact"}
        sizes[gbdt["leaves"]] = "exact, gbdt" if gbdt["leaves"] in sizes else "gbdt"
        rows = [exact, gbdt] + [run_cart(lam, n, of, X, Xt, y, yt) for n, of in sizes.items()]
        certified[lam] = exact["status"] == "optimal"
        for r in rows:
            lines.append(fmt_row(lam, r))
            print(lines[-1], flush=True)
        trees += [f"### lambda {lam:g}, {r['method']}: {r['leaves']} leaves, objective {r['objective']:.4f}, "
                  f"{r['status']}\n\n```\n{r['tree']}\n```\n" for r in (exact, gbdt)]
    yes = [f"{lam:g}" for lam, ok in certified.items() if ok]
    no = [f"{lam:g}" for lam, ok in certified.items() if not ok]
    summary = (f"The exact search certified at lambda {', '.join(yes) or 'none'}"
               f"{'; stopped by the time limit at ' + ', '.join(no) if no else ''}.\n")
    text = "\n".join([head, *lines, "", summary, "## The trees\n", *trees])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(summary)


if __name__ == "__main__":
    main()
