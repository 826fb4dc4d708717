"""The arrays of one Rashomon construction of trees: the training rows packed, the subproblem store, the pools of
pairs and options, the widening plan and the stack of optimum evaluations, with the chunk state.  The kernels of
:mod:`optbb.osdt.rashomon.search` fill them; Python allocates them and grows them between chunks.

- the rows: :data:`optbb.osdt.support.Packed` (the amount of a set ``S`` of rows is
  ``sum_l mult[l] * popcount(S & layer l)`` weight units; unweighted data is one layer of amount 1).
- ``Nodes``: one entry per subproblem, its id stable: ``rows[i]`` its key, the support's words then the depth
  budget in the last word, found through the key index ``index`` / ``ehash`` (:mod:`optbb.common.keyindex`);
  ``ints[i, N_*]``: its number of rows, its leaf (errors and label: the majority class, ties to the larger class),
  its equivalent-points amount, the state of its optimum, and the offset and length of its pairs and of its options
  in the pools; ``vals[i, V_*]``: its optimum (``EXACT``) or a lower bound above the last cutoff asked (``BOUND``),
  the budget its pairs cover and the budget the widening asks of it (-inf: none); ``sides[ints[i, N_SIDES] + f]``
  the equivalent-points amount of the one side of its split on ``f``, counted once for the subproblems whose splits
  are tried (``N_SIDES`` is -1 before; most subproblems are leaves of the depth budget).
- ``Pools``: pairs ``keys`` (``errors * KEY + leaves``, sorted per subproblem) with ``counts``; options ``feat``,
  ``left`` (the zero side's id), ``right`` (the one side's) and ``useless`` (1: the split into two leaves lowers no
  errors, which ``exclude_useless`` leaves out).  A subproblem widened again appends its new pairs and options; the
  old ones stay unused.
- ``Plan``: the widening pass: ``ints[:, P_HEAP]`` the heap of ids, and per planned subproblem ``ints[p, P_NODE]``,
  its ``limit[p]`` and its candidate splits ``cands[ints[p, P_CAND_OFF]:...]`` (``C_FEAT``, ``C_LEFT``,
  ``C_RIGHT``, and once built ``C_KEPT``, whether the split adds a tree within the limit, and ``C_USELESS``).
- ``Rows``: the rows one by one, for what the units cannot decide alone: ``y`` their classes, ``w`` their weights
  (float64) and ``amounts`` (float64, one per class) a scratch.  Where the units of two classes of a leaf, or the
  errors of a split into two leaves and of its subproblem, are within ``fs[F_MARGIN]`` units of each other (0 for
  exact units: a tie; -1 for unweighted or integer data, whose float sums are exact), the float sums of the weights
  in row order decide, as ``np.bincount`` and the models make them (:func:`optbb.osdt.support.leaf_stat`).
- ``table``: the pair table the bottom-up pass convolves into (:data:`~optbb.osdt.rashomon.pairs.PairTable`).
- ``Frames``: the optimum evaluations in progress (``fi[k, FI_*]``, ``fv[k, FV_*]``) and ``buf``, the key being
  looked up.

A subproblem's fields are columns of a few arrays: few arrays to pass and to grow, and a subproblem's fields side
by side in memory.

``st`` (int64) and ``fs`` (float64) hold the chunk state and the constants, at the ``S_*`` and ``F_*`` indices.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.growth import grow
from ...common.keyindex import index_capacity, new_index, reindex
from .pairs import new_pair_table

Nodes = namedtuple("Nodes", "index ehash rows ints vals sides")
Pools = namedtuple("Pools", "keys counts feat left right useless")
Plan = namedtuple("Plan", "ints limit cands")
Frames = namedtuple("Frames", "fi fv buf")
Rows = namedtuple("Rows", "y w amounts")

# st: the mode and phase of the chunk machine, the frame top, counters, what a NEED_MEMORY asks, the widening pass's
# cursor, the pools' fill, the constants, an optimum asked (its support in ``frames.buf``) and its depth budget, the
# fill of ``nodes.sides``
(S_MODE, S_PHASE, S_TOP, S_EVALS, S_NODES, S_SOLVED, S_NODE_LIMIT, S_RET_ID, S_NEED, S_NEED_PAIRS, S_NEED_OPTIONS,
 S_CUR, S_CURSOR, S_LEFT, S_HEAP, S_PLANNED, S_CANDS, S_BUILD, S_PAIRS, S_OPTIONS, S_ROOT, S_K, S_EXCLUDE, S_ASKING,
 S_ASK_D, S_SIDES) = range(26)
N_ST = 26
# fs: the constants, the value an evaluation returned, the cutoff of the optimum asked, the widening pass's current
# limit and split
F_TOTAL, F_LAM, F_RET, F_CUTOFF, F_LIMIT, F_LB_R, F_O_L, F_MARGIN = range(8)
N_FS = 8
# a frame: its subproblem, depth budget, feature cursor and phase; its cutoff, the cutoff plus tolerance, the best
# tree so far, the least bound of the splits set aside, and the split in progress (its threshold, the one side's
# lower bound, the cost so far)
FI_ID, FI_D, FI_F, FI_PHASE = range(4)
FV_CUTOFF, FV_TOP, FV_BEST, FV_FLOOR, FV_T, FV_LB_R, FV_LOW = range(7)
N_SIZE, N_ERRORS, N_LABEL, N_MINORITY, N_STATE, N_PAIR_OFF, N_PAIR_LEN, N_OPT_OFF, N_OPT_LEN, N_SIDES = range(10)
V_OPT, V_BUDGET, V_WANT = range(3)
P_HEAP, P_NODE, P_CAND_OFF, P_CAND_LEN = range(4)
C_FEAT, C_LEFT, C_RIGHT, C_KEPT, C_USELESS = range(5)
# modes of the chunk machine
M_IDLE, M_OPTIMUM, M_TOPDOWN, M_BUILD = range(4)
# optimum states
UNSOLVED, BOUND, EXACT = range(3)
# what a NEED_MEMORY asks for
NEED_NODES, NEED_POOLS, NEED_PLAN, NEED_SIDES, NEED_TABLE = range(5)

FIRST_NODES, FIRST_PAIRS, FIRST_PLAN, FIRST_TABLE = 1024, 4096, 256, 1024


def new_nodes(capacity: int, key_words: int, n_features: int) -> Nodes:
    """An empty store of ``capacity`` subproblems (keys of ``key_words`` words)."""
    z, cap = np.zeros, capacity
    return Nodes(new_index(index_capacity(cap)), z(cap, np.uint64), z((cap, key_words), np.uint64),
                 z((cap, 10), np.int64), z((cap, 3), np.float64), z(cap * max(n_features, 1) // 4, np.int64))


def new_pools(pairs: int, options: int) -> Pools:
    z = np.zeros
    return Pools(z(pairs, np.int64), z(pairs, np.int64), z(options, np.int64), z(options, np.int64),
                 z(options, np.int64), z(options, np.uint8))


def new_plan(capacity: int, cands: int) -> Plan:
    return Plan(np.zeros((capacity, 4), np.int64), np.zeros(capacity, np.float64), np.zeros((cands, 5), np.int64))


def new_frames(rows: int, key_words: int) -> Frames:
    return Frames(np.zeros((rows, 4), np.int64), np.zeros((rows, 7), np.float64), np.zeros(key_words, np.uint64))


def new_state(total: int, lam: float, n_classes: int, exclude: bool, node_limit: int | None, margin: int = -1):
    st = np.zeros(N_ST, np.int64)
    st[S_TOP], st[S_ROOT] = -1, -1
    st[S_NODE_LIMIT] = (1 << 62) if node_limit is None else int(node_limit)
    st[S_K], st[S_EXCLUDE] = n_classes, int(exclude)
    fs = np.zeros(N_FS, np.float64)
    fs[F_TOTAL], fs[F_LAM], fs[F_MARGIN] = float(total), lam, float(margin)
    return st, fs


class Store:
    """The arrays of a construction (``nodes``, ``pools``, ``plan``, ``frames``, ``st``, ``fs``) and their growth
    under a memory limit."""

    def __init__(self, n_words: int, n_features: int, depth: int, total: int, lam: float, n_classes: int,
                 exclude: bool, node_limit: int | None, margin: int = -1):
        self.nodes = new_nodes(FIRST_NODES, n_words + 1, n_features)
        self.pools = new_pools(FIRST_PAIRS, FIRST_NODES)
        self.plan = new_plan(FIRST_PLAN, FIRST_PLAN)
        # a path splits at most min(depth, features) times (a feature split again leaves one side empty)
        self.frames = new_frames(int(min(depth, n_features)) + 2, n_words + 1)
        self.table = new_pair_table(FIRST_TABLE)
        self.st, self.fs = new_state(total, lam, n_classes, exclude, node_limit, margin)

    def arrays(self) -> list:
        return [*self.nodes, *self.pools, *self.plan, *self.frames, *self.table, self.st, self.fs]

    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for a in self.arrays()))

    def grow(self, memory_limit: int | None, stop) -> bool:
        """Enlarge what the last chunk ran out of (``st[S_NEED]``), doubling it: False when ``memory_limit``
        forbids it (the old arrays and the new ones are alive together while copying); may raise
        :class:`~optbb.common.growth.GrowthStopped`."""
        need, st = int(self.st[S_NEED]), self.st
        if need == NEED_NODES:
            grown = {"nodes": 2 * self.nodes.ints.shape[0]}
        elif need == NEED_POOLS:
            grown = {"pairs": _enough(self.pools.keys.shape[0], int(st[S_PAIRS] + st[S_NEED_PAIRS])),
                     "options": _enough(self.pools.feat.shape[0], int(st[S_OPTIONS] + st[S_NEED_OPTIONS]))}
        elif need == NEED_PLAN:
            grown = {"plan": _enough(self.plan.limit.shape[0], int(max(st[S_HEAP] + 2, st[S_PLANNED] + 1))),
                     "cands": _enough(self.plan.cands.shape[0], int(st[S_CANDS] + 1))}
        elif need == NEED_SIDES:
            grown = {"sides": 2 * self.nodes.sides.shape[0]}
        else:  # room for twice as many keys as the build that stopped held
            grown = {"table": _enough(self.table.keys.shape[0], 1 << int(4 * st[S_NEED_PAIRS] - 1).bit_length())}
        groups = self._groups()
        extra = sum(sum(a.nbytes for a in groups[g]) // groups[g][0].shape[0] * size for g, size in grown.items())
        if memory_limit is not None and self.memory_bytes() + extra > memory_limit:
            return False
        for g, size in grown.items():
            if size > groups[g][0].shape[0]:
                self._resize(g, size, stop)
        return True

    def _groups(self) -> dict:
        """The arrays that grow together, by the capacity they share."""
        n, p, pl = self.nodes, self.pools, self.plan
        return {"nodes": (n.ints, n.ehash, n.rows, n.vals, n.index), "sides": (n.sides,),
                "pairs": (p.keys, p.counts), "options": (p.feat, p.left, p.right, p.useless),
                "plan": (pl.limit, pl.ints), "cands": (pl.cands,), "table": self.table}

    def _resize(self, group: str, size: int, stop) -> None:
        if group == "nodes":
            index = reindex(self.nodes.ehash, int(self.st[S_NODES]), index_capacity(size), stop)
            rest = [grow(a, size, stop) for a in self.nodes[1:5]]
            self.nodes = Nodes(index, *rest, self.nodes.sides)
        elif group == "sides":
            self.nodes = self.nodes._replace(sides=grow(self.nodes.sides, size, stop))
        elif group in ("pairs", "options"):
            fields = ("keys", "counts") if group == "pairs" else ("feat", "left", "right", "useless")
            self.pools = self.pools._replace(**{f: grow(getattr(self.pools, f), size, stop) for f in fields})
        elif group == "plan":
            self.plan = self.plan._replace(ints=grow(self.plan.ints, size, stop),
                                           limit=grow(self.plan.limit, size, stop))
        elif group == "cands":
            self.plan = self.plan._replace(cands=grow(self.plan.cands, size, stop))
        else:
            self.table = new_pair_table(size)


def _enough(capacity: int, needed: int) -> int:
    """``capacity``, or at least doubled when ``needed`` passes it."""
    return capacity if needed <= capacity else max(2 * capacity, needed)
