"""The rule-list Rashomon search as an engine of the search driver: the data as the kernels read it
(:class:`Problem`) and one search of :mod:`optbb.corels.rashomon.kernel`, the optimum's or the enumeration's
(:class:`Search`)."""
from __future__ import annotations

import math

import numpy as np

from ...common import driver
from ...common.data import BinaryDataset
from ...common.growth import grow, grow_parts, row_bytes
from ...common.queue import grow_heap, heap_push, new_heap
from ...common.rashomon import BOUND_TOLERANCE
from ...common.result import Status
from ..maps import MAP_NONE, MAP_PREFIX, SymmetryMap
from ..model import RuleList, build_rule_list
from . import kernel as K
from . import ties

GROWTH_FACTORS = (2.0, 1.5)  # growth of a short store part: doubled, or by half under a memory cap


class Problem:
    """The data as the kernels read it: antecedent and class bitsets, the equivalent-points minority, the total
    amount, the weights (None without), and the slack of the equivalent-points bound (objective units)."""

    def __init__(self, data: BinaryDataset, lam: float):
        self.data = data
        self.lam = lam
        self.weights = None if data.sample_weight is None else np.ascontiguousarray(data.sample_weight,
                                                                                    dtype=np.float64)
        # the totals build_rule_list divides by: the sample count, or the total weight summed by numpy
        self.n = float(data.n_samples) if self.weights is None else float(self.weights.sum())
        z = np.ascontiguousarray(data.minority_bits()) if data.n_features else np.zeros(
            data.bits.shape[1], dtype=np.uint64)
        self.kdata = K.Data(np.ascontiguousarray(data.bits), np.ascontiguousarray(data.class_bits()), z, self.n)
        self.m = data.n_features
        self.n_words = self.kdata.Y.shape[1]
        self.n_classes = data.n_classes
        # float sums of weights in two orders differ by at most about n units in the last place of the total
        self.slack = 0.0 if self.weights is None else 2.0 ** -50 * (data.n_samples + 2)

    def max_rules(self, L: int, limit: float) -> int:
        """Most rules of a list whose objective can be at most ``limit``: ``L``, fewer when ``lam * k`` passes it
        (an objective is at least ``lam * k``, in floats too)."""
        if self.lam > 0:
            L = min(L, int(limit / self.lam) + 1)
            while L > 0 and self.lam * L > limit + self.slack:
                L -= 1
        return L

    def support(self, for_optimum: bool, optimum: float | None, limit: float) -> float:
        """The least amount a rule of a list within ``limit`` classifies correctly (accurate support, see
        :mod:`~optbb.corels.rashomon.kernel`): ``lam n`` for the optimum's search, else ``(optimum + lam - limit)
        n``, less the rounding; -inf when the bound gives nothing (no optimum known, or ``limit`` at least ``lam``
        above it)."""
        if for_optimum:
            gap = self.lam
        elif optimum is None or math.isnan(optimum):
            return -math.inf
        else:
            gap = optimum + self.lam - limit
        if gap <= 0:
            return -math.inf
        return gap * self.n - (self.slack + 1e-12) * self.n - 1e-9

    def build(self, prefix) -> RuleList:
        d = self.data
        return build_rule_list(d.X, d.y, list(prefix), d.feature_names, d.label_names, self.lam, d.sample_weight)


