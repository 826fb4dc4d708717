"""optbb's OSDT against GOSDT and STreeD, side by side, at and beyond the frontier of optimal trees.

Usage::

    python benchmarks/osdt_frontier.py [--quick] [--cases PATTERNS] [--solvers optbb,gosdt,streed]
                                       [--repeats 3] [--timeout 120] [--out benchmarks/results/osdt_frontier]
    python benchmarks/osdt_frontier.py --list
    python benchmarks/osdt_frontier.py --merge run1.csv,run2.csv [--out benchmarks/results/osdt_frontier]

Cases (ids for ``--cases``, a comma list of ``fnmatch`` patterns such as ``"monk*,vote@d3"``):

* ``<dataset>@<lambda>``: every row of ``shared/golden/osdt_objectives.csv`` (certified by GOSDT).  Objective
  ``errors / N + lambda * leaves``; optbb with ``regularization=lambda``, GOSDT with ``regularization=lambda``
  (``allow_small_reg=True``).  Each solver's objective, recomputed from its tree on the data, is checked against
  the golden value within 1e-9.  STreeD is not run on these (it needs a depth limit this objective does not have).
* ``<dl-set>@d<depth>``: the 15 DL8.5 / MurTree sets of ``shared/data/dl`` at depth 2, 3 and 4, minimum training
  errors.  optbb with ``max_depth=d`` and ``regularization = 1 / (N 2^(d+3))`` (below ``1 / (N 2^(d+2))``, so
  ``lambda * leaves < 1/(8N)`` and errors come first); STreeD with ``max_depth=d``; GOSDT with ``depth_budget=d``
  and the same tiny regularization.  The gosdt 1.0 wrapper already adds one to ``depth_budget`` internally (its
  ``depth_budget=2`` returns trees with two splits per path), so ``d`` here is its ``depth_budget + 1`` in the
  configuration's own counting.  Errors are checked against the published optima of ``shared/data/dl/README.md``
  (depth 2 and 3, where given) and against each other.  Note that optbb and GOSDT solve "minimum errors, then
  fewest leaves" (the tiny lambda), while STreeD's default ``accuracy`` task only minimises errors; with
  ``--streed-task cost-complex-accuracy`` STreeD gets ``cost_complexity = lambda`` per branch node, the same
  objective up to a constant.  On trees with zero errors the difference is large (segment and mushroom at depth
  4: STreeD 0.6 s and 1.7 s for errors only, 55 s and 27 s with the leaf penalty, on a loaded 2-core machine).

Each (solver, case) runs in its own subprocess (this script with ``--worker``), which loads the data, does one
untimed warm-up fit on a seeded random half of the rows with the same settings and a limit of
``min(timeout, 10 s)`` (every solver alike; for optbb it loads the JIT cache), then times ``--repeats`` fits
(``time.perf_counter`` around the fit call only) and prints one JSON line per fit.  The parent kills the
process group after ``repeats * (timeout + 15) + 310`` seconds (start-up slack covers imports and, in a fresh
checkout, compiling optbb's kernels), so a hanging solver only blanks its cell; the
solvers also get ``--timeout`` as their own time limit.  Tables quote medians over the certified repeats.

optbb is called as ``optbb.osdt.solve(data, regularization, search="dp", max_depth=...)`` when ``solve`` has a
``search`` argument, else with its default search (the leaf-set search); the table says which.  ``--optbb DIR``
benchmarks the optbb of another checkout (e.g. a branch's worktree) with this script.

GOSDT (pip ``gosdt``) and STreeD (pip ``pystreed``) are benchmark-only extras (``pip install optbb[bench]``), never
runtime dependencies of optbb.  gosdt 1.0.4 calls ``check_array(force_all_finite=...)``, which scikit-learn
>= 1.8 removed; the worker maps it to ``ensure_all_finite``.

Results: ``<out>.md`` (Markdown table of medians and ratios optbb / GOSDT and optbb / STreeD, then a summary: per
depth the median of optbb / STreeD, and the median and maximum of optbb / GOSDT over the golden cases where GOSDT
needs more than 0.1 s) and ``<out>.csv`` (one row per case and solver, with every repeat's time).  A solver that
did not certify enters a ratio with its time limit as its time ('> x' or '< x': a bound on the true ratio).

``--merge a.csv,b.csv`` runs nothing: it writes one table (``--out``) from the CSVs of several earlier runs, each
read with the ``.md`` beside it, whose header (command, date, commit, load, repeats, time limit) becomes that run's
entry in the merged header; a 'run' column names each row's run.  A (case, solver) measured in several runs is
taken from the last CSV listed.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import inspect
import json
import math
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import anchors  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# the checkout whose optbb is benchmarked (default: this one; --optbb DIR or $OPTBB_BENCH_CHECKOUT for another)
OPTBB = Path(os.environ.get("OPTBB_BENCH_CHECKOUT", REPO)).resolve()
SHARED = Path(os.environ.get("OPTBB_SHARED", REPO.parent / "shared"))
GOLDEN = SHARED / "golden" / "osdt_objectives.csv"
OUT = REPO / "benchmarks" / "results" / "osdt_frontier"
SOLVERS = ("optbb", "gosdt", "streed")
DL_DEPTHS = (2, 3, 4)
QUICK = ("monk1-train@0.025", "monk3-train@0.025", "compas-binary@0.005", "tic-tac-toe@0.025",
         "vote@d2", "vote@d3", "heart-cleveland@d2", "heart-cleveland@d3", "anneal@d2")
TOL = 1e-9
WARM_UP_LIMIT = 10.0
STARTUP_SLACK = 300.0  # imports, data loading and, in a fresh checkout, compiling every optbb kernel

# the golden file's data set names -> (bundled optbb loader name, shared file)
_OSDT_FILES = {
    "compas-binary": ("compas", "compas-binary.csv"), "car-evaluation": ("car", "car-evaluation.csv"),
    "tic-tac-toe": ("tic-tac-toe", "tic-tac-toe.csv"), "monk1-train": ("monk1", None),
    "monk2-train": ("monk2", None), "monk3-train": ("monk3", None), "fico_binary": (None, "fico_binary.csv.gz"),
}


@dataclass(frozen=True)
class Case:
    """One benchmark problem: an OSDT objective (``lam``) or a minimum-error tree of bounded depth (``depth``)."""

    id: str
    kind: str  # "golden" or "dl"
    dataset: str
    lam: float | None = None
    depth: int | None = None
    expected: float | None = None  # golden objective, or published minimum errors

    def solvers(self) -> tuple[str, ...]:
        return ("optbb", "gosdt") if self.kind == "golden" else SOLVERS


def all_cases() -> list[Case]:
    cases: list[Case] = []
    if GOLDEN.is_file():
        with open(GOLDEN, newline="") as fh:
            for row in csv.DictReader(fh):
                cases.append(Case(f"{row['dataset']}@{row['lambda']}", "golden", row["dataset"],
                                  lam=float(row["lambda"]), expected=float(row["objective"])))
    sys.path.insert(0, str(OPTBB))
    from optbb.datasets.dl import DL_NAMES, DL_OPTIMA

    for depth in DL_DEPTHS:
        for name in DL_NAMES:
            published = DL_OPTIMA[name][depth - 2] if depth in (2, 3) else None
            cases.append(Case(f"{name}@d{depth}", "dl", name, depth=depth,
                              expected=None if published is None else float(published)))
    return cases


def select(cases: list[Case], patterns: str | None) -> list[Case]:
    if not patterns:
        return cases
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [c for c in cases if any(fnmatch.fnmatch(c.id, p) for p in pats)]
    unknown = [p for p in pats if not any(fnmatch.fnmatch(c.id, p) for c in cases)]
    if unknown:
        raise SystemExit(f"--cases: no case matches {unknown}; see --list")
    return chosen


# ---------------------------------------------------------------------------------------------------------------
# worker side: one solver on one case, in its own process
# ---------------------------------------------------------------------------------------------------------------

def _load(case: Case):
    sys.path.insert(0, str(OPTBB))
    if case.kind == "dl":
        from optbb.datasets.dl import load_dl

        return load_dl(case.dataset, shared_dir=SHARED)
    from optbb.common.data import read_osdt_csv
    from optbb.datasets import load_osdt

    bundled, shared_file = _OSDT_FILES[case.dataset]
    if shared_file is not None and (SHARED / "data" / "osdt" / shared_file).is_file():
        return read_osdt_csv(SHARED / "data" / "osdt" / shared_file)
    if bundled is None:
        raise FileNotFoundError(f"{case.dataset}: needs {SHARED / 'data' / 'osdt' / shared_file}")
    return load_osdt(bundled)


def _warm_up_rows(data):
    """A seeded random half of the rows holding both classes, or None."""
    import numpy as np

    rows = np.sort(np.random.default_rng(0).permutation(data.n_samples)[: max(data.n_samples // 2, 2)])
    y = data.y[rows]
    return rows if 0 < int(y.sum()) < rows.size else None


def _dl_lambda(n: int, depth: int) -> float:
    return 1.0 / (n * 2 ** (depth + 3))


def _optbb_runner(case: Case, data):
    from optbb.osdt import solve

    kwargs = {}
    if "search" in inspect.signature(solve).parameters:
        kwargs["search"] = "dp"
    lam = case.lam if case.kind == "golden" else _dl_lambda(data.n_samples, case.depth)
    if case.kind == "dl":
        kwargs["max_depth"] = case.depth
    mode = kwargs.get("search", "default")

    def fit(d, time_limit):
        res = solve(d, lam, time_limit=time_limit, **kwargs)
        tree = res.model
        errors = int((tree.predict(d.X) != d.y).sum())
        return {"certified": res.status.value == "optimal", "status": res.status.value, "errors": errors,
                "leaves": int(tree.n_leaves), "lam": lam, "mode": mode}

    return fit


def _gosdt_runner(case: Case, data):
    import numpy as np
    import pandas as pd
    import sklearn.utils.validation as validation

    check_array = validation.check_array

    def compat_check_array(*args, force_all_finite=None, **kw):
        if force_all_finite is not None:
            kw["ensure_all_finite"] = force_all_finite
        return check_array(*args, **kw)

    import gosdt._classifier as gc

    gc.check_array = compat_check_array
    from gosdt import GOSDTClassifier

    lam = case.lam if case.kind == "golden" else _dl_lambda(data.n_samples, case.depth)
    depth_budget = None if case.kind == "golden" else case.depth

    def fit(d, time_limit):
        X = pd.DataFrame(d.X.astype(bool), columns=d.feature_names)
        y = d.y.astype(np.int64)
        clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, depth_budget=depth_budget,
                              time_limit=int(math.ceil(time_limit)))
        clf.fit(X, y)
        errors = int((clf.predict(X) != y).sum())
        leaves = str(clf.trees_[0].tree).count("prediction")
        status = str(clf.result_.status).rsplit(".", 1)[-1]
        return {"certified": status == "CONVERGED", "status": status.lower(), "errors": errors, "leaves": leaves,
                "lam": lam, "mode": f"depth_budget={depth_budget}"}

    return fit


def _streed_runner(case: Case, data):
    import numpy as np
    from pystreed import STreeDClassifier

    task = os.environ.get("OPTBB_BENCH_STREED_TASK", "accuracy")
    extra = {} if task == "accuracy" else {"cost_complexity": _dl_lambda(data.n_samples, case.depth)}

    def fit(d, time_limit):
        clf = STreeDClassifier(optimization_task=task, max_depth=case.depth, time_limit=time_limit, **extra)
        clf.fit(d.X, d.y.astype(np.int64))
        errors = int((clf.predict(d.X) != d.y).sum())
        return {"certified": bool(clf.fit_result.is_optimal()),
                "status": "optimal" if clf.fit_result.is_optimal() else "not_optimal", "errors": errors,
                "leaves": int(clf.fit_result.tree_nodes()) + 1, "lam": extra.get("cost_complexity", 0.0),
                "mode": f"{task}, max_depth={case.depth}"}

    return fit


def worker(solver: str, case_id: str, repeats: int, timeout: float) -> None:
    """Time ``repeats`` fits of one solver on one case; one JSON line per fit on stdout."""
    case = {c.id: c for c in all_cases()}[case_id]
    data = _load(case)
    fit = {"optbb": _optbb_runner, "gosdt": _gosdt_runner, "streed": _streed_runner}[solver](case, data)
    half = _warm_up_rows(data)
    if half is not None:  # untimed: loads JIT caches and libraries, faults in memory
        fit(data.subset(rows=half), min(timeout, WARM_UP_LIMIT))
    for r in range(repeats):
        t0 = time.perf_counter()
        out = fit(data, timeout)
        out["seconds"] = time.perf_counter() - t0
        out["repeat"] = r
        out["n"] = data.n_samples
        print("RESULT " + json.dumps(out), flush=True)
        if not out["certified"]:
            break  # a run that hit the time limit will hit it again


# ---------------------------------------------------------------------------------------------------------------
# parent side
# ---------------------------------------------------------------------------------------------------------------

def run_one(solver: str, case: Case, repeats: int, timeout: float) -> dict:
    """Run the worker in its own process group; a hard timeout only loses this cell."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", solver, case.id, "--repeats", str(repeats),
           "--timeout", str(timeout), "--streed-task", os.environ.get("OPTBB_BENCH_STREED_TASK", "accuracy")]
    hard = repeats * (timeout + 15) + WARM_UP_LIMIT + STARTUP_SLACK
    env = dict(os.environ, OPTBB_BENCH_CHECKOUT=str(OPTBB))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(OPTBB),
                            start_new_session=True, env=env)
    killed = False
    try:
        stdout, stderr = proc.communicate(timeout=hard)
    except subprocess.TimeoutExpired:
        killed = True
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
    runs = [json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("RESULT ")]
    row = summarise(solver, case, runs, killed, proc.returncode, stderr, hard)
    row["timeout"] = timeout
    return row


