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
the bound asked) leaves a lower bound that later visits reuse.  Bounds per subproblem, each with its source:

* leaf / split floor: :func:`leaf_is_exact` (OSDT Thm 3.3 in its strengthened code form, and Thm B.2);
* one-step lookahead with equivalent points: :func:`lookahead_bound` (OSDT Lemma 3.2 + Thm B.2);
* leaf accurate support: :func:`split_is_inaccurate` (OSDT Thm 3.5);
* incremental accuracy: :func:`incremental_accuracy_bound` (OSDT Thm 3.4);
* similar support: :func:`similar_support_bound` (OSDT Thm F.1; GOSDT, Lin et al. 2020, Thm "similar support");
* small subproblems: a tree cheaper than a leaf has fewer than ``(errors - minority) / lambda N + 1`` leaves (OSDT
  Thm C.1 applied to the subproblem), so one with at most 3 leaves has depth <= 2 and goes to the depth-2 solver
  (:func:`optbb.osdt.depth2.depth2`, pair counts), as does every subproblem with a depth budget of 2.

Sample weights: every count is a weighted count in integer weight units (``errors`` is the weight of the
misclassified samples, ``N`` the total weight, see :func:`optbb.osdt.dp_search.weight_layers`): the samples are
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

from ..common.bitset import hash_words, popcount64
from ..common.hashtable import ht_find, ht_put
from ..common.jit import njit
from .depth2 import AUTO, accumulate_pair_counts, depth2, depth2_from_counts, split_counts_into

UNLIMITED = 1 << 30  # depth budget without max_depth
# frame phases
OPEN, LOOP, WAIT_A, WAIT_B = 0, 1, 2, 3
# results handed from a child to its parent
SUCCESS, FAIL = 1, 2
# chunk return codes
RUNNING, DONE, NODE_LIMIT, NEED_MEMORY = 0, 1, 2, 3
# int64 state
S_TOP, S_NODES, S_NENT, S_IMPROV, S_ROOTKIND, S_DEPTH2, S_MAXTOP, S_IMPNODES, S_HITS, S_DEPTH2_FAIL, \
    S_TFRAME, S_TFEAT = range(12)
N_STATE = 12
# int parameters
P_N, P_M, P_K, P_D, P_SIMILAR, P_SMALL, P_NODELIMIT = range(7)
N_IPARAMS = 7
# float state
F_LAMN, F_ROOTVAL = range(2)
N_FSTATE = 2

# ``ybits[c * L + l]``: samples of class ``c`` in weight layer ``l``; ``zbits[l]``: equivalent-points minority in
# layer ``l``; ``wbits[l]``: layer ``l``; ``mult[l]``: its integer weight (int64).  Unweighted data: one layer of
# weight 1, ``mult`` a uint8 array (see :func:`is_weighted`).
Data = namedtuple("Data", "xbits ybits zbits wbits mult")
Memo = namedtuple("Memo", "keys hashes used fval ival lb ub feat")
# pair-count tables of a depth-3 frame (``parent``) and of the two children of its split in progress
Tables = namedtuple("Tables", "parent parent_t left left_t right right_t")
Stack = namedtuple("Stack", "sup d ub best leaf ca entry cursor phase bestf nfeat first minskip order lb0 lb1 lbf "
                            "keybuf cnt tmp scratch0 scratch1")


# ----------------------------------------------------------------------------------------------------------------
# counting
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def majority(cnt):
    """``(label, errors)`` of a majority-vote leaf over class counts ``cnt``; ties go to the largest label (for two
    classes: a tie predicts 1, as the leaf-set search and the reference OSDT do)."""
    best, lab, n = -1, 0, 0
    for c in range(cnt.shape[0]):
        n += cnt[c]
        if cnt[c] >= best:
            best, lab = cnt[c], c
    return lab, n - best


def is_weighted(mult) -> bool:
    """True for weighted data, known when a kernel is compiled: the layer weights ``mult`` of weighted data are
    int64, those of unweighted data one uint8 ``1``, so each compiled kernel keeps only its own counting loop."""
    return np.asarray(mult).dtype != np.uint8


@overload(is_weighted, inline="always")
def _is_weighted_typed(mult):
    flag = mult.dtype != types.uint8
    return lambda mult: flag


