"""Mine, then search: the one path of the solvers that search over antecedents mined from 0/1 features (CORELS on
raw features, FRL and softFRL), under one budget.

The clock starts before the mining and runs on through the search, so ``time_limit`` bounds both and the result's
``total_time`` counts both; the mined arrays count toward ``memory_limit`` and the search gets what is left; Ctrl-C
stops either.  No search runs on a truncated antecedent set: a limit that ends the mining, or leaves no time or
memory for the search, ends the fit with that status and the solver's model without antecedents (its default rule).
When the mining is complete but no antecedent passes the support filter, that same model is the only one there is:
a ``UserWarning`` says so and the status is OPTIMAL.  Counters ``mining_time``, ``mining_bytes`` and
``antecedents_mined`` are added to the solver's.
"""
from __future__ import annotations

import time
import warnings
from typing import Callable

from .limits import Budget, Limits
from .mining import MinedAntecedents, load_kernels
from .result import KERNEL_LOAD_TIME, TOTAL_TIME, SearchResult, Status


class StartMemoryError(ValueError):
    """The memory limit is below what the search needs to start."""


Search = Callable[[MinedAntecedents, Limits], SearchResult]
Unsearched = Callable[[MinedAntecedents, Status, float], SearchResult]


def mine_then_search(limits: Limits, mine: Callable[[Budget], MinedAntecedents], search: Search,
                     unsearched: Unsearched, empty_message: str, started: float | None = None
                     ) -> tuple[MinedAntecedents, SearchResult]:
    """Run ``mine(budget)``, then ``search(mined, rest)`` under the limits left (``rest``), as the module docstring
    says.  ``unsearched(mined, status, elapsed)`` gives the result when no search runs; ``empty_message`` is the
    warning when no antecedent passes the filter.  A ``search`` that raises :class:`StartMemoryError` ends the
    fit with MEMORY_LIMIT.  ``started``: the ``time.perf_counter()`` at which the clock started (the estimator's
    ``fit``: its validation counts), default now; the kernels' loading is taken out of it."""
    t_load = time.perf_counter()
    load_kernels()  # off the clock, as the driver loads the search's kernels
    budget = Budget(limits, started, off_clock=time.perf_counter() - t_load)
    mined = mine(budget)
    status = mined.status
    if status is None and len(mined.antecedents) == 0:
        warnings.warn(empty_message, UserWarning, stacklevel=3)
        status = Status.OPTIMAL
    if status is None:
        rest, status = limits.left(budget.elapsed(), memory_spent=mined.nbytes)
    if status is None:
        try:
            result = search(mined, rest)
        except StartMemoryError:
            status = Status.MEMORY_LIMIT
        else:
            result.counters[TOTAL_TIME] = budget.elapsed() - result.counters[KERNEL_LOAD_TIME]
            return mined, _with_mining(result, mined)
    return mined, _with_mining(unsearched(mined, status, budget.elapsed()), mined)


def _with_mining(result: SearchResult, mined: MinedAntecedents) -> SearchResult:
    result.counters.update(mining_time=mined.elapsed, mining_bytes=mined.nbytes,
                           antecedents_mined=len(mined.antecedents))
    return result
