"""Numba kernels of the rule-list Rashomon set (:mod:`optbb.corels.rashomon`): a best-first search over the prefixes
of distinct antecedents (least lower bound first), run in chunks, in one of two modes.

- :data:`OPTIMUM`: branch and bound for the best objective over lists of at most ``L`` rules: a prefix is queued
  while its lower bound is below the incumbent, and the search ends when the least queued bound reaches it.
- :data:`ENUMERATE`: every list whose objective is at most the bound (``limit``: the bound plus the tolerance of
  :func:`optbb.common.rashomon.within`).  Each prefix queued is a stored node (``Store.parent`` / ``Store.rule``;
  node 0 the empty prefix), and the expansion of a node records one *entry* per ``(errors, rules)`` pair of its
  member children, with their number (``Store.ent_*``).  The member children themselves are not stored:
  :func:`member_children` evaluates a node's children again when a model is asked for, and :func:`summaries` when
  the class counts and feature usage are.  A search stopped early has evaluated every list whose objective is
  below the least lower bound still queued.

A child ``p + [s]`` of a prefix ``p`` (``k`` rules, uncaptured samples ``U``) exists when rule ``s`` captures at
least one sample of ``U``; its rule predicts the majority class (ties: the larger index) of what it captures and its
default that of ``U`` minus it. Its objective is ``(errors of p + rule errors + default errors) / n + lam (k + 1)``.
A rule that classifies correctly less than ``fp[F_SUPPORT]`` of what it captures is in no member and ends its
subtree (accurate support, CORELS Thm 11 relaxed to a set: removing the rule from a list ``d`` leaves a list of
objective at most ``R(d) - lam + correct / n``, which is at least the optimum ``R*``; so a member, ``R(d) <= B``,
has ``correct >= (R* + lam - B) n``: ``lam n`` for the optimum itself, and for a set whose bound lies less than
``lam`` above the optimum). It is queued when ``k + 1 < L`` and its lower bound ``(errors of p + rule errors + b0) /
n + lam (k + 2)`` is within the bound (enumeration) or below the incumbent (optimum), where ``b0`` is the amount of
the equivalent-points minority among the samples it leaves uncaptured: equivalent samples (identical antecedent
rows) are captured by the same rule of any list or all reach its default, so any list extending the child errs on at
least that minority among them (CORELS Thm 20); any longer list also pays ``lam`` for each further rule.

Permutations (CORELS Cor. 16, relaxed to a set): two prefixes over one set of antecedents leave the same samples
uncaptured, so each list extending one of them has the objective of the same extension of the other plus the
difference of their rules' errors.  With the optimum ``R*`` known, a prefix whose rules err more than ``(B - R*) n``
(``fp[F_GAP]``) above another ordering of its antecedents leads to no member (each of its lists costs more than
``R* + (B - R*)``): it is neither queued nor, if queued before the better ordering was met, expanded.  The map
(:class:`~optbb.corels.maps.MapArrays`, keyed by the sorted antecedent ids) keeps the least errors seen per set and
the node of the first ordering met with them.  An ordering erring exactly as much (the same float) has the same
children with the same sums as that node, so it is not expanded: the enumeration stores it as an *alias* of that
node (``Store.alias``), whose members below it are the node's with the prefix reordered
(:func:`~optbb.corels.rashomon.ties.unfold` writes them out when the set is read), and the optimum's search drops it.

Amounts are float64: sample counts (popcounts, exact) without weights, sums of weights with them (``w`` given),
each class summed in sample order as :func:`~optbb.corels.model.build_rule_list` does, and the errors of a list
summed rule by rule, default last, so the objective of a listed model is the same float as its entry's.  With
weights the equivalent-points amount is summed in another order than the errors it bounds: ``slack`` (objective
units) covers the rounding, and 0 without weights (integers are exact).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.bitset import class_popcounts, hash_words, popcount64, trailing_zeros, weight_and
from ...common.bounds import majority_class
from ...common.jit import njit
from ...common.keyindex import find_pooled, index_put
from ...common.queue import heap_pop, heap_push
from ..maps import FILL_ENTRIES, FILL_WORDS, map_short, prefix_key, sort_prefix

OPTIMUM, ENUMERATE = range(2)
# st (int64 state) slots: queued prefixes, stored nodes, entries, pairs, prefixes evaluated, nodes expanded, the
# incumbent's length and improvements (optimum mode), the most prefixes queued at once, the aliases stored
S_HEAP, S_NODES, S_ENTRIES, S_PAIRS, S_EVALS, S_EXPANSIONS, S_BEST_LEN, S_IMPROVE, S_MAX_HEAP, S_ALIASES = range(10)
N_STATE = 10
# fp (float64) slots: lambda, the bound with its tolerance, the slack of the equivalent-points bound, the incumbent,
# the least amount a rule of a member must classify correctly (-inf: no such bound), the most errors a permutation
# of a prefix may have above the best one of its antecedents (-1: no permutation map; see the module docstring)
F_LAM, F_LIMIT, F_SLACK, F_BEST, F_SUPPORT, F_GAP = range(6)
N_FSTATE = 6
# ip (int64 parameters) slots: the mode and L, the most rules of a list
P_MODE, P_MAXLEN = range(2)
N_IPARAMS = 2
# return codes of a chunk
DONE, BUDGET_DONE, NEED_GROW, NODE_STOP = range(4)

# ``Data``: the antecedent bitsets ``rules`` (m, words), one bitset per class ``Y`` (K, words), the
# equivalent-points minority ``z`` (words,) and the total amount ``n`` (sample count, or total weight).
Data = namedtuple("Data", "rules Y z n")
# ``Store``: the nodes (``parent``, ``rule``, ``expanded`` 0/1, ``alias``: -1, or the node of an ordering of the
# same antecedents erring exactly as much, which stands for it; node 0 the empty prefix, a node's children
# consecutive and in antecedent order) and the entries: node (-1: the empty list itself), pair and number of
# member children.
Store = namedtuple("Store", "parent rule expanded alias ent_node ent_pair ent_count")
# ``Pairs``: the ``(errors, rules)`` pairs met, with their numbers of members, and an open-addressing ``table`` of
# pair id + 1 (0: empty) keyed by both; ``scratch`` (a count per pair, zero between expansions), ``touched`` (m,)
# the pairs an expansion met, ``fbuf`` one float64 whose bits hash the errors.
Pairs = namedtuple("Pairs", "table err k count scratch touched fbuf")


def new_store(nodes: int, entries: int) -> Store:
    return Store(np.zeros(nodes, np.int64), np.zeros(nodes, np.int32), np.zeros(nodes, np.uint8),
                 np.full(nodes, -1, np.int64), np.zeros(entries, np.int64), np.zeros(entries, np.int32),
                 np.zeros(entries, np.int32))


def new_pairs(capacity: int, m: int) -> Pairs:
    """Pair arrays for ``capacity`` pairs, the table twice as large (a power of two)."""
    table = 1 << max(4, int(np.ceil(np.log2(2 * max(capacity, 8)))))
    return Pairs(np.zeros(table, np.int64), np.zeros(capacity), np.zeros(capacity, np.int64),
                 np.zeros(capacity, np.int64), np.zeros(capacity, np.int64), np.zeros(m, np.int64), np.zeros(1))


@njit(cache=True, inline="always")
def _amounts(U, r, Y, w, cc, tv):
    """Rows of ``U & r`` (their number) and the amount of each class among them written into ``cc``."""
    nw = U.shape[0]
    k = Y.shape[0]
    nv = 0
    if w is None:
        if k == 2:
            y1 = Y[1]
            c1 = 0
            for i in range(nw):
                t = U[i] & r[i]
                nv += popcount64(t)
                c1 += popcount64(t & y1[i])
            cc[1] = c1
            cc[0] = nv - c1
            return nv
        for i in range(nw):
            nv += popcount64(U[i] & r[i])
        cc[0] = nv - class_popcounts(U, r, Y, 1, cc)
        return nv
    for i in range(nw):
        tv[i] = U[i] & r[i]
        nv += popcount64(tv[i])
    for j in range(k):
        cc[j] = weight_and(tv, Y[j], w)
    return nv


@njit(cache=True, inline="always")
def _left_amounts(U, r, Y, w, cu, cc, cd, tv):
    """The class amounts of ``U & ~r`` (what the default of the child gets) into ``cd``: ``cu - cc`` for counts,
    summed over the samples (in sample order) for weights."""
    k = Y.shape[0]
    if w is None:
        for j in range(k):
            cd[j] = cu[j] - cc[j]
        return
    for i in range(U.shape[0]):
        tv[i] = U[i] & ~r[i]
    for j in range(k):
        cd[j] = weight_and(tv, Y[j], w)


@njit(cache=True, inline="always")
def _child(U, r, Y, w, cu, cc, cd, tv):
    """Rule ``r`` after a prefix leaving ``U`` uncaptured: whether it captures a row, then its label and errors and
    the default rule's label and errors (``cc``, ``cd``: their class amounts; ``cu``: those of ``U``)."""
    if _amounts(U, r, Y, w, cc, tv) == 0:
        return False, 0, cc[0] * 0, 0, cc[0] * 0
    pred, rule_err = majority_class(cc)
    _left_amounts(U, r, Y, w, cu, cc, cd, tv)
    dpred, def_err = majority_class(cd)
    return True, pred, rule_err, dpred, def_err


