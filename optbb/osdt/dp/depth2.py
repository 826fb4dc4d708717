"""Optimal subtrees of depth <= 2 read from feature-pair class counts instead of a search.

The terminal case of the dynamic-programming OSDT search: a subproblem (a support bitset) with a depth budget of
two splits is solved exactly from counts, the idea of MurTree's specialised algorithm for trees of depth two
(Demirović et al., "MurTree: optimal decision trees via dynamic programming and search", JMLR 23, 2022) and of
STreeD's terminal solver (van der Linden, de Weerdt & Demirović, NeurIPS 2023).  The code here is optbb's own:
counting is done on packed bitsets.

Cost of a tree on a support ``S``: ``errors + lam_n * leaves``, where ``errors`` is the number of samples of ``S``
outside the largest class of their leaf and ``lam_n = regularization * N`` (the OSDT objective times ``N``).

Counting (all on ``S``): per class ``c``, ``n_c`` (samples), ``n_c(f)`` (samples with ``x_f = 1``) and
``n_c(f, g)`` (``x_f = x_g = 1``).  For a root split on ``f`` and a child split on ``g`` the four cells are::

    (f=1, g=1) = n_c(f, g)                      (f=1, g=0) = n_c(f) - n_c(f, g)
    (f=0, g=1) = n_c(g) - n_c(f, g)             (f=0, g=0) = n_c - n_c(f) - n_c(g) + n_c(f, g)

so every root ``f`` with its best child on each side is evaluated in ``O(m^2 k)`` after ``O(m^2 k W)`` word
popcounts (``m`` features, ``k`` classes, ``W`` words of the support).  The minimum errors are found separately
per number of leaves, 1 to 4 (integers, exact); the cost is then the smallest ``E_L + lam_n * L``.

Conventions
-----------
* A split is valid only if both of its sides are non-empty on the support it splits: a feature constant on the
  support (or on a child's support) is never used.  A split with an empty side is never needed, since collapsing
  it keeps the errors and saves a leaf.
* "left" is the branch where the root feature is 0, "right" the branch where it is 1.
* Ties between trees: smallest cost first, then fewest leaves, then smallest root feature, then smallest child
  feature (and for three leaves, a split on the left child before one on the right).
* Only errors are computed here; a leaf's label (the most frequent class, ties to the largest index) is
  :func:`optbb.common.bounds.majority_class`'s, and errors do not depend on the tie rule.

Signatures (all ``@njit(cache=True)``; arrays C-contiguous)
-----------------------------------------------------------
``pair_counts(xbits, ybits, support, mode=AUTO) -> (counts, totals)``
    ``xbits``: uint64[m, W] feature bitsets; ``ybits``: uint64[k, W] one bitset per class (k >= 2, disjoint);
    ``support``: uint64[W].  ``counts``: int64[k, m, m]
    with ``counts[c, f, f] = n_c(f)`` and ``counts[c, f, g] = counts[c, g, f] = n_c(f, g)``; ``totals``:
    int64[k] with ``totals[c] = n_c``.  ``mode``: ``WORDS`` counts over the support's non-empty words,
    ``GATHER`` first packs the support's samples densely (cheaper for sparse supports), ``AUTO`` picks by cost.
``depth2_table(counts, totals) -> best``
    int64[5, 4]: row ``L`` (1..4) = ``(errors, f_root, f_left, f_right)`` of a tree with ``L`` leaves and depth
    <= 2, or ``errors = -1`` if the row is empty; row 0 is unused.  Guarantee: for every ``L``, the smallest
    errors among rows ``1..L`` is the minimum errors of any depth <= 2 tree with at most ``L`` leaves (rows that
    a smaller tree dominates, e.g. splits of a pure side, are skipped).  Three-leaf trees have ``f_left = -1`` or
    ``f_right = -1`` (the unsplit side).
``depth2_from_counts(counts, totals, lam_n) -> (cost, n_leaves, f_root, f_left, f_right)``
``depth2(xbits, ybits, support, lam_n) -> (cost, n_leaves, f_root, f_left, f_right)``
    Optimal subtree of depth <= 2.  ``cost``: float64; the rest int64; ``-1`` means "no split" (a leaf has
    ``f_root = f_left = f_right = -1``; a stump ``f_left = f_right = -1``).
The errors of the returned tree are ``round(cost - lam_n * n_leaves)``, exactly ``depth2_table(...)[n_leaves, 0]``.

Sample weights (integer, in weight layers)
------------------------------------------
Every counting function takes an optional last argument ``mult`` (int64[L]): ``ybits`` then has ``k * L`` rows,
row ``c * L + l`` holding the samples of class ``c`` in weight layer ``l``, and a count is the weighted count
``sum_l mult[l] * popcount(... & ybits[c * L + l])``.  Without ``mult`` (``L = 1``) a count is a popcount.  The
counts stay int64 and exact, so the solver, its tie rules and its guarantees are those of the repeated-rows problem
(``optbb.osdt.support.weight_layers`` builds the layers).
"""
from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from ...common.bitset import popcount64, trailing_zeros
from ...common.bounds import majority_class
from ...common.jit import njit

