"""Compiled kernels of the Rashomon set of trees on ``(errors, leaves)`` pair multisets: the convolution of two
subproblems' pairs into a table of distinct keys (their counts summed), the table's pairs in key order, and the
combinations of two children's pairs that make a parent's.  A pair is the key ``errors * KEY + leaves``
(``KEY = 2**20``)."""
from __future__ import annotations

import numpy as np

from ..common.jit import njit

KEY = 1 << 20
COUNT_CAP = 2.0 ** 62  # counts stay below this (int64 with room for a sum); beyond it the kernels report overflow
FREE = -1  # a free slot of a pair table (keys are positive)


@njit(cache=True)
def new_pairs(capacity):
    """An empty pair table: ``keys`` (a power of two of slots, :data:`FREE` when free) and ``counts``."""
    cap = 16
    while cap < 2 * capacity:
        cap *= 2
    return np.full(cap, FREE, dtype=np.int64), np.zeros(cap, dtype=np.int64)


@njit(cache=True, inline="always")
def pair_slot(keys, key):
    """The slot of ``key`` in the table, or the free slot where it goes (linear probing).  The errors are hashed
    and the leaves added, so the pairs of equal errors, which a convolution visits in a row, sit side by side."""
    mask = np.uint64(keys.shape[0] - 1)
    h = np.uint64(key // KEY) * np.uint64(0x9E3779B97F4A7C15)
    slot = np.int64(((h >> np.uint64(32)) + np.uint64(key % KEY)) & mask)
    while keys[slot] != FREE and keys[slot] != key:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return slot


@njit(cache=True)
def room_for(keys, counts, n, more):
    """The table, or a copy twice as large or more, with room for ``more`` keys beyond its ``n`` (half full at
    most)."""
    if 2 * (n + more) <= keys.shape[0]:
        return keys, counts
    bigger, more_counts = new_pairs(n + more)
    for s in range(keys.shape[0]):
        if keys[s] != FREE:
            t = pair_slot(bigger, keys[s])
            bigger[t], more_counts[t] = keys[s], counts[s]
    return bigger, more_counts


@njit(cache=True, inline="always")
def put_pair(keys, counts, key, count):
    """Add ``count`` trees of ``key`` to a table with room for it: ``(new key, over)``, ``over`` True when the sum
    reaches :data:`COUNT_CAP`."""
    slot = pair_slot(keys, key)
    if keys[slot] == FREE:
        keys[slot], counts[slot] = key, count
        return True, float(count) >= COUNT_CAP
    over = float(counts[slot]) + float(count) >= COUNT_CAP
    counts[slot] += count
    return False, over


@njit(cache=True)
def convolve(keys, counts, n, lk, lc, rk, rc, leaf_errors, limit, total, lam, exclude):
    """Add to the table the trees splitting into a left subtree (``lk``, ``lc``) and a right one (``rk``, ``rc``)
    whose cost ``errors / total + lam * leaves`` is at most ``limit``; with ``exclude`` two leaves count only when
    their errors are below ``leaf_errors``.  Returns ``(keys, counts, n, added, over)``: ``added`` True when some
    tree was added, ``over`` when a count would pass :data:`COUNT_CAP`.

    The cost grows with the errors and with the leaves (and so does its floating-point value), so along a run of
    right pairs of equal errors (sorted by leaves) the first one over the limit ends the run, and a run whose
    errors are over it even with a single leaf on the right ends the left pair's loop."""
    added = over = False
    nxt = next_errors(rk)
    for i in range(lk.size):
        if 2 * (n + rk.size) > keys.shape[0]:
            keys, counts = room_for(keys, counts, n, rk.size)
        el, ll = lk[i] // KEY, lk[i] % KEY
        j = 0
        while j < rk.size:
            e = el + rk[j] // KEY
            ec = e / total
            if ec + lam * (ll + 1) > limit:
                break
            for t in range(j, nxt[j]):
                leaves = ll + rk[t] % KEY
                if ec + lam * leaves > limit:
                    break
                if exclude and ll == 1 and leaves == 2 and e >= leaf_errors:
                    continue
                if float(lc[i]) * float(rc[t]) >= COUNT_CAP:
                    over = True
                new, o = put_pair(keys, counts, e * KEY + leaves, lc[i] * rc[t])
                n += new
                over |= o
                added = True
            j = nxt[j]
    return keys, counts, n, added, over


@njit(cache=True)
def next_errors(keys):
    """For each pair of sorted ``keys``, the index of the first pair with more errors."""
    nxt = np.empty(keys.size, dtype=np.int64)
    end = keys.size
    for j in range(keys.size - 1, -1, -1):
        if j + 1 < keys.size and keys[j + 1] // KEY != keys[j] // KEY:
            end = j + 1
        nxt[j] = end
    return nxt


@njit(cache=True)
def sorted_pairs(keys, counts, n):
    """The table's ``n`` keys in increasing order with their counts."""
    out_k = np.empty(n, dtype=np.int64)
    out_c = np.empty(n, dtype=np.int64)
    k = 0
    for s in range(keys.shape[0]):
        if keys[s] != FREE:
            out_k[k], out_c[k] = keys[s], counts[s]
            k += 1
    order = np.argsort(out_k)
    return out_k[order], out_c[order]


@njit(cache=True)
def combinations(node_keys, lk, rk, leaf_errors, exclude, ii, jj, at):
    """How many combinations of a left pair ``ii[t]`` and a right pair ``jj[t]`` make the node's pair ``at[t]``
    (the sum is one of ``node_keys``, sorted, and with ``exclude`` two leaves lower the errors), written into the
    three arrays (``lk.size * rk.size`` long at least).  Keys add, so along the right pairs of one left pair the
    sums rise: the node's keys are walked, not searched."""
    k = 0
    if node_keys.size == 0 or rk.size == 0:
        return k
    last = node_keys[node_keys.size - 1]
    for i in range(lk.size):
        p = np.searchsorted(node_keys, lk[i] + rk[0])
        for j in range(rk.size):
            key = lk[i] + rk[j]  # errors and leaves add in the key
            if key > last:
                break
            while node_keys[p] < key:
                p += 1
            if node_keys[p] != key:
                continue
            if exclude and lk[i] % KEY == 1 and rk[j] % KEY == 1 and key // KEY >= leaf_errors:
                continue
            ii[k], jj[k], at[k] = i, j, p
            k += 1
    return k
