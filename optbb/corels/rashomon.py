"""The Rashomon set of rule lists: every rule list whose objective is within a bound, counted exactly, listed in
objective order and summarised without listing (:class:`~optbb.common.rashomon.RashomonSet`).

A *rule list* here is ``d_1, ..., d_k, default`` over distinct antecedents (columns of the data), ``k <= max_length``,
in which every rule captures at least one sample no earlier rule captured; each rule and the default predict the
majority class of what they capture (ties: the larger class index), as :func:`~optbb.corels.model.build_rule_list`
does.  Its objective is ``misclassified amount / total amount + regularization * k`` (amounts: sample counts, or
sums of ``sample_weight``).  Two lists are the same when they have the same antecedents in the same order.

The search (:mod:`optbb.corels.rashomon_kernel`) expands the prefixes least lower bound first and keeps the prefix
tree pruned at the bound: a node per prefix it queued, and per expanded node the number of its member children of
each achievable ``(errors, rules)`` pair (an *entry*).  The set's levels are those pairs, ordered by objective, then
rules, then errors; inside a level the models come in the order of the entries (the order in which the search
expanded their nodes: by lower bound, ties by creation), and inside an entry by the last rule's antecedent.  A
model is found by bisection over the entries' counts and one evaluation of its node's children, so the ``i``-th
model costs one node expansion, however large the set.  A search stopped by a limit has evaluated every list whose
objective is below the least lower bound still queued: the set is complete below it (``complete_below``).

Errors are keyed exactly: integers without weights; with weights, the float64 sums of weights of the misclassified
samples, each class summed in sample order and the list's errors rule by rule, default last (the sums
``build_rule_list`` makes), so two lists share a level when their float errors are equal (two lists whose weighted
errors differ only in the last bits, summed from different samples, are two levels with nearly equal objectives).

The optimum over lists of at most ``max_length`` rules comes from a branch and bound of the same search, least lower
bound first (CORELS' :func:`~optbb.corels.solve` has no length cap).  It expands the prefixes whose lower bound is
below its incumbent, which the enumeration within a bound above the optimum expands too (but for those the first,
weaker incumbents let through), so it costs less than the enumeration that follows: a third of the prefixes
evaluated on COMPAS with at most four rules.
"""
from __future__ import annotations

import math
import time
import warnings
from typing import Callable

import numpy as np

from ..common import driver
from ..common.data import BinaryDataset
from ..common.growth import grow, grow_parts, row_bytes
from ..common.limits import Limits
from ..common.queue import grow_heap, heap_push, new_heap
from ..common.rashomon import BOUND_TOLERANCE, Level, RashomonSet, check_bound, resolve_bound
from ..common.result import Status
from ..common.validation import check_number
from . import rashomon_kernel as K
from .model import RuleList, build_rule_list

FAMILY = "rule lists"
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

    def build(self, prefix) -> RuleList:
        d = self.data
        return build_rule_list(d.X, d.y, list(prefix), d.feature_names, d.label_names, self.lam, d.sample_weight)


class Search:
    """One search of the kernel (:data:`~optbb.corels.rashomon_kernel.OPTIMUM` or ``ENUMERATE``) as an engine of
    the search driver (:mod:`optbb.common.driver`): limits, Ctrl-C, progress and kernel loading off the clock come
    from there.  A node of ``node_limit`` is a prefix evaluated; ``memory_limit`` caps the nodes, the queue, the
    entries and the pairs."""

    name = "CORELS Rashomon"

    def __init__(self, problem: Problem, L: int, mode: int, limit: float, node_limit: int | None):
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
        self.ip = np.array([mode, self.L], dtype=np.int64)
        self.root = (0.0, 0)  # the default-only list: errors, class
        self.done = False
        self.start_load_time = 0.0

    # -- driver protocol ---------------------------------------------------------------------------------------
    def start(self) -> Status | None:
        p, st = self.p, self.st
        derr, dpred, lower = self._timed(K.root, p.kdata, p.weights, self.fp)
        self.root = (float(derr), int(dpred))
        objective = self.root[0] / p.n
        st[K.S_NODES] = 1
        self.store.parent[0] = -1
        self.store.rule[0] = -1
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
        code = K.run_chunk(p.kdata, p.weights, self.store, self.heap, self.pairs, self.st, self.fp, self.ip,
                           self.best_prefix, work, hard)
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
                   + self.best_prefix.nbytes)

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
        short((store.parent, store.rule, store.expanded), int(st[K.S_NODES]), "nodes", self._grow_nodes)
        short(tuple(self.heap), int(st[K.S_HEAP]), "heap",
              lambda new, stop: setattr(self, "heap", grow_heap(self.heap, new, stop)))
        if self.mode == K.ENUMERATE:
            short((store.ent_node, store.ent_pair, store.ent_count), int(st[K.S_ENTRIES]), "entries",
                  self._grow_entries)
            short((pairs.err, pairs.k, pairs.count, pairs.scratch), int(st[K.S_PAIRS]), "pairs", self._grow_pairs)
        return steps

    def _grow_nodes(self, rows: int, stop) -> None:
        s = self.store
        self.store = s._replace(parent=grow(s.parent, rows, stop), rule=grow(s.rule, rows, stop),
                                expanded=grow(s.expanded, rows, stop))

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
                "pairs": int(st[K.S_PAIRS]), "max_rules": self.L}

    def complete_below(self, bound: float) -> float:
        """Every list within this (:func:`~optbb.common.rashomon.within`, tolerance included) has been evaluated:
        the bound when the search is over, else the least lower bound still queued less twice the tolerance."""
        if self.done:
            return bound
        return min(bound, below_within(self.pending()))


