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

import numpy as np
from numba import njit

from ..common.bitset import popcount, popcount64
from .bounds import (curiosity_frl, curiosity_soft, frl_completion_bound, frl_should_stop, prefix_feasible,
                     reference_feasible, soft_continue_bound, soft_stop_cost)
from .objective import rule_risk
from .record import RECORD_LIMIT, IterationRecord

BLOCK = 128  # words of the negative scan between two early-exit checks

# indices into the stats array returned by the kernels
ST_WORDS = 0        # bitset words of Xpos/Xneg read by candidate scans
ST_SCANS = 1        # candidate scans (levels counted from the bitsets)
ST_TESTS = 2        # antecedent tests (candidate evaluations, including those served by cached counts)
ST_EARLY_EXIT = 3   # negative scans stopped early
ST_LEVELS = 4       # levels (rule choices attempted) in total
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
    state = np.asarray(state, dtype=np.uint64).copy()
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
def column_counts(B):
    """Popcount of every row of a bit matrix."""
    out = np.empty(B.shape[0], dtype=np.int64)
    for j in range(B.shape[0]):
        c = 0
        for i in range(B.shape[1]):
            c += popcount64(B[j, i])
        out[j] = c
    return out


@njit(cache=True)
def pair_counts(B):
    """Symmetric matrix of ``|B[j] & B[r]|`` (int32), the level-1 cache."""
    A = B.shape[0]
    out = np.empty((A, A), dtype=np.int32)
    for j in range(A):
        for r in range(j, A):
            c = 0
            for i in range(B.shape[1]):
                c += popcount64(B[j, i] & B[r, i])
            out[j, r] = c
            out[r, j] = c
    return out


@njit(cache=True, inline="always")
def _count_and(row, rem):
    c = 0
    for i in range(row.shape[0]):
        c += popcount64(row[i] & rem[i])
    return c


@njit(cache=True, inline="always")
def _remove(rem, row):
    for i in range(rem.shape[0]):
        rem[i] &= ~row[i]


@njit(cache=True)
def _frl_cn_limit(cp, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility):
    """A negative count at or above which a candidate with ``cp`` captured positives surely fails: Corollary 4.5
    (``cn >= w cp``), the feasibility test (``cn P_rem > cp N_rem``) or the prefix bound of Theorem 4.6, which is
    non-decreasing in ``cn``.  Non-decreasing in ``cp``, so an upper bound on ``cp`` gives a valid limit.  Used
    only to skip or stop counting: the float limit of the bound carries a margin of one sample."""
    lim = w * cp
    if paper_feasibility and P_rem > 0:
        lf = (cp * N_rem) // P_rem + 1.0
        if lf < lim:
            lim = lf
    if not math.isfinite(L_best):
        return lim
    # bound(cn) = L_d + cn/n + C + min(cn rp/(cp n) + C, w rp/n, (N_rem - cn)/n) with rp = P_rem - cp
    if L_d + C + N_rem / n < L_best:
        return lim
    rp = P_rem - cp
    t1 = (L_best - L_d - 2.0 * C) * n * cp / P_rem
    if t1 < 0.0:
        t1 = 0.0
    t2 = (L_best - L_d - C) * n - w * rp
    lb = max(t1, t2) + 1.0
    return lb if lb < lim else lim


# ----------------------------------------------------------------------------------------------------------------
# steps shared by Algorithms FRL and softFRL


@njit(cache=True)
def _start_iteration(rem_pos, rem_neg, all_pos, all_neg, used, cand_row):
    """Every sample uncaptured, no antecedent used, no candidate count recorded yet."""
    rem_pos[:] = all_pos
    rem_neg[:] = all_neg
    used[:] = False
    cand_row[:] = -1


@njit(cache=True)
def _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn):
    """Exact counts of every antecedent at level 0 (totals) or level 1 (totals less the overlap with the first rule)
    from the caches, without a scan."""
    if depth == 0:
        cp[:] = tot_pos
        cn[:] = tot_neg
    else:
        r0 = rules[0]
        for j in range(cp.shape[0]):
            cp[j] = tot_pos[j] - pair_pos[r0, j]
            cn[j] = tot_neg[j] - pair_neg[r0, j]


