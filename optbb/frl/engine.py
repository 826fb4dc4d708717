"""The FRL/softFRL search as an engine of the common search driver (:mod:`optbb.common.driver`): chunks of
Monte-Carlo iterations run by :mod:`optbb.frl.kernel`, under the driver's limits, Ctrl-C and progress."""
from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from ..common import driver
from ..common.growth import arrays_bytes
from ..common.result import Status
from . import kernel as K
from .objective import rule_risk
from .packing import SearchData
from .record import RECORD_LIMIT, IterationRecord
from .rng import seed_state


class FrlEngine:
    """A Monte-Carlo FRL/softFRL search as an engine of the common driver (:mod:`optbb.common.driver`).

    A node is an iteration, i.e. one rule list grown and evaluated (``iterations``): ``node_limit`` caps them like
    ``n_iter``, but ends with status NODE_LIMIT, while running all ``n_iter`` iterations ends with
    ITERATION_LIMIT (no certificate: the lower bound is NaN).  Memory: the packed class-split bitsets, the count
    caches and the iteration record.
    """

    first_work = 1  # one iteration scans every antecedent: 0.15 s with 125,250 of them, so 16 overran a 1 s limit
    exhausted_status = Status.ITERATION_LIMIT

    def __init__(self, packed: SearchData, *, soft: bool, w: float, C: float, C1: float, n_iter: int, p_stop: float,
                 lam: float, paper_feasibility: bool, random_state, node_limit: int | None = None,
                 target: float | None = None, scan_block: int = K.BLOCK, record_limit: int = RECORD_LIMIT):
        self.name = "softFRL" if soft else "FRL"
        self.packed, self.soft = packed, soft
        self.w, self.C, self.C1, self.p_stop, self.lam = float(w), float(C), float(C1), float(p_stop), float(lam)
        self.paper, self.n_iter, self.node_limit = bool(paper_feasibility), int(n_iter), node_limit
        self.target, self.scan_block = target, int(scan_block)
        self.random_state = random_state
        self.record = IterationRecord(record_limit)
        self.done = 0

    def start(self) -> None:
        d = self.packed
        A = d.n_antecedents
        self.data, self.caches = d.data, d.caches
        self.wpos, self.wneg = d.wpos, d.wneg  # arguments of their own: Numba drops the weighted code for None
        self.ip = np.zeros(K.N_IPARAMS, dtype=np.int64)
        self.ip[K.P_USE_PAIRS], self.ip[K.P_PER_WORD] = d.use_pairs, d.per_word
        self.ip[K.P_PAPER], self.ip[K.P_BLOCK] = self.paper, self.scan_block
        self.fp = np.zeros(K.N_FPARAMS, dtype=np.float64)
        self.fp[K.F_N], self.fp[K.F_TINY], self.fp[K.F_W], self.fp[K.F_C] = float(d.mass), d.tiny, self.w, self.C
        self.fp[K.F_C1], self.fp[K.F_P_STOP], self.fp[K.F_LAM] = self.C1, self.p_stop, self.lam
        self.rng = seed_state(self.random_state)
        self.best = K.Best(np.array([np.inf]), np.zeros(max(A, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))
        self.st = np.zeros(K.N_STATE, dtype=np.int64)
        self.work = K.work_buffers(self.data, self.caches)
        self.cpu_start = time.process_time()
        self.t_origin = time.perf_counter()  # the driver's clock starts right after start() and load_kernels()
        self.search_time = 0.0

    def _chunk(self, m: int) -> K.Iterations:
        """Run ``m`` iterations: their objectives and candidate counts per level."""
        out = K.Iterations(np.empty(m, dtype=np.float64),
                           np.empty((m, self.packed.n_antecedents + 1), dtype=np.int32))
        chunk = K.soft_chunk if self.soft else K.frl_chunk
        chunk(self.data, self.wpos, self.wneg, self.caches, self.ip, self.fp, self.st, self.rng, self.best, self.work,
              out, m)
        return out

    def load_kernels(self) -> None:
        """A chunk of no iteration compiles (or loads) the chunk kernel, off the driver's clock and so off this
        engine's own origins of time (in place of the driver's ``step(0)``, which would record an empty chunk)."""
        t0, c0 = time.perf_counter(), time.process_time()
        self._chunk(0)
        self.t_origin += time.perf_counter() - t0
        self.cpu_start += time.process_time() - c0

    def step(self, work: int) -> int:
        """Run up to ``work`` iterations (fewer at ``n_iter`` or the node limit)."""
        m = min(work, self.n_iter - self.done)
        if self.node_limit is not None:
            m = min(m, self.node_limit - self.done)
        t0 = time.perf_counter()
        out = self._chunk(m)
        t1 = time.perf_counter()
        self.record.add(out.objective, (t0 - self.t_origin) + (t1 - t0) * np.arange(1, m + 1) / m, out.candidates)
        self.done += m
        self.search_time = t1 - self.t_origin
        if self.done >= self.n_iter or self.reached_target():
            return driver.DONE
        if self.node_limit is not None and self.done >= self.node_limit:
            return driver.NODE_LIMIT
        return driver.RUNNING

    def reached_target(self) -> bool:
        return self.target is not None and self.best.objective[0] <= self.target

    def grow(self, cap_bytes, must_stop) -> bool:
        return False  # the arrays never fill up: the record is bounded by its limit

    def nodes(self) -> int:
        return self.done

    def improvement_nodes(self) -> int:
        return self.record.last_improvement

    def improvements(self) -> int:
        return self.record.n_improvements

    def memory_bytes(self) -> int:
        return (self.packed.nbytes() + self.record.nbytes
                + arrays_bytes((self.rng, *self.best, self.st)))

    def default_objective(self) -> float:
        """Objective of the list without rules (the else clause alone): the incumbent before any iteration."""
        d = self.packed
        return float(rule_risk(d.n_pos, d.n_neg, self.w)) / d.mass

    def incumbent(self) -> float:
        return float(self.best.objective[0]) if self.done else self.default_objective()

    def lower_bound(self) -> float:
        return math.nan  # a Monte-Carlo search proves no bound

    def queue_size(self) -> int:
        return 0

    def own_trace(self) -> pd.DataFrame:
        """One row per improvement of the best list (interpolated times), not samples."""
        imp = self.improvements_record["improvements"]
        return pd.DataFrame({"time": imp["time"], "objective": imp["objective"], "lower_bound": np.nan,
                             "queue_size": 0, "nodes": imp["iteration"]})

    def finish(self, status: Status):
        """``(rules, objective, NaN, counters)``: the caller builds the model from the antecedent indices and takes
        the recorded iterations from ``self.series`` (objectives, times, candidates per level)."""
        out = self.improvements_record = self.record.result()
        st = self.st
        rules = [int(r) for r in self.best.rules[:self.best.size[0]]] if self.done else []
        objective = self.incumbent()
        imp = out["improvements"]
        recorded = out["iter_objective"].shape[0]
        counters = {
            "words_scanned": int(st[K.S_WORDS]), "bytes_scanned": int(st[K.S_WORDS]) * self.packed.Xpos.itemsize,
            "candidate_scans": int(st[K.S_SCANS]), "antecedent_tests": int(st[K.S_TESTS]),
            "early_exits": int(st[K.S_EARLY_EXIT]), "levels": int(st[K.S_LEVELS]),
            "iterations": self.done, "iterations_recorded": recorded,
            "cpu_time": time.process_time() - self.cpu_start,
            "time_per_iteration": self.search_time / max(self.done, 1),
            "iteration_of_best": int(imp["iteration"][-1]) if imp["iteration"].size else 0,
            "n_antecedents": int(self.packed.n_antecedents), "packing_time": self.packed.seconds,
            "mean_candidates_level0": float(out["mean_candidates_level0"]),
            "mean_candidates_all_levels": float(out["mean_candidates_all_levels"]),
            "reached_target": bool(self.reached_target()),
        }
        self.series = {"iteration_objectives": out["iter_objective"], "iteration_times": out["iter_time"],
                       "candidates_per_level": out["candidates"]}
        return rules, objective, math.nan, counters
