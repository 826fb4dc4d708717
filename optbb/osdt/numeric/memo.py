"""The memo of the search over sorted orders: what is known of a subproblem ``(S, d)`` met before.

A subproblem recurs when two paths select the same rows (``x <= a`` then ``z <= b``, or ``z <= b`` then ``x <= a``).
Its rows are identified by two 64-bit sums of random keys, one per row (:func:`row_keys`; a set's keys are summed
modulo 2^64 as its rows are partitioned), with its number of rows and its depth budget beside them: two different
sets agree on all of them with probability about 2^-128.  An entry holds a lower bound of the subproblem's optimum
(``lb``: a search that found nothing below ``ub`` proves ``ub``) and, once solved, its optimum (``val``, else inf)
and optimal tree (preorder, as in :mod:`optbb.osdt.numeric.kernel`).

The memo is a two-way set-associative table of fixed size: a new subproblem takes an empty way of its set, else the
way of the smaller subproblem (the cheaper to solve again).  Losing an entry loses only time.
"""
from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

import numpy as np

from ...common.jit import njit

# ``keys`` uint64 (C, 2) the two sums; ``meta`` int64 (C, 2): depth budget + 1 (0: empty) and number of rows;
# ``lb`` / ``val`` float64 (C,); ``trees`` int64 (C, 2, T).
Memo = namedtuple("Memo", "keys meta lb val trees")


KEPT_KEYS = 1 << 16  # row_keys keeps the keys of at most 8 sizes up to this (1 MB each)


def row_keys(n: int, seed: int = 0) -> np.ndarray:
    """uint64 (2, n): two random keys per row.  Up to :data:`KEPT_KEYS` rows, a fresh copy of keys drawn once per
    ``(n, seed)`` (drawing them took longer than a depth-2 search on a tiny problem)."""
    if n <= KEPT_KEYS:
        return _kept_keys(int(n), int(seed)).copy()
    return _draw_keys(n, seed)


@lru_cache(maxsize=8)
def _kept_keys(n: int, seed: int) -> np.ndarray:
    return _draw_keys(n, seed)


def _draw_keys(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, np.iinfo(np.uint64).max, size=(2, n), dtype=np.uint64,
                                                endpoint=True)


def new_memo(capacity: int, tree_nodes: int) -> Memo:
    """An empty memo of ``capacity`` entries (a power of two; 0 for none) holding trees of ``tree_nodes`` nodes.  The
    trees are left unset (an entry's tree is read only once its ``val`` is finite, and written then): zeroing them
    (2 MB at depth 4 on iris) took longer than the rest of the search's arrays."""
    z = np.zeros
    return Memo(z((capacity, 2), np.uint64), z((capacity, 2), np.int64), z(capacity, np.float64),
                np.full(capacity, np.inf), np.empty((capacity, 2, tree_nodes), np.int64))


def entry_bytes(tree_nodes: int) -> int:
    return 48 + 16 * tree_nodes


@njit(cache=True)
def memo_find(memo, h1, h2, depth, n):
    """The entry of subproblem ``(h1, h2, n)`` at ``depth``, or -1."""
    cap = memo.lb.shape[0]
    if cap == 0:
        return -1
    base = np.int64(h1 & np.uint64(cap - 1)) & ~np.int64(1)
    for e in range(base, base + 2):
        if (memo.meta[e, 0] == depth + 1 and memo.meta[e, 1] == n and memo.keys[e, 0] == h1
                and memo.keys[e, 1] == h2):
            return e
    return -1


@njit(cache=True)
def memo_store(memo, h1, h2, depth, n, lb, val, tree):
    """Record that subproblem ``(h1, h2, n)`` at ``depth`` has optimum >= ``lb`` and, if ``val`` is finite, optimum
    ``val`` with tree ``tree``."""
    cap = memo.lb.shape[0]
    if cap == 0:
        return
    e = memo_find(memo, h1, h2, depth, n)
    if e < 0:
        base = np.int64(h1 & np.uint64(cap - 1)) & ~np.int64(1)
        e = base
        if memo.meta[base, 0] != 0 and (memo.meta[base + 1, 0] == 0 or memo.meta[base + 1, 1] < memo.meta[base, 1]):
            e = base + 1
        memo.keys[e, 0], memo.keys[e, 1] = h1, h2
        memo.meta[e, 0], memo.meta[e, 1] = depth + 1, n
        memo.lb[e], memo.val[e] = lb, np.inf
    memo.lb[e] = max(memo.lb[e], lb)
    if val < memo.val[e]:
        memo.val[e] = val
        copy_subtree(tree, memo.trees[e], 0)


@njit(cache=True)
def subtree_end(tree, pos):
    """The position just past the preorder subtree of ``tree`` that starts at ``pos`` (row 0: a split's column, -1
    for a leaf)."""
    need, i = 1, pos
    while need > 0:
        need += 1 if tree[0, i] >= 0 else -1
        i += 1
    return i


@njit(cache=True)
def copy_subtree(src, dst, pos):
    """Copy the preorder tree ``src`` (from its start) into ``dst`` at ``pos``; returns the next position."""
    end = subtree_end(src, 0)
    for i in range(end):
        dst[0, pos + i] = src[0, i]
        dst[1, pos + i] = src[1, i]
    return pos + end
