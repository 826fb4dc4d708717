"""Brute-force twin of CORELS: enumerate every ordered prefix of distinct antecedents and score it directly (numpy
only, nothing from optbb)."""
from __future__ import annotations

from itertools import permutations

import numpy as np


def rule_list_objective(A: np.ndarray, y: np.ndarray, prefix, lam: float) -> float:
    """Objective of the rule list a prefix determines: each rule and the default predict the majority label of the
    samples they capture (first matching rule wins); errors / N + lambda * len(prefix)."""
    n = len(y)
    errors = 0
    open_ = np.ones(n, dtype=bool)
    for a in prefix:
        hit = open_ & (A[:, a] == 1)
        ones = int(y[hit].sum())
        errors += min(ones, int(hit.sum()) - ones)
        open_ &= ~hit
    ones = int(y[open_].sum())
    errors += min(ones, int(open_.sum()) - ones)
    return errors / n + lam * len(prefix)


def corels_brute_force(A: np.ndarray, y: np.ndarray, lam: float, max_length: int | None = None):
    """Minimum objective over all prefixes up to ``max_length`` (default: all antecedents), and one minimiser."""
    m = A.shape[1]
    max_length = m if max_length is None else min(max_length, m)
    best, best_prefix = rule_list_objective(A, y, (), lam), ()
    for k in range(1, max_length + 1):
        for prefix in permutations(range(m), k):
            obj = rule_list_objective(A, y, prefix, lam)
            if obj < best:
                best, best_prefix = obj, prefix
    return best, best_prefix