def summarise(solver: str, case: Case, runs: list[dict], killed: bool, rc: int, stderr: str, hard: float) -> dict:
    row = {"case": case.id, "kind": case.kind, "solver": solver, "runs": len(runs),
           "seconds_all": ";".join(f"{r['seconds']:.4f}" for r in runs), "median_s": None, "status": "",
           "objective": None, "errors": None, "leaves": None, "check": "-", "mode": runs[0]["mode"] if runs else ""}
    if killed:
        row["status"] = f"killed after {hard:.0f} s"
    elif not runs:
        tail = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit code {rc}"
        row["status"] = f"error: {tail[:120]}"
        return row
    if not runs:
        return row
    last = runs[-1]
    row.update(errors=last["errors"], leaves=last["leaves"])
    n = last["n"]
    if case.kind == "golden":
        row["objective"] = last["errors"] / n + case.lam * last["leaves"]
    certified = [r for r in runs if r["certified"]]
    if certified and len(certified) == len(runs):
        row["median_s"] = statistics.median(r["seconds"] for r in certified)
        row["status"] = row["status"] or "optimal"
    else:
        row["status"] = row["status"] or f"{last['status']} after {last['seconds']:.1f} s"
    if case.expected is not None and certified:
        value = row["objective"] if case.kind == "golden" else last["errors"]
        ok = abs(value - case.expected) <= TOL if case.kind == "golden" else value == int(case.expected)
        row["check"] = "ok" if ok else f"MISMATCH ({value} vs {case.expected:g})"
    return row


