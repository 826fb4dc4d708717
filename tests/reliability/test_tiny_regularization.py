"""OSDT with a tiny lambda: time and memory follow the data, never ``1 / lambda``.

No tree needs more leaves than the data has distinct rows, so both OSDT searches size their arrays by that
(leaf-set search: the a priori leaf bound, split masks, expansion workspace; dynamic programming: nothing depends on
lambda).  Before, the leaf-set search sized a per-expansion workspace and every queue entry's split mask by
``upper_bound / lambda``: on 60 x 4 random data lambda 1e-8 took 31 s and 7.6 GB, 1e-9 tens of GB, lambda 1e-20
raised OverflowError, and ``memory_limit="50M"`` stopped at lambda 1e-6 before the search started.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from optbb.common.data import BinaryDataset
from optbb.common.result import Status
from optbb.osdt import OSDTClassifier, solve
from optbb.osdt.bounds import a_priori_leaf_bound

from .support import _cli, _code, _run_child, jit_only

MB = 1 << 20
TINY = [1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12]
SEARCHES = ["leaf_set", "dp", "auto"]

DATA_60x4 = """
    from optbb.common.data import BinaryDataset
    from optbb.osdt import solve
    rng = np.random.default_rng(0)
    X = (rng.random((60, 4)) < 0.5).astype(np.uint8)
    y = (rng.random(60) < 0.5).astype(np.uint8)
    data = BinaryDataset(X, y, ["f0", "f1", "f2", "f3"])
