"""Open-addressing hash table keyed by rows of ``uint64`` words, for symmetry-aware maps and caches.

A :class:`HashTable` (caller-owned, grown between chunks with :func:`rehash`) names its arrays: ``keys``
(capacity, key_words) uint64, ``hashes`` (capacity,) uint64, ``used`` (capacity,) bool, ``fval`` (capacity,)
float64, ``ival`` (capacity,) int64.  Capacity is a power of two; keep the load below 1/2.  Entries are never
deleted.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from .jit import njit

from .growth import Stop, row_bytes, slices
from .keyindex import span_equals


class HashTable(NamedTuple):
    """The arrays of one table (a named tuple: Numba kernels take it as one argument)."""

    keys: np.ndarray
    hashes: np.ndarray
    used: np.ndarray
    fval: np.ndarray
    ival: np.ndarray


def new_table(capacity: int, key_words: int) -> HashTable:
    """Empty table arrays with ``capacity`` rounded up to a power of two."""
    cap = 1 << max(4, int(np.ceil(np.log2(max(capacity, 16)))))
    return HashTable(np.zeros((cap, key_words), dtype=np.uint64), np.zeros(cap, dtype=np.uint64),
                     np.zeros(cap, dtype=np.bool_), np.zeros(cap, dtype=np.float64), np.zeros(cap, dtype=np.int64))


@njit(cache=True)
def ht_find(table, key, h):
    """Slot holding ``key`` (hash ``h``), or ``-(free slot) - 1`` where it would go.  ``table`` is a
    :class:`HashTable` or any named tuple with its fields (Numba compiles one version per type)."""
    keys, hashes, used = table.keys, table.hashes, table.used
    mask = np.uint64(used.shape[0] - 1)
    slot = np.int64(h & mask)
    while used[slot]:
        if hashes[slot] == h and span_equals(keys[slot], 0, key, key.shape[0]):
            return slot
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return -slot - 1


@njit(cache=True)
def ht_put(table, slot, key, h, f, i):
    """Write ``key -> (f, i)`` at a slot returned by :func:`ht_find` (negative = new entry)."""
    if slot < 0:
        slot = -slot - 1
        table.used[slot] = True
        table.hashes[slot] = h
        keys = table.keys
        for w in range(key.shape[0]):  # a loop: a slice assignment compiles Numba's shape-error formatting
            keys[slot, w] = key[w]
    table.fval[slot] = f
    table.ival[slot] = i
    return slot


@njit(cache=True)
def _reinsert(table, new, start, end):
    used, keys, hashes, fval, ival = table.used, table.keys, table.hashes, table.fval, table.ival
    for s in range(start, end):
        if used[s]:
            slot = ht_find(new, keys[s], hashes[s])
            ht_put(new, slot, keys[s], hashes[s], fval[s], ival[s])


def rehash(table: HashTable, new_capacity: int, stop: Stop = None) -> HashTable:
    """A table of ``new_capacity`` (power of two) holding every entry of ``table``, filled slice by slice; raises
    :class:`~optbb.common.growth.GrowthStopped` (``table`` untouched) once ``stop()`` is true."""
    new = new_table(new_capacity, table.keys.shape[1])
    for start, end in slices(table.used.shape[0], sum(row_bytes(a) for a in table), stop):
        _reinsert(table, new, start, end)
    return new
