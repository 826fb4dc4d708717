"""Monte-Carlo search of Algorithms FRL and softFRL (SUPP Algorithms 1 and 2), as ``@njit`` chunk kernels.

Each iteration grows one rule list from the top.  At every level the candidate antecedents are counted against the
uncaptured samples (``cp``, ``cn``), filtered by compatibility, by the feasibility test (FRL) and by the prefix
bound of Theorem 4.6 (FRL) or 5.2 (softFRL) against the incumbent, and one survivor is drawn with probability
proportional to its curiosity (Eq. 11 or 12).  A Bernoulli(``p_stop``) draw before every rule, Inequality (9)
(FRL) and the stopping terms of Theorem 5.2 (softFRL) end the list; the else clause takes the rest.

Data layout: samples are split by class and packed separately, ``Xpos[j]`` (positives satisfying antecedent ``j``)
and ``Xneg[j]``.  Counting work is saved three ways, none of which changes the trajectory:

* level 0 uses the column totals (the same in every iteration);
* level 1 uses the pairwise intersection counts (``cp = |Xpos[j]| - |Xpos[j] & Xpos[r0]|``) when they fit;
* deeper levels scan ``Xpos[j] & rem_pos`` in full and ``Xneg[j] & rem_neg`` in blocks, stopping as soon as
  the partial negative count already fails Corollary 4.5 (``w cp > cn``), the feasibility test or the prefix bound
  (all three are monotone in ``cn``, so the decision equals that of a full count); a lower bound on ``cn`` carried
  from the previous level (its count minus the negatives the chosen rule took) skips the scan altogether when it
  already fails; antecedents that captured no positive at the previous level are never counted again.

The random numbers come from a xoshiro256** generator whose state array persists across chunks, so a seed fixes
the whole run whatever the chunking.
"""
from __future__ import annotations

import math
import numbers
import time

import numpy as np
import pandas as pd
from ..common.jit import njit

from ..common import driver
from ..common.bitset import copy_into, ones, pack_rows, popcount, popcount_and, weight_and, weight_words_and
from ..common.data import BinaryDataset
from ..common.formats import first_match
from ..common.growth import arrays_bytes
from ..common.limits import InterruptGuard, Limits
from ..common.mining import Antecedent
from ..common.result import SearchResult, Status
from ..common.result import unsearched_result as common_unsearched_result
from ..common.validation import check_number
from ..common.weights import check_sample_weight, combined_weights, drop_zero_weights
from .bounds import (curiosity_frl, curiosity_soft, frl_completion_bound, frl_should_stop, prefix_feasible,
                     reference_feasible, soft_continue_bound, soft_stop_cost)
from .model import FallingRuleList
from .objective import make_falling, rule_risk
from .record import RECORD_LIMIT, IterationRecord

BLOCK = 128  # words of the negative scan between two early-exit checks

# indices into the stats array returned by the kernels
S_WORDS = 0        # bitset words of Xpos/Xneg read by candidate scans
S_SCANS = 1        # candidate scans (levels counted from the bitsets)
S_TESTS = 2        # antecedent tests (candidate evaluations, including those served by cached counts)
S_EARLY_EXIT = 3   # negative scans stopped early
S_LEVELS = 4       # levels (rule choices attempted) in total
N_STATS = 5


# ----------------------------------------------------------------------------------------------------------------
# random numbers: xoshiro256**


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def next_u64(s):
    """Next 64-bit output of xoshiro256** with state ``s`` (4 uint64 words, updated in place)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def uniform(s):
    """A double uniform on [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def seed_state(random_state) -> np.ndarray:
    """xoshiro256** state from a numpy ``RandomState``/``Generator`` (drawn from it) or an int (SeedSequence)."""
    if isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2 ** 32, size=8, dtype=np.uint64)
        state = (words[0::2] << np.uint64(32)) | words[1::2]
    elif isinstance(random_state, np.random.Generator):
        state = random_state.integers(0, 2 ** 64, size=4, dtype=np.uint64, endpoint=False)
    else:
        state = np.random.SeedSequence(int(random_state)).generate_state(4, dtype=np.uint64)
    if not state.any():
        state[0] = 1
    return state


@njit(cache=True)
def sample_index(f, m, s):
    """Index ``i < m`` drawn with probability ``f[i] / sum(f[:m])``; uniform when the weights are all 0."""
    tot = 0.0
    for i in range(m):
        tot += f[i]
    u = uniform(s)
    if not (tot > 0.0) or not math.isfinite(tot):
        k = int(u * m)
        return k if k < m else m - 1
    target = u * tot
    acc = 0.0
    for i in range(m):
        acc += f[i]
        if target < acc:
            return i
    for i in range(m - 1, -1, -1):  # rounding at the top end: the last positive weight
        if f[i] > 0.0:
            return i
    return m - 1


# ----------------------------------------------------------------------------------------------------------------
# counting


