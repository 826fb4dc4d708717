"""Optimal trees over every threshold of numeric columns: optbb's OSDTClassifier against ConTree, side by side.

Usage::

    python benchmarks/osdt_continuous.py [--cases PATTERNS] [--solvers optbb,contree] [--repeats 3] [--timeout 120]
                                         [--out benchmarks/results/osdt_continuous]
    python benchmarks/osdt_continuous.py --list

Cases ``<dataset>@d<depth>``: the minimum-error tree of depth ``d`` (``regularization=0``) on the raw numeric columns
of scikit-learn's iris, wine, breast cancer and digits, and of UCI adult (its six numeric columns, the 32,561 rows of
its training file, ``../shared/data/adult/raw``) and bank-full (its seven numeric columns, 45,211 rows,
``../shared/data/frl``), full size (``adult``, ``bank``) and as 5,000-row samples (seed 0; ``adult5k``, ``bank5k``),
at depths 2, 3 and 4.  optbb: ``OSDTClassifier(regularization=0, max_depth=d, time_limit=timeout,
memory_limit="4G")``, which searches each column's sorted order (:mod:`optbb.osdt.cut_search`).
ConTree (pip ``pycontree``, a benchmark-only dependency; Brita, van der Linden & Demirović, AAAI 2025):
``pycontree.ConTree(max_depth=d, time_limit=timeout)``, certified unless its fit warns that it ran out of time.
Errors are counted by each solver's ``predict`` on the training rows; where both certify they must be equal.

Each (solver, case) runs in its own subprocess (this script with ``--worker``): it loads the data, fits once on iris
untimed (for optbb that loads the compiled kernels of depth 2 and 3), then times ``--repeats`` fits
(``time.perf_counter`` around ``fit``), stopping after the first fit that does not certify.  The parent kills a
worker after ``repeats * timeout * 1.5 + 120`` seconds.  Tables quote medians and the ratio optbb / ConTree.

Results: ``<out>.md`` and ``<out>.csv``.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CASES = [f"{name}@d{d}" for name in ("iris", "wine", "breast_cancer", "digits", "adult5k", "bank5k", "adult", "bank")
         for d in (2, 3, 4)]
MARK = "CONTINUOUS-RESULT "


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: float64 numeric columns and labels ``0 .. k-1``."""
    import pandas as pd

    if name in ("iris", "wine", "breast_cancer", "digits"):
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        return X.astype(np.float64), y.astype(np.int64)
    if name in ("adult", "adult5k"):
        from optbb.datasets import load_adult

        X, y = load_adult("train", path=SHARED / "adult" / "raw")
        X = X.select_dtypes("number")
        y = (y == ">50K").to_numpy()
    elif name in ("bank", "bank5k"):
        df = pd.read_csv(SHARED / "frl" / "bank-full.csv", sep=";")
        X = df[["age", "balance", "day", "duration", "campaign", "pdays", "previous"]]
        y = (df["y"] == "yes").to_numpy()
    else:
        raise ValueError(f"unknown dataset {name!r}")
    if not name.endswith("5k"):  # full size
        return X.to_numpy(np.float64), y.astype(np.int64)
    rows = np.random.default_rng(0).choice(len(X), 5000, replace=False)
    return X.to_numpy(np.float64)[rows], y[rows].astype(np.int64)


def run_optbb(X, y, depth: int, timeout: float):
    from optbb.osdt import OSDTClassifier

    clf = OSDTClassifier(regularization=0, max_depth=depth, time_limit=timeout, memory_limit="4G").fit(X, y)
    return int(np.sum(clf.predict(X) != y)), clf.result_.status.name.lower(), clf.result_.lower_bound * len(y)


def run_contree(X, y, depth: int, timeout: float):
    from pycontree import ConTree

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ConTree(max_depth=depth, time_limit=timeout).fit(X, y)
    late = any("time limit" in str(w.message) for w in caught)
    return int(np.sum(model.predict(X) != y)), "time_limit" if late else "optimal", None


SOLVERS = {"optbb": run_optbb, "contree": run_contree}


def worker(solver: str, case: str, repeats: int, timeout: float) -> None:
    sys.path.insert(0, str(ROOT))
    name, depth = case.split("@d")
    X, y = load(name)
    run = SOLVERS[solver]
    Xw, yw = load("iris")
    for d in (2, 3):  # warm-up: imports and the compiled kernels (depth 2 and depth >= 3 use different ones)
        run(Xw, yw, d, timeout)
    for _ in range(repeats):
        t0 = time.perf_counter()
        errors, status, bound = run(X, y, int(depth), timeout)
        seconds = time.perf_counter() - t0
        print(MARK + json.dumps({"solver": solver, "case": case, "seconds": seconds, "errors": errors,
                                 "status": status, "bound": bound, "shape": list(X.shape),
                                 "classes": int(y.max()) + 1}), flush=True)
        if status != "optimal":
            break


