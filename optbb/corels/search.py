"""CORELS branch and bound: the engine that owns the trie, queue and map arrays and runs the Numba kernel in chunks
under the common search driver (:mod:`optbb.common.driver`), which enforces the limits, handles Ctrl-C, records
the trace and builds the ``SearchResult``."""
from __future__ import annotations

import math
import time
from typing import Callable, Iterable

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..common import driver
from ..common.bitset import pack_columns, popcount, weight_of
from ..common.bounds import majority_class
from ..common.data import BinaryDataset
from ..common.growth import Stop, grow, grow_parts, row_bytes
from ..common.limits import Budget, Limits
from ..common.mined_search import StartMemoryError, mine_then_search
from ..common.mining import MinedAntecedents, mine_antecedents, raw_points_bound
from ..common.queue import grow_heap, new_heap, policy_code
from ..common.result import SearchResult, Status, unsearched_result
from ..common.validation import NameList, check_number, check_params
from ..common.weights import drop_zero_weights
from . import kernel as K
from .maps import MAP_TYPES, SymmetryMap, key_len_bound
from .model import build_rule_list
from .trie import E_B0, LEAF, MAPSLOT, PARENT, RULE, STATE, Trie, new_amounts, new_trie

POLICIES = ("bfs", "curiosity", "lower_bound", "objective", "dfs")
ABLATIONS = ("support", "accurate_support", "lookahead", "equivalent_points", "prefix_length")
FIRST_CHUNK_WORDS = 1 << 20  # antecedent words scanned by the first chunk (16 nodes at most)
# growth of a short part: doubled, or under a memory cap the largest of the others whose copy fits; below x1.5 the
# search stops (MEMORY_LIMIT) instead of copying the whole map over and over for little room
GROWTH_FACTORS = (2.0, 1.75, 1.5)
# the search counters of a result and the kernel state slot of each (max_prefix_length: the deepest expanded + 1)
COUNTER_SLOTS = {"lower_bound_evaluations": K.S_LB_EVALS, "queue_insertions": K.S_INSERTIONS,
                 "max_queue_size": K.S_MAX_HEAP, "cache_size": K.S_MAX_LIVE, "nodes_evaluated": K.S_EVALUATED,
                 "queue_pops": K.S_POPS, "discarded_pops": K.S_DISCARDED, "max_prefix_length": K.S_MAX_DEPTH,
                 "map_size": K.S_MAP_COUNT, "improvements": K.S_N_IMPROVE}
OPTION_CONSTRAINTS: dict = {  # solve's options, checked here and by CorelsClassifier
    "policy": [StrOptions(set(POLICIES))],
    "map_type": [StrOptions(set(MAP_TYPES))],
    "ablation": [NameList(ABLATIONS)],
}


def effective_weights(data: BinaryDataset) -> BinaryDataset:
    """``data`` as the search reads it (:func:`~optbb.common.weights.drop_zero_weights`): samples of weight 0
    dropped, equal weights replaced by none."""
    w, X, y = drop_zero_weights(data.sample_weight, data.X, data.y)
    if w is data.sample_weight:  # nothing dropped, weights kept as given
        return data
    bits = data.bits if X is data.X else pack_columns(X)
    return BinaryDataset.from_bits(bits, y, data.feature_names, w, data.label_names, X)


