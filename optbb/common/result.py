"""``SearchResult`` and ``Status``: what every solver returns, with honest status reporting."""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .trace import COLUMNS, TraceRecorder


class Status(enum.Enum):
    """How a search ended.  Only ``OPTIMAL`` certifies the model."""

    OPTIMAL = "optimal"
    TIME_LIMIT = "time_limit"
    NODE_LIMIT = "node_limit"
    MEMORY_LIMIT = "memory_limit"
    INTERRUPTED = "interrupted"
    ITERATION_LIMIT = "iteration_limit"  # Monte-Carlo searches (FRL) that ran their n_iter: no certificate


# The counters every search reports, whatever its solver (``SearchResult.counters``; a solver adds its own beside them)
NODES = "nodes"                        # what ``node_limit`` counts
IMPROVEMENTS = "improvements"          # times the incumbent improved
TOTAL_TIME = "total_time"              # seconds of search, preparation included
TIME_TO_OPTIMUM = "time_to_optimum"    # seconds until the returned model was found
MEMORY_BYTES = "memory_bytes"          # peak accounted bytes of the search
KERNEL_LOAD_TIME = "kernel_load_time"  # seconds compiling or loading compiled kernels, before the clock
COMMON_COUNTERS = (NODES, IMPROVEMENTS, TOTAL_TIME, TIME_TO_OPTIMUM, MEMORY_BYTES, KERNEL_LOAD_TIME)


def common_counters(*, nodes: int, improvements: int, total_time: float, time_to_optimum: float,
                    memory_bytes: int, kernel_load_time: float) -> dict:
    """The :data:`COMMON_COUNTERS` of a search, as plain Python numbers."""
    return {NODES: int(nodes), IMPROVEMENTS: int(improvements), TOTAL_TIME: float(total_time),
            TIME_TO_OPTIMUM: float(time_to_optimum), MEMORY_BYTES: int(memory_bytes),
            KERNEL_LOAD_TIME: float(kernel_load_time)}


@dataclass
class SearchResult:
    """Outcome of a search.

    ``objective`` is the incumbent's objective, ``lower_bound`` a proven lower bound on the optimum (equal to the
    objective when ``status`` is OPTIMAL), ``gap = objective - lower_bound``.  ``counters`` holds numbers: the
    :data:`COMMON_COUNTERS` of every search (nodes, improvements, total time, time to optimum, peak memory, kernel
    loading time) and the solver's own (lower-bound evaluations, queue insertions, cache size, ...); ``trace`` has
    one row per progress sample: time, objective, lower bound, queue size (given as the search's
    :class:`~optbb.common.trace.TraceRecorder`, the frame is made when first read).  ``series`` holds a solver's
    per-iteration or per-sample series, name -> numpy array whose first axis is the iteration or sample (1-D, or
    2-D for a vector per iteration, e.g. FRL's ``candidates_per_level``); empty for solvers that keep none.
    """

    model: Any
    objective: float
    lower_bound: float
    status: Status
    counters: dict = field(default_factory=dict)
    trace: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["time", "objective", "lower_bound", "queue_size"]))
    series: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """``objective - lower_bound`` (0 when certified optimal, NaN when no bound is known)."""
        if self.lower_bound is None or math.isnan(self.lower_bound):
            return math.nan
        return max(0.0, self.objective - self.lower_bound)

    @property
    def optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    def summary(self) -> str:
        lb = "n/a" if self.lower_bound is None or math.isnan(self.lower_bound) else f"{self.lower_bound:.10f}"
        t = self.counters.get("total_time", float("nan"))
        return (f"status={self.status.name} objective={self.objective:.10f} lower_bound={lb} "
                f"gap={self.gap:.3g} time={t:.3f}s")

    def __repr__(self) -> str:
        return f"SearchResult({self.summary()})"


def _read_trace(self: SearchResult) -> pd.DataFrame:
    trace = self._trace
    if isinstance(trace, TraceRecorder):  # most fits never read their trace, and a DataFrame costs 0.3 ms
        trace = self._trace = trace.frame()
    return trace


def _write_trace(self: SearchResult, trace) -> None:
    self._trace = trace


# the field ``trace`` read through a property (set after the class: a property in its body would be the default)
SearchResult.trace = property(_read_trace, _write_trace, doc="The trace frame (see :class:`SearchResult`).")


def unsearched_result(model: Any, objective: float, lower_bound: float, status: Status, elapsed: float,
                      counters: dict) -> SearchResult:
    """The result when no search ran (a limit ended the mining first): ``model`` with its real objective, one trace
    row, the solver's ``counters`` and the common ones (no node, no memory, found at once)."""
    trace = pd.DataFrame([(float(elapsed), float(objective), float(lower_bound), 0, 0)], columns=COLUMNS)
    counters = {**counters, **common_counters(nodes=0, improvements=0, total_time=elapsed, time_to_optimum=0.0,
                                              memory_bytes=0, kernel_load_time=0.0)}
    return SearchResult(model, float(objective), float(lower_bound), status, counters, trace)
