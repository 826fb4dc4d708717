"""Dynamic-programming OSDT kernel: subproblems are supports (packed bitsets) with a depth budget, solved once.

A subproblem ``(S, d)`` is the set ``S`` of samples reaching a node plus the number of splits still allowed below it
(``UNLIMITED`` without ``max_depth``).  Its cost is ``errors + lambda N * leaves`` (error units), minimised over the
trees of depth at most ``d``; the OSDT objective is that cost divided by ``N``.  The optimum of ``S`` is the cheaper
of the leaf and of the best split ``f``, whose cost is the sum of the optima of ``S & ~x_f`` and ``S & x_f`` at
``d - 1`` (the optimal-substructure property every support-based tree solver rests on).

The search is a depth-first branch and bound over that recursion with an upper bound handed down (a child is asked
only for a tree cheaper than ``parent best - lower bound of its sibling``), memoised in an open-addressing table
keyed by the support's words plus the depth budget.  A memo entry holds a lower bound, an upper bound and the best
split; a subproblem is closed (solved) when its lower bound reaches its upper bound.  A failed child (nothing below
the bound asked) leaves a lower bound that later visits reuse.  Bounds per subproblem, each with its source, all
in :mod:`optbb.osdt.bounds` (one home with the leaf-set search's):

* leaf / split floor: ``leaf_is_exact`` (OSDT Thm 3.3 in its strengthened code form, and Thm B.2);
* one-step lookahead with equivalent points: ``lookahead_bound`` (OSDT Lemma 3.2 + Thm B.2);
* leaf accurate support: ``leaf_accuracy_too_small`` (OSDT Thm 3.5);
* incremental accuracy: ``split_needs_refinement`` and ``incremental_accuracy_bound`` (OSDT Thm 3.4);
* similar support: ``similar_support_bound`` (OSDT Thm F.1; GOSDT, Lin et al. 2020, Thm "similar support");
* small subproblems: a tree cheaper than a leaf has fewer than ``(errors - minority) / lambda N + 1`` leaves (OSDT
  Thm C.1 applied to the subproblem), so one with at most 2 leaves is a stump (``solve_depth1``); in a
  depth-limited search one with at most 3 leaves has depth <= 2 and goes to the depth-2 solver
  (:func:`optbb.osdt.dp.depth2.depth2`, pair counts), as does every subproblem with a depth budget of 2.  A search
  without depth limit uses no depth-2 solver and its kernels are compiled without it (``tabs`` is None), unless
  it has the pair bounds;
* pair bounds (no depth limit, ``ip[P_PAIRS]``; ``tabs`` then holds one count table): a subproblem opened counts
  its feature pairs, which give its best tree of at most three leaves exactly (every such tree has depth <= 2) and,
  for each child of each split, its best stump exactly and a floor on its trees of three leaves.  A tree of ``L``
  leaves costs its errors plus ``L lambda N`` and errs at least on the equivalent-points minority ``z`` (Thm B.2),
  so the subproblem is solved when its best of at most three leaves costs at most ``z + 4 lambda N``, and a child
  costs at least the least of its leaf, its best stump plus ``2 lambda N``, its three-leaf floor plus
  ``3 lambda N`` and ``z + 4 lambda N`` (:func:`optbb.osdt.dp.pairs.split_floor`).  The children's leaf-count
  bounds are those of the pair-count stage of AutoOptTree (imodels, pull request 303), written here from its
  description;
* budget deepening (``ip[P_DEEPEN]``, :func:`_probe`) and, in the engine, bound passes at the root.

Sample weights: every count is a weighted count in integer weight units (``errors`` is the weight of the
misclassified samples, ``N`` the total weight, see :func:`optbb.osdt.support.weight_layers`): the samples are
split into ``L`` layers of one integer weight each, and a count is ``sum_l weight_l * popcount(S & layer_l & ...)``.
An integer-weighted problem is the problem of its repeated rows, so every bound below holds as stated with counts
read as weights; unweighted data is one layer of weight 1 (plain popcounts).

All state lives in arrays (``Stack``, ``Memo``, ``st``, ``fp``) so the search runs in chunks of ``work`` actions
that return to Python, which grows the memo, checks limits and samples the global lower bound.  Nothing partial is
committed when the memo is full: the chunk returns ``NEED_MEMORY`` before the action that would insert.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from ...common.bitset import hash_words
from ...common.bounds import majority_class
from ...common.driver import DONE, NEED_MEMORY, NODE_LIMIT, RUNNING  # chunk return codes: the driver's
from ...common.hashtable import ht_find, ht_put
from ...common.jit import njit
from ..bounds import (incremental_accuracy_bound, leaf_accuracy_too_small, leaf_is_exact, lookahead_bound,
                     similar_support_bound, split_needs_refinement)
from ..support import UNLIMITED, layered
from .depth2 import AUTO, accumulate_pair_counts, depth2, depth2_from_counts, split_counts_into
from .pairs import small_tree, small_tree_wins, split_floor

_NO_SIDES = np.zeros((2, 0, 3), np.int64)  # the side table of a frame without pair bounds (never read)
# frame phases
OPEN, LOOP, WAIT_A, WAIT_B = 0, 1, 2, 3
# results handed from a child to its parent
SUCCESS, FAIL = 1, 2
# int64 state
S_TOP, S_NODES, S_NENT, S_IMPROV, S_ROOTKIND, S_DEPTH2, S_MAXTOP, S_IMPNODES, S_HITS, S_DEPTH2_FAIL, \
    S_TFRAME, S_TFEAT = range(12)
N_STATE = 12
# int parameters
P_SIMILAR, P_SMALL, P_NODELIMIT, P_PAIRS, P_DEEPEN = range(5)
N_IPARAMS = 5
# float state
F_LAMN, F_ROOTVAL = range(2)
N_FSTATE = 2

# the data: :data:`optbb.osdt.support.Packed` (feature, class and minority bitsets per weight layer)
Memo = namedtuple("Memo", "keys hashes used fval ival lb ub feat")
# The frame stack, one row per frame ``k`` (a few arrays, so that a kernel takes few arguments):
#   ``fi[k, FR_*]`` its integers, ``fv[k, FV_*]`` its floats, ``order[k, j]`` the feature of its ``j``-th split
#   (best first), ``lbs[k, LB0|LB1|LBF, j]`` the bounds of that split's children and of the split,
#   ``bits[k, SUP|SCRATCH0|SCRATCH1]`` its support and two scratch bitsets, ``cnt[k, CNT|TMP]`` class counts;
#   ``keybuf`` (W + 1 words) is the memo key being built.
Stack = namedtuple("Stack", "fi fv order lbs bits cnt keybuf")
FR_D, FR_ENTRY, FR_CURSOR, FR_PHASE, FR_BESTF, FR_NFEAT, FR_FIRST, FR_START, FR_PARTIAL = range(9)
N_FR = 9
FV_UB, FV_BEST, FV_LEAF, FV_CA, FV_MINSKIP, FV_STEP = range(6)
N_FV = 6
LB0, LB1, LBF = range(3)
SUP, SCRATCH0, SCRATCH1 = range(3)
CNT, TMP = range(2)
# ``tabs``, what the depth-2 solver keeps: None without a depth limit or with one below 2 (no depth-2 solver),
# ``NO_TABLES`` with max_depth 2 or tables over 64 MB, else ``Tables``: the pair-count tables (``counts[T_*]`` int64
# (k, m, m), ``totals[T_*]`` int64 (k,)) of a depth-3 frame (``T_PARENT``) and of the two children of its split in
# progress.  Each kernel is compiled for one of the three and leaves out the code of the others.
Tables = namedtuple("Tables", "counts totals")
NO_TABLES = ()
T_PARENT, T_LEFT, T_RIGHT = range(3)


# ----------------------------------------------------------------------------------------------------------------
# counting
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def child_counts(S, xf, data, cnt):
    """Class counts (weights) of ``S & xf`` into ``cnt`` in one pass over the words; returns ``(n, z)``, ``z`` the
    weight of the equivalent-points minority.  Inlined: it runs once per feature in a frame's split loop, where a
    plain call (with its tuple of arrays) slowed depth-limited searches by about 7%."""
    ybits, zbits, mult = data.ybits, data.zbits, data.mult
    L = mult.shape[0]
    for c in range(cnt.shape[0]):
        cnt[c] = 0
    z = 0
    for i in range(S.shape[0]):
        w = S[i] & xf[i]
        if w == 0:
            continue
        for c in range(cnt.shape[0]):
            cnt[c] += layered(w, ybits, c * L, i, mult)
        z += layered(w, zbits, 0, i, mult)
    n = 0
    for c in range(cnt.shape[0]):
        n += cnt[c]
    return n, z


@njit(cache=True)
def support_counts(S, data, cnt):
    """Class counts (weights) of support ``S`` into ``cnt``; returns ``(n, z)``, ``z`` the equivalent-points
    minority."""
    return child_counts(S, S, data, cnt)


@njit(cache=True, inline="always")
def masked_weight(S, a, b, mode, data):
    """Weight of ``S`` (mode 0), ``S & a`` (mode 1) or ``S & (a ^ b)`` (mode 2: the samples of ``S`` on which
    features ``a`` and ``b`` disagree); the number of samples when unweighted.  Inlined, so that each call site's
    constant mode selects its loop: the similar support bound calls it for every pair of splits of a frame."""
    n = 0
    for i in range(S.shape[0]):
        w = S[i] if mode == 0 else (S[i] & a[i] if mode == 1 else S[i] & (a[i] ^ b[i]))
        if w != 0:
            n += layered(w, data.wbits, 0, i, data.mult)
    return n


@njit(cache=True)
def split_into(out, S, xf, value):
    """``out = S & xf`` (value 1) or ``S & ~xf`` (value 0)."""
    if value == 1:
        for i in range(S.shape[0]):
            out[i] = S[i] & xf[i]
    else:
        for i in range(S.shape[0]):
            out[i] = S[i] & ~xf[i]


# ----------------------------------------------------------------------------------------------------------------
# exact solvers for small budgets
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def solve_depth1(S, n, cnt, z, data, lam_n, tmp):
    """Exact optimum over trees of depth <= 1 on support ``S``: ``(cost, feature)``, feature -1 for the leaf."""
    _, e = majority_class(cnt)
    best, bf = e + lam_n, -1
    if leaf_is_exact(e, z, lam_n) or z + 2.0 * lam_n >= best:
        return best, bf
    xbits = data.xbits
    K = cnt.shape[0]
    for f in range(xbits.shape[0]):
        n1, _ = child_counts(S, xbits[f], data, tmp)
        if n1 == 0 or n1 == n:
            continue
        m1, m0 = 0, 0
        for c in range(K):
            if tmp[c] > m1:
                m1 = tmp[c]
            if cnt[c] - tmp[c] > m0:
                m0 = cnt[c] - tmp[c]
        v = (n - m1 - m0) + 2.0 * lam_n
        if v < best:
            best, bf = v, f
    return best, bf


# ----------------------------------------------------------------------------------------------------------------
# memo table
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def _make_key(keybuf, S, d):
    W = S.shape[0]
    for i in range(W):
        keybuf[i] = S[i]
    keybuf[W] = np.uint64(d)
    return hash_words(keybuf)


@njit(cache=True)
def memo_find(memo, keybuf, S, d):
    """Entry id of subproblem ``(S, d)`` or -1."""
    h = _make_key(keybuf, S, d)
    slot = ht_find(memo, keybuf, h)
    if slot >= 0:
        return memo.ival[slot]
    return -1


@njit(cache=True, inline="always")
def _memo_insert(memo, st, keybuf, S, d, lb, ub):
    h = _make_key(keybuf, S, d)
    slot = ht_find(memo, keybuf, h)
    if slot >= 0:
        return memo.ival[slot]
    eid = st[S_NENT]
    st[S_NENT] = eid + 1
    ht_put(memo, slot, keybuf, h, 0.0, eid)
    memo.lb[eid] = lb
    memo.ub[eid] = ub
    memo.feat[eid] = -1
    return eid


@njit(cache=True)
def _child_depth(d):
    return d if d >= UNLIMITED else d - 1


@njit(cache=True)
def _split_before(order, lbs, a, b):
    """Split ``a`` of a frame comes before split ``b``: smaller bound first, then smaller feature."""
    return lbs[LBF, a] < lbs[LBF, b] or (lbs[LBF, a] == lbs[LBF, b] and order[a] < order[b])


@njit(cache=True, inline="always")
def _sort_splits(order, lbs, nf):
    """Sort the first ``nf`` splits of a frame best first: by split bound, ties by feature (the features were
    listed in increasing order, so this is a stable sort by bound), in place (heapsort)."""
    for phase in range(2):
        start = nf // 2 - 1 if phase == 0 else nf - 1
        stop = -1 if phase == 0 else 0
        for t in range(start, stop, -1):
            if phase == 0:
                root, end = t, nf
            else:
                _swap_splits(order, lbs, 0, t)
                root, end = 0, t
            while True:  # sift the split at ``root`` down a max-heap of ``end`` splits
                child = 2 * root + 1
                if child >= end:
                    break
                if child + 1 < end and _split_before(order, lbs, child, child + 1):
                    child += 1
                if not _split_before(order, lbs, root, child):
                    break
                _swap_splits(order, lbs, root, child)
                root = child


def _no_pair_table(tabs) -> bool:
    """``tabs`` (a Numba type) holds no count table: None or :data:`NO_TABLES`."""
    return isinstance(tabs, types.NoneType) or _keeps_no_tables(tabs)


def _small_tree_of(S, e, data, tabs, sides, lam_n):
    return small_tree(S, e, data, tabs.counts[T_PARENT], tabs.totals[T_PARENT], sides, lam_n)


@overload(_small_tree_of)
def _small_tree_of_typed(S, e, data, tabs, sides, lam_n):
    # the pair bounds need a table: a search compiled without one never asks (``ip[P_PAIRS]`` is 0)
    if _no_pair_table(tabs):
        return lambda S, e, data, tabs, sides, lam_n: (np.inf, np.int64(-1))
    return _small_tree_of


@njit(cache=True)
def _swap_splits(order, lbs, a, b):
    order[a], order[b] = order[b], order[a]
    for r in range(3):
        lbs[r, a], lbs[r, b] = lbs[r, b], lbs[r, a]


# ----------------------------------------------------------------------------------------------------------------
# the search
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)  # not inlined into ``run``: copying its intermediate code costs more than linking it
def _open(k, data, memo, stk, st, ip, fp, tabs):
    """Open frame ``k``: resolve it at once (returns ``(SUCCESS|FAIL, value)``) or prepare its split loop
    (returns ``(0, 0)``).  ``SUCCESS`` means an exact optimum below the frame's bound, ``FAIL`` a lower bound at
    or above it."""
    lam_n = fp[F_LAMN]
    fi, fv = stk.fi, stk.fv
    S = stk.bits[k, SUP]
    d, UB = fi[k, FR_D], fv[k, FV_UB]
    cnt, tmp = stk.cnt[k, CNT], stk.cnt[k, TMP]
    n, z = support_counts(S, data, cnt)
    _, e = majority_class(cnt)
    leaf = e + lam_n
    st[S_NODES] += 1
    if d == 3 and st[S_TFRAME] == k:
        st[S_TFRAME] = -1  # a new depth-3 frame at this level: the table of the previous one is stale
    if d == 0 or leaf_is_exact(e, z, lam_n):
        return (SUCCESS, leaf) if leaf < UB else (FAIL, leaf)
    lbS = lookahead_bound(e, z, lam_n)
    if lbS >= UB:
        return FAIL, lbS
    eid = -1
    if d >= 2:
        eid = memo_find(memo, stk.keybuf, S, d)
        if eid >= 0:
            st[S_HITS] += 1
            if memo.lb[eid] >= memo.ub[eid]:
                v = memo.ub[eid]
                return (SUCCESS, v) if v < UB else (FAIL, v)
            if memo.lb[eid] >= UB:
                return FAIL, memo.lb[eid]
            lbS = max(lbS, memo.lb[eid])
    if d == 1 or e - z <= 2.0 * lam_n:  # fewer than 3 leaves can beat the leaf: depth <= 1 suffices (Thm C.1)
        v, _ = solve_depth1(S, n, cnt, z, data, lam_n, tmp)
        return (SUCCESS, v) if v < UB else (FAIL, v)
    if tabs is not None:
        if d == 2 or (ip[P_SMALL] != 0 and e - z <= 3.0 * lam_n):  # at most 3 leaves: depth <= 2 (Thm C.1)
            st[S_DEPTH2] += 1
            v, f = _solve_depth2(k, S, data, stk, st, tabs, lam_n)
            if eid < 0:
                eid = _memo_insert(memo, st, stk.keybuf, S, d, v, v)
            memo.lb[eid] = v
            memo.ub[eid] = v
            memo.feat[eid] = f
            if v >= UB:
                st[S_DEPTH2_FAIL] += 1
            return (SUCCESS, v) if v < UB else (FAIL, v)
    pairs = False
    sides = _NO_SIDES
    if tabs is not None and ip[P_PAIRS] != 0:  # a search without depth limit, with the pair bounds
        sides = np.empty((2, data.xbits.shape[0], 3), np.int64)
        v, f = _small_tree_of(S, e, data, tabs, sides, lam_n)
        if small_tree_wins(v, z, lam_n):
            if eid < 0:
                eid = _memo_insert(memo, st, stk.keybuf, S, d, v, v)
            memo.lb[eid], memo.ub[eid], memo.feat[eid] = v, v, f
            return (SUCCESS, v) if v < UB else (FAIL, v)
        lbS = max(lbS, z + 4.0 * lam_n)
        if lbS >= UB:
            if eid >= 0 and lbS > memo.lb[eid]:
                memo.lb[eid] = lbS
            return FAIL, lbS
        pairs = True
    if eid < 0:
        eid = _memo_insert(memo, st, stk.keybuf, S, d, lbS, leaf)
    fi[k, FR_ENTRY] = eid
    # per-feature bounds of the split
    cd = _child_depth(d)
    xbits = data.xbits
    K = cnt.shape[0]
    tmp2 = stk.cnt[k + 1, TMP]
    order, lbs = stk.order[k], stk.lbs[k]
    s0buf, s1buf = stk.bits[k, SCRATCH0], stk.bits[k, SCRATCH1]
    nf = 0
    minskip = np.inf
    before = -1
    for f in range(xbits.shape[0]):
        n1, z1 = child_counts(S, xbits[f], data, tmp)
        same, before = data.nested[f] != 0 and n1 == before, n1
        if n1 == 0 or n1 == n or same:  # no split, or the split of feature f - 1 again
            continue
        for c in range(K):
            tmp2[c] = cnt[c] - tmp[c]
        n0, z0 = n - n1, z - z1
        _, e1 = majority_class(tmp)
        _, e0 = majority_class(tmp2)
        if leaf_accuracy_too_small(n0, e0, lam_n) or leaf_accuracy_too_small(n1, e1, lam_n):
            continue
        ex0 = cd == 0 or leaf_is_exact(e0, z0, lam_n)
        ex1 = cd == 0 or leaf_is_exact(e1, z1, lam_n)
        sp0 = np.inf if ex0 else (split_floor(sides, f, 0, z0, lam_n) if pairs else z0 + 2.0 * lam_n)
        sp1 = np.inf if ex1 else (split_floor(sides, f, 1, z1, lam_n) if pairs else z1 + 2.0 * lam_n)
        lb0 = min(e0 + lam_n, sp0)
        lb1 = min(e1 + lam_n, sp1)
        if cd >= 2:
            if not ex0:
                split_into(s0buf, S, xbits[f], 0)
                c = memo_find(memo, stk.keybuf, s0buf, cd)
                if c >= 0:
                    lb0 = max(lb0, min(memo.lb[c], memo.ub[c]))
            if not ex1:
                split_into(s1buf, S, xbits[f], 1)
                c = memo_find(memo, stk.keybuf, s1buf, cd)
                if c >= 0:
                    lb1 = max(lb1, min(memo.lb[c], memo.ub[c]))
        lbf = lb0 + lb1
        if split_needs_refinement(e, e0, e1, lam_n):
            lbf = max(lbf, incremental_accuracy_bound(lb0, lb1, sp0, sp1))
        if lbf >= UB:
            minskip = min(minskip, lbf)
            continue
        order[nf] = f
        lbs[LB0, nf], lbs[LB1, nf], lbs[LBF, nf] = lb0, lb1, lbf
        nf += 1
    frame_lb = min(leaf, minskip)
    for j in range(nf):
        frame_lb = min(frame_lb, lbs[LBF, j])
    if frame_lb > memo.lb[eid]:
        memo.lb[eid] = frame_lb
    if frame_lb >= UB:
        return FAIL, frame_lb
    _sort_splits(order, lbs, nf)
    fi[k, FR_NFEAT] = nf
    fi[k, FR_CURSOR] = 0
    fv[k, FV_LEAF] = leaf
    fv[k, FV_MINSKIP] = minskip
    if leaf < UB:
        fv[k, FV_BEST], fi[k, FR_BESTF] = leaf, -1
    else:
        fv[k, FV_BEST], fi[k, FR_BESTF] = UB, -2
    fi[k, FR_PHASE] = LOOP
    if tabs is not None:
        if d == 3:
            _table_of(k, S, data, st, tabs)
    return 0, 0.0


def _keeps_no_tables(tabs) -> bool:
    """``tabs`` (a Numba type) is :data:`NO_TABLES`."""
    return isinstance(tabs, types.BaseTuple) and len(tabs) == 0


def _table_of(k, S, data, st, tabs):
    """Pair-count table of the support of depth-3 frame ``k``: its children's tables then cost one count of the
    smaller child each (the other is the difference)."""
    parent, parent_t = tabs.counts[T_PARENT], tabs.totals[T_PARENT]
    parent[:, :, :] = 0
    parent_t[:] = 0
    accumulate_pair_counts(parent, parent_t, data.xbits, data.ybits, S, 1, AUTO, data.mult)
    st[S_TFRAME] = k
    st[S_TFEAT] = -1


@overload(_table_of)
def _table_of_typed(k, S, data, st, tabs):
    # chosen when a kernel is compiled: a search without tables compiles no table code
    return (lambda k, S, data, st, tabs: None) if _keeps_no_tables(tabs) else _table_of


@njit(cache=True, inline="always")
def _solve_depth2(k, S, data, stk, st, tabs, lam_n):
    """The depth-2 solver (:mod:`optbb.osdt.dp.depth2`) on the support of frame ``k``: ``(cost, root feature)``.  A
    child of the depth-3 frame holding a count table reads its own table from it."""
    if k >= 1 and st[S_TFRAME] == k - 1:
        return _depth2_from_table(k - 1, data, stk, st, tabs, lam_n)
    v, _, g, _, _ = depth2(data.xbits, data.ybits, S, lam_n, data.mult)
    return v, g


def _depth2_from_table(p, data, stk, st, tabs, lam_n):
    """The depth-2 optimum of the child in progress of depth-3 frame ``p``, from the table of ``p``."""
    fi = stk.fi
    f = stk.order[p, fi[p, FR_CURSOR]]
    side = fi[p, FR_FIRST] if fi[p, FR_PHASE] == WAIT_A else 1 - fi[p, FR_FIRST]
    counts, totals = tabs.counts, tabs.totals
    if st[S_TFEAT] != f:
        split_counts_into(data.xbits, data.ybits, stk.bits[p, SUP], counts[T_PARENT], totals[T_PARENT], f,
                          counts[T_LEFT], totals[T_LEFT], counts[T_RIGHT], totals[T_RIGHT], data.mult)
        st[S_TFEAT] = f
    t = T_LEFT if side == 0 else T_RIGHT
    v, _, g, _, _ = depth2_from_counts(counts[t], totals[t], lam_n)
    return v, g


@overload(_depth2_from_table)
def _depth2_from_table_typed(p, data, stk, st, tabs, lam_n):
    # without tables no frame holds one (``st[S_TFRAME]`` stays -1), so this is never called
    if _keeps_no_tables(tabs):
        return lambda p, data, stk, st, tabs, lam_n: (np.inf, np.int64(-1))
    return _depth2_from_table


@njit(cache=True, inline="always")
def _push(k, child_value, stk, xf, ub, st):
    """Push the child ``x_f = child_value`` of frame ``k`` as frame ``k + 1`` with bound ``ub``."""
    split_into(stk.bits[k + 1, SUP], stk.bits[k, SUP], xf, child_value)
    stk.fi[k + 1, FR_D] = _child_depth(stk.fi[k, FR_D])
    stk.fv[k + 1, FV_UB] = ub
    stk.fi[k + 1, FR_PHASE] = OPEN
    st[S_TOP] = k + 1
    if k + 1 > st[S_MAXTOP]:
        st[S_MAXTOP] = k + 1


@njit(cache=True)
def _finish_feature(k, j, data, stk, ip):
    """Feature at position ``j`` of frame ``k`` is done: tighten the later features' child bounds with the
    similar support bound (the ``x_f = 0`` child against both children of every later feature ``g``)."""
    lbs = stk.lbs[k]
    lbs[LBF, j] = max(lbs[LBF, j], lbs[LB0, j] + lbs[LB1, j])
    stk.fi[k, FR_CURSOR] = j + 1
    stk.fi[k, FR_PHASE] = LOOP
    if ip[P_SIMILAR] == 0:
        return
    a0, a1 = lbs[LB0, j], lbs[LB1, j]
    # only worth a pass when a known child bound could lift some later split past the incumbent
    if max(a0, a1) <= 0.0:
        return
    S = stk.bits[k, SUP]
    n = masked_weight(S, S, S, 0, data)
    best = stk.fv[k, FV_BEST]
    xbits = data.xbits
    order = stk.order[k]
    xf = xbits[order[j]]
    for jj in range(j + 1, stk.fi[k, FR_NFEAT]):
        if lbs[LBF, jj] >= best:
            continue
        diff = masked_weight(S, xf, xbits[order[jj]], 2, data)
        same = n - diff
        v0 = max(similar_support_bound(a0, diff), similar_support_bound(a1, same))
        v1 = max(similar_support_bound(a1, diff), similar_support_bound(a0, same))
        if v0 > lbs[LB0, jj]:
            lbs[LB0, jj] = v0
        if v1 > lbs[LB1, jj]:
            lbs[LB1, jj] = v1
        if lbs[LB0, jj] + lbs[LB1, jj] > lbs[LBF, jj]:
            lbs[LBF, jj] = lbs[LB0, jj] + lbs[LB1, jj]


@njit(cache=True, inline="always")
def _first_child(k, j, data, stk):
    """Which child of split ``j`` of frame ``k`` to solve first: the one with the larger bound, on a tie the larger
    support (more errors to remove: it is the likelier to fail its bound, which saves solving its sibling)."""
    a, b = stk.lbs[k, LB0, j], stk.lbs[k, LB1, j]
    if a != b:
        return 0 if a > b else 1
    S, xf = stk.bits[k, SUP], data.xbits[stk.order[k, j]]
    n, n1 = masked_weight(S, S, S, 0, data), masked_weight(S, xf, xf, 1, data)
    return 0 if n - n1 >= n1 else 1


@njit(cache=True, inline="always")
def _probe(k, j, side, data, stk, st):
    """Ask child ``side`` of split ``j`` of frame ``k`` for a tree below its bound plus the frame's step, or below
    what its sibling's bound leaves if that is less (a partial ask, ``FR_PARTIAL``: its failure only raises the
    child's bound).  Deepening the asks in turn (each failure of both children doubles the step) lets a split
    whose children's bounds add up past the frame's best fail after cheap asks, rather than after solving one
    child exactly: the budget deepening of AutoOptTree (imodels, pull request 303), written from its description;
    without ``P_DEEPEN`` the step is infinite and each child is asked once, MurTree's order."""
    fi, fv, lbs = stk.fi, stk.fv, stk.lbs[k]
    row, other = (LB0, LB1) if side == 0 else (LB1, LB0)
    full = fv[k, FV_BEST] - lbs[other, j]
    ask = min(full, lbs[row, j] + fv[k, FV_STEP])
    fi[k, FR_PARTIAL] = int(ask < full)
    fi[k, FR_FIRST] = side
    fi[k, FR_PHASE] = WAIT_A
    _push(k, side, stk, data.xbits[stk.order[k, j]], ask, st)


