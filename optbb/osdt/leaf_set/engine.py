"""The OSDT paper's search over leaf sets (``search="leaf_set"``, Hu, Rudin & Seltzer 2019, Algorithm 1) as an engine
of the common driver: :class:`OsdtEngine` owns the caches of :mod:`optbb.osdt.leaf_set.caches` and the chunked kernel of
:mod:`optbb.osdt.leaf_set.kernel`; the driver (:mod:`optbb.common.driver`) owns the limits, Ctrl-C, trace and result.

:func:`solve_leaf_set` returns the common :class:`~optbb.common.result.SearchResult`; its ``model`` is an
:class:`optbb.osdt.model.Tree`.  Arguments are checked by :func:`optbb.osdt.solve`.
"""
from __future__ import annotations

import math
import time
import warnings

import numpy as np

from ...common import driver
from ...common.bitset import n_words, not_into, pack_columns_load, popcount, unpack_rows
from ...common.bounds import objective_value
from ...common.data import BinaryDataset
from ...common.equivalence import equivalence_classes
from ...common.growth import arrays_bytes, growth_peak
from ...common.limits import Limits
from ...common.queue import CURIOSITY, ENTROPY, FIFO, GINI, LOWER_BOUND, OBJECTIVE
from ...common.result import SearchResult, Status
from . import kernel as K
from ..bounds import a_priori_leaf_bound
from .caches import NEED_ENTRIES, NEED_LEAVES, NEED_SCRATCH, NEED_TREES, Arena, OsdtData
from ..cart import cart_affordable, cart_warm_start
from ..model import Tree, make_tree

POLICIES = {"curiosity": CURIOSITY, "lower_bound": LOWER_BOUND, "objective": OBJECTIVE, "entropy": ENTROPY,
            "gini": GINI, "fifo": FIFO}
ABLATIONS = ("support", "incremental_accuracy", "accurate_support", "lookahead", "equivalent_points", "leaf_bound")
_BIG = (1 << 62)
_WORKSPACE_START = 16  # leaves of the largest tree the first expansion workspace serves


def _decode_leaf(key_row: np.ndarray, kw: int, n_features: int):
    """The literals of a Leaf cache key ``[x_f = 1 words | x_f = 0 words]``."""
    ones, zeros = unpack_rows(key_row.reshape(2, kw), n_features)
    return tuple((f, 1 if ones[f] else 0) for f in range(n_features) if ones[f] or zeros[f])


def solve_leaf_set(data: BinaryDataset, lam: float, *, policy: str, ablation: tuple, initial_tree: str | None,
                   upper_bound: float | None, max_depth: int | None, max_leaves: int | None,
                   time_limit: float | None, node_limit: int | None, memory_limit, verbose: int,
                   started: float | None = None) -> SearchResult:
    """Certifiably optimal tree minimising ``errors / N + lam * leaves`` by the leaf-set search (checked arguments,
    see :func:`optbb.osdt.solve`).  If ``upper_bound`` is below every tree's objective, the search is repeated
    without it.  The clock starts at ``started`` (a ``time.perf_counter()``, default now) and covers the packing and
    the CART warm start (left out when it would take over a quarter of the time left)."""
    started = time.perf_counter() if started is None else started
    limits = Limits(time_limit, node_limit, memory_limit)

    def run(bound):
        engine = OsdtEngine(data, lam, policy, ablation, initial_tree, bound, max_depth, max_leaves, limits,
                            started=started)
        return driver.run_search(engine, limits, verbose, started=started)

    result = run(upper_bound)
    if (upper_bound is not None and result.status is Status.OPTIMAL
            and result.objective > float(upper_bound) and result.lower_bound < result.objective):
        warnings.warn(f"no tree has an objective below upper_bound={upper_bound}; solving again without it",
                      RuntimeWarning, stacklevel=3)
        result = run(None)
    return result


