"""The search driver: the one loop that runs every solver's compiled kernel in chunks.

A solver supplies an *engine* (:class:`Engine`): its arrays, a kernel step, a growth rule, a global lower bound and
its own counters.  :func:`run_search` owns everything else: limits, Ctrl-C, chunk sizes, progress, trace, status,
time to the optimum, and the :class:`SearchResult` with one counter schema for every solver: the
:data:`~optbb.common.result.COMMON_COUNTERS` (``nodes``, ``improvements``, ``total_time``, ``time_to_optimum``,
``memory_bytes``, ``kernel_load_time``), plus the engine's own counters.

Step codes an engine returns: :data:`RUNNING` (a full chunk done), :data:`PAUSED` (stopped early, e.g. right after
the incumbent improved: the chunk size is not adapted), :data:`DONE` (search exhausted: the status is the engine's
``exhausted_status``, OPTIMAL unless it says otherwise), :data:`NODE_LIMIT` (its node counter reached the limit),
:data:`NEED_MEMORY` (arrays full: the driver calls ``grow``, under the memory cap).  A search stopped by a time, node
or memory limit whose lower bound has reached its objective is certified all the same: its status is OPTIMAL.

The clock (time limit, ``total_time``) starts at ``started`` when the caller gives it (the ``time.perf_counter()``
of the call to its ``solve`` or ``fit``: preparation such as validation, packing, a CART warm start and ``start``
count), else after ``start``.  The loading of the kernels is never on it: ``step(0)`` (a chunk of no work, which
every engine must accept) and ``lower_bound()``, or the engine's own ``load_kernels()`` when it has one.  Calling
them compiles, or loads from Numba's cache, what the search runs: a fresh process spends seconds there, which no
time limit pays and no reported time shows (``kernel_load_time`` reports it, with the ``start_load_time`` an engine
whose ``start`` compiles kernels may set; with ``started`` both are taken out of the clock).  Other optional engine
members: ``first_work`` (work of the first chunk, default 16), ``exhausted_status``,
``improvement_nodes()`` (node counter when the incumbent last improved: the time to the optimum is then
interpolated inside the chunk), ``own_trace()`` (a trace frame of the engine's own, replacing the sampled one),
``finish_seconds`` (what ``finish`` takes after a time limit: the search stops that much before the limit).
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Protocol

from . import limits as _limits
from .growth import GrowthStopped
from .limits import Budget, Limits
from .progress import Progress
from .result import SearchResult, Status, common_counters
from .trace import TraceRecorder

RUNNING, DONE, NODE_LIMIT, NEED_MEMORY, PAUSED = range(5)

CHUNK_SECONDS = 0.05   # aimed duration of one chunk: limits and Ctrl-C are noticed within about this
MIN_CHUNK_SECONDS = 0.001
MAX_WORK = 1 << 24
FIRST_WORK = 16
_LIMITS = (Status.TIME_LIMIT, Status.NODE_LIMIT, Status.MEMORY_LIMIT)


class Engine(Protocol):
    """What a solver plugs into :func:`run_search` (see the module docstring for the optional members)."""

    name: str

    def start(self) -> Status | None:
        """Build arrays, root and incumbent; MEMORY_LIMIT if the search cannot start under the cap."""

    def step(self, work: int) -> int:
        """Run one kernel chunk of at most ``work`` units; returns a step code."""

    def grow(self, cap_bytes: int | None, must_stop: Callable[[], bool]) -> bool:
        """Enlarge the arrays; False when ``cap_bytes`` forbids it; may raise GrowthStopped."""

    def nodes(self) -> int: ...

    def memory_bytes(self) -> int: ...

    def incumbent(self) -> float: ...

    def improvements(self) -> int: ...

    def lower_bound(self) -> float: ...

    def queue_size(self) -> int: ...

    def finish(self, status: Status) -> tuple[Any, float, float, dict]:
        """``(model, objective, lower_bound, counters)``; ``lower_bound == objective`` when OPTIMAL."""


def next_work(work: int, seconds: float, remaining: float) -> int:
    """Work for the next chunk, scaled so that it takes about :data:`CHUNK_SECONDS` (less near the time limit:
    half the remaining time), growing at most fourfold from one chunk to the next."""
    target = min(CHUNK_SECONDS, max(MIN_CHUNK_SECONDS, remaining / 2))
    if seconds <= 0:
        return min(work * 4, MAX_WORK)
    return int(max(1, min(work * 4, MAX_WORK, work * target / seconds)))


def run_search(engine: Engine, limits: Limits, verbose: int = 0, interrupted: bool = False,
               started: float | None = None) -> SearchResult:
    """Run ``engine`` to its end or to a limit and return its :class:`SearchResult` (module docstring).
    ``interrupted``: a signal already arrived while the caller set the search up (the engine then runs one chunk and
    stops with status INTERRUPTED, and a further signal aborts).  ``started``: when the clock started (module
    docstring), default after ``engine.start()``."""
    trace = TraceRecorder()
    time_to_optimum = 0.0
    lower = math.nan
    progress = Progress(verbose, engine.name)
    work = int(getattr(engine, "first_work", FIRST_WORK))
    try:
        with _limits.InterruptGuard() as guard:  # looked up here, so tests can replace it
            guard.interrupted = interrupted
            # a Ctrl-C while the engine starts or its kernels compile ends the search after its first chunk
            status = engine.start()
            seen_improvements = engine.improvements()
            t_load = time.perf_counter()
            if status is None:
                _load_kernels(engine)
            # what ``start`` spent compiling its own kernels (``start_load_time``) is loading too
            loading = time.perf_counter() - t_load + getattr(engine, "start_load_time", 0.0)
            # the clock starts with the search, or at ``started`` (the kernels' loading taken out)
            budget = Budget(limits, started, off_clock=loading)
            reserve = float(getattr(engine, "finish_seconds", 0.0))  # what ``finish`` needs after a time limit
            peak = engine.memory_bytes()
            if status is None and limits.over_memory(peak):
                status = Status.MEMORY_LIMIT
            if status is None and budget.remaining_time() <= 0:  # the preparation took all the time
                status = Status.TIME_LIMIT
            if status is None:
                lower = trace.sample(budget.elapsed(), engine.incumbent(), engine.lower_bound, engine.queue_size(),
                                     engine.nodes())
            while status is None:
                t0, n0 = budget.elapsed(), engine.nodes()
                code = engine.step(work)
                t1 = budget.elapsed()
                if engine.improvements() != seen_improvements:
                    seen_improvements = engine.improvements()
                    time_to_optimum = _improvement_time(engine, n0, t0, t1)
                if code == DONE:
                    status = getattr(engine, "exhausted_status", Status.OPTIMAL)
                    break
                if code == NODE_LIMIT:
                    status = Status.NODE_LIMIT
                    break
                if code == NEED_MEMORY:
                    status = budget.stop_status(guard)  # a limit already reached ends the search ungrown
                    if status is None:
                        try:
                            if not engine.grow(limits.memory_limit, lambda: budget.must_stop(guard)):
                                status = Status.MEMORY_LIMIT
                        except GrowthStopped:
                            pass  # the time limit or Ctrl-C arrived during the growth: reported below
                        finally:  # a growth stopped half-way may still have replaced some arrays
                            peak = max(peak, engine.memory_bytes())
                elif code == RUNNING:
                    work = next_work(work, t1 - t0, budget.remaining_time())
                memory = engine.memory_bytes()
                peak = max(peak, memory)
                if status is None:
                    status = budget.stop_status(guard, memory, reserve)
                now = budget.elapsed()
                if trace.due(now):
                    lower = trace.sample(now, engine.incumbent(), engine.lower_bound, engine.queue_size(),
                                         engine.nodes())
                progress.update(engine.nodes(), engine.incumbent(), lower, engine.queue_size(), memory)
            # a signal in the last chunk ends no search but should end a caller's sequence of them
            engine.signalled = guard.interrupted
    finally:  # a second Ctrl-C (KeyboardInterrupt from the guard) aborts, as documented
        progress.close()
    model, objective, lower, counters = engine.finish(status)
    if status in _LIMITS and lower >= objective:  # the bound proves the model optimal though the search stopped
        status = Status.OPTIMAL
    total = budget.elapsed()
    own = getattr(engine, "own_trace", None)
    frame = own() if own is not None else None
    if frame is None:
        if trace.last_lower_bound() != lower:
            trace.record(total, objective, lower, engine.queue_size(), engine.nodes())
        frame = trace  # the result makes the frame when it is first read
    counters = {**counters, **common_counters(
        nodes=engine.nodes(), improvements=engine.improvements(), total_time=total, time_to_optimum=time_to_optimum,
        memory_bytes=max(peak, engine.memory_bytes()), kernel_load_time=loading)}
    return SearchResult(model, float(objective), float(lower), status, counters, frame)


def timed_call(kernel, *args) -> tuple[Any, float]:
    """``kernel(*args)`` and the seconds it spent compiling or loading a new specialisation of itself (0 when it
    had one for these types): what an engine's ``start`` adds to its ``start_load_time``, kept off the clock."""
    before, t0 = len(getattr(kernel, "signatures", ())), time.perf_counter()
    out = kernel(*args)
    return out, (time.perf_counter() - t0 if len(getattr(kernel, "signatures", ())) > before else 0.0)


def _load_kernels(engine: Engine) -> None:
    load = getattr(engine, "load_kernels", None)
    if load is not None:
        load()
    else:
        engine.step(0)
        engine.lower_bound()


def _improvement_time(engine: Engine, n0: int, t0: float, t1: float) -> float:
    """When the incumbent last improved during a chunk run from ``t0`` to ``t1``: interpolated by the engine's node
    counter if it says at which node that happened, else the end of the chunk."""
    at = getattr(engine, "improvement_nodes", None)
    n1 = engine.nodes()
    if at is None or n1 <= n0:
        return t1
    frac = (at() - n0) / (n1 - n0)
    return t0 + min(max(frac, 0.0), 1.0) * (t1 - t0)
