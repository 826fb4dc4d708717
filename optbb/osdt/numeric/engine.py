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

import time
from typing import Callable, Generator, Iterator

import numpy as np

from ...common import driver
from ...common.bounds import objective_value
from ...common.limits import InterruptGuard, Limits
from ...common.result import SearchResult, Status
from ...common.weights import drop_zero_weights
from .cuts import CutDataset, column_values, sorted_columns
from . import kernel as K
from . import layout as L
from .stumps import HIST_BINS, HIST_COPIES, N_SC
from .memo import entry_bytes, new_memo, row_keys
from .trees import TreeWalks, graft, prefix
from ..support import weight_units
from ..cart import cart_affordable, cart_bytes, cart_levels, cart_tree

_BIG = 1 << 62
MAX_DEPTH = 16  # deeper limits go to the dp search over the cut matrix (a tree buffer holds 2^(d+1) nodes)
MEMO_BYTES = 64 << 20
RECORD_ENTRIES = 1 << 21  # 16 MB of records of stumps (CutEngine._record_slots)
# seconds of search before a CART tree is fitted (without regularization): scikit-learn's CART took 0.7 ms on iris
# at depth 3, a fifth of the fit, and never helped a search of 10 ms (iris, wine at depth 3 and 4)
CART_AFTER = 0.01
_LEAF = np.array([[-1], [0]], dtype=np.int64)  # a preorder tree of one leaf
_OVER = object()  # what ``next`` gives once the stages are over
_LOADED: set = set()  # the kernels called from Python this process has loaded (CutEngine.load_kernels)


# the bounds of the search a user can switch off (:mod:`optbb.osdt.bounds`, ConTree's interval pruning), as the
# kernel's switches ``P_INTERVAL``, ``P_SHRINK``, ``P_RECORDS``, and the leaf count that stops a frame (``P_LEAVES``,
# :func:`~optbb.osdt.numeric.kernel.split_floor`)
ABLATIONS = ("interval_bound", "interval_shrinking", "column_records", "leaf_count_stop")


def switches(ablation) -> np.ndarray:
    """The kernel's ``ip``: 1 for each bound of :data:`ABLATIONS` not named in ``ablation``; a ValueError names one
    it does not know."""
    unknown = sorted(set(ablation) - set(ABLATIONS))
    if unknown:
        raise ValueError(f"ablation names {unknown} are not bounds of the numeric search; known: {list(ABLATIONS)}")
    ip = np.ones(L.N_IP, dtype=np.int64)
    for slot, name in zip((L.P_INTERVAL, L.P_SHRINK, L.P_RECORDS, L.P_LEAVES), ABLATIONS):
        ip[slot] = name not in ablation
    ip[L.P_OPEN] = 2
    return ip


