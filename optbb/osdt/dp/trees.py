"""Trees of the dynamic-programming search (:mod:`optbb.osdt.dp.engine`), as leaf lists (each leaf a tuple of
``(feature, value)`` literals): the optimal subtree of a solved subproblem, replayed from the memo, and the
cheapest tree known for the frames of a search still running or stopped at a limit (its anytime incumbent).

Costs are in the search's units (weight of the errors + lambda N per leaf).  A stopped search may complete a
subproblem off the stack with a CART tree fitted on its samples (``greedy``), for at most ``GREEDY_SECONDS`` in all
so that a time limit still holds: a fit is not started when its estimated time (:func:`cart_seconds`) would run past
them.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ...common.bounds import majority_class
from . import kernel as D
from ..bounds import leaf_is_exact
from .depth2 import AUTO, depth2, depth2_from_counts, pair_counts
from .pairs import small_tree_wins
from ..cart import cart_seconds, cart_warm_start
from ..support import leaf_stats

GREEDY_SECONDS = 0.15  # CART completions of a stopped search's tree: at most this long, so a limit holds


def depth2_leaves(f: int, fl: int, fr: int, path: tuple) -> list:
    """Leaves under ``path`` of a tree of depth <= 2 as :mod:`optbb.osdt.dp.depth2` returns it: root feature ``f``
    (-1: a leaf), the left child's (feature 0 side) ``fl`` and the right child's ``fr`` (-1: unsplit)."""
    if f < 0:
        return [path]
    out = []
    for side, g in ((0, fl), (1, fr)):
        p = path + ((f, side),)
        out += [p] if g < 0 else [p + ((g, 0),), p + ((g, 1),)]
    return out


class DPTrees:
    """The trees a :class:`~optbb.osdt.dp.engine.DPEngine` knows, read from its memo, frame stack and state.
    ``greedy``: CART completions of subproblems off the stack are allowed for ``GREEDY_SECONDS`` from now."""

    def __init__(self, engine, greedy: bool = False):
        self.engine = engine
        self.greedy_until = time.perf_counter() + GREEDY_SECONDS if greedy else math.inf

    def load_kernels(self) -> None:
        """Call each compiled kernel :meth:`extract` may call, once, on the root's support."""
        e = self.engine
        S, data = e.all_samples(), e.data
        cnt, tmp = np.zeros(e.k, np.int64), np.zeros(e.k, np.int64)
        n, z = D.support_counts(S, data, cnt)
        D.solve_depth1(S, n, cnt, z, data, e.lam_n, tmp)
        D.memo_find(e.memo, np.zeros(e.W + 1, np.uint64), S, 2)
        if e.ip[D.P_PAIRS]:
            depth2_from_counts(*pair_counts(data.xbits, data.ybits, S, AUTO, data.mult), e.lam_n, 3)
            small_tree_wins(0.0, 0, e.lam_n)

    def best_leaves(self) -> list:
        """Leaves of the best tree known: the optimum when the root is solved, else the cheapest of the frames'
        candidate (with CART completions) and the incumbent the search started from."""
        e = self.engine
        if e.root_done() and e.st[D.S_ROOTKIND] == D.SUCCESS:
            return self.extract(e.all_samples(), e.depth, ())
        if e.stack is not None and e.st[D.S_TOP] >= 0:
            cost, build = self.frame_candidate(0, greedy=True)
            if cost < e.inc_cost:
                return build(())
        return e.inc_leaves

    def _leaf_cost(self, S: np.ndarray) -> float:
        e = self.engine
        cnt = np.zeros(e.k, np.int64)
        D.support_counts(S, e.data, cnt)
        return float(majority_class(cnt)[1] + e.lam_n)

    def _greedy_tree(self, S: np.ndarray, d: int):
        """``(cost, build)`` of a CART tree fitted on the samples of ``S`` (depth <= ``d``), or None."""
        e = self.engine
        if time.perf_counter() > self.greedy_until:
            return None
        rows = np.flatnonzero(np.unpackbits(S.view(np.uint8), bitorder="little")[:e.n])
        if e.cart_start and len(rows) == e.n and d == e.depth:
            return None  # already the incumbent
        if len(rows) < 2 or len(np.unique(e.y[rows])) < 2 or d < 1:
            return None
        if time.perf_counter() + cart_seconds(len(rows), e.m) > self.greedy_until:
            return None  # it would overrun: on 1,000,000 x 40 one fit took 1.2 s
        q = None if e.qf is None else e.qf[rows]
        total = len(rows) if q is None else q.sum()
        lam_sub = max(e.lam_n / total, 0.5 / len(rows))
        leaves = cart_warm_start(e.X[rows], e.y[rows], min(lam_sub, 1.0), None if d >= D.UNLIMITED else d,
                                 None, q)
        if not leaves:
            return None
        errors = sum(s[4] for s in leaf_stats(e.X[rows], e.y[rows], leaves, e.k, q))
        return errors + e.lam_n * len(leaves), (lambda path: [path + leaf for leaf in leaves])

    def _known_tree(self, S: np.ndarray, d: int, greedy: bool = False):
        """Cheapest tree known for a subproblem off the stack: its solved optimum in the memo, else its leaf (or,
        with ``greedy``, a CART tree on its samples if that is cheaper)."""
        e = self.engine
        best = (self._leaf_cost(S), lambda path: [path])
        if d >= 2:
            eid = D.memo_find(e.memo, np.zeros(e.W + 1, np.uint64), S, d)
            if eid >= 0 and e.memo.lb[eid] >= e.memo.ub[eid] and e.memo.ub[eid] < best[0]:
                return float(e.memo.ub[eid]), lambda path: self.extract(S, d, path)
        if greedy:
            cart = self._greedy_tree(S, d)
            if cart is not None and cart[0] < best[0]:
                best = cart
        return best

    def frame_candidate(self, k: int, greedy: bool = False):
        """``(cost, build)``: the cheapest tree known for the support of frame ``k`` (anytime incumbent): its leaf,
        its best split so far, or the split in progress (the child frame's candidate with the sibling's solved
        optimum or best known tree); ``build(path)`` returns its leaves."""
        e = self.engine
        stk = e.stack
        S, d = stk.bits[k, D.SUP].copy(), int(stk.fi[k, D.FR_D])
        cd = d if d >= D.UNLIMITED else d - 1
        phase = int(stk.fi[k, D.FR_PHASE])
        cost, build = self._known_tree(S, d, greedy) if phase == D.OPEN or greedy else \
            (self._leaf_cost(S), (lambda path: [path]))
        if phase == D.OPEN:
            return cost, build
        if stk.fi[k, D.FR_BESTF] >= 0 and stk.fv[k, D.FV_BEST] < cost:
            cost = float(stk.fv[k, D.FV_BEST])
            build = (lambda path, f=int(stk.fi[k, D.FR_BESTF]): self._extract_split(S, d, f, path))
        if k < e.st[D.S_TOP] and phase in (D.WAIT_A, D.WAIT_B):
            f = int(stk.order[k, stk.fi[k, D.FR_CURSOR]])
            x = e.data.xbits[f]
            first = int(stk.fi[k, D.FR_FIRST])
            side = first if phase == D.WAIT_A else 1 - first
            c_cost, c_build = self.frame_candidate(k + 1, greedy)
            sib = S & x if side == 0 else S & ~x
            if phase == D.WAIT_A:
                s_cost, s_build = self._known_tree(sib, cd, greedy)
            else:
                s_cost, s_build = float(stk.fv[k, D.FV_CA]), (lambda path, sib=sib: self.extract(sib, cd, path))
            if c_cost + s_cost < cost:
                cost = c_cost + s_cost
                build = (lambda path, f=f, side=side, c_build=c_build, s_build=s_build:
                         c_build(path + ((f, side),)) + s_build(path + ((f, 1 - side),)))
        return cost, build

    def extract(self, S: np.ndarray, d: int, path: tuple) -> list:
        """Leaves of the optimal subtree of a solved subproblem, replaying the decisions of ``dp._open``."""
        e = self.engine
        data, lam_n = e.data, e.lam_n
        cnt, tmp = np.zeros(e.k, np.int64), np.zeros(e.k, np.int64)
        n, z = D.support_counts(S, data, cnt)
        _, err = majority_class(cnt)
        if d == 0 or leaf_is_exact(err, z, lam_n):
            return [path]
        if d == 1 or err - z <= 2.0 * lam_n:
            _, f = D.solve_depth1(S, n, cnt, z, data, lam_n, tmp)
            return [path] if f < 0 else [path + ((f, 0),), path + ((f, 1),)]
        small = e.tables is not None and (d == 2 or (e.ip[D.P_SMALL] and err - z <= 3.0 * lam_n))
        if small:
            _, _, f, fl, fr = depth2(data.xbits, data.ybits, S, lam_n, data.mult)
        elif e.ip[D.P_PAIRS]:
            cost, _, f, fl, fr = depth2_from_counts(*pair_counts(data.xbits, data.ybits, S, AUTO, data.mult), lam_n, 3)
            small = small_tree_wins(cost, z, lam_n)
        if small:
            return depth2_leaves(f, fl, fr, path)
        eid = D.memo_find(e.memo, np.zeros(e.W + 1, np.uint64), S, d)
        if eid < 0 or e.memo.lb[eid] < e.memo.ub[eid]:
            raise RuntimeError("internal error: a subproblem of the best tree is not solved in the memo")
        f = int(e.memo.feat[eid])
        return [path] if f < 0 else self._extract_split(S, d, f, path)

    def _extract_split(self, S: np.ndarray, d: int, f: int, path: tuple) -> list:
        """Leaves of the optimal subtrees of both children of subproblem ``(S, d)`` split on feature ``f``."""
        cd = d if d >= D.UNLIMITED else d - 1
        x = self.engine.data.xbits[f]
        return self.extract(S & ~x, cd, path + ((f, 0),)) + self.extract(S & x, cd, path + ((f, 1),))