def _fmt_s(v) -> str:
    return "" if v is None else (f"{v:.3f}" if v < 10 else f"{v:.1f}")


def ratio_value(a: dict | None, b: dict | None) -> tuple[float, str] | None:
    """optbb / anchor and its kind: '' both certified, '>' optbb hit its time limit, '<' the anchor did.

    A solver that did not certify enters with its time limit (``row["timeout"]``) as its time, so the ratio is a
    bound on the true one; None when neither certified or a row is missing.
    """
    if a is None or b is None or (a["median_s"] is None and b["median_s"] is None) or b["median_s"] == 0:
        return None
    if a["median_s"] is None:
        return a["timeout"] / b["median_s"], ">"
    if b["median_s"] is None:
        return a["median_s"] / b["timeout"], "<"
    return a["median_s"] / b["median_s"], ""


def _ratio(a: dict | None, b: dict | None) -> str:
    rv = ratio_value(a, b)
    if rv is None or not math.isfinite(rv[0]):
        return ""
    return f"{rv[1]} {rv[0]:.3g}" if rv[1] else f"{rv[0]:.3g}"


def cell(row: dict | None) -> str:
    if row is None:
        return ""
    if row["median_s"] is not None:
        s = _fmt_s(row["median_s"])
        return s if row["check"] in ("ok", "-") else f"{s} **{row['check']}**"
    return row["status"]


