"""Compiled summaries of a Rashomon set of trees, read off the subproblems without listing a tree: the per-sample
class counts and the per-feature usage (see :class:`~optbb.osdt.rashomon.trees.TreeBackend`).

Arrays over pairs are aligned with the pair pool (``pools.keys``): the entry of pair ``t`` of subproblem ``i`` is at
``ints[i, N_PAIR_OFF] + t``.  Counts are int64, as the pair counts are (each below 2**62); every summary is at most
the set's count, so it is exact in int64 for a set below 2**63 trees.  A larger set is summarised modulo primes below
2**31 (``p``; None: no modulus), whose products fit in int64, and the exact numbers are put together from the
residues (:func:`exact_from_residues`, the Chinese remainder theorem).  Each kernel is compiled twice, with and
without ``p``: the branches on ``p is None`` are pruned at compile time."""
from __future__ import annotations

import numpy as np

from ...common.bitset import trailing_zeros
from ...common.jit import njit
from .pairs import KEY, combinations
from .store import N_ERRORS, N_LABEL, N_OPT_LEN, N_OPT_OFF, N_PAIR_LEN, N_PAIR_OFF

# primes below 2**31: products of two residues fit in int64
PRIMES = (2147483647, 2147483629, 2147483587, 2147483579, 2147483563, 2147483549, 2147483543, 2147483497,
          2147483489, 2147483477, 2147483423, 2147483399)


@njit(cache=True, inline="always")
def _mod(x, p):
    """``x`` modulo ``p`` (non-negative), or ``x`` itself when ``p`` is None."""
    if p is None:
        return x
    return x % p


def residue_runs(total: int) -> list:
    """The moduli to summarise a set of ``total`` members with: [None] (plain int64) below 2**63, else enough of
    :data:`PRIMES` for their product to pass ``total`` (a ValueError beyond all of them: about 2**371)."""
    if total < 2 ** 63:
        return [None]
    chosen, product = [], 1
    for p in PRIMES:
        chosen.append(p)
        product *= p
        if product > total:
            return chosen
    raise ValueError(f"a Rashomon set of {total} trees is too large to summarise exactly")


def exact_from_residues(residues: list, primes: list) -> np.ndarray:
    """The non-negative integers (Python ints, an object array) below the product of ``primes`` whose residues
    modulo each prime are ``residues`` (int64 arrays of one shape): the Chinese remainder theorem."""
    if primes == [None]:
        return residues[0]
    product = 1
    for p in primes:
        product *= p
    out = np.zeros(residues[0].shape, dtype=object)
    for r, p in zip(residues, primes):
        m = product // p
        out = out + r.astype(object) * (m * pow(m, -1, p))
    return out % product


@njit(cache=True)
def parents_first(nodes, pools, root):
    """The subproblems reachable from ``root`` through split options, parents before children: breadth first, as
    every path from the root to a subproblem has the same length (a child's depth budget is its parent's less
    one)."""
    ints = nodes.ints
    seen = np.zeros(ints.shape[0], dtype=np.bool_)
    found = np.empty(ints.shape[0], dtype=np.int64)
    found[0], seen[root] = root, True
    n, top = 1, 0
    while top < n:
        e = found[top]
        top += 1
        for o in range(ints[e, N_OPT_OFF], ints[e, N_OPT_OFF] + ints[e, N_OPT_LEN]):
            for child in (pools.left[o], pools.right[o]):
                if not seen[child]:
                    seen[child] = True
                    found[n] = child
                    n += 1
    return found[:n]


@njit(cache=True, inline="always")
def pairs_of(nodes, pools, e):
    """The pair keys of subproblem ``e`` and their offset in the pool."""
    off = nodes.ints[e, N_PAIR_OFF]
    return pools.keys[off:off + nodes.ints[e, N_PAIR_LEN]], off


@njit(cache=True, inline="always")
def leaf_pair(nodes, pools, e):
    """The index of the leaf pair ``(leaf errors, 1)`` among the pairs of ``e``, or -1."""
    keys, _ = pairs_of(nodes, pools, e)
    key = nodes.ints[e, N_ERRORS] * KEY + 1
    at = np.searchsorted(keys, key)
    return at if at < keys.size and keys[at] == key else -1


