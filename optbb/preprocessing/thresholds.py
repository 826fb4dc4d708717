"""Thresholds of the Binarizer: quantiles, the splits of a gradient-boosted ensemble, and the short numbers and
readable times they print as."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

# steps of readable times, coarsest first, in nanoseconds: day, hour, minute, second, ms, us, ns
_TIME_STEPS = (86_400 * 10**9, 3_600 * 10**9, 60 * 10**9, 10**9, 10**6, 10**3, 1)


def fmt(v: float, digits: int = 4) -> str:
    """A threshold as people write it: ``26`` rather than ``26.0``, ``digits`` significant digits otherwise."""
    v = float(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{digits}g}"


def fmt_time(v: int, kind: str) -> str:
    """A time threshold (nanoseconds) as people write it: ``2020-01-03``, ``2020-01-03 04:00:00 UTC``, ``3 days``,
    ``3 days 04:00:00``."""
    if kind == "timedelta":
        days, rest = divmod(int(v), _TIME_STEPS[0])
        return f"{days} day{'' if abs(days) == 1 else 's'}" if rest == 0 else str(pd.Timedelta(int(v), unit="ns"))
    ts = pd.Timestamp(int(v), unit="ns")
    text = ts.strftime("%Y-%m-%d") if ts == ts.normalize() else str(ts)
    return text + " UTC" if kind == "datetime-tz" else text


def digits_to_distinguish(values, data) -> int:
    """The fewest significant digits (at least 4) under which the thresholds of one column print differently and
    each printed number splits the column's training values as the threshold itself does (``<`` and ``<=``); 17
    digits print any double exactly."""
    values = [float(v) for v in values]
    data = np.unique(np.asarray(data, dtype=np.float64))
    for d in range(4, 17):
        printed = [fmt(v, d) for v in values]
        if len(set(printed)) == len(values) and all(
                np.array_equal(data < v, data < float(p)) and np.array_equal(data <= v, data <= float(p))
                for v, p in zip(values, printed)):
            return d
    return 17


def shortest_decimal(lo: float, hi: float) -> float:
    """The number of fewest significant digits in ``(lo, hi]`` (``hi`` itself if it is one of them, else the one
    nearest the middle, halves to even), so that ``x < result`` splits any values outside the interval as ``x < hi``
    does.  Exact: ``lo`` and ``hi`` are taken as the fractions ``A / D`` and ``B / D`` they are (``D`` a power of
    two) and every step is integer arithmetic (a fourth of the time ``decimal`` at 800 digits took)."""
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return hi
    (na, da), (nb, db) = lo.as_integer_ratio(), hi.as_integer_ratio()
    D = max(da, db)
    A, B = na * (D // da), nb * (D // db)
    top = max(abs(A), abs(B))
    if top == 0:
        return hi
    e = _decimal_exponent(top, D, max(abs(lo), abs(hi))) + 1
    for q in range(e, e - 20, -1):  # steps 10^q, coarsest first
        num, den = (1, 10 ** q) if q >= 0 else (10 ** -q, 1)  # x / 10^q = x * num / den
        s = D * den
        first, last = (A * num) // s + 1, (B * num) // s
        if first > last:
            continue
        k = last if last * s == B * num else min(max(_half_even((A + B) * num, 2 * s), first), last)
        c = k * den / num  # correctly rounded
        if lo < c <= hi:
            return c
    return hi


def _decimal_exponent(top: int, D: int, near: float) -> int:
    """``floor(log10(top / D))`` exactly (``near``: ``top / D`` as a float, for the first guess)."""
    k = math.floor(math.log10(near))
    while _at_least(top, D, k + 1):
        k += 1
    while not _at_least(top, D, k):
        k -= 1
    return k


def _at_least(top: int, D: int, k: int) -> bool:
    """Whether ``top / D >= 10^k``."""
    return top >= D * 10 ** k if k >= 0 else top * 10 ** -k >= D


def _half_even(n: int, m: int) -> int:
    """``n / m`` (``m > 0``) rounded to the nearest integer, halves to even."""
    q, r = divmod(n, m)
    return q + 1 if 2 * r > m or (2 * r == m and q % 2) else q


def readable_time(lo: int, hi: int, closed_left: bool) -> int:
    """The roundest time (whole days, then hours, minutes, ... nanoseconds) in ``(lo, hi]``, or in ``[lo, hi)`` with
    ``closed_left``: the interval's own end if it is among those, else the one nearest the middle; times are
    integer nanoseconds."""
    lo, hi = int(lo), int(hi)
    mid = lo + (hi - lo) // 2
    for step in _TIME_STEPS:
        first, last = (-(-lo // step), (hi - 1) // step) if closed_left else (lo // step + 1, hi // step)
        if first <= last:
            own = first if closed_left else last  # the end of the interval that is in it, if round enough
            if own * step == (lo if closed_left else hi):
                return own * step
            return min(max((mid + step // 2) // step, first), last) * step
    return hi


def quantile_thresholds(x: np.ndarray, n: int) -> np.ndarray:
    """``n`` quantile thresholds of ``x`` (``x < t`` features), duplicates dropped, none at the minimum.  Each is a
    training value ``t`` moved down to the shortest decimal above the next smaller training value, which splits the
    training rows alike (``-0.4577`` rather than ``-0.45772582566733916``); in a time column (integer nanoseconds),
    the roundest time there (``2020-01-03`` rather than ``2020-01-02 17:33:04``)."""
    values = np.unique(x)
    t = np.unique(np.quantile(x, np.arange(1, n + 1) / (n + 1), method="higher"))
    t = t[t > values[0]]  # "col < min" would be empty
    if t.size == 0 and values.size > 1:
        t = values[1:2]
    below = values[np.searchsorted(values, t) - 1]
    if x.dtype.kind == "i":  # times in nanoseconds
        return np.asarray([readable_time(a, b, closed_left=False) for a, b in zip(below, t)], dtype=np.int64)
    return np.asarray([shortest_decimal(float(a), float(b)) for a, b in zip(below, t)], dtype=np.float64)


def ensemble_split_gains(X: np.ndarray, y, n_estimators: int = 40, max_depth: int = 1, random_state=0,
                         learning_rate: float = 0.1) -> dict[tuple[int, float], float]:
    """``{(column, threshold): importance}`` of every split ``x_column <= threshold`` of a gradient-boosted ensemble.

    A scikit-learn ``GradientBoostingClassifier(n_estimators, max_depth, learning_rate)`` is fitted to ``(X, y)``.
    A threshold's importance is the impurity decrease of the splits that use it, each weighted by its node's
    training weight, summed over the ensemble: the quantity scikit-learn's ``feature_importances_`` sums per column.
    """
    from sklearn.ensemble import GradientBoostingClassifier

    gb = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=max_depth, learning_rate=learning_rate,
                                    random_state=random_state).fit(X, y)
    gain: dict[tuple[int, float], float] = {}
    for tree in np.asarray(gb.estimators_).ravel():
        t = tree.tree_
        w, imp = t.weighted_n_node_samples, t.impurity
        for node in np.flatnonzero(t.children_left >= 0):
            left, right = t.children_left[node], t.children_right[node]
            g = w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]
            key = (int(t.feature[node]), float(t.threshold[node]))
            gain[key] = gain.get(key, 0.0) + max(float(g), 0.0)
    return gain


def top_thresholds(gains: dict[tuple[int, float], float], columns=None,
                   max_thresholds: int | None = None) -> dict[int, np.ndarray]:
    """``{column: sorted thresholds}`` from :func:`ensemble_split_gains`, restricted to ``columns`` (all if None),
    keeping the ``max_thresholds`` most important (ties: column, then threshold order) when it is given."""
    keys = sorted((k for k in gains if columns is None or k[0] in columns), key=lambda k: (-gains[k], k))
    if max_thresholds is not None:
        keys = keys[:max_thresholds]
    out: dict[int, list[float]] = {}
    for j, thr in keys:
        out.setdefault(j, []).append(thr)
    return {j: np.unique(np.asarray(v, dtype=np.float64)) for j, v in sorted(out.items())}


def needs_ranks(x: np.ndarray) -> bool:
    """Whether scikit-learn's trees, which read float32, would lose the order of ``x``: values beyond float32's range
    (``1e300``), distinct values equal in float32, or times (integer nanoseconds)."""
    if x.dtype.kind != "f":
        return True
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    return not np.all(np.isfinite(x32)) or np.unique(x32).size != np.unique(x).size


def ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct values, rank of each value as float64)``: ranks keep the order of any values in float32, and
    trees split on them as on the values themselves."""
    values, inverse = np.unique(x, return_inverse=True)
    return values, inverse.astype(np.float64)


