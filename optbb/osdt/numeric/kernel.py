"""Depth-limited optimal trees over every threshold of numeric columns, searched on sorted orders (no cut matrix).

A subproblem is the set ``S`` of rows reaching a node and its depth budget ``d``.  Each column's rows of ``S`` are
kept in ascending order of value (``ords[level, j, :n]``: one level per node on the current path, each child's
orders a stable partition of its parent's); a split ``x_j <= t`` is a position ``p`` of column ``j``'s order where
the value changes, the first ``p`` rows going left.  Columns hold ranks (0 .. U-1 over the training values), so a
0/1 column is a column with two ranks.  Costs are ``errors + lam_n * leaves`` in weight units (integer weights held
in float64, so every sum is exact), the OSDT objective times the total weight.

Bounds on split positions (ConTree: Brita, van der Linden, Demirovic, "Optimal Classification Trees for Continuous
Feature Data Using Dynamic Programming with Branch-and-Bound", AAAI 2025, the interval pruning of Sec. 4; they live
in :mod:`optbb.osdt.bounds`, each behind a switch of ``data.ip``).  For
positions ``p < q`` of one column the left set grows and the right set shrinks; with ``L(p)``, ``R(p)`` the optimal
costs of the two children at depth ``d - 1``:

* monotonicity: ``L(p) <= L(q)`` and ``R(p) >= R(q)`` (a subset's optimum is at most the cost, on it, of the
  superset's optimal tree);
* similarity: ``L(q) <= L(p) + w(p, q)``, ``R(p) <= R(q) + w(p, q)``, ``w(p, q)`` the weight of the rows between
  the two positions (a tree costs at most that much more on the larger set);
* every child tree costs at least ``lam_n`` (one leaf).

So every position strictly between evaluated positions ``a < b`` has
``L(p) + R(p) >= max(L(a), L(b) - w(a, b), lam_n) + max(R(b), R(a) - w(a, b), lam_n)``, and an interval whose
bound reaches the best cost so far is dropped unevaluated; otherwise its middle position is evaluated and the two
halves follow (a bisection, first in first out).  A child search that finds nothing below the bound it was given
reports that bound, a lower bound of its optimum, which keeps every inequality valid.  The second child of a split
is searched even when the first found nothing (as ConTree does): its bound, or its optimum, then prunes the
positions around the split, which the interval's bound of it alone does not (at depth 3 on breast cancer, 214 root
positions evaluated instead of 466).

Depth <= 2 subproblems are solved at once by :func:`depth2`: for a root position, one pass over each column (its
order, or its class weights by value: :mod:`optbb.osdt.numeric.stumps`) gives the best stump of both sides, capped at
what could still beat the best tree, and root positions are pruned by the same interval bounds, the ends being the
empty side (cost 0) and the stump of ``S``.  The same two bounds hold for each
column's best stump on each side, so an evaluated position leaves a record of them (:func:`column_bounds`), and a
column whose bound at a later position is no better than the best stump found there is not swept; an interval's
positions are also bounded by the least column bound of each side (:func:`records_bound`), which is larger than
the sides' bounds alone when the best columns at its two ends differ.  Deeper subproblems are frames of an
explicit stack, run in chunks of ``work`` evaluations by :func:`run`, so a search returns to Python between chunks.

A tree is written in preorder into ``trees[level, slot]`` (int64, 2 x T): row 0 the column of a split (-1 for a
leaf), row 1 its threshold rank (left: rank <= it).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.bounds import majority_class
from ...common.jit import njit
from ..bounds import column_bounds, interval_bound, records_bound, shrink_interval
from .memo import copy_subtree, memo_find, memo_store
from .stumps import (SC_TOT, SC_TOTL, SC_TOTR, class_totals, gather_rows, mark_rows, mark_side, mark_split,
                         order_by, side_stumps)

# ``R`` int32 (m, N): the rank of each row's value per column; ``y`` int64 class indices; ``w`` float64 integer
# weights (all 1 when unweighted); ``keys`` uint64 (2, N) the rows' random keys (:mod:`optbb.osdt.numeric.memo`);
# ``ip`` int64 the switches of the bounds (``P_*``, 1: on).
Data = namedtuple("Data", "R y w keys ip")
# the switches: the interval bound (:func:`~optbb.osdt.bounds.interval_bound`), the interval's shrinking
# (:func:`~optbb.osdt.bounds.shrink_interval`), the records of the columns' stumps
# (:func:`~optbb.osdt.bounds.records_bound`, :func:`~optbb.osdt.bounds.column_bounds`); with one off, its place
# takes the bound every split has (two leaves) or nothing
P_INTERVAL, P_SHRINK, P_RECORDS = range(3)
N_IP = 3
# Per level (node of the current path): ``ords`` int32 (levels, m, N) rows of the node by column, ``nrows`` int64
# (levels,), ``bpos`` int64 (levels, N) the split positions of the column being searched, ``cw`` float64 (levels,
# N + 1) its prefix weights, ``ivi`` / ``ivv`` the interval stack (ends ``a, b``; ``L(a), R(a), L(b), R(b)``),
# ``trees`` int64 (levels, 2, 2, T) the best tree and the left child's tree of the split in progress, ``order``
# int64 (levels, m) the columns in the order they are searched (best stump first); ``side`` uint8 (N,) the side of
# each row in the split being evaluated, ``colbest`` float64 (m,) the best stump of each column; ``hash`` uint64
# (levels, 2) the sums of the keys of each level's rows; ``buf`` int32 (2, N) a column's rows of each side; ``rec``
# float64 (slots, 2, m) the depth-2 solver's records of each column's best stump on each side at evaluated positions
# (``ivi[level, i, 2:4]`` the slots of an interval's ends, -1: none; the last slot holds the bounds at the position
# being evaluated); ``order`` has one row more than the levels, the order of the columns swept there; ``ords`` has
# one column more than the data, the rows of each level by index; ``hist`` float64 (bins, 2K copies) class weights of
# a column's values on each side, ``loc`` int32 (m + 2, N) and ``lw`` float64 (N,) the rows of the depth-2 solver's
# node in index order: their ranks by column, classes, ``side * K + class``, weights (:mod:`optbb.osdt.numeric.stumps`).
Levels = namedtuple("Levels", "ords nrows bpos cw ivi ivv trees order side colbest hash buf rec hist loc lw")
# Frames, one per level: ``fi[level, FI_*]`` integers, ``fv[level, FV_*]`` floats.
Frames = namedtuple("Frames", "fi fv")
FI_D, FI_F, FI_SP, FI_PHASE, FI_A, FI_B, FI_MID, FI_NB, FI_C, FI_FIRST, FI_HEAD, FI_FOUND = range(12)
N_FI = 12
FV_UB, FV_BEST, FV_LA, FV_RA, FV_LB, FV_RB, FV_LBL, FV_LBR, FV_V1, FV_H = range(10)
N_FV = 10
OPEN, NEXT_COLUMN, POP, WAIT_FIRST, WAIT_SECOND = range(5)
BEST, FIRST = 0, 1
# int64 state
S_TOP, S_NODES, S_DEPTH2, S_IMPNODES, S_HITS, S_POSITIONS, S_SWEEPS = range(7)
N_ST = 7
RUNNING, DONE, NODE_LIMIT = 0, 1, 2


@njit(cache=True)
def write_stump(tree, pos, f, t):
    """Write a leaf (``f`` < 0) or a stump on column ``f`` at rank ``t`` at ``pos``; returns the next position."""
    if f < 0:
        tree[0, pos] = -1
        return pos + 1
    tree[0, pos] = f
    tree[1, pos] = t
    tree[0, pos + 1] = -1
    tree[0, pos + 2] = -1
    return pos + 3


@njit(cache=True, inline="always")
def push(ivi, ivv, tail, a, b, la, ra, lb, rb, sa=-1, sb=-1):
    """Append an interval to the queue (a ring of ``N + 2`` slots: the pending intervals are disjoint, each around
    at least one split, so at most ``N + 1`` are pending), with the record slots of its ends (depth 2; -1: none);
    returns the new tail."""
    sp = tail % ivi.shape[0]
    ivi[sp, 0] = a
    ivi[sp, 1] = b
    ivi[sp, 2] = sa
    ivi[sp, 3] = sb
    ivv[sp, 0] = la
    ivv[sp, 1] = ra
    ivv[sp, 2] = lb
    ivv[sp, 3] = rb
    return tail + 1


@njit(cache=True, inline="always")
def positions_bound(data, ivv, sp, wab, lam_n):
    """:func:`~optbb.osdt.bounds.interval_bound` of interval ``sp``, or two leaves' ``lam_n`` with it switched off."""
    if data.ip[P_INTERVAL]:
        return interval_bound(ivv, sp, wab, lam_n)
    return 2.0 * lam_n, lam_n, lam_n


