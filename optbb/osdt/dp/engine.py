"""The dynamic-programming OSDT search as an engine of the common search driver (``search="dp"``).

:class:`DPEngine` owns the arrays of :mod:`optbb.osdt.dp.kernel` (memo table, frame stack, state) and implements the
driver protocol (:mod:`optbb.common.driver`; ``step`` runs one Numba chunk, ``grow`` doubles the memo); the driver
owns limits, Ctrl-C, chunk sizing, trace, progress and the result.

Labels may have ``k >= 2`` classes (``0 .. k-1``); a leaf predicts its majority class (ties: the largest label).

Sample weights: the objective is ``weight of the misclassified samples / total weight + lambda * leaves``.  The
search counts in the integer weight units of :mod:`optbb.osdt.support` (integer weights as they are, so a weight
``k`` is exactly ``k`` repeated rows; real weights in fixed point), grouped into weight layers that the kernels count
with popcounts.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ...common.bitset import n_words, pack_columns, pack_columns_load, pack_rows
from ...common.bounds import majority_class, objective_value
from ...common.data import BinaryDataset
from ...common import driver
from ...common.driver import DONE, RUNNING
from ...common.growth import grow
from ...common.hashtable import HashTable, new_table, rehash
from ...common.limits import InterruptGuard, Limits
from ...common.result import SearchResult, Status
from ...common.weights import drop_zero_weights
from . import kernel as D
from ..bounds import lookahead_bound
from .depth2 import depth2
from .trees import DPTrees, depth2_leaves
from ..cart import cart_affordable, cart_warm_start
from ..model import make_tree
from ..support import leaf_stats, pack, weight_units

_BIG = 1 << 62

# a search without depth limit starts from the root's optimal tree of depth <= 2 where counting the root's feature
# pairs (``features ** 2 * words * count rows``, see :func:`root_depth2_pays`) is this much work or more, and not
# over ``ROOT_DEPTH2_MAX_WORK`` (about 0.15 s)
ROOT_DEPTH2_MIN_WORK = 10 ** 7
ROOT_DEPTH2_MAX_WORK = 1 << 30
ROOT_DEPTH2_MIN_SECONDS = 2.0  # a fit with less time left starts without it
_ROOT_DEPTH2_LOADED: set = set()  # whether weighted (``mult`` given), for each form this process has loaded


# below this many ``features ** depth * words`` a depth-limited search leaves the depth-2 solver out (see
# :func:`depth2_pays`)
DEPTH2_MIN_WORK = 10 ** 7


def depth2_pays(n_features: int, n_words: int, depth: int) -> bool:
    """Whether a search of depth ``depth`` on ``n_features`` features and ``n_words`` words of samples uses the
    depth-2 solver (:mod:`optbb.osdt.dp.depth2`): when ``n_features ** depth * n_words``, a rough count of the word
    operations of the search without it, reaches :data:`DEPTH2_MIN_WORK`.

    The solver makes the search 2-8x faster where the search takes more than a tenth of a second, but compiling
    its kernels costs about 10 s on a first fit with an empty Numba cache, as much as the whole default fit.  Below
    the threshold the search without it takes at most about a tenth of a second (measured warm on a loaded machine,
    same objectives: tic-tac-toe of the DL8.5 sets at depth 4, 8.0e6, 0.11 s against 0.02 s with it;
    heart-cleveland at depth 3, 4.3e6, 0.038 against 0.013 s; vote at depth 3, 7.7e5, 0.022 against 0.007 s), and
    the estimate is rough: on iris's 119 cuts at depth 3 (5.1e6) the search is as fast without it (0.022 against
    0.031 s)."""
    if depth >= D.UNLIMITED or depth < 2:
        return False
    return float(n_features) ** depth * n_words >= DEPTH2_MIN_WORK


# at most this many ``features ** 2 * words * classes`` for the pair bounds of a search without depth limit (see
# :func:`pairs_pay`)
PAIRS_MAX_WORK = 1 << 18


def pairs_pay(n_features: int, n_words: int, n_classes: int) -> bool:
    """Whether a search without depth limit uses the pair bounds (``pair_bounds`` of :class:`DPEngine`): each
    subproblem it opens then counts every pair of features (``n_features ** 2 * n_words * n_classes / 2``
    popcounts at most), which pays where that is small."""
    return float(n_features) ** 2 * n_words * n_classes <= PAIRS_MAX_WORK


def root_depth2_pays(n_features: int, n_words: int, n_rows: int, depth: int) -> bool:
    """Whether a search starts from the root's optimal tree of depth <= 2 (``root_depth2`` of :class:`DPEngine`):
    without a depth limit, where counting the root's feature pairs, ``n_features ** 2 * n_words * n_rows`` word
    popcounts (``n_rows``: classes times weight layers), lies between :data:`ROOT_DEPTH2_MIN_WORK` (below it the
    search is small and compiling the pair-count kernel, 10-20 s with an empty Numba cache, would cost more than it
    saves) and :data:`ROOT_DEPTH2_MAX_WORK`.

    Measured on the GOSDT suite's compas_processed (12,381 rows, 626 cuts, 1.5e8): 22 ms, and the tree found is
    the best stump, .32786/.30786/.29786 at lambda .02/.01/.005, the best published trees, where the search
    stopped at 30 s with the root leaf (.331364/.321364/.312295)."""
    if depth < D.UNLIMITED:
        return False
    work = float(n_features) ** 2 * n_words * n_rows
    return ROOT_DEPTH2_MIN_WORK <= work <= ROOT_DEPTH2_MAX_WORK


# seconds per training row that ``DPEngine.finish`` may take after a time limit (0.25 s per million rows measured
# on an idle 2-core machine, doubled for a loaded one): the search stops that much before the limit
FINISH_SECONDS_PER_ROW = 5e-7


class DPEngine:
    """Depth-first branch and bound over supports with a memo table (see :mod:`optbb.osdt.dp.kernel`).

    ``data``: a :class:`~optbb.common.data.BinaryDataset` whose ``y`` holds class indices ``0 .. k-1`` and whose
    ``sample_weight`` is positive or None (uniform: :func:`optbb.common.weights.drop_zero_weights` prepares both),
    ``lam`` (per-leaf penalty, >= 0), ``max_depth`` (None: unlimited), ``incumbent``: leaves of an initial tree
    (e.g. CART) or None, ``cart_start``: that tree is the CART tree fitted on all samples (a stopped search does not
    fit it again to complete its tree).  ``depth2_solver``: whether a depth-limited search solves its subproblems
    of depth 2 by the pair-count solver; None (default) decides by the size of the search (:func:`depth2_pays`).
    ``pair_bounds``: whether a search without depth limit counts the feature pairs of each subproblem it opens,
    solving it outright when no tree of four leaves or more can beat its best of at most three, and bounding each
    split's children by their best stump and leaf counts (:mod:`optbb.osdt.dp.pairs`); None (default)
    decides by the size of the count (:func:`pairs_pay`).  ``budget_deepening``: whether a split asks its
    children for trees below their bounds plus a step that doubles (:func:`optbb.osdt.dp.kernel._probe`) before
    asking for all its budget; None (default): without a depth limit.  ``bound_passes``: whether the root is
    searched in passes whose bounds rise from what is proven toward the incumbent (:meth:`_next_pass`), so that a
    search stopped at a limit reports a lower bound that rose with it; None (default): without a depth limit.
    ``nested``: which features hold every row of the one before (thresholds of one column,
    :func:`optbb.osdt.support.nested_cuts`), None for none; a split of such a feature that counts the same weight as
    the one before on a subproblem is that split again and is not tried.  ``root_depth2``: whether the search
    starts from the root's optimal tree of depth <= 2 (:mod:`optbb.osdt.dp.depth2`) when it beats the given
    incumbent; None (default) decides by the size of the count (:func:`root_depth2_pays`).
    """

    name = "osdt-dp"

    def __init__(self, data: BinaryDataset, lam: float, max_depth: int | None = None, incumbent=None, *,
                 cart_start: bool = False, node_limit: int | None = None, similar_support: bool = True,
                 small_subproblems: bool = True, depth2_solver: bool | None = None, pair_bounds: bool | None = None,
                 budget_deepening: bool | None = None, bound_passes: bool | None = None, nested=None,
                 root_depth2: bool | None = None, capacity: int = 1024, memory_limit: int | None = None):
        self.X = np.ascontiguousarray(data.X, dtype=np.uint8)
        self.y = np.ascontiguousarray(data.y, dtype=np.int64)
        self.n, self.m = self.X.shape
        self.k = max(2, int(self.y.max(initial=0)) + 1)
        self.lam = float(lam)
        # weights: ``w`` the real ones (the model and its objective), ``q`` the search's integer units
        self.w = None if data.sample_weight is None else np.asarray(data.sample_weight, dtype=np.float64)
        q = None if self.w is None else weight_units(self.w).units
        self.qf = None if q is None else q.astype(np.float64)
        self.total = self.n if q is None else int(q.sum())
        self.w_total = self.n if self.w is None else float(self.w.sum())
        self.lam_n = self.lam * self.total
        self.names = list(data.feature_names)
        self.W = n_words(self.n)
        self.data = pack(self.X, data.bits, self.y, self.k, q, nested)
        # a smaller first chunk when a frame's counts are long: 16 frames of 1,000,000 samples and 42 weight layers
        # took 0.8 s before the driver could adapt the chunk size to the time limit
        cells = self.W * self.data.ybits.shape[0] * max(self.m, 1)
        self.first_work = int(min(driver.FIRST_WORK, max(1, (1 << 22) // cells)))
        self.depth = D.UNLIMITED if max_depth is None else int(max_depth)
        self.ip = np.zeros(D.N_IPARAMS, dtype=np.int64)
        # small subproblems to the depth-2 solver: only with a depth limit (see :data:`optbb.osdt.dp.kernel.Tables`)
        self.ip[D.P_SIMILAR] = int(similar_support)
        layers = self.data.ybits.shape[0] // self.k  # a count costs one popcount per weight layer
        if depth2_solver is None:
            depth2_solver = depth2_pays(self.m, self.W * layers, self.depth)
        self.depth2_solver = bool(depth2_solver)
        self.ip[D.P_SMALL] = int(small_subproblems and max_depth is not None and self.depth2_solver)
        self.ip[D.P_NODELIMIT] = _BIG if node_limit is None else int(node_limit)
        if pair_bounds is None:
            pair_bounds = pairs_pay(self.m, self.W * layers, self.k)
        self.ip[D.P_PAIRS] = int(bool(pair_bounds) and self.depth >= D.UNLIMITED)
        if budget_deepening is None:
            budget_deepening = self.depth >= D.UNLIMITED
        self.ip[D.P_DEEPEN] = int(bool(budget_deepening))
        self.bound_passes = bool(self.depth >= D.UNLIMITED if bound_passes is None else bound_passes)
        if root_depth2 is None:
            root_depth2 = root_depth2_pays(self.m, self.W, self.data.ybits.shape[0], self.depth)
        self.root_depth2 = bool(root_depth2) and self.depth >= 2
        self.fp = np.zeros(D.N_FSTATE, dtype=np.float64)
        self.fp[D.F_LAMN] = self.lam_n
        self.st = np.zeros(D.N_STATE, dtype=np.int64)
        self.st[D.S_TOP] = -1
        self.st[D.S_TFRAME] = -1
        # the incumbent outside the search: the given tree if it beats the root leaf
        self.inc_leaves, self.inc_cost = [()], self._tree_cost([()])
        if incumbent is not None:
            self._offer(incumbent)
        self.capacity = int(capacity)
        self.memory_limit = memory_limit
        self.memo = self.stack = self.tables = None
        self._best_lb = 0.0
        self._proven = 0.0  # what the passes proved: no tree costs less (error units)
        self._ask = self.inc_cost  # the root's bound in the pass under way
        self._step = 0.0
        self.cart_start = cart_start
        self.start_load_time = 0.0  # compiling or loading in ``start``, off the clock (the driver adds it)

    # -- arrays --------------------------------------------------------------------------------------------------
    def _tree_cost(self, leaves) -> float:
        """Cost of a leaf set in the search's units (weight of the errors + lambda N per leaf)."""
        errors = sum(s[4] for s in leaf_stats(self.X, self.y, leaves, self.k, self.qf))
        return errors + self.lam_n * len(leaves)

    def _new_memo(self, cap: int):
        table = new_table(2 * cap, self.W + 1)
        return D.Memo(*table, np.zeros(cap, np.float64), np.zeros(cap, np.float64), np.zeros(cap, np.int64))

    def _new_stack(self) -> D.Stack:
        """The frame stack (see :data:`optbb.osdt.dp.kernel.Stack`), one row per frame and one spare."""
        rows = min(self.depth, self.m) + 2
        W, M, K = self.W, max(self.m, 1), self.k
        z = np.zeros
        return D.Stack(z((rows, D.N_FR), np.int64), z((rows, D.N_FV), np.float64), z((rows, M), np.int64),
                       z((rows, 3, M), np.float64), z((rows, 3, W), np.uint64), z((rows, 2, K), np.int64),
                       z(W + 1, np.uint64))

    def _new_tables(self) -> D.Tables | tuple | None:
        """What the depth-2 solver keeps (see :data:`optbb.osdt.dp.kernel.Tables`, which says when each form is used);
        None also when :func:`depth2_pays` says the search is too small for the solver."""
        k, m = self.k, self.m
        if self.ip[D.P_PAIRS]:  # the pair bounds' table (no depth limit: no depth-2 solver)
            return D.Tables(np.zeros((1, k, m, m), np.int64), np.zeros((1, k), np.int64))
        if self.depth >= D.UNLIMITED or self.depth < 2 or not self.depth2_solver:
            return None
        if not (self.depth >= 3 and 8 * k * m * m <= 64 << 20):
            return D.NO_TABLES
        return D.Tables(np.zeros((3, k, m, m), np.int64), np.zeros((3, k), np.int64))

    def memory_bytes(self) -> int:
        groups = (self.data, self.memo, self.stack, self.tables)
        return int(sum(a.nbytes for group in groups if group is not None for a in group))

    # -- protocol ------------------------------------------------------------------------------------------------
    def start(self) -> Status | None:
        cap_bytes = self.memory_limit
        self.stack = self._new_stack()
        self.tables = self._new_tables()
        self.memo = self._new_memo(self.capacity)
        if cap_bytes is not None and self.memory_bytes() > cap_bytes:
            self.memo = self._new_memo(16)
            if self.memory_bytes() > cap_bytes:
                return Status.MEMORY_LIMIT
        if self.root_depth2 and self.m > 0:
            self._offer(self._root_depth2_leaves())
        self._init_root()
        return None

    def _root_depth2_leaves(self) -> list:
        """Leaves of the root's optimal tree of depth <= 2, counted on the packed data (its first call for these
        types runs on no sample, its compiling or loading kept off the clock in ``start_load_time``)."""
        d = self.data
        S = self.all_samples()
        if (d.mult is not None) not in _ROOT_DEPTH2_LOADED:  # once loaded, the call on no sample is not repeated
            self.start_load_time += driver.timed_call(depth2, d.xbits, d.ybits, np.zeros_like(S), self.lam_n,
                                                      d.mult)[1]
            _ROOT_DEPTH2_LOADED.add(d.mult is not None)
        _, _, f, fl, fr = depth2(d.xbits, d.ybits, S, self.lam_n, d.mult)
        return depth2_leaves(f, fl, fr, ())

    def _offer(self, leaves) -> None:
        """Make ``leaves`` the incumbent the search starts from if it costs less than the one it has."""
        cost = self._tree_cost(leaves)
        if cost < self.inc_cost:
            self.inc_leaves, self.inc_cost = list(leaves), cost

    def _init_root(self) -> None:
        """Frame 0: every sample, the full depth budget, bound the incumbent's cost (or, with ``bound_passes``, the
        bound of the first pass)."""
        stk = self.stack
        stk.bits[0, D.SUP] = self.all_samples()
        if self.bound_passes:
            cnt = np.zeros(self.k, np.int64)
            _, z = D.support_counts(stk.bits[0, D.SUP], self.data, cnt)
            self._proven = min(lookahead_bound(majority_class(cnt)[1], z, self.lam_n), self.inc_cost)
        self._next_pass()

    def _next_pass(self) -> None:
        """Ask the root for a tree below what is proven plus a step (``2 lambda N``, doubled with each pass) or plus
        half the gap to the incumbent if that is less, or below the incumbent when the two are within two leaves'
        penalty (or one weight unit) of each other: a failed pass proves its bound (or more) a lower bound; a pass
        that succeeds has found the optimum.  Without ``bound_passes`` there is one pass, below the incumbent."""
        gap = self.inc_cost - self._proven
        self._step = 2.0 * self._step if self._ask < self.inc_cost else 2.0 * self.lam_n
        self._ask = self.inc_cost if not self.bound_passes or gap <= max(2.0 * self.lam_n, 1.0) else \
            self._proven + min(0.5 * gap, self._step)
        stk = self.stack
        stk.fi[0, D.FR_D] = self.depth
        stk.fv[0, D.FV_UB] = self._ask
        stk.fi[0, D.FR_PHASE] = D.OPEN
        self.st[D.S_TOP] = 0
        self.st[D.S_ROOTKIND] = 0

    def all_samples(self) -> np.ndarray:
        return pack_rows(np.ones((1, self.n), dtype=bool))[0]

    def step(self, work: int) -> int:
        code = D.run(self.data, self.memo, self.stack, self.st, self.ip, self.fp, self.tables, int(work))
        if code == DONE and self.st[D.S_ROOTKIND] == D.FAIL and self._ask < self.inc_cost:
            self._proven = max(self._proven, float(self.fp[D.F_ROOTVAL]))  # nothing below the pass's bound
            self._next_pass()
            return RUNNING
        return code

    def load_kernels(self) -> None:
        """Load (or compile) the compiled kernels of the search and of :meth:`finish`'s tree replay before the clock
        starts (:func:`optbb.common.driver.run_search`): a first call of each from Python loads it from the Numba
        cache, up to a few tenths of a second each."""
        self.step(0)
        self.lower_bound()
        DPTrees(self).load_kernels()

    def grow(self, cap_bytes: int | None, must_stop: Callable[[], bool]) -> bool:
        new_cap = 2 * self.memo.lb.shape[0]
        extra = sum(a.nbytes for a in self.memo)  # everything doubles
        # the old memo is freed only once the new one (twice its size) is filled: the peak is the current bytes
        # plus the new memo
        if cap_bytes is not None and self.memory_bytes() + 2 * extra > cap_bytes:
            return False
        table = rehash(HashTable(*self.memo[:5]), 2 * new_cap, must_stop)
        rest = tuple(grow(a, new_cap, must_stop) for a in self.memo[5:])
        self.memo = D.Memo(*table, *rest)
        return True

    def nodes(self) -> int:
        return int(self.st[D.S_NODES])

    def root_done(self) -> bool:
        return self.st[D.S_TOP] < 0 and self.st[D.S_ROOTKIND] != 0

    def incumbent(self) -> float:
        return self._incumbent_cost() / self.total

    def _incumbent_cost(self) -> float:
        if self.root_done() and self.st[D.S_ROOTKIND] == D.SUCCESS:
            return float(self.fp[D.F_ROOTVAL])
        if self.stack is not None and self.st[D.S_TOP] >= 0:
            return min(self.inc_cost, DPTrees(self).frame_candidate(0)[0])
        return self.inc_cost

    def improvements(self) -> int:
        return int(self.st[D.S_IMPROV])

    def improvement_nodes(self) -> int:
        return int(self.st[D.S_IMPNODES])

    def lower_bound(self) -> float:
        """Largest lower bound seen so far (every one is valid, so their maximum is)."""
        if self.stack is None or (self.st[D.S_TOP] < 0 and self.st[D.S_ROOTKIND] == 0):
            return 0.0
        v = max(min(self._stack_lower_bound(), self._incumbent_cost()), self._proven)
        self._best_lb = max(self._best_lb, v)
        return self._best_lb / self.total

    def _stack_lower_bound(self) -> float:
        """A lower bound on the root's optimum (error units) from the frames on the stack: each frame's value is the
        least of its best tree so far (or its bound), the bounds of its splits not yet tried and, for the split in
        progress, the value of the child frame above it plus the sibling's bound; an open frame's value is its
        lookahead bound (OSDT Lemma 3.2) capped by the bound it was asked for."""
        top = int(self.st[D.S_TOP])
        if top < 0:
            return float(self.fp[D.F_ROOTVAL])
        stk = self.stack
        val = 0.0
        for k in range(top, -1, -1):
            phase = int(stk.fi[k, D.FR_PHASE])
            if phase == D.OPEN:
                cnt = np.zeros(self.k, np.int64)
                _, z = D.support_counts(stk.bits[k, D.SUP], self.data, cnt)
                v = min(lookahead_bound(majority_class(cnt)[1], z, self.lam_n), float(stk.fv[k, D.FV_UB]))
            else:
                v = float(stk.fv[k, D.FV_BEST])
                j0 = int(stk.fi[k, D.FR_CURSOR])
                if phase != D.LOOP:  # a split in progress: the child's value plus the sibling's bound or cost
                    row = D.LB1 if stk.fi[k, D.FR_FIRST] == 0 else D.LB0
                    sibling = stk.lbs[k, row, j0] if phase == D.WAIT_A else stk.fv[k, D.FV_CA]
                    v = min(v, val + float(sibling))
                    j0 += 1
                rest = stk.lbs[k, D.LBF, j0:int(stk.fi[k, D.FR_NFEAT])]
                if rest.size:
                    v = min(v, float(rest.min()))
            val = v
        return val

    def queue_size(self) -> int:
        return int(self.st[D.S_TOP]) + 1

    @property
    def finish_seconds(self) -> float:
        """What :meth:`finish` takes (the best tree's leaves over the rows, a greedy completion of unsolved
        subproblems): about 0.25 s per million rows on a 2-core machine, doubled for a loaded one."""
        return FINISH_SECONDS_PER_ROW * self.n

    def finish(self, status: Status):
        model, errors = make_tree(self.X, self.y, DPTrees(self, greedy=True).best_leaves(), self.names, self.k,
                                  self.w)
        objective = objective_value(errors, model.n_leaves, self.w_total, self.lam)
        lower_bound = objective if status is Status.OPTIMAL else min(self.lower_bound(), objective)
        counters = {
            "subproblems": int(self.st[D.S_NENT]),
            "subproblems_expanded": self.nodes(),
            "memo_hits": int(self.st[D.S_HITS]),
            "depth2_calls": int(self.st[D.S_DEPTH2]),
            "depth2_above_bound": int(self.st[D.S_DEPTH2_FAIL]),
            "max_stack_depth": int(self.st[D.S_MAXTOP]) + 1,
            "memo_bytes": int(sum(a.nbytes for a in self.memo)) if self.memo is not None else 0,
        }
        return model, float(objective), float(lower_bound), counters


