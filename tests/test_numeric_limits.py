"""Optimal trees on raw numeric columns with many rows, under time and memory limits, and what a fitted estimator
keeps.

A time limit stops the search within 10 % + 0.5 s, during its depth-2 stage (one pass over every column per root
position: seconds on a million rows) and its blocks start as everywhere else, with status TIME_LIMIT, the best tree
found and a valid lower bound.  A memory limit stops it before its arrays are made, with the CART tree when that
fit fits beside what is held, also at depth 2.  The full-size cases of ``make_classification(10**6, 10)`` run with
``-m slow``.
"""
import sys
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from optbb.osdt import OSDTClassifier


def _problem(n: int, seed: int = 0):
    return make_classification(n, 10, n_informative=5, n_redundant=2, random_state=seed)


def _warm(depth: int) -> None:
    """Load the kernels (off the clock, but not off the wall clock this test reads)."""
    X, y = _problem(300)
    OSDTClassifier(regularization=0, max_depth=depth).fit(X, y)


def _timed_fit(X, y, **options):
    start = time.perf_counter()
    clf = OSDTClassifier(regularization=0, **options).fit(X, y)
    return clf, time.perf_counter() - start - clf.result_.counters["kernel_load_time"]


def _check_stopped_in_time(clf, X, y, elapsed, time_limit):
    res = clf.result_
    assert elapsed <= 1.1 * time_limit + 0.5, elapsed
    assert res.status.name == "TIME_LIMIT"
    assert 0.0 <= res.lower_bound <= res.objective <= np.bincount(y).min() / len(y)
    assert res.objective == pytest.approx(np.mean(clf.predict(X) != y), abs=1e-12)  # the tree returned costs that


@pytest.mark.parametrize("n, depth, time_limit, seed", [(300_000, 2, 1.5, 0), (250_000, 2, 1.0, 2),
                                                        (200_000, 3, 1.5, 1)])
def test_a_time_limit_stops_the_depth2_stage_and_the_blocks_in_time(n, depth, time_limit, seed):
    """Before, the depth-2 stage was one compiled call (0.7 s on 100,000 rows at the root, 2.2 s on 300,000) and
    the blocks start five of them before the clock was first read: depth 2 ended OPTIMAL past the limit, depth 3
    past it too."""
    _warm(depth)
    X, y = _problem(n, seed)
    clf, elapsed = _timed_fit(X, y, max_depth=depth, time_limit=time_limit)
    _check_stopped_in_time(clf, X, y, elapsed, time_limit)


def test_a_stage_stopped_between_positions_bounds_the_optimum_from_below():
    """Run a piece at a time (about one root position), the search at depth 2 keeps a tree at or above the optimum
    and a lower bound at or below it: ``2 lambda`` (any split) while columns remain, then the bounds of the last
    column's pending positions."""
    from optbb.common import driver
    from optbb.osdt.numeric.engine import CutEngine

    X, y = _problem(3000, 4)
    X, lam = X[:, :3], 0.002
    full = OSDTClassifier(regularization=lam, max_depth=2).fit(X, y).result_
    engine = CutEngine(X, y, None, 2, lam, 2, ["a", "b", "c"], [False] * 3)
    assert engine.start() is None
    engine.load_kernels()
    bounds = []
    while engine.step(3000) == driver.RUNNING:
        bounds.append(engine.lower_bound())
        assert bounds[-1] <= full.objective + 1e-12 <= engine.incumbent() + 1e-12
    assert len(bounds) > 5 and max(bounds) > 2 * lam + 1e-9  # the last column's positions lift it
    assert engine.incumbent() == pytest.approx(full.objective, abs=1e-12)


@pytest.mark.parametrize("n, depth, limit, seed", [(100_000, 2, "30M", 0), (60_000, 2, "20M", 1),
                                                   (50_000, 1, "12M", 3), (80_000, 3, "30M", 2)])
def test_a_memory_limit_below_the_search_returns_the_cart_tree(n, depth, limit, seed):
    """The search's arrays pass the limit, the CART fit does not: the CART tree (pruned), with status MEMORY_LIMIT
    and what the search held within the limit.  Before, depth 1 and 2 returned the root leaf."""
    X, y = _problem(n, seed)
    res = OSDTClassifier(regularization=0, max_depth=depth, memory_limit=limit).fit(X, y).result_
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X.astype(np.float32), y)
    assert res.status.name == "MEMORY_LIMIT"
    assert res.model.n_leaves > 1 and res.objective <= 1 - cart.score(X.astype(np.float32), y) + 1e-12
    assert res.lower_bound <= res.objective
    assert res.counters["memory_bytes"] <= int(limit[:-1]) << 20


class _ResidentPeak:
    """The growth of this process's resident memory while the block runs (sampled every millisecond), in bytes."""

    def __enter__(self):
        self.base = self.peak = self._now()
        self._run = True
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    @staticmethod
    def _now() -> int:
        import os
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _loop(self):
        while self._run:
            self.peak = max(self.peak, self._now())
            time.sleep(0.001)

    def __exit__(self, *exc):
        self._run = False
        self._thread.join()
        self.growth = max(self.peak, self._now()) - self.base


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.parametrize("n, depth, limit", [(400_000, 3, "60M"), (300_000, 2, "40M")])
def test_resident_memory_stays_within_a_memory_limit_the_search_passes(n, depth, limit):
    """The columns were copied and sorted (about 340 bytes a row on 10 columns) before the search's memory was
    checked; now the search's arrays are counted before any is made, the columns ranked only once they fit, and
    the CART fit only when it fits beside what is held."""
    _warm(depth)
    X, y = _problem(n)
    with _ResidentPeak() as peak:
        res = OSDTClassifier(regularization=0, max_depth=depth, memory_limit=limit).fit(X, y).result_
    assert res.status.name == "MEMORY_LIMIT"
    assert peak.growth <= int(limit[:-1]) << 20, peak.growth / 2 ** 20


# ------------------------------------------------------------------------------------------------------------------
# full size (make_classification(10**6, 10)): minutes

@pytest.mark.slow
@pytest.mark.parametrize("depth, time_limit, initial_tree", [(3, 30, "cart"), (3, 30, None), (2, 5, "cart")])
def test_a_million_rows_stop_at_the_time_limit(depth, time_limit, initial_tree):
    """Before: 102 s (72.7 s without the initial tree) for a limit of 30 s at depth 3; 12.3 s and OPTIMAL for 5 s
    at depth 2."""
    _warm(depth)
    X, y = _problem(10 ** 6)
    clf, elapsed = _timed_fit(X, y, max_depth=depth, time_limit=time_limit, initial_tree=initial_tree)
    _check_stopped_in_time(clf, X, y, elapsed, time_limit)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_a_million_rows_under_200M_return_the_cart_tree_within_the_limit():
    """Before: MEMORY_LIMIT after resident memory grew by 289 MB."""
    _warm(3)
    X, y = _problem(10 ** 6)
    with _ResidentPeak() as peak:
        res = OSDTClassifier(regularization=0, max_depth=3, memory_limit="200M").fit(X, y).result_
    assert res.status.name == "MEMORY_LIMIT" and res.model.n_leaves > 1
    assert peak.growth <= 200 << 20, peak.growth / 2 ** 20