class CutEngine(TreeWalks):
    """The frames of :mod:`optbb.osdt.numeric.kernel` over ranked columns (see :func:`solve_cuts` for the arguments;
    ``values``: each column's distinct values, ascending, when already known; ``ranked``: with them, the ranks and
    orders of ``X``'s rows as :func:`~optbb.osdt.numeric.cuts.sorted_columns` gives them, not sorted again;
    ``ablation``: names of :data:`ABLATIONS` switched off).  The columns are ranked by :meth:`start`, once the
    search's arrays are known to fit the memory limit."""

    name = "osdt-cuts"
    first_work = 1 << 16  # units of the first chunk (a pass over a row: 1), about a millisecond

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
        self.values = column_values(X).values if values is None else values
        self._ranked = ranked if ranked is not None and ranked[0].shape == (self.m, self.n) == ranked[1].shape \
            else None
        self.yi = np.asarray(y, dtype=np.int64)
        self.q = np.ones(self.n) if w is None else weight_units(w).units.astype(np.float64)
        self.ip = switches(ablation)
        self.data = None  # the kernel's Data, once the columns are ranked (start)
        self.total = float(self.q.sum())
        self.lam_n = self.lam * self.total
        self.node_limit = _BIG if node_limit is None else int(node_limit)
        self.memory_limit = memory_limit
        self.inc_tree = np.array([[-1], [0]], dtype=np.int64)  # the root leaf, until a CART tree beats it
        self.inc_cost = self._cost(self.inc_tree)
        self.lev = self.fr = self.memo = None
        self.st = np.zeros(L.N_ST, dtype=np.int64)
        self.st[L.S_TOP] = -1
        self.sc = np.zeros((N_SC, self.k), dtype=np.float64)
        self.done = False
        self._best_lb = 0.0
        self.blocks_start = True  # see :meth:`_blocks`
        self.cart_start: Callable[[], np.ndarray] | None = None  # see :meth:`try_cart`
        self.cart_in_time: Callable[[], bool] = lambda: True  # whether a CART fit still fits the time left
        self.out_of_time: Callable[[], bool] = lambda: False  # whether the time limit has come (start's sorts)
        self._pieces: Iterator[None] | None = None  # the stages run by step before (or instead of) the frames
        self._frames = False  # whether the search has frames (depth >= 3), set by start
        self.work_limit: int | None = None  # the work after which step says NODE_LIMIT (a probe, solve_cuts)
        self.work_done = 0
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
        """Bytes of the search's arrays for this problem (orders and positions per level, trees, frames, the ranks
        and the rows' keys), and what ranking the columns holds for a while (a column's copy, its order by value,
        its ranks' scratch: 48 bytes a row), made only once they fit the memory limit with what is held already
        (:meth:`memory_bytes`)."""
        lv, n, m, t = self._levels(), self.n, self.m, self._tree_nodes()
        memo = self._memo_entries() * entry_bytes(t)
        return (lv * (4 * (m + 1) * n + 80 * n + 32 * t) + 4 * m * n + 16 * n + 48 * n + memo
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
        if self.memory_limit is not None and self.memory_bytes() + self.planned_bytes() > self.memory_limit:
            self.try_cart()  # the search stops with the CART tree, if it has one that fits
            return Status.MEMORY_LIMIT
        lv, n, m, t = self._levels(), self.n, self.m, self._tree_nodes()
        z = np.zeros
        ords = np.empty((lv, m + 1, n), dtype=np.int32)
        ranks = self._rank(ords[0, :m])
        if ranks is None:  # the time limit came while the columns were sorted
            return Status.TIME_LIMIT
        self.data = L.Data(ranks, self.yi, self.q, row_keys(self.n), self.ip)
        ords[0, m] = np.arange(n, dtype=np.int32)
        self.lev = L.Levels(ords, z(lv, np.int64), z((lv, n), np.int64), z((lv, n + 1), np.float64),
                            z((lv, n + 2, 4), np.int64), z((lv, n + 2, 4), np.float64),
                            z((lv, 2, 2, t), np.int64), np.tile(np.arange(m), (lv + 1, 1)), z(n, np.uint8),
                            z(m, np.float64), z((lv, 2), np.uint64), z((2, n), np.int32),
                            z((self._record_slots(), 2, m), np.float64),
                            z((self._hist_bins(), 2 * HIST_COPIES * self.k), np.float64), z((m + 2, n), np.int32),
                            z(n, np.float64), z(L.N_D2, np.float64))
        self.memo = new_memo(self._memo_entries(), t)
        self.lev.nrows[0] = n
        self.fr = L.Frames(z((lv, L.N_FI), np.int64), z((lv, L.N_FV), np.float64))
        self.fr.fv[0, L.FV_UB] = self.fr.fv[0, L.FV_BEST] = self.inc_cost
        self._frames = self.depth >= 3  # else the search is one stage, and a CART tree only a fallback (finish)
        if self._frames:
            self.fr.fi[0, L.FI_D] = self.depth
            self.fr.fi[0, L.FI_PHASE] = L.OPEN
            self.st[L.S_TOP] = 0
            if self.blocks_start and self.n >= 2:
                self._pieces = self._blocks(self.depth)
        else:
            self._pieces = self._whole_stage(self.depth)
        self._clock = time.perf_counter()
        return None

    def _rank(self, orders: np.ndarray) -> np.ndarray | None:
        """The ranks of the rows by column (int32 (m, N)), their orders by value written into ``orders``; None when
        ``out_of_time()`` says so between two columns."""
        if self._ranked is not None:
            ranks, order = self._ranked
            orders[:] = order
            self._ranked = None
            return ranks
        ranks = np.empty((self.m, self.n), dtype=np.int32)
        found = sorted_columns(self.X, ranks, orders, self.out_of_time)
        if found is None:
            return None
        for j, (mine, given) in enumerate(zip(found, self.values)):
            if len(mine) and (len(given) != len(mine) or given[-1] != mine[-1]):
                raise ValueError(f"column {j}: the values given are not the column's distinct values")
        return ranks

    def _stage(self, lv: int, depth: int, ub: float, kind: int) -> Generator[None, None, float]:
        """A depth-2 stage of level ``lv`` (:mod:`~optbb.osdt.numeric.depth2`) run a piece per ``next``, each
        within the work ``step`` sets; returns its cost."""
        best = K.depth2_begin(self.data, self.lev, self.fr.fv, lv, depth, self.lam_n, ub, self.sc, self.st, kind)
        while self.st[L.S_D2] == 1:
            yield
            best = K.depth2_more(self.data, self.lev, self.fr.fv, self.lam_n, self.sc, self.st)
        return best

    def _whole_stage(self, depth: int) -> Iterator[None]:
        """The search at depth <= 2: one stage at the root, below the incumbent."""
        best = yield from self._stage(0, depth, self.inc_cost, L.D2_CHILD)
        self.fr.fv[0, L.FV_BEST] = best
        self.st[L.S_DEPTH2] += 1
        self.done = True

    def _blocks(self, depth: int) -> Iterator[None]:
        """A first incumbent from depth-2 blocks, a lookahead beyond CART's greedy splits: the optimal tree of depth
        <= 2, each of its leaves grown into the optimal tree of depth <= ``min(2, depth - 2)`` of its rows, each
        tree so far kept when cheaper than the incumbent.  Each block is one stage, as the root's first step is:
        the root frame takes the first one's optimum (``S_ROOT2``) instead of solving it again."""
        root = yield from self._stage(0, 2, np.inf, L.D2_FREE)
        self.st[L.S_ROOT2], self.lev.d2[L.D2_ROOT] = 1, root
        top = prefix(self.lev.trees[0, L.BEST])
        self._offer(top)
        rows_of, parts, side = self._leaf_rows(top), [], self.lev.side
        for rows in rows_of:
            side[:] = 0
            side[rows] = 1
            K.partition(self.data, self.lev, 0, self.n, 1)
            yield from self._stage(1, min(2, depth - 2), np.inf, L.D2_FREE)
            parts.append(prefix(self.lev.trees[1, L.BEST]))
            self._offer(graft(top, parts + [_LEAF] * (len(rows_of) - len(parts))))
        fv = self.fr.fv  # the root frame starts below the blocks' tree
        fv[0, L.FV_UB] = fv[0, L.FV_BEST] = min(fv[0, L.FV_UB], self.inc_cost)

    def _offer(self, tree: np.ndarray) -> None:
        """``tree`` becomes the incumbent when cheaper."""
        cost = self._cost(tree)
        if cost < self.inc_cost:
            self.inc_tree, self.inc_cost = tree, cost

    def load_kernels(self) -> None:
        """Compile, or load from Numba's cache, what the search runs (the driver keeps it off the clock): the
        frames, and the stages and the partition ``step`` calls from Python, each on nothing."""
        K.run(self.data, self.lev, self.fr, self.st, self.memo, self.lam_n, self.node_limit, 0, self.sc)
        if "stages" not in _LOADED:  # once a process has them, a call costs its dispatch only
            st = self.st.copy()
            K.depth2_begin(self.data, self.lev, self.fr.fv, 0, 0, self.lam_n, -1.0, self.sc, st, L.D2_FREE)
            st[L.S_D2LV], st[L.S_D2KIND], st[L.S_D2C], st[L.S_D2HEAD], st[L.S_D2TAIL] = 0, L.D2_FREE, self.m, 0, 0
            K.depth2_more(self.data, self.lev, self.fr.fv, self.lam_n, self.sc, st)
            _LOADED.add("stages")
        if self.lev.nrows.shape[0] > 1 and "partition" not in _LOADED:  # the blocks start's partitions
            K.partition(self.data, self.lev, 0, 0, 1)
            _LOADED.add("partition")
        self.lower_bound()

    def try_cart(self) -> None:
        """The pruned tree of ``cart_start()`` (a CART tree; once) as the best tree when it is cheaper than the best
        so far; not when that has no errors and there is no regularization (it is optimal), nor when the fit would
        pass the memory limit with what the search holds (:func:`~optbb.osdt.cart.cart_bytes`).  During the
        search, the root frame's best and bound fall to its cost, which only tightens the bounds the frames give
        their children (each a cost some tree reaches), and the search's own tree replaces it only when strictly
        cheaper."""
        make, self.cart_start = self.cart_start, None
        best = self._best()[0]
        if make is None or best <= 0.0:
            return
        if self.memory_limit is not None and self.memory_bytes() + cart_bytes(self.n, self.m) > self.memory_limit:
            return
        tree, cost = self.pruned_cost(make())
        if cost < best:
            self.inc_tree, self.inc_cost = tree, cost
            if self.fr is not None:
                self.fr.fv[0, L.FV_BEST] = cost
                self.fr.fv[0, L.FV_UB] = min(self.fr.fv[0, L.FV_UB], cost)

    def memory_bytes(self) -> int:
        """Bytes held: the search's arrays once made, the labels, the weights in units and the columns' values."""
        groups = [g for g in (self.lev, self.fr, self.memo, self.data) if g is not None]
        held = self.yi.nbytes + self.q.nbytes + sum(v.nbytes for v in self.values)
        return int(held + sum(a.nbytes for g in groups for a in g if a is not self.yi and a is not self.q))

    # -- protocol ------------------------------------------------------------------------------------------------
    def step(self, work: int) -> int:
        if work <= 0 or self.done:
            if work <= 0:  # load the kernels
                self.load_kernels()
            return driver.DONE if self.done else driver.RUNNING
        if self._pieces is not None:  # a piece of the stages before the frames (or of the whole search)
            self.st[L.S_BUDGET] = int(work)
            if next(self._pieces, _OVER) is _OVER:
                self._pieces = None
            code = L.DONE if self.done else L.RUNNING
        else:
            code = K.run(self.data, self.lev, self.fr, self.st, self.memo, self.lam_n, self.node_limit, int(work),
                         self.sc)
        self.work_done += int(work) - int(self.st[L.S_BUDGET])
        if self.work_limit is not None and code == L.RUNNING and self.work_done >= self.work_limit:
            return driver.NODE_LIMIT
        if self.cart_start is not None and self._frames and code != L.DONE and (
                code == L.NODE_LIMIT or time.perf_counter() - self._clock >= CART_AFTER):
            if self.cart_in_time():
                self.try_cart()
            else:  # the time left only shrinks
                self.cart_start = None
        if code == L.NODE_LIMIT:
            return driver.NODE_LIMIT
        self.done = code == L.DONE
        return driver.DONE if self.done else driver.RUNNING

    def grow(self, cap_bytes: int | None, must_stop: Callable[[], bool]) -> bool:
        return False  # the arrays are sized at the start

    def nodes(self) -> int:
        return int(self.st[L.S_NODES])

    def improvements(self) -> int:
        return int(self._found())

    def improvement_nodes(self) -> int:
        return int(self.st[L.S_IMPNODES])

    def _found(self) -> bool:
        return self.fr is not None and self.fr.fv[0, L.FV_BEST] < self.inc_cost

    def _best(self) -> tuple[float, np.ndarray]:
        """The best tree so far and its cost (search units)."""
        if self._found():
            return float(self.fr.fv[0, L.FV_BEST]), self.lev.trees[0, L.BEST]
        return self.inc_cost, self.inc_tree

    def incumbent(self) -> float:
        return self._best()[0] / self.total

    def lower_bound(self) -> float:
        """Largest lower bound seen (search units / total): once done, the optimum; before, see
        :meth:`_frames_bound` and, at depth <= 2, :meth:`_stage_bound`."""
        if self.done:
            return self._best()[0] / self.total
        if self.fr is None:
            return 0.0
        bound = self._frames_bound() if self.st[L.S_TOP] >= 0 else self._stage_bound()
        self._best_lb = max(self._best_lb, min(bound, self._best()[0]))
        return self._best_lb / self.total

    def _stage_bound(self) -> float:
        """A lower bound of the optimum while the search at depth <= 2 is a stage in progress at the root: a split
        costs at least ``2 lam_n`` while columns remain after the one being searched; on the last column, the bounds
        of its pending intervals (every position left lies in one) and the best tree so far."""
        st = self.st
        if st[L.S_D2] != 1 or st[L.S_D2LV] != 0:
            return self.lam_n
        if st[L.S_D2C] < self.m - 1:
            return 2 * self.lam_n
        return self._pending_bound(0, int(st[L.S_D2HEAD]), int(st[L.S_D2TAIL]), int(st[L.S_D2NB]))

    def _frames_bound(self) -> float:
        """A lower bound of the root's optimum from the frames on the stack, top first: a frame's value is the least
        of its best tree, the bounds of its pending intervals, the bound of the interval in progress, its split (the
        child's value plus its sibling's bound), each at least the bound of every split (:meth:`_split_bound`), to
        which a column not yet searched falls."""
        top = int(self.st[L.S_TOP])
        if top < 0:
            return self.lam_n
        fi, fv, val = self.fr.fi, self.fr.fv, 0.0
        for i in range(top, -1, -1):
            v = float(fv[i, L.FV_BEST])
            phase = int(fi[i, L.FI_PHASE])
            if phase in (L.OPEN, L.STAGE):  # a tree costs at least a leaf
                v = min(v, self.lam_n)
            waiting = phase in (L.WAIT_FIRST, L.WAIT_SECOND)
            splits = np.inf  # the least bound of the splits left
            if (waiting or phase in (L.NEXT_COLUMN, L.POP)) and fi[i, L.FI_C] < self.m - 1:
                splits = 0.0  # a column not yet searched: only the bound of every split
            if waiting or phase == L.POP:
                splits = min(splits, self._pending_bound(i, int(fi[i, L.FI_HEAD]), int(fi[i, L.FI_SP]),
                                                         int(fi[i, L.FI_NB])))
            if waiting:  # the positions of the interval in progress, then its split (a child on the stack)
                splits = min(splits, float(fv[i, L.FV_LBL] + fv[i, L.FV_LBR]))
            if phase == L.WAIT_FIRST and i < top:
                other = L.FV_LBR if fi[i, L.FI_FIRST] == 1 else L.FV_LBL
                splits = min(splits, val + float(fv[i, other]))
            elif phase == L.WAIT_SECOND and i < top:
                splits = min(splits, float(fv[i, L.FV_V1]) + val)
            if splits < np.inf:
                v = min(v, max(splits, self._split_bound(i)))
            val = v
        return val

    def _split_bound(self, i: int) -> float:
        """The least cost of a tree that splits frame ``i``'s rows: ``2 lam_n`` (two leaves) and, once the frame has
        its first incumbent, the optimal tree of depth <= ``D`` (``D`` = 2; 1 in a probe) costing ``c`` or nothing
        below ``c`` (``FV_OPEN``), ``min(c, (D + 2) lam_n)``: a tree of at most ``D + 1`` leaves has depth at most
        ``D``, so it costs at least ``c``, and a larger one at least ``(D + 2) lam_n`` (each leaf costs lambda: the
        leaf count of Hu, Rudin & Seltzer 2019, Thm C.1)."""
        if self.fr.fi[i, L.FI_PHASE] in (L.OPEN, L.STAGE):
            return 2 * self.lam_n
        leaves = int(self.ip[L.P_OPEN]) + 2
        return max(2 * self.lam_n, min(float(self.fr.fv[i, L.FV_OPEN]), leaves * self.lam_n))

    def _pending_bound(self, i: int, head: int, tail: int, nb: int) -> float:
        """The least interval bound of the intervals ``head .. tail - 1`` of level ``i``'s queue (the column's
        ``nb`` splits)."""
        lev = self.lev
        n, q = int(lev.nrows[i]), lev.ivi.shape[1]
        out = np.inf
        for t in range(head, tail):
            s = t % q
            a, b = lev.ivi[i, s, :2]
            if b - a <= 1:
                continue
            wab = lev.cw[i, n if b >= nb else lev.bpos[i, b]] - lev.cw[i, 0 if a < 0 else lev.bpos[i, a]]
            la, ra, lb, rb = lev.ivv[i, s]
            out = min(out, max(la, lb - wab, self.lam_n) + max(rb, ra - wab, self.lam_n))
        return out

    def queue_size(self) -> int:
        return int(self.st[L.S_TOP]) + 1

    def finish(self, status: Status):
        if status is not Status.OPTIMAL and self.cart_in_time():  # a CART tree the search did not wait for
            self.try_cart()
        cost, tree = self._best()
        model, errors = self.model(tree)
        objective = objective_value(errors, model.n_leaves, float(self.w.sum()) if self.w is not None else self.n,
                                    self.lam)
        lower_bound = objective if status is Status.OPTIMAL else min(self.lower_bound(), objective)
        counters = {"splits_evaluated": self.nodes(), "depth2_calls": int(self.st[L.S_DEPTH2]),
                    "depth2_positions": int(self.st[L.S_POSITIONS]), "depth2_sweeps": int(self.st[L.S_SWEEPS]),
                    "memo_hits": int(self.st[L.S_HITS]),
                    "search_cost": cost / self.total}
        return model, float(objective), float(lower_bound), counters


def solve_cuts(data: CutDataset, regularization: float, *, max_depth: int | None, warm_start: str | None = "cart",
               time_limit: float | None = None, node_limit: int | None = None, memory_limit=None, verbose: int = 0,
               started: float | None = None, ablation=()) -> SearchResult:
    """Optimal tree of depth <= ``max_depth`` (None: any, with ``regularization > 0``) over every threshold of the
    raw columns of ``data`` (:func:`~optbb.osdt.numeric.cuts.cut_dataset`), minimising ``errors / N +
    regularization * leaves`` with ``data``'s labels (class indices) and weights; the columns are searched on the
    orders ``data.columns`` gives (sorted again when it has none).  ``warm_start="cart"``: at depth 3 or more, the
    first incumbent is the depth-2 blocks tree (:meth:`CutEngine._blocks`), and the pruned CART tree replaces
    it when cheaper (with regularization before the search, else as the module docstring says); None: the root
    leaf.  ``ablation``: bounds switched off (:data:`ABLATIONS`), for ablation studies.  Arguments are assumed checked
    (see :func:`optbb.osdt.solve`)."""
    started = time.perf_counter() if started is None else started
    columns = data.columns
    w, X, y = drop_zero_weights(data.sample_weight, data.raw, np.asarray(data.y, dtype=np.int64))
    ranked = None if columns.ranks is None else (columns.ranks, columns.orders)
    limits = Limits(time_limit, node_limit, memory_limit)
    probed = None
    if regularization == 0 and max_depth is not None and max_depth >= PROBE_DEPTH and warm_start == "cart" and \
            node_limit is None and len(y) >= 2:
        probed, ranked, found = _probe(data, X, y, w, max_depth, ranked, limits, verbose, started, ablation)
        if probed.status in (Status.OPTIMAL, Status.INTERRUPTED):
            return probed
    with InterruptGuard() as guard:
        engine = _engine(data, X, y, w, regularization, max_depth, ranked, limits, started, ablation)
        if probed is not None:
            engine._offer(found)  # the probe's best tree, the first incumbent
        engine.blocks_start = warm_start == "cart"
        levels = cart_levels(len(y), max_depth, float(regularization))
        engine.cart_in_time = lambda: cart_affordable(*X.shape, limits.time_limit, started, levels)
        # at depth <= 2 the depth-2 stage is the whole search, and a CART tree would cost it more than it prunes:
        # there it is fitted only for a search that stops (a memory limit) before it has a tree
        if warm_start == "cart" and len(np.unique(y)) >= 2 and engine.cart_in_time():
            engine.cart_start = lambda: cart_tree(X, y, w, engine.values, max_depth, float(regularization))
            if engine.lam_n > 0 and engine.depth >= 3:  # the incumbent then bounds the depth of the search's arrays
                engine.try_cart()  # else late in the search, if at all (CutEngine.try_cart)
    result = driver.run_search(engine, limits, verbose, interrupted=guard.interrupted, started=started)
    if probed is not None:
        result.counters["probe_nodes"] = probed.counters.get("nodes", 0)
        result.counters["kernel_load_time"] = result.counters.get("kernel_load_time", 0.0) + \
            probed.counters.get("kernel_load_time", 0.0)
    return result


def _engine(data: CutDataset, X, y, w, lam: float, max_depth: int | None, ranked, limits: Limits, started: float,
            ablation) -> CutEngine:
    """The engine of :func:`solve_cuts` (or of its probe) on the rows left by the zero weights, under ``limits``,
    its sorts stopped by the time limit from ``started``."""
    columns = data.columns
    engine = CutEngine(X, y, w, data.n_classes, lam, max_depth, data.column_names, columns.binary,
                       node_limit=limits.node_limit, memory_limit=limits.memory_limit, values=columns.values,
                       ranked=ranked, ablation=ablation)
    if limits.time_limit is not None:
        engine.out_of_time = lambda: time.perf_counter() - started >= limits.time_limit
    return engine


# the least depth limit with a probe (solve_cuts), and its work in passes over every row of every column.  At depth
# limits 3 and 4 a probe made the search after it slower when it did not end (breast cancer at depth 4: 650 ms
# without, 714-764 ms after a probe of 32 passes that found nothing), though digits 3 against 5 at depth 3 took
# 4-6 ms with it against 12 without; from depth 5 a tree without errors is usually found on the first paths
# (breast cancer at depth 5 in 423 passes, at 6 in 12)
PROBE_DEPTH, PROBE_PASSES = 5, 1024


def _probe(data: CutDataset, X, y, w, max_depth: int, ranked, limits: Limits, verbose: int, started: float,
           ablation) -> tuple[SearchResult, tuple | None, np.ndarray]:
    """Without regularization a tree without errors is optimal, and deep limits often allow one that the first
    incumbents of the search (the blocks start's optimal root of depth 2 over every row, a depth-2 tree at each
    frame) only delay: the same exact search with stumps as the frames' first incumbents and no blocks start, for
    at most :data:`PROBE_PASSES` passes over the rows of every column.  Returns its result (OPTIMAL when it ended
    within them), the columns' ranks and orders for the search after it, and its best tree (a preorder tree over
    the ranks)."""
    with InterruptGuard() as guard:
        engine = _engine(data, X, y, w, 0.0, max_depth, ranked, limits, started, ablation)
        engine.blocks_start = False
        engine.ip[L.P_OPEN] = 1
        engine.work_limit = PROBE_PASSES * X.shape[0] * max(1, X.shape[1])
        engine.first_work = max(1, min(engine.first_work, engine.work_limit))
    result = driver.run_search(engine, limits, verbose, interrupted=guard.interrupted, started=started)
    if engine.data is not None and engine.lev is not None:
        ranked = (engine.data.R, engine.lev.ords[0, :engine.m].copy())
    result.counters["probe"] = True
    return result, ranked, prefix(engine._best()[1])
