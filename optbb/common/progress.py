"""Progress display for long searches: a tqdm line on a terminal, plain log lines otherwise, nothing at
``verbose=0``."""
from __future__ import annotations

import math
import sys
import time

LOG_EVERY = 5.0  # seconds between plain log lines at verbose=1; verbose>=2 logs every second


class Progress:
    """Shows elapsed time, best objective, lower bound, gap, queue size and memory.

    On a terminal this is one tqdm line. When stderr is a file or a pipe (batch jobs, cluster logs) a line
    ``progress <name> t=... nodes=... obj=... lb=... gap=... queue=... mem=...`` is written after the first chunk
    of the search and then every ``LOG_EVERY`` seconds (every second at ``verbose >= 2``).
    """

    def __init__(self, verbose: int, desc: str) -> None:
        self._bar = None
        self._log = False
        self._desc = desc
        self._last_nodes = 0
        if not verbose:
            return
        if sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(desc=desc, total=None, unit=" nodes", file=sys.stderr, leave=True)
        else:
            self._log = True
            self._every = 1.0 if verbose >= 2 else LOG_EVERY
            self._t0 = time.perf_counter()
            self._next = self._t0

    def update(self, nodes: int, objective: float, lower_bound: float, queue_size: int, memory: int) -> None:
        if self._bar is None and not self._log:
            return
        gap = objective - lower_bound if not math.isnan(lower_bound) else math.nan
        state = (f"obj={objective:.6f} lb={lower_bound:.6f} gap={gap:.2e} "
                 f"queue={queue_size} mem={memory / 2**20:.1f}MB")
        if self._bar is not None:
            self._bar.update(max(0, nodes - self._last_nodes))
            self._last_nodes = nodes
            self._bar.set_postfix_str(state, refresh=False)
            return
        now = time.perf_counter()
        if now >= self._next:
            self._next = now + self._every
            print(f"progress {self._desc} t={now - self._t0:.1f}s nodes={nodes} {state}", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
