"""``OSDTClassifier``: a scikit-learn estimator over :func:`optbb.osdt.solve`."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..common.data import BinaryDataset, check_binary_arrays
from .search import check_options, check_regularization, solve


class OSDTClassifier(ClassifierMixin, BaseEstimator):
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

    def fit(self, X, y):
        check_regularization(self.regularization)
        check_options(self.policy, self.ablation, self.warm_start, self.max_depth, self.max_leaves,
                      self.upper_bound)
        names = None
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
        y_arr = np.array(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y, copy=True)
        if y_arr.ndim != 1:
            y_arr = y_arr.reshape(-1) if y_arr.ndim == 2 and 1 in y_arr.shape else y_arr
        if y_arr.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {y_arr.shape}")
        if y_arr.dtype.kind == "f" and not np.all(np.isfinite(y_arr)):
            raise ValueError("y contains NaN or inf")
        if y_arr.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v) for v in y_arr):
            raise ValueError("y contains missing values")
        classes, y01 = np.unique(y_arr, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(f"y has a single class ({classes[0]!r}); OSDT needs two classes")
        if classes.shape[0] > 2:
            raise ValueError(f"y has {classes.shape[0]} classes; OSDT is binary (two classes only)")
        Xc, y01, _ = check_binary_arrays(X, y01.reshape(-1))
        if names is None:
            names = [f"x{j}" for j in range(Xc.shape[1])]
        data = BinaryDataset(Xc, y01, names)
        result = solve(data, self.regularization, policy=self.policy, ablation=self.ablation,
                       warm_start=self.warm_start, upper_bound=self.upper_bound, max_depth=self.max_depth,
                       max_leaves=self.max_leaves, time_limit=self.time_limit, node_limit=self.node_limit,
                       memory_limit=self.memory_limit, verbose=self.verbose)
        self.classes_ = classes
        self.n_features_in_ = Xc.shape[1]
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        result.model.classes = list(classes)
        self.tree_ = result.model
        self.result_ = result
        return self

    def _check_X(self, X):
        if not hasattr(self, "tree_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this OSDTClassifier is not fitted yet; call fit first")
        if isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
            cols = [str(c) for c in X.columns]
            if cols != list(self.feature_names_in_):
                raise ValueError("X has different feature names (or order) than during fit")
        Xc, _, _ = check_binary_arrays(X, np.zeros(np.shape(X)[0] if np.ndim(X) else 0, dtype=np.uint8))
        if Xc.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Xc.shape[1]} features, but OSDTClassifier was fitted with "
                             f"{self.n_features_in_}")
        return Xc

    def predict(self, X):
        Xc = self._check_X(X)
        return self.tree_.predict(Xc)