@njit(cache=True, inline="always")
def positions_left(data, ivv, sp, a, b, nb, n, bpos, cw, best):
    """The split indices of interval ``sp`` that may beat ``best``: :func:`~optbb.osdt.bounds.shrink_interval`, or
    all of them with it switched off."""
    if data.ip[P_SHRINK]:
        return shrink_interval(ivv, sp, a, b, nb, n, bpos, cw, best)
    return a + 1, b - 1


@njit(cache=True)
def column_splits(data, ords, lv, n, f, bpos, cw):
    """Split positions of column ``f`` over the ``n`` rows of level ``lv`` into ``bpos``, prefix weights into
    ``cw``; returns their number."""
    o, rf, w = ords[lv, f], data.R[f], data.w
    nb = 0
    cw[0] = 0.0
    for i in range(n):
        cw[i + 1] = cw[i] + w[o[i]]
        if i > 0 and rf[o[i]] != rf[o[i - 1]]:
            bpos[nb] = i
            nb += 1
    return nb


# ----------------------------------------------------------------------------------------------------------------
# depth <= 2
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def depth2(data, lev, lv, depth, lam_n, ub, sc, st):
    """Optimal tree of depth <= ``depth`` (0, 1 or 2) over the rows of level ``lv`` costing less than ``ub``.

    Returns its cost, the tree written to ``lev.trees[lv, BEST]``, or ``ub`` when no tree costs less (a lower
    bound of the optimum).  Depth 2: every root position of every column under the interval bounds (module
    docstring), each evaluated by :func:`side_stumps`, each side's stumps capped at what could still beat the best
    tree with the other side at its bound (a side above its cap gets a lower bound, which the intervals take as
    well as an exact cost).  ``st[S_POSITIONS]`` counts the root positions evaluated, ``st[S_SWEEPS]`` the
    columns swept for them."""
    R, y, w = data.R, data.y, data.w
    n, ords, side, tree = lev.nrows[lv], lev.ords, lev.side, lev.trees[lv, BEST]
    tot = sc[SC_TOT]
    class_totals(ords[lv, 0], n, y, w, tot)
    _, err = majority_class(tot)
    best = ub
    if err + lam_n < best:
        best = err + lam_n
        tree[0, 0] = -1
    if depth == 0 or err <= 0.0 or 2.0 * lam_n >= best:
        return best
    # the stump of S: every row on the left
    mark_side(ords[lv, 0], n, n, side)
    gathered = gather_rows(data, lev, lv, n)
    if gathered:
        for i in range(n):
            lev.loc[R.shape[0] + 1, i] = lev.loc[R.shape[0], i] + tot.shape[0]
    for c in range(tot.shape[0]):
        sc[SC_TOTL, c] = tot[c]
        sc[SC_TOTR, c] = 0.0
    rec = lev.rec  # records: slot 1 all of S on the left and the empty right side, slot 0 the reverse
    bounds = rec[rec.shape[0] - 1]  # the last slot: the bounds at the position being evaluated
    rec[0, :, :] = 0.0
    e1, f1, t1, _, _, _, swept = side_stumps(data, lev, lv, n, sc, rec[0], rec[1], -1, n, gathered, np.inf,
                                             np.inf)
    st[S_SWEEPS] += swept
    for g in range(rec.shape[2]):  # a loop: an array assignment would compile Numba's shape-check messages
        rec[0, 1, g] = rec[1, 0, g]
    order = lev.order[lv]
    order_by(order, lev.colbest)
    d1 = err + lam_n
    if f1 >= 0 and e1 + 2.0 * lam_n < d1:
        d1 = e1 + 2.0 * lam_n
    if d1 < best:
        best = d1
        write_stump(tree, 0, f1, t1)
    if depth == 1 or e1 <= 0.0 or 3.0 * lam_n >= best:
        return best
    bpos, cw, ivi, ivv = lev.bpos[lv], lev.cw[lv], lev.ivi[lv], lev.ivv[lv]
    for f in order:
        nb = column_splits(data, ords, lv, n, f, bpos, cw)
        o, rf = ords[lv, f], R[f]
        head, tail = 0, push(ivi, ivv, 0, -1, nb, 0.0, d1, d1, 0.0, 0, 1) if nb > 0 else 0
        free = 2
        while head < tail:  # first in, first out: the positions spread over the column before they narrow
            sp = head % ivi.shape[0]
            head += 1
            a, b, sa, sb = ivi[sp, 0], ivi[sp, 1], ivi[sp, 2], ivi[sp, 3]
            if b - a <= 1:
                continue
            wab = cw[n if b >= nb else bpos[b]] - cw[0 if a < 0 else bpos[a]]
            _, lo_l, lo_r = positions_bound(data, ivv, sp, wab, lam_n)
            if lo_l + lo_r >= best:
                continue
            if data.ip[P_RECORDS] and records_bound(rec, sa, sb, wab, lam_n, lo_l, lo_r) >= best:
                continue
            lo, hi = positions_left(data, ivv, sp, a, b, nb, n, bpos, cw, best)
            if lo > hi:
                continue
            la, ra, lb, rb = ivv[sp, 0], ivv[sp, 1], ivv[sp, 2], ivv[sp, 3]
            mid = (lo + hi) // 2
            p = bpos[mid]
            st[S_POSITIONS] += 1
            if gathered:  # the sides of lev.side are marked when a column needs them (side_stumps)
                mark_rows(lev.loc, lev.lw, f, rf[o[p - 1]], n, tot, sc[SC_TOTL], sc[SC_TOTR])
            else:
                mark_split(data, o, n, p, side, tot, sc[SC_TOTL], sc[SC_TOTR])
            if data.ip[P_RECORDS]:
                column_bounds(rec, sa, sb, cw[p] - cw[0 if a < 0 else bpos[a]],
                              cw[n if b >= nb else bpos[b]] - cw[p], bounds)
            else:
                for g in range(bounds.shape[1]):  # no bound: every column is swept
                    bounds[0, g] = 0.0
                    bounds[1, g] = 0.0
            slot = free if free < rec.shape[0] - 1 else -1
            free += 1
            capl, capr = best - lo_r - 2.0 * lam_n, best - lo_l - 2.0 * lam_n
            el, fl, tl, er, fr, tr, swept = side_stumps(data, lev, lv, n, sc, bounds,
                                                        rec[slot] if slot >= 0 else bounds,
                                                        f if gathered else -1, p, gathered, capl, capr)
            st[S_SWEEPS] += swept
            vl, xl, fl = side_value(majority_class(sc[SC_TOTL])[1], el, fl, capl, lo_l, lam_n)
            vr, xr, fr = side_value(majority_class(sc[SC_TOTR])[1], er, fr, capr, lo_r, lam_n)
            if xl and xr and vl + vr < best:
                best = vl + vr
                tree[0, 0] = f
                tree[1, 0] = rf[o[p - 1]]
                write_stump(tree, write_stump(tree, 1, fl, tl), fr, tr)
            tail = push(ivi, ivv, tail, a, mid, la, ra, vl, vr, sa, slot)
            tail = push(ivi, ivv, tail, mid, b, vl, vr, lb, rb, slot, sb)
    return best