"""


def _data_60x4() -> BinaryDataset:
    rng = np.random.default_rng(0)
    X = (rng.random((60, 4)) < 0.5).astype(np.uint8)
    y = (rng.random(60) < 0.5).astype(np.uint8)
    return BinaryDataset(X, y, ["f0", "f1", "f2", "f3"])


def _random(n, m, seed) -> BinaryDataset:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.5).astype(np.uint8)
    y = (rng.random(n) < 0.5).astype(np.uint8)
    return BinaryDataset(X, y, [f"f{j}" for j in range(m)])


def test_leaf_bound_is_capped_by_the_distinct_rows():
    assert a_priori_leaf_bound(0.35, 0.1, 1000) == 4  # floor(3.5) + 1
    assert a_priori_leaf_bound(0.3, 1e-9, 16) == 16
    for lam in (1e-20, 1e-300, 5e-324):  # the quotient is 3e19 .. inf: no OverflowError
        assert a_priori_leaf_bound(0.3, lam, 16) == 16
    assert a_priori_leaf_bound(0.3, 0.5, 16) == 2  # never below 2 (the root's split)


@jit_only
@pytest.mark.parametrize("initial_tree", ["cart", None])
def test_tiny_lambda_time_and_memory_follow_the_data(initial_tree):
    """lambda 1e-6 ... 1e-12 on 60 x 4 data, both searches: certified optimal, accounted bytes under 16 MB, peak RSS
    growth (child process, peak reset before each solve) under 100 MB; a 1 GB cap so a regression stops early
    instead of filling the machine (the old leaf-set search needed 2 GB at 1e-7 before it started)."""
    r = _run_child(_code(DATA_60x4, f"""
        import gc
        for s in ("leaf_set", "dp"):  # compile every path outside the measure
            solve(data, 1e-3, search=s, initial_tree={initial_tree!r})
            solve(data, 1e-9, search=s, initial_tree={initial_tree!r}, memory_limit="1G", time_limit=60)
        rows = []
        for lam in {TINY!r}:
            for s in {SEARCHES!r}:
                gc.collect()
                reset_peak()
                base = rss_now()
                t0 = time.perf_counter()
                res = solve(data, lam, search=s, initial_tree={initial_tree!r}, memory_limit="1G", time_limit=60)
                rows.append(dict(lam=lam, search=s, status=res.status.name, objective=res.objective,
                                 lower_bound=res.lower_bound, leaves=res.model.n_leaves,
                                 wall=time.perf_counter() - t0, growth=peak_rss() - base,
                                 accounted=res.counters["memory_bytes"]))
        print("RESULT " + json.dumps(dict(rows=rows)), flush=True)
    """), timeout=900)
    rows = r["rows"]
    for row in rows:
        print(f"lambda {row['lam']:g} {row['search']:8s} {row['status']} {row['wall']:.3f} s, "
              f"RSS growth {row['growth'] / MB:.1f} MB, accounted {row['accounted'] / MB:.2f} MB")
        assert row["status"] == "OPTIMAL", row
        assert row["lower_bound"] == pytest.approx(row["objective"], abs=1e-12)
        assert row["accounted"] <= 16 * MB, row
        assert row["growth"] <= 100 * MB, row
    for lam in TINY:  # the two searches certify the same optimum
        objs = {row["search"]: row["objective"] for row in rows if row["lam"] == lam}
        assert objs["leaf_set"] == pytest.approx(objs["dp"], abs=1e-12) == objs["auto"]


@jit_only
@pytest.mark.slow
def test_tiny_lambda_is_fast():
    """The timed half of the test above: each solve well under 2 s (the old leaf-set search: 31 s at 1e-8)."""
    r = _run_child(_code(DATA_60x4, f"""
        for s in ("leaf_set", "dp"):
            solve(data, 1e-3, search=s)
            solve(data, 1e-9, search=s, initial_tree=None, memory_limit="1G", time_limit=60)
        walls = []
        for lam in {TINY!r}:
            for s in ("leaf_set", "dp"):
                for it in ("cart", None):
                    t0 = time.perf_counter()
                    solve(data, lam, search=s, initial_tree=it, memory_limit="1G", time_limit=60)
                    walls.append(time.perf_counter() - t0)
        print("RESULT " + json.dumps(dict(walls=walls)), flush=True)
    """))
    assert max(r["walls"]) < 2.0, r


@jit_only
def test_memory_limit_50m_at_lambda_1e_6():
    """A 50 MB cap at lambda 1e-6: the leaf-set search solves to optimality inside it (before, its workspace alone
    was over the cap, so it stopped at start with the CART tree), RSS growth within the cap."""
    r = _run_child(_code(DATA_60x4, """
        import gc
        solve(data, 1e-6, search="leaf_set", memory_limit="50M")
        gc.collect()
        reset_peak()
        base = rss_now()
        res = solve(data, 1e-6, search="leaf_set", memory_limit="50M")
        report(res, growth=peak_rss() - base, leaves=res.model.n_leaves)
    """))
    assert r["status"] == "OPTIMAL", r
    assert r["counters"]["memory_bytes"] <= 50e6
    assert r["growth"] <= 50e6 + 16 * MB, r
    assert r["leaves"] == 7


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("lam", [1e-20, 1e-300, 5e-324])
def test_extreme_lambda_no_overflow(search, lam):
    """A positive lambda below any float resolution of the error rate: a minimum-error tree, certified, no
    OverflowError (before: ``int`` of ``upper_bound / lambda`` overflowed int64, or ``floor(inf)``)."""
    data = _data_60x4()
    for initial_tree in ("cart", None):
        r = solve(data, lam, search=search, initial_tree=initial_tree, memory_limit="1G", time_limit=120)
        assert r.status is Status.OPTIMAL
        assert r.lower_bound == r.objective
        errors = sum(r.model.errors)
        assert r.objective == pytest.approx(errors / data.n_samples, abs=1e-12)
        assert errors == 17  # the minimum errors of any tree on this data (lambda 1e-6 gives 17 errors too)
        assert math.isfinite(r.gap) and r.model.n_leaves <= 16  # 16 distinct rows


def test_extreme_lambda_estimator():
    data = _data_60x4()
    clf = OSDTClassifier(regularization=1e-300).fit(data.X, data.y)
    assert clf.result_.status is Status.OPTIMAL
    assert clf.score(data.X, data.y) == pytest.approx(43 / 60)


@pytest.mark.parametrize("args", [["-r", "1e-9"], ["-r", "1e-9", "-c", "lower_bound"], ["-r", "1e-300"],
                                  ["-r", "1e-300", "-c", "lower_bound", "--initial-tree", "none"]])
def test_cli_tiny_lambda_solves(tmp_path, args):
    """``optbb osdt DATA -r 1e-9`` (dynamic programming, and the leaf-set search through ``-c``): exit 0, the
    certified model, no traceback."""
    data = _data_60x4()
    p = tmp_path / "d.csv"
    rows = ["f0;f1;f2;f3;y"] + [";".join(map(str, list(x) + [int(c)])) for x, c in zip(data.X, data.y)]
    p.write_text("\n".join(rows) + "\n")
    code, out, err = _cli(["osdt", str(p), *args, "--time-limit", "120"])
    assert code == 0, (out, err)
    assert "status=OPTIMAL" in out and "Traceback" not in err


@pytest.mark.parametrize("n,m,lam,seed", [(200, 6, 1e-3, 0), (80, 7, 2e-3, 3)])
def test_leaf_set_expansion_workspace_grows_for_large_trees(n, m, lam, seed):
    """The leaf-set search's expansion workspace starts for trees of fewer than 16 leaves and grows on demand: on
    these data the optimum has more than 16 leaves, and both searches agree on it."""
    data = _random(n, m, seed)
    a = solve(data, lam, search="leaf_set", memory_limit="1G", time_limit=300)
    b = solve(data, lam, search="dp", memory_limit="1G", time_limit=300)
    assert a.status is Status.OPTIMAL and b.status is Status.OPTIMAL
    assert a.objective == pytest.approx(b.objective, abs=1e-12)
    assert a.model.n_leaves > 16