class OsdtEngine:
    """One OSDT search (leaf-set branch and bound) as a driver engine (:mod:`optbb.common.driver`).  A node is a
    tree pushed to the queue (``trees_evaluated``, the reference's COUNT); a unit of work is a pop or a child
    combination."""

    name = "osdt"
    first_work = 64

    def __init__(self, data: BinaryDataset, lam: float, policy: str, ablation, warm_start, upper_bound, max_depth,
                 max_leaves, limits: Limits, *, started: float | None = None):
        self.data, self.lam, self.policy, self.ablation = data, lam, policy, set(ablation)
        self.warm_start, self.upper_bound = warm_start, upper_bound
        self.max_depth, self.max_leaves, self.limits = max_depth, max_leaves, limits
        self.n, self.m = data.n_samples, data.n_features
        self.started = time.perf_counter() if started is None else started  # when the clock started

    def start(self) -> Status | None:
        """Packed data, the CART warm start and a user bound as first incumbents, the arrays, the root."""
        data, lam, ablation, n, m = self.data, self.lam, self.ablation, self.n, self.m
        X, y = data.X, data.y
        W, KW = n_words(n), n_words(max(m, 1))
        # compiling (or loading) the packing and start's kernels: off the clock, as the driver's loading
        self.start_load_time = pack_columns_load()
        xbits = np.ascontiguousarray(data.bits)
        xnot = np.zeros_like(xbits)  # complemented from the packed words, not packed again from X
        if m:
            self._timed_first_call(not_into, xnot[0], xbits[0], n)
        for f in range(1, m):
            not_into(xnot[f], xbits[f], n)
        self.packed = OsdtData(xbits, xnot, np.ascontiguousarray(data.y_bits),
                               np.ascontiguousarray(data.minority_bits()))
        # incumbent candidates outside the search: CART and a user bound
        n_pos = int(y.sum())
        self.root_obj = objective_value(min(n_pos, n - n_pos), 1, n, lam)
        rc = math.inf
        self.cart_tree, self.cart_obj = None, math.inf
        # CART is fitted on the clock, when it fits in a share of the time left (1,000,000 x 40: 1.25 s)
        cart = self.warm_start == "cart" and cart_affordable(n, m, self.limits.time_limit, self.started)
        leaves = cart_warm_start(X, y, lam, self.max_depth, self.max_leaves) if cart else None
        if leaves is not None:
            self.cart_tree, cart_err = make_tree(X, y, leaves, data.feature_names, 2)
            self.cart_obj = objective_value(cart_err, self.cart_tree.n_leaves, n, lam)
            rc = self.cart_obj
        if self.upper_bound is not None:
            rc = min(rc, float(self.upper_bound))
        # every size below follows the largest tree worth searching: at most the distinct rows, never 1 / lambda
        self.n_distinct = int(equivalence_classes(X).max(initial=0)) + 1
        lmax = a_priori_leaf_bound(min(rc, self.root_obj), lam, self.n_distinct)
        if self.max_leaves is not None:
            lmax = max(min(lmax, int(self.max_leaves) + 1), 2)
        MW = n_words(lmax + 1)

        ip = np.zeros(K.N_IPARAMS, dtype=np.int64)
        ip[K.P_N], ip[K.P_M] = n, m
        ip[K.P_MAXDEPTH] = _BIG if self.max_depth is None else int(self.max_depth)
        ip[K.P_MAXLEAVES] = min(self.n_distinct, _BIG if self.max_leaves is None else int(self.max_leaves))
        ip[K.P_POLICY] = POLICIES[self.policy]
        for p, name in zip((K.P_SUPPORT, K.P_INCR, K.P_ACCU, K.P_LOOKAHEAD, K.P_EQUIV, K.P_LEAFBOUND), ABLATIONS):
            ip[p] = name not in ablation
        ip[K.P_COUNTLIMIT] = _BIG if self.limits.node_limit is None else self.limits.node_limit
        ip[K.P_LMAX] = lmax
        self.ip = ip
        self.fp = np.array([lam, lam * n, rc], dtype=np.float64)
        self.st = np.zeros(K.N_STATE, dtype=np.int64)
        self.st[[K.S_RESUME, K.S_INC]] = -1  # nothing being expanded, no incumbent tree yet
        self.lmax, self.MW, self.KW = lmax, MW, KW
        self.arena = Arena(W, KW, MW)
        self.work = None
        # the expansion workspace starts small and grows with the trees expanded (NEED_WORKSPACE), up to lmax
        ws_lmax = min(lmax, _WORKSPACE_START)
        cap = self.limits.memory_limit
        needed = self.arena.nbytes() + self._workspace_bytes(ws_lmax)
        if cap is not None and needed > cap:
            return Status.MEMORY_LIMIT
        self.work, self.digits = self._new_workspace(ws_lmax)
        a = self.arena
        self._timed_first_call(K.init_search, self.packed, a.leaves, a.ltable, a.trees, a.ttable, a.entries, a.heap,
                               a.scratch, self.st, ip, self.fp)
        return None

    def _timed_first_call(self, kernel, *args) -> None:
        """``kernel(*args)``, the seconds it spends compiling or loading added to ``start_load_time``."""
        self.start_load_time += driver.timed_call(kernel, *args)[1]

    def step(self, work: int) -> int:
        a = self.arena
        code = K.run_chunk(self.packed, a.leaves, a.ltable, a.trees, a.ttable, a.entries, a.heap, a.scratch,
                           self.work, self.st, self.ip, self.fp, self.digits, work)
        if code == K.DONE:
            return driver.DONE
        if code == K.COUNT_LIMIT:
            return driver.NODE_LIMIT
        if code in (NEED_LEAVES, NEED_TREES, NEED_ENTRIES, NEED_SCRATCH, K.NEED_WORKSPACE):
            self.need_code = code
            return driver.NEED_MEMORY
        return driver.RUNNING

    def grow(self, cap_bytes: int | None, must_stop) -> bool:
        code, st = self.need_code, self.st
        if code == K.NEED_WORKSPACE:
            return self._grow_workspace(int(st[K.S_NEED]), cap_bytes)
        need = (int(st[K.S_NEED]), int(st[K.S_NEED2])) if code == NEED_TREES else int(st[K.S_NEED])
        return self.arena.grow(code, need, None if cap_bytes is None else cap_bytes - self._fixed_bytes(),
                               must_stop)

    def _workspace_bytes(self, ws_lmax: int) -> int:
        """Bytes of the expansion workspace and the combination counter for trees of fewer than ``ws_lmax``
        leaves."""
        return (K.workspace_bytes(ws_lmax, self.m, self.MW, self.KW)
                + K.digits_len(ws_lmax) * np.dtype(np.int64).itemsize)

    def _new_workspace(self, ws_lmax: int):
        return K.new_workspace(ws_lmax, self.m, self.MW, self.KW), np.zeros(K.digits_len(ws_lmax), np.int64)

    def _grow_workspace(self, need: int, cap_bytes: int | None) -> bool:
        """A workspace for trees of fewer than ``need`` leaves (doubling, at most ``lmax``); False if the memory
        cap forbids it, the old workspace counted with the new while that is built.  The workspace is scratch
        rebuilt by every expansion: only the combination counter is copied."""
        ws_lmax = min(max(2 * K.workspace_lmax(self.work), need), self.lmax)
        if ws_lmax < need:
            raise RuntimeError(f"internal error: a tree of {need - 1} leaves was expanded (at most {self.lmax - 1})")
        # the old workspace is alive while the new one is built
        steps = [(self._fixed_bytes(), self._workspace_bytes(ws_lmax))]
        if cap_bytes is not None and growth_peak(self.memory_bytes(), steps) > cap_bytes:
            return False
        work, digits = self._new_workspace(ws_lmax)
        digits[:self.digits.shape[0]] = self.digits
        self.work, self.digits = work, digits
        return True

    def _fixed_bytes(self) -> int:
        """Bytes held outside the arena: the expansion workspace and the combination counter."""
        return 0 if self.work is None else arrays_bytes(self.work) + self.digits.nbytes

    def nodes(self) -> int:
        return int(self.st[K.S_COUNT])

    def improvement_nodes(self) -> int:
        return int(self.st[K.S_COUNT_OPT])

    def improvements(self) -> int:
        return int(self.st[K.S_NIMPROVE])

    def memory_bytes(self) -> int:
        return self.arena.nbytes() + self._fixed_bytes()

    def queue_size(self) -> int:
        return int(self.st[K.S_HEAP])

    def incumbent(self) -> float:
        st = self.st
        if st[K.S_INC] >= 0:
            t = int(st[K.S_INC])
            return float(objective_value(int(self.arena.trees.errors[t]), int(self.arena.trees.length[t]), self.n,
                                         self.lam))
        return float(min(self.cart_obj, self.root_obj))

    def lower_bound(self) -> float:
        """min(R^c, smallest proven bound in the queue): every tree not yet dominated descends from a queue
        entry."""
        return float(min(self.fp[K.F_RC], K.frontier_bound(self.arena.entries, self.arena.heap, self.st)))

    def finish(self, status: Status):
        """The model: the best tree the search found, else the CART warm start, else the root."""
        st, data, n, lam = self.st, self.data, self.n, self.lam
        X, y = data.X, data.y
        trees_to_opt = int(st[K.S_COUNT_OPT]) if st[K.S_INC] >= 0 else 0
        best_is_cart = bool(st[K.S_INC] < 0 and self.cart_tree is not None and self.cart_obj <= self.root_obj)
        if st[K.S_INC] >= 0:
            model, errors = self._search_tree(int(st[K.S_INC]))
            objective = objective_value(errors, model.n_leaves, n, lam)
        elif best_is_cart:
            model, objective = self.cart_tree, self.cart_obj
        else:
            model, _ = make_tree(X, y, [()], data.feature_names, 2)
            objective = self.root_obj
        if status is Status.OPTIMAL:
            lower_bound = min(float(self.fp[K.F_RC]), objective)
        elif self.work is None:  # the search never started: only the equivalent points bound of any tree
            lower_bound = min(objective_value(popcount(self.packed.z), 1, n, lam), objective)
        else:
            lower_bound = min(self.lower_bound(), objective)
        counters = {
            "trees_evaluated": int(st[K.S_COUNT]),
            "trees_to_optimum": trees_to_opt,
            "nodes_expanded": int(st[K.S_POPS]),
            "max_queue_size": int(st[K.S_MAXHEAP]),
            "queue_size": int(st[K.S_HEAP]),
            "leaf_cache_size": int(st[K.S_NLEAVES]),
            "tree_cache_size": int(st[K.S_NTREES]),
            "cart_objective": self.cart_obj if self.cart_tree is not None else None,
            "best_is_cart": best_is_cart,
        }
        return model, float(objective), float(lower_bound), counters

    def _search_tree(self, tid: int) -> tuple[Tree, int]:
        trees, data = self.arena.trees, self.data
        off, ln = int(trees.offset[tid]), int(trees.length[tid])
        ids = trees.leaf_ids[off:off + ln]
        leaves = [_decode_leaf(self.arena.leaves.key[i], self.arena.KW, self.m) for i in ids]
        tree, errors = make_tree(data.X, data.y, leaves, data.feature_names, 2)
        if errors != int(trees.errors[tid]):  # cheap consistency check of the kernel's counts
            raise RuntimeError(f"internal error: tree errors {errors} != cached {int(trees.errors[tid])}")
        return tree, errors
