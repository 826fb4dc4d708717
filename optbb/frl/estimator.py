"""``FRLClassifier`` and ``SoftFRLClassifier``: scikit-learn estimators over the FRL/softFRL search kernels."""
from __future__ import annotations

import math
import numbers
import time

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..common.data import from_arrays
from ..common.mining import MinedAntecedents, mine_classwise
from ..common.result import SearchResult
from ..common.validation import (BinaryOnlyTagsMixin, check_number, expand_weights, validate_fit_input,
                                 validate_predict_input)
from .model import FallingRuleList
from .objective import make_falling
from .search import SearchData, run_search


def check_random_state_arg(random_state):
    """None, a non-negative int, a ``numpy.random.RandomState`` or ``Generator``; anything else is an error."""
    if random_state is None:
        return np.random.SeedSequence().entropy
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
        return int(random_state)
    raise ValueError(f"random_state must be None, a non-negative int, a numpy RandomState or Generator; got "
                     f"{random_state!r}")


def reference_twins(mined: MinedAntecedents, X: np.ndarray, y: np.ndarray, min_support: float) -> list[int]:
    """Indices of mined pairs that the reference code holds twice.

    The reference unions the item tuples FP-growth reports for each class; FP-growth writes the items of a set in
    its per-class frequency order, so a pair frequent in both classes whose two items rank differently in the two
    classes appears as two tuples (spec of the reference run, Section 4).  Ties in frequency keep the column order.
    """
    from ..common.mining import class_support_threshold

    num, den = class_support_threshold(min_support)
    pos = y == 1
    f_pos = X[pos].sum(axis=0, dtype=np.int64)
    f_neg = X[~pos].sum(axis=0, dtype=np.int64)
    Xa = mined.data.X
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    twins = []
    for k, a in enumerate(mined.antecedents):
        if len(a.features) != 2 or any(a.negated):
            continue
        c_pos = int(Xa[pos, k].sum())
        c_neg = int(Xa[~pos, k].sum())
        if not (c_pos * den >= num * n_pos and c_neg * den >= num * n_neg):
            continue
        i, j = a.features
        order_pos = (-f_pos[i], i) < (-f_pos[j], j)
        order_neg = (-f_neg[i], i) < (-f_neg[j], j)
        if order_pos != order_neg:
            twins.append(k)
    return twins


