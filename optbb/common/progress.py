"""Progress display for long searches (tqdm), off when not on a terminal or when ``verbose=0``."""
from __future__ import annotations

import math
import sys


class Progress:
    """Shows elapsed time, best objective, lower bound, gap, queue size and memory on one tqdm line."""

    def __init__(self, verbose: int, desc: str) -> None:
        self._bar = None
        if verbose and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(desc=desc, total=None, unit=" nodes", file=sys.stderr, leave=True)
            self._last_nodes = 0

    def update(self, nodes: int, objective: float, lower_bound: float, queue_size: int, memory: int) -> None:
        if self._bar is None:
            return
        gap = objective - lower_bound if not math.isnan(lower_bound) else math.nan
        self._bar.update(max(0, nodes - self._last_nodes))
        self._last_nodes = nodes
        self._bar.set_postfix_str(f"obj={objective:.6f} lb={lower_bound:.6f} gap={gap:.2e} "
                                  f"queue={queue_size} mem={memory / 2**20:.1f}MB", refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
