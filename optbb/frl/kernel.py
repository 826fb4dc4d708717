"""Monte-Carlo search of Algorithms FRL and softFRL (SUPP Algorithms 1 and 2), as ``@njit`` chunk kernels.

Each iteration grows one rule list from the top.  At every level the candidate antecedents are counted against the
uncaptured samples (``cp``, ``cn``), filtered by compatibility, by the feasibility test (FRL) and by the prefix
bound of Theorem 4.6 (FRL) or 5.2 (softFRL) against the incumbent, and one survivor is drawn with probability
proportional to its curiosity (Eq. 11 or 12).  A Bernoulli(``p_stop``) draw before every rule, Inequality (9)
(FRL) and the stopping terms of Theorem 5.2 (softFRL) end the list; the else clause takes the rest.  The two
algorithms share the steps of an iteration (start, cached counts, take a rule, end) and differ in their tests.

Data layout: samples are split by class and packed separately, ``Xpos[j]`` (positives satisfying antecedent ``j``)
and ``Xneg[j]``.  Counting work is saved three ways, none of which changes the trajectory:

* level 0 uses the column totals (the same in every iteration);
* level 1 uses the pairwise intersection counts (``cp = |Xpos[j]| - |Xpos[j] & Xpos[r0]|``) when they fit;
* deeper levels scan ``Xpos[j] & rem_pos`` in full and ``Xneg[j] & rem_neg`` in blocks, stopping as soon as
  the partial negative count already fails Corollary 4.5 (``w cp > cn``), the feasibility test or the prefix bound
  (all three are monotone in ``cn``, so the decision equals that of a full count); a lower bound on ``cn`` carried
  from the previous level (its count minus the negatives the chosen rule took) skips the scan altogether when it
  already fails; antecedents that captured no positive at the previous level are never counted again.

The random numbers come from :mod:`optbb.frl.rng`, whose state array persists across chunks, so a seed fixes the
whole run whatever the chunking.

Kernel state, in the form of :mod:`optbb.osdt.dp.kernel`: named tuples of arrays (``Data``, ``Caches``, ``Best``, ``Work``,
``Iterations``), integer state in one int64 array ``st`` (``S_*`` slots), integer configuration in ``ip``
(``P_*``) and float configuration in ``fp`` (``F_*``); the weights are arguments of their own (see ``Data``).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..common.bitset import copy_into
from ..common.jit import njit
from .bounds import (curiosity_frl, curiosity_soft, frl_completion_bound, frl_should_stop, prefix_feasible,
                     reference_feasible, soft_continue_bound, soft_stop_cost)
from .counts import frl_cn_limit, mass, mass_and, mass_row, remove, snap
from .objective import rule_risk
from .rng import sample_index, uniform

BLOCK = 128  # words of the negative scan between two early-exit checks

# The packed samples: ``Xpos[j]`` / ``Xneg[j]`` the positives / negatives antecedent ``j`` captures, ``all_pos`` /
# ``all_neg`` every sample of the class.  Their weights ``wpos`` / ``wneg`` (None: counts are popcounts; per word or
# per sample, see :mod:`optbb.frl.counts`) are arguments of the kernels of their own, so that Numba leaves out the
# weighted code where they are None (it cannot for a field of a tuple).
Data = namedtuple("Data", "Xpos Xneg all_pos all_neg")
# Level-0 and level-1 counts: ``tot_pos[j] = |Xpos[j]|``, ``pair_pos[j, r] = |Xpos[j] & Xpos[r]|`` (1 x 1 unused).
Caches = namedtuple("Caches", "tot_pos tot_neg pair_pos pair_neg")
# The incumbent: its objective ``objective[0]`` and antecedent indices ``rules[:size[0]]`` (in/out).
Best = namedtuple("Best", "objective rules size")
# A chunk's work buffers: the uncaptured samples, the counts at a level, the used antecedents, the candidates and
# their curiosities, the list being grown, and one flag per antecedent (FRL: ``cn[j]`` is the exact count at this
# level; softFRL: candidate ``k`` attains the bound of Theorem 5.2 by stopping after it).
Work = namedtuple("Work", "rem_pos rem_neg cp cn used cand_idx cand_f rules flag")
# Out, one row per iteration ``t`` of a chunk: the objective of its list and ``candidates[t, k]``, the number of
# candidates passing every test at level ``k`` (-1 beyond the last level).
Iterations = namedtuple("Iterations", "objective candidates")

# int64 state: the search statistics
S_WORDS = 0        # bitset words of Xpos/Xneg read by candidate scans
S_SCANS = 1        # candidate scans (levels counted from the bitsets)
S_TESTS = 2        # antecedent tests (candidate evaluations, including those served by cached counts)
S_EARLY_EXIT = 3   # negative scans stopped early
S_LEVELS = 4       # levels (rule choices attempted) in total
N_STATE = 5
# int configuration
P_USE_PAIRS = 0    # level 1 reads the pair caches
P_PER_WORD = 1     # the weights are per word (else per sample)
P_PAPER = 2        # FRL's feasibility test: Prop. 4.2 (1) or the reference code's (0)
P_BLOCK = 3        # words of a negative scan between two early-exit checks (any value, same trajectory)
N_IPARAMS = 4
# float configuration
F_N, F_TINY, F_W, F_C, F_C1, F_P_STOP, F_LAM = range(7)  # n (total weight), tiny (half the smallest weight), w, C,
N_FPARAMS = 7                                           # C1 (softFRL), p_stop, lambda


def work_buffers(data: Data, caches: Caches) -> Work:
    """The work buffers of a search over ``data`` (reused by every chunk: each iteration overwrites them)."""
    A = caches.tot_pos.shape[0]
    return Work(np.empty_like(data.all_pos), np.empty_like(data.all_neg), np.empty_like(caches.tot_pos),
                np.empty_like(caches.tot_neg), np.zeros(A, dtype=np.bool_), np.empty(A, dtype=np.int64),
                np.empty(A, dtype=np.float64), np.empty(A, dtype=np.int64), np.zeros(A, dtype=np.bool_))


# ----------------------------------------------------------------------------------------------------------------
# steps shared by Algorithms FRL and softFRL


@njit(cache=True)
def _start_iteration(data, work, cand_row):
    """Every sample uncaptured, no antecedent used, no candidate count recorded yet."""
    copy_into(work.rem_pos, data.all_pos, data.all_pos.shape[0])
    copy_into(work.rem_neg, data.all_neg, data.all_neg.shape[0])
    work.used[:] = False
    cand_row[:] = -1


@njit(cache=True)
def _cached_counts(depth, caches, work, tiny, wts):
    """Exact counts of every antecedent at level 0 (totals) or level 1 (totals less the overlap with the first rule)
    from the caches, without a scan."""
    cp, cn = work.cp, work.cn
    if depth == 0:
        copy_into(cp, caches.tot_pos, caches.tot_pos.shape[0])
        copy_into(cn, caches.tot_neg, caches.tot_neg.shape[0])
    else:
        tot_pos, tot_neg, pair_pos, pair_neg = caches.tot_pos, caches.tot_neg, caches.pair_pos, caches.pair_neg
        r0 = work.rules[0]
        for j in range(cp.shape[0]):
            cp[j] = snap(tot_pos[j] - pair_pos[r0, j], tiny, wts)
            cn[j] = snap(tot_neg[j] - pair_neg[r0, j], tiny, wts)


@njit(cache=True)
def _take_rule(data, work, r, depth):
    """Antecedent ``r`` becomes rule ``depth`` of the list: used, and its samples leave the uncaptured set."""
    work.rules[depth] = r
    work.used[r] = True
    remove(work.rem_pos, data.Xpos[r])
    remove(work.rem_neg, data.Xneg[r])


@njit(cache=True)
def _end_iteration(L, depth, t, work, best, out):
    """Record iteration ``t``'s objective ``L`` and keep its list of ``depth`` rules if it beats the incumbent."""
    out.objective[t] = L
    if L < best.objective[0]:
        best.objective[0] = L
        best.size[0] = depth
        copy_into(best.rules, work.rules, depth)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm FRL


