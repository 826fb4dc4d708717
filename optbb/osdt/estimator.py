"""``OSDTClassifier``: a scikit-learn estimator over :func:`optbb.osdt.solve`."""
from __future__ import annotations

import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..common.data import BinaryDataset
from ..common.validation import BinaryOnlyTagsMixin, expand_weights, validate_fit_input, validate_predict_input
from .search import check_options, check_regularization, solve


class OSDTClassifier(BinaryOnlyTagsMixin, ClassifierMixin, BaseEstimator):
    """Optimal sparse decision tree on binary features.

    Minimises ``misclassification rate + regularization * number of leaves`` and certifies the optimum (see
    :func:`optbb.osdt.solve` for every option).  ``X`` must hold only 0/1 values (numpy array or DataFrame);
    ``y`` any two labels.

    Fitted attributes: ``tree_`` (:class:`optbb.osdt.Tree`), ``result_`` (:class:`optbb.SearchResult`),
    ``classes_``, ``n_features_in_``, ``feature_names_in_`` (DataFrame input only).
    """

    def __init__(self, regularization=0.05, policy="curiosity", ablation=(), warm_start="cart", max_depth=None,
                 max_leaves=None, time_limit=None, node_limit=None, memory_limit=None, verbose=0,
                 upper_bound=None):
        self.regularization = regularization
        self.policy = policy
        self.ablation = ablation
        self.warm_start = warm_start
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose
        self.upper_bound = upper_bound

    def fit(self, X, y, sample_weight=None):
        """Solve OSDT on ``(X, y)``.  ``sample_weight``: non-negative integers only, a weight ``k`` counting a sample
        ``k`` times (the loss is a misclassification rate over counted samples); fractional weights raise."""
        check_regularization(self.regularization)
        warm = None if self.warm_start is False else self.warm_start  # False: no warm start, as in sklearn
        check_options(self.policy, self.ablation, warm, self.max_depth, self.max_leaves,
                      self.upper_bound)
        Xc, y01, classes, _, w = validate_fit_input(X, y, sample_weight, estimator=self)
        Xc, y01 = expand_weights(Xc, y01, w, "OSDTClassifier")
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
        else:
            names = [f"x{j}" for j in range(Xc.shape[1])]
        data = BinaryDataset(Xc, y01, names)
        result = solve(data, self.regularization, policy=self.policy, ablation=self.ablation,
                       warm_start=warm, upper_bound=self.upper_bound, max_depth=self.max_depth,
                       max_leaves=self.max_leaves, time_limit=self.time_limit, node_limit=self.node_limit,
                       memory_limit=self.memory_limit, verbose=self.verbose)
        self.classes_ = classes
        result.model.classes = list(classes)
        self.tree_ = result.model
        self.result_ = result
        return self

    def predict(self, X):
        """The label of the leaf each row falls in."""
        X01 = validate_predict_input(self, X)
        return self.tree_.predict(X01)

    def __str__(self) -> str:
        """The fitted tree (with the DataFrame's column names), or the parameters before fit."""
        return self.tree_.text() if hasattr(self, "tree_") else repr(self)
