"""The CORELS prefix trie (JMLR §5.1) as a struct-of-arrays with a free list.

Node ``i`` is row ``i`` of an ``int32`` matrix ``T`` with the structural columns below, and row ``i`` of a matrix
``TE`` of the amounts from which every bound is recomputed by one formula (``common.bounds.objective_value``):
errors of the prefix rules (``E_ERR``), the equivalent-points minority among uncaptured samples (``E_B0``, b0 * N),
captured amount (``E_NCAP``).  Amounts are sample counts (``TE`` is ``int32``) or, with sample weights, weights
(``TE`` is ``float64``); the kernels compile once for each.  No bit vectors are stored per node: the uncaptured set
is rebuilt from the path when a node is expanded.

Memory is reclaimed as in the reference implementation: a leaf is freed when it is popped and discarded, an
interior ("done") node when its last child goes (``prune_up``).  Deletion of a dominated permutation is lazy: the
node is flagged, and its descendants are discarded when popped because an ancestor is flagged.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from ..common.jit import njit

PARENT, RULE, DEPTH, NCHILD, STATE, DELETED, PRED, DPRED, MAPSLOT = range(9)
N_FIELDS = 9
E_ERR, E_B0, E_NCAP = range(3)
N_AMOUNTS = 3

FREE, LEAF, DONE = 0, 1, 2


class Trie(NamedTuple):
    """The trie arrays (a named tuple: kernels take it as one argument): ``T``, ``TE`` and the stack of freed node
    ids ``free_list``."""

    T: np.ndarray
    TE: np.ndarray
    free_list: np.ndarray


def new_trie(capacity: int) -> np.ndarray:
    return np.zeros((capacity, N_FIELDS), dtype=np.int32)


def new_amounts(capacity: int, weighted: bool) -> np.ndarray:
    """The ``TE`` matrix: ``int32`` sample counts, or ``float64`` weights."""
    return np.zeros((capacity, N_AMOUNTS), dtype=np.float64 if weighted else np.int32)


@njit(cache=True)
def alloc_node(T, free_list, st, S_FREE_COUNT, S_HWM):
    """Id of a fresh node (reusing freed ids first).  The caller guarantees capacity."""
    if st[S_FREE_COUNT] > 0:
        st[S_FREE_COUNT] -= 1
        return np.int64(free_list[st[S_FREE_COUNT]])
    node = st[S_HWM]
    st[S_HWM] += 1
    return node


@njit(cache=True)
def prune_up(T, free_list, st, S_FREE_COUNT, S_LIVE, node):
    """Free ``node`` and every ancestor left childless and already expanded (JMLR §5.5)."""
    while True:
        parent = T[node, PARENT]
        T[node, STATE] = FREE
        free_list[st[S_FREE_COUNT]] = node
        st[S_FREE_COUNT] += 1
        st[S_LIVE] -= 1
        if parent < 0:
            return
        T[parent, NCHILD] -= 1
        if T[parent, NCHILD] == 0 and T[parent, STATE] == DONE:
            node = parent
        else:
            return


@njit(cache=True)
def read_prefix(T, node, prefix):
    """Write the antecedent ids of ``node``'s prefix into ``prefix[:depth]``; returns True when the node or an
    ancestor is flagged deleted (a dominated permutation)."""
    deleted = False
    p = node
    k = T[node, DEPTH]
    while k > 0:
        k -= 1
        prefix[k] = T[p, RULE]
        if T[p, DELETED] != 0:
            deleted = True
        p = T[p, PARENT]
    return deleted