@njit(cache=True)
def column_mass(B, wts, per_word, out):
    """``out[j] = |B[j]|`` for every row of a bit matrix: popcounts (``wts`` None) or weights (see :func:`_mass`)."""
    for j in range(B.shape[0]):
        out[j] = _mass(B[j], wts, per_word)
    return out


@njit(cache=True)
def pair_mass(B, wts, per_word, out):
    """Symmetric matrix ``out[j, r] = |B[j] & B[r]|`` (popcounts or weights), the level-1 cache."""
    A = B.shape[0]
    for j in range(A):
        for r in range(j, A):
            c = _mass_row(B[j], B[r], wts, per_word)
            out[j, r] = c
            out[r, j] = c
    return out


@njit(cache=True, inline="always")
def _remove(rem, row):
    for i in range(rem.shape[0]):
        rem[i] &= ~row[i]


# Weighted counts.  ``wts`` is None (every sample weighs 1: popcounts, int64 counts, the paper's exact integer
# arithmetic) or float64 weights, counts then being weight sums: one weight per word when the samples are laid out by
# weight (``per_word``: a popcount and a multiply per word), else one per sample in bit order.  Numba compiles one
# specialization for None and one for weights, so the unweighted kernels are the popcount kernels.


@njit(cache=True, inline="always")
def _mass_and(row, rem, wts, per_word, i, e):
    """``|row & rem|`` over words ``i .. e-1``: popcount, or the weight of the set bits."""
    if wts is None:
        return popcount_and(row[i:e], rem[i:e])
    if per_word:
        return weight_words_and(row[i:e], rem[i:e], wts[i:e])
    return weight_and(row[i:e], rem[i:e], wts[i * 64:])


@njit(cache=True, inline="always")
def _mass_row(row, rem, wts, per_word):
    """``|row & rem|`` over whole rows (no slicing on the popcount path)."""
    if wts is None:
        return popcount_and(row, rem)
    return _mass_and(row, rem, wts, per_word, 0, row.shape[0])


@njit(cache=True, inline="always")
def _mass(bits, wts, per_word):
    """``|bits|``: popcount, or the weight of the set bits."""
    if wts is None:
        return popcount(bits)
    return _mass_and(bits, bits, wts, per_word, 0, bits.shape[0])


@njit(cache=True, inline="always")
def _snap(x, tiny, wts):
    """A remainder weight obtained by subtraction, with rounding noise (``<= tiny``, below the smallest sample
    weight) set to an exact 0; integer counts (``wts`` None) pass unchanged."""
    if wts is None:
        return x
    return x if x > tiny else x - x


@njit(cache=True)
def _frl_cn_limit(cp, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin=1.0, integral=True):
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


# ----------------------------------------------------------------------------------------------------------------
# steps shared by Algorithms FRL and softFRL


@njit(cache=True)
def _work_arrays(all_pos, all_neg, tot_pos, tot_neg):
    """A chunk's work arrays: the uncaptured samples, the counts at a level, the used antecedents, the candidates
    and their curiosities, the list being grown."""
    A = tot_pos.shape[0]
    return (np.empty_like(all_pos), np.empty_like(all_neg), np.empty_like(tot_pos), np.empty_like(tot_neg),
            np.zeros(A, dtype=np.bool_), np.empty(A, dtype=np.int64), np.empty(A, dtype=np.float64),
            np.empty(A, dtype=np.int64))


@njit(cache=True)
def _start_iteration(rem_pos, rem_neg, all_pos, all_neg, used, cand_row):
    """Every sample uncaptured, no antecedent used, no candidate count recorded yet."""
    copy_into(rem_pos, all_pos, all_pos.shape[0])
    copy_into(rem_neg, all_neg, all_neg.shape[0])
    used[:] = False
    cand_row[:] = -1


@njit(cache=True)
def _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn, tiny, wts):
    """Exact counts of every antecedent at level 0 (totals) or level 1 (totals less the overlap with the first rule)
    from the caches, without a scan."""
    if depth == 0:
        copy_into(cp, tot_pos, tot_pos.shape[0])
        copy_into(cn, tot_neg, tot_neg.shape[0])
    else:
        r0 = rules[0]
        for j in range(cp.shape[0]):
            cp[j] = _snap(tot_pos[j] - pair_pos[r0, j], tiny, wts)
            cn[j] = _snap(tot_neg[j] - pair_neg[r0, j], tiny, wts)


@njit(cache=True)
def _keep_if_better(L, rules, depth, best_L, best_rules, best_len):
    if L < best_L[0]:
        best_L[0] = L
        best_len[0] = depth
        copy_into(best_rules, rules, depth)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm FRL


