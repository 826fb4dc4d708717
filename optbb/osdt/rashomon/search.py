"""The chunk kernel of the Rashomon construction of trees (see :mod:`optbb.osdt.rashomon.space` for the mathematics and
:mod:`optbb.osdt.rashomon.store` for the arrays).

:func:`run` does at most ``work`` steps of the operation ``st[S_MODE]`` asks and returns a step code of
:mod:`optbb.common.driver` (DONE, RUNNING, NODE_LIMIT, NEED_MEMORY) or :data:`OVERFLOW`:

- ``M_OPTIMUM``: the optimum of the root subproblem (into ``fs[F_RET]``);
- ``M_TOPDOWN``: the widening's top-down pass (:func:`topdown_step`), then ``M_BUILD`` its bottom-up pass
  (:func:`build`).

Whoever needs an optimum (an evaluation, the widening pass, the root) writes the support in ``frames.buf`` and
raises ``st[S_ASKING]`` with the depth budget and the cutoff (:func:`request`), and sets its own phase to wait; the
next step answers (:func:`ask`): at once from the store, or by pushing an evaluation on the explicit stack
(:func:`frame_step` advances the top one split by split).  The waiting party reads the answer from ``fs[F_RET]`` and
``st[S_RET_ID]``.  A step that needs room it lacks (a new subproblem, a candidate, pool space) returns NEED_MEMORY
before changing anything, so the same step runs again once Python has grown the arrays.

:func:`run` and :func:`build_chunk` are compiled without reference counting (they allocate nothing, and the arrays
outlive the call); the steps that run by the hundred thousand (an answer, an evaluation's split) are inlined into
:func:`run`.
"""
from __future__ import annotations

import numpy as np

from ...common.bitset import hash_words, popcount64, trailing_zeros
from ...common.driver import DONE, NEED_MEMORY, NODE_LIMIT, PAUSED, RUNNING
from ...common.jit import njit
from ...common.keyindex import find_row, index_put
from ...common.rashomon import BOUND_TOLERANCE
from ..support import layered
from .pairs import KEY, clear_pairs, convolve, put_pair, take_pairs
from .store import (BOUND, C_FEAT, C_KEPT, C_LEFT, C_RIGHT, C_USELESS, EXACT, FI_D, FI_F, FI_ID, FI_PHASE, FV_BEST,
                    FV_CUTOFF, FV_FLOOR, FV_LB_R, FV_LOW, FV_T, FV_TOP, F_CUTOFF, F_LAM, F_LB_R, F_LIMIT, F_MARGIN,
                    F_O_L, F_RET, F_TOTAL, M_BUILD, M_IDLE, M_OPTIMUM, M_TOPDOWN, NEED_NODES, NEED_PLAN, NEED_POOLS,
                    NEED_SIDES, NEED_TABLE, N_ERRORS, N_LABEL, N_MINORITY, N_OPT_LEN, N_OPT_OFF, N_PAIR_LEN,
                    N_PAIR_OFF, N_SIDES, N_SIZE, N_STATE, P_CAND_LEN, P_CAND_OFF, P_HEAP, P_NODE, S_ASKING, S_ASK_D,
                    S_BUILD, S_CANDS, S_CUR, S_CURSOR, S_EVALS, S_EXCLUDE, S_HEAP, S_K, S_LEFT, S_MODE, S_NEED,
                    S_NEED_OPTIONS, S_NEED_PAIRS, S_NODES, S_NODE_LIMIT, S_OPTIONS, S_PAIRS, S_PHASE, S_PLANNED,
                    S_RET_ID, S_ROOT, S_SIDES, S_SOLVED, S_TOP, UNSOLVED, V_BUDGET, V_OPT, V_WANT)

OVERFLOW = 5  # a count passed COUNT_CAP (after the driver's step codes)
# phases: of a frame and of the widening pass (a loop over the features, waiting for the zero side's optimum, for
# the one side's; the widening pass's next subproblem), of the root's optimum (to ask, answered)
LOOP, WAIT_L, WAIT_R, POP = range(4)
ASK, ANSWERED = range(2)
INF = np.inf
UNSPLIT = -1  # the one-side amount of a split with an empty side


