"""``OSDTClassifier``: a scikit-learn estimator over :func:`optbb.osdt.solve`."""
from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..common.data import BinaryDataset, fingerprint
from ..common.proba import LogOddsDecisionMixin
from ..common.rashomon import RashomonSet
from ..common.validation import (FEATURE_NAMES_CONSTRAINT, LIMIT_CONSTRAINTS, ParamNamesMixin, MultiClassTagsMixin,
                                 Number, display_names, validate_fit_input, validate_predict_input)
from ..common.weights import combined_weights
from .numeric.cuts import CutDataset, checked_cut_dataset
from .solve import OPTION_CONSTRAINTS, solve_checked
from .rashomon.build import rashomon_set as tree_rashomon_set


def _fingerprint(data: BinaryDataset) -> int:
    """The checksum of what a fit searched: its columns (raw, or 0/1), labels and weights."""
    return fingerprint(data.raw if isinstance(data, CutDataset) else data.X, np.asarray(data.y), data.sample_weight)


class OSDTClassifier(LogOddsDecisionMixin, MultiClassTagsMixin, ParamNamesMixin, ClassifierMixin, BaseEstimator):
    """Optimal sparse decision tree on binary or numeric features.

    Minimises ``misclassification rate + regularization * number of leaves`` and certifies the optimum (see
    :func:`optbb.osdt.solve` for every option).  ``X``: numbers (numpy array or DataFrame).  A column of 0/1 values
    is one binary feature; a numeric column offers every split ``x <= t`` with ``t`` between two consecutive
    training values (:mod:`optbb.osdt.numeric.cuts`), so the tree is optimal over every threshold, prints
    ``petal_length <= 2.45`` and predicts on the raw columns.  Categorical or text columns, NaN and infinity raise a
    ValueError naming the column (one-hot encode categories first, e.g. with :class:`optbb.Binarizer`).  ``y`` any
    ``k >= 2`` labels (more than two need the dynamic-programming search).  ``class_weight``: None, ``"balanced"``
    (``n_samples / (k * class count)``, counted on ``sample_weight``) or a dict ``{label: weight}``; with it and
    ``fit``'s ``sample_weight`` the loss is the weight of the misclassified samples over the total weight (non-uniform
    weights need the dynamic-programming search).  ``search``: ``"auto"`` (the default: the dynamic-programming search
    unless an option only the leaf-set search has is set: ``policy``, ``ablation``, ``upper_bound``, ``max_leaves``),
    ``"dp"`` or ``"leaf_set"`` (the OSDT paper's search).  ``regularization`` lies in (0, 1]; 0 is accepted only by
    the dynamic-programming search with a ``max_depth`` (minimum errors): the leaf-set search is sized by the a-priori
    leaf bound (Thm C.1 / Cor C.2: an optimal tree has fewer than ``R / lambda`` leaves), which needs ``lambda > 0``.
    ``initial_tree``: ``"cart"`` (start from a CART tree with lambda-tied hyper-parameters as the incumbent) or None.
    ``time_limit`` (seconds), ``node_limit`` (trees evaluated) and ``memory_limit`` (bytes, a size such as ``"2G"``,
    ``"auto"`` = half of the physical memory, or None) stop the search early with the best tree and a bound;
    ``verbose`` >= 1 shows progress; ``feature_names`` overrides the printed names (default: the DataFrame's columns,
    else ``x0, x1, ...``).

    Fitted attributes: ``tree_`` (:class:`optbb.osdt.Tree`), ``result_`` (:class:`optbb.SearchResult`),
    ``classes_``, ``n_features_in_``, ``feature_names_in_`` (DataFrame input only).  The fitted estimator also keeps
    the training data for :meth:`rashomon_set`; a pickle leaves it out (a tree fitted on 1,000,000 x 10 pickles in
    a few kB, not 161 MB), and ``rashomon_set`` of an unpickled estimator takes it again as ``X``, ``y``.
    """

    _parameter_constraints: dict = {
        "regularization": [Number(Real, 0, 1, closed="both")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        **OPTION_CONSTRAINTS,
        **LIMIT_CONSTRAINTS,
        **FEATURE_NAMES_CONSTRAINT,
    }

    def __init__(self, regularization=0.05, policy="curiosity", ablation=(), initial_tree="cart", max_depth=None,
                 max_leaves=None, time_limit=None, node_limit=None, memory_limit="auto", verbose=0,
                 upper_bound=None, feature_names=None, search="auto", class_weight=None):
        self.regularization = regularization
        self.policy = policy
        self.ablation = ablation
        self.initial_tree = initial_tree
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.memory_limit = memory_limit
        self.verbose = verbose
        self.upper_bound = upper_bound
        self.feature_names = feature_names
        self.search = search
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        """Solve OSDT on ``(X, y)``.  ``sample_weight``: non-negative real weights (times ``class_weight``); the
        loss is the weight of the misclassified samples over the total weight, so an integer weight ``k`` counts a
        sample ``k`` times.  ``time_limit`` counts from this call: validation and packing are on the clock.  The
        fitted estimator keeps the training data (not copied when it is float64 or 0/1 already) for
        :meth:`rashomon_set`, but a pickle of it does not."""
        started = time.perf_counter()
        self._validate_params()
        data, classes = self._dataset(self, X, y, sample_weight)
        self._fingerprint = _fingerprint(data)  # what tells the training data from other data (rashomon_set)
        # the options are checked with the parameters (_validate_params)
        result = solve_checked(data, self.regularization, search=self.search, policy=self.policy,
                               ablation=self.ablation, initial_tree=self.initial_tree, upper_bound=self.upper_bound,
                               max_depth=self.max_depth, max_leaves=self.max_leaves, time_limit=self.time_limit,
                               node_limit=self.node_limit, memory_limit=self.memory_limit, verbose=self.verbose,
                               started=started)
        if isinstance(data, CutDataset):
            data.release()
        self._data = data  # what rashomon_set searches again
        self.classes_ = classes
        result.model.classes = list(classes)
        self.tree_ = result.model
        self.result_ = result
        return self

    def _dataset(self, checker, X, y, sample_weight) -> tuple[BinaryDataset, np.ndarray]:
        """``(dataset, classes)`` of a fit on ``(X, y, sample_weight)`` with this estimator's parameters, the input
        checked as ``checker`` (an estimator: ``n_features_in_`` and ``feature_names_in_`` are set on it)."""
        Xc, y_enc, classes, names, w = validate_fit_input(X, y, sample_weight, estimator=checker, multiclass=True,
                                                          numeric=True)
        weights = combined_weights(y_enc, w, self.class_weight, classes, "OSDTClassifier")
        names = display_names(self.feature_names, names, Xc.shape[1])
        labels = tuple(str(c) for c in classes)
        if Xc.dtype == np.uint8:
            return BinaryDataset(Xc, y_enc, names, weights, labels), classes
        # every threshold of each numeric column: the trees read the raw columns
        return checked_cut_dataset(Xc, y_enc, names, weights, labels), classes

    def __getstate__(self) -> dict:
        """Pickled without the training data (the tree, the result and the classes are what predict reads):
        :meth:`rashomon_set` of an unpickled estimator takes the training data again."""
        state = dict(super().__getstate__())
        state["_data"] = None
        return state

    def _training(self, X, y, sample_weight) -> BinaryDataset:
        """The dataset :meth:`rashomon_set` searches: the one kept by ``fit``, or made again of ``(X, y,
        sample_weight)``, which must be the fit's training data (a ValueError otherwise, and when neither is
        there)."""
        check_is_fitted(self, "tree_")
        if X is None and y is None and sample_weight is None:
            data = getattr(self, "_data", None)
            if data is None:
                raise ValueError("this OSDTClassifier holds no training data (a pickle keeps the fitted tree, not the "
                                 "training set): pass the data of the fit again, rashomon_set(..., X=X, y=y) "
                                 "(and sample_weight=...)")
            if _fingerprint(data) != self._fingerprint:
                raise ValueError("the training X, y or sample_weight was changed in place since fit (the fit keeps "
                                 "them without a copy): fit again, or pass the data of the fit as X=, y=")
            return data
        if X is None or y is None:
            raise ValueError("rashomon_set takes the training data as X and y together (with sample_weight when the "
                             "fit had it), or none of them to use what fit kept")
        data, _ = self._dataset(clone(self), X, y, sample_weight)
        if _fingerprint(data) != self._fingerprint:
            raise ValueError("X, y and sample_weight are not the data this OSDTClassifier was fitted on: its Rashomon "
                             "set is of the fit's objective on its training data (fit again on other data)")
        self._data = data
        return data

    def rashomon_set(self, epsilon: float | None = None, bound: float | None = None, *, X=None, y=None,
                     sample_weight=None, max_depth="fit", exclude_useless: bool = True,
                     time_limit: float | None = None, node_limit: int | None = None, memory_limit="auto",
                     verbose: int = 0) -> RashomonSet:
        """Every tree on the training data within ``(1 + epsilon) *`` the optimum (or an absolute ``bound``) of
        this estimator's objective (its ``regularization``, weights and, unless given, its ``max_depth``): see
        :func:`optbb.osdt.rashomon_set`.  The trees predict ``classes_`` labels on X as ``predict`` takes it (after
        a fit on numeric columns, the trees are over the raw columns, with thresholds: ``petal_length <= 2.45``).
        The training data is what ``fit`` kept; an unpickled estimator has none, so pass the data of the fit
        again as ``X``, ``y`` (and ``sample_weight``), checked to be that data (a ValueError otherwise)."""
        data = self._training(X, y, sample_weight)
        depth = self.max_depth if max_depth == "fit" else max_depth
        out = tree_rashomon_set(data, self.regularization, epsilon=epsilon, bound=bound, max_depth=depth,
                                exclude_useless=exclude_useless, time_limit=time_limit, node_limit=node_limit,
                                memory_limit=memory_limit, verbose=verbose, classes=list(self.classes_))
        out.prepare = self._features
        return out

    def _features(self, X) -> np.ndarray:
        """The binary features the search saw of raw rows ``X`` (after the fit's column checks)."""
        if not isinstance(self._data, CutDataset):
            return validate_predict_input(self, X)
        return self._data.cuts.transform(validate_predict_input(self, X, numeric=True))

    def _rows(self, X) -> np.ndarray:
        """``X`` checked as the fitted tree reads it: 0/1 columns, or raw numeric ones after a numeric fit."""
        check_is_fitted(self, "tree_")
        return validate_predict_input(self, X, numeric=self.tree_.cuts is not None)

    def predict(self, X):
        """The label of the leaf each row falls in."""
        rows = self._rows(X)
        return self.tree_.predict(rows)

    def __str__(self) -> str:
        """The fitted tree (with the DataFrame's column names), or the parameters before fit."""
        return self.tree_.text() if hasattr(self, "tree_") else repr(self)

    def predict_proba(self, X) -> np.ndarray:
        """``(n, k)`` class probabilities, columns in ``classes_`` order: the training class frequencies (weights,
        with ``sample_weight`` or ``class_weight``) of the leaf each row falls in, Laplace-smoothed with one more
        pseudo-count on the leaf's label
        (``(c_k + 1 + [k == label]) / (n + K + 1)``, see :mod:`optbb.common.proba`), so that
        ``classes_[argmax]`` equals ``predict`` on every row, ties included."""
        rows = self._rows(X)
        return self.tree_.predict_proba(rows)
