"""ConTree as an independent oracle of the numeric search: on random numeric problems (ties, 2-4 classes, depth
1-4), optbb's certified minimum errors over every threshold equal ConTree's wherever ConTree certifies, and are at
most ConTree's where it stops at its time limit (its tree is one of the trees optbb searched).

ConTree (pip ``pycontree``; Brita, van der Linden & Demirovic, AAAI 2025) is a benchmark-only dependency: these
tests skip without it.  ``-m slow`` adds 120 harder problems (50-500 rows, 3-8 columns, depth 3-4): at b58dcf3 all
certified by optbb with ConTree's errors (ConTree stopped at 30 s on 3 of them, with the same errors).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from optbb.common.result import Status
from optbb.osdt import OSDTClassifier

pycontree = pytest.importorskip("pycontree", reason="ConTree (pip pycontree) is a benchmark-only oracle")


def _problem(seed: int, hard: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Columns of 3, 8, 30 or 1,000 levels (ties from few levels), labels from two thresholds plus 5-50% noise."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 500) if hard else rng.integers(20, 300))
    m = int(rng.integers(3, 9) if hard else rng.integers(1, 7))
    k = int(rng.integers(2, 5))
    depth = int(rng.integers(3, 5) if hard else rng.integers(1, 5))
    levels = int(rng.choice([3, 8, 30, 1000]))
    X = rng.integers(0, levels, size=(n, m)).astype(float) / (7.0 if levels == 1000 else 1.0)
    y = ((X[:, 0] > np.median(X[:, 0])).astype(int) + (X[:, -1] > X[:, -1].mean()).astype(int)) % k
    flip = rng.random(n) < rng.choice([0.05, 0.2, 0.5])
    y[flip] = rng.integers(0, k, int(flip.sum()))
    return X, y, depth


def _check_against_contree(seed: int, hard: bool, time_limit: float) -> None:
    X, y, depth = _problem(seed, hard)
    if len(np.unique(y)) < 2:
        return
    ours = OSDTClassifier(max_depth=depth, regularization=0, time_limit=120).fit(X, y)
    assert ours.result_.status is Status.OPTIMAL, (seed, ours.result_.status)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs = pycontree.ConTree(max_depth=depth, time_limit=time_limit).fit(X, y)
    ours_errors, their_errors = int((ours.predict(X) != y).sum()), int((theirs.predict(X) != y).sum())
    if any("exceeds time limit" in str(w.message) for w in caught):  # its tree is a bound, not the optimum
        assert ours_errors <= their_errors, (seed, ours_errors, their_errors)
    else:
        assert ours_errors == their_errors, (seed, ours_errors, their_errors)


def test_minimum_errors_equal_contree_on_small_random_problems():
    for seed in range(40):
        _check_against_contree(seed, hard=False, time_limit=60)


@pytest.mark.slow
@pytest.mark.parametrize("block", range(6))
def test_minimum_errors_equal_contree_on_harder_random_problems(block):
    seeds = [*range(5000, 5060), *range(6000, 6060)]
    for seed in seeds[20 * block: 20 * (block + 1)]:
        _check_against_contree(seed, hard=True, time_limit=30)