class _FRLBase(BinaryOnlyTagsMixin, ClassifierMixin, BaseEstimator):
    _soft = False

    def _validate_params(self):
        p = {}
        p["w"] = check_number("positive_weight", self.positive_weight, lo=0, lo_open=True)
        p["C"] = check_number("regularization", self.regularization, lo=0)
        p["n_iter"] = check_number("n_iter", self.n_iter, lo=1, integer=True)
        p["p_stop"] = check_number("p_stop", self.p_stop, lo=0, hi=1, hi_open=True)
        p["lam"] = check_number("curiosity_weight", self.curiosity_weight, lo=0, hi=1)
        p["max_card"] = check_number("max_card", self.max_card, lo=1, integer=True)
        p["record"] = check_number("max_recorded_iterations", self.max_recorded_iterations, lo=0, integer=True)
        p["min_support"] = check_number("min_support", self.min_support, lo=0, hi=0.5)
        if not isinstance(self.negations, (bool, np.bool_)):
            raise ValueError(f"negations must be True or False, got {self.negations!r}")
        if not isinstance(self.keep_duplicates, (bool, np.bool_)):
            raise ValueError(f"keep_duplicates must be True or False, got {self.keep_duplicates!r}")
        if self.time_limit is not None:
            p["time_limit"] = check_number("time_limit", self.time_limit, lo=0, lo_open=True)
        else:
            p["time_limit"] = None
        if self._soft:
            p["C1"] = check_number("monotonicity_penalty", self.monotonicity_penalty, lo=0)
            p["paper"] = True
        else:
            if self.feasibility not in ("paper", "reference"):
                raise ValueError(f"feasibility must be 'paper' or 'reference', got {self.feasibility!r}")
            p["C1"] = 0.0
            p["paper"] = self.feasibility == "paper"
        p["random_state"] = check_random_state_arg(self.random_state)
        return p

    def fit(self, X, y, feature_names=None, sample_weight=None, verbose=0):
        """Mine the antecedents of ``X`` (0/1 features) class-wise and search for the best (softly) falling list.

        ``y`` holds two labels; the larger (``classes_[1]``, i.e. 1 for 0/1 labels) is the positive class whose
        probability the list reports.  ``feature_names`` overrides the printed names (default: the DataFrame's
        columns, or ``x0, x1, ...``).  ``sample_weight``: non-negative integers only, a weight ``k`` counting a
        sample ``k`` times (the FRL loss counts samples; the class weight is ``positive_weight``).  ``verbose`` > 0
        shows a progress line (iterations, best objective) when stderr is a terminal.
        """
        p = self._validate_params()
        X01, y01, classes, _, w = validate_fit_input(X, y, sample_weight, estimator=self)
        X01, y01 = expand_weights(X01, y01, w, type(self).__name__)
        if feature_names is None:
            feature_names = ([str(c) for c in X.columns] if isinstance(X, pd.DataFrame)
                             else [f"x{j}" for j in range(X01.shape[1])])
        elif len(feature_names) != X01.shape[1]:
            raise ValueError(f"feature_names has {len(feature_names)} names but X has {X01.shape[1]} columns")
        data = from_arrays(X01, y01, list(feature_names))
        t0 = time.perf_counter()
        mined = mine_classwise(data, max_card=p["max_card"], min_support=p["min_support"],
                               negations=bool(self.negations), dedupe=not self.keep_duplicates)
        ants = list(mined.antecedents)
        names = list(mined.data.feature_names)
        A = mined.data.X
        if self.keep_duplicates:
            twins = reference_twins(mined, data.X, data.y, p["min_support"])
            if twins:
                A = np.concatenate([A, A[:, twins]], axis=1)
                for k in twins:
                    ants.append(ants[k])
                    i, j = ants[k].features
                    names.append(f"{data.feature_names[j]}{','}{data.feature_names[i]}")
        sdata = SearchData(A, data.y)
        mining_time = time.perf_counter() - t0
        out = run_search(sdata, soft=self._soft, w=p["w"], C=p["C"], C1=p["C1"], n_iter=p["n_iter"],
                         p_stop=p["p_stop"], lam=p["lam"], paper_feasibility=p["paper"],
                         random_state=p["random_state"], time_limit=p["time_limit"], verbose=verbose,
                         record_limit=p["record"])
        rules = [int(r) for r in out["rules"]]
        self.antecedents_ = ants
        self.antecedent_names_ = names
        self.rule_list_ = self._build_list(rules, ants, names, A, data, p, out["objective"])
        self.classes_ = classes
        self.n_antecedents_ = A.shape[1]
        self.threshold_ = 1.0 / (1.0 + p["w"])
        self.candidates_ = out["candidates"]
        recorded = out["iter_objective"].shape[0]
        self.search_trace_ = pd.DataFrame({"iteration": np.arange(1, recorded + 1), "time": out["iter_time"],
                                           "objective": out["iter_objective"],
                                           "best_objective": np.minimum.accumulate(out["iter_objective"])})
        imp = out["improvements"]
        trace = pd.DataFrame({"time": imp["time"], "objective": imp["objective"], "lower_bound": np.nan,
                              "queue_size": 0, "nodes": imp["iteration"]})
        counters = dict(out["stats"])
        counters.update({
            "iterations": out["n_iter"], "iterations_recorded": recorded, "total_time": out["time"],
            "cpu_time": out["cpu_time"], "time_per_iteration": out["time"] / max(out["n_iter"], 1),
            "iteration_of_best": int(imp["iteration"][-1]) if imp["iteration"].size else 0,
            "time_to_best": float(imp["time"][-1]) if imp["time"].size else math.nan,
            "n_antecedents": int(A.shape[1]), "mining_time": mining_time,
            "candidates_per_level": out["candidates"],
            "mean_candidates_level0": float(out["mean_candidates_level0"]),
            "mean_candidates_all_levels": float(out["mean_candidates_all_levels"]),
        })
        self.result_ = SearchResult(self.rule_list_, out["objective"], math.nan, out["status"], counters, trace)
        return self

    def _build_list(self, rules, ants, names, A, data, p, objective):
        cap = np.zeros(data.n_samples, dtype=bool)
        n_pos, n_neg = [], []
        y = data.y.astype(bool)
        for r in rules:
            hit = A[:, r].astype(bool) & ~cap
            n_pos.append(int((hit & y).sum()))
            n_neg.append(int((hit & ~y).sum()))
            cap |= hit
        n_pos.append(int((~cap & y).sum()))
        n_neg.append(int((~cap & ~y).sum()))
        n_pos = np.array(n_pos, dtype=np.int64)
        n_neg = np.array(n_neg, dtype=np.int64)
        tot = n_pos + n_neg
        prop = np.where(tot > 0, n_pos / np.maximum(tot, 1), 0.0)
        prob = make_falling(prop) if self._soft else prop.copy()
        return FallingRuleList([ants[r] for r in rules], [names[r] for r in rules], prob, prop, n_pos, n_neg,
                               p["w"], float(objective), self._soft, list(data.feature_names))

    def _check_fitted(self, X):
        return validate_predict_input(self, X)

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p`` the probability of the rule that captures each row."""
        X01 = self._check_fitted(X)
        return self.rule_list_.predict_proba(X01)

    def predict(self, X):
        """``classes_[1]`` iff the capturing rule's probability exceeds ``1/(1+w)``, else ``classes_[0]``."""
        X01 = self._check_fitted(X)
        return self.classes_[self.rule_list_.predict(X01)]

    def decision_function(self, X):
        """The capturing rule's probability of ``classes_[1]`` minus the threshold ``1/(1+w)``: positive exactly
        where ``predict`` says ``classes_[1]`` (the scikit-learn convention for binary classifiers)."""
        return self.predict_proba(X)[:, 1] - self.threshold_


    def __str__(self) -> str:
        """The fitted falling rule list, or the parameters before fit."""
        return str(self.rule_list_) if hasattr(self, "rule_list_") else repr(self)


