"""The Rashomon set of sparse decision trees: every tree whose objective is within a bound, counted exactly.

A subproblem is a support ``S`` (the training rows reaching a node, a Python-int bitset) with a depth budget ``d``.
For a cost budget ``B`` the subproblem holds the multiset of achievable ``(errors, leaves)`` pairs of its trees
with cost ``errors / N + regularization * leaves`` at most ``B``, each with the number of trees achieving it:

- the leaf: ``(errors of the majority class, 1)``;
- a split on feature ``f`` with two non-empty children ``L``, ``R``: the convolution of their pair multisets, each
  child asked for the budget the other's optimum leaves (``B - opt(R)`` for ``L``), keeping the sums within ``B``;
  with ``exclude_useless`` a split of two leaves counts only when it lowers the errors.

Every count is exact for the pairs within the budget (a tree within ``B`` splits into subtrees within those child
budgets), and a budget that grows later only adds pairs, so the structure is built once per subproblem and widened
on demand.  Listing, unranking, the per-sample class counts (each subproblem's weight as a leaf, passed top-down)
and the per-feature usage (recounting without the feature) read the same structure.
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..common.rashomon import BOUND_TOLERANCE
from .rashomon_kernel import KEY, convolve, merge

UNLIMITED = 1 << 30  # the depth budget of a search without max_depth (never decremented to 0)


TOO_MANY = "the Rashomon set has more than 2**62 trees at one subproblem; tighten the bound or the depth"


class LimitReached(Exception):
    """A time, node or memory limit stopped the construction; ``status`` names it."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(eq=False)
