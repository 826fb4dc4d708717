"""Leaf cache and Tree cache (OSDT Appendix G.1/G.3) as struct-of-arrays arenas with hash-table indexes.

Leaf cache.  A leaf is a conjunction of feature literals, keyed canonically by two feature bitsets
``[pos words | neg words]`` (``x_m = 1`` literals, ``x_m = 0`` literals), so the order in which a leaf's splits were
made does not matter.  Each leaf is computed once (its statistics: the fields of :class:`Leaves`).  The index is
the shared open-addressing table of :mod:`optbb.common.hashtable`.

Tree cache.  A tree is its set of leaves; its canonical key is the sorted array of leaf ids (leaf ids are unique
per leaf, so permutations of the same leaf set share one key: leaf permutation symmetry, Cor. E.1).  Keys have
variable length, so they live in one flat arena (``offset``, ``length``), and the shared index of entry ids of
:mod:`optbb.common.keyindex` finds a tree by its key (the ``spans`` layout: per-tree hashes, full keys compared).

Arrays are owned by Python and grown between search chunks (:class:`Arena`), which also does the memory
accounting: ``nbytes`` is the sum of every array's size.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from ...common.jit import njit

from ...common.bitset import and_into, hash_words, not_into, popcount_and
from ...common.bounds import majority_errors
from ...common.growth import Stop, arrays_bytes, grow, growth_peak, row_bytes
from ...common.hashtable import ht_find, ht_put, new_table, rehash
from ...common.keyindex import SLOT_BYTES, index_capacity, new_index, reindex
from ...common.queue import new_heap
from ..bounds import leaf_is_dead, split_floor

# ----------------------------------------------------------------------------------------------------------------
# Leaf cache kernels
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def leaf_lookup_or_create(parent, feature, value, data, leaves, table, counts, key_buf, lam_n, support, equiv):
    """Id of the child of leaf ``parent`` with the literal ``x_feature = value``; creates it on a miss.

    ``counts[0]`` is the number of leaves (the caller guarantees room for one more)."""
    key, dead_feat = leaves.key, leaves.dead_features
    kw = dead_feat.shape[1]
    for i in range(key.shape[1]):
        key_buf[i] = key[parent, i]
    off = 0 if value == 1 else kw
    key_buf[off + (feature >> 6)] |= np.uint64(1) << np.uint64(feature & 63)
    h = hash_words(key_buf)
    slot = ht_find(table, key_buf, h)
    if slot >= 0:
        return table.ival[slot]
    lid = counts[0]
    counts[0] = lid + 1
    src = data.x[feature] if value == 1 else data.xnot[feature]
    n = and_into(leaves.captured[lid], leaves.captured[parent], src)
    for i in range(key.shape[1]):
        key[lid, i] = key_buf[i]
    for i in range(kw):
        dead_feat[lid, i] = dead_feat[parent, i]  # dead features are inherited (correct counts only shrink)
    _fill_leaf(lid, n, leaves.depth[parent] + 1, data, leaves, lam_n, support, equiv)
    ht_put(table, slot, key_buf, h, 0.0, lid)
    return lid


@njit(cache=True)
def init_root_leaf(data, leaves, table, counts, n_samples, lam_n, support, equiv):
    """Create leaf 0, the empty conjunction capturing every sample."""
    n = not_into(leaves.captured[0], np.zeros(leaves.captured.shape[1], np.uint64), n_samples)
    leaves.key[0, :] = 0
    leaves.dead_features[0, :] = 0
    _fill_leaf(0, n, 0, data, leaves, lam_n, support, equiv)
    key0 = leaves.key[0]
    h = hash_words(key0)
    slot = ht_find(table, key0, h)
    ht_put(table, slot, key0, h, 0.0, 0)
    counts[0] = 1


@njit(cache=True)
def _fill_leaf(lid, n, depth, data, leaves, lam_n, support, equiv):
    """The statistics of leaf ``lid``, whose captured samples (``n`` of them), key and dead features are written:
    majority label and errors, ``b0``, depth, the support flag and the two-level split floor."""
    cap = leaves.captured[lid]
    lab, e = majority_errors(popcount_and(cap, data.y), n)
    leaves.n_captured[lid] = n
    leaves.errors[lid] = e
    leaves.label[lid] = lab
    leaves.b0[lid] = popcount_and(cap, data.z)
    leaves.depth[lid] = depth
    leaves.dead[lid] = support and leaf_is_dead(e, lam_n)
    leaves.floor[lid] = split_floor(lid, data, leaves, lam_n, equiv)


# ----------------------------------------------------------------------------------------------------------------
# Tree cache kernels
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def tree_hash(ids, n, buf):
    for i in range(n):
        buf[i] = np.uint64(ids[i])
    return hash_words(buf[:n])


# ----------------------------------------------------------------------------------------------------------------
# Arenas (Python side): allocation, growth and memory accounting
# ----------------------------------------------------------------------------------------------------------------


class Leaves(NamedTuple):
    """The Leaf cache arena, one row per leaf."""

    captured: np.ndarray       # (n, W) uint64 bitset of the samples the leaf captures
    key: np.ndarray            # (n, 2 KW) uint64 canonical key: [x_f = 1 literals | x_f = 0 literals]
    dead_features: np.ndarray  # (n, KW) uint64 features the leaf accurate support bound ruled out
    n_captured: np.ndarray     # (n,) int64
    errors: np.ndarray         # (n,) int64 errors of the majority label
    b0: np.ndarray             # (n,) int64 equivalent-points minority captured
    label: np.ndarray          # (n,) int8 majority label
    depth: np.ndarray          # (n,) int64 number of literals
    dead: np.ndarray           # (n,) bool: the support bound forbids splitting it
    floor: np.ndarray          # (n,) float64 two-level split floor (bounds.split_floor)


class Trees(NamedTuple):
    """The Tree cache arena: tree ``t`` is ``leaf_ids[offset[t]:offset[t] + length[t]]`` (sorted), its key's hash
    ``hash[t]`` (the ``spans`` layout of :mod:`optbb.common.keyindex`)."""

    offset: np.ndarray
    length: np.ndarray
    errors: np.ndarray
    hash: np.ndarray
    leaf_ids: np.ndarray


class Entries(NamedTuple):
    """Queue entries: a tree and the mask of the leaves it splits, with its bounds."""

    tree: np.ndarray     # (n,) int64 tree id
    mask: np.ndarray     # (n, MW) uint64 split mask over the tree's leaves
    prune: np.ndarray    # (n,) float64 bound compared with the incumbent to prune
    bound: np.ndarray    # (n,) float64 proven lower bound of every tree the entry stands for
    n_split: np.ndarray  # (n,) int64 number of leaves split
    free: np.ndarray     # (n,) int64 free list of entry ids


class Scratch(NamedTuple):
    """Split masks of the child tree being enumerated, before they are pushed."""

    mask: np.ndarray
    prune: np.ndarray
    bound: np.ndarray
    key: np.ndarray
    n_split: np.ndarray


class OsdtData(NamedTuple):
    """Packed data: feature rows ``x`` and their complements ``xnot`` (m, W), labels ``y`` and the
    equivalent-points minority ``z`` (W,)."""

    x: np.ndarray
    xnot: np.ndarray
    y: np.ndarray
    z: np.ndarray


def _grown(group, new_len: int, stop: Stop):
    """The named tuple ``group`` with every array's first axis extended to ``new_len``."""
    return type(group)(*(grow(a, new_len, stop) for a in group))