@njit(cache=True, inline="always")
def side_value(leaf, e, f, cap, lo, lam_n):
    """A side's cost, whether it is exact, and its stump's column (-1: a leaf): the stump found when below ``cap``
    and better than a leaf, else the leaf when no stump can beat it (every stump errs at least ``cap``), else a lower
    bound."""
    v = leaf + lam_n
    if f >= 0 and e < cap and e + 2.0 * lam_n < v:
        return e + 2.0 * lam_n, True, f
    if v <= cap + 2.0 * lam_n or (f >= 0 and e < cap):
        return v, True, -1
    return max(lo, cap + 2.0 * lam_n), False, -1


# ----------------------------------------------------------------------------------------------------------------
# deeper subproblems: frames
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def partition(data, lev, i, n, want):
    """The rows of level ``i`` on side ``want`` as level ``i + 1``, each column's order kept (a stable filter), and
    the sums of their keys."""
    ords, side, keys = lev.ords, lev.side, data.keys
    h1, h2 = np.uint64(0), np.uint64(0)
    src = ords[i, 0]
    for j in range(n):
        r = src[j]
        if side[r] == want:
            h1 += keys[0, r]
            h2 += keys[1, r]
    lev.hash[i + 1, 0], lev.hash[i + 1, 1] = h1, h2
    k = 0
    for g in range(ords.shape[1]):
        src, dst = ords[i, g], ords[i + 1, g]
        k = 0
        for j in range(n):
            r = src[j]
            if side[r] == want:
                dst[k] = r
                k += 1
    lev.nrows[i + 1] = k