# -- counting -----------------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def one_side(keys, e, data, f):
    """``(rows, minority)`` of the one side of subproblem ``e`` (its support: row ``e`` of ``keys``) split on
    feature ``f`` (the minority: the equivalent-points amount, Angelino et al. 2018 Thm 20); the zero side's are
    the subproblem's minus these."""
    features, zbits, mult = data.xbits, data.zbits, data.mult
    n1 = m1 = 0
    for k in range(features.shape[1]):
        one = keys[e, k] & features[f, k]
        if one:
            n1 += popcount64(one)
            m1 += layered(one, zbits, 0, k, mult)
    return n1, m1


@njit(cache=True)
def count_sides(nodes, data, st, e):
    """Count the equivalent-points amount of the one side of each split of subproblem ``e`` into
    ``nodes.sides`` (room checked by the caller), :data:`UNSPLIT` for a split with an empty side: once per
    subproblem, as one is evaluated again under a higher cutoff and planned at each widening."""
    at = st[S_SIDES]
    for f in range(data.xbits.shape[0]):
        n1, m1 = one_side(nodes.rows, e, data, f)
        nodes.sides[at + f] = UNSPLIT if n1 == 0 or n1 == nodes.ints[e, N_SIZE] else m1
    nodes.ints[e, N_SIDES] = at
    st[S_SIDES] = at + data.xbits.shape[0]


@njit(cache=True)
def sides_full(nodes, data, st):
    """Whether ``nodes.sides`` lacks room for one more subproblem's splits (NEED_MEMORY asks for it)."""
    full = st[S_SIDES] + data.xbits.shape[0] > nodes.sides.shape[0]
    if full:
        st[S_NEED] = NEED_SIDES
    return full


# -- the store ----------------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def depth_of(nodes, e):
    """The depth budget of subproblem ``e`` (the last word of its key)."""
    return np.int64(nodes.rows[e, nodes.rows.shape[1] - 1])


@njit(cache=True, inline="always")
def find_node(nodes, buf, d):
    """``(id or -(free slot) - 1, hash)`` of the subproblem of support ``buf[:W]`` and depth budget ``d``."""
    buf[buf.shape[0] - 1] = np.uint64(d)
    h = hash_words(buf)
    return find_row(nodes, buf, h), h


@njit(cache=True)
def class_weight(buf, W, rows, c):
    """The weight of the rows of class ``c`` among the support ``buf`` (its first ``W`` words), summed in row order,
    as ``np.bincount`` sums it."""
    s = 0.0
    for k in range(W):
        word = buf[k]
        while word:
            i = k * 64 + trailing_zeros(word)
            if rows.y[i] == c:
                s += rows.w[i]
            word &= word - np.uint64(1)
    return s


@njit(cache=True)
def float_leaf_errors(buf, W, rows, label):
    """The weight a leaf over the support ``buf`` misclassifies when it predicts ``label``, as the models count it
    (:func:`optbb.osdt.support.leaf_stat`): each class's weight summed in row order, then the other classes' weights
    added in class order."""
    amounts = rows.amounts
    amounts[:] = 0.0
    for k in range(W):
        word = buf[k]
        while word:
            i = k * 64 + trailing_zeros(word)
            amounts[rows.y[i]] += rows.w[i]
            word &= word - np.uint64(1)
    wrong = 0.0
    for c in range(amounts.shape[0]):
        if c != label:
            wrong += amounts[c]
    return wrong


@njit(cache=True)
def new_node(nodes, data, rows, st, fs, buf, h, slot):
    """Store the subproblem whose key is ``buf`` (hash ``h``, free index slot ``slot``) with its leaf (majority
    class, ties to the larger class) and minority amount; returns its id.  Classes within ``fs[F_MARGIN]`` units of
    the largest are told apart by their float sums in row order (:data:`~optbb.osdt.rashomon.store.Rows`)."""
    e = st[S_NODES]
    W = buf.shape[0] - 1
    keys, zbits, mult = nodes.rows, data.zbits, data.mult
    for k in range(W + 1):
        keys[e, k] = buf[k]
    nodes.ehash[e] = h
    index_put(nodes.index, slot, e)
    label, errors = leaf_of(buf, W, data, rows, st, fs)
    size = minority = 0
    for k in range(W):
        size += popcount64(buf[k])
        minority += layered(buf[k], zbits, 0, k, mult)
    ints, vals = nodes.ints, nodes.vals
    ints[e, N_SIZE], ints[e, N_ERRORS], ints[e, N_LABEL], ints[e, N_MINORITY] = size, errors, label, minority
    ints[e, N_STATE] = UNSOLVED
    ints[e, N_PAIR_OFF] = ints[e, N_PAIR_LEN] = ints[e, N_OPT_OFF] = ints[e, N_OPT_LEN] = 0
    vals[e, V_OPT], vals[e, V_BUDGET], vals[e, V_WANT] = 0.0, -INF, -INF
    ints[e, N_SIDES] = -1
    st[S_NODES] = e + 1
    return e


