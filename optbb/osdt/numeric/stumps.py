"""The depth-2 solver's layer of :mod:`optbb.osdt.numeric.kernel`: the best stump of each side of a split, column by
column, and the class weights they start from.

A column is swept on its order of ranks (:func:`side_sweep`: the order cut into the two sides' orders, each swept
once), or, when its values at the node span few ranks next to the rows it sweeps, from the class weights of each of
its values on each side (:func:`hist_stumps`), added up over the node's rows gathered in index order
(:func:`gather_rows`, :func:`mark_rows`), every read in memory order: on bank-full's 45,211 rows, a sweep of all
seven columns at the root took 0.62 s instead of 0.83 s in the depth-2 search.  Both find the same stump, the first
of the least errors, with ConTree's skips (:func:`side_sweep`).
"""
from __future__ import annotations

import numpy as np

from ...common.bounds import majority_class
from ...common.jit import njit

# rows of the float64 scratch ``sc`` (6, K): class weights
SC_TOTL, SC_TOTR, SC_CNTL, SC_CNTR, SC_TOT = range(5)
N_SC = 6
HIST_BINS = 1 << 16  # most bins of hist_stumps (a column with more values at a node is swept on its order)
HIST_COPIES = 4  # copies of each bin of hist_stumps, which consecutive rows add to in turn


@njit(cache=True)
def class_totals(o, n, y, w, tot):
    """Class weights of the rows ``o[:n]`` into ``tot``."""
    tot[:] = 0.0
    for i in range(n):
        r = o[i]
        tot[y[r]] += w[r]


