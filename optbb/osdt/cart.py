"""The CART tree both OSDT searches start from (``initial_tree="cart"``): an incumbent before the search begins."""
from __future__ import annotations

import math
import time

import numpy as np

from .model import Literal, leaves_from_sklearn


CART_SECONDS_PER_CELL = 6e-8  # scikit-learn's CART on 0/1 features: 1,000,000 x 40 took 1.25 s (3.1e-8 a cell)
CART_SHARE = 0.25  # of the time left that the CART warm start may take under a time limit


def cart_seconds(n_samples: int, n_features: int) -> float:
    """A generous estimate of the seconds a CART fit on ``n_samples x n_features`` 0/1 data takes."""
    return CART_SECONDS_PER_CELL * n_samples * n_features


def cart_affordable(n_samples: int, n_features: int, time_limit: float | None, started: float) -> bool:
    """Whether a CART warm start fits in :data:`CART_SHARE` of the time left (the clock started at ``started``,
    a ``time.perf_counter()``): without a time limit, always; else the search starts without it."""
    if time_limit is None:
        return True
    left = time_limit - (time.perf_counter() - started)
    return cart_seconds(n_samples, n_features) <= CART_SHARE * left


def cart_warm_start(X: np.ndarray, y: np.ndarray, lam: float, max_depth, max_leaves,
                    sample_weight: np.ndarray | None = None) -> list[tuple[Literal, ...]] | None:
    """Leaves of a CART tree with the hyper-parameters the OSDT reference ties to lambda (at most ``1 / (2 lambda)``
    leaves, and never more than the ``N`` samples: no tree has more leaves than samples), or None when no split
    is allowed.  With ``sample_weight`` the leaf-size rules are weight fractions (``lambda`` of the total weight
    per leaf) instead of sample counts."""
    from sklearn.tree import DecisionTreeClassifier

    n = X.shape[0]
    max_leaf_nodes = int(math.floor(min(0.5 / lam, n)))  # a float min first: 0.5 / 1e-320 is inf
    if max_leaves is not None:
        max_leaf_nodes = min(max_leaf_nodes, int(max_leaves))
    if max_leaf_nodes < 2 or (max_depth is not None and max_depth < 1) or len(np.unique(y)) < 2:
        return None
    if sample_weight is None:
        sizes = dict(min_samples_split=max(int(math.ceil(2 * lam * n)), 2),
                     min_samples_leaf=max(int(math.ceil(lam * n)), 1))
    else:
        sizes = dict(min_weight_fraction_leaf=min(lam, 0.5))
    clf = DecisionTreeClassifier(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=lam,
                                 random_state=0, **sizes)
    clf.fit(X, y, sample_weight=sample_weight)
    return leaves_from_sklearn(clf, X.shape[1])
