"""Class probabilities of rule lists and trees from the training counts of the rule or leaf that classifies a sample.

A fitted CORELS rule (or OSDT / BinOCT leaf) stores ``c_k``, the number (or weight) of training samples of class
``k`` it captures, and its label ``yhat``, the majority of those counts (ties go to the larger class index, as in
the solvers).  Its probability estimate is Laplace's rule of succession with one more pseudo-count on the rule's
own label::

    p_k = (c_k + 1 + [k == yhat]) / (n + K + 1),        n = sum_k c_k,  K = number of classes.

Why this smoothing:

* Laplace's ``(c_k + 1) / (n + K)`` (a uniform Dirichlet prior) keeps every probability strictly inside (0, 1), so
  log-loss is finite and calibrators (``CalibratedClassifierCV``) and ``roc_auc`` have no infinities to handle;
  a rule that captured 3 positives and no negatives gives 0.8 / 0.2 rather than a certain 1 / 0.
* It alone leaves a tie ``c_0 = c_1`` at exactly 1/2 each, where ``predict`` returns the rule's label
  (``classes_[1]`` for CORELS, OSDT and BinOCT, the papers' tie rule) while ``numpy.argmax`` returns index 0.
  The extra pseudo-count on ``yhat`` makes the rule's label the *unique* largest probability whenever it is a
  majority (or tied) label of the counts, so ``classes_[argmax(predict_proba(X))] == predict(X)`` on every sample,
  ties and empty leaves (``n = 0``: ``yhat`` gets ``2 / (K + 1)``) included.
* As ``n`` grows the estimate tends to the class frequencies ``c_k / n``.

``decision_function`` of a binary model is the log-odds ``log(p_1 / p_0)``: positive exactly where ``predict``
says ``classes_[1]``, and the natural input of Platt (sigmoid) calibration.
"""
from __future__ import annotations

import numpy as np


def smoothed_probabilities(counts, labels) -> np.ndarray:
    """Row-wise ``(c_k + 1 + [k == label]) / (n + K + 1)`` for a ``(rules, K)`` count matrix and one label per row.

    ``counts`` may hold integers or real weights (non-negative); the result has the same shape, rows summing to 1.
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] < 2:
        raise ValueError(f"counts must be a (rules, classes >= 2) matrix, got shape {c.shape}")
    if np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts must be finite and non-negative")
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    if lab.shape[0] != c.shape[0] or np.any((lab < 0) | (lab >= c.shape[1])):
        raise ValueError(f"labels must hold one class index in [0, {c.shape[1]}) per row of counts")
    num = c + 1.0
    num[np.arange(c.shape[0]), lab] += 1.0
    return num / num.sum(axis=1, keepdims=True)


def binary_counts(n_samples, n_errors, labels) -> np.ndarray:
    """``(rules, 2)`` class counts of binary rules or leaves from their sizes, errors and 0/1 labels."""
    n = np.asarray(n_samples, dtype=np.float64).reshape(-1)
    e = np.asarray(n_errors, dtype=np.float64).reshape(-1)
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    out = np.empty((n.shape[0], 2), dtype=np.float64)
    out[:, 1] = np.where(lab == 1, n - e, e)
    out[:, 0] = n - out[:, 1]
    return out


class LogOddsDecisionMixin:
    """``decision_function`` of a classifier with smoothed ``predict_proba``."""

    def decision_function(self, X) -> np.ndarray:
        """Two classes: the log-odds ``log(p_1 / p_0)`` of ``predict_proba``, positive exactly where ``predict`` says
        ``classes_[1]``; more classes: ``log(predict_proba)``, shape ``(n, K)``."""
        proba = np.asarray(self.predict_proba(X), dtype=np.float64)
        if proba.shape[1] == 2:
            return np.log(proba[:, 1]) - np.log(proba[:, 0])
        return np.log(proba)
