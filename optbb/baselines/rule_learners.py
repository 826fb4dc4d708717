"""C4.5, RIPPER and SBRL baselines of CORELS Figures 9 and 11, from installable Python packages.

The CORELS paper ran R's ``RWeka::J48`` (C4.5), ``caret``'s RIPPER (Weka ``JRip``) and the C implementation of
SBRL; these wrappers use the nearest Python implementations, from the optional extra
``pip install "optbb[baselines]"``.  The C4.5 of ``imodels`` has no pessimistic-error pruning (J48's ``C = 0.25``),
so its trees are larger; ``imodels``' Bayesian rule list samples the posterior SBRL samples (Letham et al. 2015),
and given the antecedent matrix with ``max_card=1`` it chooses among exactly the antecedents CORELS sees.

The packages are imported inside ``fit`` (an ``ImportError`` naming the extra without them; :func:`missing` tells
which are absent).  Each fitted wrapper has ``size_``: leaves (C4.5) or rules including the default (RIPPER,
SBRL), the model size of Figure 11.
"""
from __future__ import annotations

import importlib.util  # binds importlib too (import_module)

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

EXTRA = 'pip install "optbb[baselines]"'
PACKAGES = {"C4.5": "imodels", "RIPPER": "wittgenstein", "SBRL": "imodels"}


def missing() -> dict[str, str]:
    """``{baseline: package}`` for the baselines whose package is not installed."""
    return {name: pkg for name, pkg in PACKAGES.items() if importlib.util.find_spec(pkg) is None}


def _require(package: str, baseline: str):
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(f"the {baseline} baseline needs the optional package {package!r}: {EXTRA}") from exc


def _check_xy(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with as many rows, got shapes {X.shape} and {y.shape}")
    classes, y01 = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"these baselines take exactly two classes, got {classes.size}")
    return X, y01, classes


class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5 decision tree (``imodels.C45TreeClassifier``); ``max_rules`` caps the number of splits (None: none)."""

    def __init__(self, max_rules: int | None = None):
        self.max_rules = max_rules

    def fit(self, X, y):
        X, y01, self.classes_ = _check_xy(X, y)
        imodels = _require("imodels", "C4.5")
        self.model_ = imodels.C45TreeClassifier(max_rules=self.max_rules).fit(X.astype(float), y01)
        self.size_ = _xml_leaves(self.model_.dom_.documentElement)
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.classes_[np.asarray(self.model_.predict(np.asarray(X, dtype=float))).astype(int)]


def _xml_leaves(node) -> int:
    children = [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE]
    return 1 if not children else sum(_xml_leaves(c) for c in children)


class RipperClassifier(ClassifierMixin, BaseEstimator):
    """RIPPER rule set (``wittgenstein.RIPPER``, Cohen 1995; ``k = 2`` optimisation passes and a third of the data
    for pruning, as JRip) for the training data's minority class; default: the majority, as JRip orders classes."""

    def __init__(self, k: int = 2, prune_size: float = 0.33, random_state: int = 0):
        self.k = k
        self.prune_size = prune_size
        self.random_state = random_state

    def fit(self, X, y):
        X, y01, self.classes_ = _check_xy(X, y)
        lw = _require("wittgenstein", "RIPPER")
        self.positive_ = int(np.sum(y01) * 2 <= y01.size)  # the minority class (class 1 on a tie)
        self.model_ = lw.RIPPER(k=self.k, prune_size=self.prune_size, random_state=self.random_state)
        self.model_.fit(_frame(X), (y01 == self.positive_).astype(int), pos_class=1)
        self.size_ = len(self.model_.ruleset_.rules) + 1
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        hit = np.asarray(self.model_.predict(_frame(np.asarray(X))), dtype=bool)
        return self.classes_[np.where(hit, self.positive_, 1 - self.positive_)]


def _frame(X: np.ndarray):
    return pd.DataFrame(X.astype(int), columns=[f"x{j}" for j in range(X.shape[1])])


class SBRLClassifier(ClassifierMixin, BaseEstimator):
    """Bayesian rule list (``imodels.BayesianRuleListClassifier``) with the CORELS paper's SBRL settings (expected
    list length 9, expected rule width 3, 11 chains, 1,000 iterations).

    ``list_length_prior`` is SBRL's lambda, ``list_width_prior`` its eta; ``max_card`` and ``min_support`` control
    the itemsets mined from the columns of ``X`` (``max_card=1`` on an antecedent matrix: the antecedents as given).
    """

    def __init__(self, list_length_prior: float = 9.0, list_width_prior: float = 3.0, n_chains: int = 11,
                 max_iter: int = 1000, max_card: int = 1, min_support: float = 1e-9, random_state: int = 0):
        self.list_length_prior = list_length_prior
        self.list_width_prior = list_width_prior
        self.n_chains = n_chains
        self.max_iter = max_iter
        self.max_card = max_card
        self.min_support = min_support
        self.random_state = random_state

    def fit(self, X, y):
        X, y01, self.classes_ = _check_xy(X, y)
        imodels = _require("imodels", "SBRL")
        self.model_ = imodels.BayesianRuleListClassifier(
            listlengthprior=self.list_length_prior, listwidthprior=self.list_width_prior,
            maxcardinality=self.max_card, minsupport=self.min_support, n_chains=self.n_chains,
            max_iter=self.max_iter, random_state=self.random_state)
        self.model_.fit(X.astype(int), y01)
        self.size_ = len(self.model_.d_star) if self.model_.d_star else 1  # d_star ends with the default rule
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        proba = self.model_.predict_proba(np.asarray(X).astype(int))[:, 1]
        return self.classes_[(proba >= 0.5).astype(int)]


MODELS = {"C4.5": C45Classifier, "RIPPER": RipperClassifier, "SBRL": SBRLClassifier}


def make_model(name: str, **kwargs):
    """A fresh rule-learner baseline by its name in CORELS Figure 9: "C4.5", "RIPPER" or "SBRL"."""
    if name not in MODELS:
        raise ValueError(f"unknown rule-learner baseline {name!r}; expected one of {', '.join(MODELS)}")
    return MODELS[name](**kwargs)