class CorelsEngine:
    """One CORELS search as a driver engine (:mod:`optbb.common.driver`): the trie, queue and map arrays, their
    growth under the memory limit, the kernel chunk and the result.  A node is a prefix expanded
    (``nodes_evaluated``)."""

    name = "CORELS"

    def __init__(self, data: BinaryDataset, lam: float, policy: int, map_type: int, ablation: frozenset,
                 node_limit: int | None = None):
        self.data = data
        self.lam = lam
        self.node_limit = node_limit
        self.rules = np.ascontiguousarray(data.bits)
        self.m, self.w = self.rules.shape
        Y = np.ascontiguousarray(data.class_bits())
        equiv = "equivalent_points" not in ablation
        self.z = data.minority_bits() if equiv else np.zeros(self.w, dtype=np.uint64)
        # amounts are sample counts, or sums of weights: `weights` None selects the popcount kernels
        self.weights = None if data.sample_weight is None else np.ascontiguousarray(data.sample_weight,
                                                                                    dtype=np.float64)
        self.n = data.n_samples if self.weights is None else float(self.weights.sum())
        # a bitset per class, or None for two classes without weights (selects the kernel's popcount fast path)
        self.k_bits = None if self.weights is None and data.n_classes == 2 else Y
        rem = data.n_samples - (self.w - 1) * 64
        tail_mask = np.uint64((1 << rem) - 1) if rem < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
        self.kdata = K.Data(self.rules, Y[1], self.z, self.n, tail_mask)
        self.ip = np.array([policy, map_type, "support" not in ablation, "accurate_support" not in ablation,
                            "lookahead" not in ablation, equiv, "prefix_length" not in ablation], dtype=np.int64)
        self.map_type = map_type
        cap = max(1024, 8 * self.m)
        self.T = new_trie(cap)
        self.TE = new_amounts(cap, self.weights is not None)
        self.amounts = np.zeros((3, data.n_classes), dtype=np.int64 if self.weights is None else np.float64)
        self.free_list = np.zeros(cap, dtype=np.int32)
        self.heap = new_heap(cap)
        self.map = SymmetryMap(map_type)  # starts small: its size follows the entries inserted, not M^2
        self.best_prefix = np.zeros(self.m + 1, dtype=np.int64)
        self.st = np.zeros(K.N_STATE, dtype=np.int64)
        self.fp = np.zeros(K.N_FSTATE, dtype=np.float64)
        self.fp[K.F_LAM] = lam
        self.gc_pending = False  # the incumbent improved since the last garbage collection
        # a node's expansion scans every antecedent: with hundreds of thousands the first chunk is one node
        self.first_work = max(1, min(16, FIRST_CHUNK_WORDS // max(1, self.m * self.w)))

    # -- driver protocol ---------------------------------------------------------------------------------------
    def start(self) -> Status | None:
        # the default rule alone: the majority class (ties: the larger index), erring on the other classes
        # class amounts: sample counts (int64), or sums of the weights (float64, in sample order)
        _, root_err = majority_class(np.bincount(self.data.y, weights=self.weights, minlength=self.data.n_classes))
        self.fp[K.F_RC] = root_err / self.n
        # the root (empty prefix) queued alone with key 0; depth, errors, captured amount: 0 in the zeroed arrays
        self.T[0, [PARENT, RULE, MAPSLOT]] = -1
        self.T[0, STATE] = LEAF
        self.TE[0, E_B0] = popcount(self.z) if self.weights is None else weight_of(self.z, self.weights)
        self.st[[K.S_HWM, K.S_LIVE, K.S_MAX_LIVE, K.S_HEAP_SIZE, K.S_SEQ, K.S_MAX_HEAP]] = 1
        return None

    def step(self, work: int) -> int:
        """Expand up to ``work`` prefixes (fewer at the node limit); stops right after an improvement, and collects
        the garbage that improvement made at the start of the next step (JMLR §5.5)."""
        if self.gc_pending:
            self.collect_garbage()
        if self.node_limit is not None:
            work = min(work, self.node_limit - int(self.st[K.S_EVALUATED]))
        code = K.run_chunk(self.kdata, self.k_bits, self.weights, self.trie, self.heap, self.map.arrays(), self.st,
                           self.ip, self.fp, K.Out(self.amounts, self.best_prefix), work)
        if self.st[K.S_IMPROVED]:
            self.gc_pending = True
        if code == K.QUEUE_EMPTY:
            return driver.DONE
        if code == K.NEED_GROW:
            return driver.NEED_MEMORY
        if self.node_limit is not None and self.st[K.S_EVALUATED] >= self.node_limit:
            return driver.NODE_LIMIT
        return driver.RUNNING if code == K.BUDGET_DONE else driver.PAUSED

    @property
    def trie(self) -> Trie:
        return Trie(self.T, self.TE, self.free_list)

    def nodes(self) -> int:
        return int(self.st[K.S_EVALUATED])

    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for a in (self.T, self.TE, self.free_list, *self.heap, self.best_prefix))
                   + self.map.nbytes())

    def incumbent(self) -> float:
        return float(self.fp[K.F_RC])

    def improvements(self) -> int:
        return int(self.st[K.S_N_IMPROVE])

    def queue_size(self) -> int:
        return int(self.st[K.S_HEAP_SIZE])

    def lower_bound(self) -> float:
        return float(K.queue_lower_bound(self.kdata, self.trie, self.heap, self.st, self.ip, self.fp))

    def collect_garbage(self) -> None:
        K.collect_garbage(self.kdata, self.trie, self.heap, self.st, self.ip, self.fp)
        self.gc_pending = False

    def grow(self, cap_bytes: int | None, must_stop: Stop = None) -> bool:
        """Enlarge whatever lacks room for one more expansion geometrically: each short part (trie, queue, map
        parts) doubled, or else grown by the largest of :data:`GROWTH_FACTORS` whose copy fits under ``cap_bytes``,
        counting a part's old and new arrays together while it is copied (see
        :func:`~optbb.common.growth.grow_parts`).  False (nothing changed) when even the smallest factor does not
        fit: creeping up to the cap in small steps would copy the whole map for little room each time.  Raises
        :class:`GrowthStopped` once ``must_stop()`` is true (parts already enlarged stay so; each is replaced
        whole)."""
        return grow_parts(self.memory_bytes(), GROWTH_FACTORS, self._growth_steps, cap_bytes, must_stop)

    def _growth_steps(self, factor: float) -> list[tuple[int, int, Callable[[Stop], None]]]:
        """``(old bytes, new bytes, copy)`` for each part short of room for one more expansion, grown at least
        ``factor`` times (see :meth:`SymmetryMap.growth_steps`)."""
        m, st = self.m, self.st
        steps = []
        key_len = int(key_len_bound(self.map_type, st[K.S_MAX_DEPTH], self.w))
        if self.map.short(m, key_len):
            steps += self.map.growth_steps(m, key_len, factor)
        rows = self.T.shape[0]
        if st[K.S_FREE_COUNT] + rows - st[K.S_HWM] < m:
            new = max(math.ceil(factor * rows), int(st[K.S_HWM] - st[K.S_FREE_COUNT]) + m)
            unit = row_bytes(self.T) + row_bytes(self.TE) + row_bytes(self.free_list)
            steps.append((rows * unit, new * unit, lambda stop: self._grow_trie(new, stop)))
        cap = self.heap.key.shape[0]
        if cap - st[K.S_HEAP_SIZE] < m:
            new_cap = max(math.ceil(factor * cap), int(st[K.S_HEAP_SIZE]) + m)
            unit = sum(row_bytes(a) for a in self.heap)
            steps.append((cap * unit, new_cap * unit,
                          lambda stop: setattr(self, "heap", grow_heap(self.heap, new_cap, stop))))
        return steps

    def _grow_trie(self, rows: int, stop: Stop) -> None:
        self.T, self.TE, self.free_list = (grow(a, rows, stop) for a in (self.T, self.TE, self.free_list))

    def finish(self, status: Status):
        if self.gc_pending and status is not Status.TIME_LIMIT:
            self.collect_garbage()
        st = self.st
        data = self.data
        prefix = [int(a) for a in self.best_prefix[: st[K.S_BEST_LEN]]]
        model = build_rule_list(data.X, data.y, prefix, data.feature_names, data.label_names, self.lam,
                                data.sample_weight)
        objective = float(self.fp[K.F_RC])
        lower = objective if status is Status.OPTIMAL else min(objective, self.lower_bound())
        counters = {name: int(st[slot]) for name, slot in COUNTER_SLOTS.items()}
        counters["max_prefix_length"] = int(st[K.S_MAX_DEPTH]) + 1 if st[K.S_EVALUATED] else 0
        counters.update(n_antecedents=self.m, n_samples=data.n_samples)
        return model, objective, lower, counters