@njit(cache=True)
def leaf_of(buf, W, data, rows, st, fs):
    """``(label, errors)`` of a leaf over the support ``buf``: its majority class (ties to the larger class; classes
    within ``fs[F_MARGIN]`` units of the largest told apart by their float sums in row order) and the units of the
    other classes."""
    amount = best = label = 0
    second = -1
    for c in range(st[S_K]):
        a = class_units(buf, W, data, c)
        amount += a
        if a >= best:
            best, second, label = a, best, c
        elif a > second:
            second = a
    margin = fs[F_MARGIN]
    if margin >= 0 and best - second <= margin:
        label, best = float_majority(buf, W, data, rows, st[S_K], best - margin)
    return label, amount - best


@njit(cache=True, inline="always")
def class_units(buf, W, data, c):
    """The units of the rows of class ``c`` in the support ``buf``."""
    L = data.mult.shape[0]
    a = 0
    for k in range(W):
        a += layered(buf[k], data.ybits, c * L, k, data.mult)
    return a


@njit(cache=True)
def float_majority(buf, W, data, rows, K, floor):
    """``(label, units)``: the class of largest float weight in row order (ties to the larger class) among those of
    at least ``floor`` units, and its units."""
    label, top = -1, -INF
    for c in range(K):
        a = class_units(buf, W, data, c)
        if a < floor:
            continue
        f = class_weight(buf, W, rows, c)
        if f >= top:
            label, top = c, f
    return label, class_units(buf, W, data, label)


@njit(cache=True)
def add_root(nodes, data, rows, frames, st, fs, S, d):
    """The root subproblem (support ``S``, depth budget ``d``): its id in ``st[S_ROOT]``."""
    buf = frames.buf
    for k in range(S.shape[0]):
        buf[k] = S[k]
    e, h = find_node(nodes, buf, d)
    st[S_ROOT] = e if e >= 0 else new_node(nodes, data, rows, st, fs, buf, h, e)


# -- optimum evaluations ------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def leaf_cost(nodes, fs, e):
    return nodes.ints[e, N_ERRORS] / fs[F_TOTAL] + fs[F_LAM] * 1


@njit(cache=True, inline="always")
def splits_can_help(nodes, fs, e, bound):
    """Whether a split of subproblem ``e`` may cost less than ``bound``: two leaves and the equivalent-points
    amount (Hu et al. 2019 Thm 3.2, Angelino et al. 2018 Thm 20) are below it."""
    return bound > 2 * fs[F_LAM] + nodes.ints[e, N_MINORITY] / fs[F_TOTAL]


@njit(cache=True, inline="always")
def request(nodes, data, frames, st, fs, e, f, one, d, cutoff):
    """Ask for the optimum of a side of subproblem ``e`` split on feature ``f`` (the one side when ``one``) with
    depth budget ``d``, up to ``cutoff``: the next step answers (:func:`ask`)."""
    buf, keys, features = frames.buf, nodes.rows, data.xbits
    for k in range(features.shape[1]):
        buf[k] = keys[e, k] & features[f, k] if one else keys[e, k] & ~features[f, k]
    st[S_ASKING], st[S_ASK_D], fs[F_CUTOFF] = 1, d, cutoff