@njit(cache=True, inline="always")
def word_weight(w, bits, row0, i, mult):
    """Weight of the samples of word ``w`` (word ``i`` of a support) in rows ``row0 .. row0 + L - 1`` of ``bits``
    (the ``L`` weight layers of one class): ``sum_l mult[l] * popcount(w & bits[row0 + l, i])``."""
    s = 0
    for l in range(mult.shape[0]):
        s += mult[l] * popcount64(w & bits[row0 + l, i])
    return s


@njit(cache=True)
def _weighted_counts(S, xf, data, cnt):
    """Class weights of ``S & xf`` into ``cnt`` (``L > 1`` weight layers); returns ``(n, z)``."""
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
            cnt[c] += word_weight(w, ybits, c * L, i, mult)
        z += word_weight(w, zbits, 0, i, mult)
    n = 0
    for c in range(cnt.shape[0]):
        n += cnt[c]
    return n, z


@njit(cache=True, inline="always")
def child_counts(S, xf, data, cnt):
    """Class counts (weights) of ``S & xf`` into ``cnt`` in one pass over the words; returns ``(n, z)``."""
    if is_weighted(data.mult):
        return _weighted_counts(S, xf, data, cnt)
    ybits, zbits = data.ybits, data.zbits
    for c in range(cnt.shape[0]):
        cnt[c] = 0
    z = 0
    for i in range(S.shape[0]):
        w = S[i] & xf[i]
        if w == 0:
            continue
        for c in range(cnt.shape[0]):
            cnt[c] += popcount64(w & ybits[c, i])
        z += popcount64(w & zbits[0, i])
    n = 0
    for c in range(cnt.shape[0]):
        n += cnt[c]
    return n, z


@njit(cache=True, inline="always")
def support_counts(S, data, cnt):
    """Class counts (weights) of support ``S`` into ``cnt``; returns ``(n, z)``, ``z`` the equivalent-points
    minority."""
    return child_counts(S, S, data, cnt)


@njit(cache=True)
def _weighted_mask(S, a, b, mode, data):
    """Weight of ``S`` (mode 0), ``S & a`` (mode 1) or ``S & (a ^ b)`` (mode 2) over ``L > 1`` weight layers."""
    n = 0
    for i in range(S.shape[0]):
        w = S[i] if mode == 0 else (S[i] & a[i] if mode == 1 else S[i] & (a[i] ^ b[i]))
        if w != 0:
            n += word_weight(w, data.wbits, 0, i, data.mult)
    return n


@njit(cache=True, inline="always")
def support_weight(S, data):
    """Weight of support ``S`` (its number of samples when unweighted)."""
    if is_weighted(data.mult):
        return _weighted_mask(S, S, S, 0, data)
    n = 0
    for i in range(S.shape[0]):
        n += popcount64(S[i])
    return n


@njit(cache=True, inline="always")
def support_weight_and(S, xf, data):
    """Weight of ``S & xf``."""
    if is_weighted(data.mult):
        return _weighted_mask(S, xf, xf, 1, data)
    n = 0
    for i in range(S.shape[0]):
        n += popcount64(S[i] & xf[i])
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


@njit(cache=True, inline="always")
def weight_and_xor(S, a, b, data):
    """Weight of ``S & (a ^ b)``: the samples of ``S`` on which features ``a`` and ``b`` disagree."""
    if is_weighted(data.mult):
        return _weighted_mask(S, a, b, 2, data)
    c = 0
    for i in range(S.shape[0]):
        c += popcount64(S[i] & (a[i] ^ b[i]))
    return c


# ----------------------------------------------------------------------------------------------------------------
# bounds (error units: errors + lambda N per leaf)
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def leaf_is_exact(errors, z, lam_n):
    """The leaf is an optimal subtree when splitting cannot pay for itself: ``errors <= lambda N`` (OSDT Thm 3.3 in
    the reference code's form: a split removes at most ``errors`` mistakes and adds a leaf) or ``errors == z``, the
    equivalent-points minority (OSDT Thm B.2: no tree makes fewer mistakes on this support)."""
    return errors <= lam_n or errors == z


@njit(cache=True, inline="always")
def lookahead_bound(errors, z, lam_n):
    """Lower bound on the optimum of a support: the leaf, or a split, which has at least 2 leaves and at least the
    equivalent-points minority ``z`` of mistakes (OSDT Lemma 3.2, one-step lookahead, with Thm B.2)."""
    return min(errors + lam_n, z + 2.0 * lam_n)