def solve_dp(X: np.ndarray, y: np.ndarray, regularization: float, *, max_depth: int | None = None,
             feature_names=None, warm_start: str | None = "cart", time_limit: float | None = None,
             node_limit: int | None = None, memory_limit="auto", verbose: int = 0,
             similar_support: bool = True, sample_weight: np.ndarray | None = None,
             started: float | None = None, depth2_solver: bool | None = None,
             pair_bounds: bool | None = None, budget_deepening: bool | None = None,
             bound_passes: bool | None = None, nested=None, root_depth2: bool | None = None) -> SearchResult:
    """Optimal tree minimising ``errors / N + regularization * leaves`` (depth <= ``max_depth``) by the
    dynamic-programming search; ``y`` holds class indices ``0 .. k-1``.  With ``sample_weight`` (non-negative,
    not all zero) ``errors / N`` is the weight of the misclassified samples over the total weight; samples of
    weight 0 are left out (as repeated rows would leave them out).  Arguments are assumed checked (see
    :func:`optbb.osdt.solve`).  The clock starts at ``started`` (a ``time.perf_counter()``, default now): the
    preparation (packing, the CART warm start, which is left out when it would take over a quarter of the time
    left) counts toward ``time_limit``.  ``depth2_solver``, ``pair_bounds``, ``budget_deepening``,
    ``bound_passes``, ``root_depth2`` (ablation switches; a fit with less than :data:`ROOT_DEPTH2_MIN_SECONDS`
    left leaves the root's depth-2 tree out), ``nested``: see :class:`DPEngine`."""
    started = time.perf_counter() if started is None else started
    X = np.ascontiguousarray(X, dtype=np.uint8)
    y = np.ascontiguousarray(y, dtype=np.int64)
    w, X, y = drop_zero_weights(sample_weight, X, y)
    incumbent = None
    limits = Limits(time_limit, node_limit, memory_limit)
    with InterruptGuard() as guard:  # the set-up is part of the search: a signal here ends it after one chunk
        cart = warm_start == "cart" and cart_affordable(*X.shape, limits.time_limit, started)
        if cart and len(np.unique(y)) >= 2 and (max_depth is None or max_depth >= 1):
            # a penalty below 1 / (2N) only loosens CART's stopping rules; it also caps its leaves at N
            incumbent = cart_warm_start(X, y, max(float(regularization), 0.5 / X.shape[0]), max_depth, None, w)
        packing_load = pack_columns_load()  # a cold cache compiles the packing kernel: off the clock
        left = limits.time_limit - (time.perf_counter() - started) if limits.time_limit is not None else None
        if root_depth2 is None and left is not None and left < ROOT_DEPTH2_MIN_SECONDS:
            root_depth2 = False
        engine = DPEngine(search_dataset(X, y, w, feature_names), regularization, max_depth, incumbent,
                          cart_start=cart, node_limit=limits.node_limit,
                          similar_support=similar_support, depth2_solver=depth2_solver,
                          pair_bounds=pair_bounds, budget_deepening=budget_deepening,
                          bound_passes=bound_passes, nested=nested, root_depth2=root_depth2,
                          memory_limit=limits.memory_limit)
        engine.start_load_time = packing_load
    return driver.run_search(engine, limits, verbose, interrupted=guard.interrupted, started=started)


def search_dataset(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None,
                   feature_names=None) -> BinaryDataset:
    """The :class:`DPEngine` dataset of checked arrays, taken as they are: 0/1 ``X``, class indices ``y`` (``0 ..
    k-1``, any ``k >= 2``), positive ``sample_weight`` or None; feature names default to ``x0, x1, ...``."""
    X = np.ascontiguousarray(X, dtype=np.uint8)
    y = np.ascontiguousarray(y, dtype=np.int64)
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(X.shape[1])]
    k = max(2, int(y.max(initial=0)) + 1)
    return BinaryDataset.from_bits(pack_columns(X), y, names, sample_weight, tuple(str(c) for c in range(k)), X=X)
