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

Depth <= 2 subproblems are solved by a depth-2 stage (:mod:`optbb.osdt.numeric.depth2`): for a root position, one
pass over each column (its order, or its class weights by value: :mod:`optbb.osdt.numeric.stumps`) gives the best
stump of both sides, capped at what could still beat the best tree, and root positions are pruned by the same
interval bounds, the ends being the empty side (cost 0) and the stump of ``S``.  The same two bounds hold for each
column's best stump on each side, so an evaluated position leaves a record of them (:func:`column_bounds`), and a
column whose bound at a later position is no better than the best stump found there is not swept; an interval's
positions are also bounded by the least column bound of each side (:func:`records_bound`), which is larger than
the sides' bounds alone when the best columns at its two ends differ.  Deeper subproblems are frames of an
explicit stack, run in chunks of ``work`` units by :func:`run` (a stage too: it stops between two positions when
the chunk's work is spent and goes on in the next), so a search returns to Python between chunks.

A tree is written in preorder into ``trees[level, slot]`` (int64, 2 x T): row 0 the column of a split (-1 for a
leaf), row 1 its threshold rank (left: rank <= it).
"""
from __future__ import annotations

import numpy as np

from ...common.bounds import majority_class
from ...common.jit import njit
from .depth2 import depth2_begin, depth2_more
from .layout import (BEST, D2_CHILD, D2_OPEN, D2_ROOT, DONE, FI_A, FI_B, FI_C, FI_D, FI_F, FI_FIRST, FI_FOUND,
                     FI_HEAD, FI_MID, FI_NB, FI_PHASE, FI_SP, FIRST, FV_BEST, FV_H, FV_LA, FV_LB, FV_LBL, FV_LBR,
                     FV_OPEN, FV_RA, FV_RB, FV_UB, FV_V1, NEXT_COLUMN, NODE_LIMIT, OPEN, P_LEAVES, P_OPEN, POP, RUNNING,
                     S_BUDGET, S_D2, S_D2KIND, S_DEPTH2, S_HITS, S_IMPNODES, S_NODES, S_ROOT2, S_TOP, STAGE,
                     WAIT_FIRST, WAIT_SECOND, column_splits, positions_bound, positions_left, push)
from .memo import copy_subtree, memo_find, memo_store
from .stumps import SC_TOT, class_totals, mark_side

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
    tree below ``ub``: answered from the memo when it knows enough, else solved at depth <= 2 by a stage (its
    result left in ``fv[i + 1]``; a stage that runs out of work becomes frame ``i + 1`` in phase ``STAGE``), else a
    new frame."""
    fi, fv = fr.fi, fr.fv
    p, n = lev.bpos[i, fi[i, FI_MID]], lev.nrows[i]
    mark_side(lev.ords[i, fi[i, FI_F]], n, p, lev.side)
    partition(data, lev, i, n, want)
    st[S_BUDGET] -= n * (lev.ords.shape[1] + 1)
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
    fi[i + 1, FI_D] = d
    if depth_budget(d, ub, lam_n) <= 2:
        v = depth2_begin(data, lev, fv, i + 1, depth_budget(d, ub, lam_n), lam_n, ub, sc, st, D2_CHILD)
        if st[S_D2] == 0:
            fv[i + 1, FV_BEST] = v
            st[S_DEPTH2] += 1
            memo_store(memo, h1, h2, d, nc, ub if v >= ub else v, v if v < ub else np.inf, lev.trees[i + 1, BEST])
            return
        fi[i + 1, FI_PHASE] = STAGE
    else:
        fi[i + 1, FI_PHASE] = OPEN
    st[S_TOP] = i + 1


@njit(cache=True)
def open_frame(data, lev, fr, st, i, lam_n, sc):
    """A new frame: the leaf, then the depth-2 tree (the stump in a probe: ``data.ip[P_OPEN]``) as its first
    incumbent (a stage, which may go on in phase ``STAGE``; at the root, the depth-2 optimum the blocks start found
    when it is known)."""
    fv = fr.fv
    ub = fv[i, FV_UB]
    fv[i, FV_BEST] = ub
    if i == 0 and st[S_ROOT2] == 1:  # trees[0, BEST] and order[0] are the blocks start's depth-2 stage's
        class_totals(lev.ords[0, 0], lev.nrows[0], data.y, data.w, sc[SC_TOT])
        opened(data, lev, fr, i, min(lev.d2[D2_ROOT], ub), lam_n, sc)
        return
    best = depth2_begin(data, lev, fv, i, data.ip[P_OPEN], lam_n, ub, sc, st, D2_OPEN)
    if st[S_D2] == 0:
        opened(data, lev, fr, i, best, lam_n, sc)
    else:
        fr.fi[i, FI_PHASE] = STAGE


@njit(cache=True)
def split_floor(data, lam_n):
    """Below what cost a split can still beat a frame's best tree: a frame's first incumbent is its optimal tree of
    depth <= ``D`` (``data.ip[P_OPEN]``) or its bound, so a tree of at most ``D + 1`` leaves (depth <= ``D``) does
    not beat it and a larger one costs at least ``(D + 2) lam_n``; with the switch ``P_LEAVES`` off, ``3 lam_n``
    (two leaves are a stump, which every first incumbent covers)."""
    if data.ip[P_LEAVES]:
        return (data.ip[P_OPEN] + 2) * lam_n
    return 3.0 * lam_n


@njit(cache=True)
def opened(data, lev, fr, i, best, lam_n, sc):
    """Frame ``i`` has its first incumbent ``best``: it searches its columns unless no split can beat it."""
    fi, fv = fr.fi, fr.fv
    fv[i, FV_BEST] = fv[i, FV_OPEN] = best
    fi[i, FI_C] = -1  # columns in lev.order[i], which the stage has set
    fi[i, FI_F] = -1
    fi[i, FI_SP] = fi[i, FI_HEAD] = 0
    tot = sc[SC_TOT]  # the class weights of the frame's rows, which the stage counted first and leaves as they are
    _, err = majority_class(tot)
    fi[i, FI_PHASE] = NEXT_COLUMN if err > 0.0 and split_floor(data, lam_n) < best else -1


@njit(cache=True)
def stage_more(data, lev, fr, st, i, lam_n, sc):
    """Frame ``i``'s stage goes on; once it ends, the frame has its first incumbent (``D2_OPEN``) or, a child
    solved at depth <= 2, returns its cost (``D2_CHILD``)."""
    best = depth2_more(data, lev, fr.fv, lam_n, sc, st)
    if st[S_D2] == 1:
        return
    if st[S_D2KIND] == D2_OPEN:
        opened(data, lev, fr, i, best, lam_n, sc)
    else:
        fr.fv[i, FV_BEST] = best
        st[S_DEPTH2] += 1
        fr.fi[i, FI_PHASE] = -1


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
    """Run the frames for about ``work`` units (an action costs 1, a pass over ``n`` rows ``n``: ``st[S_BUDGET]``);
    returns DONE (the root frame has returned: its best tree and cost are in ``trees[0, BEST]`` and
    ``fv[0, FV_BEST]``), NODE_LIMIT or RUNNING."""
    fi, fv = fr.fi, fr.fv
    st[S_BUDGET] = work
    while st[S_TOP] >= 0 and st[S_BUDGET] > 0:
        if st[S_NODES] >= node_limit:
            return NODE_LIMIT
        st[S_BUDGET] -= 1
        i = st[S_TOP]
        ph = fi[i, FI_PHASE]
        if ph == OPEN:
            open_frame(data, lev, fr, st, i, lam_n, sc)
        elif ph == STAGE:
            stage_more(data, lev, fr, st, i, lam_n, sc)
        elif ph == NEXT_COLUMN:
            c = fi[i, FI_C] + 1
            if c >= data.R.shape[0] or fv[i, FV_BEST] <= split_floor(data, lam_n):
                fi[i, FI_PHASE] = -1
                continue
            fi[i, FI_C] = c
            f = lev.order[i, c]
            fi[i, FI_F] = f
            nb = column_splits(data, lev.ords, i, lev.nrows[i], f, lev.bpos[i], lev.cw[i])
            st[S_BUDGET] -= lev.nrows[i]
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
