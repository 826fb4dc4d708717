"""Reading the Binarizer's input columns: numbers, times (as integer nanoseconds), categories compared by value,
and the columns that the ``thresholds`` and ``categorical`` parameters name."""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

TIME_UNIT = "ns"


def time_kind(col: pd.Series) -> str | None:
    """``"datetime"``, ``"datetime-tz"`` (timezone-aware), ``"timedelta"``, or None for a column of other values."""
    if isinstance(col.dtype, pd.DatetimeTZDtype):
        return "datetime-tz"
    if pd.api.types.is_datetime64_dtype(col.dtype):
        return "datetime"
    if pd.api.types.is_timedelta64_dtype(col.dtype):
        return "timedelta"
    if col.dtype == object:
        inferred = pd.api.types.infer_dtype(col, skipna=True)
        if inferred in ("datetime64", "datetime"):
            return "datetime-tz" if any(getattr(v, "tzinfo", None) is not None for v in col) else "datetime"
        if inferred in ("timedelta64", "timedelta"):
            return "timedelta"
    return None


def time_values(col: pd.Series, name: str, kind: str) -> np.ndarray:
    """A time column as int64 nanoseconds (datetimes since 1970-01-01, timezone-aware ones in UTC), whatever the
    column's own unit (us, ns, ...) and timezone."""
    if col.isna().any():
        raise ValueError(f"Input X contains NaN or NaT (column {name!r})")
    try:
        if kind == "timedelta":
            col = pd.to_timedelta(col).astype(f"timedelta64[{TIME_UNIT}]")
        else:
            col = pd.to_datetime(col, utc=kind == "datetime-tz")
            if kind == "datetime-tz":
                col = col.dt.tz_convert("UTC").dt.tz_localize(None)
            col = col.astype(f"datetime64[{TIME_UNIT}]")
    except (ValueError, TypeError, OverflowError) as exc:  # OutOfBoundsDatetime is a ValueError
        raise ValueError(f"column {name!r}: its times cannot be read as nanoseconds (datetimes must lie between "
                         f"the years 1677 and 2262): {exc}") from None
    return col.to_numpy().astype(np.int64)


def numeric_values(col: pd.Series, name: str) -> np.ndarray:
    """A numeric column as float64; text, complex numbers and missing values are ValueErrors naming the column."""
    try:
        x = pd.to_numeric(col, errors="raise").to_numpy()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"column {name!r} is not numeric ({exc}); mark it categorical when fitting") from None
    if x.dtype.kind == "c" or (x.dtype == object and any(isinstance(v, complex) for v in x)):
        raise ValueError(f"column {name!r} holds complex numbers, which have no order to cut at a threshold; give "
                         "their real and imaginary parts (or modulus and angle) as two columns")
    x = x.astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"Input X contains NaN or infinity (column {name!r})")
    return x


def category_key(v, name: str):
    """The value a category is compared by: ``1``, ``1.0`` and ``np.int64(1)`` are one category, ``"1"`` and
    ``True`` two others; the key sorts numbers first, then booleans, then text."""
    if isinstance(v, (bool, np.bool_)):
        return (1, bool(v))
    if isinstance(v, str):
        return (2, v)
    if isinstance(v, numbers.Real):
        if isinstance(v, numbers.Integral):
            return (0, int(v))
        f = float(v)
        return (0, int(f) if f.is_integer() else f)
    raise TypeError(f"column {name!r}: a category argument must be a string, a boolean or a real number, got "
                    f"{type(v).__name__} {v!r}")


def category_name(key) -> str:
    return str(key[1]) if key[0] != 0 or isinstance(key[1], int) else repr(key[1])


def category_keys(col: pd.Series, name: str) -> tuple[np.ndarray, list]:
    """``(codes, keys)``: each row's index into ``keys``, the distinct :func:`category_key` of the column in order of
    first appearance.  A missing value is a ValueError naming the column."""
    if col.isna().any():
        raise ValueError(f"column {name!r} has missing values; fill them (e.g. with 'missing') first")
    if col.dtype == object:  # pandas would merge True with 1: key every value
        row_keys = [category_key(v, name) for v in col]
        index: dict = {}
        codes = np.fromiter((index.setdefault(k, len(index)) for k in row_keys), dtype=np.int64, count=len(row_keys))
        return codes, list(index)
    codes, uniques = pd.factorize(col)
    keys = [category_key(v, name) for v in uniques]
    first = {}
    for k in keys:
        first.setdefault(k, len(first))
    return np.asarray([first[k] for k in keys], dtype=np.int64)[codes], list(first)


def _same_label(label, key) -> bool:
    if isinstance(label, (bool, np.bool_)) or isinstance(label, str) != isinstance(key, str):
        return False
    try:
        return bool(label == key)
    except (TypeError, ValueError):
        return False


def resolve_columns(param: str, keys, labels: list | None, n_columns: int) -> list[int]:
    """The positions of the columns that ``keys`` (of the parameter ``param``) name.  A DataFrame's columns are named
    by their labels only (an integer label ``0`` is the column labelled 0, wherever it stands); an array's (no
    labels) by position only.  A boolean is never a column (TypeError); a key naming no column is a ValueError."""
    out, unknown = [], []
    for k in keys:
        if isinstance(k, (bool, np.bool_)):
            raise TypeError(f"{param} names column {k!r}: a boolean is neither a column label nor a position")
        if labels is not None:
            found = [j for j, label in enumerate(labels) if _same_label(label, k)]
            (out if found else unknown).append(found[0] if found else k)
        elif isinstance(k, numbers.Integral) and 0 <= k < n_columns:
            out.append(int(k))
        else:
            unknown.append(k)
    if unknown:
        hint = (f" (X is an array without column labels: name columns by position, 0 to {n_columns - 1})"
                if labels is None else " (X is a DataFrame: columns are named by their labels, not positions)"
                if any(isinstance(k, numbers.Integral) for k in unknown) else "")
        raise ValueError(f"{param} names columns that X does not have: {unknown[:5]}{hint}")
    return out
