"""Search traces: one row per progress sample (time, objective, lower bound, queue size, nodes)."""
from __future__ import annotations

import time as _time
from typing import Callable

import pandas as pd

COLUMNS = ["time", "objective", "lower_bound", "queue_size", "nodes"]


class TraceRecorder:
    """Collects samples while a search runs and hands them over as a DataFrame.

    A global lower bound costs a pass over the whole queue, so :meth:`due` spaces the samples at least
    ``interval`` seconds apart and far enough that computing them takes at most ``max_share`` of the search time
    (a queue of 13 million prefixes takes 0.2 s to scan: sampled after every chunk, that was a quarter of the run).
    """

    def __init__(self, interval: float = 0.05, max_share: float = 0.05) -> None:
        self._rows: list[tuple] = []
        self.interval = interval
        self.max_share = max_share
        self._last = -float("inf")
        self._cost = 0.0

    def record(self, time: float, objective: float, lower_bound: float, queue_size: int, nodes: int) -> None:
        self._rows.append((float(time), float(objective), float(lower_bound), int(queue_size), int(nodes)))

    def due(self, now: float) -> bool:
        """Whether a sample taken at ``now`` (seconds since the start) keeps to the spacing above."""
        return now - self._last >= max(self.interval, self._cost / self.max_share)

    def sample(self, now: float, objective: float, lower_bound: Callable[[], float], queue_size: int,
               nodes: int) -> float:
        """Record a sample whose lower bound is ``lower_bound()`` (timed, for :meth:`due`); returns the bound."""
        start = _time.perf_counter()
        lb = float(lower_bound())
        self._cost = _time.perf_counter() - start
        self._last = now
        self.record(now, objective, lb, queue_size, nodes)
        return lb

    def last_lower_bound(self) -> float | None:
        return self._rows[-1][2] if self._rows else None

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self._rows, columns=COLUMNS)
