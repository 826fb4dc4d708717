"""The GOSDT reference suite: optbb against AutoOptTree (and GOSDT), its 70 (data set, lambda) pairs side by side.

Usage::

    python benchmarks/gosdt_suite.py [--cases PATTERNS] [--solvers optbb,autoopt[,gosdt]] [--time-limit 30]
                                     [--repeats 3] [--out benchmarks/results/gosdt_suite]
    python benchmarks/gosdt_suite.py --list

Cases ``<dataset>@<lambda>``: the 14 data sets the GOSDT authors ship with their solver
(``../shared/data/gosdt_suite/``, :mod:`gosdt_suite_data`) at lambda .1, .05, .02, .01 and .005, no depth limit,
objective ``errors / n + lambda * leaves`` on the raw columns (every threshold of a numeric column a split, a text
column one indicator per value), 30 s per pair.  ``--cases 'monk_1@*,iris@0.1'`` picks some.

* optbb: ``OSDTClassifier(regularization=lambda, time_limit=T)``.
* autoopt: ``AutoOptTreeClassifier(regularization=lambda, time_limit=T)``, the Numba solver proposed to imodels
  (csinva/imodels pull request 303, not on PyPI), a benchmark anchor only: it is imported from the directory that
  ``OPTBB_AUTOOPT_PATH`` names (holding ``imodels/tree/optimal_tree/auto_opt_tree.py`` and what it imports), and
  skipped with a message without it.
* gosdt: the PyPI ``gosdt`` package, ``GOSDTClassifier(regularization=lambda, time_limit=T, allow_small_reg=True)``
  on the columns binarised at every threshold.

Each (solver, pair) runs in its own subprocess (this script with ``--worker``): it loads the data, fits four
pairs untimed (imports, compiled kernels: monk_1 and chudi at .05, iris at .1, tic-tac-toe at .02), then times up to
``--repeats`` fits (``time.perf_counter`` around ``fit``), stopping after the first that does not certify.  The
parent kills a worker after ``repeats * (1.5 * T + 10) + 120`` seconds.  Tables quote the median fit time.

Every row is checked against what is known: the best published objective of ``known_optima.csv`` (6 decimals; the
exact value ``errors / n + lambda * leaves`` within that rounding stands for it where there is one), and on the two
one-column sets (gaussian_1k, sine_1k) the exact optimum of the interval dynamic programme.  Where the optimum is
known (certified in the file, or exact), a certified objective must equal it (within 1e-9); a certified objective is
never above the best published one; a lower bound is never above the optimum or the best published objective; the
objective a solver reports must be that of its tree (errors by its ``predict``, plus lambda per leaf).  GOSDT keeps
its bounds in single precision, so its lower bounds get 1e-6.  Violations are printed loudly and listed under the
table.

Results: ``<out>.md`` and ``<out>.csv``.
"""
from __future__ import annotations

import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np

import workers
from gosdt_suite_data import DATASETS, LAMBDAS, ROUNDING, Suite, exact_value, interval_optimum, known_optima, load

ROOT = Path(__file__).resolve().parents[1]
CASES = [f"{name}@{lam:g}" for name in DATASETS for lam in LAMBDAS]
MARK = "GOSDT-SUITE-RESULT "
TOL = 1e-9
AUTOOPT_ENV = "OPTBB_AUTOOPT_PATH"


def parse_case(case: str) -> tuple[str, float]:
    name, lam = case.split("@")
    return name, float(lam)


# --------------------------------------------------------------------------------------------- solvers


def run_optbb(data: Suite, lam: float, timeout: float) -> dict:
    from optbb.osdt import OSDTClassifier

    clf = OSDTClassifier(regularization=lam, time_limit=timeout).fit(data.X, data.y)
    r = clf.result_
    return {"status": r.status.name.lower(), "objective": float(r.objective), "lower_bound": float(r.lower_bound),
            "errors": int(np.sum(clf.predict(data.X) != data.y)), "leaves": clf.tree_.n_leaves}


def autoopt_class():
    """``AutoOptTreeClassifier`` from the directory ``$OPTBB_AUTOOPT_PATH``, or None when it is not set."""
    path = os.environ.get(AUTOOPT_ENV)
    if not path:
        return None
    sys.path.insert(0, path)
    from imodels.tree.optimal_tree.auto_opt_tree import AutoOptTreeClassifier

    return AutoOptTreeClassifier


