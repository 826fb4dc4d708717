"""The pair bounds of the dynamic-programming search without depth limit (``ip[P_PAIRS]`` of
:mod:`optbb.osdt.dp.kernel`): what a subproblem's feature-pair counts say about its small trees.

Every tree of at most three leaves has depth <= 2, so the pair counts of a support give its best such tree exactly
(:func:`small_tree`), and for each child of each split its best stump exactly and a floor on its trees of three
leaves (:func:`side_table`).  A tree of ``L`` leaves costs its errors plus ``L lambda N`` and
errs at least on the equivalent-points minority ``z`` (OSDT Thm B.2), which gives the solve rule
:func:`small_tree_wins` and the children's bound :func:`split_floor`.
"""
from __future__ import annotations

import numpy as np

from ...common.jit import njit
from .depth2 import _INF, AUTO, accumulate_pair_counts


@njit(cache=True)
def side_table(counts, totals, out):
    """Errors of small trees on both children of every root split, from a support's count table: ``out[one, f]``
    (int64[2, m, 3]) holds for the child ``x_f = one`` its leaf errors, the exact least errors of a stump on it
    (``_INF`` if no feature splits it or it is pure) and its peel errors, at most the errors of any tree of three
    leaves on it: such a tree splits the child on some ``g`` and keeps one side a leaf, so it errs at least on
    that side's minority (the least, over the ``g`` splitting the child, of the smaller side error; ``_INF`` if
    none does).  A feature constant on the support gets ``_INF`` in all three."""
    k = totals.shape[0]
    m = counts.shape[1]
    n = np.int64(0)
    for c in range(k):
        n += totals[c]
    if k == 2:
        _side_table2(counts, totals, n, out)
        return
    for f in range(m):
        for one in range(2):
            n_side = np.int64(0)
            big = np.int64(0)
            for c in range(k):
                v = counts[c, f, f] if one == 1 else totals[c] - counts[c, f, f]
                n_side += v
                big = max(big, v)
            leaf = n_side - big
            out[one, f, 0] = leaf if 0 < n_side < n else _INF
            out[one, f, 1] = _INF
            out[one, f, 2] = _INF
            if leaf == 0 or n_side == 0 or n_side == n:
                continue
            best2, peel = _INF, _INF
            for g in range(m):
                n1, big1, big0 = np.int64(0), np.int64(0), np.int64(0)
                for c in range(k):
                    side = counts[c, f, f] if one == 1 else totals[c] - counts[c, f, f]
                    a = counts[c, f, g] if one == 1 else counts[c, g, g] - counts[c, f, g]  # (x_f = one, x_g = 1)
                    n1 += a
                    big1 = max(big1, a)
                    big0 = max(big0, side - a)
                if n1 == 0 or n1 == n_side:
                    continue  # g is constant on this side (g = f among them)
                e1, e0 = n1 - big1, (n_side - n1) - big0
                best2 = min(best2, e1 + e0)
                peel = min(peel, min(e1, e0))
            out[one, f, 1] = best2
            out[one, f, 2] = peel


@njit(cache=True)
def _side_table2(counts, totals, n, out):
    """:func:`side_table` for two classes, branch-free over ``g`` (a leaf errs on its smaller class)."""
    m = counts.shape[1]
    d0 = np.empty(m, np.int64)
    d1 = np.empty(m, np.int64)
    for g in range(m):
        d0[g], d1[g] = counts[0, g, g], counts[1, g, g]
    for f in range(m):
        r0, r1 = counts[0, f], counts[1, f]
        for one in range(2):
            s0 = d0[f] if one == 1 else totals[0] - d0[f]
            s1 = d1[f] if one == 1 else totals[1] - d1[f]
            n_side = s0 + s1
            leaf = min(s0, s1)
            out[one, f, 0] = leaf if 0 < n_side < n else _INF
            best2, peel = _INF, _INF
            if leaf != 0 and 0 < n_side < n:
                for g in range(m):
                    a0 = r0[g] if one == 1 else d0[g] - r0[g]
                    a1 = r1[g] if one == 1 else d1[g] - r1[g]
                    n1 = a0 + a1
                    e1, e0 = min(a0, a1), min(s0 - a0, s1 - a1)
                    ok = n1 != 0 and n1 != n_side
                    best2 = min(best2, e1 + e0 if ok else _INF)
                    peel = min(peel, min(e1, e0) if ok else _INF)
            out[one, f, 1] = best2
            out[one, f, 2] = peel


@njit(cache=True)
def small_tree_from_sides(out, leaf_err, lam_n):
    """The optimal tree of at most three leaves (each has depth <= 2) from a :func:`side_table`: ``(cost, root
    feature)``, -1 for the leaf of errors ``leaf_err``; ties to fewer leaves, then to the smaller feature."""
    best, bf = leaf_err + lam_n, np.int64(-1)
    for L in range(2, 4):
        for f in range(out.shape[1]):
            l0, l1 = out[0, f, 0], out[1, f, 0]
            if l0 >= _INF:
                continue
            e = l0 + l1 if L == 2 else min(out[0, f, 1] + l1, l0 + out[1, f, 1])
            v = e + lam_n * L
            if v < best:
                best, bf = v, np.int64(f)
    return best, bf


@njit(cache=True)
def small_tree(S, e, data, counts, totals, sides, lam_n):
    """The optimal tree of at most three leaves on support ``S`` (leaf errors ``e``) from its pair counts:
    ``(cost, root feature)`` (-1 for a leaf); ``sides`` receives the :func:`side_table` that
    :func:`split_floor` reads."""
    counts[:, :, :] = 0
    totals[:] = 0
    accumulate_pair_counts(counts, totals, data.xbits, data.ybits, S, 1, AUTO, data.mult)
    side_table(counts, totals, sides)
    return small_tree_from_sides(sides, e, lam_n)


@njit(cache=True)
def small_tree_wins(v, z, lam_n):
    """The best tree of at most three leaves, of cost ``v``, is optimal: every tree of ``L >= 4`` leaves errs at
    least on the equivalent-points minority ``z`` (OSDT Thm B.2) and costs at least ``z + 4 lambda N``."""
    return v <= z + 4.0 * lam_n


@njit(cache=True, inline="always")
def split_floor(sides, f, one, z, lam_n):
    """A lower bound on the cost of every tree of two leaves or more on the child ``x_f = one`` of a support, from
    its side table (:func:`small_tree`): two leaves cost their exact least errors plus ``2 lambda N``, three at
    least the peel errors (and ``z``) plus ``3 lambda N``, more at least ``z + 4 lambda N``, ``z`` the child's
    equivalent-points minority (OSDT Thm B.2; a tree of ``L`` leaves costs its errors plus ``L lambda N``, the
    count behind Thm C.1)."""
    return min(sides[one, f, 1] + 2.0 * lam_n, max(sides[one, f, 2], z) + 3.0 * lam_n, z + 4.0 * lam_n)
