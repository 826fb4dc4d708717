"""``solve``: Algorithm FRL or softFRL over the antecedent columns of a :class:`BinaryDataset`, its option checks, and
the :class:`FallingRuleList` of the antecedents the search chose.

The search itself is in :mod:`optbb.frl.kernel` (chunk kernels), :mod:`optbb.frl.engine` (the engine the common
driver runs), :mod:`optbb.frl.packing` (the packed data and count caches), :mod:`optbb.frl.counts` and
:mod:`optbb.frl.rng`.
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..common import driver
from ..common.data import BinaryDataset
from ..common.formats import first_match
from ..common.limits import InterruptGuard, Limits
from ..common.mining import Antecedent
from ..common.result import SearchResult, Status
from ..common.result import unsearched_result as common_unsearched_result
from ..common.validation import Number, check_params
from ..common.weights import drop_zero_weights
from .engine import FrlEngine
from .kernel import BLOCK
from .model import FallingRuleList
from .objective import make_falling, rule_risk
from .packing import SearchData, frl_weights
from .record import RECORD_LIMIT
from .rng import check_random_state

OPTION_CONSTRAINTS: dict = {  # solve's options, checked here and (those the estimators take) by FRLClassifier and
    "regularization": [Number(Real, 0, None, closed="left")],          # SoftFRLClassifier
    "soft": ["boolean"],
    "positive_weight": [Number(Real, 0, None, closed="neither")],
    "monotonicity_penalty": [Number(Real, 0, None, closed="left")],
    "n_iter": [Number(Integral, 1, None, closed="left")],
    "p_stop": [Number(Real, 0, 1, closed="left")],
    "curiosity_weight": [Number(Real, 0, 1, closed="both")],
    "feasibility": [StrOptions({"paper", "reference"})],
    "random_state": [Number(Integral, 0, None, closed="left"), np.random.RandomState, np.random.Generator, None],
    "max_recorded_iterations": [Number(Integral, 0, None, closed="left")],
    "target": [Number(Real, None, None, closed="neither"), None],
    "scan_block": [Number(Integral, 1, None, closed="left")],
}


def build_falling_list(rules: list[int], antecedents, names, A: np.ndarray, y: np.ndarray, w: float,
                       objective: float, soft: bool, feature_names,
                       weights: np.ndarray | None = None) -> FallingRuleList:
    """The :class:`FallingRuleList` of the antecedent columns ``rules`` of ``A`` with its training counts (sums of
    ``weights`` when given; softFRL's probabilities pulled down by ``make_falling``)."""
    y = np.asarray(y).astype(bool)
    clause = first_match((A[:, r] != 0 for r in rules), A.shape[0])
    wts = None if weights is None else np.asarray(weights, dtype=np.float64)
    n_pos, n_neg = (np.bincount(clause[c], weights=None if wts is None else wts[c], minlength=len(rules) + 1)
                    .astype(np.int64 if wts is None else np.float64) for c in (y, ~y))
    tot = n_pos + n_neg
    prop = np.where(tot > 0, n_pos / np.where(tot > 0, tot, 1), 0.0)
    prob = make_falling(prop) if soft else prop.copy()
    return FallingRuleList([antecedents[r] for r in rules], [names[r] for r in rules], prob, prop, n_pos, n_neg,
                           float(w), float(objective), soft, list(feature_names))


def unsearched_result(y: np.ndarray, *, soft: bool, w: float, status: Status, elapsed: float,
                      feature_names, weights: np.ndarray | None = None) -> SearchResult:
    """The result when no search ran (a limit ended the mining first): the default-only list with its real
    objective, ``status``, no bound (NaN, as for every Monte-Carlo run) and the common counters."""
    model = build_falling_list([], [], [], np.zeros((len(y), 0), dtype=np.uint8), y, w, 0.0, soft, feature_names,
                               weights)
    model.objective = rule_risk(model.n_pos[0], model.n_neg[0], w) / (model.n_pos[0] + model.n_neg[0])
    counters = {"iterations": 0, "n_antecedents": 0, "packing_time": 0.0, "iterations_recorded": 0}
    result = common_unsearched_result(model, model.objective, math.nan, status, elapsed, counters)
    result.series = empty_series()
    return result


def empty_series() -> dict:
    """The per-iteration series of a run without iterations."""
    return {"iteration_objectives": np.zeros(0), "iteration_times": np.zeros(0),
            "candidates_per_level": np.full((0, 1), -1, dtype=np.int32)}


def solve(data: BinaryDataset, regularization: float = 1e-6, *, soft: bool = False, positive_weight: float = 7.0,
          monotonicity_penalty: float = 0.5, n_iter: int = 3000, p_stop: float = 0.01,
          curiosity_weight: float = 0.8, feasibility: str = "paper", random_state=None,
          max_recorded_iterations: int = RECORD_LIMIT, target: float | None = None, scan_block: int = BLOCK,
          packed: SearchData | None = None, time_limit: float | None = None, node_limit: int | None = None,
          memory_limit="auto", verbose: int = 0) -> SearchResult:
    """Algorithm FRL (``soft=False``, Chen & Rudin 2018, Program 2.9 pruned by Prop. 4.2, Cor. 4.5, Thm 4.6) or
    softFRL (Program 5.1 with Thm 5.2) over the antecedent columns of ``data`` (0/1, e.g. mined itemsets).

    ``regularization`` is ``C`` (the cost per rule), ``positive_weight`` ``w``, ``monotonicity_penalty`` ``C1``
    (softFRL only), ``curiosity_weight`` the ``lambda`` of the curiosity function, ``feasibility`` "paper" or
    "reference" (FRL).  ``data`` that is not a :class:`BinaryDataset` is a TypeError; the options are checked
    against :data:`OPTION_CONSTRAINTS` (those of the FRL estimators), a ValueError naming the parameter.  The
    model's antecedent ``j`` is column ``j`` of ``data`` (the estimators restate the chosen ones as their mined
    literals over the raw features, :meth:`~optbb.frl.model.FallingRuleList.attach_literals`).
    Limits: ``time_limit`` (s); ``node_limit`` (iterations, i.e. rule lists grown and evaluated: status
    NODE_LIMIT, whereas finishing the ``n_iter`` iterations gives ITERATION_LIMIT); ``memory_limit`` (bytes,
    "512M", "auto" = half of the physical memory, the default, or None) on the packed data, count caches and
    iteration record.  ``target`` (benchmarks) ends the run once the best objective is at or below it
    (``counters["reached_target"]``).  ``packed``: the :class:`SearchData` of ``data`` if already built (with the
    same weights).

    Weights: ``data.sample_weight`` (non-negative, one per sample; None: every sample weighs 1).  Every count of
    the paper becomes the weight of the samples it counts and ``n`` the total weight, so integer weights give the
    objective of repeated samples; ``w`` stays the cost of a false negative relative to a false positive.  Class
    weights are the estimators' ``class_weight``, which they fold into the dataset's weights.

    The result's model is a :class:`~optbb.frl.model.FallingRuleList`; ``lower_bound`` is NaN (no certificate);
    with no completed iteration the model is the default-only list with its real objective.  Counters: the common
    schema (``total_time``, ``time_to_optimum``, ``memory_bytes``, ``nodes``) plus ``iterations``,
    ``iteration_of_best``, mean candidate counts and scan statistics; ``series``: the recorded iterations'
    ``iteration_objectives``, ``iteration_times`` and ``candidates_per_level`` (one row per iteration).
    """
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    check_params(OPTION_CONSTRAINTS, {
        "regularization": regularization, "soft": soft, "positive_weight": positive_weight,
        "monotonicity_penalty": monotonicity_penalty, "n_iter": n_iter, "p_stop": p_stop,
        "curiosity_weight": curiosity_weight, "feasibility": feasibility, "random_state": random_state,
        "max_recorded_iterations": max_recorded_iterations, "target": target, "scan_block": scan_block},
        "optbb.frl.solve")
    w, C, C1 = float(positive_weight), float(regularization), float(monotonicity_penalty) if soft else 0.0
    n_iter, p_stop, lam = int(n_iter), float(p_stop), float(curiosity_weight)
    limits = Limits(time_limit, node_limit, memory_limit)
    names = list(data.feature_names)
    weights = frl_weights(data)
    interrupted = False
    if packed is None and limits.over_memory(SearchData.bytes_needed(data.X, data.y, weights)):
        # the packed data alone would not fit: MEMORY_LIMIT before allocating it
        return unsearched_result(data.y, soft=bool(soft), w=w, status=Status.MEMORY_LIMIT, elapsed=0.0,
                                 feature_names=names, weights=weights)
    if packed is None:
        with InterruptGuard() as guard:  # packing is part of the search: a signal here ends it after one chunk
            packed = SearchData(data.X, data.y, weights)
        interrupted = guard.interrupted
        if limits.time_limit is not None:  # packing is part of the call: the search gets the time it left
            limits = Limits(max(limits.time_limit - packed.seconds, 1e-9), limits.node_limit, limits.memory_limit)
    elif packed.n_antecedents != data.n_features or packed.n != data.n_samples \
            or packed.weighted != (drop_zero_weights(weights)[0] is not None):
        raise ValueError("packed does not match data (its samples, antecedents or weights)")
    engine = FrlEngine(packed, soft=bool(soft), w=w, C=C, C1=C1, n_iter=n_iter, p_stop=p_stop, lam=lam,
                       paper_feasibility=soft or feasibility == "paper", random_state=check_random_state(random_state),
                       node_limit=limits.node_limit, target=target, scan_block=int(scan_block),
                       record_limit=int(max_recorded_iterations))
    result = driver.run_search(engine, limits, verbose, interrupted)
    result.series = engine.series
    columns = [Antecedent((j,), (False,)) for j in range(data.n_features)]
    result.model = build_falling_list(result.model, columns, names, data.X, data.y, w, result.objective, bool(soft),
                                      names, weights)
    return result