@njit(cache=True, inline="always")
def _extension(s, in_prefix, rules, U, Y, w, cu, cc, cd, tv):
    """:func:`_child` of antecedent ``s`` after the prefix marked in ``in_prefix``: an antecedent of the prefix
    captures nothing."""
    if in_prefix[s]:
        return False, 0, cc[0] * 0, 0, cc[0] * 0
    return _child(U, rules[s], Y, w, cu, cc, cd, tv)


@njit(cache=True, inline="always")
def _minority_left(U, r, z, w, tv):
    """The equivalent-points minority amount among ``U & ~r``."""
    if w is None:
        c = 0
        for i in range(U.shape[0]):
            c += popcount64(U[i] & ~r[i] & z[i])
        return np.float64(c)
    for i in range(U.shape[0]):
        tv[i] = U[i] & ~r[i]
    return weight_and(tv, z, w)


@njit(cache=True)
def _class_amounts(U, Y, w, cu):
    """The class amounts of the samples ``U`` into ``cu``."""
    for j in range(Y.shape[0]):
        if w is None:
            c = 0
            for i in range(U.shape[0]):
                c += popcount64(U[i] & Y[j, i])
            cu[j] = c
        else:
            cu[j] = weight_and(U, Y[j], w)


@njit(cache=True, inline="always")
def _fbits(fbuf, x):
    """The bits of the float ``x`` (through the one-element buffer ``fbuf``)."""
    fbuf[0] = x
    return fbuf.view(np.uint64)[0]


