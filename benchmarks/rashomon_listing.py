"""Listing and variable importance of Rashomon sets: models per second and seconds for the whole set.

    python benchmarks/rashomon_listing.py [--length 3] [--repeats 3]

Trees: OSDT's binarised COMPAS (``optbb.datasets.load_osdt("compas")``), lambda 0.005, epsilon 0.05, depth 4
(52,565 trees).  Rule lists: CORELS' COMPAS (``optbb.datasets.load_compas_corels()``, 155 antecedents), lambda
0.01, epsilon 0.05, at most ``--length`` rules (3: 31,148 lists; 4: 598,461, whose construction alone takes about
half a minute).  For each set: ``list(rset)``, ``rset[:]`` and ``to_frame`` of the first 10,000 models (models per
second), and ``variable_importance`` over the whole set (seconds); best of ``--repeats`` after one untimed call
that loads the compiled kernels.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's optbb

from optbb.datasets import load_compas_corels, load_osdt  # noqa: E402


def best(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def report(name: str, rs, data, repeats: int) -> None:
    n = rs.count
    head = min(n, 10_000)
    listed = best(lambda: list(rs), repeats)
    sliced = best(lambda: rs[:], repeats)
    framed = best(lambda: rs.to_frame(slice(0, head)), repeats)
    vi = best(lambda: rs.variable_importance(data.X, data.y), repeats)
    print(f"{name}: {n:,} models | list(rset) {n / listed:,.0f}/s ({listed:.2f} s) | rset[:] {n / sliced:,.0f}/s "
          f"| to_frame {head / framed:,.0f}/s | variable_importance (whole set) {vi:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from optbb.corels import rashomon_set as list_set
    from optbb.osdt import rashomon_set as tree_set

    data = load_osdt("compas")
    report("trees, COMPAS .005 / .05 / depth 4", tree_set(data, 0.005, epsilon=0.05, max_depth=4), data,
           args.repeats)
    rules = load_compas_corels()
    start = time.perf_counter()
    rs = list_set(rules, 0.01, epsilon=0.05, max_length=args.length)
    print(f"(rule-list set built in {time.perf_counter() - start:.1f} s)")
    report(f"rule lists, COMPAS .01 / .05 / <= {args.length} rules", rs, rules, args.repeats)


if __name__ == "__main__":
    main()
