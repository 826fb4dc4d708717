"""The arrays of the search over sorted orders (:mod:`optbb.osdt.numeric.kernel`) and the small kernels its frames
and its depth-2 stage (:mod:`optbb.osdt.numeric.depth2`) share: tree writing, the interval queue and its bounds, a
column's split positions.
"""
from __future__ import annotations

from collections import namedtuple

from ...common.jit import njit
from ..bounds import interval_bound, shrink_interval

# ``R`` int32 (m, N): the rank of each row's value per column; ``y`` int64 class indices; ``w`` float64 integer
# weights (all 1 when unweighted); ``keys`` uint64 (2, N) the rows' random keys (:mod:`optbb.osdt.numeric.memo`);
# ``ip`` int64 the switches of the bounds (``P_*``, 1: on).
Data = namedtuple("Data", "R y w keys ip")
# the switches: the interval bound (:func:`~optbb.osdt.bounds.interval_bound`), the interval's shrinking
# (:func:`~optbb.osdt.bounds.shrink_interval`), the records of the columns' stumps
# (:func:`~optbb.osdt.bounds.records_bound`, :func:`~optbb.osdt.bounds.column_bounds`); with one off, its place
# takes the bound every split has (two leaves) or nothing; and the depth of the stage a frame opens with (its first
# incumbent: 2, or 1 in a probe, see :func:`~optbb.osdt.numeric.engine.solve_cuts`)
P_INTERVAL, P_SHRINK, P_RECORDS, P_OPEN, P_LEAVES = range(5)
N_IP = 5
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
# ``d2`` float64 (:data:`N_D2`,): what the depth-2 stage in progress keeps between two pieces (``D2_*``).
Levels = namedtuple("Levels", "ords nrows bpos cw ivi ivv trees order side colbest hash buf rec hist loc lw d2")
# Frames, one per level: ``fi[level, FI_*]`` integers, ``fv[level, FV_*]`` floats (``FV_OPEN``: the cost of the
# frame's first incumbent, its stage's optimum or its bound ``FV_UB``).
Frames = namedtuple("Frames", "fi fv")
FI_D, FI_F, FI_SP, FI_PHASE, FI_A, FI_B, FI_MID, FI_NB, FI_C, FI_FIRST, FI_HEAD, FI_FOUND = range(12)
N_FI = 12
FV_UB, FV_BEST, FV_LA, FV_RA, FV_LB, FV_RB, FV_LBL, FV_LBR, FV_V1, FV_H, FV_OPEN = range(11)
N_FV = 11
# phases of a frame; STAGE: its depth-2 stage is in progress (:mod:`optbb.osdt.numeric.depth2`)
OPEN, NEXT_COLUMN, POP, WAIT_FIRST, WAIT_SECOND, STAGE = range(6)
BEST, FIRST = 0, 1
# int64 state: the stack's top, counters, the work left in the current piece (``S_BUDGET``: an action of a frame
# costs 1, a sweep of ``n`` rows ``n``), whether the root's depth-2 optimum is known (``S_ROOT2``, its cost in
# ``d2[D2_ROOT]``), and the depth-2 stage in progress (``S_D2``: 1 while it is; its level, kind (``D2_*``), column
# counter, number of splits of that column, queue ends, next record slot, whether its rows are gathered)
S_TOP, S_NODES, S_DEPTH2, S_IMPNODES, S_HITS, S_POSITIONS, S_SWEEPS, S_BUDGET, S_ROOT2 = range(9)
S_D2, S_D2LV, S_D2KIND, S_D2C, S_D2NB, S_D2HEAD, S_D2TAIL, S_D2FREE, S_D2GATH = range(9, 18)
N_ST = 18
# kinds of depth-2 stage: on its own (the blocks start: no frame), a frame's first incumbent, a child solved at
# depth <= 2 (or the whole search at depth <= 2); the last two read their bound from and leave their best in ``fv``
D2_FREE, D2_OPEN, D2_CHILD = range(3)
# ``d2``: the stage's best cost, the cost of its stump of S (the queue's first interval), the root's depth-2 optimum
D2_BEST, D2_STUMP, D2_ROOT = range(3)
N_D2 = 3
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