@njit(cache=True, inline="always")
def ask(nodes, data, rows, frames, st, fs):
    """Answer the optimum asked: a stored optimum (or a stored bound above the cutoff) at once, else an evaluation
    (counted against the node limit) starts on a new frame, or ends at once when no split can beat the leaf.
    Returns 0, or NODE_LIMIT / NEED_MEMORY with nothing changed."""
    d, cutoff = st[S_ASK_D], fs[F_CUTOFF]
    e, h = find_node(nodes, frames.buf, d)
    code = 0
    if e >= 0 and (nodes.ints[e, N_STATE] == EXACT
                   or (nodes.ints[e, N_STATE] == BOUND and nodes.vals[e, V_OPT] > cutoff)):
        fs[F_RET], st[S_RET_ID], st[S_ASKING] = nodes.vals[e, V_OPT], e, 0
    elif st[S_EVALS] >= st[S_NODE_LIMIT]:
        code = NODE_LIMIT
    elif e < 0 and st[S_NODES] >= nodes.ints.shape[0]:
        st[S_NEED] = NEED_NODES
        code = NEED_MEMORY
    elif d > 1 and sides_full(nodes, data, st):
        code = NEED_MEMORY
    else:
        if e < 0:
            e = new_node(nodes, data, rows, st, fs, frames.buf, h, e)
        st[S_EVALS] += 1
        st[S_ASKING] = 0
        best = leaf_cost(nodes, fs, e)
        if d == 0 or not splits_can_help(nodes, fs, e, best):
            settle(nodes, st, fs, e, best, EXACT)
        elif d == 1:
            settle(nodes, st, fs, e, min(best, best_stump(nodes, data, rows, frames.buf, st, fs, e)), EXACT)
        else:
            if nodes.ints[e, N_SIDES] < 0:
                count_sides(nodes, data, st, e)
            push(frames, st, e, d, cutoff, best)
    return code


@njit(cache=True)
def best_stump(nodes, data, rows, buf, st, fs, e):
    """The least cost of a split of subproblem ``e`` into two leaves (inf when no split has two non-empty sides),
    counted directly rather than asked of its leaves (a subproblem of depth budget 1 has as many as the features,
    and they are as many as the features times the splits above): for each feature the units of each class on the
    one side, with two classes the zero side's being the rest (each side's errors as :func:`leaf_of` counts them);
    ``buf`` is scratch.  The leaves are not subproblems: the node limit counts the evaluation once."""
    W = nodes.rows.shape[1] - 1
    K, L, x = st[S_K], data.mult.shape[0], data.xbits
    total, lam, margin = fs[F_TOTAL], fs[F_LAM], fs[F_MARGIN]
    size, least = nodes.ints[e, N_SIZE], INF
    whole0 = whole1 = 0
    if K == 2:
        for k in range(W):
            whole0 += layered(nodes.rows[e, k], data.ybits, 0, k, data.mult)
            whole1 += layered(nodes.rows[e, k], data.ybits, L, k, data.mult)
    for f in range(x.shape[0]):
        n1 = 0
        for k in range(W):
            n1 += popcount64(nodes.rows[e, k] & x[f, k])
        if n1 == 0 or n1 == size:
            continue
        if K == 2:
            a0 = a1 = 0
            for k in range(W):
                word = nodes.rows[e, k] & x[f, k]
                a0 += layered(word, data.ybits, 0, k, data.mult)
                a1 += layered(word, data.ybits, L, k, data.mult)
            b0, b1 = whole0 - a0, whole1 - a1
            e1 = min(a0, a1) if margin < 0 or abs(a0 - a1) > margin else \
                side_errors(nodes, data, rows, buf, st, fs, e, f, True, W)
            e0 = min(b0, b1) if margin < 0 or abs(b0 - b1) > margin else \
                side_errors(nodes, data, rows, buf, st, fs, e, f, False, W)
        else:
            e1 = side_errors(nodes, data, rows, buf, st, fs, e, f, True, W)
            e0 = side_errors(nodes, data, rows, buf, st, fs, e, f, False, W)
        least = min(least, (e0 / total + lam) + (e1 / total + lam))
    return least


@njit(cache=True, inline="always")
def side_errors(nodes, data, rows, buf, st, fs, e, f, one, W):
    """The errors (units) of the leaf over one side of subproblem ``e`` split on ``f``, by :func:`leaf_of` (``buf``
    holds the side's support)."""
    for k in range(W):
        buf[k] = nodes.rows[e, k] & data.xbits[f, k] if one else nodes.rows[e, k] & ~data.xbits[f, k]
    return leaf_of(buf, W, data, rows, st, fs)[1]


@njit(cache=True, inline="always")
def push(frames, st, e, d, cutoff, best):
    """Start the evaluation of subproblem ``e`` on a new frame."""
    k = st[S_TOP] + 1
    st[S_TOP] = k
    fi, fv = frames.fi, frames.fv
    fi[k, FI_ID], fi[k, FI_D], fi[k, FI_F], fi[k, FI_PHASE] = e, d, 0, LOOP
    fv[k, FV_CUTOFF], fv[k, FV_BEST], fv[k, FV_FLOOR] = cutoff, best, INF
    fv[k, FV_TOP] = cutoff + 2 * BOUND_TOLERANCE * max(1.0, abs(cutoff)) if cutoff < INF else INF


