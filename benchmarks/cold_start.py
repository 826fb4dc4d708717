"""What the first fit costs in a fresh process: compiling the Numba kernels (empty cache) or loading them (warm cache).

Usage::

    python benchmarks/cold_start.py [--solvers osdt,osdt-depth3] [--repeats 3] [--data monk1] [--baseline osdt]
                                    [--no-warm] [--out benchmarks/results/cold_start]
    python benchmarks/cold_start.py --solvers all                # every solver
    python benchmarks/cold_start.py --solvers osdt --profile     # which kernels compile, and how long each takes

Each run is a fresh Python process whose ``NUMBA_CACHE_DIR`` is a new empty folder: it imports optbb (timed),
loads the data (``--data``: one of the bundled OSDT data sets, default ``monk1``, 124 x 11, ``random``, 50 x 5
random 0/1 values, or ``iris``, scikit-learn's 150 x 4 numeric columns) and fits the estimator once (timed); a
second fresh process with the same, now filled, folder does the same again (``--no-warm`` leaves it out).  The child prints the wall and CPU time (user + system) of its
import and of its first fit; the parent times the whole process (Python's start-up, imports, data, fit).

The solvers run interleaved, ``--repeats`` rounds of every solver in turn, so that a change of the machine's load
during the run falls on all of them alike; the tables give medians over the rounds, and each empty-cache median
over the ``--baseline`` solver's (default ``osdt``, the default ``OSDTClassifier()``): for ``osdt-depth3`` that is
the cost of ``OSDTClassifier(max_depth=3)``'s first fit against the default one's, measured in the same run.
Other processes sharing the cores inflate wall time more than CPU time, so both are printed, with the load
average before and after.  The Markdown table goes to ``<out>.md`` (default ``benchmarks/results/cold_start.md``).

``--profile`` lists, for the first empty-cache run of each solver, every compiled specialisation with its own
compile time (the time of the kernels it calls, compiled on the way, subtracted) and the number of signatures
compiled per function; ``--signatures`` prints each signature in full, with its caller.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FITS = {
    "corels": ("from optbb.corels import CorelsClassifier", "CorelsClassifier().fit(X, y)"),
    "osdt": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier().fit(X, y)"),
    "osdt-depth3": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier(max_depth=3).fit(X, y)"),
    "osdt-depth3-errors": ("from optbb.osdt import OSDTClassifier",
                           "OSDTClassifier(max_depth=3, regularization=0).fit(X, y)"),
    "osdt-leafset": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier(search='leaf_set').fit(X, y)"),
    "frl": ("from optbb.frl import FRLClassifier", "FRLClassifier().fit(X, y)"),
    "softfrl": ("from optbb.frl import SoftFRLClassifier", "SoftFRLClassifier().fit(X, y)"),
}
OSDT_SETS = ("monk1", "monk2", "monk3", "tic-tac-toe", "car", "compas")

CHILD = """
import json, os, resource, sys, time

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

events = []
if PROFILE:
    from numba.core import event

    class Timer(event.Listener):
        def __init__(self):
            self.stack = []

        def on_start(self, ev):
            d = ev.data["dispatcher"]
            self.stack.append([time.perf_counter(), 0.0, d.py_func.__module__ + "." + d.py_func.__qualname__])

        def on_end(self, ev):
            start, children, name = self.stack.pop()
            total = time.perf_counter() - start
            if self.stack:
                self.stack[-1][1] += total
            caller = self.stack[-1][2] if self.stack else ""
            events.append((name, str(ev.data["args"]), total - children, caller))

    event.register("numba:compile", Timer())

import numpy as np
w0, c0 = time.perf_counter(), cpu()
IMPORT
w1, c1 = time.perf_counter(), cpu()
DATA = "DATASET"
if DATA == "random":
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(50, 5))
    y = rng.integers(0, 2, size=50)
elif DATA == "iris":
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
else:
    from optbb.datasets import load_osdt
    d = load_osdt(DATA)
    X, y = np.asarray(d.X), np.asarray(d.y)
w2, c2 = time.perf_counter(), cpu()
FIT
w3, c3 = time.perf_counter(), cpu()
print(json.dumps({"import_wall": w1 - w0, "import_cpu": c1 - c0, "fit_wall": w3 - w2, "fit_cpu": c3 - c2,
                  "events": events}))
