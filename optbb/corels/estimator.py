"""``CorelsClassifier``: scikit-learn estimator over antecedent mining and the CORELS search."""
from __future__ import annotations

from typing import Iterable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ..common.data import BinaryDataset
from ..common.mining import mine_antecedents
from ..common.validation import BinaryOnlyTagsMixin, expand_weights, validate_fit_input, validate_predict_input
from .search import solve


class CorelsClassifier(BinaryOnlyTagsMixin, ClassifierMixin, BaseEstimator):
    """Certifiably optimal rule list on binary features.

    Antecedents are mined from the 0/1 columns of ``X`` (features and, with ``negations``, their negations; conjunctions
    of up to ``max_card`` literals with support in ``[min_support, 1 - min_support]``), then CORELS finds the rule list
    minimising ``misclassification rate + regularization * rules``.  See :func:`optbb.corels.solve` for the search
    options.  Fitted attributes: ``rule_list_`` (:class:`RuleList`), ``result_`` (:class:`SearchResult`),
    ``classes_``, ``n_features_in_``, ``feature_names_in_`` (DataFrame input), ``antecedents_`` (mined).

    ``sample_weight`` must hold non-negative integers: a weight ``k`` counts a sample ``k`` times (the objective is a
    misclassification *rate* over counted samples, so integer weights are exactly repeated rows).  Fractional
    weights are refused with a ``ValueError``.

    Example::

        from optbb.corels import CorelsClassifier
        clf = CorelsClassifier(regularization=0.01).fit(X, y)   # X: 0/1 DataFrame, y: two labels
        print(clf)                                             # the rule list, with the DataFrame's column names
    """

    def __init__(self, regularization: float = 0.01, max_card: int = 2, min_support: float = 0.01,
                 negations: bool = True, policy: str = "lower_bound", map_type: str = "prefix",
                 ablation: Iterable[str] = (), time_limit: float | None = None, node_limit: int | None = None,
                 memory_limit: int | str | None = None, verbose: int = 0):
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

    def fit(self, X, y, sample_weight=None) -> "CorelsClassifier":
        X01, y01, classes, names, w = validate_fit_input(X, y, sample_weight, estimator=self)
        X01, y01 = expand_weights(X01, y01, w, "CorelsClassifier")
        feature_names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(X01.shape[1])]
        data = BinaryDataset(X01, y01, feature_names, None, (str(classes[0]), str(classes[1])))
        self.antecedents_ = mine_antecedents(data, self.max_card, self.min_support, self.negations)
        self.result_ = solve(self.antecedents_.data, self.regularization, self.policy, self.map_type, self.ablation,
                             self.time_limit, self.node_limit, self.memory_limit, verbose=self.verbose)
        self.rule_list_ = self.result_.model
        self.classes_ = classes
        return self

    def predict(self, X) -> np.ndarray:
        """The label of the first rule whose antecedent each row satisfies (the default label otherwise)."""
        X01 = validate_predict_input(self, X)
        return self.classes_[self.rule_list_.predict(self.antecedents_.transform(X01))]

    def __str__(self) -> str:
        if hasattr(self, "rule_list_"):
            return self.rule_list_.text()
        return repr(self)
