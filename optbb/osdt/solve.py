"""``optbb.osdt.solve``: checks the options and hands the problem to one of the two OSDT searches, the
dynamic-programming search over supports (:mod:`optbb.osdt.dp.engine`, the default) or the OSDT paper's search over
leaf sets (:mod:`optbb.osdt.leaf_set.engine`).

Returns the common :class:`~optbb.common.result.SearchResult`; its ``model`` is an :class:`optbb.osdt.model.Tree`.
Numeric columns reach ``solve`` as a :class:`~optbb.osdt.numeric.cuts.CutDataset` (:func:`cut_dataset`: every
cut ``x <= t`` of every numeric column is a binary feature); the tree it returns reads the raw columns.
"""
from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..common.data import BinaryDataset
from ..common.result import SearchResult
from ..common.limits import parse_memory
from ..common.validation import NameList, Number, check_number, check_params
from .numeric.cuts import ColumnValues, CutDataset, column_values
from .numeric.engine import MAX_DEPTH, solve_cuts
from .dp.engine import solve_dp
from .leaf_set.engine import ABLATIONS, POLICIES, solve_leaf_set

_RENAMED = object()  # default of solve's former keyword warm_start


def check_regularization(regularization) -> float:
    """Lambda of the OSDT objective, a number in (0, 1] (a leaf costs lambda), or a ValueError naming the problem."""
    if isinstance(regularization, Real) and not isinstance(regularization, bool) and regularization == 0:
        raise ValueError("regularization 0 (fewest errors, whatever the size) needs max_depth and search='dp'; "
                         "without them, give a regularization in (0, 1]")
    return check_number("regularization", regularization, lo=0, hi=1, lo_open=True, caller="optbb.osdt.solve")


OPTION_CONSTRAINTS: dict = {  # solve's options, checked here and by OSDTClassifier
    "policy": [StrOptions(set(POLICIES))],
    "ablation": [NameList(ABLATIONS)],
    "initial_tree": [StrOptions({"cart"}), None],
    "max_depth": [Number(Integral, 0, None, closed="left"), None],
    "max_leaves": [Number(Integral, 1, None, closed="left"), None],
    "upper_bound": [Number(Real, 0, None, closed="neither"), None],
    "search": [StrOptions({"auto", "dp", "leaf_set"})],
}


def check_options(policy, ablation, initial_tree, max_depth, max_leaves, upper_bound, search="auto"):
    """Check solve's options (a ValueError naming the parameter); returns ``ablation`` as a tuple."""
    check_params(OPTION_CONSTRAINTS, {"policy": policy, "ablation": ablation, "initial_tree": initial_tree,
                                      "max_depth": max_depth, "max_leaves": max_leaves, "upper_bound": upper_bound,
                                      "search": search},
                 "optbb.osdt.solve")
    return (ablation,) if isinstance(ablation, str) else tuple(ablation)