@njit(cache=True)
def frl_chunk(Xpos, Xneg, tot_pos, tot_neg, pair_pos, pair_neg, use_pairs, all_pos, all_neg, wpos, wneg, per_word,
              tiny, n, w, C, p_stop, lam, paper_feasibility, n_iter, rng, best_L, best_rules, best_len, iter_L, cand,
              stats, block):
    """Run ``n_iter`` iterations of Algorithm FRL.

    In/out: ``rng`` (generator state), ``best_L[0]``, ``best_rules[:best_len[0]]`` (the incumbent's antecedent
    indices), ``stats``.  Out: ``iter_L[t]`` (objective of iteration ``t``'s list) and ``cand[t, k]`` (number of
    candidates passing every test at level ``k`` of iteration ``t``; -1 beyond the last level).  ``block`` is the
    number of words of a negative scan between two early-exit checks (any value gives the same trajectory).
    Weights: ``wpos``/``wneg`` None (counts are popcounts) or the sample weights of each class, per word if
    ``per_word`` (counts are weight sums, ``n`` the total weight, ``tiny`` half the smallest weight: a smaller
    remainder is rounding noise).
    """
    A = Xpos.shape[0]
    P, N = _mass(all_pos, wpos, per_word), _mass(all_neg, wneg, per_word)
    integral = wpos is None
    margin = 1.0 if integral else 1e-9 * n
    nwp, nwn = Xpos.shape[1], Xneg.shape[1]
    rem_pos, rem_neg, cp, cn, used, cand_idx, cand_f, rules = _work_arrays(all_pos, all_neg, tot_pos, tot_neg)
    full = np.zeros(A, dtype=np.bool_)      # cn[j] is the exact count at this level
    for t in range(n_iter):
        _start_iteration(rem_pos, rem_neg, all_pos, all_neg, used, cand[t])
        P_rem = P
        N_rem = N
        lp = 1  # alpha_{-1} = 1
        ln = 0
        L_d = 0.0
        depth = 0
        while depth < A:
            if frl_should_stop(lp, ln, P_rem, N_rem, n, w, C):
                break
            if uniform(rng) < p_stop:
                break
            stats[S_LEVELS] += 1
            L_best = best_L[0]
            # ---- counts at this level
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn, tiny, wpos)
                full[:] = True
            else:
                # cp[j] holds an upper bound on the current count (counts never grow) and cn[j] a lower bound on
                # the previous level's count, so cn[j] - ln bounds the current one from below
                stats[S_SCANS] += 1
                for j in range(A):
                    full[j] = False
                    if used[j] or cp[j] == 0:  # no positive now, none later
                        cp[j] = 0
                        continue
                    lb = cn[j] - ln
                    if lb < 0:
                        lb = 0
                    if lb >= _frl_cn_limit(cp[j], P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin,
                                           integral):
                        cn[j] = lb
                        stats[S_EARLY_EXIT] += 1
                        continue
                    c = _mass_row(Xpos[j], rem_pos, wpos, per_word)
                    stats[S_WORDS] += nwp
                    cp[j] = c
                    if c == 0:
                        continue
                    lim = _frl_cn_limit(c, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin, integral)
                    if lb >= lim:
                        cn[j] = lb
                        stats[S_EARLY_EXIT] += 1
                        continue
                    acc = cn[j] - cn[j]  # 0 of the counts' type
                    i = 0
                    stopped = False
                    row = Xneg[j]  # 1-D slices keep the popcount loop vectorised
                    while i < nwn:
                        e = min(i + block, nwn)
                        acc += _mass_and(row, rem_neg, wneg, per_word, i, e)
                        i = e
                        if acc >= lim and i < nwn:
                            stopped = True
                            break
                    stats[S_WORDS] += i
                    if stopped:
                        cn[j] = max(acc, lb)
                        stats[S_EARLY_EXIT] += 1
                    else:
                        cn[j] = acc
                        full[j] = True
            # ---- candidate tests
            m = 0
            for j in range(A):
                if used[j] or not full[j]:
                    continue
                stats[S_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = _snap(P_rem - c_p, tiny, wpos)
                rn = _snap(N_rem - c_n, tiny, wneg)
                if c_p + c_n == 0 or rp + rn == 0:      # compatibility: both parts non-empty
                    continue
                if not (w * c_p > c_n):                  # Corollary 4.5
                    continue
                if c_p * (ln + lp) > lp * (c_p + c_n):   # monotonicity (6): a_j <= alpha_last
                    continue
                if paper_feasibility:
                    if not prefix_feasible(c_p, c_n, rp, rn):  # Prop. 4.2 on e + j
                        continue
                else:
                    if not reference_feasible(lp, ln, rp, rn):
                        continue
                L_j = rule_risk(c_p, c_n, w) / n + C
                if L_d + L_j + frl_completion_bound(c_p, c_n, rp, rn, n, w, C) < L_best:  # Theorem 4.6
                    cand_idx[m] = j
                    cand_f[m] = curiosity_frl(c_p / (c_p + c_n), c_p, P_rem, lam)
                    m += 1
            if depth < cand.shape[1]:
                cand[t, depth] = m
            if m == 0:
                break
            r = cand_idx[sample_index(cand_f, m, rng)]
            rules[depth] = r
            depth += 1
            used[r] = True
            L_d += rule_risk(cp[r], cn[r], w) / n + C
            _remove(rem_pos, Xpos[r])
            _remove(rem_neg, Xneg[r])
            P_rem = _snap(P_rem - cp[r], tiny, wpos)
            N_rem = _snap(N_rem - cn[r], tiny, wneg)
            lp = cp[r]
            ln = cn[r]
        L_d += rule_risk(P_rem, N_rem, w) / n  # else clause, no C
        iter_L[t] = L_d
        _keep_if_better(L_d, rules, depth, best_L, best_rules, best_len)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm softFRL


@njit(cache=True)
def soft_chunk(Xpos, Xneg, tot_pos, tot_neg, pair_pos, pair_neg, use_pairs, all_pos, all_neg, wpos, wneg, per_word,
               tiny, n, w, C, C1, p_stop, lam, n_iter, rng, best_L, best_rules, best_len, iter_L, cand, stats):
    """Run ``n_iter`` iterations of Algorithm softFRL; arguments as in :func:`frl_chunk`, plus ``C1``."""
    A = Xpos.shape[0]
    P, N = _mass(all_pos, wpos, per_word), _mass(all_neg, wneg, per_word)
    nwp, nwn = Xpos.shape[1], Xneg.shape[1]
    rem_pos, rem_neg, cp, cn, used, cand_idx, cand_f, rules = _work_arrays(all_pos, all_neg, tot_pos, tot_neg)
    stop_after = np.zeros(A, dtype=np.bool_)
    for t in range(n_iter):
        _start_iteration(rem_pos, rem_neg, all_pos, all_neg, used, cand[t])
        P_rem = P
        N_rem = N
        amin = 1.0
        L_d = 0.0
        depth = 0
        while depth < A:
            if uniform(rng) < p_stop:
                break
            stats[S_LEVELS] += 1
            L_best = best_L[0]
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn, tiny, wpos)
            else:
                stats[S_SCANS] += 1
                for j in range(A):
                    if used[j] or cp[j] + cn[j] == 0:
                        cp[j] = 0
                        cn[j] = 0
                        continue
                    cp[j] = _mass_row(Xpos[j], rem_pos, wpos, per_word)
                    cn[j] = _mass_row(Xneg[j], rem_neg, wneg, per_word)
                    stats[S_WORDS] += nwp + nwn
            m = 0
            for j in range(A):
                if used[j]:
                    continue
                stats[S_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = _snap(P_rem - c_p, tiny, wpos)
                rn = _snap(N_rem - c_n, tiny, wneg)
                if c_p + c_n == 0 or rp + rn == 0:
                    continue
                a_j = c_p / (c_p + c_n)
                amin_j = min(amin, a_j)
                pen = a_j - amin if a_j > amin else 0.0
                L_j = rule_risk(c_p, c_n, w) / n + C + C1 * pen
                b1 = soft_continue_bound(rp, rn, amin_j, n, w, C, C1)
                T_j = soft_stop_cost(rp, rn, amin_j, n, w, C1)
                if L_d + L_j + min(b1, T_j) < L_best:  # Theorem 5.2
                    cand_idx[m] = j
                    cand_f[m] = curiosity_soft(a_j, amin, c_p, P_rem, lam)
                    stop_after[m] = T_j <= b1
                    m += 1
            if depth < cand.shape[1]:
                cand[t, depth] = m
            if m == 0:
                break
            pick = sample_index(cand_f, m, rng)
            r = cand_idx[pick]
            rules[depth] = r
            depth += 1
            used[r] = True
            a_r = cp[r] / (cp[r] + cn[r])
            pen = a_r - amin if a_r > amin else 0.0
            L_d += rule_risk(cp[r], cn[r], w) / n + C + C1 * pen
            if a_r < amin:
                amin = a_r
            _remove(rem_pos, Xpos[r])
            _remove(rem_neg, Xneg[r])
            P_rem = _snap(P_rem - cp[r], tiny, wpos)
            N_rem = _snap(N_rem - cn[r], tiny, wneg)
            if stop_after[pick]:  # Theorem 5.2: stopping attains the bound
                break
        L_d += soft_stop_cost(P_rem, N_rem, amin, n, w, C1)  # else clause: its risk and penalty, no C
        iter_L[t] = L_d
        _keep_if_better(L_d, rules, depth, best_L, best_rules, best_len)


# ----------------------------------------------------------------------------------------------------------------
# the engine: chunks of iterations run by the common search driver (limits, Ctrl-C, progress, result)


def _pack_class(A: np.ndarray, wc: np.ndarray | None, by_word: bool):
    """``(bits, all, weights)`` of the samples of one class: ``bits[j]`` the packed column ``j`` of ``A`` (samples x
    antecedents), ``all`` the bitset of every sample and the weights (None, per sample, or per word when ``by_word``:
    the samples sorted by weight, each weight's run starting on a word boundary)."""
    k, m = A.shape
    if k == 0:
        return np.zeros((m, 0), dtype=np.uint64), ones(0), (None if wc is None else np.zeros(0))
    if not by_word:
        return pack_rows(A.T), ones(k), wc
    values, level = np.unique(wc, return_inverse=True)
    order = np.argsort(level, kind="stable")
    counts = np.bincount(level, minlength=values.shape[0])
    words = (counts + 63) // 64
    start = 64 * np.concatenate([[0], np.cumsum(words)[:-1]])
    slot = start[level[order]] + (np.arange(k) - np.repeat(np.cumsum(counts) - counts, counts))
    cols = np.zeros((m, 64 * int(words.sum())), dtype=bool)
    cols[:, slot] = A[order].T.astype(bool)
    every = np.zeros((1, cols.shape[1]), dtype=bool)
    every[0, slot] = True
    return pack_rows(cols), pack_rows(every)[0], np.repeat(values, words)


class SearchData:
    """Class-split packed antecedent bitsets and the level-0/level-1 count caches of one fit.

    ``weights`` (optional, one non-negative weight per sample): counts become weight sums.  Samples of weight 0 are
    left out (a weight ``k`` counts a sample ``k`` times, 0 drops it), so every packed sample weighs more than 0 and
    a rule captures something exactly when its weight is positive.  ``mass`` is the total weight (``n`` without
    weights), ``tiny`` half the smallest weight: remainders obtained by subtraction below it are rounding noise.  With
    few distinct weights (``per_word``) the samples of each class are laid out by weight, one weight per word, and a
    weighted count costs a popcount and a multiply per word; otherwise each set bit's weight is added.
    """

    PAIR_WORK_LIMIT = 4e8  # skip the pairwise cache when computing it would cost more word operations
    PAIR_BIT_COST = 8      # a per-sample weighted count visits set bits: about this many word operations each
    LEVEL_PADDING = 0.25   # per-word weights when padding each weight's run to whole words adds at most this share
    MIN_LEVELS = 8         # ... or at most this many words

    def __init__(self, A: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None):
        t0 = time.perf_counter()
        A = np.asarray(A, dtype=np.uint8)
        y = np.asarray(y, dtype=np.uint8)
        self.n = int(A.shape[0])
        self.n_antecedents = int(A.shape[1])
        weights, A, y = drop_zero_weights(weights, A, y)
        pos = y == 1
        wp, wn = (None, None) if weights is None else (weights[pos], weights[~pos])
        self.per_word = weights is not None and all(
            np.unique(wc).shape[0] <= max(self.MIN_LEVELS, self.LEVEL_PADDING * wc.shape[0] / 64) for wc in (wp, wn))
        self.Xpos, self.all_pos, self.wpos = _pack_class(A[pos], wp, self.per_word)
        self.Xneg, self.all_neg, self.wneg = _pack_class(A[~pos], wn, self.per_word)
        if weights is None:
            self.tiny = 0.0
            self.n_pos, self.n_neg = int(pos.sum()), int((~pos).sum())
        else:
            self.tiny = 0.5 * float(weights.min())
            self.n_pos, self.n_neg = float(wp.sum()), float(wn.sum())
        A = self.n_antecedents
        count, pair = (np.int64, np.int32) if weights is None else (np.float64, np.float64)
        self.tot_pos = column_mass(self.Xpos, self.wpos, self.per_word, np.empty(A, count))
        self.tot_neg = column_mass(self.Xneg, self.wneg, self.per_word, np.empty(A, count))
        # word operations of the pair cache; a per-sample weighted count also visits each set bit (at most A per bit)
        work = A ** 2 * (self.Xpos.shape[1] + self.Xneg.shape[1]) / 2
        if weights is not None and not self.per_word:
            bits = sum(float(column_mass(X, None, False, np.empty(A, np.int64)).sum()) for X in (self.Xpos, self.Xneg))
            work += A * bits / 2 * self.PAIR_BIT_COST
        self.mass = self.n_pos + self.n_neg
        self.use_pairs = work <= self.PAIR_WORK_LIMIT
        shape = (A, A) if self.use_pairs else (1, 1)
        self.pair_pos, self.pair_neg = np.zeros(shape, pair), np.zeros(shape, pair)
        if self.use_pairs:
            pair_mass(self.Xpos, self.wpos, self.per_word, self.pair_pos)
            pair_mass(self.Xneg, self.wneg, self.per_word, self.pair_neg)
        self.seconds = time.perf_counter() - t0

    @property
    def weighted(self) -> bool:
        return self.wpos is not None

    def nbytes(self) -> int:
        return arrays_bytes(tuple(a for a in (self.Xpos, self.Xneg, self.all_pos, self.all_neg, self.tot_pos,
                                              self.tot_neg, self.pair_pos, self.pair_neg, self.wpos, self.wneg)
                                  if a is not None))


def frl_weights(data: BinaryDataset, sample_weight=None, class_weight=None) -> np.ndarray | None:
    """``sample_weight`` (default ``data.sample_weight``) times ``class_weight`` over the 0/1 labels of ``data``, as
    one float64 vector, or None when every sample weighs the same (the popcount kernels then run)."""
    sw = data.sample_weight if sample_weight is None else check_sample_weight(sample_weight, data.n_samples)
    if sw is None and class_weight is None:
        return None
    return combined_weights(data.y, sw, class_weight, np.array([0, 1]), "frl.solve")


def check_random_state(random_state):
    """None (fresh entropy), a non-negative int, a numpy ``RandomState`` or ``Generator``."""
    if random_state is None:
        return np.random.SeedSequence().entropy
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)) \
            and random_state >= 0:
        return int(random_state)
    raise ValueError(f"random_state must be None, a non-negative int, a numpy RandomState or Generator; got "
                     f"{random_state!r}")


