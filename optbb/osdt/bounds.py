"""OSDT-specific bounds (Hu, Rudin & Seltzer, NeurIPS 2019), each citing the result it implements.

Everything is in integer counts: ``errors`` and ``captured`` are numbers of samples, ``lam_n = lambda * N``.
The objective value itself always comes from :func:`optbb.common.bounds.objective_value`, shared with CORELS.

Tie handling: a test written ``<= lam_n`` prunes co-optimal trees as well; it never prunes the optimal *value*.
Each such rule says "a tree violating it can be collapsed into one with fewer leaves and an objective no worse", so
the optimal tree with the fewest leaves satisfies all the rules with strict inequality and is never pruned.
"""
from __future__ import annotations

import math

import numpy as np
from ..common.jit import njit

from ..common.bitset import popcount_and, popcount_and3
from ..common.bounds import majority_errors, objective_value


@njit(cache=True, inline="always")
def leaf_is_dead(errors, lam_n):
    """Lower bound on leaf support, in the form the reference code uses (Thm 3.3, strengthened via Thm 3.4):
    splitting a leaf removes at most its ``errors`` mistakes and adds at least one leaf, so a leaf with
    ``errors <= lambda N`` is never split in a fewest-leaves optimal tree."""
    return errors <= lam_n


@njit(cache=True, inline="always")
def split_needs_refinement(parent_errors, errors0, errors1, lam_n):
    """Lower bound on incremental classification accuracy (Thm 3.4): if splitting a leaf gains at most
    ``lambda N`` correct predictions, the two new leaves cannot both stay leaves in a fewest-leaves optimal tree,
    so every descendant must split at least one of them."""
    return parent_errors - errors0 - errors1 <= lam_n


@njit(cache=True, inline="always")
def leaf_accuracy_too_small(n_captured, errors, lam_n):
    """Leaf accurate support (Thm 3.5): every leaf of a fewest-leaves optimal tree classifies more than
    ``lambda N`` samples correctly; the correct count only shrinks down a path, so a split producing a child with
    ``n_captured - errors <= lambda N`` is excluded for that leaf and all its descendants (the feature is dead)."""
    return n_captured - errors <= lam_n


@njit(cache=True)
def leaf_is_exact(errors, z, lam_n):
    """The leaf is an optimal subtree (dynamic-programming search) when splitting cannot pay for itself:
    :func:`leaf_is_dead` (OSDT Thm 3.3 in the reference code's form) or ``errors == z``, the equivalent-points
    minority (OSDT Thm B.2: no tree makes fewer mistakes on this support)."""
    return leaf_is_dead(errors, lam_n) or errors == z


@njit(cache=True)
def lookahead_bound(errors, z, lam_n):
    """Lower bound on the optimal subtree of a support, in error units: the leaf, or a split, which has at least 2
    leaves and at least the equivalent-points minority ``z`` of mistakes (OSDT Lemma 3.2, one-step lookahead, with
    Thm B.2)."""
    return min(errors + lam_n, z + 2.0 * lam_n)


@njit(cache=True)
def incremental_accuracy_bound(lb0, lb1, s0, s1):
    """Incremental accuracy (OSDT Thm 3.4) as a bound: when :func:`split_needs_refinement` holds, one child must
    split, so the split costs at least ``min(s0 + lb1, lb0 + s1)``, ``lb`` the bound of a child and ``s`` its split
    bound (``inf`` if it cannot split)."""
    return min(s0 + lb1, lb0 + s1)


@njit(cache=True)
def similar_support_bound(lb_known, n_differing):
    """Similar support bound (OSDT Thm F.1, Eq. 19; GOSDT): a tree for support ``A`` applied to ``B`` changes the
    cost by at most one mistake per sample in the symmetric difference, so ``opt(B) >= lb(A) - |A xor B|`` (with
    weights: the weight of the symmetric difference)."""
    return lb_known - n_differing


@njit(cache=True, inline="always")
def entry_bound(unchanged_errors, split_b0, n_leaves, n_split, n_samples, lam, lookahead, equivalent_points):
    """Bound used to prune a queue entry (a tree plus the leaves it will split).

    * hierarchical lower bound (Thm 3.1): ``b = unchanged_errors / N + lambda * H`` (always on);
    * equivalent points (Thm B.2): add ``b0`` of the leaves to split, the minority labels they capture;
    * one-step lookahead (Lemma 3.2, generalised to ``s`` simultaneous splits): each split leaf adds a leaf, so
      add ``lambda * s``.

    With the lookahead on, the search also applies :func:`split_floor` (a two-level lookahead) per split leaf,
    which is never weaker than ``b0 + 2 lambda N``.
    """
    return objective_value(unchanged_errors + (split_b0 if equivalent_points else 0),
                           n_leaves + (n_split if lookahead else 0), n_samples, lam)


