"""Search traces: one row per progress sample (time, objective, lower bound, queue size, nodes)."""
from __future__ import annotations

import pandas as pd

COLUMNS = ["time", "objective", "lower_bound", "queue_size", "nodes"]


class TraceRecorder:
    """Collects samples while a search runs and hands them over as a DataFrame."""

    def __init__(self) -> None:
        self._rows: list[tuple] = []

    def record(self, time: float, objective: float, lower_bound: float, queue_size: int, nodes: int) -> None:
        self._rows.append((float(time), float(objective), float(lower_bound), int(queue_size), int(nodes)))

    def last_lower_bound(self) -> float | None:
        return self._rows[-1][2] if self._rows else None

    def __len__(self) -> int:
        return len(self._rows)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self._rows, columns=COLUMNS)
