"""benchmarks/gosdt_suite_data.py and gosdt_suite.py: the interval DP that gives the exact optimum on one-column
sets, the recovery of exact values from known_optima.csv's 6 decimals, the loader (skipped when the suite is not
there) and the checks of a result against what is known."""
import importlib.util
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from optbb.osdt import OSDTClassifier

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
spec = importlib.util.spec_from_file_location("gosdt_suite_data", BENCH / "gosdt_suite_data.py")
suite = importlib.util.module_from_spec(spec)
sys.modules["gosdt_suite_data"] = suite
spec.loader.exec_module(suite)


def brute_force(x, y, lam):
    """Every partition of the distinct values into runs: the minimum of errors / n + lam * runs."""
    values = np.unique(x)
    best = np.inf
    for mask in itertools.product((0, 1), repeat=len(values) - 1):
        cuts = [values[i] for i, c in enumerate(mask) if c]
        runs = np.searchsorted(cuts, x, side="left")  # run index of each row
        errors = 0
        for r in np.unique(runs):
            errors += int(np.sum(runs == r) - np.bincount(y[runs == r]).max())
        best = min(best, errors / len(y) + lam * (len(cuts) + 1))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_interval_dp_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 30)), int(rng.integers(2, 4))
    x = rng.integers(0, int(rng.integers(2, 10)), size=n).astype(float)
    y = rng.integers(0, k, size=n)
    lam = float(rng.choice([0.005, 0.01, 0.02, 0.05, 0.1]))
    value, errors, leaves = suite.interval_optimum(x, y, lam)
    assert value == pytest.approx(brute_force(x, y, lam), abs=1e-12)
    assert value == pytest.approx(errors / n + lam * leaves, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_interval_dp_equals_optbb_on_one_column(seed):
    rng = np.random.default_rng(100 + seed)
    x = rng.normal(size=60).round(1)
    y = (np.sin(3 * x) + rng.normal(scale=0.5, size=60) > 0).astype(int)
    clf = OSDTClassifier(regularization=0.02).fit(x[:, None], y)
    assert clf.result_.optimal
    assert suite.interval_optimum(x, y, 0.02)[0] == pytest.approx(clf.result_.objective, abs=1e-9)


def test_exact_value_recovers_the_fraction():
    assert suite.exact_value(0.464935, 77, 0.1) == pytest.approx(5 / 77 + 0.4, abs=1e-12)
    assert suite.exact_value(0.038333, 150, 0.005) == pytest.approx(0.038333333333, abs=1e-9)
    assert suite.exact_value(0.4649, 77, 0.1) is None  # no errors / 77 + 0.1 * leaves within 5e-7


@pytest.mark.skipif(not (suite.SUITE / "known_optima.csv").exists(), reason="the suite's data is not here")
def test_loader_reads_the_suite_as_defined():
    ttt = suite.load("tic-tac-toe")
    assert ttt.X.shape == (958, 27) and set(np.unique(ttt.X)) == {0.0, 1.0} and not ttt.numeric.any()
    compas = suite.load("compas_processed")
    assert compas.X.shape == (12381, 22) and not np.isnan(compas.X).any()
    iris = suite.load("iris")
    assert iris.numeric.all() and set(iris.y) == {0, 1, 2}
    assert len(suite.known_optima()) == 70
    with pytest.raises(ValueError, match="unknown data set"):
        suite.load("nope")


sys.path.insert(0, str(BENCH))  # gosdt_suite imports its sibling modules by name
bench_spec = importlib.util.spec_from_file_location("gosdt_suite", BENCH / "gosdt_suite.py")
bench = importlib.util.module_from_spec(bench_spec)
bench_spec.loader.exec_module(bench)


def test_checks_flag_what_contradicts_the_known_optimum():
    best = 11 / 124 + 0.05 * 5  # monk_1 at lambda .05: 0.338709677...
    ref = {"n": 124, "optimum": best, "published": 0.33871, "kind": "certified"}
    good = {"solver": "optbb", "status": "optimal", "objective": best, "lower_bound": best, "errors": 11, "leaves": 5}
    assert bench.checks(good, ref, 0.05) == []
    worse = dict(good, objective=best + 1 / 124, lower_bound=best + 1 / 124, errors=12)
    assert any("known optimum" in v for v in bench.checks(worse, ref, 0.05))
    assert any("best published" in v for v in bench.checks(worse, ref, 0.05))
    high_bound = dict(good, status="time_limit", lower_bound=ref["optimum"] + 1e-6)
    assert any("lower bound" in v for v in bench.checks(high_bound, ref, 0.05))
    wrong_tree = dict(good, errors=10)
    assert any("its tree's" in v for v in bench.checks(wrong_tree, ref, 0.05))
    float32_bound = dict(good, solver="gosdt", lower_bound=0.338709682)  # GOSDT's single-precision bound
    assert bench.checks(float32_bound, ref, 0.05) == []
    assert bench.checks(dict(float32_bound, solver="optbb"), ref, 0.05) != []