@njit(cache=True)
def order_by(order, keys):
    """``order`` = the indices of ``keys`` by increasing key, ties by index (a stable argsort), in place: a
    heapsort, where ``np.argsort`` would compile Numba's quicksort and its shape checks."""
    m = order.shape[0]
    for j in range(m):
        order[j] = j
    for top in range(m // 2 - 1, -1, -1):
        _sift(order, keys, top, m)
    for end in range(m - 1, 0, -1):
        order[0], order[end] = order[end], order[0]
        _sift(order, keys, 0, end)


@njit(cache=True, inline="always")
def _sift(order, keys, j, end):
    """Sift ``order[j]`` down the max-heap ``order[:end]`` keyed by ``(keys[i], i)``."""
    while 2 * j + 1 < end:
        c = 2 * j + 1
        if c + 1 < end and _before(keys, order[c], order[c + 1]):
            c += 1
        if not _before(keys, order[j], order[c]):
            return
        order[j], order[c] = order[c], order[j]
        j = c


@njit(cache=True, inline="always")
def _before(keys, a, b):
    """Index ``a`` comes before index ``b``: a smaller key, or the same key and a smaller index."""
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


@njit(cache=True)
def side_stumps(data, lev, lv, n, sc, lb, rec, fo, p, gathered, capl, capr):
    """The best stump of each side of a split of the ``n`` rows of level ``lv``, ``p`` of them left, the sides'
    class weights in ``sc[SC_TOTL]``, ``sc[SC_TOTR]``: ``(errors, column, rank)`` left then right, column -1 when a
    side has no split better than none.  The split: the first ``p`` rows of column ``fo``'s order go left, or, with
    ``fo`` -1, as marked in ``lev.side`` (1: left); ``gathered``: the rows are gathered and marked in ``lev.loc``
    (:func:`gather_rows`, :func:`mark_rows`).  ``capl``, ``capr``: a stump on a side matters only below its cap
    (ConTree's upper bound: the split cannot beat the best tree otherwise), so no stump found there means every
    stump errs at least the cap.

    ``lb[s, g]``: a lower bound of ``s_g``, the least errors of a stump on column ``g`` or of a leaf, on side ``s``
    (0: left); a column whose bound is no better than the best stump found or the cap is not swept (the columns are
    swept by increasing bound).  A swept column's sweep skips positions against the lesser of its own best and the
    cap, not the best of all columns, so that its record is exact below the cap (measured faster overall, as the
    records then prune more columns and positions), and ``rec[s, g]`` receives ``min(s_g, cap)``, or the bound when
    the column was not swept.  A column whose values span few ranks next to the rows it sweeps is swept by
    :func:`hist_stumps`; any other column's order is first cut into its two sides' orders without a branch (a branch
    on a row's side is mispredicted half the time), then each side is swept by :func:`side_sweep`.
    ``lev.colbest[f]`` receives the left side's best stump on column ``f`` (an order for the columns to come).
    Returns the two sides' best stumps and the number of columns swept."""
    R, ords, side, colbest = data.R, lev.ords, lev.side, lev.colbest
    totl, totr, cntl, cntr = sc[SC_TOTL], sc[SC_TOTR], sc[SC_CNTL], sc[SC_CNTR]
    wl, wr = totl.sum(), totr.sum()
    leafl, leafr = majority_class(totl)[1], majority_class(totr)[1]
    el, fl, tl, er, fr, tr = np.inf, -1, -1, np.inf, -1, -1
    left, right, corder = lev.buf[0], lev.buf[1], lev.order[lev.order.shape[0] - 1]
    for g in range(R.shape[0]):
        colbest[g] = lb[0, g] + lb[1, g]
    order_by(corder, colbest)
    colbest[:] = np.inf
    marked = fo < 0
    swept = 0
    for f in corder:
        rec[0, f] = lb[0, f]
        rec[1, f] = lb[1, f]
        needl = wl > 0.0 and el > 0.0 and lb[0, f] < min(el, capl)
        needr = wr > 0.0 and er > 0.0 and lb[1, f] < min(er, capr)
        if not (needl or needr):
            continue
        swept += 1
        o, rf = ords[lv, f], R[f]
        lo, span = rf[o[0]], rf[o[n - 1]] - rf[o[0]] + 1
        e1, t1, e2, t2 = np.inf, -1, np.inf, -1
        if gathered and 10 * span <= 7 * (p * needl + (n - p) * needr) and span <= lev.hist.shape[0]:
            e1, t1, e2, t2 = hist_stumps(lev.hist, lev.loc, lev.lw, f, n, lo, span, sc, needl, needr, capl, capr)
        else:
            if not marked:
                mark_side(ords[lv, fo], n, p, side)
                marked = True
            kl, kr = 0, 0
            for i in range(n):
                r = o[i]
                s = side[r]
                left[kl] = r
                right[kr] = r
                kl += s
                kr += 1 - s
            if needl:
                e1, t1 = side_sweep(left, kl, rf, data.y, data.w, totl, wl, cntl, capl)
            if needr:
                e2, t2 = side_sweep(right, kr, rf, data.y, data.w, totr, wr, cntr, capr)
        if needl:
            colbest[f] = e1
            if t1 >= 0 and e1 < el:
                el, fl, tl = e1, f, t1
            rec[0, f] = max(lb[0, f], min(e1, leafl, capl))
        if needr:
            if t2 >= 0 and e2 < er:
                er, fr, tr = e2, f, t2
            rec[1, f] = max(lb[1, f], min(e2, leafr, capr))
    return el, fl, tl, er, fr, tr, swept


@njit(cache=True)
def mark_side(o, n, p, side):
    """Mark the first ``p`` rows of order ``o`` left (1) and the rest right (0) in ``side``."""
    for i in range(n):
        side[o[i]] = 1 if i < p else 0


@njit(cache=True)
def hist_stumps(hist, loc, lw, f, n, lo, span, sc, needl, needr, capl, capr):
    """:func:`side_sweep` of both sides of column ``f`` when its values at the node span few ranks (``lo`` ..
    ``lo + span - 1``) next to the rows of the sides it sweeps: the class weights of each value on each side are
    added up in ``hist`` from the node's rows gathered in index order (``loc``, ``lw``: every read in memory order,
    where a column's order reads the rows at random), then each side's values are swept.  Returns
    ``(errors, rank)`` of the left side then the right.  With two classes and at least 16 rows a value, consecutive
    rows add to :data:`HIST_COPIES` copies of the bins in turn, summed before the sweeps: adding every row to one
    bin chains each addition to the one before (adult 5,000 at depth 2: 8.3 -> 7.5 ms a fit)."""
    rank, code = loc[f], loc[loc.shape[0] - 1]
    w2 = sc.shape[1] * 2
    if w2 > 4 or 16 * span > n:  # copies pay for their zeroing and sums on two classes and few values
        _zero_bins(hist, span, w2)
        for i in range(n):
            hist[rank[i] - lo, code[i]] += lw[i]
        return _hist_sweeps(hist, lo, span, sc, needl, needr, capl, capr)
    _zero_bins(hist, span, hist.shape[1])
    end = n - n % HIST_COPIES
    for i in range(0, end, HIST_COPIES):  # consecutive rows into different copies: no chain through one bin
        hist[rank[i] - lo, code[i]] += lw[i]
        hist[rank[i + 1] - lo, code[i + 1] + w2] += lw[i + 1]
        hist[rank[i + 2] - lo, code[i + 2] + 2 * w2] += lw[i + 2]
        hist[rank[i + 3] - lo, code[i + 3] + 3 * w2] += lw[i + 3]
    for i in range(end, n):
        hist[rank[i] - lo, code[i]] += lw[i]
    for v in range(span):
        for c in range(w2):
            hist[v, c] += hist[v, c + w2] + hist[v, c + 2 * w2] + hist[v, c + 3 * w2]
    return _hist_sweeps(hist, lo, span, sc, needl, needr, capl, capr)


@njit(cache=True)
def _zero_bins(hist, span, width):
    """``hist[:span, :width] = 0`` as loops (Numba compiles a slice assignment's checks for a second or more)."""
    for v in range(span):
        for c in range(width):
            hist[v, c] = 0.0


@njit(cache=True)
def _hist_sweeps(hist, lo, span, sc, needl, needr, capl, capr):
    """:func:`hist_stumps`' sweeps of the sides it needs, from the bins ``hist[:span, :2K]``."""
    el, tl, er, tr = np.inf, -1, np.inf, -1
    if needl:
        el, tl = _hist_sweep(hist, 1, lo, span, sc[SC_TOTL], sc[SC_CNTL], capl)
    if needr:
        er, tr = _hist_sweep(hist, 0, lo, span, sc[SC_TOTR], sc[SC_CNTR], capr)
    return el, tl, er, tr


@njit(cache=True)
def gather_rows(data, lev, lv, n):
    """The rows of level ``lv`` in index order into ``lev.loc`` (ranks of each column, then classes) and
    ``lev.lw`` (weights), when some column's values there span at most half as many ranks as there are rows
    (:func:`hist_stumps` pays for the gathering then); returns whether one does."""
    R, ords, loc = data.R, lev.ords, lev.loc
    m = R.shape[0]
    few = False
    for f in range(m):
        o = ords[lv, f]
        few = few or 2 * (R[f, o[n - 1]] - R[f, o[0]] + 1) <= n
    if not few:
        return False
    rows = ords[lv, m]
    for f in range(m):
        rf, dst = R[f], loc[f]
        for i in range(n):
            dst[i] = rf[rows[i]]
    for i in range(n):
        r = rows[i]
        loc[m, i] = data.y[r]
        lev.lw[i] = data.w[r]
    return True


@njit(cache=True)
def mark_rows(loc, lw, f, t, n, tot, totl, totr):
    """The sides of the gathered rows for the split of column ``f`` at rank ``t``, in ``loc``'s last row as
    ``side * K + class`` (1: left), and the class weights of each side."""
    m, k = loc.shape[0] - 2, tot.shape[0]
    rank, cls, code = loc[f], loc[m], loc[m + 1]
    totl[:] = 0.0
    for i in range(n):
        s = rank[i] <= t
        code[i] = cls[i] + k * s
        totl[cls[i]] += lw[i] * s
    for c in range(tot.shape[0]):
        totr[c] = tot[c] - totl[c]


@njit(cache=True)
def _hist_sweep(hist, s, lo, span, tot, cnt, cap):
    """The best stump of side ``s`` from its class weights by value (``hist[:span, s]``, class totals ``tot``):
    ``(errors, rank)``, the first of the least, with :func:`side_sweep`'s skips."""
    if tot.shape[0] == 2:
        return _hist_sweep_two(hist, s, lo, span, tot[0], tot[1], cap)
    cnt[:] = 0.0
    wt = tot.sum()
    a, last, need = 0.0, -1, -1.0
    best, t = np.inf, -1
    k = cnt.shape[0]
    for v in range(span):
        h = 0.0
        for c in range(k):
            h += hist[v, s * k + c]
        if h == 0.0:
            continue
        if last >= 0 and a > need:
            m1, m0 = 0.0, 0.0
            for c in range(k):
                m1 = max(m1, cnt[c])
                m0 = max(m0, tot[c] - cnt[c])
            e_right = (wt - a) - m0
            e = (a - m1) + e_right
            if e < best:
                best, t = e, lo + last
            need = _next_need(e, e_right, a, wt, best, cap)
            if need < 0.0:
                break
        for c in range(cnt.shape[0]):
            cnt[c] += hist[v, s * k + c]
        a += h
        last = v
    return best, t


@njit(cache=True)
def _hist_sweep_two(hist, s, lo, span, t0, t1, cap):
    """:func:`_hist_sweep` for two classes, the counts held in registers."""
    wt = t0 + t1
    a, c1, last, need = 0.0, 0.0, -1, -1.0
    best, t = np.inf, -1
    for v in range(span):
        h0, h1 = hist[v, 2 * s], hist[v, 2 * s + 1]
        if h0 + h1 == 0.0:
            continue
        if last >= 0 and a > need:
            c0 = a - c1
            e_right = (wt - a) - max(t0 - c0, t1 - c1)
            e = (a - max(c0, c1)) + e_right
            if e < best:
                best, t = e, lo + last
            need = _next_need(e, e_right, a, wt, best, cap)
            if need < 0.0:
                break
        a += h0 + h1
        c1 += h1
        last = v
    return best, t


@njit(cache=True, inline="always")
def _next_need(e, e_right, a, wt, best, cap):
    """After a stump of errors ``e`` (``e_right`` of them right) with ``a`` of the weight ``wt`` left, ``best`` the
    least so far: the weight left past which a stump below ``min(best, cap)`` is possible (ConTree's skip, see
    :func:`side_sweep`), or -1 when none is, the sweep's end."""
    target = min(best, cap)
    if wt - a <= e - target or e_right <= 0.0:
        return -1.0
    return a + (e - target)


@njit(cache=True)
def side_sweep(rows, k, rf, y, w, tot, wt, cnt, cap):
    """The best stump of the rows ``rows[:k]`` (in ascending order of ``rf``, class weights ``tot``, total ``wt``):
    ``(errors, rank)``, ``(inf, -1)`` when the column has one value there; exact when below ``cap``, else every
    stump errs at least ``cap``.

    A row moved into a stump's left leaf lowers its errors by at most its weight (the left leaf's largest class
    grows by at most that, the right leaf's does not grow), so after a position with errors ``e`` above
    ``b = min(best, cap)`` the next ``e - b`` of weight cannot give a stump below ``b`` and is not evaluated
    (ConTree's skip), and the sweep ends when less than that is left, or when the right leaf has no errors (moving
    rows left can then only add errors).  Two classes of unit weight, the common case, count in integers (no chain
    of float additions)."""
    if tot.shape[0] == 2 and wt == k:
        return _sweep_two_unit(rows, k, rf, y, tot, cap)
    cnt[:] = 0.0
    a, last, need = 0.0, -1, -1.0  # need: the weight past which a better stump is possible
    best, t = np.inf, -1
    for i in range(k):
        r = rows[i]
        v = rf[r]
        if v != last and last >= 0 and a > need:
            m1, m0 = 0.0, 0.0
            for c in range(cnt.shape[0]):
                m1 = max(m1, cnt[c])
                m0 = max(m0, tot[c] - cnt[c])
            e_right = (wt - a) - m0
            e = (a - m1) + e_right
            if e < best:
                best, t = e, last
            need = _next_need(e, e_right, a, wt, best, cap)
            if need < 0.0:
                break
        cnt[y[r]] += w[r]
        a += w[r]
        last = v
    return best, t


@njit(cache=True)
def _sweep_two_unit(rows, k, rf, y, tot, cap):
    """:func:`side_sweep` for two classes and weights all 1: row ``i`` is preceded by ``i`` rows."""
    c1, last, need = 0, -1, -1.0
    best, t = np.inf, -1
    for i in range(k):
        r = rows[i]
        v = rf[r]
        if v != last and last >= 0 and i > need:
            a, n1 = float(i), float(c1)
            n0 = a - n1
            e_right = (k - a) - max(tot[0] - n0, tot[1] - n1)
            e = (a - max(n0, n1)) + e_right
            if e < best:
                best, t = e, last
            need = _next_need(e, e_right, a, k, best, cap)
            if need < 0.0:
                break
        c1 += y[r]
        last = v
    return best, t


@njit(cache=True)
def mark_split(data, o, n, p, side, tot, totl, totr):
    """Mark the first ``p`` rows of order ``o`` left (1) and the rest right (0); class weights of each side."""
    mark_side(o, n, p, side)
    class_totals(o, p, data.y, data.w, totl)
    for c in range(tot.shape[0]):
        totr[c] = tot[c] - totl[c]
