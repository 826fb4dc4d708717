"""Brute-force twins of FRL and softFRL: plain Python, exhaustive, obviously correct, slow.

Samples are bits of Python ints.  Antecedents are given as 0/1 columns; a rule list is a tuple of column indices and
implicitly ends with the else clause.  Everything here is written from the definitions of the spec (Sections 1-3),
not from the fast code.

Sample weights (``weights``, one positive number per sample): every count becomes the exact (``Fraction``) sum of
the weights of the samples it counts, and ``n`` the total weight; a rule or else clause is empty when it captures no
sample.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np


def masks(X, y):
    """(column masks over all samples, positive mask, negative mask) as Python ints."""
    X = np.asarray(X)
    y = np.asarray(y)
    cols = [sum(1 << i for i in range(X.shape[0]) if X[i, j]) for j in range(X.shape[1])]
    pos = sum(1 << i for i in range(len(y)) if y[i] == 1)
    neg = sum(1 << i for i in range(len(y)) if y[i] == 0)
    return cols, pos, neg


def pc(x: int) -> int:
    return bin(x).count("1")


def mass(x: int, weights=None):
    """Number of samples in mask ``x``, or the exact sum of their weights."""
    if weights is None:
        return pc(x)
    return sum((Fraction(float(weights[i])) for i in range(x.bit_length()) if x >> i & 1), Fraction(0))


def total(y, weights=None):
    return len(y) if weights is None else sum((Fraction(float(v)) for v in weights), Fraction(0))


def list_counts(rules, cols, pos, neg, weights=None):
    """Per-rule (n+, n-) of a list, else clause last, or None if some rule or the else clause is empty."""
    rem = pos | neg
    out = []
    for r in rules:
        cap = cols[r] & rem
        if cap == 0:
            return None
        out.append((mass(cap & pos, weights), mass(cap & neg, weights)))
        rem &= ~cap
    if rem == 0:
        return None
    out.append((mass(rem & pos, weights), mass(rem & neg, weights)))
    return out


def risk_term(p, m, w):
    """n * R_j: the rule predicts positive iff alpha > 1/(1+w), i.e. p/(p+m) > 1/(1+w) (exact fractions)."""
    if Fraction(p) / (p + m) > 1 / (1 + Fraction(w)):
        return m
    return Fraction(w) * p


def objective(counts, n, w, C):
    """L(d) = R(d) + C |d| (Eq. 4 and Program 2.9)."""
    return float(sum(risk_term(p, m, w) for p, m in counts) / n) + C * (len(counts) - 1)


def penalty(counts):
    """S(d) = sum_j max(0, alpha_j - min_{k<j} alpha_k)."""
    s, seen = 0.0, []
    for p, m in counts:
        a = p / (p + m)
        if seen and a > min(seen):
            s += a - min(seen)
        seen.append(a)
    return s


def soft_objective(counts, n, w, C, C1):
    return objective(counts, n, w, C) + C1 * penalty(counts)


def falling(counts):
    a = [Fraction(p) / (p + m) for p, m in counts]
    return all(a[j - 1] >= a[j] for j in range(1, len(a)))


def random_prefix(cols, pos, neg, rng, require_falling=False, weights=None):
    """A random compatible prefix (falling if asked) of length 0-3 drawn with ``rng``: each rule captures some but
    not all of the samples left; returns ``(prefix, samples left)``."""
    rem = pos | neg
    prefix, last = [], None
    target = rng.integers(0, 4)
    while len(prefix) < target:
        opts = []
        for j in range(len(cols)):
            cap = cols[j] & rem
            if j in prefix or cap == 0 or cap == rem:
                continue
            a = Fraction(mass(cap & pos, weights)) / mass(cap, weights)
            if require_falling and last is not None and a > last:
                continue
            opts.append((j, cap, a))
        if not opts:
            break
        j, cap, last = opts[rng.integers(len(opts))]
        prefix.append(j)
        rem &= ~cap
    return tuple(prefix), rem


def all_lists(cols, pos, neg, prefix=(), require_falling=False, weights=None):
    """Every compatible list (tuple of rules) beginning with ``prefix``; falling ones only if asked.

    A non-falling prefix has no falling extension, which prunes the enumeration of falling lists.
    """
    start = list_counts(prefix, cols, pos, neg, weights)
    if start is None:
        return
    rem = pos | neg
    for r in prefix:
        rem &= ~cols[r]

    def rec(rules, rem, last):
        a_else = Fraction(mass(rem & pos, weights)) / mass(rem, weights)
        if not require_falling or last is None or a_else <= last:
            yield rules
        for j in range(len(cols)):
            if j in rules:
                continue
            cap = cols[j] & rem
            if cap == 0 or cap == rem:
                continue
            a = Fraction(mass(cap & pos, weights)) / mass(cap, weights)
            if require_falling and last is not None and a > last:
                continue
            yield from rec(rules + (j,), rem & ~cap, a)

    last = None
    if prefix:
        counts = start[:-1]
        if require_falling and not falling(counts):
            return
        p, m = counts[-1]
        last = Fraction(p) / (p + m)
    yield from rec(tuple(prefix), rem, last)


def frl_optimum(X, y, w, C, prefix=(), weights=None):
    """(min L, argmin list) of Program 2.9 over compatible falling lists beginning with ``prefix``; (inf, None)
    if there is none."""
    cols, pos, neg = masks(X, y)
    n = total(y, weights)
    best, arg = float("inf"), None
    for d in all_lists(cols, pos, neg, prefix, require_falling=True, weights=weights):
        L = objective(list_counts(d, cols, pos, neg, weights), n, w, C)
        if L < best:
            best, arg = L, d
    return best, arg


def frl_optimal_lists(X, y, w, C, tol=1e-12):
    """All lists within ``tol`` of the optimum of Program 2.9."""
    cols, pos, neg = masks(X, y)
    n = len(y)
    vals = [(objective(list_counts(d, cols, pos, neg), n, w, C), d)
            for d in all_lists(cols, pos, neg, (), require_falling=True)]
    best = min(v for v, _ in vals)
    return best, [d for v, d in vals if v <= best + tol]


def soft_optimum(X, y, w, C, C1, prefix=(), positive_rules_only=False, weights=None):
    """(min L~, argmin list) of Program 5.1 over compatible lists beginning with ``prefix``; with
    ``positive_rules_only``, only lists whose every rule captures a positive (those with a non-zero curiosity (12)
    at each step)."""
    cols, pos, neg = masks(X, y)
    n = total(y, weights)
    best, arg = float("inf"), None
    for d in all_lists(cols, pos, neg, prefix, require_falling=False, weights=weights):
        counts = list_counts(d, cols, pos, neg, weights)
        if positive_rules_only and any(p == 0 for p, _ in counts[:-1]):
            continue
        L = soft_objective(counts, n, w, C, C1)
        if L < best:
            best, arg = L, d
    return best, arg


def make_falling(alpha):
    """Running minimum of the proportions."""
    out, m = [], 1.0
    for a in alpha:
        m = min(m, a)
        out.append(m)
    return out


__all__ = ["frl_optimum", "frl_optimal_lists", "soft_optimum"]
