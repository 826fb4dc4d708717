"""``optbb.osdt.solve``: checks the options, chooses the engine once (:func:`route`) and hands the problem to it: the
dynamic-programming search over supports (:mod:`optbb.osdt.dp`, the default), the OSDT paper's search over leaf sets
(:mod:`optbb.osdt.leaf_set`) or, for numeric columns, the search over each column's sorted order
(:mod:`optbb.osdt.numeric`).

Returns the common :class:`~optbb.common.result.SearchResult`; its ``model`` is an :class:`optbb.osdt.model.Tree`.
Numeric columns reach ``solve`` as a :class:`~optbb.osdt.numeric.cuts.CutDataset` (:func:`cut_dataset`: every
cut ``x <= t`` of every numeric column is a binary feature); the tree it returns reads the raw columns.
"""
from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..common.data import BinaryDataset
from ..common.limits import parse_memory
from ..common.result import SearchResult
from ..common.validation import NameList, Number, check_number, check_params
from .dp.engine import solve_dp
from .leaf_set.engine import ABLATIONS, POLICIES, solve_leaf_set
from .numeric.cuts import CutDataset
from .numeric.engine import MAX_DEPTH, solve_cuts
from .numeric.intervals import fits_intervals, solve_intervals
from .support import nested_cuts

SEARCHES = ("auto", "dp", "leaf_set")
LEAF_SET_OPTIONS = ("policy", "ablation", "upper_bound", "max_leaves")  # options only the leaf-set search has

OPTION_CONSTRAINTS: dict = {  # solve's options, checked here and by OSDTClassifier
    "policy": [StrOptions(set(POLICIES))],
    "ablation": [NameList(ABLATIONS)],
    "initial_tree": [StrOptions({"cart"}), None],
    "max_depth": [Number(Integral, 0, None, closed="left"), None],
    "max_leaves": [Number(Integral, 1, None, closed="left"), None],
    "upper_bound": [Number(Real, 0, None, closed="neither"), None],
    "search": [StrOptions(set(SEARCHES))],
}


def solve(data: BinaryDataset, regularization: float, *, search: str = "auto", policy: str = "curiosity",
          ablation=(), initial_tree: str | None = "cart", upper_bound: float | None = None,
          max_depth: int | None = None, max_leaves: int | None = None, time_limit: float | None = None,
          node_limit: int | None = None, memory_limit="auto", verbose: int = 0,
          started: float | None = None) -> SearchResult:
    """Certifiably optimal sparse decision tree (OSDT) minimising ``errors / N + regularization * leaves``.

    Parameters
    ----------
    data : BinaryDataset with 0/1 features and class indices ``y`` (``0 .. k-1``, ``k = len(data.label_names)``;
        more than two classes need the dp search); its ``sample_weight`` (real, non-negative) turns ``errors / N``
        into the weight of the misclassified samples over the total weight (the dp search only).  For numeric
        columns, ``cut_dataset(X, y)`` (a :class:`~optbb.osdt.numeric.cuts.CutDataset` of every cut of every
        column): the tree is then optimal over every threshold, and the model reads and predicts on the raw columns.
    regularization : lambda, the penalty per leaf, in (0, 1] (0 is allowed with the dp search and a ``max_depth``:
        minimum errors, ties to fewer leaves not guaranteed).
    search : "dp" (dynamic programming over supports, :mod:`optbb.osdt.dp`), "leaf_set" (the OSDT paper's search
        over leaf sets, the only one with ``policy``, ``ablation``, ``upper_bound`` and ``max_leaves``) or "auto"
        (the default): "dp" unless one of those leaf-set options is set.  :func:`route` says which engine runs.
    policy : "curiosity" (default), "lower_bound", "objective", "entropy", "gini" or "fifo".
    ablation : names of bounds to switch off: "support", "incremental_accuracy", "accurate_support",
        "lookahead", "equivalent_points", "leaf_bound".  The hierarchical lower bound and the leaf permutation
        symmetry (Tree cache) are always on.
    initial_tree : "cart" (initial incumbent from a CART tree with lambda-tied hyper-parameters) or None.
    upper_bound : an objective value known to be achievable, used as the initial pruning threshold.  If no tree
        below it exists, the search is repeated without it.
    max_depth, max_leaves : constraints on the tree (depth = number of splits on a path).
    time_limit (s), node_limit (queue insertions, "trees evaluated"), memory_limit (bytes, "512M", "auto" = half of
        the physical memory, the default, or None for no cap) stop the search early; the result then reports its
        status, a valid lower bound and the gap.  The clock starts when ``solve`` is called (or at ``started``, a
        ``time.perf_counter()``: ``OSDTClassifier.fit`` passes its own start): checks, packing, the CART warm start
        (left out when it would take over a quarter of the time left) and the tree's completion all count toward
        ``time_limit`` and ``total_time``; compiling or loading the Numba kernels does not (``kernel_load_time``).
    """
    started = time.perf_counter() if started is None else started
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    initial_tree = None if initial_tree == "none" else initial_tree  # "none": the command line's spelling of None
    check_params(OPTION_CONSTRAINTS, {"policy": policy, "ablation": ablation, "initial_tree": initial_tree,
                                      "max_depth": max_depth, "max_leaves": max_leaves, "upper_bound": upper_bound,
                                      "search": search}, "optbb.osdt.solve")
    return solve_checked(data, regularization, search=search, policy=policy, ablation=ablation,
                         initial_tree=initial_tree, upper_bound=upper_bound, max_depth=max_depth,
                         max_leaves=max_leaves, time_limit=time_limit, node_limit=node_limit,
                         memory_limit=memory_limit, verbose=verbose, started=started)