@njit(cache=True)
def depth_budget(d, ub, lam_n):
    """The depth budget a tree costing less than ``ub`` can use: at most ``d``, and with ``lam_n > 0`` fewer leaves
    than ``ub / lam_n``, so a depth below that number minus one (a tree of ``L`` leaves has depth <= ``L - 1``;
    ConTree's node budget).  The slack keeps a rounded quotient from ruling out a tree."""
    if lam_n <= 0.0:
        return d
    return max(0, min(d, np.int64(np.floor(ub / lam_n + 1e-9)) - 1))


@njit(cache=True)
def start_child(data, lev, fr, st, memo, i, want, ub, lam_n, sc):
    """Level ``i + 1`` as the left (``want`` 1) or right (0) child of frame ``i``'s split in progress, asked for a
    tree below ``ub``: answered from the memo when it knows enough, else solved at once at depth <= 2 (its result
    left in ``fv[i + 1]``), else a new frame."""
    fi, fv = fr.fi, fr.fv
    p, n = lev.bpos[i, fi[i, FI_MID]], lev.nrows[i]
    mark_side(lev.ords[i, fi[i, FI_F]], n, p, lev.side)
    partition(data, lev, i, n, want)
    d = fi[i, FI_D] - 1
    fv[i + 1, FV_UB] = ub
    h1, h2, nc = lev.hash[i + 1, 0], lev.hash[i + 1, 1], lev.nrows[i + 1]
    e = memo_find(memo, h1, h2, d, nc)
    if e >= 0 and (memo.val[e] < np.inf or memo.lb[e] >= ub):
        st[S_HITS] += 1
        if memo.val[e] < ub:
            copy_subtree(memo.trees[e], lev.trees[i + 1, BEST], 0)
            fv[i + 1, FV_BEST] = memo.val[e]
        else:
            fv[i + 1, FV_BEST] = max(memo.lb[e], ub)
        return
    if depth_budget(d, ub, lam_n) <= 2:
        v = depth2(data, lev, i + 1, depth_budget(d, ub, lam_n), lam_n, ub, sc, st)
        fv[i + 1, FV_BEST] = v
        st[S_DEPTH2] += 1
        memo_store(memo, h1, h2, d, nc, ub if v >= ub else v, v if v < ub else np.inf, lev.trees[i + 1, BEST])
    else:
        fi[i + 1, FI_D] = d
        fi[i + 1, FI_PHASE] = OPEN
        st[S_TOP] = i + 1