def run_autoopt(data: Suite, lam: float, timeout: float) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it warns when a limit stops it; optimal_ says so too
        clf = autoopt_class()(regularization=lam, time_limit=timeout).fit(data.X, data.y)
    return {"status": "optimal" if clf.optimal_ else "time_limit", "objective": float(clf.objective_),
            "lower_bound": float(clf.lowerbound_), "errors": int(np.sum(clf.predict(data.X) != data.y)),
            "leaves": int(clf.n_leaves_)}


def gosdt_columns(data: Suite):
    """The columns as GOSDT takes them: a 0/1 column as it is, a numeric one as ``x <= t`` for every midpoint."""
    import pandas as pd

    cols = {}
    for j, name in enumerate(data.names):
        x = data.X[:, j]
        if not data.numeric[j]:
            cols[name] = x > 0
            continue
        v = np.unique(x)
        for t in (v[:-1] + v[1:]) / 2:
            cols[f"{name}<={t:.6g}"] = x <= t
    return pd.DataFrame(cols)


def run_gosdt(data: Suite, lam: float, timeout: float) -> dict:
    import sklearn.utils.validation as validation
    import gosdt._classifier as classifier
    from gosdt import GOSDTClassifier

    check = validation.check_array

    def compat(*args, force_all_finite=None, **kwargs):  # gosdt 1.0.4 passes an argument sklearn 1.8 removed
        if force_all_finite is not None:
            kwargs["ensure_all_finite"] = force_all_finite
        return check(*args, **kwargs)

    classifier.check_array = compat
    X = gosdt_columns(data)
    clf = GOSDTClassifier(regularization=lam, time_limit=max(1, int(timeout)), allow_small_reg=True).fit(X, data.y)
    errors = int(np.sum(clf.predict(X) != data.y))
    leaves = str(clf.trees_[0].tree).count("prediction:")
    status = "optimal" if str(clf.result_.status).endswith("CONVERGED") else "time_limit"
    return {"status": status, "objective": errors / len(data.y) + lam * leaves,
            "lower_bound": float(clf.result_.lowerbound), "errors": errors, "leaves": leaves}


SOLVERS = {"optbb": run_optbb, "autoopt": run_autoopt, "gosdt": run_gosdt}
NAMES = {"optbb": "optbb", "autoopt": "AutoOptTree", "gosdt": "GOSDT"}
# untimed fits first, (data set, lambda): imports and compiled kernels, binary and numeric columns (iris: optbb's
# search over sorted orders; chudi's 46 cuts go to its dp), and a search long enough to grow its tables (optbb's
# first growth loaded its kernels inside a timed 0.02 s fit of monk_2 .01)
WARM_UP = {"optbb": (("monk_1", 0.05), ("chudi", 0.05), ("iris", 0.1), ("tic-tac-toe", 0.02)),
           "autoopt": (("monk_1", 0.05), ("chudi", 0.05), ("iris", 0.1), ("tic-tac-toe", 0.02)),
           "gosdt": (("monk_1", 0.05),)}  # GOSDT compiles nothing
# GOSDT's C++ keeps its bounds in single precision: at monk_1, lambda .05 its lower bound came back as 0.338709682,
# float32 of the exact 21/124 + 0.15 = 0.338709677...
BOUND_SLACK = {"gosdt": 1e-6}


def available(solver: str) -> str | None:
    """Why ``solver`` cannot run here, or None."""
    if solver not in SOLVERS:
        return f"unknown solver {solver!r} (one of {', '.join(SOLVERS)})"
    if solver == "autoopt" and not os.environ.get(AUTOOPT_ENV):
        return (f"AutoOptTree skipped: set {AUTOOPT_ENV} to a directory holding "
                f"imodels/tree/optimal_tree/auto_opt_tree.py (imodels pull request 303)")
    if solver == "gosdt":
        import importlib.util

        if importlib.util.find_spec("gosdt") is None:
            return "GOSDT skipped: the gosdt package is not installed"
    return None


# --------------------------------------------------------------------------------------------- worker


def worker(solver: str, case: str, repeats: int, timeout: float) -> None:
    sys.path.insert(0, str(ROOT))
    name, lam = parse_case(case)
    data = load(name)
    run = SOLVERS[solver]
    for warm, warm_lam in WARM_UP[solver]:
        run(load(warm), warm_lam, timeout)

    def row(out, seconds):
        return {"solver": solver, "case": case, "seconds": seconds, **out}

    workers.timed_runs(repeats, lambda: run(data, lam, timeout), row, mark=MARK,
                       until=lambda out: out["status"] != "optimal")