def solve_checked(data: BinaryDataset, regularization: float, *, search: str, policy: str, ablation,
                  initial_tree: str | None, upper_bound: float | None, max_depth: int | None,
                  max_leaves: int | None, time_limit: float | None, node_limit: int | None, memory_limit,
                  verbose: int, started: float) -> SearchResult:
    """:func:`solve` with its options already checked against :data:`OPTION_CONSTRAINTS` (``OSDTClassifier`` checks
    them with its parameters): the route, then the engine."""
    max_depth = _within_features(max_depth, data.n_features)
    leaf_set_options = {"policy": policy != "curiosity", "ablation": isinstance(ablation, str) or bool(ablation),
                        "upper_bound": upper_bound is not None, "max_leaves": max_leaves is not None}
    engine = route(data, regularization, search, max_depth, [k for k, v in leaf_set_options.items() if v])
    lam = check_regularization(regularization, max_depth if engine != "leaf_set" else None)
    limits = dict(time_limit=time_limit, node_limit=node_limit, verbose=verbose, started=started)
    if engine == "intervals" and node_limit is not None:  # the interval DP is one pass, not counted in nodes
        engine = "numeric"
    if engine == "numeric":
        return solve_cuts(data, lam, max_depth=max_depth, warm_start=initial_tree, memory_limit=memory_limit,
                          **limits)
    if engine == "intervals":
        result = solve_intervals(data, lam, started)
    elif engine == "dp":
        weights = data.sample_weight if _weighted(data) else None
        nested = None
        if isinstance(data, CutDataset):
            memory_limit = _without_pair_table(memory_limit, data, max_depth)
            nested = nested_cuts(data.cuts.columns, data.cuts.thresholds)
        result = solve_dp(data.X, data.y, lam, max_depth=max_depth, feature_names=data.feature_names,
                          warm_start=initial_tree, memory_limit=memory_limit, sample_weight=weights, nested=nested,
                          **limits)
    else:
        result = solve_leaf_set(data, lam, policy=policy, ablation=(ablation,) if isinstance(ablation, str)
                                else tuple(ablation), initial_tree=initial_tree, upper_bound=upper_bound,
                                max_depth=max_depth, max_leaves=max_leaves, memory_limit=memory_limit, **limits)
    if isinstance(data, CutDataset):
        result.model = result.model.over_columns(data.cuts)
    return result