def measure(solver: str, case: str, repeats: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", solver, case, "--repeats", str(repeats), "--timeout", str(timeout)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=repeats * timeout * 1.5 + 120)
    except subprocess.TimeoutExpired:
        return {"solver": solver, "case": case, "status": "killed", "times": []}
    rows = [json.loads(line[len(MARK):]) for line in proc.stdout.splitlines() if line.startswith(MARK)]
    if not rows:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"solver": solver, "case": case, "status": f"failed ({tail[:80]})", "times": []}
    last = rows[-1]
    return {"solver": solver, "case": case, "status": last["status"], "errors": last["errors"],
            "bound": last["bound"], "shape": last["shape"], "classes": last["classes"],
            "times": [r["seconds"] for r in rows], "median": statistics.median(r["seconds"] for r in rows)}


def cuts_of(case: str) -> int:
    X, _ = load(case.split("@d")[0])
    return sum(len(np.unique(X[:, j])) - 1 for j in range(X.shape[1]))


def table(results: list[dict], header: str) -> str:
    by = {(r["case"], r["solver"]): r for r in results}
    cases = list(dict.fromkeys(r["case"] for r in results))
    lines = [header, "", "| case | rows x columns, classes | cuts | optbb errors | ConTree errors | optbb s | ConTree s "
             "| optbb / ConTree |", "|---|---|---|---|---|---|---|---|"]
    for case in cases:
        a, b = by.get((case, "optbb"), {}), by.get((case, "contree"), {})
        info = a if "shape" in a else b
        shape = f"{info['shape'][0]:,} x {info['shape'][1]}, {info['classes']}" if "shape" in info else "-"

        def errors(r):
            if "errors" not in r:
                return r.get("status", "-")
            if r["status"] == "optimal":
                return str(r["errors"])
            bound = f", bound {r['bound']:.0f}" if r.get("bound") is not None else ""
            return f"{r['errors']} ({r['status']}{bound})"

        def seconds(r):
            return f"{r['median']:.3f}" if "median" in r else "-"

        ratio = "-"
        if "median" in a and "median" in b:  # a fit that did not certify gives a bound on the ratio
            ratio = f"{a['median'] / b['median']:.1f}"
            if a["status"] != "optimal" and b["status"] == "optimal":
                ratio = "> " + ratio
            elif b["status"] != "optimal" and a["status"] == "optimal":
                ratio = "< " + ratio
            elif a["status"] != "optimal":
                ratio = "-"
        if a.get("status") == b.get("status") == "optimal" and a["errors"] != b["errors"]:
            ratio += " (errors differ!)"
        lines.append(f"| {case} | {shape} | {cuts_of(case):,} | {errors(a)} | {errors(b)} | {seconds(a)} | "
                     f"{seconds(b)} | {ratio} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", nargs=2, metavar=("SOLVER", "CASE"))
    p.add_argument("--cases", default="*")
    p.add_argument("--solvers", default="optbb,contree")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "osdt_continuous"))
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    if args.worker:
        worker(*args.worker, args.repeats, args.timeout)
        return
    cases = [c for c in CASES if any(fnmatch.fnmatch(c, pat) for pat in args.cases.split(","))]
    if args.list:
        print("\n".join(cases))
        return
    results = []
    for case in cases:
        for solver in args.solvers.split(","):
            r = measure(solver, case, args.repeats, args.timeout)
            results.append(r)
            print(f"{case:20s} {solver:8s} {str(r.get('errors', '-')):>6s} {r.get('median', float('nan')):9.3f} s "
                  f"{r['status']}", flush=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    header = (f"# Minimum-error trees over every threshold: optbb against ConTree\n\n`python "
              f"benchmarks/osdt_continuous.py {' '.join(sys.argv[1:])}` at {commit}, "
              f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}, {args.repeats} "
              f"repeats (medians; one when a fit does not certify), time limit {args.timeout:g} s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = table(results, header)
    out.with_suffix(".md").write_text(text)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["case", "solver", "status", "errors", "error_bound", "median_s", "times"])
        for r in results:
            bound = r.get("bound")
            w.writerow([r["case"], r["solver"], r["status"], r.get("errors", ""), "" if bound is None else bound,
                        r.get("median", ""), " ".join(f"{t:.4f}" for t in r["times"])])
    print(text)


if __name__ == "__main__":
    main()