def build_falling_list(rules: list[int], antecedents, names, A: np.ndarray, y: np.ndarray, w: float,
                       objective: float, soft: bool, feature_names,
                       weights: np.ndarray | None = None) -> FallingRuleList:
    """The :class:`FallingRuleList` of the antecedent columns ``rules`` of ``A`` with its training counts (sums of
    ``weights`` when given; softFRL's probabilities pulled down by ``make_falling``)."""
    y = np.asarray(y).astype(bool)
    clause = first_match((A[:, r] != 0 for r in rules), A.shape[0])
    wts = None if weights is None else np.asarray(weights, dtype=np.float64)
    n_pos, n_neg = (np.bincount(clause[c], weights=None if wts is None else wts[c], minlength=len(rules) + 1)
                    .astype(np.int64 if wts is None else np.float64) for c in (y, ~y))
    tot = n_pos + n_neg
    prop = np.where(tot > 0, n_pos / np.where(tot > 0, tot, 1), 0.0)
    prob = make_falling(prop) if soft else prop.copy()
    return FallingRuleList([antecedents[r] for r in rules], [names[r] for r in rules], prob, prop, n_pos, n_neg,
                           float(w), float(objective), soft, list(feature_names))


def unsearched_result(y: np.ndarray, *, soft: bool, w: float, status: Status, elapsed: float,
                      feature_names, weights: np.ndarray | None = None) -> SearchResult:
    """The result when no search ran (a limit ended the mining first): the default-only list with its real
    objective, ``status``, no bound (NaN, as for every Monte-Carlo run) and the common counters."""
    model = build_falling_list([], [], [], np.zeros((len(y), 0), dtype=np.uint8), y, w, 0.0, soft, feature_names,
                               weights)
    model.objective = rule_risk(model.n_pos[0], model.n_neg[0], w) / (model.n_pos[0] + model.n_neg[0])
    counters = {"iterations": 0, "n_antecedents": 0, "packing_time": 0.0, "iterations_recorded": 0,
                "candidates_per_level": [], "iteration_objectives": np.zeros(0), "iteration_times": np.zeros(0)}
    return common_unsearched_result(model, model.objective, math.nan, status, elapsed, counters)