def below_within(value: float) -> float:
    """A level whose :func:`~optbb.common.rashomon.within` admits only objectives below ``value``."""
    return value - 2 * BOUND_TOLERANCE * max(1.0, abs(value)) if math.isfinite(value) else value


class RuleListLevels:
    """The backend of a :class:`~optbb.common.rashomon.RashomonSet` of rule lists (the protocol of
    :mod:`optbb.common.rashomon`): the stored prefix tree of a finished (or stopped) enumeration.

    ``models`` are :class:`~optbb.corels.model.RuleList` objects built by ``build_rule_list`` (their ``objective``
    is their level's); ``model_hook`` finishes each (the estimator attaches literals and classes); ``classes`` the
    labels ``predict`` gives (default: the class indices)."""

    def __init__(self, problem: Problem, search: Search | None, classes=None,
                 model_hook: Callable[[RuleList], None] | None = None):
        self.p = problem
        self.limit = search.limit if search is not None else -math.inf
        self.feature_names = list(problem.data.feature_names)
        self.classes = list(range(problem.n_classes)) if classes is None else list(classes)
        self.model_hook = model_hook
        if search is None:
            used = (1, 0, 0)
            self._parent, self._rule = np.full(1, -1, np.int64), np.full(1, -1, np.int32)
            self._expanded = np.zeros(1, np.uint8)
            ent_node, ent_pair, ent_count = (np.zeros(0, np.int64),) * 3
            err, k, count = np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            st, store, pairs = search.st, search.store, search.pairs
            used = int(st[K.S_NODES]), int(st[K.S_ENTRIES]), int(st[K.S_PAIRS])
            self._parent, self._rule = store.parent[: used[0]].copy(), store.rule[: used[0]].copy()
            self._expanded = store.expanded[: used[0]].copy()
            ent_node, ent_pair = store.ent_node[: used[1]], store.ent_pair[: used[1]]
            ent_count = store.ent_count[: used[1]].astype(np.int64)
            err, k, count = pairs.err[: used[2]], pairs.k[: used[2]], pairs.count[: used[2]]
        self._root = search.root if search is not None else (0.0, 0)
        objective = err / problem.n + problem.lam * k  # the kernel's formula, elementwise
        order = np.lexsort((err, k, objective))
        rank = np.empty(order.shape[0], dtype=np.int64)
        rank[order] = np.arange(order.shape[0])
        weighted = problem.weights is not None
        self.levels = [Level(float(objective[i]), int(k[i]), float(err[i]) if weighted else int(err[i]),
                             int(count[i])) for i in order]
        self._err = err[order].copy()
        # entries grouped by level, each level's in the search's order
        by_level = np.argsort(rank[ent_pair], kind="stable") if ent_pair.shape[0] else np.zeros(0, np.int64)
        self._ent_node = np.asarray(ent_node)[by_level].copy()
        self._ent_count = np.asarray(ent_count)[by_level]
        self._ends = np.cumsum(self._ent_count)
        self._first = np.searchsorted(rank[ent_pair][by_level], np.arange(len(self.levels) + 1))
        self._direct = np.zeros(used[0], dtype=np.int64)  # member children of each node
        inner = np.asarray(ent_node) >= 0
        np.add.at(self._direct, np.asarray(ent_node)[inner], np.asarray(ent_count)[inner])
        self._summary = None

    # -- unranking and listing ---------------------------------------------------------------------------------
    def _path(self, node: int) -> list[int]:
        path = []
        while node > 0:
            path.append(int(self._rule[node]))
            node = int(self._parent[node])
        return path[::-1]

    def _children(self, prefix: list[int], level: int) -> np.ndarray:
        p = self.p
        out = np.empty(max(1, p.m), dtype=np.int64)
        found = K.member_children(p.kdata, p.weights, np.asarray(prefix, dtype=np.int64), p.lam, self.limit,
                                  float(self._err[level]), out)
        return out[:found]

    def _model(self, prefix) -> RuleList:
        model = self.p.build(prefix)
        if self.model_hook is not None:
            self.model_hook(model)
        return model

    def model(self, level: int, k: int) -> RuleList:
        """The ``k``-th model of level ``level``."""
        count = self.levels[level].count
        if not 0 <= k < count:
            raise IndexError(f"model {k} of a level of {count}")
        first = self._first[level]
        g = (int(self._ends[first - 1]) if first > 0 else 0) + int(k)
        e = int(np.searchsorted(self._ends, g, side="right"))
        j = g - (int(self._ends[e]) - int(self._ent_count[e]))
        node = int(self._ent_node[e])
        if node < 0:
            return self._model([])
        prefix = self._path(node)
        return self._model(prefix + [int(self._children(prefix, level)[j])])

    def models(self, level: int):
        """The models of level ``level`` in the order of :meth:`model`."""
        for e in range(self._first[level], self._first[level + 1]):
            node = int(self._ent_node[e])
            if node < 0:
                yield self._model([])
                continue
            prefix = self._path(node)
            for s in self._children(prefix, level):
                yield self._model(prefix + [int(s)])

    # -- exact summaries ---------------------------------------------------------------------------------------
    def _summaries(self):
        if self._summary is None:
            p = self.p
            counts = np.zeros((p.data.n_samples, p.n_classes), dtype=np.int64)
            usage = np.zeros(p.m, dtype=np.int64)
            if self._direct.sum():
                K.summaries(p.kdata, p.weights, self._parent, self._rule, self._expanded, self._direct, p.lam,
                            self.limit, counts, usage)
            if np.any(self._ent_node < 0):  # the empty list is a member: its default predicts every row
                counts[:, self._root[1]] += 1
            self._summary = counts, usage
        return self._summary

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: for each training row, how many members predict each class."""
        return self._summaries()[0].copy()

    def feature_usage(self) -> np.ndarray:
        """For each antecedent, how many members use it."""
        return self._summaries()[1].copy()

    # -- models ------------------------------------------------------------------------------------------------
    def predict(self, model: RuleList, X) -> np.ndarray:
        return model.predict(X)

    def features_of(self, model: RuleList) -> set[int]:
        return {int(r.antecedent) for r in model.rules}


def rashomon_set(data: BinaryDataset, regularization: float, *, epsilon: float | None = None,
                 bound: float | None = None, max_length: int | None = None, time_limit: float | None = None,
                 node_limit: int | None = None, memory_limit: int | str | None = "auto",
                 verbose: int = 0) -> RashomonSet:
    """Every rule list over the antecedent columns of ``data`` whose objective is at most the bound (module
    docstring): ``epsilon`` (``(1 + epsilon) * optimum``, the optimum over lists of at most ``max_length`` rules)
    or ``bound`` (an absolute objective), exactly one.  ``max_length`` (None: any length) caps the rules of a list.

    ``time_limit`` (seconds), ``node_limit`` (prefixes evaluated, the optimum's search included) and
    ``memory_limit`` (bytes of the stored tree and queue, a size such as ``"2G"``, ``"auto"`` for half of the
    physical memory, or None) stop the search with that status; the set then holds the members found so far and is
    complete below ``complete_below`` (every list within it, tolerance included, is a member): just below the least
    lower bound of the prefixes still queued, as the search expands them least bound first.  A stop while the
    optimum is searched (``epsilon``) leaves the set empty, its bound taken from the best list found and
    ``complete_below`` below the optimum's lower bound.  A bound below the optimum gives an empty set and a
    ``UserWarning`` (``counters["empty"]`` says why).

    Counters: ``total_time`` and ``kernel_load_time`` (seconds; compiling or loading the kernels is off the
    clock), ``memory_bytes`` (peak bytes of the search's arrays), ``nodes`` (prefixes evaluated), ``optimum_nodes``
    (those of the optimum's search), ``optimum_certified``, and of the enumeration ``expansions``,
    ``stored_nodes`` (prefixes queued), ``max_queue_size``, ``entries``, ``pairs`` (levels met) and ``max_rules``
    (the longest list the bound allows).
    """
    return build_set(data, regularization, epsilon, bound, max_length, time_limit, node_limit, memory_limit,
                     verbose)


def build_set(data: BinaryDataset, regularization, epsilon, bound, max_length, time_limit, node_limit, memory_limit,
              verbose: int = 0, classes=None, model_hook: Callable[[RuleList], None] | None = None,
              started: float | None = None) -> RashomonSet:
    """:func:`rashomon_set`, with the models' ``classes`` and a ``model_hook`` finishing each (the estimator's);
    ``started``: when the clock started (a ``time.perf_counter()``, default now)."""
    started = time.perf_counter() if started is None else started
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam = check_number("regularization", regularization, lo=0, caller="optbb.corels.rashomon_set")
    epsilon, bound = check_bound(epsilon, bound)
    if max_length is not None:
        max_length = check_number("max_length", max_length, lo=0, integer=True, caller="optbb.corels.rashomon_set")
    limits = Limits(time_limit, node_limit, memory_limit)
    problem = Problem(data, lam)
    L = problem.m if max_length is None else min(max_length, problem.m)
    phases = Phases(limits, started)

    def find_optimum(left: Limits, since: float | None) -> tuple[float, Status, float]:
        """The optimum over lists of at most L rules: ``(objective, status, lower bound)``."""
        search = Search(problem, L, K.OPTIMUM, problem.build([]).objective, left.node_limit)
        res = driver.run_search(search, left, verbose, started=since)
        phases.spent(res.counters)
        return res.objective, res.status, res.lower_bound

    counters = phases.counters
    if epsilon is not None:
        optimum, status, lower = find_optimum(limits, started)
        counters["optimum_nodes"] = counters["nodes"]
        limit_bound = resolve_bound(optimum, epsilon, None)
        if status is not Status.OPTIMAL:  # no certified optimum, so no bound to enumerate within
            counters.update(optimum_certified=False, total_time=phases.elapsed())
            return RashomonSet(FAMILY, RuleListLevels(problem, None, classes, model_hook), optimum, limit_bound,
                               status, below_within(lower), lam, counters)
        certified = True
    else:
        limit_bound = bound
    limit = limit_bound + BOUND_TOLERANCE * max(1.0, abs(limit_bound))  # optbb.common.rashomon.within
    left, status = phases.rest()
    search = Search(problem, L, K.ENUMERATE, limit, None if left is None else left.node_limit)
    if left is None:  # the optimum used up a limit: the enumeration only records the empty list
        search.start()
    else:
        res = driver.run_search(search, left, verbose, started=None if epsilon is not None else started)
        phases.spent(res.counters)
        status = res.status
    backend = RuleListLevels(problem, search, classes, model_hook)
    complete_below = search.complete_below(limit_bound)
    counters.update(search.counters())
    if epsilon is None:
        optimum, certified = math.nan, False
        if backend.levels:
            optimum = backend.levels[0].objective
            certified = complete_below >= optimum
        elif status is Status.OPTIMAL:
            left, _ = phases.rest()
            if left is not None:
                optimum, opt_status, _ = find_optimum(left, None)
                certified = opt_status is Status.OPTIMAL
    if status is Status.OPTIMAL and not backend.levels:
        reason = (f"the bound {limit_bound!r} is below the optimum {optimum!r}: no rule list is within it"
                  if certified else f"no rule list is within the bound {limit_bound!r}")
        counters["empty"] = reason
        warnings.warn(f"the Rashomon set is empty: {reason}", UserWarning, stacklevel=3)
    counters.update(optimum_certified=bool(certified), total_time=phases.elapsed())
    return RashomonSet(FAMILY, backend, float(optimum), float(limit_bound), status, float(complete_below), lam,
                       counters)


class Phases:
    """The limits shared by the searches of one call (the optimum's, the enumeration's): what each spent, what is
    left, the common counters."""

    def __init__(self, limits: Limits, started: float):
        self.limits = limits
        self.started = started
        self.counters = {"nodes": 0, "optimum_nodes": 0, "kernel_load_time": 0.0, "memory_bytes": 0}

    def spent(self, counts: dict) -> None:
        c = self.counters
        c["nodes"] += int(counts.get("nodes", 0))
        c["kernel_load_time"] += float(counts.get("kernel_load_time", 0.0))
        c["memory_bytes"] = max(c["memory_bytes"], int(counts.get("memory_bytes", 0)))

    def elapsed(self) -> float:
        """Seconds since the start, the kernels' loading left out."""
        return time.perf_counter() - self.started - self.counters["kernel_load_time"]

    def rest(self) -> tuple[Limits | None, Status]:
        """The limits left for the next search, or None and the limit used up."""
        lim = self.limits
        remaining = None if lim.time_limit is None else lim.time_limit - self.elapsed()
        if remaining is not None and remaining <= 0:
            return None, Status.TIME_LIMIT
        nodes = None if lim.node_limit is None else lim.node_limit - self.counters["nodes"]
        if nodes is not None and nodes <= 0:
            return None, Status.NODE_LIMIT
        return Limits(remaining, nodes, lim.memory_limit), Status.OPTIMAL
