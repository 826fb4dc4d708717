"""Brute-force twin of CORELS: enumerate every ordered prefix of distinct antecedents and score it directly (numpy
only, nothing from optbb).  Labels may have any number of classes; samples may carry weights."""
from __future__ import annotations

from itertools import permutations

import numpy as np


def _rule_errors(y: np.ndarray, w: np.ndarray, hit: np.ndarray) -> float:
    """Weight of the samples of ``hit`` outside their largest class: what a majority-vote rule misclassifies."""
    if not hit.any():
        return 0.0
    amounts = np.bincount(y[hit], weights=w[hit])
    return float(amounts.sum() - amounts.max())


def rule_list_objective(A: np.ndarray, y: np.ndarray, prefix, lam: float, sample_weight=None) -> float:
    """Objective of the rule list a prefix determines: each rule and the default predict the (weighted) majority
    label of the samples they capture (first matching rule wins); misclassified weight / total weight + lambda *
    len(prefix).  Without weights every sample weighs 1, so this is errors / N."""
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    errors = 0.0
    open_ = np.ones(len(y), dtype=bool)
    for a in prefix:
        hit = open_ & (A[:, a] == 1)
        errors += _rule_errors(y, w, hit)
        open_ &= ~hit
    errors += _rule_errors(y, w, open_)
    return errors / w.sum() + lam * len(prefix)


def corels_brute_force(A: np.ndarray, y: np.ndarray, lam: float, max_length: int | None = None, sample_weight=None):
    """Minimum objective over all prefixes up to ``max_length`` (default: all antecedents), and one minimiser."""
    m = A.shape[1]
    max_length = m if max_length is None else min(max_length, m)
    best, best_prefix = rule_list_objective(A, y, (), lam, sample_weight), ()
    for k in range(1, max_length + 1):
        for prefix in permutations(range(m), k):
            obj = rule_list_objective(A, y, prefix, lam, sample_weight)
            if obj < best:
                best, best_prefix = obj, prefix
    return best, best_prefix