"""


def run_child(solver: str, cache_dir: str, data: str, profile: bool) -> dict:
    """One fresh process fitting ``solver`` once with ``cache_dir`` as Numba's cache; its own times plus
    ``process_wall``, the wall time of the whole process seen from here."""
    imp, fit = FITS[solver]
    code = (textwrap.dedent(CHILD).replace("PROFILE", str(profile)).replace("IMPORT", imp).replace("FIT", fit)
            .replace("DATASET", data))
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(REPO))
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t
    if out.returncode:
        raise RuntimeError(f"{solver}: child failed\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_wall"] = wall
    return result


def print_profile(solver: str, events: list, verbose: bool = False) -> None:
    per_function: dict[str, list] = {}
    for name, args, seconds, caller in events:
        per_function.setdefault(name, []).append((seconds, f"{args}  <- {caller}"))
    rows = sorted(per_function.items(), key=lambda kv: -sum(s for s, _ in kv[1]))
    total = sum(e[2] for e in events)
    print(f"\n{solver}: {len(events)} specialisations compiled, {total:.2f} s of compilation (own times)")
    for name, specs in rows:
        print(f"  {sum(s for s, _ in specs):6.2f} s  x{len(specs)}  {name}")
        if len(specs) > 1 or verbose:
            for seconds, args in specs:
                print(f"           {seconds:6.2f} s  {args if verbose else args[:160]}")


KEYS = ("process_wall", "import_wall", "import_cpu", "fit_wall", "fit_cpu")


def medians(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in KEYS}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def markdown(header: str, solvers: list[str], results: dict, baseline: str | None) -> str:
    """The table of medians (and ratios to ``baseline``), then every run's values."""
    lines = [header, "",
             "Seconds, medians over the rounds. *process*: wall time of the whole child process (Python's start-up, "
             "imports, data, first fit); *import*, *fit*: the child's own wall / CPU times of importing the "
             "estimator and of its first fit. Ratios: empty-cache medians over the baseline's"
             + (f" (`{baseline}`)." if baseline else " (none in this run)."), "",
             "| solver | cache | process wall | import wall | fit wall | fit CPU | process ratio | fit wall ratio | "
             "fit CPU ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    base = medians(results[baseline]["empty"]) if baseline else None
    for solver in solvers:
        for cache, runs in results[solver].items():
            m = medians(runs)
            ratios = ["-"] * 3
            if base is not None and cache == "empty":
                ratios = [f"{m[key] / base[key]:.2f}" for key in ("process_wall", "fit_wall", "fit_cpu")]
            lines.append(f"| {solver} | {cache} | {m['process_wall']:.2f} | {m['import_wall']:.2f} | "
                         f"{m['fit_wall']:.2f} | {m['fit_cpu']:.2f} | {' | '.join(ratios)} |")
    lines += ["", "Every run (process wall / fit wall / fit CPU, in the order run):", ""]
    for solver in solvers:
        for cache, runs in results[solver].items():
            each = ", ".join(f"{r['process_wall']:.2f} / {r['fit_wall']:.2f} / {r['fit_cpu']:.2f}" for r in runs)
            lines.append(f"* {solver}, {cache} cache: {each}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--solvers", default="osdt,osdt-depth3", help=f"comma list of {', '.join(FITS)}, or 'all'")
    p.add_argument("--repeats", type=int, default=3, help="rounds of every solver, interleaved (medians)")
    p.add_argument("--data", default="monk1", choices=OSDT_SETS + ("random", "iris"),
                   help="a bundled OSDT data set, 'random' (50 x 5 random 0/1 values) or 'iris' (150 x 4 numeric)")
    p.add_argument("--baseline", default="osdt", help="the solver the ratios divide by (when it is run)")
    p.add_argument("--no-warm", action="store_true", help="leave out the warm-cache runs")
    p.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "cold_start"),
                   help="writes <out>.md ('' for none)")
    p.add_argument("--profile", action="store_true", help="list the compiled specialisations of the first cold run")
    p.add_argument("--signatures", action="store_true", help="with --profile: every signature in full, and its caller")
    args = p.parse_args(argv)
    solvers = list(FITS) if args.solvers == "all" else args.solvers.split(",")
    unknown = [s for s in solvers if s not in FITS]
    if unknown:
        p.error(f"unknown solver(s) {', '.join(unknown)}; expected some of {', '.join(FITS)}")
    baseline = args.baseline if args.baseline in solvers else None
    caches = ("empty",) if args.no_warm else ("empty", "warm")
    load_before = load()
    print(f"load average before: {load_before}")
    print(f"{'solver':12s} {'cache':5s} {'round':>5s} {'process':>8s} {'import wall':>11s} {'import cpu':>10s}"
          f" {'fit wall':>9s} {'fit cpu':>8s}")
    results = {s: {c: [] for c in caches} for s in solvers}
    profiles = []
    for round_ in range(args.repeats):
        for solver in solvers:
            with tempfile.TemporaryDirectory(prefix="optbb-numba-cache-") as cache_dir:
                for cache in caches:
                    profile = args.profile and cache == "empty" and round_ == 0
                    r = run_child(solver, cache_dir, args.data, profile)
                    results[solver][cache].append(r)
                    print(f"{solver:12s} {cache:5s} {round_ + 1:5d} {r['process_wall']:8.2f} {r['import_wall']:11.2f}"
                          f" {r['import_cpu']:10.2f} {r['fit_wall']:9.2f} {r['fit_cpu']:8.2f}", flush=True)
                    if r["events"]:
                        profiles.append((solver, r["events"]))
    load_after = load()
    print(f"load average after: {load_after}")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    command = " ".join(["python", "benchmarks/cold_start.py", *(sys.argv[1:] if argv is None else argv)])
    header = (f"# First fit in a fresh process: empty and warm Numba cache\n\n`{command}` at {commit}, "
              f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {load_before} before, {load_after} "
              f"after, {args.repeats} rounds (medians), data {args.data}, {os.cpu_count()} cores")
    text = markdown(header, solvers, results, baseline)
    print()
    print(text)
    if args.out:
        out = Path(args.out).with_suffix(".md")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    for solver, events in profiles:
        print_profile(solver, events, args.signatures)


if __name__ == "__main__":
    main()
