"""optbb CORELS vs the reference C++ CORELS on the ten ProPublica folds, side by side in one process tree.

For each fold: certification time (median of ``--repeats`` runs, each in a fresh subprocess whose compiled kernels
are loaded from the Numba cache before the clock starts; start-up is reported separately), lower-bound evaluations, queue insertions, peak RSS, and the ratio optbb / C++.  Also the cold and warm
start time of the package (import + compile or cache load + a tiny solve).

    python benchmarks/corels_propublica.py [--lambda 0.005] [--folds 0-9] [--repeats 3] [--out results/...]

The C++ columns are left empty when the reference binary cannot be built (no ../shared/anchors).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import anchors  # noqa: E402

REPO = HERE.parent
FOLD_DIR = REPO / "tests" / "data" / "corels"


def _worker(fold: int, lam: float) -> None:
    """Run inside a subprocess: solve one fold and print the counters as JSON."""
    from optbb.common.data import read_corels
    from optbb.corels import solve

    import numpy as np
    from optbb.common.data import from_arrays

    solve(from_arrays(np.eye(4, dtype=np.uint8), np.array([0, 1, 0, 1])), 0.01)  # load the compiled kernels
    base = FOLD_DIR / f"compas_{fold}_train"
    data = read_corels(f"{base}.out.gz", f"{base}.label.gz")
    result = solve(data, lam)
    out = dict(result.counters)
    out.update(objective=result.objective, status=result.status.name)
    print("RESULT " + json.dumps(out))


def run_optbb(fold: int, lam: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(fold), str(lam)]
    rc, stdout, stderr, wall, rss, _ = anchors._run(cmd, timeout=3600)
    line = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if rc != 0 or not line:
        raise RuntimeError(f"optbb worker failed on fold {fold}: {stderr[-2000:]}")
    res = json.loads(line[0][len("RESULT "):])
    res.update(wall_time=wall, peak_rss_bytes=rss)
    return res


def start_times() -> dict:
    """Cold (empty Numba cache) and warm start: import, compile or load, solve a tiny problem."""
    code = ("import time; t=time.perf_counter(); import numpy as np; from optbb.common.data import from_arrays;"
            "from optbb.corels import solve; solve(from_arrays(np.eye(4,dtype=np.uint8), np.array([0,1,0,1])), 0.01);"
            "print(time.perf_counter()-t)")
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        import subprocess

        for label in ("cold", "warm"):
            p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            out[label] = float(p.stdout.strip().splitlines()[-1])
    return out


def _folds(spec: str) -> list[int]:
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in spec.split(",")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lambda", dest="lam", type=float, default=0.005)
    ap.add_argument("--folds", default="0-9")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cxx-repeats", type=int, default=1)
    ap.add_argument("--no-cxx", action="store_true")
    ap.add_argument("--out", default=str(HERE / "results" / "corels_propublica.md"))
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker(int(args.worker[0]), float(args.worker[1]))
        return 0

    binary = None if args.no_cxx else anchors.corels_binary()
    starts = start_times()
    rows = []
    for fold in _folds(args.folds):
        ours = [run_optbb(fold, args.lam) for _ in range(args.repeats)]
        cxx = []
        if binary is not None:
            cxx_files = anchors.corels_cv_fold(fold)
            for _ in range(args.cxx_repeats):
                if cxx_files is None:
                    break
                cxx.append(anchors.run_corels(*cxx_files, regularization=args.lam, binary=binary))
        t_ours = statistics.median(r["total_time"] for r in ours)
        row = dict(fold=fold, objective=ours[0]["objective"], status=ours[0]["status"], optbb_s=t_ours,
                   optbb_wall_s=statistics.median(r["wall_time"] for r in ours),
                   lb_evals=ours[0]["lower_bound_evaluations"], insertions=ours[0]["queue_insertions"],
                   optbb_rss_mb=max(r["peak_rss_bytes"] for r in ours) / 2**20,
                   accounted_mb=ours[0]["memory_bytes"] / 2**20)
        if cxx:
            t_cxx = statistics.median(r["total_time"] for r in cxx)
            row.update(cxx_s=t_cxx, cxx_objective=cxx[0].get("objective"), cxx_rss_mb=cxx[0]["peak_rss_bytes"] / 2**20,
                       cxx_lb_evals=cxx[0].get("lower_bound_evaluations"), ratio=t_ours / t_cxx)
        rows.append(row)
        print(json.dumps(row), flush=True)
    text = _report(rows, starts, args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


def _report(rows, starts, args) -> str:
    cols = ["fold", "objective", "status", "optbb_s", "cxx_s", "ratio", "lb_evals", "cxx_lb_evals", "insertions",
            "optbb_rss_mb", "accounted_mb", "cxx_rss_mb"]
    lines = [f"# CORELS on ProPublica, lambda = {args.lam}: optbb vs C++ (medians of {args.repeats} optbb runs, "
             f"{args.cxx_repeats} C++ runs)", "", f"machine: {os.cpu_count()} cores; start time cold "
             f"{starts['cold']:.1f} s, warm {starts['warm']:.2f} s", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c)) for c in cols) + " |")
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        lines += ["", f"ratio optbb / C++: median {statistics.median(ratios):.3f}, max {max(ratios):.3f}, "
                      f"folds with ratio <= 0.5: {sum(x <= 0.5 for x in ratios)}/{len(ratios)}"]
    return "\n".join(lines) + "\n"


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1 or abs(v) >= 1000 else f"{v:.2f}"
    return str(v)


if __name__ == "__main__":
    sys.exit(main())
