"""BinOCT and RBinOCT: optimal complete decision trees of a fixed depth by mixed-integer programming (HiGHS).

BinOCT (Verwer & Zhang, AAAI 2019) learns a *complete* binary tree of depth ``d`` (``2^d - 1`` internal nodes,
``2^d`` leaves) minimising the number of training errors.  RBinOCT (OSDT paper, appendix J, Eqs. 27-28) adds a
penalty ``lambda`` per non-empty leaf through leaf indicators ``alpha_l``.  optbb's features are binary, so every
node only picks a feature (BinOCT's threshold variables ``t_{n,t}`` and its binary threshold encoding vanish: the
left branch takes ``x_f = 0``, the right branch ``x_f = 1``).

Formulation (spec osdt.md section 4.5, in the binary-feature special case).  Rows with identical feature vectors
are merged into groups ``g`` with class counts ``n_g0``, ``n_g1``; this is the same MIP with weighted rows.

* ``f[n,j]`` binary: node ``n`` splits on feature ``j``;              ``sum_j f[n,j] = 1``
* ``w[g,l]`` continuous in [0,1]: group ``g`` reaches leaf ``l``;   ``sum_l w[g,l] = 1``
* BinOCT's aggregated routing constraints (one per node and feature and branch, big-M = the number of groups
  concerned):  ``M f[n,j] + sum_{g: x_gj=0} sum_{l in rl(n)} w[g,l] <= M``  and the mirror one for ``x_gj = 1``
  and the left leaves ``ll(n)``.  ``formulation="rowwise"`` uses per-group constraints instead,
  ``sum_{l in rl(n)} w[g,l] <= sum_{j: x_gj=1} f[n,j]`` (and the mirror), a tighter relaxation of the same set.
* ``p[l]`` binary: leaf ``l`` predicts 1; errors ``e1[l] >= sum_g n_g1 w[g,l] - N1 p[l]``,
  ``e0[l] >= sum_g n_g0 w[g,l] - N0 (1 - p[l])``.
* RBinOCT only: ``alpha[l]`` binary with ``sum_g w[g,l] <= G alpha[l]`` (constraint 28, ``G`` = number of groups).

Objective: ``sum_l e0[l] + e1[l]`` (+ ``lambda N sum_l alpha[l]``).  ``objective_`` reports it divided by ``N``:
the training error rate for BinOCT, ``error rate + lambda * non-empty leaves`` for RBinOCT (OSDT's objective
when no two sibling leaves share a label).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import partial
from numbers import Integral, Real
from types import ModuleType
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions

from ..common.limits import parse_memory
from ..common.proba import LogOddsDecisionMixin, binary_counts, smoothed_probabilities
from ..common.result import SearchResult, Status, common_counters
from ..common.trace import COLUMNS as TRACE_COLUMNS
from ..common.validation import (FEATURE_NAMES_CONSTRAINT, LIMIT_CONSTRAINTS, BinaryOnlyTagsMixin, Number,
                                 display_names, expand_weights, validate_fit_input, validate_predict_input)
from .highs_child import capped_child_available, quiet_highs, run_capped

FORMULATIONS = ("binoct", "rowwise")


# ---------------------------------------------------------------------------------------------------------------
# the fitted model
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class CompleteTree:
    """A complete binary tree of depth ``depth`` over binary features, nodes numbered breadth first.

    ``features[n]`` is the feature tested at internal node ``n`` (children ``2n+1`` for ``x = 0``, ``2n+2`` for
    ``x = 1``); leaf ``k`` (left to right) is node ``2^depth - 1 + k``.  ``predictions[k]`` is the label of leaf
    ``k`` (0/1), ``n_samples[k]`` / ``errors[k]`` its training counts.  An empty leaf predicts the majority label
    of its nearest non-empty ancestor.
    """

    depth: int
    features: list[int]
    predictions: list[int]
    feature_names: list[str]
    n_samples: list[int] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)
    classes: Sequence | None = None

    @property
    def n_leaves(self) -> int:
        """Non-empty leaves: the leaves left after removing every split that sends all training rows one way."""
        return int(sum(1 for c in self.n_samples if c > 0))

    @property
    def n_leaves_merged(self) -> int:
        """Leaves of the smallest tree predicting the same labels: non-empty leaves, then sibling subtrees whose
        leaves all predict one label merged bottom-up (BinOCT's "useless splits" removed)."""
        return len(self._merged_leaves(0, 0))

    def _merged_leaves(self, node: int, level: int) -> list[int]:
        """Labels of the leaves under ``node`` after removing empty branches and merging same-label siblings."""
        if level == self.depth:
            k = node - ((1 << self.depth) - 1)
            return [self.predictions[k]] if self.n_samples[k] > 0 else []
        left = self._merged_leaves(2 * node + 1, level + 1)
        right = self._merged_leaves(2 * node + 2, level + 1)
        both = left + right
        if both and len(set(both)) == 1 and (len(left) <= 1 and len(right) <= 1):
            return [both[0]]
        return both

    def apply(self, X) -> np.ndarray:
        """Leaf index (0 .. 2^depth - 1) of every row of a 0/1 matrix."""
        return leaf_of(np.asarray(X), self.features, self.depth)

    def predict(self, X) -> np.ndarray:
        pred = np.asarray(self.predictions, dtype=np.int64)[self.apply(X)]
        return pred if self.classes is None else np.asarray(self.classes)[pred]

    def to_text(self) -> str:
        """Indented if/else text, one line per test and leaf, with the training counts of every leaf."""
        lines: list[str] = []

        def walk(node: int, level: int, indent: str) -> None:
            if level == self.depth:
                k = node - ((1 << self.depth) - 1)
                empty = "  [empty]" if self.n_samples[k] == 0 else ""
                label = self.predictions[k] if self.classes is None else self.classes[self.predictions[k]]
                lines.append(f"{indent}predict {label!s}  ({self.n_samples[k]} samples, "
                             f"{self.errors[k]} errors){empty}")
                return
            name = self.feature_names[self.features[node]]
            lines.append(f"{indent}if {name} == 1:")
            walk(2 * node + 2, level + 1, indent + "    ")
            lines.append(f"{indent}else:  # {name} == 0")
            walk(2 * node + 1, level + 1, indent + "    ")

        walk(0, 0, "")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def to_dict(self) -> dict:
        return {"depth": self.depth, "features": [self.feature_names[f] for f in self.features],
                "predictions": list(self.predictions), "n_samples": list(self.n_samples),
                "errors": list(self.errors)}


def leaf_of(X: np.ndarray, features: Sequence[int], depth: int) -> np.ndarray:
    """Leaf index (0 .. 2^depth - 1) each row of ``X`` reaches in the complete tree with the given node features."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    feats = np.asarray(features, dtype=np.int64)
    for _ in range(depth):
        node = 2 * node + 1 + X[np.arange(X.shape[0]), feats[node]].astype(np.int64)
    return node - ((1 << depth) - 1)


def tree_from_features(X: np.ndarray, y: np.ndarray, depth: int, features: Sequence[int],
                       feature_names: Sequence[str]) -> CompleteTree:
    """The complete tree with the given node features, leaves labelled by their training majority (ties -> 1;
    an empty leaf takes the majority of its nearest non-empty ancestor)."""
    n_leaf = 1 << depth
    leaf = leaf_of(X, features, depth)
    count = np.bincount(leaf, minlength=n_leaf)
    pos = np.bincount(leaf, weights=y, minlength=n_leaf).astype(np.int64)
    tree = CompleteTree(depth, [int(f) for f in features], [0] * n_leaf, list(feature_names), count.tolist(),
                        [0] * n_leaf)
    for k in range(n_leaf):
        h = 0  # the ancestor h levels up covers the leaves [(k >> h) << h, ((k >> h) + 1) << h)
        while count[(k >> h) << h:((k >> h) + 1) << h].sum() == 0:
            h += 1
        block = slice((k >> h) << h, ((k >> h) + 1) << h)
        tree.predictions[k] = int(2 * pos[block].sum() >= count[block].sum())
        tree.errors[k] = int(count[k] - pos[k] if tree.predictions[k] == 1 else pos[k])
    return tree


# ---------------------------------------------------------------------------------------------------------------
# the MIP
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class _Model:
    depth: int
    n_groups: int
    n_features: int
    has_alpha: bool

    @property
    def n_int(self) -> int:
        return (1 << self.depth) - 1

    @property
    def n_leaf(self) -> int:
        return 1 << self.depth

    # column offsets
    def f(self, node: int, j: int) -> int:
        return node * self.n_features + j

    def p(self, leaf: int) -> int:
        return self.n_int * self.n_features + leaf

    def w(self, g: int, leaf: int) -> int:
        return self.n_int * self.n_features + self.n_leaf + g * self.n_leaf + leaf

    def e0(self, leaf: int) -> int:
        return self.n_int * self.n_features + self.n_leaf * (1 + self.n_groups) + leaf

    def e1(self, leaf: int) -> int:
        return self.e0(leaf) + self.n_leaf

    def alpha(self, leaf: int) -> int:
        return self.e0(leaf) + 2 * self.n_leaf

    @property
    def n_cols(self) -> int:
        return self.n_int * self.n_features + self.n_leaf * (3 + self.n_groups + (1 if self.has_alpha else 0))


def _leaves_under(depth: int, node: int, level: int) -> tuple[range, range]:
    """Leaf indices under the left (x = 0) and right (x = 1) child of ``node`` at ``level``."""
    span = 1 << (depth - level)  # leaves under node
    first = (node - ((1 << level) - 1)) * span
    return range(first, first + span // 2), range(first + span // 2, first + span)


class _Rows:
    """CSR row accumulator for ``lower <= a x <= upper``."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.starts: list[int] = []
        self.index: list[np.ndarray] = []
        self.value: list[np.ndarray] = []
        self.nnz = 0

    def add(self, idx, val, lower: float, upper: float) -> None:
        idx = np.asarray(idx, dtype=np.int32)
        self.starts.append(self.nnz)
        self.index.append(idx)
        self.value.append(np.broadcast_to(np.asarray(val, dtype=np.float64), idx.shape))
        self.lower.append(lower)
        self.upper.append(upper)
        self.nnz += idx.size

    def arrays(self):
        return (np.asarray(self.lower, dtype=np.float64), np.asarray(self.upper, dtype=np.float64),
                np.asarray(self.starts, dtype=np.int32), np.concatenate(self.index).astype(np.int32),
                np.concatenate(self.value).astype(np.float64))


class BuildStopped(Exception):
    """The MIP's build was abandoned because its ``stop`` callable turned true (the time limit)."""


def build_mip(Xg: np.ndarray, n0: np.ndarray, n1: np.ndarray, depth: int, lam_n: float | None,
              formulation: str = "binoct", stop: Callable[[], bool] | None = None):
    """Columns (cost, lower, upper, integrality) and rows of the (R)BinOCT MIP over row groups ``Xg``.  Raises
    :class:`BuildStopped` once ``stop()`` is true, checked before each group's, node's or leaf's rows (the build of
    a few thousand groups takes seconds)."""
    stop = stop if stop is not None else (lambda: False)

    def check() -> None:
        if stop():
            raise BuildStopped
    G, F = Xg.shape
    mdl = _Model(depth, G, F, lam_n is not None)
    nc = mdl.n_cols
    cost = np.zeros(nc)
    lower = np.zeros(nc)
    upper = np.ones(nc)
    integ = np.zeros(nc, dtype=np.uint8)
    N0, N1 = float(n0.sum()), float(n1.sum())
    integ[:mdl.p(0) + mdl.n_leaf] = 1  # the f and p columns come first
    e0, e1 = slice(mdl.e0(0), mdl.e1(0)), slice(mdl.e1(0), mdl.e1(0) + mdl.n_leaf)
    cost[e0], cost[e1], upper[e0], upper[e1] = 1.0, 1.0, N0, N1
    if mdl.has_alpha:
        cost[mdl.alpha(0):], integ[mdl.alpha(0):] = lam_n, 1
    rows = _Rows()
    for n in range(mdl.n_int):  # each node picks one feature
        rows.add([mdl.f(n, j) for j in range(F)], 1.0, 1.0, 1.0)
    for g in range(G):  # each group reaches one leaf
        if g % 256 == 0:
            check()
        rows.add([mdl.w(g, k) for k in range(mdl.n_leaf)], 1.0, 1.0, 1.0)
    for level in range(depth):
        for n in range((1 << level) - 1, (1 << (level + 1)) - 1):
            left, right = _leaves_under(depth, n, level)
            if formulation == "binoct":
                for j in range(F):
                    check()
                    for value, leaves in ((0, right), (1, left)):  # rows with x_j = value may not take this side
                        gs = np.flatnonzero(Xg[:, j] == value)
                        if gs.size == 0:
                            continue
                        big_m = float(gs.size)
                        idx = [mdl.f(n, j)] + [mdl.w(g, k) for g in gs for k in leaves]
                        val = [big_m] + [1.0] * (len(idx) - 1)
                        rows.add(idx, val, -np.inf, big_m)
            else:
                for g in range(G):
                    if g % 64 == 0:
                        check()
                    for value, leaves in ((1, right), (0, left)):  # side allowed only by features with x_j = value
                        js = np.flatnonzero(Xg[g] == value)
                        idx = [mdl.w(g, k) for k in leaves] + [mdl.f(n, j) for j in js]
                        val = [1.0] * len(leaves) + [-1.0] * js.size
                        rows.add(idx, val, -np.inf, 0.0)
    for k in range(mdl.n_leaf):
        check()
        # e1 >= sum n1 w - N1 p   <=>  e1 - sum n1 w + N1 p >= 0
        gs = np.flatnonzero(n1)
        rows.add([mdl.e1(k), mdl.p(k)] + [mdl.w(g, k) for g in gs], [1.0, N1] + list(-n1[gs]), 0.0, np.inf)
        # e0 >= sum n0 w - N0 (1 - p)  <=>  e0 - sum n0 w - N0 p >= -N0
        gs = np.flatnonzero(n0)
        rows.add([mdl.e0(k), mdl.p(k)] + [mdl.w(g, k) for g in gs], [1.0, -N0] + list(-n0[gs]), -N0, np.inf)
        if mdl.has_alpha:  # (28): sum_g w[g,l] <= G alpha_l
            rows.add([mdl.w(g, k) for g in range(G)] + [mdl.alpha(k)], [1.0] * G + [-float(G)], -np.inf, 0.0)
    return mdl, (cost, lower, upper, integ), rows.arrays()


def _start_vector(mdl: _Model, Xg, n0, n1, features) -> np.ndarray:
    """A feasible solution of the MIP for the complete tree with the given node features."""
    x = np.zeros(mdl.n_cols)
    for n, j in enumerate(features):
        x[mdl.f(n, j)] = 1.0
    leaf = leaf_of(Xg, features, mdl.depth)
    x[[mdl.w(g, int(k)) for g, k in enumerate(leaf)]] = 1.0
    c0, c1 = np.bincount(leaf, n0, mdl.n_leaf), np.bincount(leaf, n1, mdl.n_leaf)  # class counts per leaf
    label = c1 >= c0
    x[mdl.p(0):mdl.p(0) + mdl.n_leaf] = label
    x[mdl.e0(0):mdl.e1(0)], x[mdl.e1(0):mdl.e1(0) + mdl.n_leaf] = np.where(label, c0, 0.0), np.where(label, 0.0, c1)
    if mdl.has_alpha:
        x[mdl.alpha(0):] = np.bincount(leaf, minlength=mdl.n_leaf) > 0
    return x


def cart_features(X: np.ndarray, y: np.ndarray, depth: int) -> list[int]:
    """Node features of a depth-limited CART tree (sklearn, Gini) completed to a complete tree: below a CART leaf
    every node repeats a feature of its path, which sends all its rows to one side (feature 0 at the root)."""
    from sklearn.tree import DecisionTreeClassifier

    clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    t = clf.tree_
    n_int = (1 << depth) - 1
    feats = [0] * n_int
    # map complete-tree node -> (sklearn node or -1, last feature on the path)
    todo = [(0, 0, -1)]
    while todo:
        n, s, last = todo.pop()
        if n >= n_int:
            continue
        split = s >= 0 and t.children_left[s] != -1
        # sklearn: x <= 0.5 goes left, i.e. x = 0 left as here
        f = feats[n] = int(t.feature[s]) if split else max(last, 0)
        todo.append((2 * n + 1, int(t.children_left[s]) if split else -1, f))
        todo.append((2 * n + 2, int(t.children_right[s]) if split else -1, f))
    return feats


_STATUS = {"kOptimal": "optimal", "kTimeLimit": "time_limit", "kInterrupt": "interrupted",
           "kSolutionLimit": "solution_limit", "kIterationLimit": "iteration_limit", "kInfeasible": "infeasible",
           "kMemoryLimit": "memory_limit"}


def mip_bytes_estimate(n_groups: int, n_features: int, depth: int, formulation: str) -> int:
    """Bytes the MIP's matrix takes while it is built and handed to HiGHS (about 64 bytes per nonzero: Python
    lists, their numpy copy and HiGHS's copy).  Routing rows dominate: each level holds about
    ``G F 2^(depth-1)`` nonzeros in the aggregated form and ``G (2^depth + 2^level F)`` in the row-wise form."""
    G, F, d = n_groups, n_features, depth
    if formulation == "binoct":
        routing = d * (G * F * (1 << max(d - 1, 0)) + 2 * F * (1 << d))
    else:
        routing = sum(G * ((1 << d) + 2 * F * (1 << level)) for level in range(d))
    leaves = (1 << d) * 3 * (G + 2)
    return 64 * (routing + leaves + G * (1 << d) + F * (1 << d))


def _exact_gap(lam_n: float, depth: int) -> float:
    """An absolute MIP gap that certifies RBinOCT: 1e-7, or less than half of the smallest positive difference
    ``|errors - errors' + lam_n (leaves - leaves')|`` between two trees of depth ``depth`` (``lam_n`` below 2e-7,
    or ``lam_n`` times a number of leaves within 2e-7 of an integer)."""
    multiples = lam_n * np.arange(1, 1 << depth)
    distances = np.abs(multiples - np.round(multiples))
    distances = distances[distances > 0]
    return min(1e-7, 0.5 * float(distances.min())) if distances.size else 1e-7


def solve_mip(X: np.ndarray, y: np.ndarray, depth: int, regularization: float | None = None,
              time_limit: float | None = None, threads: int = 1, formulation: str = "binoct",
              initial_tree: str | None = "cart", verbose: int = 0, node_limit: int | None = None,
              memory_limit: int | None = None) -> dict:
    """Solve (R)BinOCT with HiGHS on 0/1 arrays; returns the node features and the solver's report.

    ``node_limit`` caps HiGHS's branch-and-bound nodes (``mip_max_nodes``).  ``memory_limit`` (bytes): the MIP is
    built only when ``HIGHS_LOAD_FACTOR`` times :func:`mip_bytes_estimate` fits (else status ``"memory_limit"`` with
    the CART start, or a stump, as the tree); where a child process can be capped (Linux), the build and HiGHS then
    run in one whose address space may grow by ``memory_limit`` at most (:mod:`optbb.baselines.highs_child`; its
    peak RSS growth is the report's ``child_peak_rss_growth``), and an allocation past the cap ends it with status
    ``"memory_limit"`` and the best tree HiGHS had found.  ``time_limit`` covers the whole call: HiGHS gets what
    remains after the CART start and the build, and a limit reached before it runs gives status ``"time_limit"``
    with the CART start (or a stump) as the tree and no bound.
    """
    import highspy  # loaded here, not in each child process (HiGHS's library would count against the cap)

    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.uint8)
    n = X.shape[0]
    Xg, inverse = np.unique(X, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n1 = np.bincount(inverse, weights=y, minlength=Xg.shape[0]).astype(np.float64)
    n0 = np.bincount(inverse, minlength=Xg.shape[0]).astype(np.float64) - n1
    lam_n = None if regularization is None else float(regularization) * n
    start_feats = cart_features(X, y, depth) if initial_tree == "cart" else None
    need = mip_bytes_estimate(Xg.shape[0], X.shape[1], depth, formulation)
    report = {"features": start_feats if start_feats is not None else [0] * ((1 << depth) - 1),
              "status": "memory_limit", "mip_gap": math.inf, "mip_objective": math.nan, "mip_dual_bound": -math.inf,
              "mip_nodes": 0, "n_rows": 0, "n_cols": 0, "n_groups": int(Xg.shape[0]),
              "build_time": time.perf_counter() - t0, "solve_time": 0.0, "start_features": start_feats,
              "has_solution": False, "memory_estimate": need, "improvements": 0, "time_to_optimum": 0.0}
    if memory_limit is not None and HIGHS_LOAD_FACTOR * need > memory_limit:
        return report
    node_cap = None if node_limit is None else int(min(node_limit, 2 ** 31 - 1))
    run = _HighsRun(highspy, Xg, n0, n1, depth, lam_n, formulation, start_feats, threads, verbose, node_cap, t0,
                    deadline)
    # the time limit covers the whole fit: building the MIP (a few seconds for thousands of groups) and the CART
    # start count, HiGHS gets what remains; a limit reached first ends the fit with the start tree, unsolved
    if run.out_of_time():
        return dict(report, status="time_limit", build_time=time.perf_counter() - t0)
    if memory_limit is None or not capped_child_available():
        return run.solve(report, lambda update: None)
    return _solve_in_child(run, report, memory_limit)


@dataclass
class _HighsRun:
    """The build of the MIP over row groups and its HiGHS solve, on the clock started at ``t0``."""

    highspy: ModuleType
    Xg: np.ndarray
    n0: np.ndarray
    n1: np.ndarray
    depth: int
    lam_n: float | None
    formulation: str
    start_feats: list[int] | None
    threads: int
    verbose: int
    node_cap: int | None  # HiGHS's mip_max_nodes, None for no limit
    t0: float
    deadline: float | None

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    @property
    def scale(self) -> float:
        """HiGHS reads a reduced cost below its 1e-7 tolerance as 0: the costs are scaled so that a leaf costs >= 1."""
        return max(1.0, 1.0 / self.lam_n) if self.lam_n else 1.0

    def solve(self, report: dict, send: Callable[[dict], None]) -> dict:
        """Build the MIP and run HiGHS: ``report`` completed with the outcome.  ``send`` receives the model's size
        once it is loaded and every improving solution as it comes (the parent of a child process keeps them)."""
        try:
            mdl, cols, rows = build_mip(self.Xg, self.n0, self.n1, self.depth, self.lam_n, self.formulation,
                                        self.out_of_time)
        except BuildStopped:
            return dict(report, status="time_limit", build_time=time.perf_counter() - self.t0)
        h = self._load(mdl, cols, rows)
        built = {"n_rows": int(rows[0].size), "n_cols": int(mdl.n_cols), "build_time": time.perf_counter() - self.t0}
        send(built)
        best = {"improvements": 0}  # HiGHS's last improving solution, kept if its run ends without one

        def improved(event) -> None:
            best.update(features=_node_features(mdl, event.data_out.mip_solution), has_solution=True,
                        mip_objective=float(event.data_out.objective_function_value) / self.scale,
                        improvements=best["improvements"] + 1, time_to_optimum=time.perf_counter() - self.t0)
            send(best)
        h.cbMipImprovingSolution.subscribe(improved)
        if self.start_feats is not None:
            h.setSolution(mdl.n_cols, np.arange(mdl.n_cols, dtype=np.int32),
                          _start_vector(mdl, self.Xg, self.n0, self.n1, self.start_feats))
        if self.deadline is not None:
            rest = self.deadline - time.perf_counter()
            if rest <= 0:
                return dict(report, status="time_limit", build_time=time.perf_counter() - self.t0)
            h.setOptionValue("time_limit", rest)
        # HiGHS's task scheduler is sized by the first run of a thread, and a forked child inherits it without its
        # worker threads (a run with threads > 1 would wait for them forever): each run starts a fresh one
        self.highspy.Highs.resetGlobalScheduler(False)
        h.run()
        return self._outcome(h, mdl, dict(report, **built, **best))

    def _load(self, mdl: _Model, cols, rows):
        """A quiet HiGHS instance with the options and the model."""
        (cost, lo, up, integ), (rlo, rup, starts, idx, val) = cols, rows
        h = quiet_highs(self.highspy, self.verbose)
        lam_n = self.lam_n
        options = {"output_flag": bool(self.verbose), "threads": int(self.threads), "random_seed": 0,
                   "mip_max_nodes": self.node_cap, "mip_rel_gap": 0.0,
                   # errors are integers: an absolute gap below 1 certifies BinOCT; RBinOCT needs an exact gap
                   "mip_abs_gap": 1.0 - 1e-6 if lam_n is None else _exact_gap(lam_n, self.depth) * self.scale}
        for option, value in options.items():
            if value is not None:  # None: no limit
                h.setOptionValue(option, value)
        nc = mdl.n_cols
        h.addVars(nc, lo, up)
        h.changeColsCost(nc, np.arange(nc, dtype=np.int32), cost * self.scale)
        ints = np.flatnonzero(integ).astype(np.int32)
        h.changeColsIntegrality(ints.size, ints, np.full(ints.size, self.highspy.HighsVarType.kInteger, np.uint8))
        h.addRows(rlo.size, rlo, rup, idx.size, starts, idx, val)
        return h

    def _outcome(self, h, mdl: _Model, report: dict) -> dict:
        """``report`` with HiGHS's status, bound, gap, nodes and solution after its run."""
        info = h.getInfo()
        status = _STATUS.get(str(h.getModelStatus()).split(".")[-1], h.modelStatusToString(h.getModelStatus()))
        if status == "solution_limit" and self.node_cap is not None and info.mip_node_count >= self.node_cap:
            status = "node_limit"  # HiGHS reports its node limit as a solution limit
        build_time = report["build_time"]
        report.update(status=status, mip_gap=float(info.mip_gap), mip_nodes=max(0, int(info.mip_node_count)),
                      mip_dual_bound=float(info.mip_dual_bound) / self.scale,
                      solve_time=time.perf_counter() - self.t0 - build_time)
        if not report["improvements"]:
            report["time_to_optimum"] = build_time
        if info.primal_solution_status >= 2:  # kSolutionStatusFeasible
            report.update(features=_node_features(mdl, h.getSolution().col_value), has_solution=True,
                          mip_objective=float(info.objective_function_value) / self.scale)
        return report


def _node_features(mdl: _Model, x) -> list[int]:
    """The feature each internal node splits on in the MIP solution ``x``."""
    f = np.asarray(x)[:mdl.n_int * mdl.n_features]
    return f.reshape(mdl.n_int, mdl.n_features).argmax(1).tolist()


# HiGHS's own copy of the model, its presolved form, the LP and the root node's cuts take several times the estimated
# build bytes before the branch and bound begins (3,000 x 30, depth 3: 413 MiB of RSS growth at the first node,
# 8.7 s in, for an estimate of 71 MiB; 5,000 x 40: 1,117 MiB for 156 MiB); a MIP is built (and a child process
# forked) only when that much fits under the memory limit
HIGHS_LOAD_FACTOR = 7.0
# A child that has not ended this long after the time limit is killed: status "time_limit", the last tree it sent
CHILD_GRACE_SECONDS = 2.0
_CHILD_ENDINGS = {"memory": "memory_limit", "deadline": "time_limit", "interrupted": "interrupted"}


def _solve_in_child(run: _HighsRun, report: dict, memory_limit: int) -> dict:
    """``run.solve`` in a child process whose address space may grow by ``memory_limit`` bytes: its report, or, when
    it died (an allocation past the cap), outlived the grace or was interrupted by Ctrl-C, the last improving tree
    it sent (the start tree before any) with that status."""
    hard_deadline = None if run.deadline is None else run.deadline + CHILD_GRACE_SECONDS
    out = run_capped(partial(run.solve, report), memory_limit, hard_deadline)
    rep = dict(report, **out.report, child_peak_rss_growth=out.peak_rss_growth)
    if out.ending != "done":
        rep.update(status=_CHILD_ENDINGS[out.ending], solve_time=time.perf_counter() - run.t0 - rep["build_time"])
    return rep


# The statuses of the report (HiGHS's words) as a search's Status
_RESULT_STATUS = {"optimal": Status.OPTIMAL, "time_limit": Status.TIME_LIMIT, "node_limit": Status.NODE_LIMIT,
                  "memory_limit": Status.MEMORY_LIMIT, "interrupted": Status.INTERRUPTED,
                  "iteration_limit": Status.ITERATION_LIMIT}


def search_result(tree: "CompleteTree", objective: float, lower_bound: float, report: dict) -> SearchResult:
    """The fit as a :class:`~optbb.common.result.SearchResult`, like the other solvers': status, bound, the common
    counters (nodes are HiGHS's branch-and-bound nodes, memory the MIP's estimated size) and HiGHS's own."""
    status = _RESULT_STATUS.get(report["status"])
    if status is None:
        raise RuntimeError(f"HiGHS ended with status {report['status']!r}, which BinOCT does not expect")
    total = report["build_time"] + report["solve_time"]
    counters = {**common_counters(nodes=report["mip_nodes"], improvements=report["improvements"], total_time=total,
                                  time_to_optimum=min(report["time_to_optimum"], total),
                                  memory_bytes=report["memory_estimate"], kernel_load_time=0.0),
                "mip_nodes": report["mip_nodes"], "mip_gap": report["mip_gap"], "n_rows": report["n_rows"],
                "n_cols": report["n_cols"], "n_groups": report["n_groups"]}
    trace = pd.DataFrame([(total, objective, lower_bound, 0, report["mip_nodes"])], columns=TRACE_COLUMNS)
    return SearchResult(tree, float(objective), float(lower_bound), status, counters, trace)


# ---------------------------------------------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------------------------------------------
class BinOCTClassifier(LogOddsDecisionMixin, BinaryOnlyTagsMixin, ClassifierMixin, BaseEstimator):
    """Optimal complete decision tree of depth ``max_depth`` on binary features (BinOCT), or its regularised
    variant RBinOCT when ``regularization`` is a number (penalty per non-empty leaf, as OSDT's lambda).

    Parameters
    ----------
    max_depth : depth of the complete tree (>= 1).
    time_limit : seconds for HiGHS (None = no limit).  When it is reached the best tree found is kept,
        ``status_`` is ``"time_limit"`` and ``mip_gap_`` reports the remaining relative gap.
    regularization : None for BinOCT (minimise training errors), a number in [0, 1] for RBinOCT (0: RBinOCT's
        model with no leaf penalty, certified to an exact gap).
    threads : HiGHS threads.
    formulation : ``"binoct"`` (aggregated big-M routing constraints of the paper) or ``"rowwise"``.
    initial_tree : ``"cart"`` gives HiGHS the depth-limited CART tree as a first solution (BinOCT does so too);
        None starts HiGHS cold.
    node_limit : HiGHS branch-and-bound nodes (``mip_max_nodes``), or None.
    memory_limit : bytes, a size such as ``"2G"``, ``"auto"`` (half of the physical memory) or None: HiGHS's
        load of the MIP (``HIGHS_LOAD_FACTOR`` times :func:`mip_bytes_estimate`) must fit, else ``status_`` is
        ``"memory_limit"`` and the tree is the CART start.  On Linux the build and HiGHS then run in a forked child
        process whose address space may grow by the limit at most; an allocation past it ends the child and the fit
        (``status_`` ``"memory_limit"``, the best tree found so far).  Measured: random 500 x 15 at depth 3 under
        100M grew the child's peak RSS by 92-95 MiB, 1,000 x 20 under 200M by 190-198 MiB (an RSS watch between
        nodes, used before, let them grow by 111-133 and 302-321 MiB).  The child costs 20-25 ms per fit, and
        Ctrl-C ends a fit with ``status_`` ``"interrupted"``.  None: HiGHS runs in this process, uncapped.
    verbose : >0 prints the HiGHS log.
    feature_names : printed names of the columns of ``X`` (default: the DataFrame's columns, else ``x0, ...``).

    Fitted attributes: ``result_`` (:class:`~optbb.common.result.SearchResult`, as the other solvers report:
    status, objective, lower bound, gap, the common counters), ``tree_`` (:class:`CompleteTree`), ``status_``
    (HiGHS's word for ``result_.status``: "optimal", "time_limit", ...),
    ``mip_gap_`` (HiGHS' relative gap), ``errors_``, ``objective_`` (errors / N, plus lambda * non-empty leaves
    for RBinOCT), ``lower_bound_`` (HiGHS' dual bound in the same units; for BinOCT rounded up to whole errors),
    ``gap_`` (``objective_ - lower_bound_``, 0 when certified), ``n_leaves_`` (non-empty leaves),
    ``n_leaves_merged_`` (after merging same-label siblings), ``solve_time_``, ``classes_``, ``n_features_in_``,
    ``feature_names_in_`` (DataFrame input only), ``report_`` (solver details).

    HiGHS stops BinOCT once the absolute gap is below one error (errors are integers) and RBinOCT at a gap of
    1e-7, or below half the smallest difference of two objectives when that is smaller (a tiny ``regularization``),
    so "optimal" is a certificate in both cases.
    """

    _parameter_constraints: dict = {
        "max_depth": [Number(Integral, 1, None, closed="left")],
        "regularization": [Number(Real, 0, 1, closed="both"), None],
        "threads": [Number(Integral, 1, None, closed="left")],
        "formulation": [StrOptions(set(FORMULATIONS))],
        "initial_tree": [StrOptions({"cart"}), None],
        **LIMIT_CONSTRAINTS,
        **FEATURE_NAMES_CONSTRAINT,
    }

    def __init__(self, max_depth=3, time_limit=None, regularization=None, threads=1, formulation="binoct",
                 initial_tree="cart", verbose=0, node_limit=None, memory_limit="auto", feature_names=None):
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.regularization = regularization
        self.threads = threads
        self.formulation = formulation
        self.initial_tree = initial_tree
        self.verbose = verbose
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.feature_names = feature_names

    def fit(self, X, y, sample_weight=None):
        """Solve the MIP on ``(X, y)``.  ``sample_weight``: non-negative integers, a weight ``k`` counting a sample
        ``k`` times (as the other optbb estimators)."""
        self._validate_params()
        X01, y01, classes, names, w = validate_fit_input(X, y, sample_weight, estimator=self)
        X01, y01 = expand_weights(X01, y01, w, "BinOCTClassifier")
        printable = display_names(self.feature_names, names, X01.shape[1])
        rep = solve_mip(X01, y01, int(self.max_depth), self.regularization, self.time_limit, int(self.threads),
                        self.formulation, self.initial_tree, int(self.verbose), self.node_limit,
                        parse_memory(self.memory_limit))
        tree = tree_from_features(X01, y01, int(self.max_depth), rep["features"], printable)
        tree.classes = list(classes)
        n = X01.shape[0]
        errors = sum(tree.errors)
        lam = 0.0 if self.regularization is None else float(self.regularization)
        self.tree_ = tree
        self.classes_ = classes
        self.status_ = rep["status"]
        self.mip_gap_ = rep["mip_gap"]
        self.errors_ = int(errors)
        self.objective_ = errors / n + lam * tree.n_leaves
        dual = rep["mip_dual_bound"]
        if rep["n_rows"]:  # the MIP was solved, maybe stopped before HiGHS had a bound: no objective is negative
            dual = max(dual, 0.0)
        if self.status_ == "optimal" and self.regularization is None:
            dual = max(dual, errors)
        if self.regularization is None and math.isfinite(dual):  # errors are integers
            dual = float(math.ceil(dual - 1e-6))
        self.lower_bound_ = dual / n if math.isfinite(dual) else math.nan
        self.gap_ = max(0.0, self.objective_ - self.lower_bound_) if math.isfinite(dual) else math.nan
        self.n_leaves_ = tree.n_leaves
        self.n_leaves_merged_ = tree.n_leaves_merged
        self.solve_time_ = rep["build_time"] + rep["solve_time"]
        self.report_ = rep
        self.result_ = search_result(tree, self.objective_, self.lower_bound_, rep)
        return self

    def predict(self, X):
        """The label of the leaf each row reaches."""
        X01 = validate_predict_input(self, X)
        return self.tree_.predict(X01)

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` class probabilities, columns in ``classes_`` order: the training class frequencies of the leaf
        each row reaches, Laplace-smoothed with one more pseudo-count on the leaf's label (see
        :mod:`optbb.common.proba`); an empty leaf gives its inherited label 2/3.  ``classes_[argmax]`` equals
        ``predict`` on every row."""
        X01 = validate_predict_input(self, X)
        t = self.tree_
        counts = binary_counts(t.n_samples, t.errors, t.predictions)
        return smoothed_probabilities(counts, t.predictions)[t.apply(X01)]