def _summary(rows: list[dict]) -> dict:
    return {key: rows[-1][key] for key in ("objective", "lower_bound", "errors", "leaves")}


def measure(solver: str, case: str, repeats: int, timeout: float) -> dict:
    return workers.measure(__file__, solver, case, repeats, timeout, mark=MARK,
                           hard_timeout=repeats * (1.5 * timeout + 10) + 120, summary=_summary, say_why=True)


# --------------------------------------------------------------------------------------------- what is known, checks


def reference(case: str, cache: dict) -> dict:
    """What is known of ``case``: ``n``, ``cuts``, ``published`` (the best published objective, rounded),
    ``optimum`` (exact, or None when not known), ``kind`` (how it is known) and ``note``."""
    if case in cache:
        return cache[case]
    name, lam = parse_case(case)
    data = load(name)
    n = len(data.y)
    pub = known_optima()[(name, lam)]
    exact = exact_value(pub.objective, n, lam)
    ref = {"n": n, "columns": data.X.shape[1], "cuts": data.cuts, "published": pub.objective,
           "published_by": pub.source, "optimum": None, "kind": "published, not certified", "note": ""}
    if pub.certified:
        ref["optimum"], ref["kind"] = (exact, "certified") if exact is not None else (pub.objective, "certified, 6 dp")
    if data.X.shape[1] == 1:
        dp, errors, leaves = interval_optimum(data.X[:, 0], data.y, lam)
        if pub.certified and abs(dp - ref["optimum"]) > ROUNDING:
            ref["note"] = f"known_optima.csv says {pub.objective:g} certified, the interval DP {dp:.9g}"
        ref["optimum"], ref["kind"] = dp, f"interval DP ({errors} errors, {leaves} leaves)"
    cache[case] = ref
    return ref


def checks(r: dict, ref: dict, lam: float) -> list[str]:
    """The violations of a result ``r`` against ``ref`` (empty when it agrees with everything known)."""
    if "objective" not in r:
        return []
    out = []
    obj, lb, opt = r["objective"], r["lower_bound"], ref["optimum"]
    slack = TOL if ref["kind"] != "certified, 6 dp" else ROUNDING
    lb_slack = max(slack, BOUND_SLACK.get(r["solver"], 0.0))
    tree = r["errors"] / ref["n"] + lam * r["leaves"]
    if abs(tree - obj) > TOL:
        out.append(f"reported objective {obj:.9g} but its tree's is {tree:.9g}")
    if r["status"] == "optimal":
        if opt is not None and abs(obj - opt) > slack:
            out.append(f"certified {obj:.9g} != known optimum {opt:.9g}")
        if obj > ref["published"] + ROUNDING:
            out.append(f"certified {obj:.9g} > best published {ref['published']:g}")
    if lb is not None and not math.isnan(lb):
        if opt is not None and lb > opt + lb_slack:
            out.append(f"lower bound {lb:.9g} > known optimum {opt:.9g}")
        if lb > ref["published"] + ROUNDING:
            out.append(f"lower bound {lb:.9g} > best published {ref['published']:g}")
    return out


# --------------------------------------------------------------------------------------------- table


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def progress(r: dict) -> str:
    obj = f"{r['objective']:.6f}" if "objective" in r else "-"
    lb = f"{r['lower_bound']:.6f}" if "objective" in r else "-"
    return (f"{r['case']:24s} {r['solver']:8s} {obj:>9s} lb {lb:>9s} {r.get('median', float('nan')):8.3f} s "
            f"{r['status']}")


def cell(r: dict) -> str:
    if "objective" not in r:
        return r.get("status", "-")
    if r["status"] == "optimal":
        return f"{r['objective']:.6f}"
    return f"{r['objective']:.6f} ({r['status']}, lb {r['lower_bound']:.6f})"