class Search:
    """One search of the kernel (:data:`~optbb.corels.rashomon.kernel.OPTIMUM` or ``ENUMERATE``) as an engine of
    the search driver (:mod:`optbb.common.driver`): limits, Ctrl-C, progress and kernel loading off the clock come
    from there.  A node of ``node_limit`` is a prefix evaluated; ``memory_limit`` caps the nodes, the queue, the
    entries and the pairs."""

    name = "CORELS Rashomon"

    def __init__(self, problem: Problem, L: int, mode: int, limit: float, node_limit: int | None,
                 optimum: float | None = None):
        self.p = problem
        self.mode = mode
        self.limit = limit
        self.node_limit = node_limit
        self.L = problem.max_rules(L, limit)
        m = problem.m
        self.first_work = max(1, m)
        enum = mode == K.ENUMERATE
        self.store = K.new_store(max(256, 2 * m), max(1024, 4 * m) if enum else 1)
        self.heap = new_heap(max(256, 2 * m))
        self.pairs = K.new_pairs(max(256, 2 * m) if enum else 1, m)
        self.best_prefix = np.zeros(self.L + 1, dtype=np.int64)
        self.st = np.zeros(K.N_STATE, dtype=np.int64)
        self.fp = np.zeros(K.N_FSTATE, dtype=np.float64)
        self.fp[[K.F_LAM, K.F_LIMIT, K.F_SLACK, K.F_BEST]] = problem.lam, limit, problem.slack, limit
        self.fp[K.F_SUPPORT] = problem.support(mode == K.OPTIMUM, optimum, limit)
        # the permutation map: for the optimum's search (orderings strictly worse than a known one), and for an
        # enumeration within a bound above a known optimum (orderings worse by more than the bound's slack)
        if mode == K.OPTIMUM:
            gap = problem.slack * problem.n
        elif optimum is not None and not math.isnan(optimum):
            gap = (limit - optimum + problem.slack) * problem.n
        else:
            gap = -1.0
        self.fp[K.F_GAP] = gap
        self.map = SymmetryMap(MAP_PREFIX if gap >= 0 else MAP_NONE)
        self.ip = np.array([mode, self.L], dtype=np.int64)
        self.root = (0.0, 0)  # the default-only list: errors, class
        self.done = False
        self.start_load_time = 0.0
        self.skip_unfold = False  # set when the written-out tree would pass the memory limit (the set is partial)
        self._sizes = None

    # -- driver protocol ---------------------------------------------------------------------------------------
    def start(self) -> Status | None:
        p, st = self.p, self.st
        derr, dpred, lower = self._timed(K.root, p.kdata, p.weights, self.fp)
        self.root = (float(derr), int(dpred))
        objective = self.root[0] / p.n
        st[K.S_NODES] = 1
        self.store.parent[0] = -1
        self.store.rule[0] = -1
        self.store.alias[0] = -1
        if self.mode == K.OPTIMUM:
            self.fp[K.F_BEST] = min(objective, self.limit)
            go = lower - p.slack < self.fp[K.F_BEST]
        else:
            if objective <= self.limit:  # the empty list is a member: its entry (node -1) comes first
                pid = self._timed(K.pair_id, self.pairs, self.root[0], 0, st)
                self.pairs.count[pid] = 1
                self.store.ent_node[0], self.store.ent_pair[0], self.store.ent_count[0] = -1, pid, 1
                st[K.S_ENTRIES] = 1
            go = lower - p.slack <= self.limit
            self._timed(_load_unfold, self.store, self.pairs)
        if self.L >= 1 and go:
            st[K.S_HEAP] = self._timed(heap_push, self.heap, 0, lower, 0, 0)
        return None

    def _timed(self, kernel, *args):
        """``kernel(*args)``, the seconds it spends compiling or loading added to ``start_load_time``."""
        out, seconds = driver.timed_call(kernel, *args)
        self.start_load_time += seconds
        return out

    def step(self, work: int) -> int:
        hard = (self.node_limit - int(self.st[K.S_EVALS])) if self.node_limit is not None else 1 << 62
        p = self.p
        code = K.run_chunk(p.kdata, p.weights, self.store, self.heap, self.pairs, self.map.arrays(), self.st,
                           self.fp, self.ip, self.best_prefix, work, hard)
        if code == K.DONE:
            self.done = True
            return driver.DONE
        if code == K.NEED_GROW:
            return driver.NEED_MEMORY
        if code == K.NODE_STOP:
            return driver.NODE_LIMIT
        return driver.RUNNING

    def nodes(self) -> int:
        return int(self.st[K.S_EVALS])

    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for part in (self.store, self.heap, self.pairs) for a in part)
                   + self.best_prefix.nbytes + self.map.nbytes())

    def incumbent(self) -> float:
        return float(self.fp[K.F_BEST]) if self.mode == K.OPTIMUM else self.limit

    def improvements(self) -> int:
        return int(self.st[K.S_IMPROVE])

    def queue_size(self) -> int:
        return int(self.st[K.S_HEAP])

    def pending(self) -> float:
        """Least objective a list not yet evaluated can have (inf when none is left)."""
        return float(self.heap.key[0]) - self.p.slack if self.st[K.S_HEAP] else math.inf

    def lower_bound(self) -> float:
        return min(self.incumbent(), self.pending())

    def grow(self, cap_bytes: int | None, must_stop=None) -> bool:
        """Enlarge the parts short of room for one more expansion (nodes, queue, entries, pairs) by the first of
        :data:`GROWTH_FACTORS` whose copies fit under ``cap_bytes``; False when none does.  Raises
        :class:`~optbb.common.growth.GrowthStopped` once ``must_stop()`` is true (parts already grown stay so)."""
        return grow_parts(self.memory_bytes(), GROWTH_FACTORS, self._growth_steps, cap_bytes, must_stop)

    def _growth_steps(self, factor: float) -> list:
        """``(old bytes, new bytes, copy)`` for each part short of room for one more expansion (``m`` rows)."""
        st, m = self.st, self.p.m
        steps = []

        def short(arrays, used: int, name: str, copy) -> None:
            rows = arrays[0].shape[0]
            if rows - used >= m:
                return
            new = max(math.ceil(factor * rows), used + m)
            unit = sum(row_bytes(a) for a in arrays)
            extra = K.new_pairs(new, 1).table.nbytes - self.pairs.table.nbytes if name == "pairs" else 0
            steps.append((rows * unit, new * unit + extra, lambda stop: copy(new, stop)))

        store, pairs = self.store, self.pairs
        short((store.parent, store.rule, store.expanded, store.alias), int(st[K.S_NODES]), "nodes",
              self._grow_nodes)
        short(tuple(self.heap), int(st[K.S_HEAP]), "heap",
              lambda new, stop: setattr(self, "heap", grow_heap(self.heap, new, stop)))
        if self.mode == K.ENUMERATE:
            short((store.ent_node, store.ent_pair, store.ent_count), int(st[K.S_ENTRIES]), "entries",
                  self._grow_entries)
            short((pairs.err, pairs.k, pairs.count, pairs.scratch), int(st[K.S_PAIRS]), "pairs", self._grow_pairs)
        if self.map.short(m, self.L + 1):
            steps += self.map.growth_steps(m, self.L + 1, factor)
        return steps

    def _grow_nodes(self, rows: int, stop) -> None:
        s = self.store
        self.store = s._replace(parent=grow(s.parent, rows, stop), rule=grow(s.rule, rows, stop),
                                expanded=grow(s.expanded, rows, stop), alias=grow(s.alias, rows, stop))

    def _grow_entries(self, rows: int, stop) -> None:
        s = self.store
        self.store = s._replace(ent_node=grow(s.ent_node, rows, stop), ent_pair=grow(s.ent_pair, rows, stop),
                                ent_count=grow(s.ent_count, rows, stop))

    def _grow_pairs(self, rows: int, stop) -> None:
        """Longer pair arrays and a table rebuilt at their size (load at most a half)."""
        old = self.pairs
        longer = {name: grow(getattr(old, name), rows, stop) for name in ("err", "k", "count", "scratch")}
        fresh = old._replace(table=K.new_pairs(rows, 1).table, **longer)
        K.rebuild_table(fresh, int(self.st[K.S_PAIRS]))
        self.pairs = fresh

    def finish(self, status: Status):
        st = self.st
        if self.mode == K.OPTIMUM:
            best = float(self.fp[K.F_BEST])
            lower = best if status is Status.OPTIMAL else min(best, self.pending())
            return list(self.best_prefix[: st[K.S_BEST_LEN]]), best, lower, self.counters()
        # the driver certifies a search whose lower bound reaches its objective: for a set, only its end does
        return self, self.limit, (self.limit if self.done else math.nan), self.counters()

    def counters(self) -> dict:
        st = self.st
        return {"expansions": int(st[K.S_EXPANSIONS]), "stored_nodes": int(st[K.S_NODES]),
                "max_queue_size": int(st[K.S_MAX_HEAP]), "entries": int(st[K.S_ENTRIES]),
                "pairs": int(st[K.S_PAIRS]), "max_rules": self.L, "permutation_map_entries": self.map.n_entries,
                "tied_orderings": int(st[K.S_ALIASES])}

    def unfold_bytes(self) -> int:
        """Bytes of the prefix tree with its tied orderings written out (:meth:`members_tree`), beyond the search's."""
        if not self.st[K.S_ALIASES]:
            return 0
        add_nodes, add_ent = self._unfold_sizes()[:2]
        n, ne = int(self.st[K.S_NODES]), int(self.st[K.S_ENTRIES])
        return 13 * (n + add_nodes) + 24 * (ne + add_ent)

    def _unfold_sizes(self) -> tuple:
        if self._sizes is None:
            n, ne = int(self.st[K.S_NODES]), int(self.st[K.S_ENTRIES])
            self._sizes = ties.unfold_sizes(self.store.parent[:n], self.store.alias[:n], self.store.ent_node[:ne])
        return self._sizes

    def members_tree(self) -> tuple:
        """The stored prefix tree with its tied orderings written out (:func:`~optbb.corels.rashomon.ties.unfold`):
        ``(parent, rule, expanded, ent_node, ent_pair, ent_count, pair_count)``, copies (the search's arrays are
        left as they are)."""
        st, store = self.st, self.store
        n, ne, npairs = int(st[K.S_NODES]), int(st[K.S_ENTRIES]), int(st[K.S_PAIRS])
        parent, rule, expanded = store.parent[:n], store.rule[:n], store.expanded[:n]
        ent_node, ent_pair, ent_count = store.ent_node[:ne], store.ent_pair[:ne], store.ent_count[:ne]
        count = self.pairs.count[:npairs].copy()
        if not st[K.S_ALIASES] or self.skip_unfold:
            return (parent.copy(), rule.copy(), expanded.copy(), ent_node.copy(), ent_pair.copy(),
                    ent_count.astype(np.int64), count)
        add_nodes, add_ent, has, first, num = self._unfold_sizes()
        out = (np.empty(n + add_nodes, np.int64), np.empty(n + add_nodes, np.int32),
               np.empty(n + add_nodes, np.uint8), np.empty(ne + add_ent, np.int64), np.empty(ne + add_ent, np.int32),
               np.empty(ne + add_ent, np.int32))
        ties.unfold(parent, rule, expanded, store.alias[:n], ent_node, ent_pair, ent_count, count, has, first, num,
                    *out)
        return out[:5] + (out[5].astype(np.int64), count)

    def complete_below(self, bound: float) -> float:
        """Every list within this (:func:`~optbb.common.rashomon.within`, tolerance included) has been evaluated:
        the bound when the search is over, else the least lower bound still queued less twice the tolerance."""
        if self.done:
            return bound
        return min(bound, below_within(self.pending()))


def _load_unfold(store, pairs) -> None:
    """Compile or load the kernels of :meth:`Search.members_tree` (on a tree of the empty prefix alone), so that
    reading the set costs no loading on the clock."""
    one = np.full(1, -1, np.int64)
    sizes = ties.unfold_sizes(store.parent[:1], one, store.ent_node[:0])
    ties.unfold(store.parent[:1], store.rule[:1], store.expanded[:1], one, store.ent_node[:0], store.ent_pair[:0],
                store.ent_count[:0], pairs.count[:0].copy(), *sizes[2:], store.parent[:1].copy(),
                store.rule[:1].copy(), store.expanded[:1].copy(), store.ent_node[:0].copy(),
                store.ent_pair[:0].copy(), store.ent_count[:0].copy())


def below_within(value: float) -> float:
    """A level whose :func:`~optbb.common.rashomon.within` admits only objectives below ``value``."""
    return value - 2 * BOUND_TOLERANCE * max(1.0, abs(value)) if math.isfinite(value) else value