SORTED_ORDERS_CUTS = 2000  # with regularization > 0, fewer cuts than this may go to the dp over the cuts
DP_ROWS_PER_CUT = 10  # with regularization > 0, the dp over the cuts when there are also this many rows per cut
DP_FEW_CUTS = 64  # with regularization > 0, fewer cuts than this go to the dp over the cuts whatever the rows per cut


def route(data: BinaryDataset, regularization, search: str = "auto", max_depth=None,
          leaf_set_options=()) -> str:
    """The engine that solves ``data``: "leaf_set", "dp" or "numeric" (a ValueError when the options ask for what
    no engine has).  ``leaf_set_options``: the names of the options set that only the leaf-set search has
    (:data:`LEAF_SET_OPTIONS`).

    - "leaf_set" when ``search="leaf_set"``, or with ``search="auto"`` when a leaf-set option is set: the OSDT
      paper's search, kept for its policies and ablations.  It takes two classes and uniform weights only.
    - "numeric" when the dp search is asked for and ``data`` holds numeric columns
      (:class:`~optbb.osdt.numeric.cuts.CutDataset`), and either ``regularization`` is 0 with a ``max_depth`` of at
      most :data:`~optbb.osdt.numeric.engine.MAX_DEPTH`, or ``regularization > 0`` with at least
      :data:`SORTED_ORDERS_CUTS` cuts, or at least :data:`DP_FEW_CUTS` cuts and fewer than :data:`DP_ROWS_PER_CUT`
      rows per cut, with or without a depth limit.  Below :data:`DP_FEW_CUTS` cuts the dp was mostly faster on
      small noisy data (a threshold rule with 20 % of the labels flipped, 20-300 rows of 2-4 columns of 5-1,000
      values, lambda .005 and .02): without a depth limit 0.5-413 times the speed, the slowest at 21 ms against 11
      (40 rows of two 20-valued columns at lambda .02: 14 ms against 5.7 s; 80 rows of four 5-valued columns at
      .005: 0.06 s where the search over sorted orders stopped at 10 s; the GOSDT suite's chudi, 46 cuts: 6 against
      4 ms); at depths 3-5 0.6-12 times.  Where many rows share each cut the dp over the matrix of cuts, whose memo
      of supports meets the same rows again, was faster: compas_processed (12,381 rows, 626 cuts, 20 rows per
      cut) without a depth limit at lambda .05, certified in 14 s where the search over sorted orders was not in
      30 s, and at depth 3 (lambda .05/.01/.002: 1.6/4.3/4.8 s against 2.8/11.2/over 20 s); adult (5,000 rows, 309
      cuts, lambda .005, depth 4: 20 s against 106 s).  With a few rows per cut the search over sorted orders
      was: without a depth limit it certified the GOSDT suite's iris .005, gaussian_1k .05 and .02 and
      sine_1k .05, which the dp did not in 30 s; at depths 3 and 4 (lambda .05/.01/.002, 20 s each) wine (178 rows,
      1,263 cuts) took 0.03-1.6 s where the dp certified one of six, fico_1k (1,000 rows, 1,384 cuts) at depth 3
      0.6-7 s against 9 s and two stops, and iris, digits, gaussian_1k and sine_1k were faster by 7-1,000 times or
      certified where the dp stopped; on 800 rows of adult (968 cuts) and 3,000 of compas_processed (482 cuts,
      6 rows per cut) the two were within 30 % of each other.  Above :data:`SORTED_ORDERS_CUTS` cuts the dp's
      depth-2 tables grow as the square of the cuts (breast cancer's 15,310 do not fit).
    - "intervals" for one numeric column (:class:`~optbb.osdt.numeric.cuts.CutDataset`) of at most
      :data:`~optbb.osdt.numeric.intervals.MAX_VALUES` distinct values, ``regularization > 0`` and no depth limit:
      a tree there is a partition of the column into intervals, and the interval dynamic program finds the best
      one exactly in one pass (:mod:`~optbb.osdt.numeric.intervals`; the GOSDT suite's gaussian_1k and sine_1k at
      lambda .01 and .005, which neither search certified in 30 s, in milliseconds).
    - "dp" otherwise: the dynamic-programming search over supports, any number of classes, real weights.
    """
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {list(SEARCHES)}, got {search!r}")
    options = ", ".join(leaf_set_options)
    if search == "dp" and options:
        raise ValueError(f"search='dp' does not support {options} (the leaf-set search does: use "
                         "search='leaf_set' or search='auto')")
    if search == "leaf_set" or options:
        _check_leaf_set_data(data, options)
        return "leaf_set"
    if isinstance(data, CutDataset) and max_depth is None and _positive(regularization) and fits_intervals(data):
        return "intervals"
    if isinstance(data, CutDataset) and _sorted_orders_pay(max_depth, regularization, data.n_features,
                                                           data.n_samples):
        return "numeric"
    return "dp"