def solve(data: BinaryDataset, regularization: float = 0.01, *, policy: str = "lower_bound", map_type: str = "prefix",
          ablation: Iterable[str] = (), time_limit: float | None = None, node_limit: int | None = None,
          memory_limit: int | str | None = "auto", verbose: int = 0, started: float | None = None) -> SearchResult:
    """Certifiably optimal rule list over the antecedent columns of ``data`` (CORELS, Angelino et al. 2018).

    Minimises ``misclassification rate + regularization * (number of rules)``.  ``data.y`` may hold ``k >= 2``
    classes (``data.label_names`` names them): every rule and the default predict the class of largest captured
    amount, ties to the larger class index.  With ``data.sample_weight`` the rate is weighted: the weight of the
    misclassified samples over the total weight, every bound restated in weights (samples of weight 0 are dropped;
    integer weights give exactly the result of repeated rows).  ``policy`` orders the queue ("bfs",
    "curiosity", "lower_bound", "objective", "dfs"); ``map_type`` picks the symmetry-aware map ("none", "prefix" =
    permutation map of Cor. 16, "captured" = captured-vector map of Thm 15); ``ablation`` switches bounds off
    ("support" = Thm 10, "accurate_support" = Thm 11, "lookahead" = Lemma 2, "equivalent_points" = Thm 20,
    "prefix_length" = Thm 4).  ``node_limit`` caps the number of prefixes expanded; ``memory_limit`` (bytes or a
    string like "2G"; default "auto", half of the physical memory; None for no cap) caps the trie, queue and
    map.  The options after ``regularization`` are keyword-only; a ``data`` that is not a :class:`BinaryDataset` is a
    ``TypeError``.  The result's status says whether the model is certified.  The clock starts when ``solve`` is
    called (or at ``started``, a ``time.perf_counter()``): building the search's data counts toward ``time_limit``,
    compiling or loading the kernels does not.
    """
    started = time.perf_counter() if started is None else started
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam, ablation = _check_options(regularization, policy, map_type, ablation)
    data = effective_weights(data)
    limits = Limits(time_limit, node_limit, memory_limit)
    engine = CorelsEngine(data, lam, policy_code(policy, POLICIES), MAP_TYPES[map_type], ablation,
                          limits.node_limit)
    if limits.memory_limit is not None and engine.memory_bytes() > limits.memory_limit:
        raise StartMemoryError(f"memory_limit {limits.memory_limit} bytes is below the {engine.memory_bytes()} "
                               "bytes the search needs to start")
    return driver.run_search(engine, limits, verbose, started=started)