@njit(cache=True, inline="always")
def _hash(bits, k):
    h = bits * np.uint64(0x9E3779B97F4A7C15) + np.uint64(k) * np.uint64(0xC2B2AE3D27D4EB4F)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def pair_id(pairs, errors, k, st):
    """The id of the pair ``(errors, k)``, added (count 0) when new."""
    table = pairs.table
    mask = np.uint64(table.shape[0] - 1)
    slot = np.int64(_hash(_fbits(pairs.fbuf, errors), k) & mask)
    while table[slot] != 0:
        pid = table[slot] - 1
        if pairs.err[pid] == errors and pairs.k[pid] == k:
            return pid
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    pid = st[S_PAIRS]
    st[S_PAIRS] += 1
    table[slot] = pid + 1
    pairs.err[pid] = errors
    pairs.k[pid] = k
    pairs.count[pid] = 0
    pairs.scratch[pid] = 0
    return pid


@njit(cache=True)
def rebuild_table(pairs, n_pairs):
    """Insert pairs ``0 .. n_pairs - 1`` into the (empty) table of ``pairs``."""
    table = pairs.table
    mask = np.uint64(table.shape[0] - 1)
    for pid in range(n_pairs):
        slot = np.int64(_hash(_fbits(pairs.fbuf, pairs.err[pid]), pairs.k[pid]) & mask)
        while table[slot] != 0:
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
        table[slot] = pid + 1


@njit(cache=True)
def _all_samples(Y, U):
    """``U`` = every sample: each is of one class, and the padding bits of the class bitsets are zero."""
    for i in range(U.shape[0]):
        acc = np.uint64(0)
        for j in range(Y.shape[0]):
            acc |= Y[j, i]
        U[i] = acc


@njit(cache=True)
def _follow(data, w, prefix, depth, U, cu, tv, cc):
    """The uncaptured samples ``U``, their class amounts ``cu`` (counts only) and the errors of the rules of
    ``prefix[:depth]``, accumulated rule by rule (the sums every kernel here makes)."""
    rules, Y = data.rules, data.Y
    _all_samples(Y, U)
    err = 0.0
    for q in range(depth):
        r = rules[prefix[q]]
        _amounts(U, r, Y, w, cc, tv)
        _, rule_err = majority_class(cc)
        err = err + rule_err
        for i in range(U.shape[0]):
            U[i] &= ~r[i]
    if w is None:
        _class_amounts(U, Y, w, cu)
    return err


