"""Priority queue for best-first branch and bound: a binary min-heap over (key, seq) in plain arrays.

``seq`` breaks ties deterministically (insertion order), so a search is reproducible bit for bit.  The heap
arrays are owned by the caller, which grows them between chunks (:mod:`optbb.common.growth`);
``heap_push`` never reallocates.

Scheduling policies are small integers shared by the solvers; each solver maps a node to its key.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from .jit import njit

from .growth import Stop, grow

BFS, CURIOSITY, LOWER_BOUND, OBJECTIVE, DFS, ENTROPY, GINI, FIFO = range(8)

POLICIES = {"bfs": BFS, "curiosity": CURIOSITY, "lower_bound": LOWER_BOUND, "objective": OBJECTIVE, "dfs": DFS,
            "entropy": ENTROPY, "gini": GINI, "fifo": FIFO}


class Heap(NamedTuple):
    """The heap arrays: priority ``key`` (float64), tie-breaking ``seq`` and ``item`` (int64), one entry per row."""

    key: np.ndarray
    seq: np.ndarray
    item: np.ndarray


def new_heap(capacity: int) -> Heap:
    return Heap(np.zeros(capacity, np.float64), np.zeros(capacity, np.int64), np.zeros(capacity, np.int64))


def grow_heap(heap: Heap, capacity: int, stop: Stop = None) -> Heap:
    """The heap with room for ``capacity`` entries (sliced copies, see :func:`optbb.common.growth.grow`)."""
    return Heap(*(grow(a, capacity, stop) for a in heap))


def policy_code(name: str, allowed) -> int:
    """Integer code of a policy name, with a clear error for unknown names."""
    if name not in allowed:
        raise ValueError(f"unknown policy {name!r}; choose one of {sorted(allowed)}")
    return POLICIES[name]


@njit(cache=True, inline="always")
def _less(heap, i, j):
    key, seq = heap.key, heap.seq
    return key[i] < key[j] or (key[i] == key[j] and seq[i] < seq[j])


@njit(cache=True, inline="always")
def _swap(heap, i, j):
    key, seq, item = heap.key, heap.seq, heap.item
    key[i], key[j] = key[j], key[i]
    seq[i], seq[j] = seq[j], seq[i]
    item[i], item[j] = item[j], item[i]


@njit(cache=True)
def heap_push(heap, size, key, seq, item):
    """Insert ``item`` with priority ``(key, seq)`` into ``heap`` (a :class:`Heap`); returns the new size (capacity
    must suffice)."""
    i = size
    heap.key[i] = key
    heap.seq[i] = seq
    heap.item[i] = item
    while i > 0:
        parent = (i - 1) >> 1
        if _less(heap, i, parent):
            _swap(heap, i, parent)
            i = parent
        else:
            break
    return size + 1


@njit(cache=True)
def _sift_down(heap, size, i):
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        best = left
        right = left + 1
        if right < size and _less(heap, right, left):
            best = right
        if _less(heap, best, i):
            _swap(heap, best, i)
            i = best
        else:
            return


@njit(cache=True)
def heap_pop(heap, size):
    """Remove the minimum; returns ``(item, key, new_size)``.  ``size`` must be positive."""
    hkey, hseq, hitem = heap.key, heap.seq, heap.item
    item = hitem[0]
    key = hkey[0]
    size -= 1
    if size > 0:
        hkey[0] = hkey[size]
        hseq[0] = hseq[size]
        hitem[0] = hitem[size]
        _sift_down(heap, size, 0)
    return item, key, size


@njit(cache=True)
def heapify(heap, size):
    """Restore the heap property over the first ``size`` entries (after a filtering pass)."""
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, i)
