"""Compiled kernels of the Rashomon set of trees on ``(errors, leaves)`` pair multisets: the convolution of two
subproblems' pairs into a table of distinct keys (their counts summed), the table's pairs in key order, and the
combinations of two children's pairs that make a parent's.  A pair is the key ``errors * KEY + leaves``
(``KEY = 2**20``).

A pair table (:data:`PairTable`, scratch of the bottom-up pass, allocated and grown by Python) is open addressing:
``keys`` a power of two of slots (:data:`FREE` when free), ``counts``, and ``slots`` the slots of its keys in the
order they came, for emptying it without a scan."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...common.jit import njit

KEY = 1 << 20
COUNT_CAP = 2.0 ** 62  # counts stay below this (int64 with room for a sum); beyond it the kernels report overflow
FREE = -1  # a free slot of a pair table (keys are positive)
PairTable = namedtuple("PairTable", "keys counts slots")


def new_pair_table(capacity: int) -> PairTable:
    """An empty pair table of ``capacity`` slots (a power of two) and room for half as many keys."""
    return PairTable(np.full(capacity, FREE, dtype=np.int64), np.zeros(capacity, dtype=np.int64),
                     np.zeros(capacity // 2, dtype=np.int64))


@njit(cache=True, inline="always")
def pair_slot(keys, key):
    """The slot of ``key`` in a pair table, or the free slot where it goes (linear probing).  The errors are hashed
    and the leaves added, so the pairs of equal errors, which a convolution visits in a row, sit side by side."""
    mask = np.uint64(keys.shape[0] - 1)
    h = np.uint64(key // KEY) * np.uint64(0x9E3779B97F4A7C15)
    slot = np.int64(((h >> np.uint64(32)) + np.uint64(key % KEY)) & mask)
    while keys[slot] != FREE and keys[slot] != key:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return slot


@njit(cache=True, inline="always")
def put_pair(table, n, key, count):
    """Add ``count`` trees of ``key`` to a pair table holding ``n`` keys (with room for one more): ``(n, over)``,
    ``over`` True when the sum reaches :data:`COUNT_CAP`.  A new key's slot is recorded in ``table.slots``."""
    slot = pair_slot(table.keys, key)
    if table.keys[slot] == FREE:
        table.keys[slot], table.counts[slot], table.slots[n] = key, count, slot
        return n + 1, float(count) >= COUNT_CAP
    over = float(table.counts[slot]) + float(count) >= COUNT_CAP
    table.counts[slot] += count
    return n, over


@njit(cache=True)
def convolve(table, n, lk, lc, rk, rc, useless, limit, total, lam):
    """Add to the pair table (holding ``n`` keys) the trees splitting into a left subtree (``lk``, ``lc``) and a
    right one (``rk``, ``rc``) whose cost ``errors / total + lam * leaves`` is at most ``limit``; with ``useless``
    the two leaves alone do not count (the split lowers no errors, and ``exclude_useless`` is on).  Returns ``(n,
    added, over, full)``: ``added`` True when some tree was added, ``over`` when a count would pass
    :data:`COUNT_CAP`, ``full`` when the table lacked room (half full at most) and the convolution stopped.

    The cost grows with the errors and with the leaves (and so does its floating-point value), so in a run of right
    pairs of equal errors (sorted by leaves) the first one over the limit ends what the run adds, and a run whose
    errors are over it even with a single leaf on the right ends the left pair's loop."""
    added = over = False
    for i in range(lk.size):
        if 2 * (n + rk.size) > table.keys.shape[0]:
            return n, added, over, True
        el, ll = lk[i] // KEY, lk[i] % KEY
        j = 0
        while j < rk.size:
            er = rk[j] // KEY
            e = el + er
            ec = e / total
            if ec + lam * (ll + 1) > limit:
                break
            fits = True
            while j < rk.size and rk[j] // KEY == er:
                leaves = ll + rk[j] % KEY
                fits = fits and not ec + lam * leaves > limit
                if fits and not (useless and leaves == 2):
                    if float(lc[i]) * float(rc[j]) >= COUNT_CAP:
                        over = True
                    n, o = put_pair(table, n, e * KEY + leaves, lc[i] * rc[j])
                    over |= o
                    added = True
                j += 1
    return n, added, over, False


@njit(cache=True)
def take_pairs(table, n, keys, counts, at):
    """Move the table's ``n`` pairs to ``keys[at:at + n]`` and ``counts[at:at + n]`` in increasing key order,
    leaving the table empty."""
    for t in range(n):
        s = table.slots[t]
        keys[at + t], counts[at + t] = table.keys[s], table.counts[s]
        table.keys[s] = FREE
    for root in range(n // 2 - 1, -1, -1):  # heapsort, in place
        _sift(keys, counts, at, root, n)
    for end in range(n - 1, 0, -1):
        _swap(keys, counts, at, 0, end)
        _sift(keys, counts, at, 0, end)


@njit(cache=True)
def clear_pairs(table, n):
    """Empty the table of its ``n`` pairs."""
    for t in range(n):
        table.keys[table.slots[t]] = FREE


@njit(cache=True, inline="always")
def _swap(keys, counts, at, a, b):
    keys[at + a], keys[at + b] = keys[at + b], keys[at + a]
    counts[at + a], counts[at + b] = counts[at + b], counts[at + a]


@njit(cache=True, inline="always")
def _sift(keys, counts, at, root, n):
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and keys[at + child + 1] > keys[at + child]:
            child += 1
        if keys[at + root] >= keys[at + child]:
            break
        _swap(keys, counts, at, root, child)
        root = child


@njit(cache=True)
def combinations(node_keys, lk, rk, useless, ii, jj, at):
    """How many combinations of a left pair ``ii[t]`` and a right pair ``jj[t]`` make the node's pair ``at[t]``
    (the sum is one of ``node_keys``, sorted, and not two leaves when the split is ``useless``), written into the
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
            if useless and lk[i] % KEY == 1 and rk[j] % KEY == 1:
                continue
            ii[k], jj[k], at[k] = i, j, p
            k += 1
    return k
