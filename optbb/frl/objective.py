"""FRL and softFRL objectives from per-rule counts (Chen & Rudin, AISTATS 2018, Sections 2 and 5).

A rule list is given by the counts it captures: ``n_pos[j]`` and ``n_neg[j]`` for ``j = 0..|d|``, the last entry
being the else clause.  With the threshold fixed at ``1/(1+w)`` (Theorem 2.8) rule ``j`` predicts positive iff
``w * n_pos[j] > n_neg[j]`` (strict; a tie predicts negative), so its weighted risk is ``min(n_neg, w n_pos) / n``
(SUPP Eq. 13).  The FRL objective is ``L = R + C |d|`` (Def. 2.7, Program 2.9) and softFRL adds ``C1 S`` with the
monotonicity penalty ``S`` of the running minimum (Program 5.1).  All functions are ``@njit``; each one has a
plain-Python twin in ``tests/twins/frl.py``.
"""
from __future__ import annotations

import numpy as np
from ..common.jit import njit


@njit(cache=True, inline="always")
def rule_risk(n_pos, n_neg, w):
    """``n * R_j`` of SUPP Eq. (13): ``n-`` if the rule predicts positive, else ``w n+``."""
    if w * n_pos > n_neg:
        return float(n_neg)
    return w * n_pos


@njit(cache=True)
def weighted_risk(n_pos, n_neg, n, w):
    """``R(d, D, 1/(1+w), w)`` of Eq. (4) from the per-rule counts (else clause last)."""
    s = 0.0
    for j in range(n_pos.shape[0]):
        s += rule_risk(n_pos[j], n_neg[j], w)
    return s / n


@njit(cache=True)
def frl_objective(n_pos, n_neg, n, w, C):
    """``L(d) = R(d) + C |d|``; the else clause (last entry) is free."""
    return weighted_risk(n_pos, n_neg, n, w) + C * (n_pos.shape[0] - 1)


@njit(cache=True)
def proportions(n_pos, n_neg):
    """Empirical positive proportions ``alpha_j = n+_j / n_j`` (0 for an empty rule)."""
    out = np.empty(n_pos.shape[0], dtype=np.float64)
    for j in range(n_pos.shape[0]):
        tot = n_pos[j] + n_neg[j]
        out[j] = n_pos[j] / tot if tot > 0 else 0.0
    return out


@njit(cache=True)
def monotonicity_penalty(alpha):
    """``S(d) = sum_j max(0, alpha_j - min_{k<j} alpha_k)`` (softFRL, SUPP Theorem 5.2; running minimum from 1)."""
    s = 0.0
    amin = 1.0
    for j in range(alpha.shape[0]):
        if alpha[j] > amin:
            s += alpha[j] - amin
        else:
            amin = alpha[j]
    return s


@njit(cache=True)
def soft_objective(n_pos, n_neg, n, w, C, C1):
    """``L~(d) = R(d) + C |d| + C1 S(d)`` (Program 5.1)."""
    return frl_objective(n_pos, n_neg, n, w, C) + C1 * monotonicity_penalty(proportions(n_pos, n_neg))


@njit(cache=True)
def make_falling(alpha):
    """softFRL's output probabilities ``hat alpha_j = min_{k<=j} alpha_k`` (the pulled-down list)."""
    out = np.empty(alpha.shape[0], dtype=np.float64)
    amin = 1.0
    for j in range(alpha.shape[0]):
        if alpha[j] < amin:
            amin = alpha[j]
        out[j] = amin
    return out


@njit(cache=True)
def fractions_fall(num, den):
    """Whether ``num[j - 1] / den[j - 1] >= num[j] / den[j]`` for every consecutive pair, compared crosswise
    (``num[j - 1] den[j] >= num[j] den[j - 1]``): exact on counts, and on values over denominators of 1."""
    for j in range(1, num.shape[0]):
        if num[j - 1] * den[j] < num[j] * den[j - 1]:
            return False
    return True


@njit(cache=True)
def is_falling(n_pos, n_neg):
    """Eq. (2) on exact counts: ``n+_{j-1} / n_{j-1} >= n+_j / n_j`` for every consecutive pair."""
    return fractions_fall(n_pos, n_pos + n_neg)
