"""How the cost of optbb's OSDT dynamic-programming search grows with the samples and with the features.

Usage::

    python benchmarks/osdt_growth.py [--quick] [--timeout 300] [--out benchmarks/results/osdt_growth]

Two sweeps, each point a fresh subprocess (this script with ``--worker``) that loads the data, makes one untimed
warm-up fit on a tiny sample with the same settings (loads the JIT cache), resets its peak RSS and times one fit:

* samples: COMPAS (``shared/data/osdt/compas-binary.csv``, 6,907 rows x 12 features) resampled with replacement
  (seed 0) to 1,000 ... 1,000,000 rows; ``regularization=0.001`` (13 leaves on the full data), no depth limit.
* features: the first 10 ... 200 columns of the DL set ``splice-1`` (3,190 rows, 287 features), depth 3 and depth
  4, minimum errors (``regularization = 1 / (N 2^(d+3))``, as in ``osdt_frontier.py``).

Each point reports the wall time of the fit, the peak RSS growth of the process during the fit (``VmHWM`` after
``clear_refs``), the bytes the search accounts (``memory_bytes``) and its status.  Results: ``<out>.md`` (table),
``<out>.csv`` and ``docs/figures/osdt-growth.png`` (log-log time and memory against each variable).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
SAMPLES = [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]
FEATURES = [10, 20, 40, 60, 80, 100, 120, 160, 200]
QUICK_SAMPLES = [1_000, 10_000, 100_000]
QUICK_FEATURES = [10, 20, 40]


def _hwm() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def _case(sweep: str, value: int):
    """(data, regularization, max_depth) of one point."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from optbb.common.data import read_osdt_csv
    from optbb.datasets.dl import load_dl

    if sweep == "samples":
        base = read_osdt_csv(SHARED / "data" / "osdt" / "compas-binary.csv")
        rows = np.random.default_rng(0).integers(0, base.n_samples, value)
        from optbb.common.data import from_arrays

        return from_arrays(base.X[rows], base.y[rows], base.feature_names), 0.001, None
    depth = int(sweep[-1])  # "features-d3", "features-d4"
    base = load_dl("splice-1", shared_dir=SHARED)
    from optbb.common.data import from_arrays

    data = from_arrays(base.X[:, :value], base.y, base.feature_names[:value])
    return data, 1.0 / (data.n_samples * 2 ** (depth + 3)), depth


def worker(sweep: str, value: int, timeout: float) -> None:
    from optbb.common.data import from_arrays
    from optbb.osdt import solve

    data, lam, depth = _case(sweep, value)
    small = from_arrays(data.X[:200], data.y[:200], data.feature_names)
    solve(small, max(lam, 0.01), search="dp", max_depth=depth, time_limit=10)
    _reset_peak()
    before = _hwm()
    t0 = time.perf_counter()
    res = solve(data, lam, search="dp", max_depth=depth, time_limit=timeout)
    wall = time.perf_counter() - t0
    print(json.dumps({"sweep": sweep, "value": value, "n_samples": data.n_samples, "n_features": data.n_features,
                      "lam": lam, "max_depth": depth, "seconds": wall, "status": res.status.value,
                      "objective": res.objective, "leaves": int(res.model.n_leaves),
                      "rss_growth_mb": (_hwm() - before) / 2 ** 20,
                      "accounted_mb": res.counters.get("memory_bytes", 0) / 2 ** 20}), flush=True)


def run_point(sweep: str, value: int, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", sweep, str(value), "--timeout", str(timeout)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 300, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return {"sweep": sweep, "value": value, "status": "killed"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"sweep": sweep, "value": value, "status": f"failed: {out.stderr.strip().splitlines()[-1:]}"}
    return json.loads(lines[-1])


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    for ax, sweep, label in ((axes[0], "samples", "samples (COMPAS resampled, lambda .001)"),
                             (axes[1], "features-d3", "features (splice-1 columns, depth 3)"),
                             (axes[2], "features-d4", "features (splice-1 columns, depth 4)")):
        pts = [r for r in rows if r["sweep"] == sweep and "seconds" in r]
        x = [r["value"] for r in pts]
        ax.loglog(x, [r["seconds"] for r in pts], "o-", label="time (s)")
        ax.loglog(x, [max(r["rss_growth_mb"], 0.1) for r in pts], "s--", label="peak RSS growth (MB)")
        ax.loglog(x, [max(r["accounted_mb"], 0.1) for r in pts], "^:", label="accounted (MB)")
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("optbb OSDT dynamic-programming search: cost growth")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def write(rows: list[dict], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    cols = ["sweep", "value", "n_samples", "n_features", "seconds", "status", "leaves", "rss_growth_mb",
            "accounted_mb"]
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    lines = [f"# OSDT dynamic-programming search: cost growth (load average at start "
             f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)", "", "| " + " | ".join(cols) + " |",
             "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def _fmt(v) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="three points per sweep")
    ap.add_argument("--timeout", type=float, default=300.0, help="time limit of each fit (s)")
    ap.add_argument("--out", default=str(HERE / "results" / "osdt_growth"))
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.timeout)
        return
    samples, features = (QUICK_SAMPLES, QUICK_FEATURES) if args.quick else (SAMPLES, FEATURES)
    rows = []
    for sweep, values in (("samples", samples), ("features-d3", features), ("features-d4", features)):
        for v in values:
            r = run_point(sweep, v, args.timeout)
            rows.append(r)
            print(json.dumps(r), flush=True)
    write(rows, Path(args.out))
    plot(rows, ROOT / "docs" / "figures" / "osdt-growth.png")


if __name__ == "__main__":
    main()
