"""Counting kernels of the FRL/softFRL searches over class-split packed bitsets: popcounts, or sums of sample weights.

``wts`` is None (every sample weighs 1: popcounts, int64 counts, the paper's exact integer arithmetic) or float64
weights, counts then being weight sums: one weight per word when the samples are laid out by weight (``per_word``: a
popcount and a multiply per word), else one per sample in bit order.  Numba compiles one specialization for None and
one for weights, so the unweighted kernels are the popcount kernels.
"""
from __future__ import annotations

import math

from ..common.bitset import popcount, popcount_and, weight_and, weight_words_and
from ..common.jit import njit


@njit(cache=True)
def column_mass(B, wts, per_word, out):
    """``out[j] = |B[j]|`` for every row of a bit matrix: popcounts (``wts`` None) or weights (see :func:`mass`)."""
    for j in range(B.shape[0]):
        out[j] = mass(B[j], wts, per_word)
    return out


@njit(cache=True)
def pair_mass(B, wts, per_word, out):
    """Symmetric matrix ``out[j, r] = |B[j] & B[r]|`` (popcounts or weights), the level-1 cache."""
    A = B.shape[0]
    for j in range(A):
        for r in range(j, A):
            c = mass_row(B[j], B[r], wts, per_word)
            out[j, r] = c
            out[r, j] = c
    return out


@njit(cache=True, inline="always")
def remove(rem, row):
    """``rem &= ~row``: the samples a chosen rule captures leave the uncaptured set."""
    for i in range(rem.shape[0]):
        rem[i] &= ~row[i]


# The helpers below are inlined into the kernels, whose own arguments the weights are: Numba then drops the branch
# a None rules out, so the unweighted kernels are pure popcount code.


@njit(cache=True, inline="always")
def mass_and(row, rem, wts, per_word, i, e):
    """``|row & rem|`` over words ``i .. e-1``: popcount, or the weight of the set bits."""
    if wts is None:
        return popcount_and(row[i:e], rem[i:e])
    if per_word:
        return weight_words_and(row[i:e], rem[i:e], wts[i:e])
    return weight_and(row[i:e], rem[i:e], wts[i * 64:])


@njit(cache=True, inline="always")
def mass_row(row, rem, wts, per_word):
    """``|row & rem|`` over whole rows (no slicing on the popcount path)."""
    if wts is None:
        return popcount_and(row, rem)
    return mass_and(row, rem, wts, per_word, 0, row.shape[0])


@njit(cache=True, inline="always")
def mass(bits, wts, per_word):
    """``|bits|``: popcount, or the weight of the set bits."""
    if wts is None:
        return popcount(bits)
    return mass_and(bits, bits, wts, per_word, 0, bits.shape[0])


@njit(cache=True, inline="always")
def snap(x, tiny, wts):
    """A remainder weight obtained by subtraction, with rounding noise (``<= tiny``, below the smallest sample
    weight) set to an exact 0; integer counts (``wts`` None) pass unchanged."""
    if wts is None:
        return x
    return x if x > tiny else x - x


@njit(cache=True)
def frl_cn_limit(cp, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin=1.0, integral=True):
    """A negative count at or above which a candidate with ``cp`` captured positives surely fails: Corollary 4.5
    (``cn >= w cp``), the feasibility test (``cn P_rem > cp N_rem``) or the prefix bound of Theorem 4.6, which is
    non-decreasing in ``cn``.  Non-decreasing in ``cp``, so an upper bound on ``cp`` gives a valid limit.  Used
    only to skip or stop counting.  Integer counts (``integral``): the feasibility limit is the next integer and the
    float limit of the bound carries a margin of one sample.  Weighted counts are real: both limits are the exact
    thresholds plus ``margin``, far above the rounding of weight sums (a larger limit only counts more)."""
    lim = w * cp
    if paper_feasibility and P_rem > 0:
        if integral:
            lf = (cp * N_rem) // P_rem + 1.0
        else:
            lf = cp * N_rem / P_rem + margin
        if lf < lim:
            lim = lf
    if not math.isfinite(L_best):
        return lim
    # bound(cn) = L_d + cn/n + C + min(cn rp/(cp n) + C, w rp/n, (N_rem - cn)/n) with rp = P_rem - cp; the third
    # term does not depend on cn: if it may pass, by as little as the rounding of the test, no bound limit applies
    if L_d + C + N_rem / n < L_best + 1e-12 * (1.0 + abs(L_best)):
        return lim
    rp = P_rem - cp
    t1 = (L_best - L_d - 2.0 * C) * n * cp / P_rem
    if t1 < 0.0:
        t1 = 0.0
    t2 = (L_best - L_d - C) * n - w * rp
    lb = max(t1, t2) + margin
    return lb if lb < lim else lim