@njit(cache=True)
def split_floor(lid, data, leaves, lam_n, equivalent_points):
    """Lower bound, in error units with ``lambda N`` per leaf, on the cost of any subtree that splits leaf ``lid``
    (a two-level lookahead): it splits on some feature ``f``, and each side is bounded by :func:`lookahead_bound`.
    Never below ``b0 + 2 lambda N``, the one-step lookahead with equivalent points.  ``inf`` when no feature is left."""
    xbits, ybits, zbits = data.x, data.y, data.z
    cap, key, n_cap, b0 = leaves.captured, leaves.key, leaves.n_captured, leaves.b0
    kw = leaves.dead_features.shape[1]
    n, npos, nb0 = n_cap[lid], popcount_and(cap[lid], ybits), b0[lid]
    best = np.inf
    for f in range(xbits.shape[0]):
        wi, bi = f >> 6, np.uint64(f & 63)
        if ((key[lid, wi] | key[lid, kw + wi]) >> bi) & np.uint64(1):
            continue
        n1 = popcount_and(cap[lid], xbits[f])
        p1 = popcount_and3(cap[lid], xbits[f], ybits)
        z1 = popcount_and3(cap[lid], xbits[f], zbits) if equivalent_points else 0
        z0 = nb0 - z1 if equivalent_points else 0
        _, e1 = majority_errors(p1, n1)
        _, e0 = majority_errors(npos - p1, n - n1)
        v = lookahead_bound(e0, z0, lam_n) + lookahead_bound(e1, z1, lam_n)
        if v < best:
            best = v
    return best


@njit(cache=True, inline="always")
def leaf_count_bound(unchanged_errors, n_leaves, n_split, n_samples, lam):
    """Prefix-specific upper bound on the number of leaves (Thm C.3), in its sound form: a descendant with
    ``H'`` leaves costs at least ``b + lambda (H' - H)``, so to beat ``R^c`` it needs ``H' < H + (R^c - b)/lambda``.
    An entry splitting ``s`` leaves yields ``H' >= H + s``; this returns the cost of that smallest descendant,
    ``b + lambda s``, to be compared with ``R^c``.  (The paper's ``floor`` form can prune an optimum when
    ``(R^c - b)/lambda`` is not an integer; it is not used.)"""
    return objective_value(unchanged_errors, n_leaves + n_split, n_samples, lam)


# ----------------------------------------------------------------------------------------------------------------
# numeric columns: bounds on the split positions of one column (ConTree: Brita, van der Linden, Demirovic, "Optimal
# Classification Trees for Continuous Feature Data Using Dynamic Programming with Branch-and-Bound", AAAI 2025,
# Sec. 4), for the search over sorted orders (:mod:`optbb.osdt.numeric.kernel`, whose docstring derives them).  For
# positions ``p < q`` of one column, ``L(p) <= L(q)``, ``R(p) >= R(q)`` (monotonicity) and ``L(q) <= L(p) + w(p, q)``,
# ``R(p) <= R(q) + w(p, q)`` (similarity), ``L``, ``R`` the children's optimal costs and ``w(p, q)`` the weight of the
# rows between the positions; every child costs at least ``lam_n``.  Interval ``sp`` of ``ivv`` holds ``L(a), R(a),
# L(b), R(b)`` of its ends ``a < b``.
# ----------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def interval_bound(ivv, sp, wab, lam_n):
    """Lower bound of every split strictly inside interval ``sp`` (module docstring): ``(split, left, right)``."""
    lo_l = max(ivv[sp, 0], ivv[sp, 2] - wab, lam_n)
    lo_r = max(ivv[sp, 3], ivv[sp, 1] - wab, lam_n)
    return lo_l + lo_r, lo_l, lo_r