@njit(cache=True, inline="always")
def _child_done(k, kind, v, data, stk, st, ip):
    """Frame ``k`` receives its child's result."""
    fi, fv = stk.fi, stk.fv
    j = fi[k, FR_CURSOR]
    first = fi[k, FR_FIRST]
    rowA, rowB = (LB0, LB1) if first == 0 else (LB1, LB0)
    lbs = stk.lbs[k]
    if fi[k, FR_PHASE] == WAIT_A:
        if kind == FAIL:
            if v > lbs[rowA, j]:
                lbs[rowA, j] = v
            if fi[k, FR_PARTIAL] == 0 or lbs[rowA, j] + lbs[rowB, j] >= fv[k, FV_BEST]:
                _finish_feature(k, j, data, stk, ip)
                return
            if 1 - first == fi[k, FR_START]:
                fv[k, FV_STEP] *= 2.0  # both children failed their probes: deepen
            _probe(k, j, 1 - first, data, stk, st)
            return
        lbs[rowA, j] = v
        fv[k, FV_CA] = v
        if v + lbs[rowB, j] >= fv[k, FV_BEST]:
            _finish_feature(k, j, data, stk, ip)
            return
        fi[k, FR_PHASE] = WAIT_B
        _push(k, 1 - first, stk, data.xbits[stk.order[k, j]], fv[k, FV_BEST] - v, st)
        return
    # WAIT_B
    if kind == SUCCESS:
        lbs[rowB, j] = v
        total = fv[k, FV_CA] + v
        if total < fv[k, FV_BEST]:
            fv[k, FV_BEST] = total
            fi[k, FR_BESTF] = stk.order[k, j]
            if k == 0:
                st[S_IMPROV] += 1
                st[S_IMPNODES] = st[S_NODES]
    elif v > lbs[rowB, j]:
        lbs[rowB, j] = v
    _finish_feature(k, j, data, stk, ip)


