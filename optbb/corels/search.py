"""CORELS branch and bound driver: owns the trie, queue and map arrays, runs the Numba kernel in chunks, enforces
limits, handles Ctrl-C, records the trace and builds the ``SearchResult``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..common.bitset import n_words, popcount
from ..common.data import BinaryDataset
from ..common.growth import GrowthStopped, Stop, grow
from ..common.hashtable import new_table, rehash, table_bytes
from ..common.limits import Budget, InterruptGuard, Limits
from ..common.progress import Progress
from ..common.queue import policy_code
from ..common.result import SearchResult, Status
from ..common.trace import TraceRecorder
from ..common.validation import check_number
from . import kernel as K
from .maps import MAP_CAPTURED, MAP_NONE, MAP_PREFIX, MAP_TYPES
from .model import build_rule_list
from .trie import B0, DEPTH, ERR, LEAF, MAPSLOT, NCAP, PARENT, RULE, STATE, new_trie

POLICIES = ("bfs", "curiosity", "lower_bound", "objective", "dfs")
ABLATIONS = ("support", "accurate_support", "lookahead", "equivalent_points", "prefix_length")


def check_regularization(value) -> float:
    """Lambda of the CORELS objective: a finite number >= 0, or a ValueError naming the problem."""
    return check_number("regularization", value, lo=0)


def check_ablation(ablation: Iterable[str], allowed: tuple[str, ...]) -> frozenset[str]:
    if isinstance(ablation, str):
        ablation = (ablation,)
    names = frozenset(ablation)
    unknown = names - set(allowed)
    if unknown:
        raise ValueError(f"unknown ablation {sorted(unknown)}; choose from {list(allowed)}")
    return names


class _Search:
    """All arrays of one CORELS search, and their growth under the memory limit."""

    def __init__(self, data: BinaryDataset, lam: float, policy: int, map_type: int, ablation: frozenset,
                 budget: Budget):
        self.data = data
        self.lam = lam
        self.n = data.n_samples
        self.rules = np.ascontiguousarray(data.bits)
        self.m, self.w = self.rules.shape
        self.y1 = data.y_bits
        equiv = "equivalent_points" not in ablation
        self.z = data.minority_bits() if equiv else np.zeros(self.w, dtype=np.uint64)
        rem = self.n - (self.w - 1) * 64
        self.tail_mask = np.uint64((1 << rem) - 1) if rem < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
        self.cfg = np.array([policy, map_type, "support" not in ablation, "accurate_support" not in ablation,
                             "lookahead" not in ablation, equiv, "prefix_length" not in ablation], dtype=np.int64)
        self.lookahead = "lookahead" not in ablation
        self.budget = budget
        self.key_words = {MAP_NONE: 1, MAP_PREFIX: n_words(self.m), MAP_CAPTURED: self.w}[map_type]
        self.map_type = map_type
        cap = max(1024, 8 * self.m)
        self.T = new_trie(cap)
        self.free_list = np.zeros(cap, dtype=np.int32)
        self.hkey = np.zeros(cap, dtype=np.float64)
        self.hseq = np.zeros(cap, dtype=np.int64)
        self.hitem = np.zeros(cap, dtype=np.int64)
        self.table = new_table(2 * cap if map_type != MAP_NONE else 16, self.key_words)
        self.best_prefix = np.zeros(self.m + 1, dtype=np.int64)
        self.st = np.zeros(K.N_STATE, dtype=np.int64)
        self.fst = np.zeros(1, dtype=np.float64)
        self.peak_bytes = self.memory_bytes()
        self._init_root()

    def memory_bytes(self) -> int:
        return int(self.T.nbytes + self.free_list.nbytes + self.hkey.nbytes + self.hseq.nbytes + self.hitem.nbytes
                   + table_bytes(self.table) + self.best_prefix.nbytes)

    def _init_root(self) -> None:
        n1 = int(self.data.y.sum())
        root_err = min(n1, self.n - n1)  # default label 1 on ties
        self.fst[K.RC] = root_err / self.n
        self.st[K.BEST_ERR] = root_err
        T = self.T
        T[0, PARENT] = -1
        T[0, RULE] = -1
        T[0, DEPTH] = 0
        T[0, ERR] = 0
        T[0, B0] = popcount(self.z)
        T[0, NCAP] = 0
        T[0, STATE] = LEAF
        T[0, MAPSLOT] = -1
        self.st[K.HWM] = 1
        self.st[K.LIVE] = 1
        self.st[K.MAX_LIVE] = 1
        self.st[K.HEAP_SIZE] = 1
        self.st[K.SEQ] = 1
        self.st[K.MAX_HEAP] = 1
        self.hkey[0] = 0.0
        self.hitem[0] = 0

    def run(self, max_expansions: int, stop_on_improve: bool) -> int:
        return K.run_chunk(self.rules, self.y1, self.z, self.n, self.lam, self.tail_mask, self.cfg, self.T,
                           self.free_list, self.hkey, self.hseq, self.hitem, *self.table, self.st, self.fst,
                           self.best_prefix, max_expansions, stop_on_improve)

    def collect_garbage(self) -> None:
        K.collect_garbage(self.T, self.free_list, self.hkey, self.hseq, self.hitem, self.st, self.fst, self.n,
                          self.lam, self.lookahead)

    def lower_bound(self) -> float:
        return float(K.queue_lower_bound(self.T, self.hitem, self.st, self.fst, self.n, self.lam, self.lookahead))

    def grow(self, stop: Stop = None) -> bool:
        """Enlarge whatever lacks room for one more expansion; False when the memory limit forbids it.  Raises
        :class:`GrowthStopped` once ``stop()`` is true (arrays already enlarged stay so; each is replaced whole)."""
        m = self.m
        trie_short = self.st[K.FREE_COUNT] + self.T.shape[0] - self.st[K.HWM] < m
        heap_short = self.hkey.shape[0] - self.st[K.HEAP_SIZE] < m
        map_short = self.map_type != MAP_NONE and 2 * (self.st[K.MAP_COUNT] + m) > self.table[2].shape[0]
        node_bytes = self.T.shape[1] * 4 + 4
        heap_bytes = 24
        slot_bytes = self.key_words * 8 + 8 + 1 + 8 + 8
        extra = {}
        if trie_short:
            extra["trie"] = (self.T.shape[0], node_bytes)
        if heap_short:
            extra["heap"] = (self.hkey.shape[0], heap_bytes)
        if map_short:
            extra["map"] = (self.table[2].shape[0], slot_bytes)
        added = sum(cap * unit for cap, unit in extra.values())
        current = self.memory_bytes()
        limit = self.budget.limits.memory_limit
        if limit is not None and current + added > limit:
            if "map" in extra:
                return False  # the map can only double
            room = limit - current
            per_unit = sum(unit for _, unit in extra.values())
            units = room // per_unit
            if units < 2 * m:
                return False
            extra = {k: (units, unit) for k, (_, unit) in extra.items()}
        try:
            for name, (cap, _) in extra.items():
                if name == "trie":
                    new = self.T.shape[0] + cap
                    self.T, self.free_list = grow(self.T, new, stop), grow(self.free_list, new, stop)
                elif name == "heap":
                    new = self.hkey.shape[0] + cap
                    self.hkey, self.hseq, self.hitem = (grow(self.hkey, new, stop), grow(self.hseq, new, stop),
                                                        grow(self.hitem, new, stop))
                else:
                    self.table = rehash(self.table, 2 * self.table[2].shape[0], stop)
        finally:  # also when stopped after a part grew
            self.peak_bytes = max(self.peak_bytes, self.memory_bytes())
        return True


def solve(data: BinaryDataset, regularization: float = 0.01, policy: str = "lower_bound", map_type: str = "prefix",
          ablation: Iterable[str] = (), time_limit: float | None = None, node_limit: int | None = None,
          memory_limit: int | str | None = None, *, verbose: int = 0) -> SearchResult:
    """Certifiably optimal rule list over the antecedent columns of ``data`` (CORELS, Angelino et al. 2018).

    Minimises ``misclassification rate + regularization * (number of rules)``.  ``policy`` orders the queue ("bfs",
    "curiosity", "lower_bound", "objective", "dfs"); ``map_type`` picks the symmetry-aware map ("none", "prefix" =
    permutation map of Cor. 16, "captured" = captured-vector map of Thm 15); ``ablation`` switches bounds off
    ("support" = Thm 10, "accurate_support" = Thm 11, "lookahead" = Lemma 2, "equivalent_points" = Thm 20,
    "prefix_length" = Thm 4).  ``node_limit`` caps the number of prefixes expanded; ``memory_limit`` (bytes or a
    string like "2G") caps the trie, queue and map.  The result's status says whether the model is certified.
    """
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam = check_regularization(regularization)
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {list(POLICIES)}")
    if map_type not in MAP_TYPES:
        raise ValueError(f"unknown map_type {map_type!r}; choose one of {list(MAP_TYPES)}")
    ablation = check_ablation(ablation, ABLATIONS)
    if data.sample_weight is not None and not np.allclose(data.sample_weight, data.sample_weight[0]):
        raise ValueError("CORELS does not support non-uniform sample weights")
    limits = Limits(time_limit, node_limit, memory_limit)
    budget = Budget(limits)
    search = _Search(data, lam, policy_code(policy, POLICIES), MAP_TYPES[map_type], ablation, budget)
    if limits.memory_limit is not None and search.memory_bytes() > limits.memory_limit:
        raise ValueError(f"memory_limit {limits.memory_limit} bytes is below the {search.memory_bytes()} bytes the "
                         "search needs to start")
    return _drive(search, budget, verbose)


def _drive(search: _Search, budget: Budget, verbose: int) -> SearchResult:
    trace = TraceRecorder()
    progress = Progress(verbose, "CORELS")
    st = search.st
    time_to_opt = 0.0
    chunk = 16
    status = None
    gc_pending = False  # the incumbent improved since the last garbage collection
    lb = 0.0
    trace.record(0.0, search.fst[K.RC], lb, 1, 0)
    with InterruptGuard() as guard:
        while status is None:
            t0 = budget.elapsed()
            todo = min(chunk, budget.remaining_nodes(int(st[K.EVALUATED])))
            code = search.run(todo, True)
            dt = budget.elapsed() - t0
            if st[K.IMPROVED]:
                time_to_opt = budget.elapsed()
                gc_pending = True
            if gc_pending and code != K.QUEUE_EMPTY and budget.remaining_time() > 0:
                search.collect_garbage()
                gc_pending = False
            if code == K.QUEUE_EMPTY:
                status = Status.OPTIMAL
                break
            if code == K.NEED_GROW:
                status = _limit_status(budget, search, guard)  # a limit already reached ends the search ungrown
                try:
                    if status is None and not search.grow(lambda: budget.must_stop(guard)):
                        status = Status.MEMORY_LIMIT
                except GrowthStopped:
                    pass  # the time limit or Ctrl-C arrived during the growth: reported by the check below
            elif code == K.BUDGET_DONE:
                chunk = _next_chunk(chunk, dt, budget)
            if status is None:
                status = _limit_status(budget, search, guard)
            now = budget.elapsed()
            if trace.due(now):
                lb = trace.sample(now, search.fst[K.RC], search.lower_bound, int(st[K.HEAP_SIZE]),
                                  int(st[K.EVALUATED]))
            progress.update(int(st[K.EVALUATED]), search.fst[K.RC], lb, int(st[K.HEAP_SIZE]), search.memory_bytes())
    progress.close()
    return _result(search, status, budget, trace, time_to_opt)


def _next_chunk(chunk: int, dt: float, budget: Budget) -> int:
    target = min(0.2, max(0.005, budget.remaining_time() / 4))
    if dt <= 0:
        return chunk * 4
    return int(max(1, min(chunk * 4, chunk * target / dt)))


def _limit_status(budget: Budget, search: _Search, guard: InterruptGuard) -> Status | None:
    if guard.interrupted:
        return Status.INTERRUPTED
    return budget.exceeded(int(search.st[K.EVALUATED]), search.memory_bytes())


def _result(search: _Search, status: Status, budget: Budget, trace: TraceRecorder, time_to_opt: float):
    st = search.st
    data = search.data
    prefix = [int(a) for a in search.best_prefix[: st[K.BEST_LEN]]]
    model = build_rule_list(data.X, data.y, prefix, data.feature_names, data.label_names, search.lam)
    objective = float(search.fst[K.RC])
    lower = objective if status is Status.OPTIMAL else min(objective, search.lower_bound())
    total = budget.elapsed()
    if trace.last_lower_bound() != lower:
        trace.record(total, objective, lower, int(st[K.HEAP_SIZE]), int(st[K.EVALUATED]))
    counters = {
        "lower_bound_evaluations": int(st[K.LB_EVALS]),
        "queue_insertions": int(st[K.INSERTIONS]),
        "max_queue_size": int(st[K.MAX_HEAP]),
        "cache_size": int(st[K.MAX_LIVE]),
        "nodes_evaluated": int(st[K.EVALUATED]),
        "queue_pops": int(st[K.POPS]),
        "discarded_pops": int(st[K.DISCARDED]),
        "max_prefix_length": int(st[K.MAX_DEPTH]) + 1 if st[K.EVALUATED] else 0,
        "map_size": int(st[K.MAP_COUNT]),
        "improvements": int(st[K.N_IMPROVE]),
        "time_to_optimum": time_to_opt,
        "total_time": total,
        "memory_bytes": int(search.peak_bytes),
        "n_antecedents": search.m,
        "n_samples": search.n,
    }
    return SearchResult(model, objective, lower, status, counters, trace.frame())