def summary_lines(results: list[dict], solvers: list[str], timeout: float) -> list[str]:
    """Per solver: pairs certified and the geometric mean of the times (a pair not certified counted at the limit);
    per other solver: the geometric mean of optbb / it over the pairs both certify."""
    by = {(r["case"], r["solver"]): r for r in results}
    cases = list(dict.fromkeys(r["case"] for r in results))
    lines = ["| solver | pairs certified | geometric mean s (not certified = time limit) |", "|---|---|---|"]
    for s in solvers:
        rs = [by[(c, s)] for c in cases if (c, s) in by]
        ok = [r for r in rs if r["status"] == "optimal"]
        times = [r["median"] if r["status"] == "optimal" else timeout for r in rs]
        lines.append(f"| {NAMES[s]} | {len(ok)} / {len(rs)} | {geomean(times):.3f} |")
    for s in solvers[1:]:
        both = [(by[(c, "optbb")]["median"], by[(c, s)]["median"]) for c in cases
                if by.get((c, "optbb"), {}).get("status") == by.get((c, s), {}).get("status") == "optimal"]
        if both and "optbb" in solvers:
            lines.append("")
            lines.append(f"optbb / {NAMES[s]}, geometric mean over the {len(both)} pairs both certify: "
                         f"{geomean([a / b for a, b in both]):.2f}")
    return lines


def table(results: list[dict], solvers: list[str], refs: dict, header: str, timeout: float) -> tuple[str, list]:
    by = {(r["case"], r["solver"]): r for r in results}
    cases = list(dict.fromkeys(r["case"] for r in results))
    head = "| pair | rows, cuts | known optimum | " + " | ".join(f"{NAMES[s]} objective | {NAMES[s]} s"
                                                                  for s in solvers)
    lines = [header, "", *summary_lines(results, solvers, timeout), "",
             "Known optimum: the certified objective of known_optima.csv (the exact value within its 6 decimals), "
             "or the interval DP's on a one-column set; `published x` where only an uncertified best is known.", "",
             head + " |", "|---|---|---|" + "---|---|" * len(solvers)]
    violations = []
    for case in cases:
        ref = refs[case]
        known = f"{ref['optimum']:.6f}" if ref["optimum"] is not None else f"published {ref['published']:g}"
        cells = []
        for s in solvers:
            r = by.get((case, s), {})
            cells += [cell(r), f"{r['median']:.3f}" if "median" in r else "-"]
            violations += [f"{case} {NAMES[s]}: {v}" for v in r.get("violations", [])]
        lines.append(f"| {case} | {ref['n']:,}, {ref['cuts']:,} | {known} | " + " | ".join(cells) + " |")
    notes = [f"{c}: {refs[c]['note']}" for c in cases if refs[c]["note"]]
    lines += ["", "Violations: none" if not violations else "Violations:", *[f"* {v}" for v in violations]]
    if notes:
        lines += ["", "Published optima the interval DP contradicts:", *[f"* {n}" for n in notes]]
    return "\n".join(lines) + "\n", violations


def main() -> None:
    args, cases = workers.command_line(__doc__, CASES, worker, solvers="optbb,autoopt", timeout=30.0,
                                       out=ROOT / "benchmarks" / "results" / "gosdt_suite")
    if cases is None:
        return
    solvers = []
    for s in args.solvers.split(","):
        why = available(s)
        if why:
            print(why, flush=True)
        else:
            solvers.append(s)
    if not solvers:
        raise SystemExit("no solver to run")
    args.solvers = ",".join(solvers)
    refs: dict = {}
    results = []
    for case in cases:
        ref, lam = reference(case, refs), parse_case(case)[1]
        for s in solvers:
            r = measure(s, case, args.repeats, args.timeout)
            r["violations"] = checks(r, ref, lam)
            results.append(r)
            print(progress(r), flush=True)
            for v in r["violations"]:
                print(f"!!! VIOLATION {case} {NAMES[s]}: {v}", flush=True)
    header = (f"# The GOSDT suite: {', '.join(NAMES[s] for s in solvers)}\n\n{workers.provenance(__file__, ROOT)}, "
              f"{args.repeats} repeats (medians; one when a fit does not certify), time limit {args.timeout:g} s")
    text, violations = table(results, solvers, refs, header, args.timeout)
    rows = [[r["case"], r["solver"], r["status"], r.get("objective", ""), r.get("lower_bound", ""),
             r.get("errors", ""), r.get("leaves", ""), r.get("median", ""), workers.seconds_cell(r["times"]),
             "" if refs[r["case"]]["optimum"] is None else refs[r["case"]]["optimum"], refs[r["case"]]["published"],
             refs[r["case"]]["kind"], "; ".join(r["violations"])] for r in results]
    workers.write_results(args.out, text, ["case", "solver", "status", "objective", "lower_bound", "errors", "leaves",
                                           "median_s", "times", "known_optimum", "best_published", "known_kind",
                                           "violations"], rows)
    print(text)
    if violations:
        print(f"!!! {len(violations)} VIOLATION(S), listed above", flush=True)


if __name__ == "__main__":
    main()