@njit(cache=True, inline="always")
def split_is_inaccurate(n_child, errors_child, lam_n):
    """Leaf accurate support (OSDT Thm 3.5): in a fewest-leaves optimal tree every leaf classifies more than
    ``lambda N`` samples correctly, and a leaf below a child classifies at most the child's majority count
    correctly, so a split with a child whose majority count is ``<= lambda N`` is never needed."""
    return n_child - errors_child <= lam_n


@njit(cache=True, inline="always")
def incremental_accuracy_bound(lb0, lb1, s0, s1):
    """Incremental accuracy (OSDT Thm 3.4): when the split gains at most ``lambda N`` over the parent leaf, keeping
    both children as leaves never beats the parent leaf, so one child must split: the split costs at least
    ``min(s0 + lb1, lb0 + s1)``, ``s`` the split bound of a child (``inf`` if it cannot split)."""
    return min(s0 + lb1, lb0 + s1)


@njit(cache=True, inline="always")
def similar_support_bound(lb_known, n_differing):
    """Similar support bound (OSDT Thm F.1, Eq. 19; GOSDT): a tree for support ``A`` applied to ``B`` changes the
    cost by at most one mistake per sample in the symmetric difference, so ``opt(B) >= lb(A) - |A xor B|`` (with
    weights: the weight of the symmetric difference)."""
    return lb_known - n_differing


# ----------------------------------------------------------------------------------------------------------------
# exact solvers for small budgets
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def solve_depth1(S, n, cnt, z, data, lam_n, tmp):
    """Exact optimum over trees of depth <= 1 on support ``S``: ``(cost, feature)``, feature -1 for the leaf."""
    _, e = majority(cnt)
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
    slot = ht_find(memo.keys, memo.hashes, memo.used, keybuf, h)
    if slot >= 0:
        return memo.ival[slot]
    return -1


@njit(cache=True, inline="always")
def _memo_insert(memo, st, keybuf, S, d, lb, ub):
    h = _make_key(keybuf, S, d)
    slot = ht_find(memo.keys, memo.hashes, memo.used, keybuf, h)
    if slot >= 0:
        return memo.ival[slot]
    eid = st[S_NENT]
    st[S_NENT] = eid + 1
    ht_put(memo.keys, memo.hashes, memo.used, memo.fval, memo.ival, slot, keybuf, h, 0.0, eid)
    memo.lb[eid] = lb
    memo.ub[eid] = ub
    memo.feat[eid] = -1
    return eid


@njit(cache=True, inline="always")
def _child_depth(d):
    return d if d >= UNLIMITED else d - 1


