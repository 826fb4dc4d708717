"""The common search driver: one counter schema and the same limits for CORELS, OSDT and FRL."""
from __future__ import annotations

import json
import math
import numbers
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from optbb import corels, frl, osdt
from optbb.common import driver
from optbb.common.data import from_arrays, read_corels
from optbb.common.limits import MAX_NODES, Limits, auto_memory_limit, physical_memory
from optbb.common.result import COMMON_COUNTERS, Status

OWN = {"corels": "nodes_evaluated", "osdt": "trees_evaluated", "osdt-dp": "subproblems_expanded", "frl": "iterations",
       "softfrl": "iterations"}


def _data(n=300, m=8, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.45).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (rng.random(n) < 0.15)).astype(np.uint8)
    return from_arrays(X, y)


def _solve(solver, data, **limits):
    if solver == "corels":
        return corels.solve(data, 0.005, **limits)
    if solver == "osdt":
        return osdt.solve(data, 0.005, search="leaf_set", **limits)
    if solver == "osdt-dp":
        return osdt.solve(data, 0.005, search="dp", **limits)
    return frl.solve(data, soft=solver == "softfrl", n_iter=400, random_state=0, **limits)


SOLVERS = ("corels", "osdt", "osdt-dp", "frl", "softfrl")


@pytest.mark.parametrize("solver", SOLVERS)
def test_counter_schema(solver):
    r = _solve(solver, _data())
    c = r.counters
    for key in COMMON_COUNTERS + (OWN[solver],):
        assert key in c, key
    assert c["nodes"] == c[OWN[solver]] > 0
    assert all(isinstance(v, numbers.Number) for v in c.values()), "per-iteration series belong in result.series"
    assert 0 <= c["improvements"] <= c["nodes"]
    assert 0 <= c["time_to_optimum"] <= c["total_time"]
    assert c["memory_bytes"] > 0
    assert math.isfinite(r.objective)
    if solver in ("corels", "osdt", "osdt-dp"):
        assert r.status is Status.OPTIMAL and r.lower_bound == r.objective
    else:
        assert r.status is Status.ITERATION_LIMIT and math.isnan(r.lower_bound)
    assert list(r.trace.columns) == ["time", "objective", "lower_bound", "queue_size", "nodes"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_node_limit_is_exact(solver):
    data = _data(seed=1)
    full = _solve(solver, data)
    limit = max(1, full.counters["nodes"] // 3)
    r = _solve(solver, data, node_limit=limit)
    assert r.status is Status.NODE_LIMIT
    assert r.counters["nodes"] == limit
    assert math.isfinite(r.objective) and r.objective >= full.objective - 1e-12
    if solver in ("corels", "osdt", "osdt-dp"):
        assert r.lower_bound <= full.objective + 1e-12


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_is_honoured(solver):
    _solve(solver, _data(n=40, m=3))  # loads the compiled kernels outside the timed run
    rng = np.random.default_rng(3)
    X = (rng.random((400, 30)) < 0.5).astype(np.uint8)
    y = (rng.random(400) < 0.5).astype(np.uint8)  # noise: a long search
    data = from_arrays(X, y)
    if solver == "corels":  # noise is easy for CORELS (the default rule wins): a real data set
        base = Path(__file__).parent / "data" / "corels" / "compas_0_train"
        data = read_corels(f"{base}.out.gz", f"{base}.label.gz")
        r = corels.solve(data, 0.001, ablation=("equivalent_points",), time_limit=0.3)
    elif solver.startswith("osdt"):
        search = "dp" if solver == "osdt-dp" else "leaf_set"
        r = osdt.solve(data, 0.001, search=search, time_limit=0.3, initial_tree=None)
    else:
        r = frl.solve(data, soft=solver == "softfrl", n_iter=10 ** 8, random_state=0, time_limit=0.3)
    assert r.status is Status.TIME_LIMIT
    assert r.counters["total_time"] < 0.3 + 1.5  # generous: the machine may be loaded
    assert math.isfinite(r.objective)


@pytest.mark.parametrize("solver", ("osdt", "frl"))
def test_memory_limit_below_start_reports_a_finite_model(solver):
    data = _data(seed=2)
    r = _solve(solver, data, memory_limit=64)
    assert r.status is Status.MEMORY_LIMIT
    assert math.isfinite(r.objective) and r.model is not None
    if solver == "frl":  # no completed iteration: the default-only list and its real objective (issue 14 item 8)
        assert r.counters["iterations"] == 0 and len(r.model) == 0
        n_pos = int(data.y.sum())
        assert r.objective == pytest.approx(min(data.n_samples - n_pos, 7.0 * n_pos) / data.n_samples)
        assert r.model.objective == r.objective
    else:
        assert r.lower_bound <= r.objective


def test_corels_memory_limit_below_start_is_an_error():
    with pytest.raises(ValueError, match="memory_limit"):
        corels.solve(_data(), 0.01, memory_limit=64)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kw", [{"time_limit": "5"}, {"time_limit": True}, {"time_limit": -1},
                                {"node_limit": 1.5}, {"node_limit": "10"}, {"node_limit": True}, {"node_limit": 0},
                                {"memory_limit": True}, {"memory_limit": "lots"}, {"memory_limit": -5}])