class FRLClassifier(_FRLBase):
    """Algorithm FRL (Chen & Rudin 2018): Monte-Carlo search for a compatible falling rule list minimising
    ``L = R(d, 1/(1+w), w) + C |d|`` (Program 2.9), pruned by Proposition 4.2, Corollary 4.5 and Theorem 4.6.

    Parameters
    ----------
    positive_weight : ``w``, the cost of a false negative (a false positive costs 1).
    regularization : ``C``, the cost per rule.
    n_iter : ``T``, the number of Monte-Carlo iterations.
    p_stop : probability of stopping before each rule.
    curiosity_weight : ``lambda`` of the curiosity function (11).
    max_card, min_support, negations : class-wise mining (itemsets of up to ``max_card`` items with support at
        least ``min_support`` within the positive or the negative class).
    feasibility : ``"paper"`` (Proposition 4.2 on the extended prefix) or ``"reference"`` (the reference code's
        weaker test, which can return a list that is not falling).
    random_state : None, int, RandomState or Generator.
    time_limit : seconds, or None; the search then stops with status TIME_LIMIT and the best list so far.
    keep_duplicates : keep itemsets with identical bit vectors and add the reference's tuple-order twins (the
        reference's antecedent multiset, for trajectory-distribution parity).
    max_recorded_iterations : iterations kept whole in ``search_trace_`` and ``candidates_`` (the first ones);
        later iterations still count in ``result_`` (trace of improvements, time to best, mean candidate counts),
        so a long time-limited search runs in bounded memory.
    """

    def __init__(self, positive_weight=7.0, regularization=1e-6, n_iter=3000, p_stop=0.01, curiosity_weight=0.8,
                 max_card=2, min_support=0.1, negations=False, feasibility="paper", random_state=None,
                 time_limit=None, keep_duplicates=False, max_recorded_iterations=100_000):
        self.positive_weight = positive_weight
        self.regularization = regularization
        self.n_iter = n_iter
        self.p_stop = p_stop
        self.curiosity_weight = curiosity_weight
        self.max_card = max_card
        self.min_support = min_support
        self.negations = negations
        self.feasibility = feasibility
        self.random_state = random_state
        self.time_limit = time_limit
        self.keep_duplicates = keep_duplicates
        self.max_recorded_iterations = max_recorded_iterations


class SoftFRLClassifier(_FRLBase):
    """Algorithm softFRL: Monte-Carlo search minimising ``L~ = R + C |d| + C1 S(d)`` (Program 5.1) with the bound
    of Theorem 5.2; the output probabilities are pulled down to be falling (``make_falling``).

    Parameters are those of :class:`FRLClassifier` without ``feasibility``, plus ``monotonicity_penalty`` (``C1``).
    """

    _soft = True

    def __init__(self, positive_weight=7.0, regularization=1e-6, monotonicity_penalty=0.5, n_iter=6000, p_stop=0.01,
                 curiosity_weight=0.8, max_card=2, min_support=0.1, negations=False, random_state=None,
                 time_limit=None, keep_duplicates=False, max_recorded_iterations=100_000):
        self.positive_weight = positive_weight
        self.regularization = regularization
        self.monotonicity_penalty = monotonicity_penalty
        self.n_iter = n_iter
        self.p_stop = p_stop
        self.curiosity_weight = curiosity_weight
        self.max_card = max_card
        self.min_support = min_support
        self.negations = negations
        self.random_state = random_state
        self.time_limit = time_limit
        self.keep_duplicates = keep_duplicates
        self.max_recorded_iterations = max_recorded_iterations
