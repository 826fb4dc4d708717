"""Measure the C++ CORELS on the ten ProPublica folds and write benchmarks/results/corels_cxx_reference.csv.

    python benchmarks/corels_cxx_reference.py [--lambdas 0.005 0.01] [--timeout 1800] [--output PATH]

Runs one fold at a time (`-c 2 -p 1` with the .minor file, node cap 10**9) and records the binary's own total time,
the wall time, peak RSS and its search counters. The file starts with comment lines describing the machine and the
command; rows are one run each. Objectives are checked against ../shared/golden/corels_propublica.csv when present.
"""

import argparse
import csv
import datetime
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import anchors  # noqa: E402

COLUMNS = ["lambda", "fold", "status", "objective", "golden_objective", "rule_list_length", "total_time_s",
           "wall_time_s", "peak_rss_bytes", "num_nodes", "num_evaluated", "lower_bound_evaluations",
           "queue_insertions", "nodes_expanded", "load_1min_before"]


def cpu_model():
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def golden_objectives():
    path = anchors.SHARED_DIR / "golden" / "corels_propublica.csv"
    if not path.is_file():
        return {}
    with open(path, newline="") as handle:
        return {(float(row["lambda"]), int(row["fold"])): float(row["objective"])
                for row in csv.DictReader(handle) if row["file"].startswith("CrossValidation/")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lambdas", type=float, nargs="+", default=[0.005, 0.01])
    parser.add_argument("--folds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results"
                        / "corels_cxx_reference.csv")
    args = parser.parse_args()

    binary = anchors.corels_binary()
    if binary is None or anchors.corels_cv_fold(args.folds[0]) is None:
        print("C++ CORELS or ../shared/data is not available; nothing measured")
        return 1
    golden = golden_objectives()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", newline="") as handle:
        handle.write(
            f"# C++ CORELS (nlarusstone/corels b2f08c3, built by ../shared/anchors/corels-cxx/build.sh: NGMP=1, -O2)\n"
            f"# machine: nproc={os.cpu_count()}, CPU model '{cpu_model()}', {platform.system()} "
            f"{platform.release()}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"
            f"# command per row: corels -r LAMBDA -c 2 -p 1 -n 1000000000 compas_F_train.out "
            f"compas_F_train.label compas_F_train.minor (cwd a temp dir; default -f 1000 logging)\n"
            f"# data: ../shared/data/corels/CrossValidation; one run per row, folds run sequentially; the machine "
            f"is shared, load_1min_before is the 1-minute load average before each run\n"
            f"# total_time_s is the binary's 'final total time'; peak_rss_bytes from GNU time %M\n")
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        for lam in args.lambdas:
            for fold in args.folds:
                load = os.getloadavg()[0]
                result = anchors.run_corels(*anchors.corels_cv_fold(fold), regularization=lam, binary=binary,
                                            timeout=args.timeout)
                row = {key: result.get(key) for key in COLUMNS}
                row.update({"lambda": lam, "fold": fold, "golden_objective": golden.get((lam, fold)),
                            "total_time_s": result.get("total_time"), "wall_time_s": round(result["wall_time"], 3),
                            "load_1min_before": round(load, 2)})
                writer.writerow(row)
                handle.flush()
                print(", ".join(f"{key}={row[key]}" for key in COLUMNS), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