@njit(cache=True, inline="always")
def _close(k, memo, stk):
    """All splits of frame ``k`` are done: an exact optimum if one beat the frame's bound, else a lower bound."""
    fi, fv = stk.fi, stk.fv
    eid = fi[k, FR_ENTRY]
    if fi[k, FR_BESTF] != -2:
        v = fv[k, FV_BEST]
        memo.lb[eid] = v
        memo.ub[eid] = v
        memo.feat[eid] = fi[k, FR_BESTF]
        return SUCCESS, v
    v = min(fv[k, FV_LEAF], fv[k, FV_MINSKIP])
    for j in range(fi[k, FR_NFEAT]):
        v = min(v, stk.lbs[k, LBF, j])
    if v > memo.lb[eid]:
        memo.lb[eid] = v
    return FAIL, v


@njit(cache=True)
def run(data, memo, stk, st, ip, fp, tabs, work):
    """Run at most ``work`` actions (open a frame, start a split, take a child's result, close a frame).

    Returns RUNNING, DONE (the root is resolved: ``st[S_ROOTKIND]``, ``fp[F_ROOTVAL]``), NODE_LIMIT or
    NEED_MEMORY (the memo cannot take one more entry; nothing was changed).  ``tabs``: what the depth-2
    solver keeps (see :data:`Tables`)."""
    cap_entries = memo.lb.shape[0]
    cap_slots = memo.used.shape[0]
    fi, fv = stk.fi, stk.fv
    for _ in range(work):
        k = st[S_TOP]
        if k < 0:
            return DONE
        if st[S_NENT] + 1 > cap_entries or 2 * (st[S_NENT] + 1) > cap_slots:
            return NEED_MEMORY
        kind, v = 0, 0.0
        ph = fi[k, FR_PHASE]
        if ph == OPEN:
            if st[S_NODES] >= ip[P_NODELIMIT]:
                return NODE_LIMIT
            kind, v = _open(k, data, memo, stk, st, ip, fp, tabs)
        elif ph == LOOP:
            j = fi[k, FR_CURSOR]
            nf = fi[k, FR_NFEAT]
            best = fv[k, FV_BEST]
            while j < nf and stk.lbs[k, LBF, j] >= best:
                j += 1
            if j >= nf:
                kind, v = _close(k, memo, stk)
            else:
                fi[k, FR_CURSOR] = j
                first = _first_child(k, j, data, stk)
                fi[k, FR_START] = first
                fv[k, FV_STEP] = 2.0 * fp[F_LAMN] if ip[P_DEEPEN] != 0 else np.inf
                _probe(k, j, first, data, stk, st)
        if kind != 0:
            # frame k is resolved: hand the result to its parent
            st[S_TOP] = k - 1
            if k == 0:
                st[S_ROOTKIND] = kind
                fp[F_ROOTVAL] = v
                return DONE
            _child_done(k - 1, kind, v, data, stk, st, ip)
    return RUNNING
