"""Determinism across processes: cold and warm Numba caches, two processes compiling into one cache at once."""
from __future__ import annotations

import json

import numpy as np
import pytest

from optbb.common.data import from_arrays
from optbb.corels import solve as corels_solve

from .support import CORELS_LOAD, _code, _parse, _run_child, _start_child, jit_only


DETERMINISM_CHILDREN = {
    "corels": _code(CORELS_LOAD, """
        a = solve(data, 0.01)
        b = solve(data, 0.005, ablation=("equivalent_points",), node_limit=3000, memory_limit="1G")
        report(a, model=a.model.text(), stopped=[b.objective, b.lower_bound, stable_counters(b.counters),
                                                  b.model.text()])
    """),
    "osdt": """
        from optbb.datasets import load_osdt
        from optbb.osdt import solve
        data = load_osdt("compas")
        a = solve(data, 0.005)
        b = solve(data, 0.001, node_limit=20000, memory_limit="1G")
        report(a, model=str(a.model), stopped=[b.objective, b.lower_bound, stable_counters(b.counters),
                                              str(b.model)])
    """,
    "frl": """
        from optbb.frl import FRLClassifier, SoftFRLClassifier
        rng = np.random.default_rng(3)
        X = (rng.random((400, 12)) < 0.35).astype(np.uint8)
        y = (rng.random(400) < 0.3).astype(np.uint8)
        a = FRLClassifier(n_iter=400, random_state=11, min_class_support=0.05).fit(X, y)
        b = SoftFRLClassifier(n_iter=400, random_state=11, min_class_support=0.05).fit(X, y)
        report(a.result_, model=str(a.rule_list_),
               trace=digest(a.search_trace_[["iteration", "objective"]].to_numpy().tolist()),
               soft=[str(b.rule_list_), b.result_.objective, stable_counters(b.result_.counters),
                     digest(b.search_trace_[["iteration", "objective"]].to_numpy().tolist())])
    """,
}


def _without_times(r: dict) -> dict:
    return {k: v for k, v in r.items() if k not in ("total_time", "returned_at")}


def _same(a: dict, b: dict) -> bool:
    """Equal results, a NaN equal to a NaN (an uncertified search has no lower bound or gap: NaN, and
    ``nan != nan``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _cold_and_warm(solver, tmp_path) -> list[dict]:
    """Two processes at once on one fresh (cold) Numba cache directory, then one on the warm cache."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    procs = [_start_child(DETERMINISM_CHILDREN[solver], NUMBA_CACHE_DIR=cache) for _ in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-3000:]
        results.append(_parse(out))
    assert any(cache.rglob("*.nbi")), "the cold runs wrote no cache index"
    results.append(_run_child(DETERMINISM_CHILDREN[solver], timeout=900, NUMBA_CACHE_DIR=cache))
    results.append(_run_child(DETERMINISM_CHILDREN[solver], timeout=900))  # the default cache of the checkout
    return results


SMALL_CORELS_CHILD = """
    from optbb.common.data import from_arrays
    from optbb.corels import solve
    rng = np.random.default_rng(0)
    X = (rng.random((300, 12)) < 0.4).astype(np.uint8)
    y = (rng.random(300) < 0.4).astype(np.uint8)
    data = from_arrays(X, y)
    a = solve(data, 0.002)
    b = solve(data, 0.0005, ablation=("equivalent_points",), node_limit=2000)
    report(a, model=a.model.text(), stopped=[b.objective, b.lower_bound, stable_counters(b.counters),
                                              b.model.text()])
"""


@jit_only
@pytest.mark.slow
def test_numba_cache_two_cold_processes_at_once(tmp_path):
    """Two processes compiling CORELS at once into one empty cache directory both succeed, and agree with a run
    in this (warm) process, counters included (about 20 s alone, over a minute on a loaded machine)."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    procs = [_start_child(SMALL_CORELS_CHILD, NUMBA_CACHE_DIR=cache) for _ in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-3000:]
        results.append(_without_times(_parse(out)))
    assert any(cache.rglob("*.nbi")), "the cold runs wrote no cache index"
    assert results[0] == results[1]
    rng = np.random.default_rng(0)
    X = (rng.random((300, 12)) < 0.4).astype(np.uint8)
    y = (rng.random(300) < 0.4).astype(np.uint8)
    a = corels_solve(from_arrays(X, y), 0.002)
    b = corels_solve(from_arrays(X, y), 0.0005, ablation=("equivalent_points",), node_limit=2000)
    assert results[0]["status"] == a.status.name and results[0]["model"] == a.model.text()
    assert results[0]["objective"] == a.objective and results[0]["lower_bound"] == a.lower_bound
    assert results[0]["counters"] == {k: v for k, v in a.counters.items() if "time" not in k}
    assert results[0]["stopped"][:2] == [b.objective, b.lower_bound]
    assert results[0]["stopped"][2] == {k: v for k, v in b.counters.items() if "time" not in k}


@jit_only
@pytest.mark.slow
@pytest.mark.parametrize("solver", ["corels", "osdt", "frl"])
def test_deterministic_cold_and_warm_cache_concurrent(tmp_path, solver):
    """Two cold processes at once, a process on the cache they wrote, a process on the checkout's cache: the
    same models, objectives, bounds and counters."""
    results = [_without_times(r) for r in _cold_and_warm(solver, tmp_path)]
    if solver == "frl":
        # FRL keeps each chunk's candidate counts up to that chunk's deepest level, and chunk sizes follow the
        # clock: its bytes (not its search) differ between runs
        for r in results:
            r["counters"].pop("memory_bytes")
            r["soft"][2].pop("memory_bytes")
    for r in results[1:]:
        assert _same(r, results[0]), (r, results[0])
