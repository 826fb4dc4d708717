"""The OSDT branch-and-bound loop in Numba (Hu, Rudin & Seltzer 2019, Algorithm 1 with the reference's choices).

A queue entry is a tree (a leaf set in the Tree cache) plus a split mask over its leaves: the entry stands for every
tree obtained by splitting exactly the masked leaves (and then possibly their descendants).  Popping an entry
enumerates one split feature per masked leaf; each resulting child tree is evaluated once (Tree cache), may become
the incumbent, and pushes one entry per admissible split mask over its new leaves.  Leaves left unsplit stay leaves
forever, so the leaves a tree may split are exactly its deepest leaves, and a leaf set fixes its own entries.

The loop runs in chunks (``max_pops`` pops) and returns to Python, which checks time, interrupts and memory and
grows the arrays.  When a structure is full in the middle of an expansion, the kernel returns a NEED_* code and
the expansion resumes at the same feature combination: nothing partial is committed.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from ...common.jit import njit

from ...common.bitset import popcount64
from ...common.bounds import objective_value
from ...common.keyindex import find_span, index_put
from ...common.queue import CURIOSITY, ENTROPY, GINI, LOWER_BOUND, OBJECTIVE, heap_pop, heap_push
from ..bounds import (binary_entropy, entry_bound, gini_impurity, leaf_accuracy_too_small, leaf_count_bound,
                     split_needs_refinement)
from .caches import (NEED_ENTRIES, NEED_LEAVES, NEED_SCRATCH, NEED_TREES, init_root_leaf, leaf_lookup_or_create,
                     tree_hash)

# int64 state vector
S_NLEAVES, S_NTREES, S_TLUSED, S_HEAP, S_ETAIL, S_FREE, S_SEQ, S_COUNT, S_POPS, S_RESUME, S_INC, S_COUNT_OPT, \
    S_MAXHEAP, S_NEED, S_NEED2, S_WORK, S_WORKMAX, S_NIMPROVE = range(18)
N_STATE = 18
# int parameters
P_N, P_M, P_MAXDEPTH, P_MAXLEAVES, P_POLICY, P_SUPPORT, P_INCR, P_ACCU, P_LOOKAHEAD, P_EQUIV, P_LEAFBOUND, \
    P_COUNTLIMIT, P_LMAX = range(13)
N_IPARAMS = 13
# float parameters / state
F_LAM, F_LAMN, F_RC = range(3)

DONE, CHUNK_END, COUNT_LIMIT, NEED_WORKSPACE = 0, 5, 6, 7
_TOL = 1e-12


class Workspace(NamedTuple):
    """Scratch arrays of one expansion (:func:`_expand`), allocated by :func:`new_workspace` for trees of fewer than
    ``lmax`` leaves and replaced by a larger one when a larger tree is expanded (``NEED_WORKSPACE``).
    ``s`` leaves split at once make ``2 s`` new leaves, forming ``s`` pairs; ``cap = 2 lmax + 4`` bounds ``s``."""

    masked: np.ndarray      # (cap,) ids of the leaves being split
    unchanged: np.ndarray   # (cap,) ids of the leaves kept
    cand0: np.ndarray       # (cap, m) per split leaf and candidate feature: the child with x_f = 0
    cand1: np.ndarray       # (cap, m) ... and with x_f = 1
    ncand: np.ndarray       # (cap,) number of candidate features per split leaf
    newids: np.ndarray      # (2 cap,) new leaf ids of one combination, sorted
    neworig: np.ndarray     # (2 cap,) their position before sorting
    newpos: np.ndarray      # (2 cap,) per new leaf (pair member, before sorting): its position in the child tree
    child: np.ndarray       # (3 cap,) sorted leaf ids of the child tree (its Tree cache key)
    hbuf: np.ndarray        # (3 cap,) uint64 copy of the key for hashing
    spl: np.ndarray         # (2 cap,) per new leaf: whether it may be split
    flag: np.ndarray        # (cap,) per pair: the incremental accuracy bound asks for a refinement
    perr: np.ndarray        # (2 cap,) per new leaf: errors
    pb0: np.ndarray         # (2 cap,) ... equivalent-points minority
    pncap: np.ndarray       # (2 cap,) ... captured samples
    phn: np.ndarray         # (2 cap,) ... entropy / Gini weight (policies "entropy", "gini")
    wmask: np.ndarray       # (mask_words,) split mask being enumerated
    optv: np.ndarray        # (cap + 1,) option chosen per pair while enumerating masks
    best: np.ndarray        # (cap + 1,) best gain per pair
    suffix: np.ndarray      # (cap + 2,) suffix sums of ``best``
    key_buf: np.ndarray     # (2 key_words,) leaf key under construction
    counts: np.ndarray      # (1,) number of leaves in the Leaf cache
    ucost: np.ndarray       # (cap, m) per split leaf and candidate: lower bound of the split's cost
    umin: np.ndarray        # (cap + 1,) suffix sums of the cheapest costs
    pgain: np.ndarray       # (2 cap,) per new leaf: bound drop when it is split later
    psc: np.ndarray         # (2 cap,) ... its two-level split floor


def workspace_shapes(lmax: int, n_features: int, mask_words: int, key_words: int) -> list[tuple[tuple, type]]:
    """Shapes and dtypes of the :class:`Workspace` fields, in order (to size it before allocating it)."""
    cap = 2 * lmax + 4
    m = max(n_features, 1)
    i, f, b, u = np.int64, np.float64, np.bool_, np.uint64
    return [((cap,), i), ((cap,), i), ((cap, m), i), ((cap, m), i), ((cap,), i), ((2 * cap,), i), ((2 * cap,), i),
            ((2 * cap,), i), ((3 * cap,), i), ((3 * cap,), u), ((2 * cap,), b), ((cap,), b),
            ((2 * cap,), i), ((2 * cap,), i), ((2 * cap,), i), ((2 * cap,), f), ((mask_words,), u),
            ((cap + 1,), i), ((cap + 1,), f), ((cap + 2,), f), ((2 * key_words,), u), ((1,), i), ((cap, m), f),
            ((cap + 1,), f), ((2 * cap,), f), ((2 * cap,), f)]


def workspace_lmax(w: Workspace) -> int:
    """The ``lmax`` a workspace was built for: it serves the expansion of trees of fewer than ``lmax`` leaves."""
    return (w.masked.shape[0] - 4) // 2


def digits_len(lmax: int) -> int:
    """Length of the combination counter (one digit per split leaf) that goes with a workspace for ``lmax``."""
    return 2 * lmax + 4


def workspace_bytes(lmax: int, n_features: int, mask_words: int, key_words: int) -> int:
    return int(sum(np.prod(shape) * np.dtype(dt).itemsize
                   for shape, dt in workspace_shapes(lmax, n_features, mask_words, key_words)))


def new_workspace(lmax: int, n_features: int, mask_words: int, key_words: int) -> Workspace:
    return Workspace(*(np.zeros(shape, dt) for shape, dt in workspace_shapes(lmax, n_features, mask_words,
                                                                              key_words)))


@njit(cache=True)
def _free_features(leaves, lid, n_features):
    """Number of features a leaf could still split on (not on its path, not dead)."""
    key, dead_feat = leaves.key, leaves.dead_features
    kw = dead_feat.shape[1]
    used = 0
    for i in range(kw):
        used += popcount64(key[lid, i] | key[lid, kw + i] | dead_feat[lid, i])
    return n_features - used


@njit(cache=True)
def _splittable(leaves, lid, ip):
    return leaves.depth[lid] < ip[P_MAXDEPTH] and not leaves.dead[lid] and _free_features(leaves, lid, ip[P_M]) > 0


@njit(cache=True)
def _policy_key(policy, lb_err, n_leaves, obj, n_samples, lam, ncap_split, hn_unchanged):
    if policy == CURIOSITY:
        lb = objective_value(lb_err, n_leaves, n_samples, lam)
        if ncap_split >= n_samples:
            return lb / (0.01 / n_samples)
        return lb / ((n_samples - ncap_split) / n_samples)
    if policy == LOWER_BOUND:
        return objective_value(lb_err, n_leaves, n_samples, lam)
    if policy == OBJECTIVE:
        return obj
    if policy == ENTROPY or policy == GINI:
        rest = n_samples - ncap_split
        if rest <= 0:
            return hn_unchanged / 0.01
        return hn_unchanged / rest
    return 0.0  # FIFO: the insertion counter decides


@njit(cache=True)
def _leaf_hn(policy, n_cap, err):
    if n_cap == 0:
        return 0.0
    p = err / n_cap
    if policy == ENTROPY:
        return binary_entropy(p) * n_cap
    if policy == GINI:
        return gini_impurity(p) * n_cap
    return 0.0


@njit(cache=True, inline="always")
def _gain(leaves, lid, la, eq, lam_n):
    """How much the entry bound drops (error units) when leaf ``lid`` is split instead of kept as a leaf: with the
    lookahead, its cost ``err + lambda N`` is replaced by the two-level split floor; without it, only the
    equivalent points bound applies (``err`` replaced by ``b0``)."""
    if la:
        return (leaves.errors[lid] + lam_n) - leaves.floor[lid]
    return leaves.errors[lid] - (leaves.b0[lid] if eq else 0)


@njit(cache=True, inline="always")
def _cheapest_option(base, split0, split1, refine, g0, g1):
    """Smallest ``base`` less the gains (:func:`_gain`) of the leaves split, over the allowed options of a pair of
    new leaves (bit 0 of an option splits the first, bit 1 the second; a leaf may be split only when ``split*``
    holds, and a pair flagged by the incremental accuracy bound, ``refine``, must split one); inf if none is."""
    v = np.inf
    for o in range(4):
        if (o & 1 and not split0) or (o & 2 and not split1) or (o == 0 and refine):
            continue
        val = base
        if o & 1:
            val -= g0
        if o & 2:
            val -= g1
        if val < v:
            v = val
    return v


@njit(cache=True)
def _split_cost(parent, c0, c1, leaves, ip, fp):
    """Lower bound, in error units, on what splitting ``parent`` into ``c0, c1`` adds to both the child tree's
    objective and the prune bound of any entry the child pushes (beyond ``lambda N`` per leaf of the child):
    the pair's errors, less the most the entry bound can drop by splitting either of them further."""
    err, lam_n = leaves.errors, fp[F_LAMN]
    la, eq = ip[P_LOOKAHEAD] != 0, ip[P_EQUIV] != 0
    e_pair = float(err[c0] + err[c1])
    flagged = ip[P_INCR] != 0 and split_needs_refinement(err[parent], err[c0], err[c1], lam_n)
    return min(e_pair, _cheapest_option(e_pair, _splittable(leaves, c0, ip), _splittable(leaves, c1, ip), flagged,
                                        _gain(leaves, c0, la, eq, lam_n), _gain(leaves, c1, la, eq, lam_n)))


