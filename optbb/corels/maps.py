"""Symmetry-aware maps (JMLR §3.10-3.11, §5.3; Algorithm 6).

* Prefix permutation map (Cor. 16, permutation bound): key = the *set* of antecedents of a prefix, stored as its
  sorted antecedent ids; value = the smallest prefix error count seen for an ordering of that set, and its trie
  node.  Permutations capture the same data, so comparing error counts compares lower bounds.
* Captured-vector map (Thm 15, equivalent support bound): key = the bitset of samples the prefix leaves
  uncaptured; value = the smallest lower bound b(d_p) seen for a prefix with that captured set, and its node.

Storage (:class:`SymmetryMap`): an open-addressing index of entry ids (:mod:`optbb.common.keyindex`), per-entry
arrays (hash, value, node, key offset) and a pool where the keys lie back to back, each preceded by its length.
Memory is proportional to the entries inserted and to their key lengths (a k-rule prefix costs k + 1 words, a
captured vector ``n_words(N)`` + 1), never to the number of antecedents squared; every array starts small and
grows between chunks under the memory limit, copied in slices by :mod:`optbb.common.growth`.  Entry ids are stable
across growth, so a trie node can record its entry (``MAPSLOT``).

``check_and_insert`` returns the entry to record for a new node, or -1 when the candidate is dominated (an
equal-or-better prefix is already known) and must be dropped.  A dominated incumbent node is flagged deleted.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np
from ..common.jit import njit

from ..common.bitset import hash_words
from ..common.growth import Stop, grow
from ..common.keyindex import SLOT_BYTES, find_pooled, index_capacity, index_put, new_index, reindex
from .trie import DELETED, FREE, MAPSLOT, STATE

MAP_NONE, MAP_PREFIX, MAP_CAPTURED = 0, 1, 2
MAP_TYPES = {"none": MAP_NONE, "prefix": MAP_PREFIX, "captured": MAP_CAPTURED}

# fill slots: entries used, pool words used
FILL_ENTRIES, FILL_WORDS = 0, 1
ENTRY_BYTES = 8 + 8 + 8 + 8  # hash, value, node, key offset
START_ENTRIES = 1024


@njit(cache=True)
def key_len_bound(map_type, max_depth, n_words):
    """Longest key a child of any queued prefix can have: ``max_depth + 2`` antecedent ids (a queued prefix is at
    most one longer than the deepest expanded one) or ``n_words`` words of a captured vector."""
    if map_type == MAP_CAPTURED:
        return n_words
    return max_depth + 2


@njit(cache=True)
def map_short(smap, m, key_len):
    """Whether the map ``smap`` (:class:`MapArrays`) lacks room for one more expansion: up to ``m`` new entries of
    ``key_len`` words each at an index load of at most 1/2."""
    fill = smap.fill
    return (2 * (fill[FILL_ENTRIES] + m) > smap.index.shape[0] or fill[FILL_ENTRIES] + m > smap.ehash.shape[0]
            or fill[FILL_WORDS] + m * (key_len + 1) > smap.pool.shape[0])


@njit(cache=True)
def sort_prefix(prefix, depth, sp):
    """``sp[:depth]`` = the antecedent ids of ``prefix[:depth]`` in increasing order (insertion sort: prefixes are
    short)."""
    for k in range(depth):
        v = prefix[k]
        j = k
        while j > 0 and sp[j - 1] > v:
            sp[j] = sp[j - 1]
            j -= 1
        sp[j] = v


@njit(cache=True)
def prefix_key(sp, depth, s, key):
    """Write the permutation-map key of prefix ``sp[:depth]`` extended by antecedent ``s`` (its sorted ids) into
    ``key``; returns the key length ``depth + 1``."""
    j = 0
    while j < depth and sp[j] < s:
        key[j] = np.uint64(sp[j])
        j += 1
    key[j] = np.uint64(s)
    while j < depth:
        key[j + 1] = np.uint64(sp[j])
        j += 1
    return depth + 1


@njit(cache=True)
def check_and_insert(T, smap, key, klen, value, st, MAP_COUNT):
    """Algorithm 6 without the trie/queue insertion: returns the entry of map ``smap`` (:class:`MapArrays`) for
    the new node, or -1 if dominated.

    ``value`` is compared with ``<``: ties keep the first-seen ordering, as in the reference.  The caller
    guarantees room (:func:`map_short` is false).
    """
    index, ehash, fval, ival, eoff, pool, fill = smap
    h = hash_words(key[:klen])
    e = find_pooled(smap, key, klen, h)
    if e >= 0:
        if fval[e] <= value:
            return -1
        old = ival[e]
        if old >= 0 and T[old, STATE] != FREE and T[old, MAPSLOT] == e:
            T[old, DELETED] = 1
    else:
        index_put(index, e, fill[FILL_ENTRIES])
        e = fill[FILL_ENTRIES]
        off = fill[FILL_WORDS]
        pool[off] = np.uint64(klen)
        for i in range(klen):
            pool[off + 1 + i] = key[i]
        ehash[e] = h
        eoff[e] = off
        fill[FILL_ENTRIES] += 1
        fill[FILL_WORDS] += klen + 1
        st[MAP_COUNT] += 1
    fval[e] = value
    ival[e] = -1
    return e


class MapArrays(NamedTuple):
    """The arrays of a symmetry-aware map as the kernels take them (one argument): the ``index`` of entry ids,
    per entry its ``ehash``, value ``fval``, trie node ``ival`` and key offset ``eoff`` in ``pool``, and ``fill``
    (entries and pool words used, slots ``FILL_*``)."""

    index: np.ndarray
    ehash: np.ndarray
    fval: np.ndarray
    ival: np.ndarray
    eoff: np.ndarray
    pool: np.ndarray
    fill: np.ndarray


class SymmetryMap:
    """The arrays of one symmetry-aware map and their growth; ``arrays()`` is what the kernel takes."""

    def __init__(self, map_type: int, entries: int = START_ENTRIES, pool_words: int = 4 * START_ENTRIES):
        self.map_type = map_type
        if map_type == MAP_NONE:
            entries, pool_words = 1, 1
        self.index = new_index(2 * entries)
        self.ehash = np.zeros(entries, dtype=np.uint64)
        self.fval = np.zeros(entries, dtype=np.float64)
        self.ival = np.zeros(entries, dtype=np.int64)
        self.eoff = np.zeros(entries, dtype=np.int64)
        self.pool = np.zeros(pool_words, dtype=np.uint64)
        self.fill = np.zeros(2, dtype=np.int64)

    def arrays(self) -> MapArrays:
        return MapArrays(self.index, self.ehash, self.fval, self.ival, self.eoff, self.pool, self.fill)

    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in self.arrays()))

    @property
    def n_entries(self) -> int:
        return int(self.fill[FILL_ENTRIES])

    def short(self, m: int, key_len: int) -> bool:
        return self.map_type != MAP_NONE and bool(map_short(self.arrays(), m, key_len))

    def _targets(self, m: int, key_len: int, factor: float) -> tuple[int, int, int]:
        """(index slots, entries, pool words) for one more expansion, every short array grown at least ``factor``
        times (the index to a power of two)."""
        need_e = self.n_entries + m
        now = (self.index.shape[0], self.ehash.shape[0], self.pool.shape[0])
        want = (index_capacity(need_e), need_e, int(self.fill[FILL_WORDS]) + m * (key_len + 1))
        idx, ent, words = (c if w <= c else max(w, math.ceil(factor * c)) for w, c in zip(want, now))
        return 1 << (idx - 1).bit_length(), ent, words

    def growth_steps(self, m: int, key_len: int, factor: float) -> list[tuple[int, int, Callable[[Stop], None]]]:
        """The copies that make room for one more expansion, each short part (the per-entry arrays, the pool, the
        index) grown at least ``factor`` times: ``(old bytes, new bytes, copy)`` per part, ``copy(stop)``
        replacing the part whole (see :func:`~optbb.common.growth.growth_peak` for the bytes alive meanwhile)."""
        idx, ent, words = self._targets(m, key_len, factor)
        steps = []
        if ent != self.ehash.shape[0]:
            steps.append((self.ehash.shape[0] * ENTRY_BYTES, ent * ENTRY_BYTES,
                          lambda stop: self._grow_entries(ent, stop)))
        if words != self.pool.shape[0]:
            steps.append((self.pool.nbytes, words * 8,
                          lambda stop: setattr(self, "pool", grow(self.pool, words, stop))))
        if idx != self.index.shape[0]:
            steps.append((self.index.nbytes, idx * SLOT_BYTES,
                          lambda stop: setattr(self, "index", reindex(self.ehash, self.n_entries, idx, stop))))
        return steps

    def _grow_entries(self, ent: int, stop: Stop) -> None:
        self.ehash, self.fval, self.ival, self.eoff = (grow(self.ehash, ent, stop), grow(self.fval, ent, stop),
                                                       grow(self.ival, ent, stop), grow(self.eoff, ent, stop))
