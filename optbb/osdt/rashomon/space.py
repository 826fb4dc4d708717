"""The Rashomon set of sparse decision trees: every tree whose objective is within a bound, counted exactly.

A subproblem is a support ``S`` (the training rows reaching a node, a packed bitset) with a depth budget ``d``.
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

The construction runs in the compiled chunks of :mod:`optbb.osdt.rashomon.search` over the arrays of
:mod:`optbb.osdt.rashomon.store`, run by the search driver through :class:`~optbb.osdt.rashomon.engine.SetEngine`
(limits, Ctrl-C, growth); :class:`TreeSpace` holds the arrays and reads the result by subproblem id.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...common.bitset import n_words, pack_columns, pack_rows
from ..support import UNLIMITED, pack, weight_units
from .pairs import KEY
from .search import add_root
from .store import (N_ERRORS, N_LABEL, N_OPT_LEN, N_OPT_OFF, N_PAIR_LEN, N_PAIR_OFF, S_EVALS, S_NODES, S_ROOT,
                    S_SOLVED, Rows, Store)


class Amounts:
    """The training rows as the kernels read them (:data:`~optbb.osdt.support.Packed`: feature and class bitsets per
    weight layer, with the equivalent-points minority, Angelino et al. Thm 20: the errors every tree makes on a
    support; :data:`~optbb.osdt.rashomon.store.Rows`: the rows one by one), and their amounts: 1 per row, or the
    weight units of :func:`~optbb.osdt.support.weight_units` (``unit``: the weight of one, a fraction).  ``margin``:
    how many units apart two amounts must be for the units alone to compare them as the float sums of the weights do
    (-1: always, for unweighted and integer data; 0 for exact units, where only ties need the floats; the rows
    otherwise, each of which is rounded by at most half a unit)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, sample_weight: np.ndarray | None):
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n, self.m = X.shape
        self.n, self.K, self.y = n, n_classes, np.asarray(y, dtype=np.int64)
        self.weighted = sample_weight is not None
        units = weight_units(sample_weight) if self.weighted else None
        self.amount = np.ones(n, dtype=np.int64) if units is None else units.units
        self.total = int(self.amount.sum())
        self.unit = Fraction(1) if units is None else units.unit
        if units is None or (units.exact and units.unit == 1):
            self.margin = -1
        else:  # float sums in row order err by at most n ulps of the total: a margin for large totals
            self.margin = 0 if units.exact else n
            self.margin += math.ceil(self.total * n * 2.0 ** -52)
        self.words = n_words(n)
        # the minority amount of a support does not depend on how ties are broken: equivalent rows are never split
        self.data = pack(X, pack_columns(X), self.y, n_classes, None if units is None else units.units)
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.rows_data = Rows(self.y, np.ascontiguousarray(w), np.zeros(max(n_classes, 1), np.float64))
        self.all = pack_rows(np.ones((1, n), dtype=bool))[0]

    def weight(self, units: int) -> float:
        """The weight of ``units`` units, correctly rounded (the count of rows, an int, without weights)."""
        return float(units * self.unit) if self.weighted else int(units)

    def rows(self, words: np.ndarray) -> np.ndarray:
        """Indices of the rows of a support (its words)."""
        raw = np.ascontiguousarray(words[:self.words], dtype="<u8").view(np.uint8)
        return np.flatnonzero(np.unpackbits(raw, bitorder="little")[:self.n])

    def class_weights(self, rows: np.ndarray) -> np.ndarray:
        """The weight of each class among ``rows``, as the models count it (``np.bincount``: in row order; counts
        without weights)."""
        w = None if not self.weighted else self.rows_data.w[rows]
        return np.bincount(self.y[rows], weights=w, minlength=self.K)