class FrlEngine:
    """A Monte-Carlo FRL/softFRL search as an engine of the common driver (:mod:`optbb.common.driver`).

    A node is an iteration, i.e. one rule list grown and evaluated (``iterations``): ``node_limit`` caps them like
    ``n_iter``, but ends with status NODE_LIMIT, while running all ``n_iter`` iterations ends with
    ITERATION_LIMIT (no certificate: the lower bound is NaN).  Memory: the packed class-split bitsets, the count
    caches and the iteration record.
    """

    first_work = 1  # one iteration scans every antecedent: 0.15 s with 125,250 of them, so 16 overran a 1 s limit
    exhausted_status = Status.ITERATION_LIMIT

    def __init__(self, packed: SearchData, *, soft: bool, w: float, C: float, C1: float, n_iter: int, p_stop: float,
                 lam: float, paper_feasibility: bool, random_state, node_limit: int | None = None,
                 target: float | None = None, scan_block: int = BLOCK, record_limit: int = RECORD_LIMIT):
        self.name = "softFRL" if soft else "FRL"
        self.packed, self.soft = packed, soft
        self.w, self.C, self.C1, self.p_stop, self.lam = float(w), float(C), float(C1), float(p_stop), float(lam)
        self.paper, self.n_iter, self.node_limit = bool(paper_feasibility), int(n_iter), node_limit
        self.target, self.scan_block = target, int(scan_block)
        self.random_state = random_state
        self.record = IterationRecord(record_limit)
        self.done = 0

    def start(self) -> None:
        A = self.packed.n_antecedents
        self.rng = seed_state(self.random_state)
        self.best_L = np.array([np.inf])
        self.best_rules = np.zeros(max(A, 1), dtype=np.int64)
        self.best_len = np.zeros(1, dtype=np.int64)
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.cpu_start = time.process_time()
        self.t_origin = time.perf_counter()  # the driver's clock starts right after start() and load_kernels()
        self.search_time = 0.0

    def _chunk(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Run ``m`` iterations: their objectives and candidate counts per level."""
        d = self.packed
        c_L = np.empty(m, dtype=np.float64)
        c_cand = np.empty((m, d.n_antecedents + 1), dtype=np.int32)
        args = (d.Xpos, d.Xneg, d.tot_pos, d.tot_neg, d.pair_pos, d.pair_neg, d.use_pairs, d.all_pos, d.all_neg,
                d.wpos, d.wneg, d.per_word, d.tiny, float(d.mass), self.w, self.C)
        if self.soft:
            soft_chunk(*args, self.C1, self.p_stop, self.lam, m, self.rng, self.best_L, self.best_rules,
                       self.best_len, c_L, c_cand, self.stats)
        else:
            frl_chunk(*args, self.p_stop, self.lam, self.paper, m, self.rng, self.best_L, self.best_rules,
                      self.best_len, c_L, c_cand, self.stats, self.scan_block)
        return c_L, c_cand

    def load_kernels(self) -> None:
        """A chunk of no iteration compiles (or loads) the chunk kernel, off the driver's clock and so off this
        engine's own origins of time (in place of the driver's ``step(0)``, which would record an empty chunk)."""
        t0, c0 = time.perf_counter(), time.process_time()
        self._chunk(0)
        self.t_origin += time.perf_counter() - t0
        self.cpu_start += time.process_time() - c0

    def step(self, work: int) -> int:
        """Run up to ``work`` iterations (fewer at ``n_iter`` or the node limit)."""
        m = min(work, self.n_iter - self.done)
        if self.node_limit is not None:
            m = min(m, self.node_limit - self.done)
        t0 = time.perf_counter()
        c_L, c_cand = self._chunk(m)
        t1 = time.perf_counter()
        self.record.add(c_L, (t0 - self.t_origin) + (t1 - t0) * np.arange(1, m + 1) / m, c_cand)
        self.done += m
        self.search_time = t1 - self.t_origin
        if self.done >= self.n_iter or self.reached_target():
            return driver.DONE
        if self.node_limit is not None and self.done >= self.node_limit:
            return driver.NODE_LIMIT
        return driver.RUNNING

    def reached_target(self) -> bool:
        return self.target is not None and self.best_L[0] <= self.target

    def grow(self, cap_bytes, must_stop) -> bool:
        return False  # the arrays never fill up: the record is bounded by its limit

    def nodes(self) -> int:
        return self.done

    def improvement_nodes(self) -> int:
        return self.record.last_improvement

    def improvements(self) -> int:
        return self.record.n_improvements

    def memory_bytes(self) -> int:
        return (self.packed.nbytes() + self.record.nbytes
                + arrays_bytes((self.rng, self.best_L, self.best_rules, self.best_len, self.stats)))

    def default_objective(self) -> float:
        """Objective of the list without rules (the else clause alone): the incumbent before any iteration."""
        d = self.packed
        return float(rule_risk(d.n_pos, d.n_neg, self.w)) / d.mass

    def incumbent(self) -> float:
        return float(self.best_L[0]) if self.done else self.default_objective()

    def lower_bound(self) -> float:
        return math.nan  # a Monte-Carlo search proves no bound

    def queue_size(self) -> int:
        return 0

    def own_trace(self) -> pd.DataFrame:
        """One row per improvement of the best list (interpolated times), not samples."""
        imp = self.improvements_record["improvements"]
        return pd.DataFrame({"time": imp["time"], "objective": imp["objective"], "lower_bound": np.nan,
                             "queue_size": 0, "nodes": imp["iteration"]})

    def finish(self, status: Status):
        """``(rules, objective, NaN, counters)``: the caller builds the model from the antecedent indices."""
        out = self.improvements_record = self.record.result()
        st = self.stats
        rules = [int(r) for r in self.best_rules[:self.best_len[0]]] if self.done else []
        objective = self.incumbent()
        imp = out["improvements"]
        recorded = out["iter_objective"].shape[0]
        counters = {
            "words_scanned": int(st[S_WORDS]), "bytes_scanned": int(st[S_WORDS]) * self.packed.Xpos.itemsize,
            "candidate_scans": int(st[S_SCANS]), "antecedent_tests": int(st[S_TESTS]),
            "early_exits": int(st[S_EARLY_EXIT]), "levels": int(st[S_LEVELS]),
            "iterations": self.done, "iterations_recorded": recorded,
            "cpu_time": time.process_time() - self.cpu_start,
            "time_per_iteration": self.search_time / max(self.done, 1),
            "iteration_of_best": int(imp["iteration"][-1]) if imp["iteration"].size else 0,
            "n_antecedents": int(self.packed.n_antecedents), "packing_time": self.packed.seconds,
            "candidates_per_level": out["candidates"],
            "mean_candidates_level0": float(out["mean_candidates_level0"]),
            "mean_candidates_all_levels": float(out["mean_candidates_all_levels"]),
            "iteration_objectives": out["iter_objective"], "iteration_times": out["iter_time"],
            "reached_target": bool(self.reached_target()),
        }
        return rules, objective, math.nan, counters


def solve(data: BinaryDataset, *, soft: bool = False, positive_weight: float = 7.0, regularization: float = 1e-6,
          monotonicity_penalty: float = 0.5, n_iter: int = 3000, p_stop: float = 0.01,
          curiosity_weight: float = 0.8, feasibility: str = "paper", random_state=None, antecedents=None,
          feature_names=None, max_recorded_iterations: int = RECORD_LIMIT, target: float | None = None,
          scan_block: int = BLOCK, packed: SearchData | None = None, sample_weight=None, class_weight=None,
          time_limit: float | None = None, node_limit: int | None = None, memory_limit="auto",
          verbose: int = 0) -> SearchResult:
    """Algorithm FRL (``soft=False``, Chen & Rudin 2018, Program 2.9 pruned by Prop. 4.2, Cor. 4.5, Thm 4.6) or
    softFRL (Program 5.1 with Thm 5.2) over the antecedent columns of ``data`` (0/1, e.g. mined itemsets).

    ``positive_weight`` is ``w``, ``regularization`` ``C``, ``monotonicity_penalty`` ``C1`` (softFRL only),
    ``curiosity_weight`` the ``lambda`` of the curiosity function, ``feasibility`` "paper" or "reference" (FRL).
    ``antecedents`` (one :class:`~optbb.common.mining.Antecedent` per column over the source features named
    ``feature_names``) lets the model predict on the source features; by default column ``j`` is feature ``j``.
    Limits: ``time_limit`` (s); ``node_limit`` (iterations, i.e. rule lists grown and evaluated: status
    NODE_LIMIT, whereas finishing the ``n_iter`` iterations gives ITERATION_LIMIT); ``memory_limit`` (bytes,
    "512M", "auto" = half of the physical memory, the default, or None) on the packed data, count caches and
    iteration record.  ``target`` (benchmarks) ends the run once the best objective is at or below it
    (``counters["reached_target"]``).  ``packed``: the :class:`SearchData` of ``data`` if already built (with the
    same weights).

    Weights: ``sample_weight`` (non-negative, one per sample; default ``data.sample_weight``) times ``class_weight``
    (None, "balanced" or ``{0: ..., 1: ...}`` over the labels of ``data.y``).  Every count of the paper becomes the
    weight of the samples it counts and ``n`` the total weight, so integer weights give the objective of repeated
    samples; ``w`` stays the cost of a false negative relative to a false positive.

    The result's model is a :class:`~optbb.frl.model.FallingRuleList`; ``lower_bound`` is NaN (no certificate);
    with no completed iteration the model is the default-only list with its real objective.  Counters: the common
    schema (``total_time``, ``time_to_optimum``, ``memory_bytes``, ``nodes``) plus ``iterations``,
    ``iteration_of_best``, candidate counts, scan statistics and the recorded per-iteration objectives and times.
    """
    if not isinstance(data, BinaryDataset):
        raise TypeError(f"data must be a BinaryDataset, got {type(data).__name__}")
    w = check_number("positive_weight", positive_weight, lo=0, lo_open=True)
    C = check_number("regularization", regularization, lo=0)
    C1 = check_number("monotonicity_penalty", monotonicity_penalty, lo=0) if soft else 0.0
    n_iter = check_number("n_iter", n_iter, lo=1, integer=True)
    p_stop = check_number("p_stop", p_stop, lo=0, hi=1, hi_open=True)
    lam = check_number("curiosity_weight", curiosity_weight, lo=0, hi=1)
    record_limit = check_number("max_recorded_iterations", max_recorded_iterations, lo=0, integer=True)
    if feasibility not in ("paper", "reference"):
        raise ValueError(f"feasibility must be 'paper' or 'reference', got {feasibility!r}")
    limits = Limits(time_limit, node_limit, memory_limit)
    if antecedents is None:
        antecedents = [Antecedent((j,), (False,)) for j in range(data.n_features)]
        feature_names = list(data.feature_names) if feature_names is None else list(feature_names)
    elif len(antecedents) != data.n_features:
        raise ValueError(f"antecedents has {len(antecedents)} entries but data has {data.n_features} columns")
    weights = frl_weights(data, sample_weight, class_weight)
    interrupted = False
    if packed is None:
        with InterruptGuard() as guard:  # packing is part of the search: a signal here ends it after one chunk
            packed = SearchData(data.X, data.y, weights)
        interrupted = guard.interrupted
        if limits.time_limit is not None:  # packing is part of the call: the search gets the time it left
            limits = Limits(max(limits.time_limit - packed.seconds, 1e-9), limits.node_limit, limits.memory_limit)
    elif packed.n_antecedents != data.n_features or packed.n != data.n_samples \
            or packed.weighted != (drop_zero_weights(weights)[0] is not None):
        raise ValueError("packed does not match data (its samples, antecedents or weights)")
    engine = FrlEngine(packed, soft=bool(soft), w=w, C=C, C1=C1, n_iter=n_iter, p_stop=p_stop, lam=lam,
                       paper_feasibility=soft or feasibility == "paper", random_state=check_random_state(random_state),
                       node_limit=limits.node_limit, target=target, scan_block=scan_block, record_limit=record_limit)
    result = driver.run_search(engine, limits, verbose, interrupted)
    result.model = build_falling_list(result.model, antecedents, list(data.feature_names), data.X, data.y, w,
                                      result.objective, bool(soft), feature_names or [], weights)
    return result