@njit(cache=True)
def open_frame(data, lev, fr, st, i, lam_n, sc):
    """A new frame: the leaf, then the depth-2 tree as its first incumbent; False when no split can beat them."""
    fi, fv = fr.fi, fr.fv
    best = depth2(data, lev, i, 2, lam_n, fv[i, FV_UB], sc, st)
    fv[i, FV_BEST] = best
    fi[i, FI_C] = -1  # columns in lev.order[i], which depth2 has just set
    fi[i, FI_F] = -1
    fi[i, FI_SP] = fi[i, FI_HEAD] = 0
    tot = sc[SC_TOT]  # the class weights of the frame's rows, which depth2 counted first and leaves as they are
    _, err = majority_class(tot)
    return err > 0.0 and 3.0 * lam_n < best


@njit(cache=True)
def next_interval(data, lev, fr, st, memo, i, lam_n, sc):
    """Pop intervals of frame ``i`` until one survives its bound, then start its middle split's left child;
    False when the column is exhausted."""
    fi, fv = fr.fi, fr.fv
    ivi, ivv, bpos, cw = lev.ivi[i], lev.ivv[i], lev.bpos[i], lev.cw[i]
    n, nb = lev.nrows[i], fi[i, FI_NB]
    head, tail = fi[i, FI_HEAD], fi[i, FI_SP]
    while head < tail:
        sp = head % ivi.shape[0]
        head += 1
        a, b = ivi[sp, 0], ivi[sp, 1]
        if b - a <= 1:
            continue
        wab = cw[n if b >= nb else bpos[b]] - cw[0 if a < 0 else bpos[a]]
        bound, lo_l, lo_r = positions_bound(data, ivv, sp, wab, lam_n)
        if bound >= fv[i, FV_BEST]:
            continue
        lo, hi = positions_left(data, ivv, sp, a, b, nb, n, bpos, cw, fv[i, FV_BEST])
        if lo > hi:
            continue
        mid = (lo + hi) // 2
        p = bpos[mid]
        fi[i, FI_HEAD] = head
        fi[i, FI_A], fi[i, FI_B], fi[i, FI_MID] = a, b, mid
        fv[i, FV_LA], fv[i, FV_RA], fv[i, FV_LB], fv[i, FV_RB] = ivv[sp, 0], ivv[sp, 1], ivv[sp, 2], ivv[sp, 3]
        fv[i, FV_LBL], fv[i, FV_LBR] = lo_l, lo_r
        # the larger side first; the second is asked for the room left plus the weight from the split to the far
        # end of the interval, so that a failure there proves the whole interval (ConTree's half distance)
        fv[i, FV_H] = max(cw[p] - cw[bpos[lo]], cw[bpos[hi]] - cw[p])
        first = 1 if 2.0 * cw[p] >= cw[n] else 0
        fi[i, FI_FIRST] = first
        st[S_NODES] += 1
        fi[i, FI_PHASE] = WAIT_FIRST
        start_child(data, lev, fr, st, memo, i, first, fv[i, FV_BEST] - (lo_r if first == 1 else lo_l), lam_n, sc)
        return True
    fi[i, FI_SP] = fi[i, FI_HEAD] = 0
    return False