@njit(cache=True)
def _path(parent, rule, node, path):
    """The prefix of ``node`` into ``path`` (first rule first); returns its length."""
    d = 0
    q = node
    while q > 0:
        path[d] = rule[q]
        d += 1
        q = parent[q]
    for i in range(d // 2):
        path[i], path[d - 1 - i] = path[d - 1 - i], path[i]
    return d


@njit(cache=True)
def _depth(parent, node):
    d = 0
    while node > 0:
        node = parent[node]
        d += 1
    return d


@njit(cache=True)
def root(data, w, fp):
    """The empty list's ``(errors, class, lower bound of its extensions)``; the caller decides whether it is a
    member and whether to queue it."""
    Y, z = data.Y, data.z
    U = np.empty(Y.shape[1], dtype=np.uint64)
    cu = np.empty(Y.shape[0])
    _all_samples(Y, U)
    _class_amounts(U, Y, w, cu)
    if w is None:
        c = 0
        for i in range(U.shape[0]):
            c += popcount64(U[i] & z[i])
        b0 = np.float64(c)
    else:
        b0 = weight_and(U, z, w)
    dpred, derr = majority_class(cu)
    return derr, dpred, b0 / data.n + fp[F_LAM]


@njit(cache=True)
def _set_key(sp, d, key):
    """The map key of the antecedent set ``sp[:d]`` (sorted ids)."""
    for j in range(d):
        key[j] = np.uint64(sp[j])
    return d


@njit(cache=True)
def _dominated(smap, key, klen, errors, gap):
    """Whether an ordering of the antecedents of ``key`` with errors below ``errors - gap`` is known."""
    e = find_pooled(smap, key, klen, hash_words(key[:klen]))
    return e >= 0 and smap.fval[e] + gap < errors


DROP, QUEUE = -2, -1  # what _keep says of a prefix besides an alias's node


@njit(cache=True)
def _keep(smap, key, klen, errors, gap, node):
    """What becomes of a prefix over the antecedents of ``key`` erring ``errors``, stored as ``node`` if kept:
    DROP when an ordering of them erring less than ``errors - gap`` is known (it leads to no member), the node of
    the ordering that set the least errors seen when it errs exactly as much (an alias), else QUEUE (its errors, if
    the least seen, recorded with ``node``).  The caller guarantees room (:func:`~optbb.corels.maps.map_short` is
    false)."""
    h = hash_words(key[:klen])
    e = find_pooled(smap, key, klen, h)
    if e >= 0:
        if smap.fval[e] + gap < errors:
            return DROP
        if errors == smap.fval[e]:
            return smap.ival[e]
        if errors < smap.fval[e]:
            smap.fval[e], smap.ival[e] = errors, node
        return QUEUE
    fill, pool = smap.fill, smap.pool
    e = fill[FILL_ENTRIES]
    index_put(smap.index, find_pooled(smap, key, klen, h), e)
    off = fill[FILL_WORDS]
    pool[off] = np.uint64(klen)
    for i in range(klen):
        pool[off + 1 + i] = key[i]
    smap.ehash[e], smap.eoff[e], smap.fval[e], smap.ival[e] = h, off, errors, node
    fill[FILL_ENTRIES] += 1
    fill[FILL_WORDS] += klen + 1
    return QUEUE


@njit(cache=True)
def run_chunk(data, w, store, heap, pairs, smap, st, fp, ip, best_prefix, work, hard):
    """Expand queued prefixes, least lower bound first (each evaluates all its children), until ``work`` prefixes
    are evaluated (at least one node when ``work`` > 0), never more than ``hard`` (NODE_STOP before a node that
    would pass it).  Returns DONE when the search is over, NEED_GROW (before an expansion) when the arrays lack
    room for one more node's children."""
    rules, Y, z, n = data.rules, data.Y, data.z, data.n
    m, nw = rules.shape
    k = Y.shape[0]
    mode = ip[P_MODE]
    L = ip[P_MAXLEN]
    lam, limit, slack, support, gap = fp[F_LAM], fp[F_LIMIT], fp[F_SLACK], fp[F_SUPPORT], fp[F_GAP]
    use_map = gap >= 0.0
    sp = np.empty(L + 1, dtype=np.int64)
    key = np.empty(L + 2, dtype=np.uint64)
    parent, rule = store.parent, store.rule
    U = np.empty(nw, dtype=np.uint64)
    tv = np.empty(nw, dtype=np.uint64)
    cu = np.empty(k)
    cc = np.empty(k)
    cd = np.empty(k)
    path = np.empty(L + 1, dtype=np.int64)
    in_prefix = np.zeros(m, dtype=np.int64)
    done = 0
    while True:
        if st[S_HEAP] == 0:
            return DONE
        if mode == OPTIMUM and heap.key[0] - slack >= fp[F_BEST]:
            st[S_HEAP] = 0  # no queued prefix can lead to a better list
            return DONE
        d = _depth(parent, heap.item[0])
        cost = m - d
        if done >= work:
            return BUDGET_DONE
        if done + cost > hard:
            return NODE_STOP
        if parent.shape[0] - st[S_NODES] < m or heap.key.shape[0] - st[S_HEAP] < m or \
                (mode == ENUMERATE and (store.ent_node.shape[0] - st[S_ENTRIES] < m
                                        or pairs.err.shape[0] - st[S_PAIRS] < m)) or \
                (use_map and map_short(smap, m, L + 1)):
            return NEED_GROW
        node, _, st[S_HEAP] = heap_pop(heap, st[S_HEAP])
        _path(parent, rule, node, path)
        err_p = _follow(data, w, path, d, U, cu, tv, cc)
        if use_map:
            sort_prefix(path, d, sp)
            if d > 0 and _dominated(smap, key, _set_key(sp, d, key), err_p, gap):
                continue  # a better ordering of its antecedents was met since it was queued
        for q in range(d):
            in_prefix[path[q]] = 1
        deeper = d + 1 < L
        n_touched = 0
        for s in range(m):
            captures, pred, rule_err, dpred, def_err = _extension(s, in_prefix, rules, U, Y, w, cu, cc, cd, tv)
            if not captures or cc[pred] < support:
                continue
            err_c = err_p + rule_err
            total = err_c + def_err
            objective = total / n + lam * (d + 1)
            if mode == ENUMERATE:
                if objective <= limit:
                    pid = pair_id(pairs, total, d + 1, st)
                    if pairs.scratch[pid] == 0:
                        pairs.touched[n_touched] = pid
                        n_touched += 1
                    pairs.scratch[pid] += 1
            elif objective < fp[F_BEST]:
                fp[F_BEST] = objective
                for q in range(d):
                    best_prefix[q] = path[q]
                best_prefix[d] = s
                st[S_BEST_LEN] = d + 1
                st[S_IMPROVE] += 1
            if deeper:
                lbc = (err_c + _minority_left(U, rules[s], z, w, tv)) / n + lam * (d + 2)
                if (lbc - slack <= limit) if mode == ENUMERATE else (lbc - slack < fp[F_BEST]):
                    child = st[S_NODES]
                    to = _keep(smap, key, prefix_key(sp, d, s, key), err_c, gap, child) if use_map else QUEUE
                    if to == DROP or (to >= 0 and mode == OPTIMUM):
                        continue
                    st[S_NODES] += 1
                    parent[child] = node
                    rule[child] = s
                    store.expanded[child] = 0
                    store.alias[child] = to  # its node, or QUEUE (-1): no alias
                    if to >= 0:
                        st[S_ALIASES] += 1
                    else:
                        st[S_HEAP] = heap_push(heap, st[S_HEAP], lbc, child, child)
        for t in range(n_touched):
            pid = pairs.touched[t]
            e = st[S_ENTRIES]
            st[S_ENTRIES] += 1
            store.ent_node[e] = node
            store.ent_pair[e] = pid
            store.ent_count[e] = pairs.scratch[pid]
            pairs.count[pid] += pairs.scratch[pid]
            pairs.scratch[pid] = 0
        for q in range(d):
            in_prefix[path[q]] = 0
        store.expanded[node] = 1
        if st[S_HEAP] > st[S_MAX_HEAP]:
            st[S_MAX_HEAP] = st[S_HEAP]
        done += cost
        st[S_EVALS] += cost
        st[S_EXPANSIONS] += 1


@njit(cache=True)
def node_children(data, w, prefix, lam, limit, out_s, out_err):
    """The antecedents ``s`` (in order) for which ``prefix + [s]`` is a member, with its errors (their sum as the
    enumeration makes it), written into ``out_s`` and ``out_err``; returns their number."""
    rules, Y, n = data.rules, data.Y, data.n
    m, nw = rules.shape
    k = Y.shape[0]
    depth = prefix.shape[0]
    U = np.empty(nw, dtype=np.uint64)
    tv = np.empty(nw, dtype=np.uint64)
    cu, cc, cd = np.empty(k), np.empty(k), np.empty(k)
    err_p = _follow(data, w, prefix, depth, U, cu, tv, cc)
    used = np.zeros(m, dtype=np.bool_)
    for q in range(depth):
        used[prefix[q]] = True
    found = 0
    for s in range(m):
        captures, _, rule_err, _, def_err = _extension(s, used, rules, U, Y, w, cu, cc, cd, tv)
        if not captures:
            continue
        total = (err_p + rule_err) + def_err
        if total / n + lam * (depth + 1) <= limit:
            out_s[found], out_err[found] = s, total
            found += 1
    return found


@njit(cache=True)
def member_children(data, w, prefix, lam, limit, target, out):
    """The antecedents ``s`` (in order) for which ``prefix + [s]`` is a member whose errors are ``target``, written
    into ``out``; returns their number."""
    errs = np.empty(out.shape[0])
    found = node_children(data, w, prefix, lam, limit, out, errs)
    kept = 0
    for t in range(found):
        if errs[t] == target:
            out[kept] = out[t]
            kept += 1
    return kept


@njit(cache=True)
def _add_rows(counts, bits, cls, amount):
    """``counts[row, cls] += amount`` for each set bit ``row`` of ``bits``."""
    for i in range(bits.shape[0]):
        word = bits[i]
        while word:
            counts[i * 64 + trailing_zeros(word), cls] += amount
            word &= word - np.uint64(1)


@njit(cache=True)
def summaries(data, w, parent, rule, expanded, direct, lam, limit, counts, usage):
    """Per training row, how many members predict each class (``counts``, (n, K)), and per antecedent how many
    members use it (``usage``), from the expanded nodes (``direct[i]``: the member children of node ``i``), whose
    children are evaluated again.  A child ``p + [s]`` is followed by ``M`` members (itself if a member, and those
    below it if it is a node): its rule predicts its class for the samples it captures in each of them, and a
    member child's default predicts for ``U(p)`` minus those.  The empty list, if a member, is left to the
    caller."""
    rules, Y, n = data.rules, data.Y, data.n
    m, nw = rules.shape
    k = Y.shape[0]
    n_nodes = parent.shape[0]
    first = np.full(n_nodes, -1, dtype=np.int64)
    sibling = np.full(n_nodes, -1, dtype=np.int64)
    below = direct.copy()  # members strictly below each node
    for i in range(n_nodes - 1, 0, -1):  # a node's children in increasing order, i.e. by antecedent
        sibling[i] = first[parent[i]]
        first[parent[i]] = i
        below[parent[i]] += below[i]
    U = np.empty(nw, dtype=np.uint64)
    tv = np.empty(nw, dtype=np.uint64)
    cap = np.empty(nw, dtype=np.uint64)
    cu = np.empty(k)
    cc = np.empty(k)
    cd = np.empty(k)
    dcount = np.empty(k, dtype=np.int64)
    path = np.empty(m + 1, dtype=np.int64)
    in_prefix = np.zeros(m, dtype=np.int64)
    for node in range(n_nodes):
        if not expanded[node] or below[node] == 0:
            continue
        d = _path(parent, rule, node, path)
        err_p = _follow(data, w, path, d, U, cu, tv, cc)
        for q in range(d):
            in_prefix[path[q]] = 1
        for j in range(k):
            dcount[j] = 0
        child = first[node]
        for s in range(m):
            captures, pred, rule_err, dpred, def_err = _extension(s, in_prefix, rules, U, Y, w, cu, cc, cd, tv)
            if not captures:
                continue
            member = ((err_p + rule_err) + def_err) / n + lam * (d + 1) <= limit
            many = 1 if member else 0
            while child >= 0 and rule[child] < s:
                child = sibling[child]
            if child >= 0 and rule[child] == s:
                many += below[child]
            if many == 0:
                continue
            usage[s] += many
            r = rules[s]
            for i in range(nw):
                cap[i] = U[i] & r[i]
            _add_rows(counts, cap, pred, many)
            if member:
                _add_rows(counts, cap, dpred, -1)
                dcount[dpred] += 1
        for j in range(k):
            if dcount[j]:
                _add_rows(counts, U, j, dcount[j])
        for q in range(d):
            in_prefix[path[q]] = 0
