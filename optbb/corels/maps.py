"""Symmetry-aware maps (JMLR §3.10-3.11, §5.3; Algorithm 6).

* Prefix permutation map (Cor. 16, permutation bound): key = the *set* of antecedents of a prefix, as a bitset over
  the M antecedents; value = the smallest prefix error count seen for an ordering of that set, and its trie node.
  Permutations capture the same data, so comparing error counts compares lower bounds.
* Captured-vector map (Thm 15, equivalent support bound): key = the bitset of samples the prefix leaves
  uncaptured; value = the smallest lower bound b(d_p) seen for a prefix with that captured set, and its node.

``check_and_insert`` returns the map slot to record for a new node, or -1 when the candidate is dominated (an
equal-or-better prefix is already known) and must be dropped.  A dominated incumbent node is flagged deleted.
"""
from __future__ import annotations

from numba import njit

from ..common.bitset import hash_words
from ..common.hashtable import ht_find, ht_put
from .trie import DELETED, FREE, MAPSLOT, STATE

MAP_NONE, MAP_PREFIX, MAP_CAPTURED = 0, 1, 2
MAP_TYPES = {"none": MAP_NONE, "prefix": MAP_PREFIX, "captured": MAP_CAPTURED}


@njit(cache=True)
def check_and_insert(T, mkeys, mhashes, mused, mfval, mival, key, value, st, MAP_COUNT):
    """Algorithm 6 without the trie/queue insertion: returns the slot for the new entry, or -1 if dominated.

    ``value`` is compared with ``<``: ties keep the first-seen ordering, as in the reference.
    """
    h = hash_words(key)
    slot = ht_find(mkeys, mhashes, mused, key, h)
    if slot >= 0:
        if mfval[slot] <= value:
            return -1
        old = mival[slot]
        if old >= 0 and T[old, STATE] != FREE and T[old, MAPSLOT] == slot:
            T[old, DELETED] = 1
    else:
        st[MAP_COUNT] += 1
    return ht_put(mkeys, mhashes, mused, mfval, mival, slot, key, h, value, -1)
