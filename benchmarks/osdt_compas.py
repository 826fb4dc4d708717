"""OSDT side by side: optbb.osdt against the reference Python OSDT and GOSDT on COMPAS (and FICO if present).

Usage:  python benchmarks/osdt_compas.py [--repeats 3] [--time-limit 120] [--no-anchors]

For each case it prints optbb's wall time (median over repeats, after one JIT warm-up), trees evaluated (queue
insertions, the reference's COUNT), accounted memory and status, then the anchors' times and the ratios
reference/optbb and optbb/GOSDT.  The anchors run as subprocesses in their own virtual environments, never inside
this interpreter:

* reference OSDT: ``../shared/anchors/osdt-reference/run_osdt.py`` with ``$OPTBB_OSDT_PYTHON`` (default
  ``~/.cache/optbb-anchors/osdt-venv/bin/python``; create it with
  ``python -m venv ~/.cache/optbb-anchors/osdt-venv && ~/.cache/optbb-anchors/osdt-venv/bin/pip install numpy
  "pandas<3" scikit-learn gmpy2``);
* GOSDT: ``../shared/anchors/gosdt/run_gosdt.py`` with ``$OPTBB_GOSDT_PYTHON`` (default
  ``~/.cache/optbb-anchors/gosdt-venv/bin/python``, with ``pip install gosdt pandas``).

A missing anchor, data file or interpreter only blanks its columns.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from optbb.common.data import read_osdt_csv  # noqa: E402
from optbb.osdt import solve  # noqa: E402

SHARED = REPO.parent / "shared"
DATA = SHARED / "data" / "osdt"
CACHE = Path(os.environ.get("OPTBB_ANCHORS_CACHE", Path.home() / ".cache" / "optbb-anchors"))
REF_SCRIPT = SHARED / "anchors" / "osdt-reference" / "run_osdt.py"
GOSDT_SCRIPT = SHARED / "anchors" / "gosdt" / "run_gosdt.py"
REF_PYTHON = Path(os.environ.get("OPTBB_OSDT_PYTHON", CACHE / "osdt-venv" / "bin" / "python"))
GOSDT_PYTHON = Path(os.environ.get("OPTBB_GOSDT_PYTHON", CACHE / "gosdt-venv" / "bin" / "python"))

CASES = [  # (label, file, lambda, run the reference anchor)
    ("COMPAS", "compas-binary.csv", 0.005, True),
    ("COMPAS", "compas-binary.csv", 0.001, False),  # the reference needs far longer than any sensible limit
    ("FICO", "fico_binary.csv.gz", 0.05, True),
    ("FICO", "fico_binary.csv.gz", 0.01, False),
]


def run_optbb(path: Path, lam: float, repeats: int, time_limit: float):
    """The OSDT paper's own search (``search="leaf_set"``), the one this table compares with the reference OSDT;
    the dynamic-programming search is measured by ``benchmarks/osdt_frontier.py``."""
    data = read_osdt_csv(path)
    solve(data, lam, search="leaf_set", time_limit=time_limit)  # warm-up: loads the cached JIT code
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = solve(data, lam, search="leaf_set", time_limit=time_limit)
        runs.append((time.perf_counter() - t0, res))
    secs = statistics.median(r[0] for r in runs)
    res = runs[-1][1]
    return {"seconds": secs, "objective": res.objective, "status": res.status.name, "gap": res.gap,
            "trees": res.counters["trees_evaluated"], "trees_to_opt": res.counters["trees_to_optimum"],
            "time_to_opt": res.counters["time_to_optimum"], "memory_mb": res.counters["memory_bytes"] / 2**20,
            "leaves": res.model.n_leaves}


def _run(cmd: list[str], timeout: float) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return None
    return out.stdout


def run_reference(path: Path, lam: float, repeats: int, time_limit: float):
    if not (REF_PYTHON.exists() and REF_SCRIPT.exists() and path.exists()):
        return None
    if path.suffix == ".gz":  # the reference reads plain CSV only
        import gzip
        import tempfile

        tmp = Path(tempfile.gettempdir()) / path.name[:-3]
        if not tmp.exists():
            tmp.write_bytes(gzip.decompress(path.read_bytes()))
        path = tmp
    own, trees = [], -1
    for _ in range(repeats):
        out = _run([str(REF_PYTHON), str(REF_SCRIPT), str(path), str(lam), f"timelimit={time_limit}"],
                   time_limit + 60)
        if out is None:
            return None
        m = re.search(r"RESULT .*total_seconds=([0-9.]+).*trees_evaluated=(\d+)", out)
        if not m:
            return None
        own.append(float(m.group(1)))
        trees = int(m.group(2))
    # the reference's own total_seconds (its fit, without the interpreter start) is what the ratio uses
    return {"own_seconds": statistics.median(own) if own else math.nan, "trees": trees}


def run_gosdt(path: Path, lam: float, repeats: int, time_limit: float):
    if not (GOSDT_PYTHON.exists() and GOSDT_SCRIPT.exists() and path.exists()):
        return None
    secs, obj = [], None
    for _ in range(repeats):
        out = _run([str(GOSDT_PYTHON), str(GOSDT_SCRIPT), str(path), str(lam)], time_limit + 60)
        if out is None:
            return None
        m = re.search(r"objective=([0-9.]+) seconds=([0-9.]+)", out)
        if not m:
            return None
        obj = float(m.group(1))
        secs.append(float(m.group(2)))
    return {"seconds": statistics.median(secs), "objective": obj}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--no-anchors", action="store_true")
    args = ap.parse_args(argv)
    print(f"{'case':<16}{'optbb s':>10}{'status':>12}{'objective':>13}{'trees':>10}{'to opt':>8}{'mem MB':>8}"
          f"{'ref s':>9}{'ref trees':>11}{'GOSDT s':>9}{'ref/optbb':>11}{'optbb/GOSDT':>13}")
    for label, fname, lam, with_ref in CASES:
        path = DATA / fname
        if not path.exists():
            print(f"{label} {lam:<9}  (data {path} not found: skipped)")
            continue
        o = run_optbb(path, lam, args.repeats, args.time_limit)
        r = g = None
        if not args.no_anchors:
            if with_ref:
                r = run_reference(path, lam, args.repeats, args.time_limit)
            g = run_gosdt(path, lam, args.repeats, args.time_limit)
        ref_s = f"{r['own_seconds']:.3f}" if r else "-"
        ref_t = f"{r['trees']}" if r else "-"
        gos_s = f"{g['seconds']:.3f}" if g else "-"
        ratio_r = f"{r['own_seconds'] / o['seconds']:.1f}" if r and o["status"] == "OPTIMAL" else "-"
        ratio_g = f"{o['seconds'] / max(g['seconds'], 1e-3):.2f}" if g else "-"
        print(f"{label + ' ' + str(lam):<16}{o['seconds']:>10.3f}{o['status']:>12}{o['objective']:>13.9f}"
              f"{o['trees']:>10}{o['trees_to_opt']:>8}{o['memory_mb']:>8.1f}{ref_s:>9}{ref_t:>11}{gos_s:>9}"
              f"{ratio_r:>11}{ratio_g:>13}", flush=True)
        if g and o["status"] == "OPTIMAL" and abs(g["objective"] - o["objective"]) > 1e-6:
            print(f"  WARNING: GOSDT objective {g['objective']:.9f} differs from optbb's {o['objective']:.9f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