class Node:
    """A subproblem: support ``S``, depth budget ``d``, the budget its pairs cover, its leaf and its split options
    ``(feature, zero child, one child)``.  Its pairs are ``keys`` (``errors * KEY + leaves``, sorted) with ``counts``
    (the number of trees of each); ``pairs`` is the same as a dict ``(errors, leaves) -> count``."""

    S: int
    d: int
    leaf_errors: int
    label: int
    budget: float = -math.inf
    keys: np.ndarray = field(default_factory=lambda: EMPTY)
    counts: np.ndarray = field(default_factory=lambda: EMPTY)
    options: list = field(default_factory=list)
    _pairs: dict | None = None
    leaf_info: tuple | None = None  # (rows, misclassified rows, class amounts) of the leaf, once a model needs it

    @property
    def errors(self) -> np.ndarray:
        return self.keys // KEY

    @property
    def leaves(self) -> np.ndarray:
        return self.keys % KEY

    @property
    def pairs(self) -> dict:
        if self._pairs is None:
            self._pairs = {(int(k) // KEY, int(k) % KEY): int(c) for k, c in zip(self.keys, self.counts)}
        return self._pairs

    @property
    def order(self) -> list:
        """The pairs in key order (errors, then leaves): the listing order of a split's left subtrees."""
        return list(self.pairs)


class Amounts:
    """The training rows as bitsets: class masks and integer amounts (1 per row, or weights scaled to integers
    exactly for dyadic weights), with the equivalent-points minority (rows outside their identical-feature group's
    majority class, Angelino et al. Thm 20: the errors every tree makes on a support)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, sample_weight: np.ndarray | None):
        n, self.m = X.shape
        self.n, self.K = n, n_classes
        self.all = (1 << n) - 1
        self.features = [_mask(X[:, j] == 1) for j in range(self.m)]
        self.classes = [_mask(y == k) for k in range(n_classes)]
        if sample_weight is None:
            self.amount, self.table = np.ones(n, dtype=np.int64), None
        else:
            self.amount = scaled_weights(sample_weight)
            self.table = _byte_tables(self.amount)
        self.total = int(self.amount.sum())
        # the weight of one amount unit (1 for unweighted data)
        self.weight_unit = 1.0 if sample_weight is None else float(np.sum(sample_weight)) / max(self.total, 1)
        self.minority = _mask(_minority_rows(X, y, self.amount, n_classes))

    def mass(self, S: int) -> int:
        """The amount of the rows of ``S``."""
        if self.table is None:
            return S.bit_count()
        raw = np.frombuffer(S.to_bytes(self.table.shape[0], "little"), dtype=np.uint8)
        return int(self.table[np.arange(raw.size), raw].sum())

    def leaf(self, S: int) -> tuple[int, int]:
        """``(errors, label)`` of a leaf on ``S``: the majority class, ties to the larger class index."""
        amounts = [self.mass(S & c) for c in self.classes]
        best = max(range(self.K), key=lambda k: (amounts[k], k))
        return sum(amounts) - amounts[best], best

    def rows(self, S: int) -> np.ndarray:
        """Indices of the rows of ``S``."""
        raw = np.frombuffer(S.to_bytes((self.n + 7) // 8, "little"), dtype=np.uint8)
        return np.flatnonzero(np.unpackbits(raw, bitorder="little")[:self.n])


def scaled_weights(w: np.ndarray) -> np.ndarray:
    """Sample weights as integers: scaled by a power of two that keeps the total below ``2**40``, exact for weights
    with few significant bits; the objective's errors over the total weight is unchanged by the scale."""
    w = np.asarray(w, dtype=np.float64)
    shift = 40 - math.ceil(math.log2(max(float(w.sum()), 1e-300))) - math.ceil(math.log2(max(len(w), 2)))
    return np.rint(np.ldexp(w, shift)).astype(np.int64)


def _mask(rows: np.ndarray) -> int:
    packed = np.packbits(np.asarray(rows, dtype=bool), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _byte_tables(amount: np.ndarray) -> np.ndarray:
    """``table[b, v]``: the amount of the rows of byte ``b`` whose bits are set in ``v``."""
    nb = (amount.size + 7) // 8
    padded = np.zeros(nb * 8, dtype=np.int64)
    padded[:amount.size] = amount
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.int64)
    return padded.reshape(nb, 8) @ bits.T


def _minority_rows(X, y, amount, K) -> np.ndarray:
    """Rows outside the majority class (largest amount, ties to the larger class) of their identical-row group."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.reshape(-1)
    per = np.zeros((group.max() + 1, K), dtype=np.int64)
    np.add.at(per, (group, y), amount)
    major = (per.shape[1] - 1) - np.argmax(per[:, ::-1], axis=1)
    return y != major[group]


class TreeSpace:
    """The subproblems of one Rashomon construction and their optima."""

    def __init__(self, amounts: Amounts, regularization: float, max_depth: int | None, exclude_useless: bool,
                 deadline: float | None = None, node_limit: int | None = None, memory_limit: int | None = None):
        self.a = amounts
        self.lam = float(regularization)
        self.depth = UNLIMITED if max_depth is None else int(max_depth)
        self.exclude_useless = exclude_useless
        self.nodes: dict[tuple[int, int], Node] = {}
        self.optima: dict[tuple[int, int], float] = {}
        self.deadline, self.node_limit, self.memory_limit = deadline, node_limit, memory_limit
        self.evaluations = 0
        self.pair_count = 0
        self._splits: dict = {}  # node id -> pair -> its splits (listing order)

    # -- costs --------------------------------------------------------------------------------------------------
    def cost(self, errors: int, leaves: int) -> float:
        return errors / self.a.total + self.lam * leaves

    def _lower(self, S: int) -> float:
        """A lower bound on any subtree of ``S``: one leaf and the equivalent-points errors."""
        return self.a.mass(S & self.a.minority) / self.a.total + self.lam

    def _node(self, S: int, d: int) -> Node:
        node = self.nodes.get((S, d))
        if node is None:
            errors, label = self.a.leaf(S)
            node = self.nodes[(S, d)] = Node(S, d, errors, label)
        return node

    def _tick(self) -> None:
        self.evaluations += 1
        if self.evaluations & 255:
            return
        from ..common.result import Status
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise LimitReached(Status.TIME_LIMIT)
        if self.node_limit is not None and self.evaluations >= self.node_limit:
            raise LimitReached(Status.NODE_LIMIT)
        if self.memory_limit is not None and self.memory_bytes() > self.memory_limit:
            raise LimitReached(Status.MEMORY_LIMIT)

    def memory_bytes(self) -> int:
        """Estimated bytes of the structure (subproblems, their supports and pairs)."""
        return len(self.nodes) * (200 + self.a.n // 8) + len(self.optima) * 120 + self.pair_count * 150

    # -- the optimum of a subproblem ----------------------------------------------------------------------------
    def optimum(self, S: int, d: int, cutoff: float = math.inf) -> float:
        """The least cost of a tree on ``S`` with depth budget ``d`` when it is at most ``cutoff``; else a lower
        bound above ``cutoff`` (the search stops there).  Splits are pruned by the one-leaf and equivalent-points
        bound of each child (Hu et al. 2019 Thm 3.2, Angelino et al. 2018 Thm 20) against the best tree so far or
        the cutoff, whichever is lower."""
        key = (S, d)
        got = self.optima.get(key)
        if got is not None and (got[1] or got[0] > cutoff):
            return got[0]
        self._tick()
        node = self._node(S, d)
        best = self.cost(node.leaf_errors, 1)
        floor = math.inf  # the least lower bound of a split set aside
        if d > 0 and best > 2 * self.lam + self.a.mass(S & self.a.minority) / self.a.total:
            top = cutoff + 2 * BOUND_TOLERANCE * max(1.0, abs(cutoff)) if cutoff < math.inf else math.inf
            for f in range(self.a.m):
                L, R = S & ~self.a.features[f], S & self.a.features[f]
                if not L or not R:
                    continue
                t = min(best, top)
                lb_r = self._lower(R)
                low = self._lower(L) + lb_r
                if low < t:
                    low = self.optimum(L, d - 1, t - lb_r) + lb_r
                    if low < t:
                        low = low - lb_r + self.optimum(R, d - 1, t - low + lb_r)
                        if low < t:
                            best = low
                            continue
                floor = min(floor, low)
            if best > top:  # no tree within the cutoff: a lower bound above it
                self.optima[key] = (min(best, floor), False)
                return min(best, floor)
        self.optima[key] = (best, True)
        return best

    # -- the pairs within a budget ------------------------------------------------------------------------------
    def widen(self, S: int, d: int, budget: float) -> Node:
        """The subproblem with every ``(errors, leaves)`` pair of cost at most ``budget`` (and its counts).

        Two passes: top-down, each subproblem (parents first) passes its budget minus the sibling's optimum to its
        children (the largest over its parents); bottom-up, each subproblem convolves its children's pairs once."""
        root = self._node(S, d)
        wanted = {id(root): budget}
        heap = [(-d, -S.bit_count(), S, d)]
        planned = []
        while heap:
            _, _, s, depth = heapq.heappop(heap)
            node = self.nodes[(s, depth)]
            limit = wanted.pop(id(node), None)
            if limit is None or node.budget >= limit:
                continue
            self._tick()
            limit += 2 * BOUND_TOLERANCE * max(1.0, abs(limit))  # sums in another order differ in their last bits
            candidates = list(self._candidates(node, limit))
            for _, left, right, o_l, o_r in candidates:
                for child, rest in ((left, o_r), (right, o_l)):
                    if child.budget < limit - rest and wanted.get(id(child), -math.inf) < limit - rest:
                        if id(child) not in wanted:
                            heapq.heappush(heap, (-child.d, -child.S.bit_count(), child.S, child.d))
                        wanted[id(child)] = limit - rest
            planned.append((node, limit, candidates))
        for node, limit, candidates in reversed(planned):
            self._build(node, limit, candidates)
        return root

    def _candidates(self, node: Node, limit: float):
        """``(feature, left, right, opt left, opt right)`` of the splits of ``node`` that can fit within
        ``limit``: both sides non-empty, their optima (and first their one-leaf bounds) within it."""
        S, d = node.S, node.d
        if d == 0 or 2 * self.lam + self.a.mass(S & self.a.minority) / self.a.total > limit:
            return
        for f in range(self.a.m):
            L, R = S & ~self.a.features[f], S & self.a.features[f]
            if not L or not R:
                continue
            lb_r = self._lower(R)
            if self._lower(L) + lb_r > limit:
                continue
            o_l = self.optimum(L, d - 1, limit - lb_r)
            if o_l + lb_r > limit:
                continue
            o_r = self.optimum(R, d - 1, limit - o_l)
            if o_l + o_r <= limit:
                yield f, self._node(L, d - 1), self._node(R, d - 1), o_l, o_r

    def _build(self, node: Node, limit: float, candidates: list) -> None:
        """Convolve the children's pairs into ``node``'s pairs within ``limit`` (its children are built)."""
        keys, counts, options = [], [], []
        if self.cost(node.leaf_errors, 1) <= limit:
            keys.append(np.array([node.leaf_errors * KEY + 1], dtype=np.int64))
            counts.append(np.ones(1, dtype=np.int64))
        for f, left, right, _, _ in candidates:
            k, c, over = convolve(left.keys, left.counts, right.keys, right.counts, node.leaf_errors, limit,
                                  float(self.a.total), self.lam, self.exclude_useless)
            if over:
                raise OverflowError(TOO_MANY)
            if k.size:
                keys.append(k)
                counts.append(c)
                options.append((f, left, right))
        old = node.keys.size
        if keys:
            node.keys, node.counts, over = merge(np.concatenate(keys), np.concatenate(counts))
            if over:
                raise OverflowError(TOO_MANY)
        self.pair_count += node.keys.size - old
        node.options, node.budget, node._pairs = options, limit, None

    # -- listing and unranking ----------------------------------------------------------------------------------
    def splits(self, node: Node, errors: int, leaves: int) -> tuple:
        """The ways ``node`` reaches the pair, in the listing order (options by feature, then the left pair's
        key): arrays of the option, the left and right pair indices, and the cumulative number of trees (cached per
        node and pair)."""
        cache = self._splits.setdefault(id(node), {})
        got = cache.get((errors, leaves))
        if got is None:
            got = cache[(errors, leaves)] = self._find_splits(node, errors * KEY + leaves)
        return got

    def _find_splits(self, node: Node, key: int) -> tuple:
        opts, lefts, rights, ways = [EMPTY], [EMPTY], [EMPTY], [EMPTY]
        for o, (_, left, right) in enumerate(node.options):
            want = key - left.keys  # the right pair each left pair needs (keys add)
            at = np.minimum(np.searchsorted(right.keys, want), right.keys.size - 1)
            hit = right.keys[at] == want
            if self.exclude_useless:
                hit &= ~((left.leaves == 1) & (right.leaves[at] == 1) & (key // KEY >= node.leaf_errors))
            li = np.flatnonzero(hit)
            opts.append(np.full(li.size, o, dtype=np.int64))
            lefts.append(li)
            rights.append(at[li])
            ways.append(left.counts[li] * right.counts[at[li]])
        opt, li, ri, way = (np.concatenate(x) for x in (opts, lefts, rights, ways))
        return opt, li, ri, np.cumsum(way)

    def _split(self, node: Node, arrays: tuple, b: int):
        """The ``b``-th way of :meth:`splits`: feature, children, their pairs and the right child's count."""
        opt, li, ri, _ = arrays
        f, left, right = node.options[int(opt[b])]
        kl, kr = int(left.keys[li[b]]), int(right.keys[ri[b]])
        return f, left, right, (kl // KEY, kl % KEY), (kr // KEY, kr % KEY), int(right.counts[ri[b]])

    def shapes(self, node: Node, errors: int, leaves: int):
        """Every tree shape of ``node`` with the pair, in the listing order: ``("leaf", node)`` or
        ``("split", f, zero shape, one shape)``."""
        if leaves == 1:
            if errors == node.leaf_errors:
                yield ("leaf", node)
            return
        arrays = self.splits(node, errors, leaves)
        for b in range(arrays[0].size):
            f, left, right, pl, pr, _ = self._split(node, arrays, b)
            for zero in self.shapes(left, *pl):
                for one in self.shapes(right, *pr):
                    yield ("split", f, zero, one)

    def unrank(self, node: Node, errors: int, leaves: int, k: int):
        """The ``k``-th shape of :meth:`shapes` (same order), found by counting instead of listing."""
        if leaves == 1:
            return ("leaf", node)
        arrays = self.splits(node, errors, leaves)
        cum = arrays[3]
        b = int(np.searchsorted(cum, k, side="right"))
        if b >= cum.size:
            raise IndexError("rank beyond the count of the pair")
        f, left, right, pl, pr, cr = self._split(node, arrays, b)
        i, j = divmod(k - (int(cum[b - 1]) if b else 0), cr)
        return ("split", f, self.unrank(left, *pl, i), self.unrank(right, *pr, j))