_INF = np.int64(1) << np.int64(62)


AUTO, WORDS, GATHER = 0, 1, 2  # how pair counting restricts the data to the support


@njit(cache=True)
def _restrict_words(xbits, ybits, support):
    """Features and classes restricted to the support's non-empty words (bit positions kept)."""
    m = xbits.shape[0]
    k = ybits.shape[0]
    nw = support.shape[0]
    words = np.empty(nw, dtype=np.int64)
    wc = 0
    for j in range(nw):
        if support[j] != 0:
            words[wc] = j
            wc += 1
    xs = np.empty((m, wc), dtype=np.uint64)
    for f in range(m):
        for t in range(wc):
            xs[f, t] = xbits[f, words[t]]
    cls = np.empty((k, wc), dtype=np.uint64)
    for c in range(k):
        for t in range(wc):
            cls[c, t] = ybits[c, words[t]] & support[words[t]]
    return xs, cls


@njit(cache=True)
def _restrict_gather(xbits, ybits, support, n_s):
    """Features and classes with the support's samples packed densely (sample ``t`` of the support -> bit ``t``)."""
    pos = np.empty(n_s, dtype=np.int64)
    t = 0
    for j in range(support.shape[0]):
        w = support[j]
        while w != 0:
            pos[t] = j * 64 + trailing_zeros(w)
            t += 1
            w &= w - np.uint64(1)
    return _gather_bits(xbits, pos), _gather_bits(ybits, pos)


