"""Leaf cache and Tree cache (OSDT Appendix G.1/G.3) as struct-of-arrays arenas with hash-table indexes.

Leaf cache.  A leaf is a conjunction of feature literals, keyed canonically by two feature bitsets
``[pos words | neg words]`` (``x_m = 1`` literals, ``x_m = 0`` literals), so the order in which a leaf's splits were
made does not matter.  Each leaf is computed once: captured samples (packed bitset), count, majority label and
errors, ``b0`` (equivalent-points minority it captures), depth, the support "dead" flag and the dead-feature set of
the leaf accurate support bound.  The index is the shared open-addressing table of :mod:`optbb.common.hashtable`.

Tree cache.  A tree is its set of leaves; its canonical key is the sorted array of leaf ids (leaf ids are unique
per leaf, so permutations of the same leaf set share one key: leaf permutation symmetry, Cor. E.1).  Keys have
variable length, so they live in one flat arena (``offset``, ``length``) and a small open-addressing table maps a
64-bit hash to a tree id, always verified against the full key.

Arrays are owned by Python and grown between search chunks (:class:`Arena`), which also does the memory
accounting: ``nbytes`` is the sum of every array's size.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..common.bitset import and_into, hash_words, popcount, popcount_and
from ..common.bounds import majority_errors
from ..common.growth import Stop, grow, slices
from ..common.hashtable import ht_find, ht_put, new_table, rehash
from .bounds import leaf_is_dead, split_floor

# ----------------------------------------------------------------------------------------------------------------
# Leaf cache kernels
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def leaf_lookup_or_create(parent, feature, value, data, leaves, table, counts, key_buf, lam_n, support, equiv):
    """Id of the child of leaf ``parent`` with the literal ``x_feature = value``; creates it on a miss.

    ``counts[0]`` is the number of leaves (the caller guarantees room for one more)."""
    xbits, xnot, ybits, zbits = data
    cap, key, dead_feat, n_cap, err, b0, label, depth, dead, _ = leaves
    kw = dead_feat.shape[1]
    for i in range(key.shape[1]):
        key_buf[i] = key[parent, i]
    off = 0 if value == 1 else kw
    key_buf[off + (feature >> 6)] |= np.uint64(1) << np.uint64(feature & 63)
    h = hash_words(key_buf)
    tkeys, thash, tused, tfval, tival = table
    slot = ht_find(tkeys, thash, tused, key_buf, h)
    if slot >= 0:
        return tival[slot]
    lid = counts[0]
    counts[0] = lid + 1
    if value == 1:
        n = and_into(cap[lid], cap[parent], xbits[feature])
    else:
        n = and_into(cap[lid], cap[parent], xnot[feature])
    npos = popcount_and(cap[lid], ybits)
    lab, e = majority_errors(npos, n)
    n_cap[lid] = n
    err[lid] = e
    label[lid] = lab
    b0[lid] = popcount_and(cap[lid], zbits)
    depth[lid] = depth[parent] + 1
    dead[lid] = support and leaf_is_dead(e, lam_n)
    for i in range(key.shape[1]):
        key[lid, i] = key_buf[i]
    for i in range(kw):
        dead_feat[lid, i] = dead_feat[parent, i]  # dead features are inherited (correct counts only shrink)
    leaves[9][lid] = split_floor(lid, data, leaves, lam_n, equiv)
    ht_put(tkeys, thash, tused, tfval, tival, slot, key_buf, h, 0.0, lid)
    return lid


@njit(cache=True)
def init_root_leaf(data, leaves, table, counts, n_samples, lam_n, support, equiv):
    """Create leaf 0, the empty conjunction capturing every sample."""
    xbits, xnot, ybits, zbits = data
    cap, key, dead_feat, n_cap, err, b0, label, depth, dead, _ = leaves
    for i in range(cap.shape[1]):
        cap[0, i] = ~np.uint64(0)
    rem = n_samples - (cap.shape[1] - 1) * 64
    if rem < 64:
        cap[0, cap.shape[1] - 1] = (np.uint64(1) << np.uint64(rem)) - np.uint64(1)
    n = popcount(cap[0])
    lab, e = majority_errors(popcount_and(cap[0], ybits), n)
    n_cap[0] = n
    err[0] = e
    label[0] = lab
    b0[0] = popcount_and(cap[0], zbits)
    depth[0] = 0
    dead[0] = support and leaf_is_dead(e, lam_n)
    key[0, :] = 0
    dead_feat[0, :] = 0
    leaves[9][0] = split_floor(0, data, leaves, lam_n, equiv)
    tkeys, thash, tused, tfval, tival = table
    h = hash_words(key[0])
    slot = ht_find(tkeys, thash, tused, key[0], h)
    ht_put(tkeys, thash, tused, tfval, tival, slot, key[0], h, 0.0, 0)
    counts[0] = 1
    return 0


# ----------------------------------------------------------------------------------------------------------------
# Tree cache kernels
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def tree_find(tslot, thash, toff, tlen, tleaves, ids, n, h):
    """Tree id whose sorted leaf ids equal ``ids[:n]``, else ``-(free slot) - 1``."""
    mask = np.uint64(tslot.shape[0] - 1)
    s = np.int64(h & mask)
    while tslot[s] >= 0:
        t = tslot[s]
        if thash[s] == h and tlen[t] == n:
            o = toff[t]
            same = True
            for i in range(n):
                if tleaves[o + i] != ids[i]:
                    same = False
                    break
            if same:
                return t
        s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
    return -s - 1


@njit(cache=True)
def tree_hash(ids, n, buf):
    for i in range(n):
        buf[i] = np.uint64(ids[i])
    return hash_words(buf[:n])


@njit(cache=True)
def _tree_reinsert(tslot, thash, nslot, nhash, start, end):
    mask = np.uint64(nslot.shape[0] - 1)
    for s in range(start, end):
        t = tslot[s]
        if t >= 0:
            h = thash[s]
            j = np.int64(h & mask)
            while nslot[j] >= 0:
                j = np.int64((np.uint64(j) + np.uint64(1)) & mask)
            nslot[j] = t
            nhash[j] = h


# ----------------------------------------------------------------------------------------------------------------
# Arenas (Python side): allocation, growth and memory accounting
# ----------------------------------------------------------------------------------------------------------------


def _retable_trees(ttable, new_cap: int, stop: Stop):
    """The tree index at capacity ``new_cap`` (power of two), filled slice by slice."""
    nslot, nhash = np.full(new_cap, -1, np.int64), np.zeros(new_cap, np.uint64)
    for start, end in slices(ttable[0].shape[0], ttable[0].itemsize + ttable[1].itemsize, stop):
        _tree_reinsert(ttable[0], ttable[1], nslot, nhash, start, end)
    return nslot, nhash


class Arena:
    """All search structures of one OSDT run, grown on demand under a memory cap.

    Groups (each a tuple handed to the kernels): ``leaves`` (leaf cache arena), ``ltable`` (its hash index),
    ``trees`` (tree cache arena: offset, length, errors, flat leaf ids), ``ttable`` (tree index: slot -> tree id,
    hash), ``entries`` (queue entries: tree, split mask, prune bound, proven bound, number of split leaves, free
    list), ``heap`` (key, seq, item) and ``scratch`` (split masks of one child being enumerated).
    """

    def __init__(self, n_words: int, key_words: int, mask_words: int, leaves: int = 256, trees: int = 256,
                 entries: int = 256, scratch: int = 64):
        self.W, self.KW, self.MW = n_words, key_words, mask_words
        self.leaves = (np.zeros((leaves, n_words), np.uint64), np.zeros((leaves, 2 * key_words), np.uint64),
                       np.zeros((leaves, key_words), np.uint64), np.zeros(leaves, np.int64),
                       np.zeros(leaves, np.int64), np.zeros(leaves, np.int64), np.zeros(leaves, np.int8),
                       np.zeros(leaves, np.int64), np.zeros(leaves, np.bool_),
                       np.zeros(leaves, np.float64))
        self.ltable = new_table(2 * leaves, 2 * key_words)
        self.trees = (np.zeros(trees, np.int64), np.zeros(trees, np.int64), np.zeros(trees, np.int64),
                      np.zeros(4 * trees, np.int64))
        self.ttable = (np.full(2 * trees, -1, np.int64), np.zeros(2 * trees, np.uint64))
        self.entries = (np.zeros(entries, np.int64), np.zeros((entries, mask_words), np.uint64),
                        np.zeros(entries, np.float64), np.zeros(entries, np.float64), np.zeros(entries, np.int64),
                        np.zeros(entries, np.int64))
        self.heap = (np.zeros(entries, np.float64), np.zeros(entries, np.int64), np.zeros(entries, np.int64))
        self.scratch = (np.zeros((scratch, mask_words), np.uint64), np.zeros(scratch, np.float64),
                        np.zeros(scratch, np.float64), np.zeros(scratch, np.float64), np.zeros(scratch, np.int64))

    # -- accounting ------------------------------------------------------------------------------------------
    @staticmethod
    def _bytes(group) -> int:
        return int(sum(a.nbytes for a in group))

    def nbytes(self) -> int:
        return sum(self._bytes(g) for g in (self.leaves, self.ltable, self.trees, self.ttable, self.entries,
                                             self.heap, self.scratch))

    # -- growth ----------------------------------------------------------------------------------------------
    def _plan(self, what: int, need):
        """New sizes for growth request ``what`` (a NEED_* code) holding ``need`` items, and the bytes it adds."""
        if what == NEED_LEAVES:
            n, tcap = self.leaves[0].shape[0], self.ltable[0].shape[0]
            new_n = max(2 * n, need)
            new_t = tcap
            while new_t < 2 * new_n:
                new_t *= 2
            per, tper = sum(a[0:1].nbytes for a in self.leaves), sum(a[0:1].nbytes for a in self.ltable)
            return (new_n, new_t), (new_n - n) * per + (new_t - tcap) * tper
        if what == NEED_TREES:
            n_t, n_l, tcap = self.trees[0].shape[0], self.trees[3].shape[0], self.ttable[0].shape[0]
            need_t, need_l = need
            new_t = n_t if need_t <= n_t else max(2 * n_t, need_t)
            new_l = n_l if need_l <= n_l else max(2 * n_l, need_l)
            new_tc = tcap
            while new_tc < 2 * new_t:
                new_tc *= 2
            return (new_t, new_l, new_tc), (new_t - n_t) * 24 + (new_l - n_l) * 8 + (new_tc - tcap) * 16
        if what == NEED_ENTRIES:
            n = self.entries[0].shape[0]
            new_n = max(2 * n, need)
            per = sum(a[0:1].nbytes for a in self.entries) + sum(a[0:1].nbytes for a in self.heap)
            return (new_n,), (new_n - n) * per
        if what == NEED_SCRATCH:
            n = self.scratch[0].shape[0]
            new_n = max(2 * n, need)
            return (new_n,), (new_n - n) * sum(a[0:1].nbytes for a in self.scratch)
        raise ValueError(f"unknown growth request {what}")

    def grow(self, what: int, need, cap_bytes: int | None, stop: Stop = None) -> bool:
        """Grow group ``what`` (a NEED_* code) to hold at least ``need`` items; False if the cap forbids it.

        Every new array of the group is built before any replaces the old ones, so a growth abandoned by ``stop``
        (:class:`~optbb.common.growth.GrowthStopped`) leaves the arena as it was."""
        sizes, extra = self._plan(what, need)
        if cap_bytes is not None and self.nbytes() + extra > cap_bytes:
            return False
        if what == NEED_LEAVES:
            new_n, new_t = sizes
            leaves = tuple(grow(a, new_n, stop) for a in self.leaves)
            ltable = rehash(self.ltable, new_t, stop) if new_t != self.ltable[0].shape[0] else self.ltable
            self.leaves, self.ltable = leaves, ltable
        elif what == NEED_TREES:
            new_t, new_l, new_tc = sizes
            trees = tuple(a if n == a.shape[0] else grow(a, n, stop)
                          for a, n in zip(self.trees, (new_t, new_t, new_t, new_l)))
            ttable = _retable_trees(self.ttable, new_tc, stop) if new_tc != self.ttable[0].shape[0] else self.ttable
            self.trees, self.ttable = trees, ttable
        elif what == NEED_ENTRIES:
            entries = tuple(grow(a, sizes[0], stop) for a in self.entries)
            heap = tuple(grow(a, sizes[0], stop) for a in self.heap)
            self.entries, self.heap = entries, heap
        else:
            self.scratch = tuple(grow(a, sizes[0], stop) for a in self.scratch)
        return True


# Codes the kernel returns when a structure is full (resumable: no partial state is committed).
NEED_LEAVES, NEED_TREES, NEED_ENTRIES, NEED_SCRATCH = 1, 2, 3, 4
