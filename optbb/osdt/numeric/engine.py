"""Depth-limited OSDT over every threshold of numeric columns, as an engine of the common search driver.

:func:`solve_cuts` is what :func:`optbb.osdt.solve` runs for a :class:`~optbb.osdt.numeric.cuts.CutDataset` with a
``max_depth``: the search of :mod:`optbb.osdt.numeric.kernel` on each column's sorted order of ranks, which needs no
matrix of cuts.  It minimises the same objective as the dp search, ``errors / N + regularization * leaves`` with
real sample weights (in the dp search's fixed-point units, so every sum is exact) and any number of classes.  The
first incumbent is the optimal tree of depth 2 with its leaves grown into optimal subtrees of depth up to 2; a CART
tree grown on the raw columns to the same depth replaces it when cheaper, before the search with regularization
(its leaves then bound the search's depth), else once the search has run :data:`CART_AFTER` seconds or stops
sooner, so a search that ends within that time does not pay for it.  A stopped search returns its best tree and a
valid lower bound.  The tree it returns reads the raw columns (``Tree.cuts``).
"""
from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from ...common import driver
from ...common.bounds import objective_value
from ...common.limits import InterruptGuard, Limits
from ...common.result import SearchResult, Status
from ...common.weights import drop_zero_weights
from .cuts import CutDataset, sorted_columns
from . import kernel as K
from .stumps import HIST_BINS, HIST_COPIES, N_SC
from .memo import entry_bytes, new_memo, row_keys, subtree_end
from ..support import weight_units
from ..cart import cart_affordable, cart_tree
from ..model import CutMap, Tree, cut_threshold
from ..support import leaf_stats_of

_BIG = 1 << 62
MAX_DEPTH = 16  # deeper limits go to the dp search over the cut matrix (a tree buffer holds 2^(d+1) nodes)
MEMO_BYTES = 64 << 20
RECORD_ENTRIES = 1 << 21  # 16 MB of records of stumps (CutEngine._record_slots)
# seconds of search before a CART tree is fitted (without regularization): scikit-learn's CART took 0.7 ms on iris
# at depth 3, a fifth of the fit, and never helped a search of 10 ms (iris, wine at depth 3 and 4)
CART_AFTER = 0.01


# the bounds of the search a user can switch off (:mod:`optbb.osdt.bounds`, ConTree's interval pruning), as the
# kernel's switches ``P_INTERVAL``, ``P_SHRINK``, ``P_RECORDS``
ABLATIONS = ("interval_bound", "interval_shrinking", "column_records")


def switches(ablation) -> np.ndarray:
    """The kernel's ``ip``: 1 for each bound of :data:`ABLATIONS` not named in ``ablation``; a ValueError names one
    it does not know."""
    unknown = sorted(set(ablation) - set(ABLATIONS))
    if unknown:
        raise ValueError(f"ablation names {unknown} are not bounds of the numeric search; known: {list(ABLATIONS)}")
    ip = np.ones(K.N_IP, dtype=np.int64)
    for slot, name in zip((K.P_INTERVAL, K.P_SHRINK, K.P_RECORDS), ABLATIONS):
        ip[slot] = name not in ablation
    return ip