# ----------------------------------------------------------------------------------------------------------------
# the search
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _open(k, data, memo, stk, st, ip, fp, tabs):
    """Open frame ``k``: resolve it at once (returns ``(SUCCESS|FAIL, value)``) or prepare its split loop
    (returns ``(0, 0)``).  ``SUCCESS`` means an exact optimum below the frame's bound, ``FAIL`` a lower bound at
    or above it."""
    lam_n = fp[F_LAMN]
    S, d, UB = stk.sup[k], stk.d[k], stk.ub[k]
    cnt, tmp = stk.cnt[k], stk.tmp[k]
    n, z = support_counts(S, data, cnt)
    _, e = majority(cnt)
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
    if d == 2 or (ip[P_SMALL] != 0 and e - z <= 3.0 * lam_n):  # at most 3 leaves: depth <= 2 (Thm C.1)
        st[S_DEPTH2] += 1
        v, f, _, _ = _solve_depth2(k, S, data, stk, st, tabs, lam_n)
        if eid < 0:
            eid = _memo_insert(memo, st, stk.keybuf, S, d, v, v)
        memo.lb[eid] = v
        memo.ub[eid] = v
        memo.feat[eid] = f
        if v >= UB:
            st[S_DEPTH2_FAIL] += 1
        return (SUCCESS, v) if v < UB else (FAIL, v)
    if eid < 0:
        eid = _memo_insert(memo, st, stk.keybuf, S, d, lbS, leaf)
    stk.entry[k] = eid
    # per-feature bounds of the split
    cd = _child_depth(d)
    xbits = data.xbits
    K = cnt.shape[0]
    tmp2 = stk.tmp[k + 1]
    order, lb0a, lb1a, lbfa = stk.order[k], stk.lb0[k], stk.lb1[k], stk.lbf[k]
    s0buf, s1buf = stk.scratch0[k], stk.scratch1[k]
    nf = 0
    minskip = np.inf
    for f in range(xbits.shape[0]):
        n1, z1 = child_counts(S, xbits[f], data, tmp)
        if n1 == 0 or n1 == n:
            continue
        for c in range(K):
            tmp2[c] = cnt[c] - tmp[c]
        n0, z0 = n - n1, z - z1
        _, e1 = majority(tmp)
        _, e0 = majority(tmp2)
        if split_is_inaccurate(n0, e0, lam_n) or split_is_inaccurate(n1, e1, lam_n):
            continue
        ex0 = cd == 0 or leaf_is_exact(e0, z0, lam_n)
        ex1 = cd == 0 or leaf_is_exact(e1, z1, lam_n)
        lb0 = (e0 + lam_n) if ex0 else lookahead_bound(e0, z0, lam_n)
        lb1 = (e1 + lam_n) if ex1 else lookahead_bound(e1, z1, lam_n)
        sp0 = np.inf if ex0 else z0 + 2.0 * lam_n
        sp1 = np.inf if ex1 else z1 + 2.0 * lam_n
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
        if e - e0 - e1 <= lam_n:
            lbf = max(lbf, incremental_accuracy_bound(lb0, lb1, sp0, sp1))
        if lbf >= UB:
            minskip = min(minskip, lbf)
            continue
        order[nf] = f
        lb0a[nf], lb1a[nf], lbfa[nf] = lb0, lb1, lbf
        nf += 1
    frame_lb = min(leaf, minskip)
    for j in range(nf):
        frame_lb = min(frame_lb, lbfa[j])
    if frame_lb > memo.lb[eid]:
        memo.lb[eid] = frame_lb
    if frame_lb >= UB:
        return FAIL, frame_lb
    # best-first order of the splits (stable: ties keep the feature order)
    idx = np.argsort(lbfa[:nf], kind="mergesort")
    o2, l0, l1, lf = order[:nf].copy(), lb0a[:nf].copy(), lb1a[:nf].copy(), lbfa[:nf].copy()
    for j in range(nf):
        order[j], lb0a[j], lb1a[j], lbfa[j] = o2[idx[j]], l0[idx[j]], l1[idx[j]], lf[idx[j]]
    stk.nfeat[k] = nf
    stk.cursor[k] = 0
    stk.leaf[k] = leaf
    stk.minskip[k] = minskip
    if leaf < UB:
        stk.best[k], stk.bestf[k] = leaf, -1
    else:
        stk.best[k], stk.bestf[k] = UB, -2
    stk.phase[k] = LOOP
    if d == 3 and tabs.parent.shape[1] == xbits.shape[0]:
        _table_of(k, S, data, st, tabs)
    return 0, 0.0


@njit(cache=True, inline="always")
def _table_of(k, S, data, st, tabs):
    """Pair-count table of the support of depth-3 frame ``k``: its children's tables then cost one count of the
    smaller child each (the other is the difference)."""
    tabs.parent[:, :, :] = 0
    tabs.parent_t[:] = 0
    accumulate_pair_counts(tabs.parent, tabs.parent_t, data.xbits, data.ybits, S, 1, AUTO, data.mult)
    st[S_TFRAME] = k
    st[S_TFEAT] = -1


@njit(cache=True, inline="always")
def _solve_depth2(k, S, data, stk, st, tabs, lam_n):
    """The depth-2 solver (:mod:`optbb.osdt.depth2`) on the support of frame ``k``: ``(cost, f, f_left,
    f_right)``.  A child of the depth-3 frame holding a count table reads its own table from it."""
    if k >= 1 and st[S_TFRAME] == k - 1:
        p = k - 1
        f = stk.order[p, stk.cursor[p]]
        side = stk.first[p] if stk.phase[p] == WAIT_A else 1 - stk.first[p]
        if st[S_TFEAT] != f:
            split_counts_into(data.xbits, data.ybits, stk.sup[p], tabs.parent, tabs.parent_t, f, tabs.left,
                              tabs.left_t, tabs.right, tabs.right_t, data.mult)
            st[S_TFEAT] = f
        if side == 0:
            v, _, g, gl, gr = depth2_from_counts(tabs.left, tabs.left_t, lam_n)
        else:
            v, _, g, gl, gr = depth2_from_counts(tabs.right, tabs.right_t, lam_n)
        return v, g, gl, gr
    v, _, g, gl, gr = depth2(data.xbits, data.ybits, S, lam_n, data.mult)
    return v, g, gl, gr