def merge_rank_splits(gains: dict[tuple[int, float], float], rank_columns: set) -> dict[tuple[int, float], float]:
    """The gains of :func:`ensemble_split_gains` with the splits of ``rank_columns`` that divide the ranks alike
    (``rank <= 8`` and ``rank <= 8.5``, from nodes holding different ranks) as one split ``floor(t) + 0.5``."""
    out: dict[tuple[int, float], float] = {}
    for (j, t), g in gains.items():
        key = (j, float(np.floor(t)) + 0.5) if j in rank_columns else (j, t)
        out[key] = out.get(key, 0.0) + g
    return out


def split_from_rank(values: np.ndarray, t: float, time_kind: str | None):
    """The threshold ``x <= result`` that splits ``values`` as the ensemble's rank threshold ``t``: the midpoint of
    the two neighbouring values (the lower one when they are adjacent doubles), or a round time between them."""
    r = int(np.floor(t))
    lo, hi = values[r], values[r + 1]
    if time_kind is not None:
        return readable_time(int(lo), int(hi), closed_left=True)
    mid = float(lo) / 2 + float(hi) / 2
    return mid if lo <= mid < hi else float(lo)


def unique_names(names: list[str], keep_first: list[bool]) -> list[str]:
    """Unique output names: those marked ``keep_first`` claim their name first, then the others in output order; a
    name already claimed gets the first suffix ``_2``, ``_3``, ... used by no other output, original or renamed."""
    taken = set(names)
    claimed: set[str] = set()
    out = list(names)
    order = [k for k in range(len(names)) if keep_first[k]] + [k for k in range(len(names)) if not keep_first[k]]
    for k in order:
        name = names[k]
        if name in claimed:
            i = 2
            while f"{name}_{i}" in taken:
                i += 1
            name = f"{name}_{i}"
            taken.add(name)
        claimed.add(name)
        out[k] = name
    return out
