"""Brute-force twin of the rule-list Rashomon set: every list of distinct antecedents up to ``max_length`` rules in
which each rule captures a sample no earlier rule captured, scored from scratch (numpy only, nothing from optbb).

Each rule and the default predict the class of largest captured amount (sample counts, or sums of weights), ties
to the larger class index; the objective is the misclassified amount over the total plus ``lam`` per rule.  A list
is a member when its objective is at most ``bound + 1e-9 * max(1, |bound|)``.
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

TOLERANCE = 1e-9


def _majority(y: np.ndarray, w: np.ndarray, hit: np.ndarray, k: int) -> tuple[int, float]:
    """The class a rule capturing ``hit`` predicts (largest amount, ties to the larger index) and its errors."""
    amounts = np.bincount(y[hit], weights=w[hit], minlength=k)
    pred = k - 1 - int(np.argmax(amounts[::-1]))
    return pred, float(amounts.sum() - amounts[pred])


def evaluate(A: np.ndarray, y: np.ndarray, prefix, lam: float, w: np.ndarray, k: int):
    """``(objective, errors, predictions per row)`` of the list ``prefix``, or None when a rule captures nothing
    new."""
    open_ = np.ones(len(y), dtype=bool)
    pred = np.empty(len(y), dtype=np.int64)
    errors = 0.0
    for a in prefix:
        hit = open_ & (A[:, a] != 0)
        if not hit.any():
            return None
        c, e = _majority(y, w, hit, k)
        pred[hit] = c
        errors += e
        open_ &= ~hit
    c, e = _majority(y, w, open_, k)
    pred[open_] = c
    errors += e
    return errors / w.sum() + lam * len(prefix), errors, pred


def rashomon_members(A, y, lam: float, *, epsilon=None, bound=None, max_length=None, sample_weight=None,
                     n_classes=None):
    """``(optimum, bound, members)``: the least objective over all lists, the absolute bound (``(1 + epsilon) *
    optimum`` or ``bound``) and the members, a dict ``prefix tuple -> (objective, errors, predictions per row)``."""
    A = np.asarray(A)
    y = np.asarray(y, dtype=np.int64)
    k = int(n_classes) if n_classes is not None else max(2, int(y.max()) + 1)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    m = A.shape[1]
    top = m if max_length is None else min(max_length, m)
    scored = {}
    for length in range(top + 1):
        for prefix in permutations(range(m), length):
            result = evaluate(A, y, prefix, lam, w, k)
            if result is not None:
                scored[prefix] = result
    optimum = min(v[0] for v in scored.values())
    limit = (1 + epsilon) * optimum if epsilon is not None else bound
    cut = limit + TOLERANCE * max(1.0, abs(limit))
    members = {p: v for p, v in scored.items() if v[0] <= cut}
    return optimum, limit, members


def count_members(A, y, lam: float, max_length: int, *, epsilon=None, bound=None):
    """``(optimum, bound, count)`` over every list of at most ``max_length`` rules (unweighted), the last rule of
    each list vectorised: for every prefix of fewer rules, all its one-rule extensions are scored at once from the
    class counts of what each antecedent captures among the uncaptured samples.  For large data (COMPAS, three
    rules: 3.7 million lists) where :func:`rashomon_members` would take hours."""
    A = np.asarray(A, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    n, m = A.shape
    k = max(2, int(y.max()) + 1)
    onehot = (y[:, None] == np.arange(k)[None, :]).astype(np.float64)
    objectives = []

    def errors_of(amounts):  # per row of class amounts: the errors of the majority (ties: larger index)
        pred = k - 1 - np.argmax(amounts[:, ::-1], axis=1)
        return amounts.sum(1) - amounts[np.arange(amounts.shape[0]), pred]

    def visit(prefix, open_, err):  # scores the one-rule extensions of ``prefix``, then extends them further
        left = onehot[open_].sum(0)
        captured = A[open_].T @ onehot[open_]  # (m, k): class counts each antecedent captures
        rows = captured.sum(1)
        valid = rows > 0
        valid[list(prefix)] = False
        err_c = err + errors_of(captured)
        total = err_c + errors_of(left[None, :] - captured)
        objectives.append((total / n + lam * (len(prefix) + 1))[valid])
        if len(prefix) + 1 < max_length:
            for s in np.flatnonzero(valid):
                visit(prefix + (int(s),), open_ & (A[:, s] == 0), float(err_c[s]))

    objectives.append(np.array([errors_of(onehot.sum(0)[None, :])[0] / n]))  # the empty list
    if max_length > 0:
        visit((), np.ones(n, dtype=bool), 0.0)
    everything = np.concatenate(objectives)
    optimum = float(everything.min())
    limit = (1 + epsilon) * optimum if epsilon is not None else bound
    return optimum, limit, int(np.sum(everything <= limit + TOLERANCE * max(1.0, abs(limit))))