@njit(cache=True, inline="always")
def _gather_bits(bits, pos):
    """Each row of ``bits`` with bit ``pos[t]`` moved to bit ``t``, the others dropped."""
    out = np.zeros((bits.shape[0], (pos.shape[0] + 63) // 64), dtype=np.uint64)
    for r in range(bits.shape[0]):
        for t in range(pos.shape[0]):
            i = pos[t]
            out[r, t >> 6] |= ((bits[r, i >> 6] >> np.uint64(i & 63)) & np.uint64(1)) << np.uint64(t & 63)
    return out


@njit(cache=True)
def _count_into(counts, totals, xs, cls, sign, mult):
    """``counts[c, f, g] += sign * mult[l] * popcount(cls[c * L + l] & xs[f] & xs[g])`` (f <= g, mirrored);
    ``totals`` likewise (``L = len(mult)`` weight layers per class)."""
    m = xs.shape[0]
    L = mult.shape[0]
    wc = xs.shape[1]
    row = np.empty(wc, dtype=np.uint64)
    for r in range(cls.shape[0]):
        c = r // L
        sw = sign * mult[r - c * L]
        s = np.int64(0)
        for t in range(wc):
            s += popcount64(cls[r, t])
        totals[c] += sw * s
        for f in range(m):
            s = np.int64(0)
            for t in range(wc):
                w = xs[f, t] & cls[r, t]
                row[t] = w
                s += popcount64(w)
            if s == 0:
                continue  # every pair count with f is zero too
            counts[c, f, f] += sw * s
            for g in range(f + 1, m):
                p = np.int64(0)
                for t in range(wc):
                    p += popcount64(row[t] & xs[g, t])
                counts[c, f, g] += sw * p
    _mirror_upper(counts)


@njit(cache=True, inline="always")
def _mirror_upper(counts):
    """``counts[c, g, f] = counts[c, f, g]`` for ``f < g``, in cache-sized blocks."""
    k, m = counts.shape[0], counts.shape[1]
    B = 64
    for c in range(k):
        for f0 in range(0, m, B):
            for g0 in range(f0, m, B):
                for g in range(g0, min(g0 + B, m)):
                    for f in range(f0, min(f0 + B, m, g)):
                        counts[c, g, f] = counts[c, f, g]


_ONE = np.ones(1, dtype=np.int64)  # the weight layers of unweighted data: one layer of weight 1


def _layer_weights(mult):
    """``mult``, or :data:`_ONE` for None (unweighted data)."""
    return _ONE if mult is None else mult


@overload(_layer_weights)
def _layer_weights_typed(mult):
    # chosen when the caller is compiled, so that a kernel given ``mult`` does not also compile the None case
    if isinstance(mult, (types.NoneType, types.Omitted)):
        return lambda mult: _ONE
    return lambda mult: mult


@njit(cache=True)
def accumulate_pair_counts(counts, totals, xbits, ybits, rows, sign, mode=AUTO, mult=None):
    """Add ``sign`` (+1 or -1) times the class counts of the samples in bitset ``rows`` to a count table.

    With ``sign = -1`` and ``rows`` inside the table's support this removes them; with ``+1`` and ``rows``
    outside it adds them.  A caller holding the table of a support ``S`` gets the table of a similar support
    ``S'`` as ``S - (S \\ S') + (S' \\ S)`` at the cost of counting only the difference (the incremental
    frequency counting of MurTree, Demirović et al. 2022).  ``mode``: ``AUTO`` chooses between
    ``WORDS`` (skip empty words) and ``GATHER`` (pack the support's samples densely first) by estimated cost.
    ``mult``: the weights of the layers of ``ybits`` (module docstring), None for unweighted data.
    """
    m = xbits.shape[0]
    k = ybits.shape[0]
    n_s = np.int64(0)
    wc = 0
    for j in range(rows.shape[0]):
        if rows[j] != 0:
            wc += 1
            n_s += popcount64(rows[j])
    if n_s == 0:
        return
    if mode == AUTO:
        wd = (n_s + 63) // 64
        pair_work = (m * (m - 1) // 2 + m) * k
        mode = GATHER if 5 * m * n_s + pair_work * wd < pair_work * wc else WORDS
    if mode == GATHER:
        xs, cls = _restrict_gather(xbits, ybits, rows, n_s)
    else:
        xs, cls = _restrict_words(xbits, ybits, rows)
    _count_into(counts, totals, xs, cls, sign, _layer_weights(mult))


@njit(cache=True, inline="always")
def pair_counts(xbits, ybits, support, mode=AUTO, mult=None):
    """Per-class single and pair counts of the features on ``support`` (see the module docstring)."""
    m = xbits.shape[0]
    k = ybits.shape[0] // _layer_weights(mult).shape[0]
    counts = np.zeros((k, m, m), dtype=np.int64)
    totals = np.zeros(k, dtype=np.int64)
    accumulate_pair_counts(counts, totals, xbits, ybits, support, 1, mode, mult)
    return counts, totals


@njit(cache=True)
def split_counts_into(xbits, ybits, support, counts, totals, f, left, left_t, right, right_t, mult=None):
    """Count tables of the two children of a split on ``f`` into ``left`` (the side ``x_f = 0``) and ``right``
    (shape of ``counts``) and their totals into ``left_t`` and ``right_t``, buffers the caller owns (tables of a
    few MB cost more to allocate than to fill); only the smaller child is counted, the other is the parent's
    table minus it."""
    nw = support.shape[0]
    one = np.empty(nw, dtype=np.uint64)
    zero = np.empty(nw, dtype=np.uint64)
    n1 = np.int64(0)
    n0 = np.int64(0)
    for j in range(nw):
        one[j] = support[j] & xbits[f, j]
        zero[j] = support[j] & ~xbits[f, j]
        n1 += popcount64(one[j])
        n0 += popcount64(zero[j])
    small, small_t, rows, big, big_t = (right, right_t, one, left, left_t) if n1 <= n0 else \
        (left, left_t, zero, right, right_t)
    flat_small, flat_big, flat = small.reshape(-1), big.reshape(-1), counts.reshape(-1)
    for i in range(flat_small.shape[0]):
        flat_small[i] = 0
    small_t[:] = 0
    accumulate_pair_counts(small, small_t, xbits, ybits, rows, 1, AUTO, mult)
    for i in range(flat_big.shape[0]):
        flat_big[i] = flat[i] - flat_small[i]
    for c in range(big_t.shape[0]):
        big_t[c] = totals[c] - small_t[c]


@njit(cache=True)
def _side_best(counts, diag, totals, f, one, cell):
    """Best leaf and best single split on one side of the root ``f`` (``one``: the side ``x_f = 1``; a constant
    bool, so each side compiles its own loop; a single copy taking the side as an int was slower in a first
    measurement).

    Returns ``(leaf_err, split_err, g)``; ``split_err = _INF`` and ``g = -1`` if no valid split exists.
    ``diag[c, g] = counts[c, g, g]`` (contiguous); ``cell`` is a scratch array of length k.
    """
    k = totals.shape[0]
    m = counts.shape[1]
    n_side = np.int64(0)
    for c in range(k):
        v = diag[c, f] if one else totals[c] - diag[c, f]
        cell[c] = v
        n_side += v
    _, leaf_err = majority_class(cell)
    if leaf_err == 0:
        return leaf_err, _INF, -1  # a pure side needs no split: the leaf is optimal
    if k == 2:
        return _side_best2(counts, diag, f, one, cell[0], cell[1], n_side, leaf_err)
    best_err = _INF
    best_g = -1
    for g in range(m):
        if g == f:
            continue
        n1 = np.int64(0)
        big1 = np.int64(0)
        big0 = np.int64(0)
        for c in range(k):
            a = counts[c, f, g] if one else diag[c, g] - counts[c, f, g]  # (x_f = side, x_g = 1)
            b = cell[c] - a  # (x_f = side, x_g = 0)
            n1 += a
            if a > big1:
                big1 = a
            if b > big0:
                big0 = b
        if n1 == 0 or n1 == n_side:
            continue  # g is constant on this side
        e = n_side - big1 - big0
        if e < best_err:
            best_err = e
            best_g = g
    return leaf_err, best_err, best_g


@njit(cache=True, inline="always")
def _side_best2(counts, diag, f, one, s0, s1, n_side, leaf_err):
    """:func:`_side_best` for two classes, branch-free over ``g`` (errors of a leaf = its smaller class)."""
    m = counts.shape[1]
    r0 = counts[0, f]
    r1 = counts[1, f]
    d0 = diag[0]
    d1 = diag[1]
    best_err = _INF
    best_g = -1
    for g in range(m):
        if one:
            a0 = r0[g]
            a1 = r1[g]
        else:
            a0 = d0[g] - r0[g]
            a1 = d1[g] - r1[g]
        n1 = a0 + a1
        e = min(a0, a1) + min(s0 - a0, s1 - a1)
        if n1 == 0 or n1 == n_side or g == f:
            e = _INF
        if e < best_err:
            best_err = e
            best_g = g
    return leaf_err, best_err, best_g


@njit(cache=True, inline="always")
def _put(best, L, err, f, gl, gr):
    if best[L, 0] < 0 or err < best[L, 0]:
        best[L, 0] = err
        best[L, 1] = f
        best[L, 2] = gl
        best[L, 3] = gr


@njit(cache=True)
def depth2_table(counts, totals):
    """Best depth <= 2 trees by leaf count, with their splits (int64[5, 4]; see the module docstring)."""
    k = totals.shape[0]
    m = counts.shape[1]
    best = np.full((5, 4), -1, dtype=np.int64)
    best[1, 0] = majority_class(totals)[1]
    n = np.int64(0)
    for c in range(k):
        n += totals[c]
    if best[1, 0] == 0:
        return best  # a pure support: nothing can beat the leaf
    diag = np.empty((k, m), dtype=np.int64)
    for c in range(k):
        for g in range(m):
            diag[c, g] = counts[c, g, g]
    cell = np.empty(k, dtype=np.int64)
    for f in range(m):
        nf = np.int64(0)
        for c in range(k):
            nf += diag[c, f]
        if nf == 0 or nf == n:
            continue  # f is constant on the support: no split
        leaf0, split0, g0 = _side_best(counts, diag, totals, f, False, cell)
        leaf1, split1, g1 = _side_best(counts, diag, totals, f, True, cell)
        _put(best, 2, leaf0 + leaf1, f, -1, -1)
        if g0 >= 0:
            _put(best, 3, split0 + leaf1, f, g0, -1)
        if g1 >= 0:
            _put(best, 3, leaf0 + split1, f, -1, g1)
        if g0 >= 0 and g1 >= 0:
            _put(best, 4, split0 + split1, f, g0, g1)
    return best


@njit(cache=True, inline="always")
def depth2_from_counts(counts, totals, lam_n, max_leaves=4):
    """Optimal depth <= 2 subtree of at most ``max_leaves`` leaves from a count table: ``(cost, n_leaves, f_root,
    f_left, f_right)``, the cheapest row of its ``depth2_table`` (fewest leaves on an exact tie).  Every tree of
    at most three leaves has depth <= 2, so ``max_leaves=3`` gives the optimum over trees of at most three
    leaves."""
    best = depth2_table(counts, totals)
    cost = np.inf
    L_best = 1
    for L in range(1, max_leaves + 1):
        if best[L, 0] < 0:
            continue
        c = best[L, 0] + lam_n * L
        if c < cost:
            cost = c
            L_best = L
    return cost, np.int64(L_best), best[L_best, 1], best[L_best, 2], best[L_best, 3]


@njit(cache=True)
def depth2(xbits, ybits, support, lam_n, mult=None):
    """Optimal depth <= 2 subtree of ``support``: ``(cost, n_leaves, f_root, f_left, f_right)``."""
    counts, totals = pair_counts(xbits, ybits, support, AUTO, mult)
    return depth2_from_counts(counts, totals, lam_n)