def _check_leaf_set_data(data: BinaryDataset, options: str) -> None:
    """A ValueError when ``data`` needs the dp search: non-uniform weights or more than two classes."""
    why = "search='leaf_set'" if not options else f"{options} (options of the leaf-set search only)"
    if _weighted(data):
        raise ValueError(f"sample_weight (non-uniform sample or class weights) needs search='dp'; {why} takes "
                         "uniform weights only")
    if data.n_classes > 2:
        raise ValueError(f"y has {data.n_classes} classes; {why} takes two classes only: use search='dp' or "
                         "'auto' without the leaf-set options")


def _positive(regularization) -> bool:
    return isinstance(regularization, Real) and not isinstance(regularization, bool) and regularization > 0


def _sorted_orders_pay(max_depth, regularization, n_cuts: int, n_rows: int) -> bool:
    """The numeric branch of :func:`route`."""
    limited = isinstance(max_depth, Integral) and not isinstance(max_depth, bool) and max_depth >= 0
    if _positive(regularization):
        return (max_depth is None or limited) and (n_cuts >= SORTED_ORDERS_CUTS or (
            n_cuts >= DP_FEW_CUTS and n_rows < DP_ROWS_PER_CUT * n_cuts))
    return limited and max_depth <= MAX_DEPTH


def _weighted(data: BinaryDataset) -> bool:
    w = data.sample_weight
    return w is not None and not np.all(w == w[0])


def check_regularization(regularization, max_depth=None) -> float:
    """Lambda of the OSDT objective: a number in (0, 1] (a leaf costs lambda), or with a ``max_depth`` (the dp and
    numeric searches) in [0, 1]; else a ValueError naming the problem."""
    if max_depth is not None:  # with a depth limit, lambda = 0 (minimum errors) is a valid objective
        return check_number("regularization", regularization, lo=0, hi=1, caller="optbb.osdt.solve")
    if isinstance(regularization, Real) and not isinstance(regularization, bool) and regularization == 0:
        raise ValueError("regularization 0 (fewest errors, whatever the size) needs max_depth and search='dp'; "
                         "without them, give a regularization in (0, 1]")
    return check_number("regularization", regularization, lo=0, hi=1, lo_open=True, caller="optbb.osdt.solve")


def _without_pair_table(memory_limit, data: BinaryDataset, max_depth):
    """The memory limit left for the dp search once the depth-2 solver's pair-count table is set aside: that table
    (``k m^2`` int64 for ``m`` features and ``k`` classes, allocated per call) is not counted by the engine, and with
    every cut as a feature ``m`` can be tens of thousands (15,310 on breast cancer: 3.7 GB).  A table above the
    limit leaves the search 1 byte, so it stops at once with status MEMORY_LIMIT and the initial tree."""
    try:
        cap = parse_memory(memory_limit)
    except (TypeError, ValueError):  # bad values are named by the checks of the search
        return memory_limit
    if cap is None or not isinstance(max_depth, Integral) or max_depth < 2:
        return memory_limit
    return max(1, cap - 8 * data.n_classes * data.n_features ** 2)


def _within_features(max_depth, n_features: int):
    """A depth limit above the number of features limits nothing (a path splits on a feature at most once): it is
    taken as that number, so that a huge integer reaches no fixed-width array (``max_depth=10**30`` raised a bare
    OverflowError).  Anything but an integer is left to the option checks."""
    if isinstance(max_depth, Integral) and not isinstance(max_depth, bool) and max_depth > n_features:
        return n_features
    return max_depth