def solve(data: BinaryDataset, regularization: float, *, search: str = "auto", policy: str = "curiosity",
          ablation=(), initial_tree: str | None = "cart", upper_bound: float | None = None,
          max_depth: int | None = None, max_leaves: int | None = None, time_limit: float | None = None,
          node_limit: int | None = None, memory_limit="auto", verbose: int = 0, labels=None,
          warm_start=_RENAMED, started: float | None = None) -> SearchResult:
    """Certifiably optimal sparse decision tree (OSDT) minimising ``errors / N + regularization * leaves``.

    Parameters
    ----------
    data : BinaryDataset with 0/1 features and labels; its ``sample_weight`` (real, non-negative) turns
        ``errors / N`` into the weight of the misclassified samples over the total weight ("dp" only: the
        leaf-set search takes uniform weights only).  For numeric columns, ``cut_dataset(X, y)`` (a
        :class:`~optbb.osdt.numeric.cuts.CutDataset` of every cut of every column): the tree is then optimal over
        every threshold, and the model reads and predicts on the raw columns.
    regularization : lambda, the penalty per leaf, in (0, 1] (0 is allowed with ``search="dp"`` and a
        ``max_depth``: minimum errors, ties to fewer leaves not guaranteed).
    search : "dp" (dynamic programming over supports, :mod:`optbb.osdt.dp.kernel`), "leaf_set" (the OSDT paper's search
        over leaf sets, the only one with ``policy``, ``ablation``, ``upper_bound`` and ``max_leaves``) or "auto"
        (the default): "dp" unless one of those leaf-set options is set.
    labels : class indices ``0 .. k-1`` (k >= 2) replacing ``data.y``, for more than two classes ("dp" only).
    policy : "curiosity" (default), "lower_bound", "objective", "entropy", "gini" or "fifo".
    ablation : names of bounds to switch off: "support", "incremental_accuracy", "accurate_support",
        "lookahead", "equivalent_points", "leaf_bound".  The hierarchical lower bound and the leaf permutation
        symmetry (Tree cache) are always on.
    initial_tree : "cart" (initial incumbent from a CART tree with lambda-tied hyper-parameters) or None.
        (``warm_start``, its former name, still works with a FutureWarning.)
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
    weighted = data.sample_weight is not None and not np.all(data.sample_weight == data.sample_weight[0])
    if warm_start is not _RENAMED:
        warnings.warn("solve(warm_start=...) is renamed solve(initial_tree=...); warm_start will be removed",
                      FutureWarning, stacklevel=2)
        initial_tree = warm_start
    warm_start = None if initial_tree == "none" else initial_tree  # "none": the command line's spelling of None
    max_depth = _within_features(max_depth, data.n_features)
    # -- search dispatch: the dynamic-programming search unless an option of the leaf-set search is asked for ----
    cuts = data.cuts if isinstance(data, CutDataset) else None
    chosen = choose_search(search, policy, ablation, upper_bound, max_leaves, labels, weighted)
    if (chosen == "dp" and cuts is not None and data.raw is not None
            and on_sorted_orders(max_depth, regularization, data.n_features)):
        return _solve_cuts(data, regularization, warm_start=warm_start, max_depth=max_depth, time_limit=time_limit,
                           node_limit=node_limit, memory_limit=memory_limit, verbose=verbose, labels=labels,
                           started=started)
    if chosen == "dp":
        if cuts is not None:
            memory_limit = _without_pair_table(memory_limit, data, max_depth, labels)
        result = _solve_dp(data, regularization, warm_start=warm_start, max_depth=max_depth, time_limit=time_limit,
                           node_limit=node_limit, memory_limit=memory_limit, verbose=verbose, labels=labels,
                           sample_weight=data.sample_weight if weighted else None, started=started)
    else:  # -- the leaf-set search ---------------------------------------------------------------------------------
        lam = check_regularization(regularization)
        ablation = check_options(policy, ablation, warm_start, max_depth, max_leaves, upper_bound)
        result = solve_leaf_set(data, lam, policy=policy, ablation=ablation, initial_tree=warm_start,
                                upper_bound=upper_bound, max_depth=max_depth, max_leaves=max_leaves,
                                time_limit=time_limit, node_limit=node_limit, memory_limit=memory_limit,
                                verbose=verbose, started=started)
    if cuts is not None:
        result.model = result.model.over_columns(cuts)
    return result


# ----------------------------------------------------------------------------------------------------------------
# search dispatch ("auto" | "dp" | "leaf_set")
# ----------------------------------------------------------------------------------------------------------------
SEARCHES = ("auto", "dp", "leaf_set")


def choose_search(search, policy="curiosity", ablation=(), upper_bound=None, max_leaves=None, labels=None,
                  weighted: bool = False) -> str:
    """"dp" or "leaf_set" for the ``search`` argument; a ValueError names an option the chosen search lacks.
    ``weighted``: the samples have non-uniform weights, which only "dp" takes."""
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {list(SEARCHES)}, got {search!r}")
    leaf_set_only = [name for name, is_set in (("policy", policy != "curiosity"),
                                               ("ablation", isinstance(ablation, str) or bool(ablation)),
                                               ("upper_bound", upper_bound is not None),
                                               ("max_leaves", max_leaves is not None)) if is_set]
    if weighted and search != "dp" and (search == "leaf_set" or leaf_set_only):
        raise ValueError(f"sample_weight (non-uniform sample or class weights) needs search='dp', which does not "
                         f"support {', '.join(leaf_set_only)}" if leaf_set_only else
                         "search='leaf_set' does not support sample_weight (non-uniform sample or class weights): "
                         "use search='dp' or search='auto'")
    if search == "auto":
        search = "leaf_set" if leaf_set_only else "dp"
    if search == "dp" and leaf_set_only:
        raise ValueError(f"search='dp' does not support {', '.join(leaf_set_only)} (the leaf-set search does: "
                         "use search='leaf_set' or search='auto')")
    if search == "leaf_set" and labels is not None:
        raise ValueError("labels (more than two classes) need search='dp' or 'auto'")
    return search


def _solve_dp(data, regularization, *, warm_start, max_depth, time_limit, node_limit, memory_limit, verbose,
              labels, sample_weight=None, started=None):
    check_params({k: OPTION_CONSTRAINTS[k] for k in ("max_depth", "initial_tree")},
                 {"max_depth": max_depth, "initial_tree": warm_start},
                 "optbb.osdt.solve")
    if max_depth is None:
        lam = check_regularization(regularization)
    else:  # with a depth limit, lambda = 0 (minimum errors) is a valid objective
        lam = check_number("regularization", regularization, lo=0, hi=1)
    y = data.y if labels is None else check_labels(labels, data.n_samples)
    return solve_dp(data.X, y, lam, max_depth=None if max_depth is None else int(max_depth),
                    feature_names=data.feature_names, warm_start=warm_start,
                    time_limit=time_limit, node_limit=node_limit, memory_limit=memory_limit, verbose=verbose,
                    sample_weight=sample_weight, started=started)


SORTED_ORDERS_CUTS = 2000  # with regularization > 0, fewer cuts than this go to the dp over the matrix of cuts


def on_sorted_orders(max_depth, regularization=0.0, n_cuts: int = 0, search: str = "auto",
                     **leaf_set_options) -> bool:
    """Whether numeric columns with these options (``n_cuts`` cuts in all) go to the search over sorted orders
    (:mod:`optbb.osdt.numeric.engine`), else to the dp search over the matrix of every cut.  The dp search is asked for
    (``search`` "dp" or "auto" without leaf-set options), and: ``regularization=0`` with a depth limit of at most
    :data:`~optbb.osdt.numeric.engine.MAX_DEPTH`; or ``regularization > 0`` (which bounds the leaves, hence the depth,
    of a tree better than the first one) with at least :data:`SORTED_ORDERS_CUTS` cuts.  Below that the dp over
    the cuts, whose bounds and memo use the regularization better, was faster where measured (adult, 5,000 rows,
    309 features, lambda 0.005, depth 4: 20 s against 106 s), above it the search over sorted orders (adult's six
    numeric columns, 4,025 cuts, lambda 0.05: certified in 11 s against not in 120 s; breast cancer's 15,310 cuts
    do not fit the dp's depth-2 tables)."""
    if search not in SEARCHES or choose_search(search, **leaf_set_options) != "dp":
        return False
    limited = isinstance(max_depth, Integral) and not isinstance(max_depth, bool) and max_depth >= 0
    if isinstance(regularization, Real) and not isinstance(regularization, bool) and regularization > 0:
        return (max_depth is None or limited) and n_cuts >= SORTED_ORDERS_CUTS
    return limited and max_depth <= MAX_DEPTH


def _solve_cuts(data: CutDataset, regularization, *, labels, **options):
    return solve_columns(data.raw, data.y if labels is None else labels, regularization, data.cuts.column_names,
                         n_classes=None if labels is not None else len(data.label_names),
                         sample_weight=data.sample_weight, **options)


def solve_columns(X: np.ndarray, y, regularization: float, column_names, *, max_depth: int | None, n_classes=None,
                  sample_weight=None, warm_start="cart", time_limit=None, node_limit=None, memory_limit="auto",
                  verbose: int = 0, started: float | None = None, columns: ColumnValues | None = None) -> SearchResult:
    """The depth-limited optimal tree over every threshold of the numeric columns ``X`` (float64, finite, named
    ``column_names``; 0/1 columns are one split each), for class indices ``y`` (``n_classes``, default the largest
    plus one), by the search over sorted orders (:mod:`optbb.osdt.numeric.engine`), without a matrix of cuts.  What
    ``OSDTClassifier.fit`` runs on numeric columns with a ``max_depth``; options as in :func:`solve`.  ``columns``:
    ``column_values(X, sample_weight)`` (:func:`~optbb.osdt.numeric.cuts.column_values`) when already known."""
    started = time.perf_counter() if started is None else started
    check_params({k: OPTION_CONSTRAINTS[k] for k in ("max_depth", "initial_tree")},
                 {"max_depth": max_depth, "initial_tree": warm_start}, "optbb.osdt.solve")
    lam = check_number("regularization", regularization, lo=0, hi=1) if max_depth is not None else \
        check_regularization(regularization)
    y = check_labels(y, X.shape[0])
    k = max(2, int(np.max(y, initial=0)) + 1) if n_classes is None else int(n_classes)
    columns = column_values(X, sample_weight) if columns is None else columns
    return solve_cuts(X, y, lam, max_depth, list(column_names), columns.binary, n_classes=k,
                      sample_weight=sample_weight, warm_start=warm_start, time_limit=time_limit,
                      node_limit=node_limit, memory_limit=memory_limit, verbose=verbose, started=started,
                      values=columns.values,
                      ranked=None if columns.ranks is None else (columns.ranks, columns.orders))


def _without_pair_table(memory_limit, data: BinaryDataset, max_depth, labels):
    """The memory limit left for the dp search once the depth-2 solver's pair-count table is set aside: that table
    (``k m^2`` int64 for ``m`` features and ``k`` classes, allocated per call) is not counted by the engine, and with
    every cut as a feature ``m`` can be tens of thousands (15,310 on breast cancer: 3.7 GB).  A table above the
    limit leaves the search 1 byte, so it stops at once with status MEMORY_LIMIT and the initial tree."""
    try:
        cap = parse_memory(memory_limit)
        k = data.n_classes if labels is None else max(2, int(np.max(labels)) + 1)
    except (TypeError, ValueError):  # bad values are named by the checks of the search
        return memory_limit
    if cap is None or not isinstance(max_depth, Integral) or max_depth < 2:
        return memory_limit
    return max(1, cap - 8 * k * data.n_features ** 2)


def _within_features(max_depth, n_features: int):
    """A depth limit above the number of features limits nothing (a path splits on a feature at most once): it is
    taken as that number, so that a huge integer reaches no fixed-width array (``max_depth=10**30`` raised a bare
    OverflowError).  Anything but an integer is left to the option checks."""
    if isinstance(max_depth, Integral) and not isinstance(max_depth, bool) and max_depth > n_features:
        return n_features
    return max_depth


def check_labels(labels, n_samples: int) -> np.ndarray:
    """Integer class labels ``0 .. k-1`` (k >= 2 allowed) of length ``n_samples``, or a ValueError."""
    y = np.asarray(labels)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"labels must be a 1-D array of {n_samples} class indices, got shape {y.shape}")
    whole = y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y))
    if y.dtype.kind not in "iub" and not whole:
        raise ValueError(f"labels must be integers 0..k-1, got dtype {y.dtype}")
    y = y.astype(np.int64)
    if y.size and (y.min() < 0):
        raise ValueError(f"labels must be integers 0..k-1, got a negative label {int(y.min())}")
    return y
