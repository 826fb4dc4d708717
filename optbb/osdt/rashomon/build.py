"""``optbb.osdt.rashomon_set``: the Rashomon set of sparse decision trees (see :mod:`optbb.osdt.rashomon.space`)."""
from __future__ import annotations

import time
import warnings
from numbers import Integral

from ...common import driver
from ...common.data import BinaryDataset
from ...common.limits import Limits
from ...common.rashomon import RashomonSet, check_bound
from ...common.result import Status
from ...common.validation import check_number
from ..model import CutMap
from .engine import SetEngine
from .space import Amounts, TreeSpace
from .trees import TreeBackend



def check_max_depth(max_depth) -> int | None:
    """``max_depth`` as an int >= 0 or None; a ValueError naming it otherwise."""
    if max_depth is None:
        return None
    if isinstance(max_depth, bool) or not isinstance(max_depth, Integral) or not 0 <= max_depth <= 64:
        raise ValueError(f"max_depth must be None or an integer in [0, 64], got {max_depth!r}")
    return int(max_depth)


def cuts_of(data: BinaryDataset) -> CutMap | None:
    """The map of ``data``'s features when they are cuts of numeric columns (a
    :class:`~optbb.osdt.numeric.cuts.CutDataset`, whose ``cuts`` is that map), else None; a ValueError when the map
    does not describe the matrix's columns."""
    cuts = getattr(data, "cuts", None)
    if cuts is not None and cuts.n_features != data.X.shape[1]:
        raise ValueError(f"data.cuts describes {cuts.n_features} features, data.X has {data.X.shape[1]} columns")
    return cuts


def rashomon_set(data: BinaryDataset, regularization: float, *, epsilon: float | None = None,
                 bound: float | None = None, max_depth: int | None = None, exclude_useless: bool = True,
                 time_limit: float | None = None, node_limit: int | None = None, memory_limit="auto",
                 verbose: int = 0, classes=None, started: float | None = None) -> RashomonSet:
    """Every tree over the 0/1 features of ``data`` whose objective ``errors / N + regularization * leaves`` is at
    most the bound: ``(1 + epsilon) * optimum`` or an absolute ``bound`` (exactly one of them).

    A tree has at most ``max_depth`` splits on any path (None: no limit), two non-empty children at every split, and
    with ``exclude_useless`` (the default) no split into two leaves that does not lower the errors (such a split
    only adds a leaf); ``exclude_useless=False`` counts those too.  Leaves predict their majority class (ties to the
    larger class index), any number of classes (``data.label_names``), weighted errors with ``data.sample_weight``.
    Two trees are the same when they have the same shape and the same feature at every split.

    For a :class:`~optbb.osdt.numeric.cuts.CutDataset` (every cut of numeric columns,
    :func:`~optbb.osdt.numeric.cuts.cut_dataset`) the members are trees over the raw columns, as
    :meth:`~optbb.osdt.model.Tree.over_columns` makes them: they print ``petal_length <= 2.45``, write the column
    and threshold of each split in their JSON and predict on raw rows; the set's ``predict`` then takes raw rows
    too (its ``prepare`` makes the cuts of them), and its feature usage counts each cut (``petal_length<=2.45``).

    The set is counted, listed in objective order, indexed, sampled and summarised without listing (see
    :class:`~optbb.common.rashomon.RashomonSet`).  ``time_limit`` (seconds from the call), ``node_limit``
    (subproblem evaluations) and ``memory_limit`` (bytes of the structure, ``"auto"`` half of the physical memory)
    end the construction with that status; the set is then complete below ``complete_below``.  Ctrl-C likewise
    (status INTERRUPTED).  ``classes``: the labels the trees predict (default: class indices).
    """
    started = time.perf_counter() if started is None else started
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    lam = check_number("regularization", regularization, lo=0, hi=1, caller="optbb.osdt.rashomon_set")
    epsilon, bound = check_bound(epsilon, bound)
    max_depth = check_max_depth(max_depth)
    limits = Limits(time_limit, node_limit, memory_limit)
    if lam == 0 and max_depth is None:
        raise ValueError("regularization 0 needs max_depth: without a leaf penalty and a depth limit every tree "
                         "that splits the data further is as good")
    cuts = cuts_of(data)
    amounts = Amounts(data.X, data.y, len(data.label_names), data.sample_weight)
    space = TreeSpace(amounts, lam, max_depth, bool(exclude_useless), limits.node_limit)
    engine = SetEngine(space, epsilon, bound)
    result = driver.run_search(engine, limits, verbose, started=started)
    status, optimum, limit = result.status, engine.optimum, engine.limit
    if status is Status.OPTIMAL and limit < optimum:
        warnings.warn(f"the bound {limit:.6g} is below the optimum {optimum:.6g}: the Rashomon set is empty",
                      stacklevel=2)
    complete_below = min(engine.reached, limit) if status is Status.OPTIMAL else engine.reached
    backend = TreeBackend(space, space.root, complete_below, data.feature_names, classes, cuts)
    counters = {**result.counters, "memory_bytes": max(result.counters["memory_bytes"], space.memory_bytes())}
    if verbose:
        print(f"Rashomon set of trees: {sum(lv.count for lv in backend.levels)} trees within {limit:.6g} "
              f"(optimum {optimum:.6g}), {space.n_nodes} subproblems, {counters['total_time']:.2f} s, "
              f"{status.value}")
    return RashomonSet("trees", backend, optimum, limit, status, limit if status is Status.OPTIMAL else complete_below,
                       lam, counters, prepare=None if cuts is None else cuts.transform)
