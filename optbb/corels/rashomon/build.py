"""``rashomon_set``: the rule-list Rashomon set of a dataset, the optimum's search then the enumeration's under one
set of limits (:func:`build_set`, which the estimator's method calls too)."""
from __future__ import annotations

import math
import time
import warnings
from typing import Callable

from ...common import driver
from ...common import limits as _limits
from ...common.data import BinaryDataset
from ...common.limits import Limits
from ...common.rashomon import BOUND_TOLERANCE, RashomonSet, check_bound, resolve_bound
from ...common.result import Status
from ...common.validation import check_number
from ..model import RuleList
from ..search import solve
from . import kernel as K
from .engine import Problem, Search, below_within
from ..listed import FAMILY
from .levels import RuleListLevels


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
    return build_set(data, regularization, epsilon=epsilon, bound=bound, max_length=max_length,
                     time_limit=time_limit, node_limit=node_limit, memory_limit=memory_limit, verbose=verbose)


def build_set(data: BinaryDataset, regularization: float, *, epsilon: float | None = None, bound: float | None = None,
              max_length: int | None = None, time_limit: float | None = None, node_limit: int | None = None,
              memory_limit: int | str | None = "auto", verbose: int = 0, classes=None,
              model_hook: Callable[[RuleList], None] | None = None, started: float | None = None) -> RashomonSet:
    """:func:`rashomon_set`, with the models' ``classes`` and a ``model_hook`` finishing each (the estimator's);
    ``started``: when the clock started (a ``time.perf_counter()``, default now)."""
    started = time.perf_counter() if started is None else started
    with _limits.InterruptGuard() as guard:  # a signal between the searches (each has its own guard) is kept too
        return _build(data, regularization, epsilon, bound, max_length, Limits(time_limit, node_limit, memory_limit),
                      verbose, classes, model_hook, Phases(started, guard))


def _build(data: BinaryDataset, regularization: float, epsilon, bound, max_length, limits: Limits, verbose: int,
           classes, model_hook, phases: "Phases") -> RashomonSet:
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam = check_number("regularization", regularization, lo=0, hi=1, caller="optbb.corels.rashomon_set")
    epsilon, bound = check_bound(epsilon, bound)
    if max_length is not None:
        max_length = check_number("max_length", max_length, lo=0, integer=True, caller="optbb.corels.rashomon_set")
    problem = Problem(data, lam)
    L = problem.m if max_length is None else min(max_length, problem.m)
    counters = phases.counters
    staged = limits.time_limit is not None or limits.node_limit is not None
    optimum, certified = math.nan, False
    limit_bound = bound
    if epsilon is not None or staged:
        # with an absolute bound the optimum only orders the enumeration: it gets half of the limits
        optimum, status, lower = _optimum(problem, L, limits if epsilon is not None else limits.share(0.5), phases,
                                          verbose, shortcut=staged)
        counters["optimum_nodes"] = counters["nodes"]
        certified = status is Status.OPTIMAL
        if epsilon is not None:
            limit_bound = resolve_bound(optimum, epsilon, None)
            if not certified:  # no certified optimum, so no bound to enumerate within
                counters.update(optimum_certified=False, total_time=phases.elapsed())
                return RashomonSet(FAMILY, RuleListLevels(problem, None, classes, model_hook), optimum,
                                   limit_bound, status, below_within(lower), lam, counters)
        elif not certified:
            optimum = math.nan
    levels = [limit_bound]
    if staged and certified and limit_bound > optimum:
        # the last stage is the bound itself (optimum + 1.0 * (bound - optimum) may differ in its last bits)
        levels = [optimum + share * (limit_bound - optimum) if share < 1 else limit_bound for share in STAGES]
    search, complete_below, status = _enumerate(problem, L, levels, optimum if certified else None, limits, phases,
                                                verbose, None if (epsilon is not None or staged) else phases.started)
    if limits.over_memory(search.memory_bytes() + search.unfold_bytes()):
        # the members below tied orderings cannot be written out: the set holds those found without them
        search.skip_unfold, status, complete_below = True, Status.MEMORY_LIMIT, -math.inf
    backend = RuleListLevels(problem, search, classes, model_hook)
    counters.update(search.counters())
    if not certified:
        if backend.levels:
            optimum = backend.levels[0].objective
            certified = complete_below >= optimum
        elif status is Status.OPTIMAL:
            left, _ = limits.left(phases.elapsed(), phases.counters["nodes"])
            if left is not None:
                optimum, opt_status, _ = _optimum(problem, L, left, phases, verbose, since=None, shortcut=staged)
                certified = opt_status is Status.OPTIMAL
    if status is Status.OPTIMAL and not backend.levels:
        reason = (f"the bound {limit_bound!r} is below the optimum {optimum!r}: no rule list is within it"
                  if certified else f"no rule list is within the bound {limit_bound!r}")
        counters["empty"] = reason
        warnings.warn(f"the Rashomon set is empty: {reason}", UserWarning, stacklevel=3)
    counters.update(optimum_certified=bool(certified), total_time=phases.elapsed())
    return RashomonSet(FAMILY, backend, float(optimum), float(limit_bound), status, float(complete_below), lam,
                       counters)