def agreement(case: Case, rows: dict[str, dict]) -> str:
    """For DL cases without a published optimum: do the certified solvers agree on the errors?"""
    errs = {s: r["errors"] for s, r in rows.items() if r and r["median_s"] is not None}
    if case.kind != "dl" or len(errs) < 2:
        return ""
    return "agree" if len(set(errs.values())) == 1 else "DISAGREE " + str(errs)


def _both_times(items: list[tuple[str, tuple[float, str], dict, dict]]) -> str:
    return "; ".join(f"{cid} {_ratio(o, b)} (optbb {cell(o)}, anchor {cell(b)})" for cid, _, o, b in items) or "none"


def summary_lines(cases: list[Case], table: dict) -> list[str]:
    """Per depth the median of optbb / STreeD; over the golden cases where GOSDT needs more than 0.1 s (or does
    not certify), the median and maximum of optbb / GOSDT."""
    lines = ["## Summary", ""]
    depths = sorted({c.depth for c in cases if c.kind == "dl"})
    rows_d = []
    for d in depths:
        got = [(c.id, ratio_value(table.get((c.id, "optbb")), table.get((c.id, "streed"))),
                table.get((c.id, "optbb")), table.get((c.id, "streed")))
               for c in cases if c.kind == "dl" and c.depth == d]
        got = [g for g in got if g[1] is not None]
        if got:
            med = statistics.median(g[1][0] for g in got)
            rows_d.append(f"| {d} | {len(got)} | {med:.3g} | {sum(g[1][0] < 1 for g in got)} | "
                          f"{_both_times([g for g in got if g[1][0] > 1])} |")
    if rows_d:
        lines += ["| depth | sets | optbb / STreeD, median | optbb faster | optbb slower (ratio > 1) |",
                  "|---|---|---|---|---|"] + rows_d + [""]
    slow = []  # golden cases where GOSDT needs more than 0.1 s or does not certify
    for c in cases:
        o, g = table.get((c.id, "optbb")), table.get((c.id, "gosdt"))
        if c.kind == "golden" and o is not None and g is not None and (g["median_s"] is None or g["median_s"] > 0.1):
            slow.append((c.id, ratio_value(o, g), o, g))
    golden = [x for x in slow if x[1] is not None]
    if slow:
        worst = max(golden, key=lambda x: x[1][0]) if golden else None
        lines += [
            f"Golden cases where GOSDT needs more than 0.1 s or does not certify: {len(slow)}"
            + (f"; with a ratio: {len(golden)}, optbb / GOSDT median {statistics.median(x[1][0] for x in golden):.3g}"
               f", max {_ratio(worst[2], worst[3])} ({worst[0]})." if golden else "."),
            f"Ratio > 0.5: {_both_times([x for x in golden if x[1][0] > 0.5])}.",
            "Not certified within the limit: optbb "
            f"{', '.join(x[0] for x in slow if x[2]['median_s'] is None) or 'none'}; GOSDT "
            f"{', '.join(x[0] for x in slow if x[3]['median_s'] is None) or 'none'} (one solver's limit stands in "
            "for its time: '<' / '>' mark a bound; a case neither certified has no ratio).",
            ""]
    return lines if len(lines) > 2 else []