def test_bad_limits_name_the_parameter(solver, kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        _solve(solver, _data(n=40, m=3), **kw)


def test_limits_parsing():
    assert Limits(node_limit=2 ** 70).node_limit == MAX_NODES  # clamped, never OverflowError
    assert Limits(node_limit=10.0).node_limit == 10
    assert Limits(memory_limit="2G").memory_limit == 2 << 30
    assert Limits(memory_limit=None).memory_limit is None
    auto = Limits(memory_limit="auto").memory_limit
    assert auto == auto_memory_limit() > 0
    total = physical_memory()
    if total is not None:
        assert auto == total // 2


def test_limits_left_after_a_phase():
    """What the next phase of a call gets: each limit less what the earlier phases spent, or the first used up."""
    lim = Limits(time_limit=2.0, node_limit=100, memory_limit=1000)
    assert lim.left(0.5, nodes_spent=40, memory_spent=300) == (Limits(1.5, 60, 700), None)
    assert lim.left(2.0, nodes_spent=100, memory_spent=1000) == (None, Status.TIME_LIMIT)
    assert lim.left(1.0, nodes_spent=100, memory_spent=1000) == (None, Status.NODE_LIMIT)
    assert lim.left(1.0, nodes_spent=99, memory_spent=1000) == (None, Status.MEMORY_LIMIT)
    assert Limits(memory_limit=None).left(1e9, 10 ** 9, 10 ** 12) == (Limits(memory_limit=None), None)


def test_osdt_huge_node_limit_is_clamped():
    r = osdt.solve(_data(n=60, m=4), 0.01, node_limit=2 ** 70)
    assert r.status is Status.OPTIMAL


def test_next_work_aims_at_the_chunk_duration():
    assert driver.next_work(100, driver.CHUNK_SECONDS, math.inf) == 100
    assert driver.next_work(100, 10 * driver.CHUNK_SECONDS, math.inf) == 10
    assert driver.next_work(100, 0.0, math.inf) == 400  # at most fourfold
    assert driver.next_work(100, driver.CHUNK_SECONDS, 0.01) < 100  # near the time limit
    assert driver.next_work(1, 100.0, math.inf) == 1


class _Toy:
    """A minimal engine: counts down ``total`` units of work, improving the incumbent at given nodes."""

    name = "toy"

    def __init__(self, total, improve_at=(), need_memory_at=None, grow_ok=True):
        self.total, self.done, self.improve_at = total, 0, set(improve_at)
        self.need_memory_at, self.grow_ok, self.obj, self.n_imp, self.grown = need_memory_at, grow_ok, 1.0, 0, 0

    def start(self):
        return None

    def step(self, work):
        if self.need_memory_at is not None and self.done >= self.need_memory_at and not self.grown:
            return driver.NEED_MEMORY
        for _ in range(min(work, self.total - self.done)):
            self.done += 1
            if self.done in self.improve_at:
                self.obj /= 2
                self.n_imp += 1
        return driver.DONE if self.done >= self.total else driver.RUNNING

    def grow(self, cap, must_stop):
        self.grown += 1
        return self.grow_ok

    def nodes(self):
        return self.done

    def memory_bytes(self):
        return 1000 * (1 + self.grown)

    def incumbent(self):
        return self.obj

    def improvements(self):
        return self.n_imp

    def lower_bound(self):
        return 0.0 if self.done < self.total else self.obj

    def queue_size(self):
        return self.total - self.done

    def finish(self, status):
        lb = self.obj if status is Status.OPTIMAL else 0.0
        return "model", self.obj, lb, {"units": self.done}


def test_driver_with_a_toy_engine():
    r = driver.run_search(_Toy(1000, improve_at=(5, 700)), Limits())
    assert r.status is Status.OPTIMAL and r.objective == 0.25 and r.lower_bound == 0.25
    assert r.counters["units"] == r.counters["nodes"] == 1000 and r.counters["memory_bytes"] == 1000
    r = driver.run_search(_Toy(1000, need_memory_at=100), Limits(memory_limit=10 ** 6))
    assert r.status is Status.OPTIMAL and r.counters["memory_bytes"] == 2000
    r = driver.run_search(_Toy(1000, need_memory_at=100, grow_ok=False), Limits(memory_limit=10 ** 6))
    assert r.status is Status.MEMORY_LIMIT and 100 <= r.counters["nodes"] < 1000
    r = driver.run_search(_Toy(1000, need_memory_at=100), Limits(memory_limit=1500))
    assert r.status is Status.MEMORY_LIMIT  # the growth went past the cap


class _SlowToLoad(_Toy):
    """A toy engine whose kernels take 0.3 s to load, as a fresh process compiling them does."""

    def load_kernels(self):
        time.sleep(0.3)


def test_loading_the_kernels_is_off_the_clock():
    r = driver.run_search(_SlowToLoad(1000), Limits(time_limit=0.2))
    assert r.status is Status.OPTIMAL  # the time limit was not spent loading
    assert r.counters["kernel_load_time"] >= 0.3 and r.counters["total_time"] < 0.2
    assert driver.run_search(_Toy(1000), Limits()).counters["kernel_load_time"] < 0.01  # none to load


class _SignalledWhileStarting(_Toy):
    """A toy engine that receives SIGINT while it starts (building its arrays, a CART warm start, packing)."""

    def start(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here
        return None


def test_a_signal_while_the_engine_starts_ends_the_search_with_its_model():
    try:
        r = driver.run_search(_SignalledWhileStarting(10 ** 9), Limits())
    except KeyboardInterrupt:
        pytest.fail("the signal left run_search as KeyboardInterrupt, with no model")
    assert r.status is Status.INTERRUPTED and r.model == "model"
    assert 0 < r.counters["nodes"] < 10 ** 9  # one chunk ran, no more


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_cold_numba_cache_costs_no_time_limit(tmp_path):
    """In a fresh process with an empty Numba cache, a 1 s time limit still ends the searches within the limit's
    tolerance (the dp search, which finishes, and the leaf-set search): compiling happens before the clock.  Slow
    (about 45 s of compiling on two cores); a clean clone's test run compiles every kernel cold too."""
    code = (
        "import json, numpy as np\n"
        "from optbb.common.data import from_arrays\n"
        "from optbb.osdt import solve\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.integers(0, 2, (200, 6)); y = (X[:, 0] ^ X[:, 1] ^ (rng.random(200) < 0.1)).astype(np.uint8)\n"
        "out = {}\n"
        "for search in ('dp', 'leaf_set'):\n"
        "    r = solve(from_arrays(X, y), 0.01, search=search, time_limit=1.0)\n"
        "    out[search] = [r.status.name, r.counters['total_time'], r.counters['kernel_load_time']]\n"
        "print(json.dumps(out))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for search, (status, total, loading) in out.items():
        assert total <= 1.5, (search, status, total)
        assert loading > 1.0, (search, loading)  # it did compile: the test measured a cold start