@njit(cache=True, inline="always")
def settle(nodes, st, fs, e, value, state):
    """Store the result of an evaluation and hand it to whoever asked."""
    if nodes.ints[e, N_STATE] == UNSOLVED:
        st[S_SOLVED] += 1
    nodes.vals[e, V_OPT], nodes.ints[e, N_STATE] = value, state
    fs[F_RET], st[S_RET_ID] = value, e


@njit(cache=True, inline="always")
def frame_step(nodes, data, frames, st, fs):
    """Advance the top frame by one split.  The optimum of ``S`` with budget ``d`` is the least cost of its leaf
    and of its splits; a split is pruned when a lower bound (one leaf plus the equivalent-points amount on each
    side, then a side's optimum plus the other's bound) reaches ``min(best, cutoff)``, and each side is asked only
    up to what the bound leaves it.  When nothing is within the cutoff the frame settles a lower bound above it
    (the least of the best tree and the bounds set aside), else the exact optimum."""
    k = st[S_TOP]
    fi, fv = frames.fi, frames.fv
    e, d, f, phase = fi[k, FI_ID], fi[k, FI_D], fi[k, FI_F], fi[k, FI_PHASE]
    total, lam = fs[F_TOTAL], fs[F_LAM]
    if phase == WAIT_L:
        low = fs[F_RET] + fv[k, FV_LB_R]
        if low < fv[k, FV_T]:
            request(nodes, data, frames, st, fs, e, f, True, d - 1, fv[k, FV_T] - low + fv[k, FV_LB_R])
            fi[k, FI_PHASE], fv[k, FV_LOW] = WAIT_R, low
        else:
            fv[k, FV_FLOOR] = min(fv[k, FV_FLOOR], low)
            fi[k, FI_F], fi[k, FI_PHASE] = f + 1, LOOP
    elif phase == WAIT_R:
        low = fv[k, FV_LOW] - fv[k, FV_LB_R] + fs[F_RET]
        if low < fv[k, FV_T]:
            fv[k, FV_BEST] = low
        else:
            fv[k, FV_FLOOR] = min(fv[k, FV_FLOOR], low)
        fi[k, FI_F], fi[k, FI_PHASE] = f + 1, LOOP
    else:
        asked = False
        while f < data.xbits.shape[0]:
            m1 = nodes.sides[nodes.ints[e, N_SIDES] + f]
            if m1 != UNSPLIT:
                m0 = nodes.ints[e, N_MINORITY] - m1
                t = min(fv[k, FV_BEST], fv[k, FV_TOP])
                lb_r = m1 / total + lam
                low = (m0 / total + lam) + lb_r
                if low < t:
                    request(nodes, data, frames, st, fs, e, f, False, d - 1, t - lb_r)
                    fi[k, FI_F], fi[k, FI_PHASE], fv[k, FV_T], fv[k, FV_LB_R] = f, WAIT_L, t, lb_r
                    asked = True
                    break
                fv[k, FV_FLOOR] = min(fv[k, FV_FLOOR], low)
            f += 1
        if not asked:
            st[S_TOP] = k - 1
            best = fv[k, FV_BEST]
            if best > fv[k, FV_TOP]:  # no tree within the cutoff: a lower bound above it
                settle(nodes, st, fs, e, min(best, fv[k, FV_FLOOR]), BOUND)
            else:
                settle(nodes, st, fs, e, best, EXACT)


@njit(cache=True)
def root_step(nodes, frames, st, fs):
    """The root's optimum: asked without cutoff, then read."""
    if st[S_PHASE] == ANSWERED:
        st[S_MODE] = M_IDLE
    else:
        root, buf = st[S_ROOT], frames.buf
        for k in range(buf.shape[0] - 1):
            buf[k] = nodes.rows[root, k]
        st[S_ASKING], st[S_ASK_D], fs[F_CUTOFF] = 1, depth_of(nodes, root), INF
        st[S_PHASE] = ANSWERED


@njit(cache=True)
def start_optimum(st):
    st[S_MODE], st[S_PHASE] = M_OPTIMUM, ASK