def _run_header(args, header: dict) -> list[str]:
    """The lines describing one run (command, date, commit, load, repeats, limit, settings)."""
    return [
        f"Generated by `python benchmarks/osdt_frontier.py {' '.join(header['argv'])}` on {header['when']} "
        f"(optbb commit {header['commit']}, {header['machine']}; gosdt {header['gosdt']}, pystreed "
        f"{header['pystreed']}).",
        f"Load average at start / end: {header['load_start']} / {header['load_end']} "
        "(the machine may be shared with other work; times then include that contention).",
        f"Seconds are medians over {args.repeats} repeat(s) of the fit call alone (each solver in its own process, "
        f"after one untimed warm-up fit on half of the rows); per-run time limit {args.timeout:g} s.",
        f"STreeD objective on the DL sets: {args.streed_task}"
        + (" (errors only: STreeD need not find the fewest leaves among the minimum-error trees, which optbb and "
           "GOSDT must)" if args.streed_task == "accuracy" else " (errors + lambda * branches, optbb's objective)")
        + ".",
        f"optbb search: {header['optbb_mode']}. Ratio = optbb / anchor (< 1: optbb faster; '> x' when optbb "
        "did not certify within the limit).",
    ]


CSV_FIELDS = ["case", "kind", "solver", "mode", "median_s", "runs", "seconds_all", "status", "objective", "errors",
              "leaves", "check"]


