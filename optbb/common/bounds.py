"""Bounds shared by the branch-and-bound solvers, each citing the theorem it implements.

All quantities are kept as integer counts (errors, captured samples) and turned into objective values by one
formula, :func:`objective_value`, so that every solver and every brute-force twin compute bit-identical floats.
Pruning tests follow the papers: prune when a bound is ``>=`` the incumbent; support tests prune only when the
count is strictly below ``lambda * N``.
"""
from __future__ import annotations

import numpy as np

from .jit import njit


@njit(cache=True, inline="always")
def objective_value(errors, n_rules, n_samples, lam):
    """Regularised risk ``errors / N + lambda * K`` (CORELS Eq. 1; OSDT Eq. 4 with K = leaves)."""
    return errors / n_samples + lam * n_rules


@njit(cache=True, inline="always")
def majority_errors(n_pos, n_total):
    """Label and errors of a majority-vote leaf or rule: ``(label, errors)``; a tie predicts 1 (reference CORELS)."""
    n_neg = n_total - n_pos
    if n_neg > n_pos:
        return 0, n_pos
    return 1, n_neg


@njit(cache=True, inline="always")
def majority_class(counts):
    """Label and errors of a majority-vote rule over ``k >= 2`` classes from its captured class counts (or weights):
    ``(label, errors)``, the label of the largest count (ties to the larger class index, so for two classes a tie
    predicts 1 as :func:`majority_errors` does) and the errors the total of the other classes."""
    best = 0
    for j in range(1, counts.shape[0]):
        if counts[j] >= counts[best]:
            best = j
    errors = counts[0] * 0
    for j in range(counts.shape[0]):
        if j != best:
            errors += counts[j]
    return best, errors


def majority_labels(counts):
    """The label :func:`majority_class` gives each row of class counts (or weights; the last axis), in numpy for
    Python callers: the largest count, ties to the larger class index."""
    return counts.shape[-1] - 1 - np.argmax(counts[..., ::-1], axis=-1)


@njit(cache=True, inline="always")
def support_too_small(n_captured, threshold):
    """Lower bound on antecedent support (CORELS Thm 10; OSDT Thm 3.3): an optimal model never has a rule or leaf
    that captures fewer than ``lambda * N`` samples, so prune when ``n_captured < threshold``."""
    return n_captured < threshold


@njit(cache=True, inline="always")
def accurate_support_too_small(n_correct, threshold):
    """Lower bound on accurate antecedent support (CORELS Thm 11; OSDT Thm 3.5): every rule or leaf of an optimal
    model classifies at least ``lambda * N`` samples correctly, so prune when ``n_correct < threshold``."""
    return n_correct < threshold
