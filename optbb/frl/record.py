"""What a Monte-Carlo FRL/softFRL search remembers of its iterations, in memory bounded however long it runs.

The first ``limit`` iterations are kept whole (objective, time, candidate count per level: the rows of
``search_trace_`` and ``candidates_``, and of the paper's pruning figures).  Every iteration, recorded or not,
still feeds what stays small: the improvements of the best objective (the search trace, time and iteration of the
best list) and per-level candidate totals (the mean counts).  Without the bound a time-limited run grew by about
20 MB a second on a small problem.
"""
from __future__ import annotations

import math

import numpy as np

RECORD_LIMIT = 100_000


class IterationRecord:
    """Accumulates the chunks of one search; :meth:`add` per chunk, :meth:`result` once at the end."""

    def __init__(self, limit: int = RECORD_LIMIT):
        self.limit = int(limit)
        self.n = 0
        self.best = math.inf
        self._L, self._t, self._cand = [], [], []
        self._imp_it, self._imp_t, self._imp_L = [], [], []
        self._tot = np.zeros(0, dtype=np.int64)
        self._cnt = np.zeros(0, dtype=np.int64)
        self.nbytes = 0  # bytes of the arrays kept (for the memory accounting)
        self.n_improvements = 0
        self.last_improvement = 0  # iteration (1-based) of the last improvement

    @property
    def n_recorded(self) -> int:
        return min(self.n, self.limit)

    def add(self, objective: np.ndarray, times: np.ndarray, candidates: np.ndarray) -> None:
        """One chunk: per-iteration objectives, end times and candidate counts ((m, levels), -1 = not reached)."""
        m = objective.shape[0]
        reached = (candidates >= 0).any(axis=0).nonzero()[0]
        cand = candidates[:, :int(reached.max()) + 1 if reached.size else 1]
        self._totals(cand)
        self._improvements(objective, times)
        keep = max(0, min(m, self.limit - self.n))
        if keep:
            for parts, a in ((self._L, objective), (self._t, times), (self._cand, cand)):
                parts.append(a[:keep].copy())
                self.nbytes += parts[-1].nbytes
        self.n += m

    def _totals(self, cand: np.ndarray) -> None:
        width = cand.shape[1]
        if width > self._tot.shape[0]:
            self._tot = np.concatenate([self._tot, np.zeros(width - self._tot.shape[0], np.int64)])
            self._cnt = np.concatenate([self._cnt, np.zeros(width - self._cnt.shape[0], np.int64)])
        valid = cand >= 0
        self._tot[:width] += np.where(valid, cand, 0).sum(axis=0)
        self._cnt[:width] += valid.sum(axis=0)

    def _improvements(self, objective: np.ndarray, times: np.ndarray) -> None:
        running = np.minimum(np.minimum.accumulate(objective), self.best)
        before = np.concatenate([[self.best], running[:-1]])
        improved = running < before
        if self.n == 0:
            improved[0] = True  # the first list is the first incumbent
        idx = improved.nonzero()[0]
        if idx.size:
            for parts, a in ((self._imp_it, self.n + 1 + idx), (self._imp_t, times[idx]), (self._imp_L, running[idx])):
                parts.append(a)
                self.nbytes += a.nbytes
            self.best = float(running[-1])
            self.n_improvements += int(idx.size)
            self.last_improvement = int(self.n + 1 + idx[-1])

    def result(self) -> dict:
        """``iter_objective``, ``iter_time``, ``candidates`` (the recorded rows), ``improvements`` (iteration,
        time, best objective of every improvement), ``mean_candidates_level0``, ``mean_candidates_all_levels``."""
        width = max([c.shape[1] for c in self._cand], default=1)
        cand = np.full((self.n_recorded, width), -1, dtype=np.int32)
        row = 0
        for c in self._cand:
            cand[row:row + c.shape[0], :c.shape[1]] = c
            row += c.shape[0]
        cat = lambda parts, dtype: np.concatenate(parts) if parts else np.empty(0, dtype)  # noqa: E731
        cnt0 = int(self._cnt[0]) if self._cnt.size else 0
        return {
            "iter_objective": cat(self._L, np.float64),
            "iter_time": cat(self._t, np.float64),
            "candidates": cand,
            "improvements": {"iteration": cat(self._imp_it, np.int64), "time": cat(self._imp_t, np.float64),
                             "objective": cat(self._imp_L, np.float64)},
            "mean_candidates_level0": self._tot[0] / cnt0 if cnt0 else math.nan,
            "mean_candidates_all_levels": self._tot.sum() / self._cnt.sum() if self._cnt.sum() else math.nan,
        }