def write_outputs(out: Path, cases: list[Case], table: dict, args, header: dict) -> None:
    """``<out>.csv`` and ``<out>.md``; with ``header["runs"]`` (a merge) one header per run and a 'run' column."""
    merged = bool(header.get("runs"))
    out.parent.mkdir(parents=True, exist_ok=True)
    fields = CSV_FIELDS + (["run"] if merged else [])
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for c in cases:
            for s in c.solvers():
                r = table.get((c.id, s))
                if r is not None:
                    w.writerow({k: r.get(k) for k in fields})
    lines = ["# OSDT frontier: optbb vs GOSDT and STreeD", ""]
    if merged:
        lines += [f"Merged by `python benchmarks/osdt_frontier.py {' '.join(header['argv'])}` on {header['when']} "
                  "(no solver run; column 'run' names the run each row comes from). The runs:", ""]
        for k, desc in enumerate(header["runs"], 1):
            lines += [f"Run {k}:", ""] + [f"> {line}" for line in desc] + [""]
    else:
        lines += _run_header(args, header) + [""]

    def run(*rows) -> str:
        return f" {next((r['run'] for r in rows if r), '')} |" if merged else ""

    run_col, run_sep = (" run |", "---|") if merged else ("", "")
    golden = [c for c in cases if c.kind == "golden"]
    if golden:
        lines += ["## Golden OSDT objectives (errors/N + lambda * leaves)", "",
                  "| case | leaves | objective | optbb s | GOSDT s | optbb / GOSDT | check |" + run_col,
                  "|---|---|---|---|---|---|---|" + run_sep]
        for c in golden:
            o, g = table.get((c.id, "optbb")), table.get((c.id, "gosdt"))
            checks = ", ".join(f"{s}: {r['check']}" for s, r in (("optbb", o), ("gosdt", g)) if r)
            leaves = next((r["leaves"] for r in (o, g) if r and r["leaves"] is not None), "")
            lines.append(f"| {c.id} | {leaves} | {c.expected:.9f} | {cell(o)} | {cell(g)} | "
                         f"{_ratio(o, g)} | {checks} |" + run(o, g))
        lines.append("")
    dl = [c for c in cases if c.kind == "dl"]
    if dl:
        lines += ["## DL sets, minimum errors at depth d", "",
                  "| case | errors | published | optbb s | STreeD s | GOSDT s | optbb / STreeD | optbb / GOSDT "
                  "| check |" + run_col,
                  "|---|---|---|---|---|---|---|---|---|" + run_sep]
        for c in dl:
            rows = {s: table.get((c.id, s)) for s in SOLVERS}
            o, st, g = rows["optbb"], rows["streed"], rows["gosdt"]
            errs = next((r["errors"] for r in (st, o, g) if r and r["median_s"] is not None), "")
            checks = [f"{s}: {r['check']}" for s, r in rows.items() if r and r["check"] != "-"]
            agree = agreement(c, rows)
            lines.append(f"| {c.id} | {errs} | {'' if c.expected is None else int(c.expected)} | {cell(o)} | "
                         f"{cell(st)} | {cell(g)} | {_ratio(o, st)} | {_ratio(o, g)} | "
                         f"{', '.join(checks + ([agree] if agree else []))} |" + run(o, st, g))
        lines.append("")
    lines += summary_lines(cases, table)
    out.with_suffix(".md").write_text("\n".join(lines))