class CutEngine:
    """The frames of :mod:`optbb.osdt.numeric.kernel` over ranked columns (see :func:`solve_cuts` for the arguments;
    ``values``: each column's distinct values, ascending, when already known; ``ranked``: with them, the ranks and
    orders of ``X``'s rows as :func:`~optbb.osdt.numeric.cuts.sorted_columns` gives them, not sorted again;
    ``ablation``: names of :data:`ABLATIONS` switched off)."""

    name = "osdt-cuts"

    def __init__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, n_classes: int, lam: float,
                 max_depth: int | None, column_names: list[str], binary: list[bool], *,
                 node_limit: int | None = None, memory_limit: int | None = None, values: list | None = None,
                 ranked: tuple[np.ndarray, np.ndarray] | None = None, ablation=()):
        self.X, self.y, self.w = X, y, w
        self.column_names, self.binary = [str(c) for c in column_names], [bool(b) for b in binary]
        self.n, self.m = X.shape
        self.k = int(n_classes)
        self.lam = float(lam)
        self.max_depth = None if max_depth is None else int(max_depth)
        if values is None:
            self.values, ranks, self._order = sorted_columns(X)
        elif ranked is not None and ranked[0].shape == (self.m, self.n) == ranked[1].shape:
            self.values, (ranks, self._order) = values, ranked
        else:
            self.values = values
            ranks, self._order = _ranks_and_orders(X, values)
        q = np.ones(self.n) if w is None else weight_units(w).units.astype(np.float64)
        self.data = K.Data(ranks, y.astype(np.int64), q, row_keys(self.n), switches(ablation))
        self.total = float(q.sum())
        self.lam_n = self.lam * self.total
        self.node_limit = _BIG if node_limit is None else int(node_limit)
        self.memory_limit = memory_limit
        self.inc_tree = np.array([[-1], [0]], dtype=np.int64)  # the root leaf, until a CART tree beats it
        self.inc_cost = self._cost(self.inc_tree)
        self.lev = self.fr = self.memo = None
        self.st = np.zeros(K.N_ST, dtype=np.int64)
        self.st[K.S_TOP] = -1
        self.sc = np.zeros((N_SC, self.k), dtype=np.float64)
        self.done = False
        self._best_lb = 0.0
        self.blocks_start = True  # see :meth:`_blocks_start`
        self.cart_start: Callable[[], np.ndarray] | None = None  # see :meth:`try_cart`
        self._clock = 0.0  # when the search started

    # -- arrays --------------------------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """The depth budget of the search: ``max_depth``, lowered (or, without one, set) by the leaves a tree
        cheaper than the incumbent can have (fewer than ``cost / lam_n``, so a depth below that minus one)."""
        bound = _BIG if self.lam_n <= 0 else max(0, int(np.floor(self.inc_cost / self.lam_n + 1e-9)) - 1)
        return min(bound, _BIG if self.max_depth is None else self.max_depth)

    def _tree_nodes(self) -> int:
        """Nodes a tree of the search can have: ``2^(depth + 1) - 1``, and below twice the leaves of a tree cheaper
        than the incumbent."""
        nodes = 2 << min(self.depth, 62)
        if self.lam_n > 0:
            nodes = min(nodes, 2 * int(np.floor(self.inc_cost / self.lam_n + 1e-9)) + 1)
        return max(nodes, 8)

    def _levels(self) -> int:
        return max(1, self.depth - 1)

    def planned_bytes(self) -> int:
        """Bytes of the search's arrays for this problem (orders and positions per level, trees, frames)."""
        lv, n, m, t = self._levels(), self.n, self.m, self._tree_nodes()
        memo = self._memo_entries() * entry_bytes(t)
        return (lv * (4 * (m + 1) * n + 80 * n + 32 * t) + self.data.R.nbytes + 40 * n + memo
                + 16 * m * self._record_slots() + 16 * HIST_COPIES * self.k * self._hist_bins()
                + 4 * (m + 2) * n + 8 * n)

    def _record_slots(self) -> int:
        """Slots of the depth-2 solver's records of the columns' stumps at evaluated positions: one per position of
        a column, at most :data:`RECORD_ENTRIES` values; positions past them are evaluated without records."""
        return max(5, min(self.n + 3, RECORD_ENTRIES // (2 * self.m)))

    def _hist_bins(self) -> int:
        """Bins of the depth-2 solver's class weights by value (:func:`~optbb.osdt.numeric.stumps.hist_stumps`): the
        most distinct values of a column, at most :data:`~optbb.osdt.numeric.stumps.HIST_BINS`."""
        return max(1, min(HIST_BINS, max((len(v) for v in self.values), default=1)))

    def _memo_entries(self) -> int:
        """Entries of the memo: none below depth 3 (nothing recurs), else about 8 per row and level, a power of two
        within :data:`MEMO_BYTES` and an eighth of the memory limit."""
        if self.depth < 3:
            return 0
        cap = MEMO_BYTES if self.memory_limit is None else min(MEMO_BYTES, self.memory_limit // 8)
        want = min(8 * self.n * self.depth, cap // entry_bytes(self._tree_nodes()))
        return 0 if want < 2 else 1 << int(np.log2(want))

    def start(self) -> Status | None:
        if self.memory_limit is not None and self.planned_bytes() > self.memory_limit:
            self.try_cart()  # the search stops with the CART tree, if it has one
            return Status.MEMORY_LIMIT
        lv, n, m, t = self._levels(), self.n, self.m, self._tree_nodes()
        order = self._order
        ords = np.zeros((lv, m + 1, n), dtype=np.int32)
        ords[0, :m] = order
        ords[0, m] = np.arange(n, dtype=np.int32)
        z = np.zeros
        self.lev = K.Levels(ords, z(lv, np.int64), z((lv, n), np.int64), z((lv, n + 1), np.float64),
                            z((lv, n + 2, 4), np.int64), z((lv, n + 2, 4), np.float64),
                            z((lv, 2, 2, t), np.int64), np.tile(np.arange(m), (lv + 1, 1)), z(n, np.uint8),
                            z(m, np.float64), z((lv, 2), np.uint64), z((2, n), np.int32),
                            z((self._record_slots(), 2, m), np.float64),
                            z((self._hist_bins(), 2 * HIST_COPIES * self.k), np.float64), z((m + 2, n), np.int32),
                            z(n, np.float64))
        self.memo = new_memo(self._memo_entries(), t)
        self.lev.nrows[0] = n
        self._blocks_start()
        self.fr = K.Frames(z((lv, K.N_FI), np.int64), z((lv, K.N_FV), np.float64))
        self.fr.fv[0, K.FV_UB] = self.fr.fv[0, K.FV_BEST] = self.inc_cost
        if self.depth >= 3:
            self.fr.fi[0, K.FI_D] = self.depth
            self.fr.fi[0, K.FI_PHASE] = K.OPEN
            self.st[K.S_TOP] = 0
        self._clock = time.perf_counter()
        return None

    def _blocks_start(self) -> None:
        """A first incumbent from depth-2 blocks, a lookahead beyond CART's greedy splits: the optimal tree of depth
        <= 2, each of its leaves grown into the optimal tree of depth <= ``min(2, depth - 2)`` of its rows; kept
        when cheaper than the incumbent.  Each block costs one sweep of the depth-2 solver, as the root's first step
        does."""
        depth = self.depth
        if not self.blocks_start or depth < 3 or self.n < 2:
            return
        K.depth2(self.data, self.lev, 0, 2, self.lam_n, np.inf, self.sc, self.st)
        top = _prefix(self.lev.trees[0, K.BEST])
        parts, side = [], self.lev.side
        for rows in self._leaf_rows(top):
            side[:] = 0
            side[rows] = 1
            K.partition(self.data, self.lev, 0, self.n, 1)
            K.depth2(self.data, self.lev, 1, min(2, depth - 2), self.lam_n, np.inf, self.sc, self.st)
            parts.append(_prefix(self.lev.trees[1, K.BEST]))
        tree = graft(top, parts)
        cost = self._cost(tree)
        if cost < self.inc_cost:
            self.inc_tree, self.inc_cost = tree, cost

    def try_cart(self) -> None:
        """The pruned tree of ``cart_start()`` (a CART tree; once) as the best tree when it is cheaper than the best
        so far; not when that has no errors and there is no regularization (it is optimal).  During the search, the
        root frame's best and bound fall to its cost, which only tightens the bounds the frames give their children
        (each a cost some tree reaches), and the search's own tree replaces it only when strictly cheaper."""
        make, self.cart_start = self.cart_start, None
        best = self._best()[0]
        if make is None or best <= 0.0:
            return
        tree, cost = self.pruned_cost(make())
        if cost < best:
            self.inc_tree, self.inc_cost = tree, cost
            if self.fr is not None:
                self.fr.fv[0, K.FV_BEST] = cost
                self.fr.fv[0, K.FV_UB] = min(self.fr.fv[0, K.FV_UB], cost)

    def memory_bytes(self) -> int:
        groups = [g for g in (self.lev, self.fr, self.memo) if g is not None] + [self.data]
        return int(sum(a.nbytes for g in groups for a in g))

    # -- protocol ------------------------------------------------------------------------------------------------
    def step(self, work: int) -> int:
        if work <= 0 or self.done:
            if work <= 0:  # load the kernels
                K.run(self.data, self.lev, self.fr, self.st, self.memo, self.lam_n, self.node_limit, 0, self.sc)
            return driver.DONE if self.done else driver.RUNNING
        if self.depth <= 2:
            self.fr.fv[0, K.FV_BEST] = K.depth2(self.data, self.lev, 0, self.depth, self.lam_n, self.inc_cost,
                                                 self.sc, self.st)
            self.st[K.S_DEPTH2] += 1
            self.done = True
            return driver.DONE
        code = K.run(self.data, self.lev, self.fr, self.st, self.memo, self.lam_n, self.node_limit, int(work),
                     self.sc)
        if self.cart_start is not None and code != K.DONE and (
                code == K.NODE_LIMIT or time.perf_counter() - self._clock >= CART_AFTER):
            self.try_cart()
        if code == K.NODE_LIMIT:
            return driver.NODE_LIMIT
        self.done = code == K.DONE
        return driver.DONE if self.done else driver.RUNNING

    def grow(self, cap_bytes: int | None, must_stop: Callable[[], bool]) -> bool:
        return False  # the arrays are sized at the start

    def nodes(self) -> int:
        return int(self.st[K.S_NODES])

    def improvements(self) -> int:
        return int(self._found())

    def improvement_nodes(self) -> int:
        return int(self.st[K.S_IMPNODES])

    def _found(self) -> bool:
        return self.fr is not None and self.fr.fv[0, K.FV_BEST] < self.inc_cost

    def _best(self) -> tuple[float, np.ndarray]:
        """The best tree so far and its cost (search units)."""
        if self._found():
            return float(self.fr.fv[0, K.FV_BEST]), self.lev.trees[0, K.BEST]
        return self.inc_cost, self.inc_tree

    def incumbent(self) -> float:
        return self._best()[0] / self.total

    def lower_bound(self) -> float:
        """Largest lower bound seen (search units / total): once done, the optimum; before, see
        :meth:`_frames_bound`."""
        if self.done:
            return self._best()[0] / self.total
        if self.fr is None:
            return 0.0
        self._best_lb = max(self._best_lb, min(self._frames_bound(), self._best()[0]))
        return self._best_lb / self.total

    def _frames_bound(self) -> float:
        """A lower bound of the root's optimum from the frames on the stack, top first: a frame's value is the least
        of its best tree, the bounds of its pending intervals, the bound of the interval in progress, its split (the
        child's value plus its sibling's bound) and, if columns remain, ``2 lam_n`` (any split)."""
        top = int(self.st[K.S_TOP])
        if top < 0:
            return self.lam_n
        fi, fv, val = self.fr.fi, self.fr.fv, 0.0
        for i in range(top, -1, -1):
            v = float(fv[i, K.FV_BEST])
            phase = int(fi[i, K.FI_PHASE])
            if phase == K.OPEN:
                v = min(v, self.lam_n)
            waiting = phase in (K.WAIT_FIRST, K.WAIT_SECOND)
            if (waiting or phase in (K.NEXT_COLUMN, K.POP)) and fi[i, K.FI_C] < self.m - 1:
                v = min(v, 2 * self.lam_n)
            if waiting or phase == K.POP:
                v = min(v, self._pending_bound(i))
            if waiting:  # the positions of the interval in progress, then its split (a child on the stack)
                v = min(v, float(fv[i, K.FV_LBL] + fv[i, K.FV_LBR]))
            if phase == K.WAIT_FIRST and i < top:
                other = K.FV_LBR if fi[i, K.FI_FIRST] == 1 else K.FV_LBL
                v = min(v, val + float(fv[i, other]))
            elif phase == K.WAIT_SECOND and i < top:
                v = min(v, float(fv[i, K.FV_V1]) + val)
            val = v
        return val

    def _pending_bound(self, i: int) -> float:
        fi, lev = self.fr.fi, self.lev
        n, nb, q = int(lev.nrows[i]), int(fi[i, K.FI_NB]), lev.ivi.shape[1]
        out = np.inf
        for t in range(int(fi[i, K.FI_HEAD]), int(fi[i, K.FI_SP])):
            s = t % q
            a, b = lev.ivi[i, s, :2]
            if b - a <= 1:
                continue
            wab = lev.cw[i, n if b >= nb else lev.bpos[i, b]] - lev.cw[i, 0 if a < 0 else lev.bpos[i, a]]
            la, ra, lb, rb = lev.ivv[i, s]
            out = min(out, max(la, lb - wab, self.lam_n) + max(rb, ra - wab, self.lam_n))
        return out

    def queue_size(self) -> int:
        return int(self.st[K.S_TOP]) + 1

    def finish(self, status: Status):
        if status is not Status.OPTIMAL:  # a CART tree the search did not wait for
            self.try_cart()
        cost, tree = self._best()
        model, errors = self.model(tree)
        objective = objective_value(errors, model.n_leaves, float(self.w.sum()) if self.w is not None else self.n,
                                    self.lam)
        lower_bound = objective if status is Status.OPTIMAL else min(self.lower_bound(), objective)
        counters = {"splits_evaluated": self.nodes(), "depth2_calls": int(self.st[K.S_DEPTH2]),
                    "depth2_positions": int(self.st[K.S_POSITIONS]), "depth2_sweeps": int(self.st[K.S_SWEEPS]),
                    "memo_hits": int(self.st[K.S_HITS]),
                    "search_cost": cost / self.total}
        return model, float(objective), float(lower_bound), counters

    # -- trees ---------------------------------------------------------------------------------------------------
    def _leaf_cost(self, rows: np.ndarray) -> float:
        """Cost (search units) of one leaf holding ``rows``: the weight of all but its largest class, plus
        ``lam_n``."""
        counts = np.bincount(self.data.y[rows], weights=self.data.w[rows], minlength=self.k)
        return counts.sum() - counts.max() + self.lam_n

    def _cost(self, tree: np.ndarray) -> float:
        """Cost (search units) of a preorder tree over the ranks."""
        cost = 0.0
        for rows in self._leaf_rows(tree):
            cost += self._leaf_cost(rows)
        return cost

    def pruned(self, tree: np.ndarray) -> np.ndarray:
        """``tree`` with every split that costs at least as much as a leaf in its place made a leaf, bottom up
        (a CART tree may split into two leaves of one class)."""
        return self.pruned_cost(tree)[0]

    def pruned_cost(self, tree: np.ndarray) -> tuple[np.ndarray, float]:
        """:meth:`pruned` and the pruned tree's cost, its leaves' costs added left to right (as :meth:`_cost`
        adds them, so the two agree to the last bit)."""
        R = self.data.R
        out: list[tuple[int, int, float]] = []  # preorder: column (-1: leaf), threshold rank, a leaf's cost

        def walk(pos, rows):  # -> (next position in tree, cost of the pruned subtree)
            leaf = self._leaf_cost(rows)
            at = len(out)
            j = int(tree[0, pos])
            out.append((j, int(tree[1, pos]), 0.0) if j >= 0 else (-1, 0, leaf))
            if j < 0:
                return pos + 1, leaf
            left = R[j, rows] <= tree[1, pos]
            end, cost_l = walk(pos + 1, rows[left])
            end, cost_r = walk(end, rows[~left])
            if leaf <= cost_l + cost_r:
                del out[at:]
                out.append((-1, 0, leaf))
                return end, leaf
            return end, cost_l + cost_r

        walk(0, np.arange(self.n))
        cost = 0.0
        for j, _, c in out:
            if j < 0:
                cost += c
        return np.array([(j, t) for j, t, _ in out], dtype=np.int64).T.copy(), cost

    def _leaf_rows(self, tree: np.ndarray) -> list[np.ndarray]:
        out, R = [], self.data.R

        def walk(pos, rows):
            j = int(tree[0, pos])
            if j < 0:
                out.append(rows)
                return pos + 1
            left = R[j, rows] <= tree[1, pos]
            return walk(walk(pos + 1, rows[left]), rows[~left])

        walk(0, np.arange(self.n))
        return out

    def cut_map(self, splits: list[tuple[int, int]]) -> CutMap:
        """The :class:`CutMap` of the splits ``(column, rank)`` of a tree, in that order."""
        thresholds = [None if self.binary[j] else cut_threshold(self.values[j][r], self.values[j][r + 1])
                      for j, r in splits]
        return CutMap(self.column_names, self.binary, [j for j, _ in splits], thresholds)

    def model(self, tree: np.ndarray):
        """``(Tree over the raw columns, weight of its errors)`` for a preorder tree, made in one walk of it: its
        features are its splits ``(column, rank)`` ordered by column, then threshold (:meth:`cut_map`), a cut's
        feature 1 on its left (``x <= t``), a 0/1 column's on its right (``x == 1``); its leaves are numbered in the
        order of a walk taking the branch where the feature is 1 first, as :meth:`~optbb.osdt.model.Tree.over_columns`
        numbers them."""
        splits = sorted({(int(tree[0, i]), int(tree[1, i])) for i in range(tree_length(tree)) if tree[0, i] >= 0})
        index = {s: f for f, s in enumerate(splits)}
        R = self.data.R
        leaves: list[tuple] = []
        leaf_of = np.empty(self.n, dtype=np.int64)

        def walk(pos, rows, path):  # -> the shape of the subtree at ``pos``
            j = int(tree[0, pos])
            if j < 0:
                leaf_of[rows] = len(leaves)
                leaves.append(tuple(sorted(path)))
                return ("leaf", len(leaves) - 1)
            f, left = index[(j, int(tree[1, pos]))], R[j, rows] <= tree[1, pos]
            sides = ((pos + 1, rows[left]), (_subtree_end(tree, pos + 1), rows[~left]))
            one, zero = sides[::-1] if self.binary[j] else sides
            one = walk(*one, path + [(f, 1)])
            zero = walk(*zero, path + [(f, 0)])
            return ("split", f, zero, one)

        shape = walk(0, np.arange(self.n), [])
        stats = leaf_stats_of(leaf_of, len(leaves), self.y, self.k, self.w)
        kept = self.cut_map(splits)
        model = Tree.from_shape(shape, leaves, [s[0] for s in stats], kept.feature_names(), [s[1] for s in stats],
                                [s[2] for s in stats], None, [s[3] for s in stats], cuts=kept)
        wrong = [s[4] for s in stats]
        return model, sum(wrong) if self.w is None else math.fsum(wrong)  # fsum: the same in any order of the leaves


def _ranks_and_orders(X: np.ndarray, values: list) -> tuple[np.ndarray, np.ndarray]:
    """int32 (m, N) twice: the rank of each row's value in ``values[j]`` (the distinct values of column ``j``), and
    the rows of each column by ascending value, ties by row (:func:`~optbb.osdt.numeric.cuts.sorted_columns`: one
    stable sort per column, as a binary search of each value took longer).  A ValueError when ``values`` are not
    the columns' distinct values."""
    found, ranks, orders = sorted_columns(X)
    for j, (mine, given) in enumerate(zip(found, values)):
        if len(mine) and (len(given) != len(mine) or given[-1] != mine[-1]):
            raise ValueError(f"column {j}: the values given are not the column's distinct values")
    return ranks, orders


def tree_length(tree: np.ndarray) -> int:
    """Nodes of a preorder tree (the array may be longer): :func:`~optbb.osdt.numeric.memo.subtree_end` run as Python,
    since compiling it (or loading it from Numba's cache) for this one call from Python cost 74 ms (10 ms) on a
    process's first numeric fit."""
    return int(_subtree_end(tree, 0))


_subtree_end = getattr(subtree_end, "py_func", subtree_end)  # the function itself when Numba is disabled


def _prefix(tree: np.ndarray) -> np.ndarray:
    """A copy of the nodes of a preorder tree buffer."""
    return tree[:, :tree_length(tree)].copy()


def graft(top: np.ndarray, parts: list[np.ndarray]) -> np.ndarray:
    """The preorder tree ``top`` with its leaves, in preorder, replaced by the trees ``parts``."""
    rest = iter(parts)
    return np.concatenate([next(rest) if top[0, pos] < 0 else top[:, pos:pos + 1]
                           for pos in range(top.shape[1])], axis=1)


def solve_cuts(data: CutDataset, regularization: float, *, max_depth: int | None, warm_start: str | None = "cart",
               time_limit: float | None = None, node_limit: int | None = None, memory_limit=None, verbose: int = 0,
               started: float | None = None, ablation=()) -> SearchResult:
    """Optimal tree of depth <= ``max_depth`` (None: any, with ``regularization > 0``) over every threshold of the
    raw columns of ``data`` (:func:`~optbb.osdt.numeric.cuts.cut_dataset`), minimising ``errors / N +
    regularization * leaves`` with ``data``'s labels (class indices) and weights; the columns are searched on the
    orders ``data.columns`` gives (sorted again when it has none).  ``warm_start="cart"``: at depth 3 or more, the
    first incumbent is the depth-2 blocks tree (:meth:`CutEngine._blocks_start`), and the pruned CART tree replaces
    it when cheaper (with regularization before the search, else as the module docstring says); None: the root
    leaf.  ``ablation``: bounds switched off (:data:`ABLATIONS`), for ablation studies.  Arguments are assumed checked
    (see :func:`optbb.osdt.solve`)."""
    started = time.perf_counter() if started is None else started
    columns = data.columns
    w, X, y = drop_zero_weights(data.sample_weight, data.raw, np.asarray(data.y, dtype=np.int64))
    ranked = None if columns.ranks is None else (columns.ranks, columns.orders)
    limits = Limits(time_limit, node_limit, memory_limit)
    with InterruptGuard() as guard:
        engine = CutEngine(X, y, w, data.n_classes, regularization, max_depth, data.column_names, columns.binary,
                           node_limit=limits.node_limit, memory_limit=limits.memory_limit, values=columns.values,
                           ranked=ranked, ablation=ablation)
        engine.blocks_start = warm_start == "cart"
        # at depth <= 2 the depth-2 solver is the whole search, and a CART tree would cost it more than it prunes
        if (warm_start == "cart" and engine.depth >= 3 and len(np.unique(y)) >= 2
                and cart_affordable(*X.shape, limits.time_limit, started)):
            engine.cart_start = lambda: cart_tree(X, y, w, engine.values, max_depth, float(regularization))
            if engine.lam_n > 0:  # the incumbent then bounds the depth the search's arrays are made for
                engine.try_cart()  # else late in the search, if at all (CutEngine.try_cart)
    return driver.run_search(engine, limits, verbose, interrupted=guard.interrupted, started=started)
