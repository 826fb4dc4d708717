"""optbb's Rashomon sets of trees against TreeFARMS, side by side: time, memory and the count of each.

Usage::

    python benchmarks/rashomon.py [--cases PATTERNS] [--solvers optbb,treefarms] [--repeats 3] [--timeout 300]
                                  [--out benchmarks/results/rashomon]
    python benchmarks/rashomon.py --list

Cases ``<dataset>@<lambda>/<epsilon>/d<depth>`` on OSDT's binarised sets (``optbb.datasets.load_osdt``): the set of
every tree with at most ``d`` splits on a path whose objective ``errors / N + lambda * leaves`` is within
``(1 + epsilon)`` times the optimum.  optbb: ``optbb.osdt.rashomon_set(data, lambda, epsilon=epsilon,
max_depth=d)`` (the construction and the exact count; listing is lazy).  TreeFARMS (pip ``treefarms``, a
benchmark-only extra): ``TREEFARMS({"regularization": lambda, "rashomon_bound_multiplier": epsilon,
"depth_budget": d + 1})`` (its depth budget counts the leaf level), ``fit`` then ``get_tree_count()``.  The two
definitions differ (docs/rashomon.md, "How the counts compare with TreeFARMS"), so the counts differ; both are
printed.

Each (solver, case) runs in its own subprocess (this script with ``--worker``): it loads the data, does one untimed
warm-up on a small case (for optbb it loads the compiled kernels), then times ``--repeats`` constructions
(``time.perf_counter`` around the call).  Memory: the peak resident size of the worker (``ru_maxrss``) and its
growth over the size after the warm-up.  The parent kills a worker after ``repeats * timeout + 120`` seconds, so a
hanging solver only blanks its cell.  Tables quote medians.

Results: ``<out>.md`` (Markdown: per case the counts, median times, peak memory and the ratios optbb / TreeFARMS)
and ``<out>.csv``.
"""
from __future__ import annotations

import contextlib
import io
import resource
import sys
from pathlib import Path

import workers

ROOT = Path(__file__).resolve().parents[1]
CASES = ["monk2@0.01/0.05/d4", "compas@0.01/0.05/d4", "compas@0.005/0.05/d4", "monk2@0.005/0.1/d5",
         "compas@0.001/0.05/d5", "monk1@0.01/0.2/d3", "tic-tac-toe@0.01/0.05/d4", "car@0.01/0.05/d4"]


def parse_case(case: str) -> tuple[str, float, float, int]:
    name, rest = case.split("@")
    lam, eps, depth = rest.split("/")
    return name, float(lam), float(eps), int(depth[1:])


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_optbb(data, lam: float, eps: float, depth: int, timeout: float):
    from optbb.osdt import rashomon_set

    rs = rashomon_set(data, lam, epsilon=eps, max_depth=depth, time_limit=timeout)
    return rs.count, rs.status.value


def run_treefarms(data, lam: float, eps: float, depth: int, timeout: float):
    import pandas as pd
    from treefarms import TREEFARMS

    X = pd.DataFrame(data.X, columns=data.feature_names)
    y = pd.Series(data.y, name="class")
    model = TREEFARMS({"regularization": lam, "rashomon_bound_multiplier": eps, "depth_budget": depth + 1,
                       "verbose": False, "time_limit": int(timeout)})
    with contextlib.redirect_stdout(io.StringIO()):  # its Python side prints every fit's summary
        model.fit(X, y)
    return model.get_tree_count(), "timeout" if model.timeout else "optimal"


SOLVERS = {"optbb": run_optbb, "treefarms": run_treefarms}
MARK = "RASHOMON-RESULT "  # a worker's result lines (TreeFARMS prints trees on the C-level standard output)


def worker(solver: str, case: str, repeats: int, timeout: float) -> None:
    sys.path.insert(0, str(ROOT))
    from optbb.datasets import load_osdt

    name, lam, eps, depth = parse_case(case)
    data = load_osdt(name)
    run = SOLVERS[solver]
    run(load_osdt("monk1"), 0.05, 0.05, 2, timeout)  # warm-up: imports, compiled kernels
    base = peak_rss()

    def row(out, seconds):
        count, status = out
        return {"solver": solver, "case": case, "seconds": seconds, "count": str(count), "status": status,
                "peak_rss": peak_rss(), "base_rss": base}

    workers.timed_runs(repeats, lambda: run(data, lam, eps, depth, timeout), row, mark=MARK)


def measure(solver: str, case: str, repeats: int, timeout: float) -> dict:
    def summary(rows):
        return {"count": rows[-1]["count"], "peak_rss": max(r["peak_rss"] for r in rows),
                "growth": max(r["peak_rss"] - r["base_rss"] for r in rows)}

    return workers.measure(__file__, solver, case, repeats, timeout, mark=MARK, hard_timeout=repeats * timeout + 120,
                           summary=summary)


def memory(r: dict) -> str:
    return f"{r['peak_rss'] / 2**20:.0f} ({r['growth'] / 2**20:.0f})" if "peak_rss" in r else r.get("status", "-")


def progress(r: dict) -> str:
    return (f"{r['case']:26s} {r['solver']:10s} {r.get('count', '-'):>16s} {r.get('median', float('nan')):9.3f} s "
            f"{r.get('peak_rss', 0) / 2**20:7.0f} MiB {r['status']}")


def table(results: list[dict], header: str) -> str:
    by = {(r["case"], r["solver"]): r for r in results}
    cases = list(dict.fromkeys(r["case"] for r in results))
    lines = [header, "", "Memory: the worker's peak resident MiB, and in brackets its growth during the timed "
             "constructions (over the size after the warm-up: imports, data, compiled kernels).", "",
             "| case | optbb count | TreeFARMS count | optbb s | TreeFARMS s | time ratio | optbb MiB (growth) "
             "| TreeFARMS MiB (growth) | peak ratio |", "|---|---|---|---|---|---|---|---|---|"]
    for case in cases:
        a, b = by.get((case, "optbb"), {}), by.get((case, "treefarms"), {})

        def cell(r, key, fmt):
            return fmt(r[key]) if key in r else r.get("status", "-")

        ratio = f"{a['median'] / b['median']:.3f}" if "median" in a and "median" in b else "-"
        mem = f"{a['peak_rss'] / b['peak_rss']:.3f}" if "peak_rss" in a and "peak_rss" in b else "-"
        lines.append(f"| {case} | {cell(a, 'count', str)} | {cell(b, 'count', str)} | "
                     f"{cell(a, 'median', lambda v: f'{v:.3f}')} | {cell(b, 'median', lambda v: f'{v:.3f}')} | "
                     f"{ratio} | {memory(a)} | {memory(b)} | {mem} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    args, cases = workers.command_line(__doc__, CASES, worker, solvers="optbb,treefarms", timeout=300.0,
                                       out=ROOT / "benchmarks" / "results" / "rashomon")
    if cases is None:
        return
    results = workers.measure_all(args, cases, measure, progress)
    header = (f"# Rashomon sets of trees: optbb against TreeFARMS\n\n{workers.provenance(__file__, ROOT)}, "
              f"{args.repeats} repeats (medians), time limit {args.timeout:g} s")
    text = table(results, header)
    rows = [[r["case"], r["solver"], r["status"], r.get("count", ""), r.get("median", ""),
             workers.seconds_cell(r["times"]), r.get("peak_rss", ""), r.get("growth", "")] for r in results]
    workers.write_results(args.out, text, ["case", "solver", "status", "count", "median_s", "times", "peak_rss",
                                           "growth"], rows)
    print(text)


if __name__ == "__main__":
    main()