# -- the widening: top-down pass ----------------------------------------------------------------------------------
@njit(cache=True)
def before(nodes, a, b):
    """Whether subproblem ``a`` is planned before ``b``: the larger depth budget (parents before children), then
    more rows, then the smaller support read as an integer (a total order: the plan does not depend on the order
    the subproblems were found in)."""
    keys = nodes.rows
    W = keys.shape[1] - 1
    if keys[a, W] != keys[b, W]:
        first = keys[a, W] > keys[b, W]
    elif nodes.ints[a, N_SIZE] != nodes.ints[b, N_SIZE]:
        first = nodes.ints[a, N_SIZE] > nodes.ints[b, N_SIZE]
    else:
        k = W - 1
        while k > 0 and keys[a, k] == keys[b, k]:
            k -= 1
        first = keys[a, k] < keys[b, k]
    return first


@njit(cache=True)
def heap_push(nodes, heap, n, e):
    """Add ``e`` to the ``n`` ids of the heap (column ``P_HEAP`` of ``heap``)."""
    i = n
    while i > 0:
        parent = (i - 1) // 2
        if not before(nodes, e, heap[parent, P_HEAP]):
            break
        heap[i, P_HEAP] = heap[parent, P_HEAP]
        i = parent
    heap[i, P_HEAP] = e


@njit(cache=True)
def heap_pop(nodes, heap, n):
    """Remove the first of the ``n`` ids (the heap holds ``n - 1`` after)."""
    last = heap[n - 1, P_HEAP]
    n -= 1
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and before(nodes, heap[c + 1, P_HEAP], heap[c, P_HEAP]):
            c += 1
        if not before(nodes, heap[c, P_HEAP], last):
            break
        heap[i, P_HEAP] = heap[c, P_HEAP]
        i = c
    if n > 0:
        heap[i, P_HEAP] = last


@njit(cache=True)
def start_widen(nodes, plan, st, budget):
    """Ask the root for every pair of cost at most ``budget``."""
    root = st[S_ROOT]
    nodes.vals[root, V_WANT] = budget
    plan.ints[0, P_HEAP] = root
    st[S_HEAP], st[S_PLANNED], st[S_CANDS] = 1, 0, 0
    st[S_MODE], st[S_PHASE] = M_TOPDOWN, POP


@njit(cache=True)
def want(nodes, heap, st, child, budget):
    """The child is asked for ``budget`` unless its pairs or an earlier request already cover it."""
    vals = nodes.vals
    if vals[child, V_BUDGET] < budget and vals[child, V_WANT] < budget:
        if vals[child, V_WANT] == -INF:
            heap_push(nodes, heap, st[S_HEAP], child)
            st[S_HEAP] += 1
        vals[child, V_WANT] = budget


@njit(cache=True)
def topdown_step(nodes, data, plan, frames, st, fs):
    """One step of the top-down pass: subproblems leave the heap parents first (:func:`plan_next`) and are planned
    with their candidate splits: both sides non-empty and, bound by bound (one leaf plus the equivalent-points
    amount, then the optima), within the budget.  Each side of a candidate is asked for the budget minus the other
    side's optimum.  Returns 0 or a step code."""
    phase, total, lam = st[S_PHASE], fs[F_TOTAL], fs[F_LAM]
    e, limit, f = st[S_CUR], fs[F_LIMIT], st[S_CURSOR]
    code = 0
    if phase == POP:
        code = plan_next(nodes, data, plan, st, fs)
    elif phase == WAIT_L:
        o_l = fs[F_RET]
        if o_l + fs[F_LB_R] > limit:
            st[S_CURSOR], st[S_PHASE] = f + 1, LOOP
        else:
            st[S_LEFT], fs[F_O_L], st[S_PHASE] = st[S_RET_ID], o_l, WAIT_R
            request(nodes, data, frames, st, fs, e, f, True, depth_of(nodes, e) - 1, limit - o_l)
    elif phase == WAIT_R:
        o_l, o_r = fs[F_O_L], fs[F_RET]
        if o_l + o_r > limit:
            st[S_CURSOR], st[S_PHASE] = f + 1, LOOP
        elif st[S_CANDS] >= plan.cands.shape[0] or st[S_HEAP] + 2 > plan.limit.shape[0]:
            st[S_NEED] = NEED_PLAN
            code = NEED_MEMORY
        else:
            c, left, right = st[S_CANDS], st[S_LEFT], st[S_RET_ID]
            plan.cands[c, C_FEAT], plan.cands[c, C_LEFT], plan.cands[c, C_RIGHT] = f, left, right
            plan.ints[st[S_PLANNED] - 1, P_CAND_LEN] += 1
            st[S_CANDS] = c + 1
            want(nodes, plan.ints, st, left, limit - o_r)
            want(nodes, plan.ints, st, right, limit - o_l)
            st[S_CURSOR], st[S_PHASE] = f + 1, LOOP
    else:
        st[S_PHASE] = POP
        while f < data.xbits.shape[0]:
            m1 = nodes.sides[nodes.ints[e, N_SIDES] + f]
            m0 = nodes.ints[e, N_MINORITY] - m1
            lb_r = m1 / total + lam
            if m1 != UNSPLIT and not (m0 / total + lam) + lb_r > limit:
                request(nodes, data, frames, st, fs, e, f, False, depth_of(nodes, e) - 1, limit - lb_r)
                st[S_CURSOR], st[S_PHASE], fs[F_LB_R] = f, WAIT_L, lb_r
                break
            f += 1
    return code


