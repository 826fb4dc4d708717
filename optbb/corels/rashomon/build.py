"""``rashomon_set``: the rule-list Rashomon set of a dataset, the optimum's search then the enumeration's under one
set of limits (:func:`build_set`, which the estimator's method calls too)."""
from __future__ import annotations

import math
import time
import warnings
from typing import Callable

from ...common import driver
from ...common.data import BinaryDataset
from ...common.limits import Limits
from ...common.rashomon import BOUND_TOLERANCE, RashomonSet, check_bound, resolve_bound
from ...common.result import Status
from ...common.validation import check_number
from ..model import RuleList
from . import kernel as K
from .engine import Problem, Search, below_within
from .levels import RuleListLevels

FAMILY = "rule lists"


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
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam = check_number("regularization", regularization, lo=0, caller="optbb.corels.rashomon_set")
    epsilon, bound = check_bound(epsilon, bound)
    if max_length is not None:
        max_length = check_number("max_length", max_length, lo=0, integer=True, caller="optbb.corels.rashomon_set")
    limits = Limits(time_limit, node_limit, memory_limit)
    problem = Problem(data, lam)
    L = problem.m if max_length is None else min(max_length, problem.m)
    phases = Phases(started)

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
    left, status = limits.left(phases.elapsed(), phases.counters["nodes"])
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
            left, _ = limits.left(phases.elapsed(), phases.counters["nodes"])
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
    """What the searches of one call (the optimum's, the enumeration's) spent together, the common counters: nodes,
    kernel loading and peak memory, and the seconds since the start (what ``Limits.left`` takes)."""

    def __init__(self, started: float):
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
