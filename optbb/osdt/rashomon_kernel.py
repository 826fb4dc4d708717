"""Compiled kernels of the Rashomon set of trees: the convolution of two subproblems' ``(errors, leaves)`` pair
multisets, and the merge of a subproblem's pairs.  A pair is the key ``errors * KEY + leaves`` (``KEY = 2**20``)."""
from __future__ import annotations

import numpy as np

from ..common.jit import njit

KEY = 1 << 20
COUNT_CAP = 2.0 ** 62  # counts stay below this (int64 with room for a sum); beyond it the kernels report overflow


@njit(cache=True)
def convolve(lk, lc, rk, rc, leaf_errors, limit, total, lam, exclude):
    """Keys and counts of the trees splitting into a left subtree (``lk``, ``lc``) and a right one (``rk``,
    ``rc``) whose cost ``errors / total + lam * leaves`` is at most ``limit``; with ``exclude`` two leaves count
    only when their errors are below ``leaf_errors``.  The third result is True when a count would pass
    :data:`COUNT_CAP`."""
    n = lk.size * rk.size
    keys = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    k = 0
    over = False
    for i in range(lk.size):
        el, ll = lk[i] // KEY, lk[i] % KEY
        for j in range(rk.size):
            e = el + rk[j] // KEY
            leaves = ll + rk[j] % KEY
            if e / total + lam * leaves > limit:
                continue
            if exclude and ll == 1 and leaves == 2 and e >= leaf_errors:
                continue
            if float(lc[i]) * float(rc[j]) >= COUNT_CAP:
                over = True
            keys[k] = e * KEY + leaves
            counts[k] = lc[i] * rc[j]
            k += 1
    return keys[:k], counts[:k], over


@njit(cache=True)
def merge(keys, counts):
    """The distinct keys, sorted, with the sum of their counts; True when a sum passes :data:`COUNT_CAP`."""
    order = np.argsort(keys, kind="mergesort")
    out_k = np.empty(keys.size, dtype=np.int64)
    out_c = np.empty(keys.size, dtype=np.int64)
    n = 0
    over = False
    for t in range(order.size):
        i = order[t]
        if n > 0 and out_k[n - 1] == keys[i]:
            if float(out_c[n - 1]) + float(counts[i]) >= COUNT_CAP:
                over = True
            out_c[n - 1] += counts[i]
        else:
            out_k[n] = keys[i]
            out_c[n] = counts[i]
            n += 1
    return out_k[:n].copy(), out_c[:n].copy(), over


@njit(cache=True)
def combinations(node_keys, lk, rk, leaf_errors, exclude):
    """Index arrays ``(i, j, at)``: left pair ``i`` and right pair ``j`` combine into the node's pair ``at`` (the
    sum is one of ``node_keys``, sorted, and with ``exclude`` two leaves lower the errors)."""
    n = lk.size * rk.size
    ii = np.empty(n, dtype=np.int64)
    jj = np.empty(n, dtype=np.int64)
    at = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(lk.size):
        for j in range(rk.size):
            key = lk[i] + rk[j]  # errors and leaves add in the key
            if exclude and lk[i] % KEY == 1 and rk[j] % KEY == 1 and key // KEY >= leaf_errors:
                continue
            p = np.searchsorted(node_keys, key)
            if p < node_keys.size and node_keys[p] == key:
                ii[k], jj[k], at[k] = i, j, p
                k += 1
    return ii[:k], jj[:k], at[:k]