@njit(cache=True, inline="always")
def _push(k, child_value, stk, xf, ub, st):
    """Push the child ``x_f = child_value`` of frame ``k`` as frame ``k + 1`` with bound ``ub``."""
    split_into(stk.sup[k + 1], stk.sup[k], xf, child_value)
    stk.d[k + 1] = _child_depth(stk.d[k])
    stk.ub[k + 1] = ub
    stk.phase[k + 1] = OPEN
    st[S_TOP] = k + 1
    if k + 1 > st[S_MAXTOP]:
        st[S_MAXTOP] = k + 1


@njit(cache=True)
def _finish_feature(k, j, data, stk, ip):
    """Feature at position ``j`` of frame ``k`` is done: tighten the later features' child bounds with the
    similar support bound (the ``x_f = 0`` child against both children of every later feature ``g``)."""
    lbf = stk.lbf[k]
    lb0, lb1 = stk.lb0[k], stk.lb1[k]
    lbf[j] = max(lbf[j], lb0[j] + lb1[j])
    stk.cursor[k] = j + 1
    stk.phase[k] = LOOP
    if ip[P_SIMILAR] == 0:
        return
    S = stk.sup[k]
    n = support_weight(S, data)
    a0, a1 = lb0[j], lb1[j]
    best = stk.best[k]
    # only worth a pass when a known child bound could lift some later split past the incumbent
    if max(a0, a1) <= 0.0:
        return
    xbits = data.xbits
    xf = xbits[stk.order[k, j]]
    for jj in range(j + 1, stk.nfeat[k]):
        if lbf[jj] >= best:
            continue
        diff = weight_and_xor(S, xf, xbits[stk.order[k, jj]], data)
        same = n - diff
        v0 = max(similar_support_bound(a0, diff), similar_support_bound(a1, same))
        v1 = max(similar_support_bound(a1, diff), similar_support_bound(a0, same))
        if v0 > lb0[jj]:
            lb0[jj] = v0
        if v1 > lb1[jj]:
            lb1[jj] = v1
        if lb0[jj] + lb1[jj] > lbf[jj]:
            lbf[jj] = lb0[jj] + lb1[jj]


@njit(cache=True, inline="always")
def _first_child(k, j, data, stk):
    """Which child of split ``j`` of frame ``k`` to solve first: the one with the larger bound, on a tie the larger
    support (more errors to remove: it is the likelier to fail its bound, which saves solving its sibling)."""
    a, b = stk.lb0[k, j], stk.lb1[k, j]
    if a != b:
        return 0 if a > b else 1
    S, xf = stk.sup[k], data.xbits[stk.order[k, j]]
    n, n1 = support_weight(S, data), support_weight_and(S, xf, data)
    return 0 if n - n1 >= n1 else 1


@njit(cache=True, inline="always")
def _child_done(k, kind, v, data, stk, st, ip):
    """Frame ``k`` receives its child's result."""
    j = stk.cursor[k]
    first = stk.first[k]
    lbA = stk.lb0[k] if first == 0 else stk.lb1[k]
    lbB = stk.lb1[k] if first == 0 else stk.lb0[k]
    if stk.phase[k] == WAIT_A:
        if kind == FAIL:
            if v > lbA[j]:
                lbA[j] = v
            _finish_feature(k, j, data, stk, ip)
            return
        lbA[j] = v
        stk.ca[k] = v
        if v + lbB[j] >= stk.best[k]:
            _finish_feature(k, j, data, stk, ip)
            return
        stk.phase[k] = WAIT_B
        _push(k, 1 - first, stk, data.xbits[stk.order[k, j]], stk.best[k] - v, st)
        return
    # WAIT_B
    if kind == SUCCESS:
        lbB[j] = v
        total = stk.ca[k] + v
        if total < stk.best[k]:
            stk.best[k] = total
            stk.bestf[k] = stk.order[k, j]
            if k == 0:
                st[S_IMPROV] += 1
                st[S_IMPNODES] = st[S_NODES]
    elif v > lbB[j]:
        lbB[j] = v
    _finish_feature(k, j, data, stk, ip)


