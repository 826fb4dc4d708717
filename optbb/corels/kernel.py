"""The CORELS inner loop (JMLR Algorithm 5), compiled with Numba and run in chunks of parent expansions.

Order of checks per child ``(d_p, s)`` exactly as Algorithm 5 and the reference code:
support (Thm 10) -> accurate support (Thm 11) -> hierarchical lower bound (Thm 1) -> objective and incumbent update ->
equivalent points (Thm 20) combined with lookahead (Lemma 2) -> symmetry-aware map (Cor 16 / Thm 15) -> insert.
Bounds are computed with ``objective_value`` from amounts: integer sample counts (so every comparison is
reproducible), or, with sample weights, sums of weights (``w`` given; integer weights sum exactly, so they reproduce
repeated rows).  With ``k`` classes a rule predicts the class of largest captured amount (ties: the larger class
index) and errs on the rest; ``Y`` holds one bitset per class.  ``run_chunk`` compiles once for two classes
without weights (``Y`` None: three popcounts per word, ``binary_counts``; Numba leaves out the branches for ``k``
classes when it compiles for a ``None`` argument), once for ``k`` classes (``w`` None, ``TE`` int32: popcounts per
class) and once for weights (``TE`` float64: sums of weights over the captured samples).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from ..common.jit import njit

from ..common.bitset import class_popcounts, popcount64, weight_and
from ..common.bounds import (accurate_support_too_small, majority_class, majority_errors, objective_value,
                             support_too_small)
from ..common.queue import BFS, DFS, LOWER_BOUND, OBJECTIVE, heap_pop, heap_push, heapify
from .maps import (MAP_CAPTURED, MAP_NONE, MAP_PREFIX, check_and_insert, key_len_bound, map_short, prefix_key,
                   sort_prefix)
from .trie import (DELETED, DEPTH, DONE, DPRED, E_B0, E_ERR, E_NCAP, LEAF, MAPSLOT, NCHILD, PARENT, PRED, RULE,
                   STATE, alloc_node, prune_up, read_prefix)

# slot names, one convention for every solver: S_ int64 state, F_ float64 state, P_ parameters
# st (int64 state) slots
S_HEAP_SIZE, S_SEQ, S_FREE_COUNT, S_HWM, S_LIVE, S_MAP_COUNT, S_BEST_LEN, S_LB_EVALS, S_INSERTIONS, S_EVALUATED, \
    S_POPS, S_MAX_HEAP, S_MAX_DEPTH, S_MAX_LIVE, S_IMPROVED, S_N_IMPROVE, S_DISCARDED = range(17)
N_STATE = 17
# fp (float64) slots: the incumbent objective (state) and lambda
F_RC, F_LAM = range(2)
N_FSTATE = 2
# ip (int64 parameters) slots
P_POLICY, P_MAP, P_SUPPORT, P_ACCURATE, P_LOOKAHEAD, P_EQUIV, P_PREFIXLEN = range(7)
N_IPARAMS = 7
# ``Data``: the antecedent bitsets ``rules`` (m, words), the class-1 bitset ``y1``, the equivalent-points minority
# ``z``, the total amount ``n`` (sample count, or total weight) and ``tail_mask`` (the valid bits of the last word).
# The class bitsets ``Y`` and the weights ``w`` are kernel arguments of their own: Numba leaves out the code for a
# None only when the None is an argument's type, not a tuple field's.
Data = namedtuple("Data", "rules y1 z n tail_mask")
# ``Out``: what a chunk writes besides its state: ``amounts``, a (3, k) scratch matrix of class amounts (int64
# counts, or float64 weights), and ``best_prefix``, the incumbent's antecedents (``st[S_BEST_LEN]`` of them).
Out = namedtuple("Out", "amounts best_prefix")
# return codes
QUEUE_EMPTY, BUDGET_DONE, NEED_GROW, IMPROVED_STOP = range(4)


@njit(cache=True, inline="always")
def _priority(policy, lam, n, err, b0, depth, ncap, objective):
    if policy == LOWER_BOUND:
        return objective_value(err + b0, depth, n, lam)
    if policy == BFS:
        return np.float64(depth)
    if policy == DFS:
        return -np.float64(depth)
    if policy == OBJECTIVE:
        return objective
    # curiosity (JMLR §5.6): b(d_p) / supp(d_p)
    if ncap == 0:
        return 0.0
    return objective_value(err, depth, n, lam) * n / ncap


@njit(cache=True, inline="always")
def node_lookahead(T, TE, node, n, lam, lookahead):
    """Bound on every extension of ``node`` (Thm 20 with Lemma 2): (err + b0)/N + lambda (K + 1)."""
    extra = 1 if lookahead else 0
    return objective_value(TE[node, E_ERR] + TE[node, E_B0], T[node, DEPTH] + extra, n, lam)


@njit(cache=True, inline="always")
def binary_counts(u, r, y1, z):
    """Unweighted two-class fast path: ``(captured, captured of class 1, equivalent-points minority)`` of the samples
    in ``u & r``, three popcounts per word."""
    nv = 0
    c1 = 0
    zc = 0
    for i in range(u.shape[0]):
        t = u[i] & r[i]
        nv += popcount64(t)
        c1 += popcount64(t & y1[i])
        zc += popcount64(t & z[i])
    return nv, c1, zc


@njit(cache=True, inline="always")
def captured_amounts(a, b, Y, z, w, tv, cc):
    """Amounts of the samples in ``a & b``: returns ``(total, equivalent-points minority)`` and writes the amount of
    each class into ``cc``.  Counts by popcount when ``w`` is None (class 0 is the total minus the others), else
    writes ``a & b`` into the scratch ``tv`` and sums ``w`` over it class by class (``weight_and``, in sample order:
    the sums :func:`~optbb.corels.model.build_rule_list` makes)."""
    nw = a.shape[0]
    k = Y.shape[0]
    if w is None:
        nv, c1, zc = binary_counts(a, b, Y[1], z)
        cc[1] = c1
        cc[0] = nv - c1 - class_popcounts(a, b, Y, 2, cc)
        return nv, zc
    for i in range(nw):
        tv[i] = a[i] & b[i]
    tot = 0.0
    for j in range(k):
        cc[j] = weight_and(tv, Y[j], w)
        tot += cc[j]
    return tot, weight_and(tv, z, w)


@njit(cache=True)
def _uncaptured(rules, prefix, depth, n_words, tail_mask, u):
    for w in range(n_words):
        u[w] = ~np.uint64(0)
    u[n_words - 1] = tail_mask
    for k in range(depth):
        r = prefix[k]
        for w in range(n_words):
            u[w] &= ~rules[r, w]


@njit(cache=True)
def run_chunk(data, Y, w, trie, heap, smap, st, ip, fp, out, max_expansions):
    """Expand up to ``max_expansions`` queued prefixes; return a code telling Python why it stopped.

    ``data`` is a :data:`Data`, ``trie`` a :class:`~optbb.corels.trie.Trie`, ``heap`` the queue
    (:class:`~optbb.common.queue.Heap`), ``smap`` the symmetry-aware map (:class:`~optbb.corels.maps.MapArrays`),
    ``out`` an :data:`Out`; ``st``, ``ip``, ``fp`` hold the ``S_``, ``P_`` and ``F_`` slots.  ``Y`` (a bitset per
    class) is None for two classes without weights, ``w`` (per-sample weights) None without weights; with ``w``
    the amounts are weights and ``data.n`` the total weight."""
    rules, y1, z, n, tail_mask = data.rules, data.y1, data.z, data.n, data.tail_mask
    T, TE, free_list = trie.T, trie.TE, trie.free_list
    amounts, best_prefix = out.amounts, out.best_prefix
    m, n_words = rules.shape
    lam = fp[F_LAM]
    policy = ip[P_POLICY]
    map_type = ip[P_MAP]
    support_on = ip[P_SUPPORT] != 0
    accurate_on = ip[P_ACCURATE] != 0
    lookahead_on = ip[P_LOOKAHEAD] != 0
    equiv_on = ip[P_EQUIV] != 0
    prefixlen_on = ip[P_PREFIXLEN] != 0
    threshold = lam * n
    extra = 1 if lookahead_on else 0

    # scratch written before it is read, except ``in_prefix`` (0/1 per rule); two dtypes only, and no ``np.zeros``:
    # each dtype of an allocation is one more specialisation to compile in a fresh process
    prefix = np.empty(m + 1, dtype=np.int64)
    in_prefix = np.empty(m, dtype=np.int64)
    for r in range(m):
        in_prefix[r] = 0
    u = np.empty(n_words, dtype=np.uint64)
    sp = np.empty(m + 1, dtype=np.int64)
    key = np.empty(max(m + 1, n_words), dtype=np.uint64)
    tv = np.empty(n_words, dtype=np.uint64)
    cu = amounts[0]  # uncaptured amount of each class
    cc = amounts[1]  # captured by the child's new rule
    cd = amounts[2]  # left to the child's default rule
    expansions = 0
    st[S_IMPROVED] = 0

    while expansions < max_expansions:
        if st[S_HEAP_SIZE] == 0:
            return QUEUE_EMPTY
        free_slots = st[S_FREE_COUNT] + (T.shape[0] - st[S_HWM])
        if free_slots < m or heap.key.shape[0] - st[S_HEAP_SIZE] < m or \
                (map_type != MAP_NONE and map_short(smap, m, key_len_bound(map_type, st[S_MAX_DEPTH], n_words))):
            return NEED_GROW
        node, _, st[S_HEAP_SIZE] = heap_pop(heap, st[S_HEAP_SIZE])
        st[S_POPS] += 1
        depth = T[node, DEPTH]
        rc = fp[F_RC]
        deleted = read_prefix(T, node, prefix)
        if deleted or node_lookahead(T, TE, node, n, lam, lookahead_on) >= rc or \
                (prefixlen_on and lam * (depth + 1) >= rc):
            st[S_DISCARDED] += 1
            prune_up(T, free_list, st, S_FREE_COUNT, S_LIVE, node)
            continue

        # --- expand: evaluate every child (d_p, s) ---
        _uncaptured(rules, prefix, depth, n_words, tail_mask, u)
        if Y is None:
            nu, nu1, zu = binary_counts(u, u, y1, z)
        else:
            nu, zu = captured_amounts(u, u, Y, z, w, tv, cu)
            nu1 = cu[1]
        for k in range(depth):
            in_prefix[prefix[k]] = 1
        if map_type == MAP_PREFIX:
            sort_prefix(prefix, depth, sp)
        err_p = TE[node, E_ERR]
        child_depth = depth + 1
        improved_here = False

        for s in range(m):
            if in_prefix[s]:
                continue
            if Y is None:
                nv, c1, zc = binary_counts(u, rules[s], y1, z)
            else:
                c1 = 0
                nv, zc = captured_amounts(u, rules[s], Y, z, w, tv, cc)
            if support_on and support_too_small(nv, threshold):  # Thm 10
                continue
            if Y is None:
                pred, rule_err = majority_errors(c1, nv)
                correct = nv - rule_err
            else:
                pred, rule_err = majority_class(cc)
                correct = cc[pred]
            if accurate_on and accurate_support_too_small(correct, threshold):  # Thm 11
                continue
            st[S_LB_EVALS] += 1
            err_c = err_p + rule_err
            if objective_value(err_c, child_depth, n, lam) >= fp[F_RC]:  # Thm 1
                continue
            if Y is None:
                dpred, derr = majority_errors(nu1 - c1, nu - nv)
            else:
                for j in range(Y.shape[0]):
                    cd[j] = cu[j] - cc[j]
                dpred, derr = majority_class(cd)
            objective = objective_value(err_c + derr, child_depth, n, lam)
            if objective < fp[F_RC]:
                fp[F_RC] = objective
                for k in range(depth):
                    best_prefix[k] = prefix[k]
                best_prefix[depth] = s
                st[S_BEST_LEN] = child_depth
                st[S_N_IMPROVE] += 1
                improved_here = True
            b0c = (zu - zc) if equiv_on else 0
            if objective_value(err_c + b0c, child_depth + extra, n, lam) >= fp[F_RC]:  # Thm 20 + Lemma 2
                continue
            slot = -1
            if map_type == MAP_PREFIX:  # Cor 16
                klen = prefix_key(sp, depth, s, key)
                slot = check_and_insert(T, smap, key, klen, np.float64(err_c), st, S_MAP_COUNT)
                if slot < 0:
                    continue
            elif map_type == MAP_CAPTURED:  # Thm 15
                for i in range(n_words):
                    key[i] = u[i] & ~rules[s, i]
                slot = check_and_insert(T, smap, key, n_words, objective_value(err_c, child_depth, n, lam), st,
                                        S_MAP_COUNT)
                if slot < 0:
                    continue
            child = alloc_node(T, free_list, st, S_FREE_COUNT, S_HWM)
            if slot >= 0:
                smap.ival[slot] = child
            T[child, PARENT] = node
            T[child, RULE] = s
            T[child, DEPTH] = child_depth
            TE[child, E_ERR] = err_c
            TE[child, E_B0] = b0c
            TE[child, E_NCAP] = n - (nu - nv)
            T[child, NCHILD] = 0
            T[child, STATE] = LEAF
            T[child, DELETED] = 0
            T[child, PRED] = pred
            T[child, DPRED] = dpred
            T[child, MAPSLOT] = slot
            T[node, NCHILD] += 1
            st[S_LIVE] += 1
            if st[S_LIVE] > st[S_MAX_LIVE]:
                st[S_MAX_LIVE] = st[S_LIVE]
            pri = _priority(policy, lam, n, err_c, b0c, child_depth, n - (nu - nv), objective)
            st[S_HEAP_SIZE] = heap_push(heap, st[S_HEAP_SIZE], pri, st[S_SEQ], child)
            st[S_SEQ] += 1
            st[S_INSERTIONS] += 1
            if st[S_HEAP_SIZE] > st[S_MAX_HEAP]:
                st[S_MAX_HEAP] = st[S_HEAP_SIZE]

        for k in range(depth):
            in_prefix[prefix[k]] = 0
        st[S_EVALUATED] += 1
        expansions += 1
        if depth > st[S_MAX_DEPTH]:
            st[S_MAX_DEPTH] = depth
        if T[node, NCHILD] == 0:
            prune_up(T, free_list, st, S_FREE_COUNT, S_LIVE, node)
        else:
            T[node, STATE] = DONE
        if improved_here:
            st[S_IMPROVED] = 1
            return IMPROVED_STOP
    return BUDGET_DONE


@njit(cache=True)
def collect_garbage(data, trie, heap, st, ip, fp):
    """Garbage collection after the incumbent improves (JMLR §5.5): drop queued prefixes whose bound reaches the
    incumbent or that descend from a dominated permutation, free their trie nodes, and re-heapify."""
    T, TE, free_list = trie.T, trie.TE, trie.free_list
    hkey, hseq, hitem = heap.key, heap.seq, heap.item
    n, lam, lookahead_on = data.n, fp[F_LAM], ip[P_LOOKAHEAD] != 0
    rc = fp[F_RC]
    kept = 0
    for i in range(st[S_HEAP_SIZE]):
        node = hitem[i]
        if node_lookahead(T, TE, node, n, lam, lookahead_on) >= rc or _deleted_on_path(T, node):
            prune_up(T, free_list, st, S_FREE_COUNT, S_LIVE, node)
            continue
        hkey[kept] = hkey[i]
        hseq[kept] = hseq[i]
        hitem[kept] = node
        kept += 1
    st[S_HEAP_SIZE] = kept
    heapify(heap, kept)


@njit(cache=True)
def _deleted_on_path(T, node):
    p = node
    while p >= 0:
        if T[p, DELETED] != 0:
            return True
        p = T[p, PARENT]
    return False


@njit(cache=True)
def queue_lower_bound(data, trie, heap, st, ip, fp):
    """Global lower bound on the optimum: min(R^c, min over live queued prefixes of their extension bound)."""
    T, TE, hitem = trie.T, trie.TE, heap.item
    n, lam, lookahead_on = data.n, fp[F_LAM], ip[P_LOOKAHEAD] != 0
    best = fp[F_RC]
    for i in range(st[S_HEAP_SIZE]):
        node = hitem[i]
        if T[node, DELETED] != 0:
            continue
        v = node_lookahead(T, TE, node, n, lam, lookahead_on)
        if v < best:
            best = v
    return best
