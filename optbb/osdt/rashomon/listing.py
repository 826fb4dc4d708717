"""Compiled listing of a Rashomon set of trees: the *ways* of every pair (the splits that make it, with their
counts) gathered into one table once, and trees unranked from it in batches as preorder arrays.

A *way* of a pair ``P`` of subproblem ``e`` (its index in the pair pool) is a split option ``o`` of ``e`` with a left
pair ``L`` of the zero side and a right pair ``R`` of the one side whose keys add to ``P``'s; it makes
``counts[L] * counts[R]`` trees.  The table lists each pair's ways in the order of
:meth:`~optbb.osdt.rashomon.space.TreeSpace.splits` (options in order, then the left pair's key), which is the order
of :func:`~optbb.osdt.rashomon.pairs.combinations` per option, so the ``k``-th tree here is the ``k``-th tree of
:meth:`~optbb.osdt.rashomon.space.TreeSpace.shapes`: the way holding rank ``k`` (the cumulative counts), then the
left rank ``k' // counts[R]`` and the right rank ``k' % counts[R]``.

A tree comes out in preorder: ``feat[t]`` the split's feature (-1 for a leaf) and ``node[t]`` the subproblem of the
``t``-th node (a split's zero subtree follows it, then its one subtree).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.jit import njit
from .pairs import KEY, combinations
from .store import N_OPT_LEN, N_OPT_OFF, N_PAIR_OFF
from .summary import combination_buffers, pairs_of

# ``first[P]:first[P + 1]`` the ways of pool pair ``P``; per way its option, left and right pool pairs and the
# cumulative count of the pair's trees up to it
Ways = namedtuple("Ways", "first opt left right cum")


@njit(cache=True)
def _reached(nodes, pools, order, root_pairs):
    """Per pool pair, whether some member has a subtree of that pair (top-down from the root's pairs)."""
    reached = np.zeros(pools.keys.shape[0], dtype=np.bool_)
    ii, jj, at = combination_buffers(nodes, pools, order)
    _, off = pairs_of(nodes, pools, order[0])
    for t in root_pairs:
        reached[off + t] = True
    for e in order:
        keys, off = pairs_of(nodes, pools, e)
        for o in range(nodes.ints[e, N_OPT_OFF], nodes.ints[e, N_OPT_OFF] + nodes.ints[e, N_OPT_LEN]):
            lk, lo = pairs_of(nodes, pools, pools.left[o])
            rk, ro = pairs_of(nodes, pools, pools.right[o])
            for t in range(combinations(keys, lk, rk, pools.useless[o] != 0, ii, jj, at)):
                if reached[off + at[t]]:
                    reached[lo + ii[t]] = True
                    reached[ro + jj[t]] = True
    return reached


@njit(cache=True)
def _fill_ways(nodes, pools, order, reached, first, opt, left, right, cum, count_only):
    """Count (``count_only``: into ``first[P + 1]``) or write the ways of the reached pairs, in listing order."""
    ii, jj, at = combination_buffers(nodes, pools, order)
    fill = first.copy()
    for e in order:
        keys, off = pairs_of(nodes, pools, e)
        for o in range(nodes.ints[e, N_OPT_OFF], nodes.ints[e, N_OPT_OFF] + nodes.ints[e, N_OPT_LEN]):
            lk, lo = pairs_of(nodes, pools, pools.left[o])
            rk, ro = pairs_of(nodes, pools, pools.right[o])
            for t in range(combinations(keys, lk, rk, pools.useless[o] != 0, ii, jj, at)):
                p = off + at[t]
                if not reached[p]:
                    continue
                if count_only:
                    first[p + 1] += 1
                    continue
                w = fill[p]
                fill[p] += 1
                opt[w], left[w], right[w] = o, lo + ii[t], ro + jj[t]
                ways = pools.counts[lo + ii[t]] * pools.counts[ro + jj[t]]
                cum[w] = ways if w == first[p] else cum[w - 1] + ways


def ways_table(nodes, pools, order: np.ndarray, root_pairs: np.ndarray) -> Ways:
    """The ways of every pair a member reaches (``order``: the subproblems parents first; ``root_pairs``: the
    indices of the set's pairs among the root's)."""
    reached = _reached(nodes, pools, order, root_pairs)
    first = np.zeros(pools.keys.shape[0] + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    _fill_ways(nodes, pools, order, reached, first, empty, empty, empty, empty, True)
    first = np.cumsum(first)
    opt, left, right, cum = (np.zeros(int(first[-1]), dtype=np.int64) for _ in range(4))
    _fill_ways(nodes, pools, order, reached, first, opt, left, right, cum, False)
    return Ways(first, opt, left, right, cum)


@njit(cache=True)
def unrank_trees(ways, pools, root, pair, rank, feat, node):
    """Tree ``rank[i]`` of pool pair ``pair[i]`` of subproblem ``root`` into row ``i`` of ``feat`` and ``node``
    (preorder; rows at least ``2 * leaves - 1`` long)."""
    width = feat.shape[1]
    st_pair = np.empty(width, dtype=np.int64)
    st_node = np.empty(width, dtype=np.int64)
    st_rank = np.empty(width, dtype=np.int64)
    for i in range(pair.shape[0]):
        top, t = 0, 0
        st_pair[0], st_node[0], st_rank[0] = pair[i], root, rank[i]
        while top >= 0:
            p, e, k = st_pair[top], st_node[top], st_rank[top]
            top -= 1
            node[i, t] = e
            if pools.keys[p] % KEY == 1:
                feat[i, t] = -1
                t += 1
                continue
            lo, hi = ways.first[p], ways.first[p + 1]
            b = lo + np.searchsorted(ways.cum[lo:hi], k, side="right")
            k -= ways.cum[b - 1] if b > lo else 0
            o, lp, rp = ways.opt[b], ways.left[b], ways.right[b]
            cr = pools.counts[rp]
            feat[i, t] = pools.feat[o]
            t += 1
            top += 1  # the one side first on the stack, so the zero side comes out next
            st_pair[top], st_node[top], st_rank[top] = rp, pools.right[o], k % cr
            top += 1
            st_pair[top], st_node[top], st_rank[top] = lp, pools.left[o], k // cr
        for r in range(t, width):
            feat[i, r], node[i, r] = -2, -1


class TreeLister:
    """Unranks batches of trees of a set: ``(feat, node)`` preorder arrays (one row per tree, ``-2`` past its
    end) for pairs given by their level and ranks within it."""

    def __init__(self, store, root: int, root_pairs: np.ndarray, order: np.ndarray, max_leaves: int):
        self.store, self.root = store, root
        self.pair_of_level = store.nodes.ints[root, N_PAIR_OFF] + np.asarray(root_pairs, dtype=np.int64)
        self.ways = ways_table(store.nodes, store.pools, order, root_pairs)
        self.width = max(1, 2 * int(max_leaves) - 1)

    def unrank(self, levels: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Preorder arrays of tree ``ranks[i]`` of level ``levels[i]``."""
        n = int(levels.shape[0])
        feat = np.empty((n, self.width), dtype=np.int64)
        node = np.empty((n, self.width), dtype=np.int64)
        if n:
            unrank_trees(self.ways, self.store.pools, self.root, self.pair_of_level[levels],
                         np.asarray(ranks, dtype=np.int64), feat, node)
        return feat, node