@njit(cache=True)
def shrink_interval(ivv, sp, a, b, nb, n, bpos, cw, best):
    """The split indices ``lo .. hi`` of interval ``sp`` (ends ``a < b``) that may beat ``best``: from ``a``,
    ``L(q) + R(q) >= L(a) + R(a) - w(a, q)``, so a better ``q`` lies more than ``L(a) + R(a) - best`` of weight
    past ``a``, and alike before ``b`` (ConTree's interval shrinking).  Empty when ``lo > hi``."""
    pa = cw[0 if a < 0 else bpos[a]]
    pb = cw[n if b >= nb else bpos[b]]
    need_a = pa + (ivv[sp, 0] + ivv[sp, 1] - best)  # q's prefix weight must exceed this
    need_b = pb - (ivv[sp, 2] + ivv[sp, 3] - best)  # and stay below this
    lo, hi = a + 1, b - 1
    if need_a >= cw[bpos[lo]]:
        x, z = lo, hi + 1  # first index whose prefix weight exceeds need_a
        while x < z:
            h = (x + z) // 2
            if cw[bpos[h]] > need_a:
                z = h
            else:
                x = h + 1
        lo = x
    if lo <= hi and need_b <= cw[bpos[hi]]:
        x, z = lo - 1, hi  # last index whose prefix weight is below need_b
        while x < z:
            h = (x + z + 1) // 2
            if cw[bpos[h]] < need_b:
                x = h
            else:
                z = h - 1
        hi = x
    return lo, hi


@njit(cache=True)
def records_bound(rec, sa, sb, wab, lam_n, lo_l, lo_r):
    """A lower bound of every position between two evaluated ones (records in slots ``sa``, ``sb``; -1: none),
    ``wab`` of weight apart, from the columns' records: a side costs at least ``lam_n`` plus its least column bound
    (a stump on column ``g`` or a leaf errs at least ``s_g``), and at least ``lo_l`` (``lo_r``), the interval's
    bound of it."""
    if sa < 0 or sb < 0:
        return lo_l + lo_r
    ml, mr = np.inf, np.inf
    for g in range(rec.shape[2]):
        ml = min(ml, max(rec[sa, 0, g], rec[sb, 0, g] - wab))
        mr = min(mr, max(rec[sb, 1, g], rec[sa, 1, g] - wab))
    return max(lo_l, ml + lam_n) + max(lo_r, mr + lam_n)


@njit(cache=True)
def column_bounds(rec, sa, sb, wa, wb, lb):
    """``lb[s, g]``: lower bounds of each column's best stump (or leaf) on each side of a position between two
    evaluated ones whose records are in slots ``sa`` and ``sb`` (-1: none), ``wa`` and ``wb`` of weight away: the
    left side grows from ``a`` to ``b``, so its value is at least ``a``'s and at most ``wb`` below ``b``'s, and the
    right side the reverse (the module docstring's monotonicity and similarity, for a stump)."""
    for g in range(lb.shape[1]):
        lo_l, lo_r = 0.0, 0.0
        if sa >= 0:
            lo_l = rec[sa, 0, g]
            lo_r = rec[sa, 1, g] - wa
        if sb >= 0:
            lo_l = max(lo_l, rec[sb, 0, g] - wb)
            lo_r = max(lo_r, rec[sb, 1, g])
        lb[0, g] = lo_l
        lb[1, g] = max(lo_r, 0.0)


@njit(cache=True, inline="always")
def binary_entropy(p):
    """Entropy (bits) of a Bernoulli(p); 0 at p in {0, 1}."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1.0 - p) * math.log2(1.0 - p))


@njit(cache=True, inline="always")
def gini_impurity(p):
    """Gini impurity ``2 p (1 - p)`` of a Bernoulli(p)."""
    return 2.0 * p * (1.0 - p)


def a_priori_leaf_bound(upper_bound: float, lam: float, n_distinct: int) -> int:
    """Largest number of leaves a tree worth searching can have, at least 2.

    Thm C.1 / Cor C.2 with the off-by-one of Cor C.2 fixed: a tree that beats ``upper_bound`` has fewer than
    ``upper_bound / lambda`` leaves, so at most ``floor(upper_bound / lambda) + 1`` (a safe margin for floats).
    And a tree never needs more leaves than the ``n_distinct`` distinct feature rows of the data: identical rows
    share a leaf, so a tree with more leaves has an empty leaf, and merging it into its sibling subtree keeps every
    prediction and saves lambda.  The quotient is compared as a float, so a tiny lambda (``1e-300``, or a quotient
    that overflows to ``inf``) yields ``n_distinct`` instead of a huge integer."""
    cap = max(int(n_distinct), 2)
    quotient = upper_bound / lam
    if not quotient < cap:  # also inf and nan
        return cap
    return max(min(int(math.floor(quotient)) + 1, cap), 2)