@njit(cache=True)
def plan_next(nodes, data, plan, st, fs):
    """Take the next subproblem off the heap and plan it with the largest budget its parents ask, plus a tolerance
    (sums in another order differ in their last bits), or pass it when its pairs cover that budget.  Returns 0 or
    a step code."""
    ints = plan.ints
    code = 0
    if st[S_HEAP] == 0:
        st[S_MODE], st[S_BUILD] = M_BUILD, st[S_PLANNED] - 1
    else:
        e = ints[0, P_HEAP]
        limit = nodes.vals[e, V_WANT]
        covered = limit == -INF or nodes.vals[e, V_BUDGET] >= limit
        if not covered and st[S_EVALS] >= st[S_NODE_LIMIT]:
            code = NODE_LIMIT
        elif not covered and st[S_PLANNED] >= ints.shape[0]:
            st[S_NEED] = NEED_PLAN
            code = NEED_MEMORY
        elif not covered and sides_full(nodes, data, st):
            code = NEED_MEMORY
        else:
            heap_pop(nodes, ints, st[S_HEAP])
            st[S_HEAP] -= 1
            nodes.vals[e, V_WANT] = -INF
            if not covered:
                st[S_EVALS] += 1
                limit += 2 * BOUND_TOLERANCE * max(1.0, abs(limit))
                p = st[S_PLANNED]
                ints[p, P_NODE], ints[p, P_CAND_OFF], ints[p, P_CAND_LEN], plan.limit[p] = e, st[S_CANDS], 0, limit
                st[S_PLANNED] = p + 1
                st[S_CUR], st[S_CURSOR] = e, 0
                fs[F_LIMIT] = limit
                can = depth_of(nodes, e) > 0 and splits_can_help(nodes, fs, e, limit)
                if can and nodes.ints[e, N_SIDES] < 0:
                    count_sides(nodes, data, st, e)
                st[S_PHASE] = LOOP if can else POP
    return code


# -- the widening: bottom-up pass ---------------------------------------------------------------------------------
@njit(cache=True)
def leaves_useless(nodes, rows, fs, e, left, right):
    """Whether the split of subproblem ``e`` into the leaves ``left`` and ``right`` lowers no errors (what
    ``exclude_useless`` leaves out): in units, unless the two are within ``fs[F_MARGIN]`` units, where the float sums
    decide as the models compute them (:func:`float_leaf_errors`)."""
    ints = nodes.ints
    split, whole = ints[left, N_ERRORS] + ints[right, N_ERRORS], ints[e, N_ERRORS]
    margin = fs[F_MARGIN]
    if margin < 0 or abs(split - whole) > margin:
        return split >= whole
    W = nodes.rows.shape[1] - 1
    a = float_leaf_errors(nodes.rows[left], W, rows, ints[left, N_LABEL])
    b = float_leaf_errors(nodes.rows[right], W, rows, ints[right, N_LABEL])
    return a + b >= float_leaf_errors(nodes.rows[e], W, rows, ints[e, N_LABEL])