_HEADER_STARTS = ("Generated by", "Load average", "Seconds are medians", "STreeD objective", "optbb search")


def read_run(path: Path, label: str) -> tuple[list[str], dict]:
    """An earlier run: its header lines (from the ``.md`` beside the CSV) and its rows keyed (case, solver)."""
    md = path.with_suffix(".md")
    if not path.is_file() or not md.is_file():
        raise SystemExit(f"--merge: need {path} and {md} (the run's header is read from its .md)")
    desc = [line for line in md.read_text().splitlines() if line.startswith(_HEADER_STARTS)]
    limit = re.search(r"per-run time limit ([0-9.]+) s", " ".join(desc))
    if len(desc) != len(_HEADER_STARTS) or limit is None:
        raise SystemExit(f"--merge: {md} has no single-run header (merge the runs' own files, not a merged table)")
    rows = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            row = {k: r.get(k, "") for k in CSV_FIELDS}
            row["median_s"] = float(r["median_s"]) if r["median_s"] else None
            for k in ("errors", "leaves", "runs"):
                row[k] = int(r[k]) if r[k] else None
            row["objective"] = float(r["objective"]) if r["objective"] else None
            row.update(timeout=float(limit.group(1)), run=label)
            rows[(r["case"], r["solver"])] = row
    return desc, rows


