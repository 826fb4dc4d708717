"""The construction of a Rashomon set of trees as an engine of the common search driver
(:func:`optbb.common.driver.run_search`): the driver owns the limits, Ctrl-C, chunk sizes, progress and status, as
for every other search; :class:`SetEngine` runs the compiled chunks of :mod:`optbb.osdt.rashomon.search` over a
:class:`~optbb.osdt.rashomon.space.TreeSpace` through its phases.

Phases: the optimum of the root (the least cost of a tree within the depth budget), then the widenings of the root
to the levels of :data:`STAGES` (shares of ``bound - optimum``, the bound being ``(1 + epsilon) * optimum`` or the
absolute ``bound``).  A limit or Ctrl-C that stops a stage leaves the set of the stage before, complete below its
level (:attr:`SetEngine.reached`); one that stops the optimum leaves an empty set.
"""
from __future__ import annotations

import math

from ...common.driver import DONE, PAUSED, RUNNING
from ...common.rashomon import resolve_bound
from ...common.result import Status
from .search import OVERFLOW, build_chunk, run, start_optimum, start_widen
from .space import TreeSpace
from .store import F_RET, M_BUILD, S_EVALS, S_MODE, S_TOP

# The set is widened to the bound in these shares of ``bound - optimum``: a limit that stops a stage leaves the set
# of the previous one, complete below its level
STAGES = (0.0, 1.0)

TOO_MANY = "the Rashomon set has more than 2**62 trees at one subproblem; tighten the bound or the depth"

OPTIMUM, WIDEN, FINISHED = range(3)


class SetEngine:
    """The driver's engine of one construction: ``space`` (its store holds the node limit), the bound as
    ``epsilon`` (a share of the optimum) or an absolute ``bound``.  After the search: :attr:`optimum` (NaN when a
    limit came first), :attr:`limit` (the absolute bound) and :attr:`reached` (the level below which the set is
    complete; -inf before the first widening ends)."""

    name = "osdt Rashomon"

    def __init__(self, space: TreeSpace, epsilon: float | None, bound: float | None):
        self.space = space
        self.epsilon, self.bound = epsilon, bound
        self.optimum = self.limit = math.nan
        self.reached = -math.inf
        self.phase, self.stage, self.level = OPTIMUM, 0, math.nan

    # -- driver protocol ----------------------------------------------------------------------------------------
    def start(self) -> Status | None:
        start_optimum(self.space.store.st)
        return None

    def step(self, work: int) -> int:
        s, data, rows = self.space.store, self.space.a.data, self.space.a.rows_data
        if work <= 0:  # compile or load both chunk kernels, changing nothing
            mode = int(s.st[S_MODE])
            run(s.nodes, s.plan, s.frames, data, rows, s.st, s.fs, 0)
            build_chunk(s.nodes, s.pools, s.plan, s.table, rows, s.st, s.fs, 0)
            s.st[S_MODE] = mode
            return RUNNING
        if s.st[S_MODE] == M_BUILD:
            code = build_chunk(s.nodes, s.pools, s.plan, s.table, rows, s.st, s.fs, work)
        else:
            code = run(s.nodes, s.plan, s.frames, data, rows, s.st, s.fs, work)
        if code == OVERFLOW:
            raise OverflowError(TOO_MANY)
        return self._next_phase() if code == DONE else code

    def _next_phase(self) -> int:
        """After a phase: the widening to the next stage's level (PAUSED: the driver calls again at once), or DONE
        once the set reaches the bound."""
        if self.phase == OPTIMUM:
            self.optimum = float(self.space.store.fs[F_RET])
            self.limit = resolve_bound(self.optimum, self.epsilon, self.bound)
            self.phase = WIDEN
        else:
            self.reached = self.level
            self.stage += 1
            if self.level >= self.limit or self.stage == len(STAGES):
                self.phase = FINISHED
                return DONE
        share = STAGES[self.stage]
        self.level = self.optimum + share * (self.limit - self.optimum) if self.limit > self.optimum else self.limit
        start_widen(self.space.store.nodes, self.space.store.plan, self.space.store.st, float(self.level))
        return PAUSED

    def grow(self, cap_bytes: int | None, must_stop) -> bool:
        return self.space.store.grow(cap_bytes, must_stop)

    def nodes(self) -> int:
        return int(self.space.store.st[S_EVALS])

    def memory_bytes(self) -> int:
        return self.space.memory_bytes()

    def incumbent(self) -> float:
        return self.optimum if not math.isnan(self.optimum) else math.inf

    def improvements(self) -> int:
        return int(self.phase != OPTIMUM)

    def lower_bound(self) -> float:
        return self.optimum if not math.isnan(self.optimum) else 0.0

    def queue_size(self) -> int:
        return int(self.space.store.st[S_TOP]) + 1

    def finish(self, status: Status):
        """``(space, optimum, lower bound, counters)``; the bound is NaN unless the set is complete (the driver then
        certifies nothing for a stopped construction)."""
        counters = {"subproblems": self.space.n_nodes, "optima": self.space.n_solved,
                    "evaluations": self.space.evaluations}
        return self.space, self.optimum, (self.optimum if self.phase == FINISHED else math.nan), counters