class TreeSpace:
    """The subproblems of one Rashomon construction and their optima, built in compiled chunks, read by id."""

    def __init__(self, amounts: Amounts, regularization: float, max_depth: int | None, exclude_useless: bool,
                 node_limit: int | None = None):
        self.a = amounts
        self.lam = float(regularization)
        self.depth = UNLIMITED if max_depth is None else int(max_depth)
        self.exclude_useless = exclude_useless
        self.store = Store(amounts.words, amounts.m, self.depth, amounts.total, self.lam, amounts.K, exclude_useless,
                           node_limit, amounts.margin)
        s = self.store
        add_root(s.nodes, amounts.data, amounts.rows_data, s.frames, s.st, s.fs, amounts.all, self.depth)
        self.root = int(s.st[S_ROOT])
        self._splits: dict = {}  # (node id, key) -> its splits (listing order)

    # -- counters -----------------------------------------------------------------------------------------------
    @property
    def evaluations(self) -> int:
        return int(self.store.st[S_EVALS])

    @property
    def n_nodes(self) -> int:
        return int(self.store.st[S_NODES])

    @property
    def n_solved(self) -> int:
        """Subproblems with an optimum or a bound."""
        return int(self.store.st[S_SOLVED])

    def memory_bytes(self) -> int:
        """Bytes of the construction's arrays."""
        return self.store.memory_bytes()

    def cost(self, errors: int, leaves: int) -> float:
        return errors / self.a.total + self.lam * leaves

    # -- reading by subproblem id -------------------------------------------------------------------------------
    def keys(self, i: int) -> np.ndarray:
        """The subproblem's pairs (``errors * KEY + leaves``, sorted)."""
        row = self.store.nodes.ints[i]
        return self.store.pools.keys[row[N_PAIR_OFF]:row[N_PAIR_OFF] + row[N_PAIR_LEN]]

    def counts(self, i: int) -> np.ndarray:
        """The number of trees of each of its pairs."""
        row = self.store.nodes.ints[i]
        return self.store.pools.counts[row[N_PAIR_OFF]:row[N_PAIR_OFF] + row[N_PAIR_LEN]]

    def options(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Its split options: features, zero-side ids, one-side ids."""
        row, p = self.store.nodes.ints[i], self.store.pools
        sl = slice(row[N_OPT_OFF], row[N_OPT_OFF] + row[N_OPT_LEN])
        return p.feat[sl], p.left[sl], p.right[sl]

    def useless(self, i: int) -> np.ndarray:
        """Per split option, whether its two leaves alone are left out (``exclude_useless``: they lower no errors)."""
        row, p = self.store.nodes.ints[i], self.store.pools
        return p.useless[row[N_OPT_OFF]:row[N_OPT_OFF] + row[N_OPT_LEN]] != 0

    def leaf_errors(self, i: int) -> int:
        return int(self.store.nodes.ints[i, N_ERRORS])

    def label(self, i: int) -> int:
        return int(self.store.nodes.ints[i, N_LABEL])

    def rows(self, i: int) -> np.ndarray:
        """Indices of its rows."""
        return self.a.rows(self.store.nodes.rows[i])

    # -- listing and unranking ----------------------------------------------------------------------------------
    def splits(self, node: int, errors: int, leaves: int) -> tuple:
        """The ways ``node`` reaches the pair, in the listing order (options by feature, then the left pair's
        key): arrays of the option, the left and right pair indices, and the cumulative number of trees (cached per
        node and pair)."""
        key = errors * KEY + leaves
        got = self._splits.get((node, key))
        if got is None:
            got = self._splits[(node, key)] = self._find_splits(node, key)
        return got

    def _find_splits(self, node: int, key: int) -> tuple:
        empty = np.zeros(0, dtype=np.int64)
        opts, lefts, rights, ways = [empty], [empty], [empty], [empty]
        _, left_ids, right_ids = self.options(node)
        useless = self.useless(node)
        for o, (left, right) in enumerate(zip(left_ids, right_ids)):
            lk, rk = self.keys(left), self.keys(right)
            want = key - lk  # the right pair each left pair needs (keys add)
            at = np.minimum(np.searchsorted(rk, want), rk.size - 1)
            hit = rk[at] == want
            if useless[o]:
                hit &= ~((lk % KEY == 1) & (rk[at] % KEY == 1))
            li = np.flatnonzero(hit)
            opts.append(np.full(li.size, o, dtype=np.int64))
            lefts.append(li)
            rights.append(at[li])
            ways.append(self.counts(left)[li] * self.counts(right)[at[li]])
        opt, li, ri, way = (np.concatenate(x) for x in (opts, lefts, rights, ways))
        return opt, li, ri, np.cumsum(way)

    def _split(self, node: int, arrays: tuple, b: int):
        """The ``b``-th way of :meth:`splits`: feature, children, their pairs and the right child's count."""
        opt, li, ri, _ = arrays
        feat, left_ids, right_ids = self.options(node)
        o = int(opt[b])
        f, left, right = int(feat[o]), int(left_ids[o]), int(right_ids[o])
        kl, kr = int(self.keys(left)[li[b]]), int(self.keys(right)[ri[b]])
        return f, left, right, (kl // KEY, kl % KEY), (kr // KEY, kr % KEY), int(self.counts(right)[ri[b]])

    def shapes(self, node: int, errors: int, leaves: int):
        """Every tree shape of ``node`` with the pair, in the listing order: ``("leaf", node)`` or
        ``("split", f, zero shape, one shape)``."""
        if leaves == 1:
            if errors == self.leaf_errors(node):
                yield ("leaf", node)
            return
        arrays = self.splits(node, errors, leaves)
        for b in range(arrays[0].size):
            f, left, right, pl, pr, _ = self._split(node, arrays, b)
            for zero in self.shapes(left, *pl):
                for one in self.shapes(right, *pr):
                    yield ("split", f, zero, one)

    def unrank(self, node: int, errors: int, leaves: int, k: int):
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
