"""optbb's CORELS on random problems against an exhaustive search over every ordered prefix.

Usage::

    python benchmarks/corels_oracle_random.py [--seed 1] [--seconds 600] [--out FILE.md]
    python benchmarks/corels_oracle_random.py --seed 1 --only 1234      (rerun one problem)

Each problem: 5 to 80 samples (half the time with repeated rows, so equivalent points have mixed labels), 2 to 6
antecedent columns, two classes most of the time, else three, no weights, integer weights (0..4) or real weights
(0 to 10, some 0), labels either random or a noisy function of two antecedents (so that long lists pay), lambda in
{0, 0.0005, 0.001, 0.003, 0.005, 0.01, 0.02, 0.05}, and a random policy, symmetry-aware map and set of ablations.
Two classes without weights run the kernel compiled for the popcount fast path, the rest the kernel for ``k``
classes and weights.

The reference scores every ordered prefix of distinct antecedents directly (numpy, written here independently of
optbb and of ``tests/twins``).  A problem is BAD when optbb does not certify, its objective differs from the
reference's by more than 1e-9, or its reported objective is not the objective of the rule list it returns.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from itertools import permutations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from optbb.common.data import BinaryDataset  # noqa: E402
from optbb.corels import ABLATIONS, POLICIES, solve  # noqa: E402

LAMBDAS = (0.0, 0.0005, 0.001, 0.003, 0.005, 0.01, 0.02, 0.05)
MAPS = ("none", "prefix", "captured")


def problem(seed: int, index: int):
    """The ``index``-th problem of ``seed``: ``(A, y, k, w, lam, options)``."""
    rng = np.random.default_rng([seed, index])
    pick = random.Random(seed * 1_000_003 + index)
    n, m = int(rng.integers(5, 81)), int(rng.integers(2, 7))
    A = (rng.random((n, m)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    if rng.random() < 0.5:
        A[n // 2:] = A[: n - n // 2]
    k = 2 if rng.random() < 0.7 else 3
    if rng.random() < 0.4:
        y = (A[:, 0] ^ A[:, 1]) + (rng.random(n) < 0.15)
        y = (y % k).astype(np.uint8)
    else:
        y = rng.integers(0, k, n).astype(np.uint8)
    y[:k] = np.arange(k)  # every class present
    kind = pick.choice(("none", "none", "int", "real"))
    w = None
    if kind == "int":
        w = rng.integers(0, 5, n).astype(np.float64)
        w[:k] = 1.0
    elif kind == "real":
        w = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.0, 10.0, n))
        w[:k] = 1.0
    options = {"policy": pick.choice(sorted(POLICIES)), "map_type": pick.choice(MAPS),
               "ablation": tuple(a for a in ABLATIONS if pick.random() < 0.2)}
    return A, y, k, w, pick.choice(LAMBDAS), options


def list_objective(A, y, w, prefix, lam: float) -> float:
    """Misclassified weight over total weight, plus lambda per rule: each rule and the default predict the
    largest class (by weight) of the samples they capture."""
    open_ = np.ones(len(y), dtype=bool)
    errors = 0.0
    for a in list(prefix) + [None]:
        hit = open_ if a is None else open_ & (A[:, a] == 1)
        if hit.any():
            amounts = np.bincount(y[hit], weights=w[hit])
            errors += amounts.sum() - amounts.max()
        open_ = open_ & ~hit
    return errors / w.sum() + lam * len(prefix)


def exhaustive(A, y, w, lam: float) -> float:
    m = A.shape[1]
    return min(list_objective(A, y, w, p, lam) for r in range(m + 1) for p in permutations(range(m), r))


def check(seed: int, index: int) -> str | None:
    """None if optbb agrees with the exhaustive search, else a line describing the problem."""
    A, y, k, w, lam, options = problem(seed, index)
    ww = np.ones(len(y)) if w is None else w
    data = BinaryDataset(A, y, [f"a{j}" for j in range(A.shape[1])], w, tuple(f"c{j}" for j in range(k)))
    result = solve(data, lam, **options)
    expected = exhaustive(A, y, ww, lam)
    names = [r.antecedent for r in result.model.rules]
    own = list_objective(A, y, ww, names, lam)
    if result.status.name != "OPTIMAL" or abs(result.objective - expected) > 1e-9 or abs(own - result.objective) > 1e-9:
        weights = "none" if w is None else "given"
        return (f"--seed {seed} --only {index}: n={len(y)} m={A.shape[1]} k={k} weights={weights} lam={lam} "
                f"{options}: {result.status.name} {result.objective!r}, its list {own!r}, exhaustive {expected!r}")
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--only", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.only is not None:
        print(check(args.seed, args.only) or "ok")
        return
    start, index, bad = time.perf_counter(), 0, []
    while time.perf_counter() - start < args.seconds:
        line = check(args.seed, index)
        if line:
            bad.append(line)
            print("BAD", line, flush=True)
        index += 1
    text = "\n".join([f"# CORELS against an exhaustive search: {index} random problems, seed {args.seed}, "
                      f"{time.perf_counter() - start:.0f} s", "", f"BAD: {len(bad)}", ""] + [f"- {b}" for b in bad])
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
