"""The depth-2 stage of the search over sorted orders: the optimal tree of depth <= 2 of a node's rows
(:mod:`optbb.osdt.numeric.kernel`, module docstring), run in pieces.

A stage evaluates the leaf and the stump of ``S`` (one sweep of every column: :func:`depth2_begin`), then root
positions column by column under the interval bounds (:func:`depth2_more`), each position one pass over the columns
(:func:`~optbb.osdt.numeric.stumps.side_stumps`).  On a million rows a stage took seconds (7 s at the root of
``make_classification(10**6, 10)``), longer than a time limit may allow, so it spends the work budget
``st[S_BUDGET]`` (a sweep of ``n`` rows costs ``n``) and, when that runs out between two positions, keeps its
state (``st[S_D2*]``, ``lev.d2``) and returns; :func:`depth2_more` goes on from there.  One stage is in progress at
a time: the frames' stage is the top frame's (phase ``STAGE``), and the blocks start runs its stages before the
frames.  What the stage keeps between pieces besides its state (its level's positions, prefix weights and
interval queue, the records, the gathered rows, the class weights in ``sc``) nothing else writes meanwhile.
"""
from __future__ import annotations

import numpy as np

from ...common.bounds import majority_class
from ...common.jit import njit
from ..bounds import column_bounds, records_bound
from .layout import (BEST, D2_BEST, D2_FREE, D2_STUMP, FV_BEST, FV_UB, P_RECORDS, S_BUDGET, S_D2, S_D2C,
                     S_D2FREE, S_D2GATH, S_D2HEAD, S_D2KIND, S_D2LV, S_D2NB, S_D2TAIL, S_POSITIONS, S_SWEEPS,
                     column_splits, positions_bound, positions_left, push, write_stump)
from .stumps import (SC_TOT, SC_TOTL, SC_TOTR, class_totals, gather_rows, mark_rows, mark_side, mark_split,
                     order_by, side_stumps)


@njit(cache=True)
def depth2_begin(data, lev, fv, lv, depth, lam_n, ub, sc, st, kind):
    """Start the stage of the rows of level ``lv``: the optimal tree of depth <= ``depth`` (0, 1 or 2) costing less
    than ``ub``, of kind ``kind`` (``D2_*``).  Returns its best cost so far; ``st[S_D2]`` is 0 when the stage has
    ended, its cost then the optimum with the tree in ``lev.trees[lv, BEST]``, or ``ub`` when no tree costs less (a
    lower bound of the optimum), and 1 when :func:`depth2_more` has more to do.  Depth 2: every root position of
    every column under the interval bounds, each side's stumps capped at what could still beat the best tree with
    the other side at its bound (a side above its cap gets a lower bound, which the intervals take as well as an
    exact cost).  ``st[S_POSITIONS]`` counts the root positions evaluated, ``st[S_SWEEPS]`` the columns swept for
    them."""
    R, y, w = data.R, data.y, data.w
    n, ords, side, tree = lev.nrows[lv], lev.ords, lev.side, lev.trees[lv, BEST]
    st[S_D2] = 0
    tot = sc[SC_TOT]
    class_totals(ords[lv, 0], n, y, w, tot)
    st[S_BUDGET] -= n
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
    rec[0, :, :] = 0.0
    e1, f1, t1, _, _, _, swept = side_stumps(data, lev, lv, n, sc, rec[0], rec[1], -1, n, gathered, np.inf,
                                             np.inf)
    st[S_SWEEPS] += swept
    st[S_BUDGET] -= n * (swept + 1)
    for g in range(rec.shape[2]):  # a loop: an array assignment would compile Numba's shape-check messages
        rec[0, 1, g] = rec[1, 0, g]
    order_by(lev.order[lv], lev.colbest)
    d1 = err + lam_n
    if f1 >= 0 and e1 + 2.0 * lam_n < d1:
        d1 = e1 + 2.0 * lam_n
    if d1 < best:
        best = d1
        write_stump(tree, 0, f1, t1)
    if depth == 1 or e1 <= 0.0 or 3.0 * lam_n >= best:
        return best
    st[S_D2], st[S_D2LV], st[S_D2KIND], st[S_D2GATH] = 1, lv, kind, gathered
    st[S_D2C], st[S_D2NB], st[S_D2HEAD], st[S_D2TAIL], st[S_D2FREE] = -1, 0, 0, 0, 2
    lev.d2[D2_BEST], lev.d2[D2_STUMP] = best, d1
    return depth2_more(data, lev, fv, lam_n, sc, st)