@njit(cache=True)
def combination_buffers(nodes, pools, order):
    """Three arrays long enough for the combinations of any split option of the subproblems ``order``."""
    most = 0
    for e in order:
        for o in range(nodes.ints[e, N_OPT_OFF], nodes.ints[e, N_OPT_OFF] + nodes.ints[e, N_OPT_LEN]):
            most = max(most, nodes.ints[pools.left[o], N_PAIR_LEN] * nodes.ints[pools.right[o], N_PAIR_LEN])
    return np.empty(most, dtype=np.int64), np.empty(most, dtype=np.int64), np.empty(most, dtype=np.int64)


@njit(cache=True)
def outside_weights(nodes, pools, order, root_pairs, p=None):
    """Per pair (aligned with the pool), the number of ways the rest of a member completes a subtree of that pair
    (modulo ``p``): the root's pairs ``root_pairs`` (indices among its pairs) weigh 1, and top-down each split
    passes its weight times the sibling's count to each child's pair."""
    w = np.zeros(pools.keys.shape[0], dtype=np.int64)
    ii, jj, at = combination_buffers(nodes, pools, order)
    _, off = pairs_of(nodes, pools, order[0])
    for t in root_pairs:
        w[off + t] = 1
    for e in order:
        keys, off = pairs_of(nodes, pools, e)
        for o in range(nodes.ints[e, N_OPT_OFF], nodes.ints[e, N_OPT_OFF] + nodes.ints[e, N_OPT_LEN]):
            lk, lo = pairs_of(nodes, pools, pools.left[o])
            rk, ro = pairs_of(nodes, pools, pools.right[o])
            for t in range(combinations(keys, lk, rk, pools.useless[o] != 0, ii, jj, at)):
                through = w[off + at[t]]
                if through > 0:
                    w[lo + ii[t]] = _mod(w[lo + ii[t]] + through * _mod(pools.counts[ro + jj[t]], p), p)
                    w[ro + jj[t]] = _mod(w[ro + jj[t]] + through * _mod(pools.counts[lo + ii[t]], p), p)
    return w


@njit(cache=True)
def class_counts(nodes, pools, order, w, n_rows, n_classes, p=None):
    """``(n_rows, n_classes)``: per training row, the members predicting each class, modulo ``p`` (a subproblem is a
    leaf of as many members as the outside weight ``w`` of its leaf pair, and predicts its label for each of its
    rows)."""
    out = np.zeros((n_rows, n_classes), dtype=np.int64)
    words = nodes.rows.shape[1] - 1
    for e in order:
        at = leaf_pair(nodes, pools, e)
        if at < 0 or w[nodes.ints[e, N_PAIR_OFF] + at] == 0:
            continue
        weight, label = w[nodes.ints[e, N_PAIR_OFF] + at], nodes.ints[e, N_LABEL]
        for k in range(words):
            word = nodes.rows[e, k]
            while word:
                row = k * 64 + trailing_zeros(word)
                out[row, label] = _mod(out[row, label] + weight, p)
                word &= word - np.uint64(1)
    return out


@njit(cache=True)
def usage_recounts(nodes, pools, order, root_pairs, n_features, p=None):
    """Per feature, the members of a recount without its splits among the root's pairs ``root_pairs`` (modulo
    ``p``): bottom-up, one column per feature, a leaf counting 1 in every column and a split on ``f`` adding its
    ways to every column but ``f``."""
    c = np.zeros((pools.keys.shape[0], n_features), dtype=np.int64)
    ii, jj, at = combination_buffers(nodes, pools, order)
    for t in range(order.size - 1, -1, -1):
        e = order[t]
        keys, off = pairs_of(nodes, pools, e)
        leaf = leaf_pair(nodes, pools, e)
        if leaf >= 0:
            for f in range(n_features):
                c[off + leaf, f] = 1
        for o in range(nodes.ints[e, N_OPT_OFF], nodes.ints[e, N_OPT_OFF] + nodes.ints[e, N_OPT_LEN]):
            lk, lo = pairs_of(nodes, pools, pools.left[o])
            rk, ro = pairs_of(nodes, pools, pools.right[o])
            split = pools.feat[o]
            for s in range(combinations(keys, lk, rk, pools.useless[o] != 0, ii, jj, at)):
                here, left, right = off + at[s], lo + ii[s], ro + jj[s]
                for f in range(n_features):  # every column, then the split's own taken back out (one loop)
                    c[here, f] = _mod(c[here, f] + c[left, f] * c[right, f], p)
                c[here, split] = _mod(c[here, split] - c[left, split] * c[right, split], p)
    kept = np.zeros(n_features, dtype=np.int64)
    _, off = pairs_of(nodes, pools, order[0])
    for t in root_pairs:
        for f in range(n_features):
            kept[f] = _mod(kept[f] + c[off + t, f], p)
    return kept