class Arena:
    """All search structures of one OSDT run, grown on demand under a memory cap.

    Groups (each handed to the kernels as one argument): ``leaves`` (:class:`Leaves`), ``ltable`` (its
    :class:`~optbb.common.hashtable.HashTable`), ``trees`` (:class:`Trees`), ``ttable`` (its index of tree ids,
    :mod:`optbb.common.keyindex`), ``entries`` (:class:`Entries`), ``heap`` (:class:`~optbb.common.queue.Heap`) and
    ``scratch`` (:class:`Scratch`).
    """

    def __init__(self, n_words: int, key_words: int, mask_words: int, leaves: int = 256, trees: int = 256,
                 entries: int = 256, scratch: int = 64):
        self.W, self.KW, self.MW = n_words, key_words, mask_words
        self.leaves = Leaves(np.zeros((leaves, n_words), np.uint64), np.zeros((leaves, 2 * key_words), np.uint64),
                             np.zeros((leaves, key_words), np.uint64), np.zeros(leaves, np.int64),
                             np.zeros(leaves, np.int64), np.zeros(leaves, np.int64), np.zeros(leaves, np.int8),
                             np.zeros(leaves, np.int64), np.zeros(leaves, np.bool_), np.zeros(leaves, np.float64))
        self.ltable = new_table(2 * leaves, 2 * key_words)
        self.trees = Trees(np.zeros(trees, np.int64), np.zeros(trees, np.int64), np.zeros(trees, np.int64),
                           np.zeros(trees, np.uint64), np.zeros(4 * trees, np.int64))
        self.ttable = new_index(2 * trees)
        self.entries = Entries(np.zeros(entries, np.int64), np.zeros((entries, mask_words), np.uint64),
                               np.zeros(entries, np.float64), np.zeros(entries, np.float64),
                               np.zeros(entries, np.int64), np.zeros(entries, np.int64))
        self.heap = new_heap(entries)
        self.scratch = Scratch(np.zeros((scratch, mask_words), np.uint64), np.zeros(scratch, np.float64),
                               np.zeros(scratch, np.float64), np.zeros(scratch, np.float64),
                               np.zeros(scratch, np.int64))

    # -- accounting ------------------------------------------------------------------------------------------
    def groups(self) -> tuple:
        return self.leaves, self.ltable, self.trees, (self.ttable,), self.entries, self.heap, self.scratch

    def nbytes(self) -> int:
        return sum(arrays_bytes(g) for g in self.groups())

    # -- growth ----------------------------------------------------------------------------------------------
    def _plan(self, what: int, need):
        """New sizes for growth request ``what`` (a NEED_* code) holding ``need`` items, and the bytes it adds."""
        if what == NEED_LEAVES:
            n, tcap = self.leaves.captured.shape[0], self.ltable.keys.shape[0]
            new_n = max(2 * n, need)
            new_t = max(tcap, index_capacity(new_n))
            per, tper = _row_bytes(self.leaves), _row_bytes(self.ltable)
            return (new_n, new_t), (new_n - n) * per + (new_t - tcap) * tper
        if what == NEED_TREES:
            n_t, n_l, tcap = self.trees.offset.shape[0], self.trees.leaf_ids.shape[0], self.ttable.shape[0]
            need_t, need_l = need
            new_t = n_t if need_t <= n_t else max(2 * n_t, need_t)
            new_l = n_l if need_l <= n_l else max(2 * n_l, need_l)
            new_tc = max(tcap, index_capacity(new_t))
            tree_row = _row_bytes(self.trees) - row_bytes(self.trees.leaf_ids)
            added = ((new_t - n_t) * tree_row + (new_l - n_l) * row_bytes(self.trees.leaf_ids)
                     + (new_tc - tcap) * SLOT_BYTES)
            return (new_t, new_l, new_tc), added
        if what in (NEED_ENTRIES, NEED_SCRATCH):  # the heap grows with the entries
            groups = (self.entries, self.heap) if what == NEED_ENTRIES else (self.scratch,)
            n = groups[0][0].shape[0]
            new_n = max(2 * n, need)
            return (new_n,), (new_n - n) * sum(_row_bytes(g) for g in groups)
        raise ValueError(f"unknown growth request {what}")

    def _replaced_bytes(self, what: int, sizes) -> int:
        """Bytes of the arrays that growth request ``what`` to ``sizes`` (from :meth:`_plan`) replaces by copies."""
        if what == NEED_LEAVES:
            rehashed = sizes[1] != self.ltable.keys.shape[0]
            return arrays_bytes(self.leaves) + (arrays_bytes(self.ltable) if rehashed else 0)
        if what == NEED_TREES:
            lens = (sizes[0],) * 4 + (sizes[1],)
            return (sum(a.nbytes for a, n in zip(self.trees, lens) if n != a.shape[0])
                    + (0 if sizes[2] == self.ttable.shape[0] else self.ttable.nbytes))
        if what == NEED_ENTRIES:
            return arrays_bytes(self.entries) + arrays_bytes(self.heap)
        return arrays_bytes(self.scratch)

    def grow(self, what: int, need, cap_bytes: int | None, stop: Stop = None) -> bool:
        """Grow group ``what`` (a NEED_* code) to hold at least ``need`` items; False if the cap forbids it, counting
        the old arrays of the group with their copies, which are all alive until the copy ends
        (:func:`~optbb.common.growth.growth_peak`).

        Every new array of the group is built before any replaces the old ones, so a growth abandoned by ``stop``
        (:class:`~optbb.common.growth.GrowthStopped`) leaves the arena as it was."""
        sizes, extra = self._plan(what, need)
        old = self._replaced_bytes(what, sizes)
        if cap_bytes is not None and growth_peak(self.nbytes(), [(old, old + extra)]) > cap_bytes:
            return False
        if what == NEED_LEAVES:
            new_n, new_t = sizes
            leaves = _grown(self.leaves, new_n, stop)
            ltable = rehash(self.ltable, new_t, stop) if new_t != self.ltable.keys.shape[0] else self.ltable
            self.leaves, self.ltable = leaves, ltable
        elif what == NEED_TREES:
            new_t, new_l, new_tc = sizes
            trees = Trees(*(a if n == a.shape[0] else grow(a, n, stop)
                            for a, n in zip(self.trees, (new_t, new_t, new_t, new_t, new_l))))
            # need[0] is one more than the trees already indexed (the kernel asks for room for the next one)
            ttable = reindex(trees.hash, need[0] - 1, new_tc, stop) if new_tc != self.ttable.shape[0] else self.ttable
            self.trees, self.ttable = trees, ttable
        elif what == NEED_ENTRIES:
            entries = _grown(self.entries, sizes[0], stop)
            heap = _grown(self.heap, sizes[0], stop)
            self.entries, self.heap = entries, heap
        else:
            self.scratch = _grown(self.scratch, sizes[0], stop)
        return True


def _row_bytes(group) -> int:
    """Bytes of one row of every array of a named tuple (arrays of one length)."""
    return sum(row_bytes(a) for a in group)


# Codes the kernel returns when a structure is full (resumable: no partial state is committed).
NEED_LEAVES, NEED_TREES, NEED_ENTRIES, NEED_SCRATCH = 1, 2, 3, 4