@njit(cache=True)
def depth2_more(data, lev, fv, lam_n, sc, st):
    """Go on with the stage in progress (:func:`depth2_begin`) until it ends or ``st[S_BUDGET]`` runs out; returns
    its best cost so far (left in ``fv`` too, unless the stage is ``D2_FREE``).  A frame's stage first takes the
    frame's bound, which a CART tree taken between two pieces may have lowered (the stage's tree then beats it or
    none is kept: the cost returned is that bound)."""
    lv, kind = st[S_D2LV], st[S_D2KIND]
    best = lev.d2[D2_BEST]
    if kind != D2_FREE:
        best = min(best, fv[lv, FV_UB])
    R = data.R
    n, ords, tree = lev.nrows[lv], lev.ords, lev.trees[lv, BEST]
    tot, rec, order = sc[SC_TOT], lev.rec, lev.order[lv]
    bounds = rec[rec.shape[0] - 1]  # the last slot: the bounds at the position being evaluated
    bpos, cw, ivi, ivv = lev.bpos[lv], lev.cw[lv], lev.ivi[lv], lev.ivv[lv]
    gathered = st[S_D2GATH] == 1
    c, nb, head, tail, free = st[S_D2C], st[S_D2NB], st[S_D2HEAD], st[S_D2TAIL], st[S_D2FREE]
    while True:
        if head >= tail:  # the next column
            c += 1
            if c >= R.shape[0]:
                break
            nb = column_splits(data, ords, lv, n, order[c], bpos, cw)
            st[S_BUDGET] -= n
            d1 = lev.d2[D2_STUMP]
            head, tail, free = 0, push(ivi, ivv, 0, -1, nb, 0.0, d1, d1, 0.0, 0, 1) if nb > 0 else 0, 2
            continue
        if st[S_BUDGET] <= 0:
            st[S_D2C], st[S_D2NB], st[S_D2HEAD], st[S_D2TAIL], st[S_D2FREE] = c, nb, head, tail, free
            lev.d2[D2_BEST] = best
            if kind != D2_FREE:
                fv[lv, FV_BEST] = best
            return best
        f = order[c]
        o, rf = ords[lv, f], R[f]
        sp = head % ivi.shape[0]  # first in, first out: the positions spread over the column before they narrow
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
            mark_split(data, o, n, p, lev.side, tot, sc[SC_TOTL], sc[SC_TOTR])
        if data.ip[P_RECORDS]:
            column_bounds(rec, sa, sb, cw[p] - cw[0 if a < 0 else bpos[a]], cw[n if b >= nb else bpos[b]] - cw[p],
                          bounds)
        else:
            for g in range(bounds.shape[1]):  # no bound: every column is swept
                bounds[0, g] = 0.0
                bounds[1, g] = 0.0
        slot = free if free < rec.shape[0] - 1 else -1
        free += 1
        capl, capr = best - lo_r - 2.0 * lam_n, best - lo_l - 2.0 * lam_n
        el, fl, tl, er, fr, tr, swept = side_stumps(data, lev, lv, n, sc, bounds, rec[slot] if slot >= 0 else bounds,
                                                    f if gathered else -1, p, gathered, capl, capr)
        st[S_SWEEPS] += swept
        st[S_BUDGET] -= n * (swept + 1)
        vl, xl, fl = side_value(majority_class(sc[SC_TOTL])[1], el, fl, capl, lo_l, lam_n)
        vr, xr, fr = side_value(majority_class(sc[SC_TOTR])[1], er, fr, capr, lo_r, lam_n)
        if xl and xr and vl + vr < best:
            best = vl + vr
            tree[0, 0] = f
            tree[1, 0] = rf[o[p - 1]]
            write_stump(tree, write_stump(tree, 1, fl, tl), fr, tr)
        tail = push(ivi, ivv, tail, a, mid, la, ra, vl, vr, sa, slot)
        tail = push(ivi, ivv, tail, mid, b, vl, vr, lb, rb, slot, sb)
    st[S_D2] = 0
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
