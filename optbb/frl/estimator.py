"""``FRLClassifier`` and ``SoftFRLClassifier``: scikit-learn estimators over the FRL/softFRL search kernels."""
from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Hidden, StrOptions

from ..common.data import from_arrays
from ..common.limits import Budget, Limits
from ..common.mined_search import mine_then_search
from ..common.mining import MinedAntecedents
from ..common.result import SearchResult, Status
from ..common.validation import (FEATURE_NAMES_CONSTRAINT, LIMIT_CONSTRAINTS, BinaryOnlyTagsMixin, Number,
                                 ParamNamesMixin, display_names, validate_fit_input, validate_predict_input)
from ..common.weights import combined_weights, drop_zero_weights
from .antecedents import mine_frl
from .rng import check_random_state
from .search import OPTION_CONSTRAINTS, solve, unsearched_result

class _FRLBase(BinaryOnlyTagsMixin, ParamNamesMixin, ClassifierMixin, BaseEstimator):
    _soft = False

    _parameter_constraints: dict = {  # the search's options as solve checks them, and the mining's
        **{k: OPTION_CONSTRAINTS[k] for k in ("positive_weight", "regularization", "n_iter", "p_stop",
                                              "curiosity_weight", "max_recorded_iterations", "random_state")},
        "max_card": [Number(Integral, 1, None, closed="left")],
        "min_class_support": [Number(Real, 0, 0.5, closed="both")],
        "min_support": [Number(Real, 0, 0.5, closed="both"), Hidden(StrOptions({"deprecated"}))],
        "negations": ["boolean"],
        "keep_duplicates": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        **LIMIT_CONSTRAINTS,
        **FEATURE_NAMES_CONSTRAINT,
    }

    def _settings(self) -> dict:
        """The checked parameters under the search's names (``w``, ``C``, ``C1``, ...)."""
        self._validate_params()
        p = {"w": float(self.positive_weight), "C": float(self.regularization), "n_iter": int(self.n_iter),
             "p_stop": float(self.p_stop), "lam": float(self.curiosity_weight), "max_card": int(self.max_card),
             "record": int(self.max_recorded_iterations), "min_support": float(self.min_class_support)}
        if not (isinstance(self.min_support, str) and self.min_support == "deprecated"):
            warnings.warn("min_support is renamed min_class_support (the support is counted within each class, "
                          "unlike CorelsClassifier's min_support); min_support will be removed", FutureWarning,
                          stacklevel=3)
            p["min_support"] = float(self.min_support)
        p["C1"] = float(self.monotonicity_penalty) if self._soft else 0.0
        p["paper"] = self._soft or self.feasibility == "paper"
        p["random_state"] = check_random_state(self.random_state)
        return p

    def fit(self, X, y, sample_weight=None):
        """Mine the antecedents of ``X`` (0/1 features) class-wise and search for the best (softly) falling list.

        ``y`` holds two labels; the larger (``classes_[1]``, i.e. 1 for 0/1 labels) is the positive class whose
        probability the list reports.  ``sample_weight`` (non-negative reals) times the ``class_weight`` factor of
        each sample's class is its weight: every count of the FRL objective becomes a sum of weights (a weight ``k``
        counts a sample ``k`` times, 0 leaves it out), the class supports of the miner are fractions of each class's
        weight, and ``positive_weight`` stays the cost of a false negative relative to a false positive.  The
        printed names are the ``feature_names`` parameter, else the DataFrame's columns, else ``x0, x1, ...``.
        """
        started = time.perf_counter()  # time_limit counts from this call, validation included, as in the other fits
        p = self._settings()
        name = type(self).__name__
        try:
            X01, y01, classes, X_names, sw = validate_fit_input(X, y, sample_weight, estimator=self)
        except ValueError as err:
            if str(err).startswith("Only binary classification is supported"):
                raise ValueError(f"{err}: {name} is binary by definition (a falling rule list of the probability "
                                 "of one positive class); it needs exactly two classes in y") from None
            raise
        w, X01, y01 = drop_zero_weights(combined_weights(y01, sw, self.class_weight, classes, name), X01, y01)
        feature_names = display_names(self.feature_names, X_names, X01.shape[1])
        data = from_arrays(X01, y01, feature_names, sample_weight=w)

        def mine(budget: Budget) -> MinedAntecedents:
            return mine_frl(data, p["max_card"], p["min_support"], bool(self.negations), bool(self.keep_duplicates),
                            budget, w)

        def search(mined: MinedAntecedents, rest: Limits) -> SearchResult:
            result = solve(mined.data, p["C"], soft=self._soft, positive_weight=p["w"],
                           monotonicity_penalty=p["C1"], n_iter=p["n_iter"], p_stop=p["p_stop"],
                           curiosity_weight=p["lam"], feasibility="paper" if p["paper"] else "reference",
                           random_state=p["random_state"], max_recorded_iterations=p["record"],
                           time_limit=rest.time_limit, node_limit=rest.node_limit, memory_limit=rest.memory_limit,
                           verbose=self.verbose)
            result.model.attach_literals(mined.antecedents, data.feature_names)  # predicts on the columns of X
            return result

        def unsearched(mined: MinedAntecedents, status: Status, elapsed: float) -> SearchResult:
            return unsearched_result(data.y, soft=self._soft, w=p["w"], status=status, elapsed=elapsed,
                                     feature_names=list(data.feature_names), weights=w)

        empty = (f"{name}: no antecedent passes the support filter; lower min_class_support (now {p['min_support']}: "
                 "an itemset must cover that fraction of the positive or of the negative class); the list is the "
                 "default rule alone")
        limits = Limits(self.time_limit, self.node_limit, self.memory_limit)
        mined, result = mine_then_search(limits, mine, search, unsearched, empty, started)
        searched = mined.complete and mined.data is not None
        c = result.counters
        self.antecedents_ = mined
        self.antecedent_names_ = list(mined.data.feature_names) if searched else []
        self.rule_list_ = result.model
        self.rule_list_.classes = list(classes)
        self.classes_ = classes
        self.n_antecedents_ = len(mined.antecedents) if searched else 0
        self.threshold_ = 1.0 / (1.0 + p["w"])
        series = result.series
        self.candidates_ = series["candidates_per_level"]
        recorded = c["iterations_recorded"]
        self.search_trace_ = pd.DataFrame({"iteration": np.arange(1, recorded + 1), "time": series["iteration_times"],
                                           "objective": series["iteration_objectives"],
                                           "best_objective": np.minimum.accumulate(series["iteration_objectives"])})
        self.result_ = result
        return self

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p`` the probability of the rule that captures each row."""
        X01 = validate_predict_input(self, X)
        return self.rule_list_.predict_proba(X01)

    def predict(self, X):
        """``classes_[1]`` iff the capturing rule's probability exceeds ``1/(1+w)``, else ``classes_[0]``."""
        X01 = validate_predict_input(self, X)
        return self.classes_[(self.rule_list_.rule_probability(X01) > self.rule_list_.threshold).astype(np.int64)]

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
    regularization : ``C`` >= 0, the cost per rule (0 is allowed: Theorem 4.6 holds for ``C >= 0`` and the
        search stops after ``n_iter`` iterations whatever ``C``).
    n_iter : ``T``, the number of Monte-Carlo iterations.
    p_stop : probability of stopping before each rule.
    curiosity_weight : ``lambda`` of the curiosity function (11).
    max_card, min_class_support, negations : class-wise mining: itemsets of up to ``max_card`` literals (with
        ``negations``, negated features too) whose support *within the positive or within the negative class* is at
        least ``min_class_support`` (``CorelsClassifier``'s ``min_support`` counts support over all samples
        instead; FRL's former name ``min_support`` still works with a FutureWarning).
    feasibility : ``"paper"`` (Proposition 4.2 on the extended prefix) or ``"reference"`` (the reference code's
        weaker test, which can return a list that is not falling).
    random_state : None, int, RandomState or Generator.
    time_limit : seconds, or None; the search then stops with status TIME_LIMIT and the best list so far.
    node_limit, memory_limit : the search's iteration count and memory cap, as for the other estimators
        (``memory_limit``: bytes, a size such as ``"2G"``, ``"auto"`` = half of the physical memory, or None).
    verbose : > 0 shows a progress line (iterations, best objective) when stderr is a terminal.
    keep_duplicates : keep itemsets with identical bit vectors and add the reference's tuple-order twins (the
        reference's antecedent multiset, for trajectory-distribution parity).
    max_recorded_iterations : iterations kept whole in ``search_trace_`` and ``candidates_`` (the first ones);
        later iterations still count in ``result_`` (trace of improvements, time to best, mean candidate counts),
        so a long time-limited search runs in bounded memory.
    feature_names : printed names of the columns of ``X`` (default: the DataFrame's columns, else ``x0, ...``).
    class_weight : None, ``"balanced"`` (``n_samples / (2 * class weight)``, on ``sample_weight`` when given) or a
        dict ``{label: factor}``: multiplies each sample's weight (``fit``'s ``sample_weight``) by its class's factor.
        Counts are weight sums; ``positive_weight`` still prices a false negative against a false positive, so a
        class weight and ``positive_weight`` compound.

    Attributes
    ----------
    rule_list_ : the :class:`~optbb.frl.model.FallingRuleList` found; it predicts on the columns of ``X``.
    result_ : the search's :class:`~optbb.common.result.SearchResult`, the mining's counters included.
    antecedents_ : the mined antecedents, a :class:`~optbb.common.mining.MinedAntecedents` as
        ``CorelsClassifier``'s: ``antecedents``, ``data`` (one column per antecedent), ``transform(X)`` and
        ``status`` (the limit that stopped the mining, None when it is complete).
    antecedent_names_, n_antecedents_ : the names and the number of the antecedents searched (none when a limit
        stopped the mining).
    classes_, threshold_ (``1/(1+w)``), candidates_, search_trace_ : the labels, the decision threshold, and the
        recorded iterations' candidate counts and objectives.
    """

    _parameter_constraints: dict = {**_FRLBase._parameter_constraints,
                                    "feasibility": OPTION_CONSTRAINTS["feasibility"]}

    def __init__(self, positive_weight=7.0, regularization=1e-6, n_iter=3000, p_stop=0.01, curiosity_weight=0.8,
                 max_card=2, min_class_support=0.1, negations=False, feasibility="paper", random_state=None,
                 time_limit=None, keep_duplicates=False, max_recorded_iterations=100_000, node_limit=None,
                 memory_limit="auto", verbose=0, feature_names=None, min_support="deprecated", class_weight=None):
        self.positive_weight = positive_weight
        self.regularization = regularization
        self.n_iter = n_iter
        self.p_stop = p_stop
        self.curiosity_weight = curiosity_weight
        self.max_card = max_card
        self.min_class_support = min_class_support
        self.negations = negations
        self.feasibility = feasibility
        self.random_state = random_state
        self.time_limit = time_limit
        self.keep_duplicates = keep_duplicates
        self.max_recorded_iterations = max_recorded_iterations
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose
        self.feature_names = feature_names
        self.min_support = min_support
        self.class_weight = class_weight


class SoftFRLClassifier(_FRLBase):
    """Algorithm softFRL: Monte-Carlo search minimising ``L~ = R + C |d| + C1 S(d)`` (Program 5.1) with the bound
    of Theorem 5.2; the output probabilities are pulled down to be falling (``make_falling``).

    Parameters are those of :class:`FRLClassifier` without ``feasibility``, plus ``monotonicity_penalty`` (``C1``);
    the fitted attributes are its own.
    """

    _soft = True
    _parameter_constraints: dict = {**_FRLBase._parameter_constraints,
                                    "monotonicity_penalty": OPTION_CONSTRAINTS["monotonicity_penalty"]}

    def __init__(self, positive_weight=7.0, regularization=1e-6, monotonicity_penalty=0.5, n_iter=6000, p_stop=0.01,
                 curiosity_weight=0.8, max_card=2, min_class_support=0.1, negations=False, random_state=None,
                 time_limit=None, keep_duplicates=False, max_recorded_iterations=100_000, node_limit=None,
                 memory_limit="auto", verbose=0, feature_names=None, min_support="deprecated", class_weight=None):
        self.positive_weight = positive_weight
        self.regularization = regularization
        self.monotonicity_penalty = monotonicity_penalty
        self.n_iter = n_iter
        self.p_stop = p_stop
        self.curiosity_weight = curiosity_weight
        self.max_card = max_card
        self.min_class_support = min_class_support
        self.negations = negations
        self.random_state = random_state
        self.time_limit = time_limit
        self.keep_duplicates = keep_duplicates
        self.max_recorded_iterations = max_recorded_iterations
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose
        self.feature_names = feature_names
        self.min_support = min_support
        self.class_weight = class_weight