@njit(cache=True)
def split_done(lev, fr, i, vl, vr):
    """Frame ``i``'s split in progress is evaluated (``vl``, ``vr``: its children's costs or lower bounds): keep it
    if it is the best so far and push the two halves of its interval."""
    fi, fv = fr.fi, fr.fv
    tail = fi[i, FI_SP]
    a, b, mid = fi[i, FI_A], fi[i, FI_B], fi[i, FI_MID]
    ivi, ivv = lev.ivi[i], lev.ivv[i]
    tail = push(ivi, ivv, tail, a, mid, fv[i, FV_LA], fv[i, FV_RA], vl, vr)
    tail = push(ivi, ivv, tail, mid, b, vl, vr, fv[i, FV_LB], fv[i, FV_RB])
    fi[i, FI_SP] = tail
    fi[i, FI_PHASE] = POP


@njit(cache=True)
def keep_split(data, lev, fr, st, i, total):
    """Frame ``i``'s best tree becomes its split in progress: its first child's tree is in ``trees[i, FIRST]``,
    its second's in ``trees[i + 1, BEST]``."""
    fi, fv = fr.fi, fr.fv
    f, p = fi[i, FI_F], lev.bpos[i, fi[i, FI_MID]]
    tree = lev.trees[i, BEST]
    tree[0, 0] = f
    tree[1, 0] = data.R[f, lev.ords[i, f, p - 1]]
    left, right = lev.trees[i, FIRST], lev.trees[i + 1, BEST]
    if fi[i, FI_FIRST] == 0:
        left, right = right, left
    copy_subtree(right, tree, copy_subtree(left, tree, 1))
    fv[i, FV_BEST] = total
    st[S_IMPNODES] = st[S_NODES]