@njit(cache=True)
def frl_chunk(data, wpos, wneg, caches, ip, fp, st, rng, best, work, out, n_iter):
    """Run ``n_iter`` iterations of Algorithm FRL.

    In/out: ``rng`` (generator state), ``best`` (the incumbent), ``st`` (statistics, ``S_*``).  Out: ``out``
    (per-iteration objectives and candidate counts, rows ``0 .. n_iter - 1``).  Configuration: ``ip`` (``P_*``)
    and ``fp`` (``F_*``).  Weights: ``wpos``/``wneg`` None (counts are popcounts) or the sample weights of
    each class (counts are weight sums, ``n`` the total weight, ``tiny`` half the smallest weight: a smaller
    remainder is rounding noise).
    """
    Xpos, Xneg, all_pos, all_neg = data.Xpos, data.Xneg, data.all_pos, data.all_neg
    rem_pos, rem_neg, cp, cn, used = work.rem_pos, work.rem_neg, work.cp, work.cn, work.used
    cand_idx, cand_f, full = work.cand_idx, work.cand_f, work.flag  # full: cn[j] is exact
    cand = out.candidates
    use_pairs, per_word, paper_feasibility, block = ip[P_USE_PAIRS] != 0, ip[P_PER_WORD] != 0, ip[P_PAPER] != 0, \
        ip[P_BLOCK]
    n, tiny, w, C, p_stop, lam = fp[F_N], fp[F_TINY], fp[F_W], fp[F_C], fp[F_P_STOP], fp[F_LAM]
    A = Xpos.shape[0]
    P, N = mass(all_pos, wpos, per_word), mass(all_neg, wneg, per_word)
    integral = wpos is None
    margin = 1.0 if integral else 1e-9 * n
    nwp, nwn = Xpos.shape[1], Xneg.shape[1]
    for t in range(n_iter):
        _start_iteration(data, work, cand[t])
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
            st[S_LEVELS] += 1
            L_best = best.objective[0]
            # ---- counts at this level
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, caches, work, tiny, wpos)
                full[:] = True
            else:
                # cp[j] holds an upper bound on the current count (counts never grow) and cn[j] a lower bound on
                # the previous level's count, so cn[j] - ln bounds the current one from below
                st[S_SCANS] += 1
                for j in range(A):
                    full[j] = False
                    if used[j] or cp[j] == 0:  # no positive now, none later
                        cp[j] = 0
                        continue
                    lb = cn[j] - ln
                    if lb < 0:
                        lb = 0
                    if lb >= frl_cn_limit(cp[j], P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin,
                                          integral):
                        cn[j] = lb
                        st[S_EARLY_EXIT] += 1
                        continue
                    c = mass_row(Xpos[j], rem_pos, wpos, per_word)
                    st[S_WORDS] += nwp
                    cp[j] = c
                    if c == 0:
                        continue
                    lim = frl_cn_limit(c, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility, margin, integral)
                    if lb >= lim:
                        cn[j] = lb
                        st[S_EARLY_EXIT] += 1
                        continue
                    acc = cn[j] - cn[j]  # 0 of the counts' type
                    i = 0
                    stopped = False
                    row = Xneg[j]  # 1-D slices keep the popcount loop vectorised
                    while i < nwn:
                        e = min(i + block, nwn)
                        acc += mass_and(row, rem_neg, wneg, per_word, i, e)
                        i = e
                        if acc >= lim and i < nwn:
                            stopped = True
                            break
                    st[S_WORDS] += i
                    if stopped:
                        cn[j] = max(acc, lb)
                        st[S_EARLY_EXIT] += 1
                    else:
                        cn[j] = acc
                        full[j] = True
            # ---- candidate tests
            m = 0
            for j in range(A):
                if used[j] or not full[j]:
                    continue
                st[S_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = snap(P_rem - c_p, tiny, wpos)
                rn = snap(N_rem - c_n, tiny, wneg)
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
            _take_rule(data, work, r, depth)
            depth += 1
            L_d += rule_risk(cp[r], cn[r], w) / n + C
            P_rem = snap(P_rem - cp[r], tiny, wpos)
            N_rem = snap(N_rem - cn[r], tiny, wneg)
            lp = cp[r]
            ln = cn[r]
        L_d += rule_risk(P_rem, N_rem, w) / n  # else clause, no C
        _end_iteration(L_d, depth, t, work, best, out)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm softFRL


@njit(cache=True)
def soft_chunk(data, wpos, wneg, caches, ip, fp, st, rng, best, work, out, n_iter):
    """Run ``n_iter`` iterations of Algorithm softFRL; arguments as in :func:`frl_chunk` (``fp[F_C1]`` is ``C1``;
    ``ip[P_PAPER]`` and ``ip[P_BLOCK]`` are not read)."""
    Xpos, Xneg = data.Xpos, data.Xneg
    rem_pos, rem_neg, cp, cn, used = work.rem_pos, work.rem_neg, work.cp, work.cn, work.used
    cand_idx, cand_f, stop_after = work.cand_idx, work.cand_f, work.flag
    cand = out.candidates
    use_pairs, per_word = ip[P_USE_PAIRS] != 0, ip[P_PER_WORD] != 0
    n, tiny, w, C, C1, p_stop, lam = fp[F_N], fp[F_TINY], fp[F_W], fp[F_C], fp[F_C1], fp[F_P_STOP], fp[F_LAM]
    A = Xpos.shape[0]
    P, N = mass(data.all_pos, wpos, per_word), mass(data.all_neg, wneg, per_word)
    nwp, nwn = Xpos.shape[1], Xneg.shape[1]
    for t in range(n_iter):
        _start_iteration(data, work, cand[t])
        P_rem = P
        N_rem = N
        amin = 1.0
        L_d = 0.0
        depth = 0
        while depth < A:
            if uniform(rng) < p_stop:
                break
            st[S_LEVELS] += 1
            L_best = best.objective[0]
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, caches, work, tiny, wpos)
            else:
                st[S_SCANS] += 1
                for j in range(A):
                    if used[j] or cp[j] + cn[j] == 0:
                        cp[j] = 0
                        cn[j] = 0
                        continue
                    cp[j] = mass_row(Xpos[j], rem_pos, wpos, per_word)
                    cn[j] = mass_row(Xneg[j], rem_neg, wneg, per_word)
                    st[S_WORDS] += nwp + nwn
            m = 0
            for j in range(A):
                if used[j]:
                    continue
                st[S_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = snap(P_rem - c_p, tiny, wpos)
                rn = snap(N_rem - c_n, tiny, wneg)
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
            _take_rule(data, work, r, depth)
            depth += 1
            a_r = cp[r] / (cp[r] + cn[r])
            pen = a_r - amin if a_r > amin else 0.0
            L_d += rule_risk(cp[r], cn[r], w) / n + C + C1 * pen
            if a_r < amin:
                amin = a_r
            P_rem = snap(P_rem - cp[r], tiny, wpos)
            N_rem = snap(N_rem - cn[r], tiny, wneg)
            if stop_after[pick]:  # Theorem 5.2: stopping attains the bound
                break
        L_d += soft_stop_cost(P_rem, N_rem, amin, n, w, C1)  # else clause: its risk and penalty, no C
        _end_iteration(L_d, depth, t, work, best, out)