@njit(cache=True)
def _keep_if_better(L, rules, depth, best_L, best_rules, best_len):
    if L < best_L[0]:
        best_L[0] = L
        best_len[0] = depth
        best_rules[:depth] = rules[:depth]


# ----------------------------------------------------------------------------------------------------------------
# Algorithm FRL


@njit(cache=True)
def frl_chunk(Xpos, Xneg, tot_pos, tot_neg, pair_pos, pair_neg, use_pairs, all_pos, all_neg, n, w, C, p_stop, lam,
              paper_feasibility, n_iter, rng, best_L, best_rules, best_len, iter_L, cand, stats, block):
    """Run ``n_iter`` iterations of Algorithm FRL.

    In/out: ``rng`` (generator state), ``best_L[0]``, ``best_rules[:best_len[0]]`` (the incumbent's antecedent
    indices), ``stats``.  Out: ``iter_L[t]`` (objective of iteration ``t``'s list) and ``cand[t, k]`` (number of
    candidates passing every test at level ``k`` of iteration ``t``; -1 beyond the last level).  ``block`` is the
    number of words of a negative scan between two early-exit checks (any value gives the same trajectory).
    """
    A = Xpos.shape[0]
    P, N = popcount(all_pos), popcount(all_neg)
    nwn = Xneg.shape[1]
    rem_pos = np.empty_like(all_pos)
    rem_neg = np.empty_like(all_neg)
    cp = np.empty(A, dtype=np.int64)
    cn = np.empty(A, dtype=np.int64)
    full = np.zeros(A, dtype=np.bool_)      # cn[j] is the exact count at this level
    used = np.zeros(A, dtype=np.bool_)
    cand_idx = np.empty(A, dtype=np.int64)
    cand_f = np.empty(A, dtype=np.float64)
    rules = np.empty(A, dtype=np.int64)
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
            stats[ST_LEVELS] += 1
            L_best = best_L[0]
            # ---- counts at this level
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn)
                full[:] = True
            else:
                # cp[j] holds an upper bound on the current count (counts never grow) and cn[j] a lower bound on
                # the previous level's count, so cn[j] - ln bounds the current one from below
                stats[ST_SCANS] += 1
                for j in range(A):
                    full[j] = False
                    if used[j] or cp[j] == 0:  # no positive now, none later
                        cp[j] = 0
                        continue
                    lb = cn[j] - ln
                    if lb < 0:
                        lb = 0
                    if lb >= _frl_cn_limit(cp[j], P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility):
                        cn[j] = lb
                        stats[ST_EARLY_EXIT] += 1
                        continue
                    c = _count_and(Xpos[j], rem_pos)
                    stats[ST_WORDS] += Xpos.shape[1]
                    cp[j] = c
                    if c == 0:
                        continue
                    lim = _frl_cn_limit(c, P_rem, N_rem, L_d, L_best, n, w, C, paper_feasibility)
                    if lb >= lim:
                        cn[j] = lb
                        stats[ST_EARLY_EXIT] += 1
                        continue
                    acc = 0
                    i = 0
                    stopped = False
                    row = Xneg[j]  # 1-D slices keep the popcount loop vectorised
                    while i < nwn:
                        e = min(i + block, nwn)
                        acc += _count_and(row[i:e], rem_neg[i:e])
                        i = e
                        if acc >= lim and i < nwn:
                            stopped = True
                            break
                    stats[ST_WORDS] += i
                    if stopped:
                        cn[j] = max(acc, lb)
                        stats[ST_EARLY_EXIT] += 1
                    else:
                        cn[j] = acc
                        full[j] = True
            # ---- candidate tests
            m = 0
            for j in range(A):
                if used[j] or not full[j]:
                    continue
                stats[ST_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = P_rem - c_p
                rn = N_rem - c_n
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
            P_rem -= cp[r]
            N_rem -= cn[r]
            lp = cp[r]
            ln = cn[r]
        L_d += rule_risk(P_rem, N_rem, w) / n  # else clause, no C
        iter_L[t] = L_d
        _keep_if_better(L_d, rules, depth, best_L, best_rules, best_len)


# ----------------------------------------------------------------------------------------------------------------
# Algorithm softFRL


@njit(cache=True)
def soft_chunk(Xpos, Xneg, tot_pos, tot_neg, pair_pos, pair_neg, use_pairs, all_pos, all_neg, n, w, C, C1, p_stop,
               lam, n_iter, rng, best_L, best_rules, best_len, iter_L, cand, stats):
    """Run ``n_iter`` iterations of Algorithm softFRL; arguments as in :func:`frl_chunk`, plus ``C1``."""
    A = Xpos.shape[0]
    P, N = popcount(all_pos), popcount(all_neg)
    rem_pos = np.empty_like(all_pos)
    rem_neg = np.empty_like(all_neg)
    cp = np.empty(A, dtype=np.int64)
    cn = np.empty(A, dtype=np.int64)
    used = np.zeros(A, dtype=np.bool_)
    cand_idx = np.empty(A, dtype=np.int64)
    cand_f = np.empty(A, dtype=np.float64)
    stop_after = np.zeros(A, dtype=np.bool_)
    rules = np.empty(A, dtype=np.int64)
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
            stats[ST_LEVELS] += 1
            L_best = best_L[0]
            if depth == 0 or (depth == 1 and use_pairs):
                _cached_counts(depth, rules, tot_pos, tot_neg, pair_pos, pair_neg, cp, cn)
            else:
                stats[ST_SCANS] += 1
                for j in range(A):
                    if used[j] or cp[j] + cn[j] == 0:
                        cp[j] = 0
                        cn[j] = 0
                        continue
                    cp[j] = _count_and(Xpos[j], rem_pos)
                    cn[j] = _count_and(Xneg[j], rem_neg)
                    stats[ST_WORDS] += Xpos.shape[1] + Xneg.shape[1]
            m = 0
            for j in range(A):
                if used[j]:
                    continue
                stats[ST_TESTS] += 1
                c_p = cp[j]
                c_n = cn[j]
                rp = P_rem - c_p
                rn = N_rem - c_n
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
            P_rem -= cp[r]
            N_rem -= cn[r]
            if stop_after[pick]:  # Theorem 5.2: stopping attains the bound
                break
        a_else = P_rem / (P_rem + N_rem) if P_rem + N_rem > 0 else 0.0
        pen = a_else - amin if a_else > amin else 0.0
        L_d += rule_risk(P_rem, N_rem, w) / n + C1 * pen
        iter_L[t] = L_d
        _keep_if_better(L_d, rules, depth, best_L, best_rules, best_len)


# ----------------------------------------------------------------------------------------------------------------
# driver: chunks that return to Python (time limit, Ctrl-C, traces)


class SearchData:
    """Class-split packed antecedent bitsets and the level-0/level-1 count caches of one fit."""

    PAIR_WORK_LIMIT = 4e8  # skip the pairwise cache when computing it would cost more word operations

    def __init__(self, A: np.ndarray, y: np.ndarray):
        from ..common.bitset import ones, pack_rows

        A = np.asarray(A, dtype=np.uint8)
        y = np.asarray(y, dtype=np.uint8)
        pos = y == 1
        self.n = int(A.shape[0])
        self.n_pos = int(pos.sum())
        self.n_neg = self.n - self.n_pos
        self.n_antecedents = int(A.shape[1])
        self.Xpos = pack_rows(A[pos].T) if self.n_pos else np.zeros((A.shape[1], 0), dtype=np.uint64)
        self.Xneg = pack_rows(A[~pos].T) if self.n_neg else np.zeros((A.shape[1], 0), dtype=np.uint64)
        self.all_pos = ones(self.n_pos)
        self.all_neg = ones(self.n_neg)
        self.tot_pos = column_counts(self.Xpos)
        self.tot_neg = column_counts(self.Xneg)
        words = self.Xpos.shape[1] + self.Xneg.shape[1]
        self.use_pairs = self.n_antecedents ** 2 * words / 2 <= self.PAIR_WORK_LIMIT
        if self.use_pairs:
            self.pair_pos = pair_counts(self.Xpos)
            self.pair_neg = pair_counts(self.Xneg)
        else:
            self.pair_pos = np.zeros((1, 1), dtype=np.int32)
            self.pair_neg = np.zeros((1, 1), dtype=np.int32)


def run_search(data: SearchData, *, soft: bool, w: float, C: float, C1: float, n_iter: int, p_stop: float,
               lam: float, paper_feasibility: bool, random_state, time_limit: float | None, target: float | None = None,
               scan_block: int = BLOCK, verbose: int = 0, record_limit: int = RECORD_LIMIT):
    """Run Algorithm FRL (``soft=False``) or softFRL in chunks of iterations.

    Returns a dict: ``rules`` (antecedent indices of the best list), ``objective``, ``status`` (ITERATION_LIMIT,
    TIME_LIMIT or INTERRUPTED), ``n_iter`` (iterations run), ``stats`` (dict of work counters), ``time``,
    ``cpu_time``, and the :class:`~optbb.frl.record.IterationRecord` of the first ``record_limit`` iterations:
    ``iter_objective`` (objective of each iteration's list), ``iter_time`` (seconds since the start at the end of each
    iteration, interpolated linearly inside a chunk), ``candidates`` ((iterations, levels) int32, -1 where a level
    was not reached); and of every iteration: ``improvements`` and the mean candidate counts.
    ``target`` (for benchmarks) ends the run, with ``reached_target`` set, once the best objective is at or below it.
    ``verbose`` > 0 shows a progress line on a terminal (iterations, best objective; no lower bound: the search is
    Monte-Carlo).
    """
    import time

    from ..common.limits import InterruptGuard
    from ..common.progress import Progress
    from ..common.result import Status

    rng = seed_state(random_state)
    A = data.n_antecedents
    best_L = np.array([np.inf])
    best_rules = np.zeros(max(A, 1), dtype=np.int64)
    best_len = np.zeros(1, dtype=np.int64)
    stats = np.zeros(N_STATS, dtype=np.int64)
    levels = A + 1
    record = IterationRecord(record_limit)
    done = 0
    status = Status.ITERATION_LIMIT
    chunk = 16
    start = time.perf_counter()
    cpu_start = time.process_time()
    progress = Progress(verbose, "FRL" if not soft else "softFRL")
    with InterruptGuard() as guard:
        while done < n_iter:
            if guard.interrupted:
                status = Status.INTERRUPTED
                break
            elapsed = time.perf_counter() - start
            if time_limit is not None and elapsed >= time_limit:
                status = Status.TIME_LIMIT
                break
            if target is not None and best_L[0] <= target:
                break
            m = min(chunk, n_iter - done)
            c_L = np.empty(m, dtype=np.float64)
            c_cand = np.empty((m, levels), dtype=np.int32)
            t0 = time.perf_counter()
            args = (data.Xpos, data.Xneg, data.tot_pos, data.tot_neg, data.pair_pos, data.pair_neg,
                    data.use_pairs, data.all_pos, data.all_neg, float(data.n), float(w), float(C))
            if soft:
                soft_chunk(*args, float(C1), float(p_stop), float(lam), m, rng, best_L, best_rules, best_len,
                           c_L, c_cand, stats)
            else:
                frl_chunk(*args, float(p_stop), float(lam), bool(paper_feasibility), m, rng, best_L, best_rules,
                          best_len, c_L, c_cand, stats, int(scan_block))
            t1 = time.perf_counter()
            record.add(c_L, (t0 - start) + (t1 - t0) * np.arange(1, m + 1) / m, c_cand)
            done += m
            progress.update(done, float(best_L[0]), math.nan, 0, 0)
            # aim at chunks of about 50 ms, so limits and Ctrl-C are honoured promptly
            per = (t1 - t0) / m
            chunk = int(min(max(1, 0.05 / per if per > 0 else 4096), 4096))
            if time_limit is not None:
                chunk = max(1, min(chunk, int((time_limit - (t1 - start)) / per) + 1 if per > 0 else chunk))
    progress.close()
    total = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "rules": best_rules[:best_len[0]].copy(),
        "objective": float(best_L[0]),
        "status": status,
        "n_iter": done,
        **record.result(),
        "stats": {"words_scanned": int(stats[ST_WORDS]), "bytes_scanned": int(stats[ST_WORDS]) * 8,
                  "candidate_scans": int(stats[ST_SCANS]), "antecedent_tests": int(stats[ST_TESTS]),
                  "early_exits": int(stats[ST_EARLY_EXIT]), "levels": int(stats[ST_LEVELS])},
        "time": total,
        "reached_target": bool(target is not None and best_L[0] <= target),
        "cpu_time": cpu,
    }
