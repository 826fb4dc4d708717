"""What the first fit costs in a fresh process: compiling the Numba kernels (empty cache) or loading them (warm cache).

For each solver, a fresh process with ``NUMBA_CACHE_DIR`` set to a new empty folder imports optbb and fits the
estimator once on small random 0/1 data (``--rows`` x ``--features``, default 50 x 5); a second fresh process with
the same, now filled, folder does the same again.  Wall and CPU time (user + system of the child) are reported for
the import and for the first fit.  Other processes sharing the cores inflate wall time more than CPU time, so both
are printed with the load average::

    python benchmarks/cold_start.py
    python benchmarks/cold_start.py --solvers osdt --profile     # which kernels compile, and how long each takes

``--profile`` lists, for the empty-cache run, every compiled specialisation with its own compile time (the time of
the kernels it calls, compiled on the way, subtracted) and the number of signatures compiled per function.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FITS = {
    "corels": ("from optbb.corels import CorelsClassifier", "CorelsClassifier().fit(X, y)"),
    "osdt": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier().fit(X, y)"),
    "osdt-depth3": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier(max_depth=3).fit(X, y)"),
    "osdt-leafset": ("from optbb.osdt import OSDTClassifier", "OSDTClassifier(search='leaf_set').fit(X, y)"),
    "frl": ("from optbb.frl import FRLClassifier", "FRLClassifier().fit(X, y)"),
    "softfrl": ("from optbb.frl import SoftFRLClassifier", "SoftFRLClassifier().fit(X, y)"),
}

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
rng = np.random.default_rng(0)
X = rng.integers(0, 2, size=(ROWS, FEATURES))
y = rng.integers(0, 2, size=ROWS)
FIT
w2, c2 = time.perf_counter(), cpu()
print(json.dumps({"import_wall": w1 - w0, "import_cpu": c1 - c0, "fit_wall": w2 - w1, "fit_cpu": c2 - c1,
                  "events": events}))
"""


def run_child(solver: str, cache_dir: str, rows: int, features: int, profile: bool) -> dict:
    imp, fit = FITS[solver]
    code = (textwrap.dedent(CHILD).replace("PROFILE", str(profile)).replace("IMPORT", imp).replace("FIT", fit)
            .replace("ROWS", str(rows)).replace("FEATURES", str(features)))
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    if out.returncode:
        raise RuntimeError(f"{solver}: child failed\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--solvers", default="corels,osdt,osdt-depth3,osdt-leafset,frl,softfrl")
    p.add_argument("--rows", type=int, default=50)
    p.add_argument("--features", type=int, default=5)
    p.add_argument("--profile", action="store_true", help="list the compiled specialisations of the cold run")
    p.add_argument("--signatures", action="store_true", help="with --profile: every signature in full, and its caller")
    args = p.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'solver':12s} {'cache':5s} {'import wall':>11s} {'import cpu':>10s} {'fit wall':>9s} {'fit cpu':>8s}"
          f" {'total wall':>10s} {'total cpu':>9s}")
    profiles = []
    for solver in args.solvers.split(","):
        with tempfile.TemporaryDirectory(prefix="optbb-numba-cache-") as cache_dir:
            for cache in ("empty", "warm"):
                r = run_child(solver, cache_dir, args.rows, args.features, args.profile and cache == "empty")
                print(f"{solver:12s} {cache:5s} {r['import_wall']:11.2f} {r['import_cpu']:10.2f} {r['fit_wall']:9.2f}"
                      f" {r['fit_cpu']:8.2f} {r['import_wall'] + r['fit_wall']:10.2f}"
                      f" {r['import_cpu'] + r['fit_cpu']:9.2f}", flush=True)
                if r["events"]:
                    profiles.append((solver, r["events"]))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for solver, events in profiles:
        print_profile(solver, events, args.signatures)


if __name__ == "__main__":
    main()