@njit(cache=True, inline="always")
def _close(k, memo, stk):
    """All splits of frame ``k`` are done: an exact optimum if one beat the frame's bound, else a lower bound."""
    eid = stk.entry[k]
    if stk.bestf[k] != -2:
        v = stk.best[k]
        memo.lb[eid] = v
        memo.ub[eid] = v
        memo.feat[eid] = stk.bestf[k]
        return SUCCESS, v
    v = min(stk.leaf[k], stk.minskip[k])
    for j in range(stk.nfeat[k]):
        v = min(v, stk.lbf[k, j])
    if v > memo.lb[eid]:
        memo.lb[eid] = v
    return FAIL, v


@njit(cache=True)
def run(data, memo, stk, st, ip, fp, tabs, work):
    """Run at most ``work`` actions (open a frame, start a split, take a child's result, close a frame).

    Returns RUNNING, DONE (the root is resolved: ``st[S_ROOTKIND]``, ``fp[F_ROOTVAL]``), NODE_LIMIT or
    NEED_MEMORY (the memo cannot take one more entry; nothing was changed)."""
    cap_entries = memo.lb.shape[0]
    cap_slots = memo.used.shape[0]
    for _ in range(work):
        k = st[S_TOP]
        if k < 0:
            return DONE
        if st[S_NENT] + 1 > cap_entries or 2 * (st[S_NENT] + 1) > cap_slots:
            return NEED_MEMORY
        kind, v = 0, 0.0
        ph = stk.phase[k]
        if ph == OPEN:
            if st[S_NODES] >= ip[P_NODELIMIT]:
                return NODE_LIMIT
            kind, v = _open(k, data, memo, stk, st, ip, fp, tabs)
        elif ph == LOOP:
            j = stk.cursor[k]
            nf = stk.nfeat[k]
            best = stk.best[k]
            while j < nf and stk.lbf[k, j] >= best:
                j += 1
            if j >= nf:
                kind, v = _close(k, memo, stk)
            else:
                stk.cursor[k] = j
                first = _first_child(k, j, data, stk)
                stk.first[k] = first
                other = stk.lb1[k, j] if first == 0 else stk.lb0[k, j]
                stk.phase[k] = WAIT_A
                _push(k, first, stk, data.xbits[stk.order[k, j]], best - other, st)
        if kind != 0:
            # frame k is resolved: hand the result to its parent
            st[S_TOP] = k - 1
            if k == 0:
                st[S_ROOTKIND] = kind
                fp[F_ROOTVAL] = v
                return DONE
            _child_done(k - 1, kind, v, data, stk, st, ip)
    return RUNNING


@njit(cache=True)
def global_lower_bound(data, stk, st, fp):
    """A lower bound on the root's optimum (error units) from the frames on the stack: each frame's value is the
    least of its best tree so far (or its bound), the bounds of its splits not yet tried and, for the split in
    progress, the value of the child frame above it plus the sibling's bound."""
    top = st[S_TOP]
    if top < 0:
        return fp[F_ROOTVAL] if st[S_ROOTKIND] == SUCCESS else fp[F_ROOTVAL]
    lam_n = fp[F_LAMN]
    val = 0.0
    for k in range(top, -1, -1):
        ph = stk.phase[k]
        if ph == OPEN:
            n, z = support_counts(stk.sup[k], data, stk.tmp[k])
            _, e = majority(stk.tmp[k])
            v = min(lookahead_bound(e, z, lam_n), stk.ub[k])
        else:
            v = stk.best[k]
            j0 = stk.cursor[k]
            if ph == WAIT_A or ph == WAIT_B:
                j = j0
                first = stk.first[k]
                if ph == WAIT_A:
                    other = stk.lb1[k, j] if first == 0 else stk.lb0[k, j]
                    v = min(v, val + other)
                else:
                    v = min(v, stk.ca[k] + val)
                j0 += 1
            for j in range(j0, stk.nfeat[k]):
                if stk.lbf[k, j] < v:
                    v = stk.lbf[k, j]
        val = v
    return val


@njit(cache=True)
def init_root(data, stk, st, ip, fp, ub):
    """Frame 0: every sample, the full depth budget, bound ``ub`` (the incumbent's cost)."""
    W = stk.sup.shape[1]
    n = ip[P_N]
    for i in range(W):
        stk.sup[0, i] = ~np.uint64(0)
    rem = n - (W - 1) * 64
    if rem < 64:
        stk.sup[0, W - 1] = (np.uint64(1) << np.uint64(rem)) - np.uint64(1)
    stk.d[0] = ip[P_D]
    stk.ub[0] = ub
    stk.phase[0] = OPEN
    st[S_TOP] = 0
