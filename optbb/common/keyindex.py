"""Open-addressing hash index over keys stored elsewhere, for tables whose keys must not be copied per slot.

The index is one ``int64`` array whose slots hold *entry ids* (``EMPTY`` = -1 for a free slot); each entry keeps its
key in caller-owned storage and its hash in ``ehash[entry]``.  Entry ids never change: growing the index only
re-inserts the ids (:func:`reindex`, which reads the stored hashes, not the keys), so an id is a stable handle that
other structures may record.  Capacity is a power of two; keep the load at or below 1/2.  Entries are never deleted.

Three key layouts are supported: ``rows`` (entry ``e``'s key is row ``e`` of a 2-D ``uint64`` matrix, every key
the same length), ``pooled`` (entry ``e``'s key starts at ``pool[eoff[e]]`` with its length, followed by that many
words: variable-length keys stored back to back) and ``spans`` (entry ``e``'s key is
``arena[eoff[e]:eoff[e] + elen[e]]``, lengths kept apart).  Either way the key memory is proportional to the entries
that exist, not to the capacity of the index.
"""
from __future__ import annotations

import numpy as np
from .jit import njit

from .growth import Stop, slices

EMPTY = -1
SLOT_BYTES = 8


def index_capacity(n_entries: int) -> int:
    """Smallest power of two (at least 16) keeping ``n_entries`` at a load of at most 1/2."""
    return 1 << max(4, int(2 * max(int(n_entries), 1) - 1).bit_length())


def new_index(capacity: int) -> np.ndarray:
    """Empty index of ``capacity`` slots (rounded up to a power of two, at least 16)."""
    cap = 1 << max(4, int(max(int(capacity), 1) - 1).bit_length())
    return np.full(cap, EMPTY, dtype=np.int64)


@njit(cache=True)
def index_put(index, slot, entry):
    """Record ``entry`` at a free slot encoded as returned by a ``find_*`` function (``-(slot) - 1``)."""
    index[-slot - 1] = entry


@njit(cache=True)
def _add(index, h, entry):
    mask = np.uint64(index.shape[0] - 1)
    slot = np.int64(h & mask)
    while index[slot] != EMPTY:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    index[slot] = entry


@njit(cache=True)
def _add_range(index, ehash, start, end):
    for e in range(start, end):
        _add(index, ehash[e], e)


def reindex(ehash: np.ndarray, n_entries: int, capacity: int, stop: Stop = None) -> np.ndarray:
    """A new index of ``capacity`` slots holding entries ``0 .. n_entries - 1`` (hashes ``ehash``), filled in slices
    of about 8 MB of hashes; raises :class:`~optbb.common.growth.GrowthStopped` once ``stop()`` is true."""
    index = new_index(capacity)
    for start, end in slices(int(n_entries), 8, stop):
        _add_range(index, ehash, start, end)
    return index


@njit(cache=True, inline="always")
def span_equals(arena, off, key, klen):
    """``arena[off:off + klen] == key[:klen]`` word by word, without a temporary."""
    for i in range(klen):
        if arena[off + i] != key[i]:
            return False
    return True


@njit(cache=True)
def find_row(table, key, h):
    """Entry whose key (a row of ``rows``) equals ``key`` (hash ``h``), or ``-(free slot) - 1``; ``table`` is any
    named tuple with the fields ``index``, ``ehash`` and ``rows``."""
    index, ehash, rows = table.index, table.ehash, table.rows
    mask = np.uint64(index.shape[0] - 1)
    slot = np.int64(h & mask)
    while True:
        e = index[slot]
        if e == EMPTY:
            return -slot - 1
        if ehash[e] == h and span_equals(rows[e], 0, key, key.shape[0]):
            return e
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)


@njit(cache=True)
def find_pooled(table, key, klen, h):
    """Entry whose pooled key equals ``key[:klen]`` (hash ``h``), or ``-(free slot) - 1``; ``table`` is any named
    tuple with the fields ``index``, ``ehash``, ``eoff`` and ``pool``."""
    index, ehash, eoff, pool = table.index, table.ehash, table.eoff, table.pool
    mask = np.uint64(index.shape[0] - 1)
    slot = np.int64(h & mask)
    while True:
        e = index[slot]
        if e == EMPTY:
            return -slot - 1
        if ehash[e] == h and pool[eoff[e]] == np.uint64(klen) and span_equals(pool, eoff[e] + 1, key, klen):
            return e
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)


@njit(cache=True)
def find_span(index, spans, key, klen, h):
    """Entry whose key ``spans.leaf_ids[off:off + spans.length[e]]`` (``off = spans.offset[e]``) equals
    ``key[:klen]`` (hash ``h``), or ``-(free slot) - 1``; ``spans`` is any named tuple with the fields ``hash``,
    ``offset``, ``length`` and ``leaf_ids`` (the arena of keys), ``index`` its index."""
    ehash, eoff, elen, arena = spans.hash, spans.offset, spans.length, spans.leaf_ids
    mask = np.uint64(index.shape[0] - 1)
    slot = np.int64(h & mask)
    while True:
        e = index[slot]
        if e == EMPTY:
            return -slot - 1
        if ehash[e] == h and elen[e] == klen and span_equals(arena, eoff[e], key, klen):
            return e
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
