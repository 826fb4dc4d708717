"""Optimal trees over every threshold of numeric columns: optbb's OSDTClassifier against ConTree, side by side.

Usage::

    python benchmarks/osdt_continuous.py [--cases PATTERNS] [--solvers optbb+contree | optbb,contree] [--repeats 3]
                                         [--timeout 120] [--processes 1] [--out benchmarks/results/osdt_continuous]
    python benchmarks/osdt_continuous.py --list

Cases ``<dataset>@d<depth>``: the minimum-error tree of depth ``d`` (``regularization=0``) on the raw numeric columns
of scikit-learn's iris, wine, breast cancer and digits, and of UCI adult (its six numeric columns, the 32,561 rows of
its training file, ``../shared/data/adult/raw``) and bank-full (its seven numeric columns, 45,211 rows,
``../shared/data/frl``), full size (``adult``, ``bank``) and as 5,000-row samples (seed 0; ``adult5k``, ``bank5k``),
at depths 2, 3 and 4.  optbb: ``OSDTClassifier(regularization=0, max_depth=d, time_limit=timeout,
memory_limit="4G")``, which searches each column's sorted order (:mod:`optbb.osdt.numeric.engine`).
ConTree (pip ``pycontree``, a benchmark-only dependency; Brita, van der Linden & Demirović, AAAI 2025):
``pycontree.ConTree(max_depth=d, time_limit=timeout)``, certified unless its fit warns that it ran out of time.
Errors are counted by each solver's ``predict`` on the training rows; where both certify they must be equal.

Each worker is a subprocess (this script with ``--worker``): it loads the data, fits once on iris untimed with each
of its solvers (for optbb that loads the compiled kernels of depth 2 and 3), then times ``--repeats`` fits
(``time.perf_counter`` around ``fit``), each solver stopping after its first fit that does not certify.  By
default (``--solvers optbb+contree``) a worker runs both solvers, one fit of each in turn (which goes first
alternating): the speed of this 2-core machine shifts between levels every few seconds (both solvers, the same fit
8.6 or 12.3 ms for optbb, 19.2 or 23.4 ms for ConTree, on breast cancer at depth 2), and fits taken in turn meet
the same levels.  ``--solvers optbb,contree`` runs each (solver, case) in its own worker instead.  With
``--processes K``, K workers per case (per (solver, case) without ``+``), their fits pooled: the fits of one
process can sit 30-60% apart from another's at the millisecond scale.  The parent kills a worker after ``repeats *
timeout * 1.5 + 120`` seconds (twice that for both solvers).  Tables quote medians and the ratio optbb / ConTree.

Results: ``<out>.md`` and ``<out>.csv``.
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

import workers

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
    late = any("exceeds time limit" in str(w.message) for w in caught)
    return int(np.sum(model.predict(X) != y)), "time_limit" if late else "optimal", None


SOLVERS = {"optbb": run_optbb, "contree": run_contree}


PAIRED = "optbb+contree"


def worker(solver: str, case: str, repeats: int, timeout: float) -> None:
    """Time ``repeats`` fits of ``solver`` on ``case`` after the warm-up; with ``solver`` PAIRED, of each solver in
    turn (the first of each pair alternating), each until its first fit that does not certify."""
    sys.path.insert(0, str(ROOT))
    name, depth = case.split("@d")
    X, y = load(name)
    names = solver.split("+")
    Xw, yw = load("iris")
    for s in names:
        for d in (2, 3):  # warm-up: imports and the compiled kernels (depth 2 and depth >= 3 use different ones)
            SOLVERS[s](Xw, yw, d, timeout)

    def row(s, out, seconds):
        errors, status, bound = out
        return {"solver": s, "case": case, "seconds": seconds, "errors": errors, "status": status,
                "bound": bound, "shape": list(X.shape), "classes": int(y.max()) + 1}

    live = list(names)
    for i in range(repeats):
        for s in list(live if i % 2 == 0 else live[::-1]):
            t0 = time.perf_counter()
            out = SOLVERS[s](X, y, int(depth), timeout)
            workers.emit(MARK, row(s, out, time.perf_counter() - t0))
            if out[1] != "optimal":
                live.remove(s)
        if not live:
            break


def _summary(rows):
    last = rows[-1]
    return {key: last[key] for key in ("errors", "bound", "shape", "classes")}


def measure(solver: str, case: str, repeats: int, timeout: float) -> dict:
    return workers.measure(__file__, solver, case, repeats, timeout, mark=MARK,
                           hard_timeout=repeats * timeout * 1.5 + 120, summary=_summary, say_why=True)


def measure_paired(case: str, repeats: int, timeout: float, processes: int) -> list[dict]:
    """Each solver's result on ``case`` from ``processes`` PAIRED workers, their fits pooled."""
    names = PAIRED.split("+")
    runs: dict[str, list[dict]] = {s: [] for s in names}
    cmd = [sys.executable, __file__, "--worker", PAIRED, case, "--repeats", str(repeats), "--timeout", str(timeout)]
    for _ in range(max(1, processes)):
        done = workers.run_worker(cmd, 2 * (repeats * timeout * 1.5) + 120)
        rows = workers.result_rows(done.stdout, MARK)
        for s in names:
            runs[s].append(workers.summarised(done, [r for r in rows if r["solver"] == s], s, case, _summary,
                                              say_why=True))
    return [workers.pooled(runs[s]) for s in names]


def cuts_of(case: str) -> int:
    X, _ = load(case.split("@d")[0])
    return sum(len(np.unique(X[:, j])) - 1 for j in range(X.shape[1]))


def progress(r: dict) -> str:
    return (f"{r['case']:20s} {r['solver']:8s} {str(r.get('errors', '-')):>6s} "
            f"{r.get('median', float('nan')):9.3f} s {r['status']}")


def table(results: list[dict], header: str) -> str:
    by = {(r["case"], r["solver"]): r for r in results}
    cases = list(dict.fromkeys(r["case"] for r in results))
    lines = [header, "", "| case | rows x columns, classes | cuts | optbb errors | ConTree errors | optbb s "
             "| ConTree s | optbb / ConTree |", "|---|---|---|---|---|---|---|---|"]
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
    args, cases = workers.command_line(__doc__, CASES, worker, solvers=PAIRED, timeout=120.0,
                                       out=ROOT / "benchmarks" / "results" / "osdt_continuous")
    if cases is None:
        return
    if args.solvers == PAIRED:
        results = []
        for case in cases:
            results += measure_paired(case, args.repeats, args.timeout, args.processes)
            print("\n".join(progress(r) for r in results[-2:]), flush=True)
    else:
        results = workers.measure_all(args, cases, measure, progress)
    header = (f"# Minimum-error trees over every threshold: optbb against ConTree\n\n"
              f"{workers.provenance(__file__, ROOT)}, {args.repeats} repeats (medians; one when a fit does not "
              f"certify), time limit {args.timeout:g} s")
    text = table(results, header)
    rows = [[r["case"], r["solver"], r["status"], r.get("errors", ""), "" if r.get("bound") is None else r["bound"],
             r.get("median", ""), workers.seconds_cell(r["times"])] for r in results]
    workers.write_results(args.out, text, ["case", "solver", "status", "errors", "error_bound", "median_s", "times"],
                          rows)
    print(text)


if __name__ == "__main__":
    main()
