"""``CorelsClassifier``: scikit-learn estimator over antecedent mining and the CORELS search."""
from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Iterable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions

from ..common.bitset import n_words
from ..common.data import BinaryDataset
from ..common.proba import LogOddsDecisionMixin
from ..common.validation import (FEATURE_NAMES_CONSTRAINT, LIMIT_CONSTRAINTS, MultiClassTagsMixin, Number,
                                 ParamNamesMixin, display_names, validate_fit_input, validate_predict_input)
from ..common.weights import combined_weights, drop_zero_weights
from .search import OPTION_CONSTRAINTS, mine_and_solve


class CorelsClassifier(LogOddsDecisionMixin, MultiClassTagsMixin, ParamNamesMixin, ClassifierMixin, BaseEstimator):
    """Certifiably optimal rule list on binary features.

    Antecedents are mined from the 0/1 columns of ``X`` (features and, with ``negations``, their negations; conjunctions
    of up to ``max_card`` literals with support in ``[min_support, 1 - min_support]``), then CORELS finds the rule list
    minimising ``misclassification rate + regularization * rules`` (``regularization`` >= 0: at 0 the bounds of
    the paper still hold, Theorem 10 and the prefix-length bound of Theorem 4 simply prune nothing).  See
    :func:`optbb.corels.solve` for the search options.  ``time_limit`` (seconds), ``node_limit`` (prefixes
    expanded) and ``memory_limit`` (bytes, a size such as ``"2G"``, ``"auto"`` = half of the physical memory, or
    None) cover mining and search together (:func:`optbb.corels.search.mine_and_solve`) and stop early with the
    best list and a bound; a limit reached while mining returns the default-only list with that status and a valid
    lower bound (``antecedents_.status`` tells that the antecedent set is incomplete).  ``verbose`` >= 1 shows
    progress; ``feature_names`` overrides the printed names (default: the DataFrame's columns, else
    ``x0, x1, ...``).  Fitted attributes: ``rule_list_`` (:class:`RuleList`), ``result_`` (:class:`SearchResult`),
    ``classes_``, ``n_features_in_``, ``feature_names_in_`` (DataFrame input), ``antecedents_`` (mined).

    ``y`` may hold any ``k >= 2`` labels (``classes_``, sorted): every rule and the default rule predict the class
    of largest (weighted) amount among the training samples they capture, ties to the later class of ``classes_``.

    ``sample_weight`` (non-negative reals) and ``class_weight`` (None, ``"balanced"`` = scikit-learn's
    ``n_samples / (n_classes * class weight total)``, or a dict ``{label: weight}``) multiply into one weight per
    sample (:func:`optbb.common.weights.combined_weights`); the objective becomes *weight of the misclassified
    samples / total weight* ``+ regularization * rules``, and every bound is stated in weights.  The mining support
    filter is weighted too (an antecedent's captured weight over the total), so integer weights give exactly the
    list of repeated rows; samples of weight 0 are dropped.  When no antecedent passes the filter the list is the
    default rule alone (with a warning).

    Example::

        from optbb.corels import CorelsClassifier
        clf = CorelsClassifier(regularization=0.01).fit(X, y)   # X: 0/1 DataFrame, y: two or more labels
        print(clf)                                             # the rule list, with the DataFrame's column names
    """

    _parameter_constraints: dict = {
        "regularization": [Number(Real, 0, None, closed="left")],
        "max_card": [Number(Integral, 1, None, closed="left")],
        "min_support": [Number(Real, 0, 0.5, closed="both")],
        "negations": ["boolean"],
        **OPTION_CONSTRAINTS,
        **LIMIT_CONSTRAINTS,
        **FEATURE_NAMES_CONSTRAINT,
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, regularization: float = 0.01, max_card: int = 2, min_support: float = 0.01,
                 negations: bool = True, policy: str = "lower_bound", map_type: str = "prefix",
                 ablation: Iterable[str] = (), time_limit: float | None = None, node_limit: int | None = None,
                 memory_limit: int | str | None = "auto", verbose: int = 0, feature_names=None,
                 class_weight: dict | str | None = None):
        self.regularization = regularization
        self.max_card = max_card
        self.min_support = min_support
        self.negations = negations
        self.policy = policy
        self.map_type = map_type
        self.ablation = ablation
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose
        self.feature_names = feature_names
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None) -> "CorelsClassifier":
        """Mine the antecedents of ``X`` (0/1 features) and find the certifiably optimal rule list (weighted by
        ``sample_weight`` and ``class_weight`` when given).  ``time_limit`` counts from this call."""
        started = time.perf_counter()
        self._validate_params()
        X01, y01, classes, names, w = validate_fit_input(X, y, sample_weight, estimator=self, multiclass=True)
        w = combined_weights(y01, w, self.class_weight, classes, "CorelsClassifier")
        feature_names = display_names(self.feature_names, names, X01.shape[1])
        data = BinaryDataset(X01, y01, feature_names, w, tuple(str(c) for c in classes))
        # what rashomon_set needs when no antecedent is mined (antecedents_.data is then None): labels and weights
        self._labels = (data.y, data.sample_weight)
        self.antecedents_, self.result_ = mine_and_solve(
            data, self.regularization, max_card=self.max_card, min_support=self.min_support, negations=self.negations,
            policy=self.policy, map_type=self.map_type, ablation=self.ablation, time_limit=self.time_limit,
            node_limit=self.node_limit, memory_limit=self.memory_limit, verbose=self.verbose, started=started)
        self.rule_list_ = self.result_.model
        self.rule_list_.attach_literals(self.antecedents_.antecedents, feature_names)
        self.rule_list_.classes = list(classes)
        self.classes_ = classes
        return self

    def rashomon_set(self, epsilon: float | None = None, bound: float | None = None, *,
                     max_length: int | None = None, time_limit: float | None = None, node_limit: int | None = None,
                     memory_limit: int | str | None = "auto", verbose: int = 0):
        """Every rule list within ``(1 + epsilon) *`` the optimum (or an absolute ``bound``) over the antecedents
        and training samples of ``fit`` (samples of weight 0 left out, as ``fit`` does) with this estimator's
        ``regularization``: see :func:`optbb.corels.rashomon_set`, whose arguments these are.  Its models are
        :class:`RuleList` objects like ``rule_list_``: they predict ``classes_`` labels on X as ``predict`` takes
        it (``RashomonSet.predict(X)``); ``class_counts()`` rows are the training samples of positive weight."""
        from sklearn.utils.validation import check_is_fitted

        from .rashomon import build_set

        started = time.perf_counter()
        check_is_fitted(self, "rule_list_")
        mined = self.antecedents_
        if not mined.complete:
            raise ValueError(f"the antecedents were not all mined ({mined.status.value} during fit): the Rashomon "
                             "set needs the complete antecedent set; fit again with a larger limit")
        data = mined.data if mined.data is not None else self._no_antecedents()
        names, classes = self.rule_list_.feature_names, self.classes_

        def finish(model) -> None:
            model.attach_literals(mined.antecedents, names)
            model.classes = list(classes)

        out = build_set(data, self.regularization, epsilon=epsilon, bound=bound, max_length=max_length,
                        time_limit=time_limit, node_limit=node_limit, memory_limit=memory_limit, verbose=verbose,
                        classes=classes, model_hook=finish, started=started)
        out.prepare = lambda X_raw: validate_predict_input(self, X_raw)
        out.backend.read_columns(names, mined.antecedents)
        return out

    def _no_antecedents(self) -> BinaryDataset:
        """The training samples of positive weight over no antecedent (none passed the support filter)."""
        y, w = self._labels
        w, y = drop_zero_weights(w, y)
        n = y.shape[0]
        return BinaryDataset.from_bits(np.zeros((0, n_words(n)), dtype=np.uint64), y, [], w,
                                       tuple(str(c) for c in self.classes_), np.zeros((n, 0), dtype=np.uint8))

    def predict(self, X) -> np.ndarray:
        """The label of the first rule whose antecedent each row satisfies (the default label otherwise)."""
        X01 = validate_predict_input(self, X)
        rl = self.rule_list_
        return self.classes_[rl.rule_classes()[rl.capture_antecedents(self.antecedents_.transform(X01))]]

    def __str__(self) -> str:
        return self.rule_list_.text() if hasattr(self, "rule_list_") else repr(self)

    def predict_proba(self, X) -> np.ndarray:
        """``(n, K)`` class probabilities, columns in ``classes_`` order: the training class amounts (counts, or
        weights when fitted with weights) of the rule that classifies each row, Laplace-smoothed with one more
        pseudo-count on the rule's label (``(c_k + 1 + [k == label]) / (n + K + 1)``, see :mod:`optbb.common.proba`),
        so rows sum to 1 and ``classes_[argmax]`` equals ``predict`` on every row, ties included."""
        X01 = validate_predict_input(self, X)
        return self.rule_list_.predict_proba_antecedents(self.antecedents_.transform(X01))