@njit(cache=True)
def run(data, lev, fr, st, memo, lam_n, node_limit, work, sc):
    """Run the frames for at most ``work`` actions; returns DONE (the root frame has returned: its best tree
    and cost are in ``trees[0, BEST]`` and ``fv[0, FV_BEST]``), NODE_LIMIT or RUNNING."""
    fi, fv = fr.fi, fr.fv
    done = 0
    while st[S_TOP] >= 0 and done < work:
        if st[S_NODES] >= node_limit:
            return NODE_LIMIT
        done += 1
        i = st[S_TOP]
        ph = fi[i, FI_PHASE]
        if ph == OPEN:
            fi[i, FI_PHASE] = NEXT_COLUMN if open_frame(data, lev, fr, st, i, lam_n, sc) else -1
        elif ph == NEXT_COLUMN:
            c = fi[i, FI_C] + 1
            if c >= data.R.shape[0] or fv[i, FV_BEST] <= 3.0 * lam_n:
                fi[i, FI_PHASE] = -1
                continue
            fi[i, FI_C] = c
            f = lev.order[i, c]
            fi[i, FI_F] = f
            nb = column_splits(data, lev.ords, i, lev.nrows[i], f, lev.bpos[i], lev.cw[i])
            fi[i, FI_NB] = nb
            if nb > 0:
                fi[i, FI_HEAD] = 0
                fi[i, FI_SP] = push(lev.ivi[i], lev.ivv[i], 0, -1, nb, 0.0, lam_n, lam_n, 0.0)
                fi[i, FI_PHASE] = POP
        elif ph == POP:
            if not next_interval(data, lev, fr, st, memo, i, lam_n, sc):
                fi[i, FI_PHASE] = NEXT_COLUMN
        elif ph == WAIT_FIRST:
            v1, first = fv[i + 1, FV_BEST], fi[i, FI_FIRST]
            fv[i, FV_V1] = v1
            found = v1 < fv[i + 1, FV_UB]
            fi[i, FI_FOUND] = found
            if found:
                copy_subtree(lev.trees[i + 1, BEST], lev.trees[i, FIRST], 0)
            # the second child, below what is left, even when the first found nothing (its bound then sharpens the
            # interval's); not when it cannot beat the interval's bound of it
            ub2 = min(fv[i, FV_BEST] - v1 + fv[i, FV_H], fv[0, FV_UB])  # below the root's bound: trees fit
            lo2 = fv[i, FV_LBR] if first == 1 else fv[i, FV_LBL]
            if found or ub2 > lo2:
                fi[i, FI_PHASE] = WAIT_SECOND
                start_child(data, lev, fr, st, memo, i, 1 - first, ub2, lam_n, sc)
            elif first == 1:
                split_done(lev, fr, i, v1, lo2)
            else:
                split_done(lev, fr, i, lo2, v1)
        elif ph == WAIT_SECOND:
            v1, v2 = fv[i, FV_V1], fv[i + 1, FV_BEST]
            if fi[i, FI_FOUND] and v2 < fv[i + 1, FV_UB] and v1 + v2 < fv[i, FV_BEST]:
                keep_split(data, lev, fr, st, i, v1 + v2)
            if fi[i, FI_FIRST] == 1:
                split_done(lev, fr, i, v1, v2)
            else:
                split_done(lev, fr, i, v2, v1)
        else:  # the frame has returned: its parent reads fv[i, FV_BEST] against fv[i, FV_UB]
            st[S_TOP] = i - 1
            if i > 0:
                v, ub = fv[i, FV_BEST], fv[i, FV_UB]
                memo_store(memo, lev.hash[i, 0], lev.hash[i, 1], fi[i, FI_D], lev.nrows[i], ub if v >= ub else v,
                           v if v < ub else np.inf, lev.trees[i, BEST])
    return DONE if st[S_TOP] < 0 else RUNNING