def merge(paths: list[Path], out: Path, argv: list[str]) -> None:
    """One table from several runs' CSVs; a (case, solver) in several runs comes from the last one listed."""
    table: dict = {}
    runs = []
    for k, path in enumerate(paths, 1):
        desc, rows = read_run(path, str(k))
        runs.append([f"`{path.name}`: " + desc[0]] + desc[1:])
        table.update(rows)
    known = {key[0] for key in table}
    cases = [c for c in all_cases() if c.id in known]
    unknown = known - {c.id for c in cases}
    if unknown:
        raise SystemExit(f"--merge: unknown case ids {sorted(unknown)}")
    header = {"argv": argv, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": runs}
    write_outputs(out, cases, table, None, header)


def _optbb_mode() -> str:
    sys.path.insert(0, str(OPTBB))
    from optbb.osdt import solve

    if "search" in inspect.signature(solve).parameters:
        return 'solve(..., search="dp")'
    return "solve(...) default (leaf-set search; this optbb has no `search` argument yet)"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", help="comma list of case ids or fnmatch patterns (see --list)")
    p.add_argument("--solvers", default=",".join(SOLVERS), help="comma list among optbb, gosdt, streed")
    p.add_argument("--repeats", type=int, default=None, help="timed fits per solver and case (default 3; quick 1)")
    p.add_argument("--timeout", type=float, default=None, help="time limit per fit, seconds (default 120; quick 30)")
    p.add_argument("--quick", action="store_true", help=f"a few small cases: {', '.join(QUICK)}")
    p.add_argument("--out", type=Path, default=OUT, help="output path without suffix (.md and .csv are written)")
    p.add_argument("--streed-task", choices=("accuracy", "cost-complex-accuracy"), default="accuracy",
                   help="STreeD objective on the DL sets: errors only (default) or errors + the same tiny "
                        "per-branch cost optbb and GOSDT get (the same objective as theirs)")
    p.add_argument("--optbb", type=Path, help="benchmark the optbb of this checkout (default: this repository)")
    p.add_argument("--list", action="store_true", help="print the case ids and exit")
    p.add_argument("--merge", metavar="A.csv,B.csv",
                   help="run nothing: write one table (--out) from earlier runs' CSVs, each with its .md beside it; "
                        "a (case, solver) in several runs is taken from the last one listed")
    p.add_argument("--worker", nargs=2, metavar=("SOLVER", "CASE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    global OPTBB
    os.environ["OPTBB_BENCH_STREED_TASK"] = args.streed_task
    if args.optbb is not None:
        if not (args.optbb / "optbb" / "__init__.py").is_file():
            p.error(f"--optbb: {args.optbb} holds no optbb package")
        OPTBB = args.optbb.resolve()
    args.repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    args.timeout = args.timeout if args.timeout is not None else (30.0 if args.quick else 120.0)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if not args.timeout > 0:
        p.error("--timeout must be > 0")
    if args.worker:
        solver, case_id = args.worker
        worker(solver, case_id, args.repeats, args.timeout)
        return
    if args.merge:
        paths = [Path(x.strip()) for x in args.merge.split(",") if x.strip()]
        if not paths:
            p.error("--merge: give a comma list of CSV files")
        merge(paths, args.out, sys.argv[1:] if argv is None else argv)
        print(f"wrote {args.out.with_suffix('.md')} and {args.out.with_suffix('.csv')}")
        return
    cases = all_cases()
    if args.list:
        for c in cases:
            print(c.id)
        return
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    bad = [s for s in solvers if s not in SOLVERS]
    if bad:
        p.error(f"--solvers: unknown {bad}; choose among {list(SOLVERS)}")
    patterns = args.cases if args.cases else (",".join(QUICK) if args.quick else None)
    cases = select(cases, patterns)
    header = {"argv": sys.argv[1:] if argv is None else argv,
              "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "commit": anchors.git_commit(OPTBB), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "load_start": " ".join(f"{x:.1f}" for x in os.getloadavg()), "optbb_mode": _optbb_mode(),
              "gosdt": anchors.dist_version("gosdt"), "pystreed": anchors.dist_version("pystreed")}
    table: dict = {}
    for c in cases:
        for s in c.solvers():
            if s not in solvers:
                continue
            row = run_one(s, c, args.repeats, args.timeout)
            table[(c.id, s)] = row
            print(f"{c.id:28s} {s:7s} {cell(row):>14s}  errors={row['errors']} leaves={row['leaves']} "
                  f"check={row['check']}", flush=True)
    header["load_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    write_outputs(args.out, cases, table, args, header)
    print(f"wrote {args.out.with_suffix('.md')} and {args.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()