def _check_options(regularization, policy: str, map_type: str, ablation) -> tuple[float, frozenset]:
    lam = check_number("regularization", regularization, lo=0, caller="optbb.corels.solve")  # finite, >= 0
    check_params(OPTION_CONSTRAINTS, {"policy": policy, "map_type": map_type, "ablation": ablation},
                 "optbb.corels.solve")
    return lam, frozenset((ablation,) if isinstance(ablation, str) else ablation)


def mine_and_solve(data: BinaryDataset, regularization: float = 0.01, *, max_card: int = 2, min_support: float = 0.01,
                   negations: bool = True, policy: str = "lower_bound", map_type: str = "prefix",
                   ablation: Iterable[str] = (), time_limit: float | None = None, node_limit: int | None = None,
                   memory_limit: int | str | None = None, verbose: int = 0, started: float | None = None
                   ) -> tuple[MinedAntecedents, SearchResult]:
    """Mine the antecedents of the feature data ``data`` (:func:`~optbb.common.mining.mine_antecedents`), then
    :func:`solve` over them, both under one set of limits (:func:`~optbb.common.mined_search.mine_then_search`):
    mining time counts toward ``time_limit`` and ``total_time``, the mined arrays toward ``memory_limit``, and
    Ctrl-C stops either.

    When a limit ends the mining (or leaves nothing for the search), no search runs: the result is the empty rule
    list with that status and a lower bound valid for the complete antecedent set, the equivalent points bound over
    identical feature rows (:func:`~optbb.common.mining.raw_points_bound`).  When no antecedent passes the support
    filter (weighted support with sample weights), the empty rule list is optimal over the (empty) antecedent set:
    a ``UserWarning`` says so and the status is OPTIMAL.  Samples of weight 0 are dropped before mining.  A list
    found on a truncated antecedent set is never reported OPTIMAL.  ``started``: when the clock started (a
    ``time.perf_counter()``, default now; ``CorelsClassifier.fit`` passes its own, so validation counts).  The
    options after ``regularization`` are keyword-only, as :func:`solve`'s.
    """
    lam, ablation = _check_options(regularization, policy, map_type, ablation)
    data = effective_weights(data)

    def mine(budget: Budget) -> MinedAntecedents:
        return mine_antecedents(data, max_card, min_support, negations, budget=budget,
                                sample_weight=data.sample_weight, allow_empty=True)

    def search(mined: MinedAntecedents, rest: Limits) -> SearchResult:
        return solve(mined.data, lam, policy=policy, map_type=map_type, ablation=ablation,
                     time_limit=rest.time_limit, node_limit=rest.node_limit, memory_limit=rest.memory_limit,
                     verbose=verbose, started=time.perf_counter())

    def unsearched(mined: MinedAntecedents, status: Status, elapsed: float) -> SearchResult:
        """The empty rule list, bounded by the equivalent points over the raw features."""
        n = data.n_samples
        X = mined.data.X if mined.data is not None else np.zeros((n, 0), dtype=np.uint8)
        names = mined.data.feature_names if mined.data is not None else []
        model = build_rule_list(X, data.y, [], names, data.label_names, lam, data.sample_weight)
        lower = model.objective if status is Status.OPTIMAL else min(model.objective, raw_points_bound(data))
        counters = dict.fromkeys(COUNTER_SLOTS, 0)
        counters.update(n_antecedents=len(mined.antecedents), n_samples=n)
        return unsearched_result(model, model.objective, lower, status, elapsed, counters)

    empty = (f"no antecedent passes the support filter (min_support={min_support}, weighted support when sample "
             "weights are given); the rule list is the default rule alone")
    return mine_then_search(Limits(time_limit, node_limit, memory_limit), mine, search, unsearched, empty, started)