@njit(cache=True)
def _enumerate_masks(w, npairs, n_leaves, total_err, total_hn, ip, fp, scratch, st):
    """Write every admissible split mask of a child tree into ``scratch``; returns their number or -1 (full).

    The child tree has ``n_leaves`` leaves, ``total_err`` errors and entropy / Gini weight ``total_hn``; its
    ``npairs`` new pairs of leaves are described by the pair fields of the workspace ``w`` (``spl``, ``flag``,
    ``perr``, ``pb0``, ``pgain``, ``psc``, ``pncap``, ``phn``, positions ``newpos``), which also holds the
    enumeration's scratch (``wmask``, ``optv``, ``best``, ``suffix``).
    Pair ``j`` holds the two leaves made by splitting one leaf; option bits choose which of them to split.
    Admissible: at least one leaf split; both leaves allowed by the support / depth / feature rules; for a pair
    flagged by the incremental accuracy bound at least one of the two split; ``max_leaves``; and the entry's
    bound (hierarchical + equivalent points + lookahead, and the leaf-count bound) below the incumbent."""
    pos, spl, flag, perr, pb0, pgain, psc, pncap, phn = w.newpos, w.spl, w.flag, w.perr, w.pb0, w.pgain, w.psc, \
        w.pncap, w.phn
    wmask, optv, best, suffix = w.wmask, w.optv, w.best, w.suffix
    n_samples, lam, lam_n = ip[P_N], fp[F_LAM], fp[F_LAMN]
    la, eq, lbf, policy = ip[P_LOOKAHEAD] != 0, ip[P_EQUIV] != 0, ip[P_LEAFBOUND] != 0, ip[P_POLICY]
    max_leaves = ip[P_MAXLEAVES]
    obj = objective_value(total_err, n_leaves, n_samples, lam)
    rc = min(fp[F_RC], obj)
    sc_mask, sc_prune, sc_lbnd, sc_key, sc_s = scratch.mask, scratch.prune, scratch.bound, scratch.key, scratch.n_split
    # best achievable gain per pair (error units) for optimistic pruning of the enumeration
    for j in range(npairs):
        least = _cheapest_option(0.0, spl[2 * j], spl[2 * j + 1], flag[j], pgain[2 * j], pgain[2 * j + 1])
        if least == np.inf:
            return 0  # a pair that must be refined cannot be: no admissible mask
        best[j] = -least
    suffix[npairs] = 0.0
    for j in range(npairs - 1, -1, -1):
        suffix[j] = suffix[j + 1] + best[j]
    base = total_err + lam_n * n_leaves
    for i in range(wmask.shape[0]):
        wmask[i] = 0
    k = 0
    cur_gain, cur_err, cur_b0, cur_s, cur_ncap, cur_hn = 0.0, 0, 0, 0, 0, 0.0
    j = 0
    optv[0] = -1
    while j >= 0:
        st[S_WORK] += 1
        o = optv[j]
        if o > 0:
            for b in range(2):
                if o >> b & 1:
                    q = 2 * j + b
                    cur_gain -= pgain[q]
                    cur_err -= perr[q]
                    cur_b0 -= pb0[q]
                    cur_s -= 1
                    cur_ncap -= pncap[q]
                    cur_hn -= phn[q]
                    p = pos[q]
                    wmask[p >> 6] &= ~(np.uint64(1) << np.uint64(p & 63))
        o += 1
        while o <= 3 and ((o & 1 and not spl[2 * j]) or (o & 2 and not spl[2 * j + 1]) or (o == 0 and flag[j])):
            o += 1
        if o > 3:
            j -= 1
            continue
        optv[j] = o
        for b in range(2):
            if o >> b & 1:
                q = 2 * j + b
                cur_gain += pgain[q]
                cur_err += perr[q]
                cur_b0 += pb0[q]
                cur_s += 1
                cur_ncap += pncap[q]
                cur_hn += phn[q]
                p = pos[q]
                wmask[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        if n_leaves + cur_s > max_leaves:
            continue
        if (base - cur_gain - suffix[j + 1]) / n_samples >= rc + _TOL:
            continue
        if j < npairs - 1:
            j += 1
            optv[j] = -1
            continue
        if cur_s == 0:
            continue
        lb_err = total_err - cur_err
        prune = entry_bound(lb_err, cur_b0, n_leaves, cur_s, n_samples, lam, la, eq)
        if lbf:
            prune = max(prune, leaf_count_bound(lb_err, n_leaves, cur_s, n_samples, lam))
        lbnd = objective_value(lb_err + cur_b0, n_leaves + cur_s, n_samples, lam)
        if la:  # two-level lookahead: exact sum over the split leaves, less a margin for rounding
            sc = 0.0
            for jj in range(npairs):
                for b in range(2):
                    if optv[jj] >> b & 1:
                        sc += psc[2 * jj + b]
            deep = (lb_err + lam_n * (n_leaves - cur_s) + sc - 1e-9) / n_samples
            prune = max(prune, deep)
            lbnd = max(lbnd, deep)
        if prune >= rc:
            continue
        if k >= sc_prune.shape[0]:
            return -1
        for i in range(wmask.shape[0]):
            sc_mask[k, i] = wmask[i]
        sc_prune[k] = prune
        sc_lbnd[k] = lbnd
        sc_key[k] = _policy_key(policy, lb_err, n_leaves, obj, n_samples, lam, cur_ncap, total_hn - cur_hn)
        sc_s[k] = cur_s
        k += 1
    return k


@njit(cache=True)
def _release_entry(entries, st, e):
    entries.free[st[S_FREE]] = e
    st[S_FREE] += 1


@njit(cache=True)
def _push_entry(entries, heap, st, tree, scratch, q):
    """Push the entry of tree ``tree`` whose split mask, bounds and policy key are row ``q`` of ``scratch``."""
    if st[S_FREE] > 0:  # an entry id released by _release_entry, else a new one
        st[S_FREE] -= 1
        e = entries.free[st[S_FREE]]
    else:
        e = st[S_ETAIL]
        st[S_ETAIL] += 1
    entries.tree[e] = tree
    for w in range(entries.mask.shape[1]):
        entries.mask[e, w] = scratch.mask[q, w]
    entries.prune[e] = scratch.prune[q]
    entries.bound[e] = scratch.bound[q]
    entries.n_split[e] = scratch.n_split[q]
    st[S_HEAP] = heap_push(heap, st[S_HEAP], scratch.key[q], st[S_SEQ], e)
    st[S_SEQ] += 1
    st[S_COUNT] += 1
    if st[S_HEAP] > st[S_MAXHEAP]:
        st[S_MAXHEAP] = st[S_HEAP]


@njit(cache=True)
def init_search(data, leaves, ltable, trees, ttable, entries, heap, scratch, st, ip, fp):
    """Root leaf, root tree (evaluated as a candidate incumbent) and the root entry (split the root), pushed from
    row 0 of ``scratch``."""
    n_samples, lam = ip[P_N], fp[F_LAM]
    counts = np.zeros(1, dtype=np.int64)
    init_root_leaf(data, leaves, ltable, counts, n_samples, fp[F_LAMN], ip[P_SUPPORT] != 0, ip[P_EQUIV] != 0)
    st[S_NLEAVES] = counts[0]
    toff, tlen, terr, tleaves = trees.offset, trees.length, trees.errors, trees.leaf_ids
    ids = np.zeros(1, dtype=np.int64)
    h = tree_hash(ids, 1, np.zeros(1, dtype=np.uint64))
    index_put(ttable, find_span(ttable, trees, ids, 1, h), 0)
    toff[0], tlen[0], terr[0], tleaves[0], trees.hash[0] = 0, 1, leaves.errors[0], 0, h
    st[S_NTREES], st[S_TLUSED] = 1, 1
    obj = objective_value(leaves.errors[0], 1, n_samples, lam)
    if obj < fp[F_RC]:
        fp[F_RC] = obj
        st[S_INC] = 0
        st[S_NIMPROVE] += 1
    if ip[P_MAXLEAVES] >= 2 and _splittable(leaves, 0, ip):
        b0 = leaves.b0[0]
        prune = entry_bound(0, b0, 1, 1, n_samples, lam, ip[P_LOOKAHEAD] != 0, ip[P_EQUIV] != 0)
        if ip[P_LEAFBOUND] != 0:
            prune = max(prune, leaf_count_bound(0, 1, 1, n_samples, lam))
        lbnd = objective_value(b0, 2, n_samples, lam)
        if ip[P_LOOKAHEAD] != 0:
            deep = (leaves.floor[0] - 1e-9) / n_samples
            prune = max(prune, deep)
            lbnd = max(lbnd, deep)
        if prune < fp[F_RC]:
            scratch.mask[0, :] = 0
            scratch.mask[0, 0] = 1
            scratch.prune[0], scratch.bound[0], scratch.n_split[0], scratch.key[0] = prune, lbnd, 1, 0.0
            _push_entry(entries, heap, st, 0, scratch, 0)


@njit(cache=True)
def frontier_bound(entries, heap, st):
    """Smallest proven bound over the queue and the entry being expanded (inf if none)."""
    en_lbnd = entries.bound
    hitem = heap.item
    b = np.inf
    for i in range(st[S_HEAP]):
        v = en_lbnd[hitem[i]]
        if v < b:
            b = v
    if st[S_RESUME] >= 0 and en_lbnd[st[S_RESUME]] < b:
        b = en_lbnd[st[S_RESUME]]
    return b


@njit(cache=True)
def _advance(digits, ncand, last):
    """Odometer step on ``digits[0..last]`` (digit i counts to ``ncand[i]``); False once it wraps around."""
    i = last
    while i >= 0:
        digits[i] += 1
        if digits[i] < ncand[i]:
            return True
        digits[i] = 0
        i -= 1
    return False


@njit(cache=True)
def _expand(item, data, leaves, ltable, trees, ttable, entries, heap, scratch, st, ip, fp, digits, w):
    """Enumerate the children of queue entry ``item`` from combination ``digits``; 0 when finished, else NEED_* or
    COUNT_LIMIT (the node limit reached between two insertions; the search ends there)."""
    masked, unchanged, cand0, cand1, ncand = w.masked, w.unchanged, w.cand0, w.cand1, w.ncand
    newids, neworig, newpos, child, hbuf = w.newids, w.neworig, w.newpos, w.child, w.hbuf
    spl, flag, perr, pb0, pncap, phn = w.spl, w.flag, w.perr, w.pb0, w.pncap, w.phn
    key_buf, counts = w.key_buf, w.counts
    ucost, umin, pgain, psc = w.ucost, w.umin, w.pgain, w.psc
    n_samples, n_features, lam, lam_n = ip[P_N], ip[P_M], fp[F_LAM], fp[F_LAMN]
    policy = ip[P_POLICY]
    accu, incr = ip[P_ACCU] != 0, ip[P_INCR] != 0
    key, dead_feat, n_cap, err = leaves.key, leaves.dead_features, leaves.n_captured, leaves.errors
    kw = dead_feat.shape[1]
    support, equiv = ip[P_SUPPORT] != 0, ip[P_EQUIV] != 0
    toff, tlen, terr, tleaves = trees.offset, trees.length, trees.errors, trees.leaf_ids
    en_tree, en_mask, en_prune = entries.tree, entries.mask, entries.prune
    sc_prune = scratch.prune
    t = en_tree[item]
    n_old = tlen[t]
    if 2 * (n_old + 1) + 4 > masked.shape[0]:  # the workspace serves trees of fewer than (rows - 4) / 2 leaves
        st[S_NEED] = n_old + 1
        return NEED_WORKSPACE
    off = toff[t]
    s = 0
    nu = 0
    uerr = 0
    for p in range(n_old):
        lid = tleaves[off + p]
        if (en_mask[item, p >> 6] >> np.uint64(p & 63)) & np.uint64(1):
            masked[s] = lid
            s += 1
        else:
            unchanged[nu] = lid
            nu += 1
            uerr += err[lid]
    # candidate features of each leaf to split, with their two children (leaf cache); leaf accurate support
    counts[0] = st[S_NLEAVES]
    for i in range(s):
        lid = masked[i]
        nc = 0
        for f in range(n_features):
            wi, bi = f >> 6, np.uint64(f & 63)
            if ((key[lid, wi] | key[lid, kw + wi] | dead_feat[lid, wi]) >> bi) & np.uint64(1):
                continue
            st[S_WORK] += 1
            c0 = leaf_lookup_or_create(lid, f, 0, data, leaves, ltable, counts, key_buf, lam_n, support, equiv)
            c1 = leaf_lookup_or_create(lid, f, 1, data, leaves, ltable, counts, key_buf, lam_n, support, equiv)
            if accu and (leaf_accuracy_too_small(n_cap[c0], err[c0], lam_n)
                         or leaf_accuracy_too_small(n_cap[c1], err[c1], lam_n)):
                dead_feat[lid, wi] |= np.uint64(1) << bi
                continue
            cand0[i, nc] = c0
            cand1[i, nc] = c1
            nc += 1
        ncand[i] = nc
    st[S_NLEAVES] = counts[0]
    for i in range(s):
        if ncand[i] == 0:
            return DONE
    n_new = n_old + s
    # Each split contributes independently to a lower bound on both the child's objective and every entry the
    # child could push: sort each leaf's candidates by that contribution and skip the combinations whose sum
    # cannot beat the incumbent (they would neither improve it nor push anything).
    for i in range(s):
        for c in range(ncand[i]):
            ucost[i, c] = _split_cost(masked[i], cand0[i, c], cand1[i, c], leaves, ip, fp)
        for a in range(1, ncand[i]):  # stable insertion sort by cost
            vu, v0, v1 = ucost[i, a], cand0[i, a], cand1[i, a]
            b = a - 1
            while b >= 0 and ucost[i, b] > vu:
                ucost[i, b + 1] = ucost[i, b]
                cand0[i, b + 1] = cand0[i, b]
                cand1[i, b + 1] = cand1[i, b]
                b -= 1
            ucost[i, b + 1] = vu
            cand0[i, b + 1] = v0
            cand1[i, b + 1] = v1
    umin[s] = 0.0
    for i in range(s - 1, -1, -1):
        umin[i] = umin[i + 1] + ucost[i, 0]
    while True:
        if en_prune[item] >= fp[F_RC]:
            return DONE  # the incumbent improved while expanding: the remaining children are dominated
        if st[S_WORK] >= st[S_WORKMAX]:
            return CHUNK_END  # ``digits`` holds the next combination: the expansion resumes there
        st[S_WORK] += 1
        thr = fp[F_RC] * n_samples - lam_n * n_new - uerr + 1e-9
        acc = 0.0
        viol = -1
        for i in range(s):
            acc += ucost[i, digits[i]]
            if acc + umin[i + 1] >= thr:
                viol = i
                break
        if viol >= 0:  # every combination with this prefix, or a costlier choice at ``viol``, is dominated
            for k in range(viol, s):
                digits[k] = 0
            if not _advance(digits, ncand, viol - 1):
                return DONE
            continue
        # children leaves of this combination, sorted by id (insertion sort, 2s entries)
        m = 2 * s
        for i in range(s):
            newids[2 * i] = cand0[i, digits[i]]
            newids[2 * i + 1] = cand1[i, digits[i]]
            neworig[2 * i] = 2 * i
            neworig[2 * i + 1] = 2 * i + 1
        for a in range(1, m):
            vi, vo = newids[a], neworig[a]
            b = a - 1
            while b >= 0 and newids[b] > vi:
                newids[b + 1] = newids[b]
                neworig[b + 1] = neworig[b]
                b -= 1
            newids[b + 1] = vi
            neworig[b + 1] = vo
        # merge with the (already sorted) unchanged leaves: canonical key of the child
        a = 0
        b = 0
        total_err = uerr
        for p in range(n_new):
            if b >= m or (a < nu and unchanged[a] < newids[b]):
                child[p] = unchanged[a]
                a += 1
            else:
                child[p] = newids[b]
                newpos[neworig[b]] = p
                total_err += err[newids[b]]
                b += 1
        h = tree_hash(child, n_new, hbuf)
        slot = find_span(ttable, trees, child, n_new, h)
        if slot < 0:  # a new leaf set (Tree cache: permutations are evaluated once)
            obj = objective_value(total_err, n_new, n_samples, lam)
            total_hn = 0.0
            if policy == ENTROPY or policy == GINI:
                for p in range(n_new):
                    total_hn += _leaf_hn(policy, n_cap[child[p]], err[child[p]])
            for i in range(s):
                parent = masked[i]
                for bb in range(2):
                    q = 2 * i + bb
                    lid = cand0[i, digits[i]] if bb == 0 else cand1[i, digits[i]]
                    spl[q] = _splittable(leaves, lid, ip)
                    perr[q] = err[lid]
                    pb0[q] = leaves.b0[lid]
                    pgain[q] = _gain(leaves, lid, ip[P_LOOKAHEAD] != 0, equiv, lam_n)
                    psc[q] = leaves.floor[lid]
                    pncap[q] = n_cap[lid]
                    phn[q] = _leaf_hn(policy, n_cap[lid], err[lid])
                flag[i] = incr and split_needs_refinement(err[parent], perr[2 * i], perr[2 * i + 1], lam_n)
            k = 0
            if n_new < ip[P_LMAX]:  # a larger tree costs lambda * n_new > R^c: no entry can survive
                k = _enumerate_masks(w, s, n_new, total_err, total_hn, ip, fp, scratch, st)
            if k < 0:
                st[S_NEED] = 2 * sc_prune.shape[0]
                return NEED_SCRATCH
            if (st[S_NTREES] + 1 > toff.shape[0] or 2 * (st[S_NTREES] + 1) > ttable.shape[0]
                    or st[S_TLUSED] + n_new > tleaves.shape[0]):
                st[S_NEED] = st[S_NTREES] + 1
                st[S_NEED2] = st[S_TLUSED] + n_new
                return NEED_TREES
            ecap = en_tree.shape[0]
            if st[S_HEAP] + k > ecap or k > st[S_FREE] + (ecap - st[S_ETAIL]):
                st[S_NEED] = ecap + k
                return NEED_ENTRIES
            # commit: insert the tree, update the incumbent, push its entries
            tid = st[S_NTREES]
            st[S_NTREES] += 1
            toff[tid] = st[S_TLUSED]
            tlen[tid] = n_new
            terr[tid] = total_err
            for p in range(n_new):
                tleaves[st[S_TLUSED] + p] = child[p]
            st[S_TLUSED] += n_new
            index_put(ttable, slot, tid)
            trees.hash[tid] = h
            if obj < fp[F_RC]:
                fp[F_RC] = obj
                st[S_INC] = tid
                st[S_NIMPROVE] += 1
                st[S_COUNT_OPT] = st[S_COUNT]
            for q in range(k):
                if sc_prune[q] < fp[F_RC]:
                    if st[S_COUNT] >= ip[P_COUNTLIMIT]:
                        return COUNT_LIMIT  # the entry being expanded stays in the frontier bound
                    _push_entry(entries, heap, st, tid, scratch, q)
        if not _advance(digits, ncand, s - 1):  # next combination (last leaf varies fastest)
            return DONE


@njit(cache=True)
def run_chunk(data, leaves, ltable, trees, ttable, entries, heap, scratch, w, st, ip, fp, digits, max_pops):
    """Pop and expand entries until ``max_pops`` units of work are done (a pop or a child combination is one unit;
    a long expansion is split across chunks).  Returns DONE (queue empty), CHUNK_END, COUNT_LIMIT, NEED_* or
    NEED_WORKSPACE."""
    n_features = ip[P_M]
    en_prune, en_s = entries.prune, entries.n_split
    hitem = heap.item
    st[S_WORK] = 0
    st[S_WORKMAX] = max_pops
    while True:
        item = st[S_RESUME]
        if item < 0:
            if st[S_HEAP] == 0:
                return DONE
            if st[S_WORK] >= max_pops:
                return CHUNK_END
            need = st[S_NLEAVES] + 2 * en_s[hitem[0]] * n_features + 1
            if need > leaves.captured.shape[0] or 2 * need > ltable.keys.shape[0]:
                st[S_NEED] = need
                return NEED_LEAVES
            item, _, st[S_HEAP] = heap_pop(heap, st[S_HEAP])
            st[S_WORK] += 1
            st[S_POPS] += 1
            if en_prune[item] >= fp[F_RC]:
                _release_entry(entries, st, item)
                continue
            for i in range(digits.shape[0]):
                digits[i] = 0
        code = _expand(item, data, leaves, ltable, trees, ttable, entries, heap, scratch, st, ip, fp, digits, w)
        if code != DONE:
            st[S_RESUME] = item
            return code
        st[S_RESUME] = -1
        _release_entry(entries, st, item)