# Under a time or node limit the set is enumerated within these shares of ``bound - optimum`` in turn, so a stop
# leaves it complete from the optimum up to the last stage reached
STAGES = (0.0, 0.25, 0.5, 1.0)


def _optimum(problem: Problem, L: int, limits: Limits, phases: "Phases", verbose: int,
             since: float | None = -1.0, shortcut: bool = False) -> tuple[float, Status, float]:
    """The optimum over lists of at most ``L`` rules: ``(objective, status, lower bound)``, by the set's own search
    over at most ``L`` rules.  ``shortcut`` (under a limit, where certifying fast matters): CORELS' own search first
    (:func:`optbb.corels.solve`, with its symmetry-aware map; COMPAS at lambda .01 in under a second where the
    set's search over five rules takes 15 s), which answers when its optimal list has at most ``L`` rules (an
    optimum of all lists that fits is the optimum of those that fit).  ``since``: when the clock started (-1: at
    the call's start)."""
    since = phases.started if since == -1.0 else since
    if shortcut and problem.lam > 0 and problem.m > 0:
        res = solve(problem.data, problem.lam, time_limit=limits.time_limit, node_limit=limits.node_limit,
                    memory_limit=limits.memory_limit, started=since)
        phases.spent(res.counters)
        prefix = [int(r.antecedent) for r in res.model.rules]
        fits = len(prefix) <= L
        if res.status is Status.OPTIMAL and fits:
            best = problem.build(prefix).objective
            return best, Status.OPTIMAL, best
        left, stop = limits.left(phases.elapsed(), phases.counters["nodes"])
        if res.status is Status.INTERRUPTED:
            phases.signalled, left, stop = True, None, Status.INTERRUPTED
        if left is None:  # its best list (if it fits) and its bound (the optimum of all lists is at most this one)
            return (problem.build(prefix if fits else []).objective, stop, res.lower_bound)
        limits, since = left, None
    search = Search(problem, L, K.OPTIMUM, problem.build([]).objective, limits.node_limit)
    res = driver.run_search(search, limits, verbose, interrupted=phases.interrupted(), started=since)
    phases.spent(res.counters, search)
    return res.objective, res.status, res.lower_bound


def _enumerate(problem: Problem, L: int, levels: list, optimum: float | None, limits: Limits, phases: "Phases",
               verbose: int, started: float | None) -> tuple[Search, float, Status]:
    """The enumeration within each bound of ``levels`` in turn (:data:`STAGES`), each from scratch under the
    limits left: ``(search, complete_below, status)`` of the last one finished, or of the one a limit stopped when
    it had passed the level of the one before (a search expands its prefixes least lower bound first, so it is
    complete below the least bound still queued)."""
    kept, complete, status = None, -math.inf, Status.OPTIMAL
    for level in levels:
        if kept is not None and phases.interrupted():  # a signal in the last chunk of the stage before, or after it
            status = Status.INTERRUPTED
            break
        limit = level + BOUND_TOLERANCE * max(1.0, abs(level))  # optbb.common.rashomon.within
        left, stop = limits.left(phases.elapsed(), phases.counters["nodes"])
        search = Search(problem, L, K.ENUMERATE, limit, None if left is None else left.node_limit, optimum)
        if left is None:  # a limit is used up: the search only records the empty list
            search.start()
            status = stop
        else:
            res = driver.run_search(search, left, verbose, interrupted=phases.interrupted(), started=started)
            phases.spent(res.counters, search)
            status = res.status
        reached = search.complete_below(level)
        if kept is None or reached >= complete:
            kept, complete = search, reached
        if status is not Status.OPTIMAL:
            break
    return kept, complete, status


class Phases:
    """What the searches of one call (the optimum's, the enumeration's) spent together, the common counters: nodes,
    kernel loading and peak memory, and the seconds since the start (what ``Limits.left`` takes); and whether a
    signal arrived, between the searches (``guard``, the call's) or in a search's last chunk, which ended it
    nonetheless."""

    def __init__(self, started: float, guard=None):
        self.started = started
        self.guard = guard
        self.signalled = False
        self.counters = {"nodes": 0, "optimum_nodes": 0, "kernel_load_time": 0.0, "memory_bytes": 0}

    def interrupted(self) -> bool:
        return self.signalled or (self.guard is not None and bool(self.guard.interrupted))

    def spent(self, counts: dict, search=None) -> None:
        self.signalled |= bool(getattr(search, "signalled", False))
        c = self.counters
        c["nodes"] += int(counts.get("nodes", 0))
        c["kernel_load_time"] += float(counts.get("kernel_load_time", 0.0))
        c["memory_bytes"] = max(c["memory_bytes"], int(counts.get("memory_bytes", 0)))

    def elapsed(self) -> float:
        """Seconds since the start, the kernels' loading left out."""
        return time.perf_counter() - self.started - self.counters["kernel_load_time"]
