"""The other baselines of CORELS Figure 9 and FRL Figure 4(a), from scikit-learn.

The CORELS paper ran R packages with default settings (GLM, e1071 SVM, AdaBoost, randomForest); these are the
nearest scikit-learn defaults.  ``class_weight`` (or ``positive_weight`` for AdaBoost, which reweights samples)
makes them cost-sensitive for the FRL comparison.
"""
from __future__ import annotations

import numpy as np
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from .cart import CARTClassifier


def logistic_regression(class_weight=None):
    """Unpenalised logistic regression, as R's ``glm(family = binomial)``."""
    return LogisticRegression(C=np.inf, max_iter=2000, class_weight=class_weight)


def svm(class_weight=None, random_state=0):
    """RBF-kernel SVM with C = 1 and gamma = 1 / n_features, as e1071's ``svm`` defaults."""
    return SVC(C=1.0, kernel="rbf", gamma="auto", class_weight=class_weight, random_state=random_state)


def adaboost(n_estimators=50, max_depth=1, class_weight=None, random_state=0):
    """AdaBoost (SAMME) over CART trees of depth ``max_depth``; ``class_weight`` makes the base trees
    cost-sensitive."""
    base = DecisionTreeClassifier(max_depth=max_depth, class_weight=class_weight, random_state=random_state)
    return AdaBoostClassifier(base, n_estimators=n_estimators, random_state=random_state)


def random_forest(n_estimators=500, class_weight=None, random_state=0, n_jobs=1):
    """Random forest of 500 trees (R randomForest's default ``ntree``) of cost-sensitive CART trees."""
    return RandomForestClassifier(n_estimators=n_estimators, class_weight=class_weight, random_state=random_state,
                                  n_jobs=n_jobs)


def cart(cp=0.01, class_weight=None):
    """rpart-style CART (see :mod:`optbb.baselines.cart`)."""
    return CARTClassifier(cp=cp, class_weight=class_weight)


MODELS = {"GLM": logistic_regression, "SVM": svm, "AdaBoost": adaboost, "RF": random_forest, "CART": cart}


def make_model(name: str, **kwargs):
    """A fresh baseline by its name in CORELS Figure 9: "GLM", "SVM", "AdaBoost", "RF" or "CART"."""
    if name not in MODELS:
        raise ValueError(f"unknown baseline {name!r}; expected one of {', '.join(MODELS)}")
    return MODELS[name](**kwargs)
