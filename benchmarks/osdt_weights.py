"""The cost of sample weights in the dynamic-programming OSDT search: unweighted, integer and real weights.

    python benchmarks/osdt_weights.py [--repeats 3]

For COMPAS (lambda 0.005) and tic-tac-toe (0.025): the fit time without weights, with integer weights 1..3 (two
weight layers) and with real weights uniform in [0.5, 1.5) (52 layers); then monk1 (0.01) with one row of weight
10^7 against no weights.  Medians of ``--repeats`` fits after a warm-up fit (which also compiles the kernels).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's optbb

from optbb.common.data import from_arrays  # noqa: E402
from optbb.datasets import load_osdt  # noqa: E402
from optbb.osdt import solve  # noqa: E402


def timed(data, lam: float, repeats: int):
    solve(data, lam)
    times, res = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        res = solve(data, lam)
        times.append(time.perf_counter() - start)
    return statistics.median(times), res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, lam in (("compas", 0.005), ("tic-tac-toe", 0.025)):
        d = load_osdt(name)
        for label, w in (("none", None), ("integer 1..3", rng.integers(1, 4, d.n_samples).astype(float)),
                         ("real [0.5, 1.5)", rng.random(d.n_samples) + 0.5)):
            t, res = timed(from_arrays(d.X, d.y, d.feature_names, sample_weight=w), lam, args.repeats)
            print(f"{name:12s} {lam:<6} weights {label:16s} {t:7.3f} s  objective {res.objective:.9f} "
                  f"{res.status.name}")
    d = load_osdt("monk1")
    w = np.ones(d.n_samples)
    w[3] = 1e7
    for label, weights in (("none", None), ("one row 10^7", w)):
        t, res = timed(from_arrays(d.X, d.y, d.feature_names, sample_weight=weights), 0.01, args.repeats)
        print(f"{'monk1':12s} {0.01:<6} weights {label:16s} {t:7.3f} s  objective {res.objective:.9f} "
              f"{res.status.name}")


if __name__ == "__main__":
    main()