@njit(cache=True)
def build(nodes, pools, plan, table, rows, st, fs, p):
    """The pairs of planned subproblem ``p`` within its limit (its children are built): its leaf and the
    convolutions of its candidates' children into the pair table, the candidates that add a tree becoming its split
    options.  Returns ``(code, products)``; the table is left empty."""
    ints, cands = nodes.ints, plan.cands
    e, limit = plan.ints[p, P_NODE], plan.limit[p]
    total, lam, exclude = fs[F_TOTAL], fs[F_LAM], st[S_EXCLUDE] != 0
    errors = ints[e, N_ERRORS]
    n, over, products, n_opts = 0, False, 0, 0
    if leaf_cost(nodes, fs, e) <= limit:
        n, over = put_pair(table, n, errors * KEY + 1, 1)
    c0, nc = plan.ints[p, P_CAND_OFF], plan.ints[p, P_CAND_LEN]
    for c in range(c0, c0 + nc):
        left, right = cands[c, C_LEFT], cands[c, C_RIGHT]
        lo, ln = ints[left, N_PAIR_OFF], ints[left, N_PAIR_LEN]
        ro, rn = ints[right, N_PAIR_OFF], ints[right, N_PAIR_LEN]
        useless = exclude and leaves_useless(nodes, rows, fs, e, left, right)
        cands[c, C_USELESS] = useless
        n, added, o, full = convolve(table, n, pools.keys[lo:lo + ln], pools.counts[lo:lo + ln],
                                     pools.keys[ro:ro + rn], pools.counts[ro:ro + rn], useless, limit, total, lam)
        products += ln * rn
        if full:
            clear_pairs(table, n)
            st[S_NEED], st[S_NEED_PAIRS] = NEED_TABLE, n + rn
            return NEED_MEMORY, products
        cands[c, C_KEPT] = added
        n_opts += added
        over |= o
    code = 0
    if over:
        code = OVERFLOW
    elif st[S_PAIRS] + n > pools.keys.shape[0] or st[S_OPTIONS] + n_opts > pools.feat.shape[0]:
        st[S_NEED], st[S_NEED_PAIRS], st[S_NEED_OPTIONS] = NEED_POOLS, n, n_opts
        code = NEED_MEMORY
    if code != 0:
        clear_pairs(table, n)
        return code, products
    if n > 0:  # no pair: none before either (a wider budget only adds pairs)
        at = st[S_PAIRS]
        take_pairs(table, n, pools.keys, pools.counts, at)
        ints[e, N_PAIR_OFF], ints[e, N_PAIR_LEN] = at, n
        st[S_PAIRS] = at + n
    at = st[S_OPTIONS]
    ints[e, N_OPT_OFF], ints[e, N_OPT_LEN] = at, n_opts
    for c in range(c0, c0 + nc):
        if cands[c, C_KEPT]:
            pools.feat[at], pools.left[at], pools.right[at] = cands[c, C_FEAT], cands[c, C_LEFT], cands[c, C_RIGHT]
            pools.useless[at] = cands[c, C_USELESS]
            at += 1
    st[S_OPTIONS] = at
    nodes.vals[e, V_BUDGET] = limit
    return 0, products


# -- the chunks ---------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def run(nodes, plan, frames, data, rows, st, fs, work):
    """At most ``work`` steps (an answer, an evaluation's split, a planned subproblem's split) of the optimum or of
    the top-down pass; returns a step code, PAUSED when the bottom-up pass is next (:func:`build_chunk`).

    Compiled without reference counting (``_nrt=False``: it allocates nothing and the arrays outlive the call): a
    compiled function counts a reference to every array it is passed, inlined or not, and those atomic counts took
    40 % of the time of the steps."""
    done = 0
    while True:
        mode = st[S_MODE]
        if mode == M_IDLE:
            return DONE
        if mode == M_BUILD:
            return PAUSED
        if done >= work:
            return RUNNING
        done += 1
        code = 0
        if st[S_ASKING]:
            code = ask(nodes, data, rows, frames, st, fs)
        elif st[S_TOP] >= 0:
            frame_step(nodes, data, frames, st, fs)
        elif mode == M_OPTIMUM:
            root_step(nodes, frames, st, fs)
        else:
            code = topdown_step(nodes, data, plan, frames, st, fs)
        if code != 0:
            return code


@njit(cache=True, _nrt=False)
def build_chunk(nodes, pools, plan, table, rows, st, fs, work):
    """Builds of the bottom-up pass, children first, until ``work`` (one per build and one per 64 products of its
    convolutions) is spent; returns a step code.  Without reference counting, as :func:`run`."""
    done = 0
    while st[S_BUILD] >= 0:
        if done >= work:
            return RUNNING
        code, products = build(nodes, pools, plan, table, rows, st, fs, st[S_BUILD])
        if code != 0:
            return code
        done += 1 + products // 64
        st[S_BUILD] -= 1
    st[S_MODE] = M_IDLE
    return DONE
