"""Growth of search arrays between chunks, in slices that can be abandoned at a time limit or a Ctrl-C.

A search kernel that runs out of room returns to Python without committing partial state, so a growth abandoned
half-way leaves the old arrays a consistent search, and the driver stops with TIME_LIMIT or INTERRUPTED.  Copying
in slices of about :data:`SLICE_BYTES` bounds how late a limit or a Ctrl-C is noticed by one slice, whatever the
size of the arrays; the time of a large copy cannot be predicted (first-touch page faults and huge-page compaction
vary it twenty-fold from one run to the next), so it is checked rather than estimated.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

SLICE_BYTES = 8 << 20

Stop = Callable[[], bool] | None


class GrowthStopped(Exception):
    """A growth was abandoned because its ``stop`` callable turned true; the arrays it was building are dropped."""


def slices(n_rows: int, row_bytes: int, stop: Stop = None) -> Iterator[tuple[int, int]]:
    """``(start, end)`` row ranges of about :data:`SLICE_BYTES` covering ``n_rows`` rows; raises
    :class:`GrowthStopped` before a slice once ``stop()`` is true."""
    step = max(1, SLICE_BYTES // max(1, row_bytes))
    for start in range(0, n_rows, step):
        if stop is not None and stop():
            raise GrowthStopped
        yield start, min(n_rows, start + step)


def grow(arr: np.ndarray, new_len: int, stop: Stop = None) -> np.ndarray:
    """Copy of a 1-D or 2-D array with its first axis extended to ``new_len`` (new entries zeroed), copied slice
    by slice; raises :class:`GrowthStopped` (``arr`` untouched) once ``stop()`` is true."""
    out = np.zeros((new_len,) + arr.shape[1:], dtype=arr.dtype)
    for start, end in slices(arr.shape[0], row_bytes(arr), stop):
        out[start:end] = arr[start:end]
    return out


def growth_peak(current: int, steps: Iterable[tuple[int, int]]) -> int:
    """Most bytes alive while ``steps`` run one after another from ``current`` bytes, each ``(old, new)`` replacing
    arrays of ``old`` bytes by a copy of ``new`` bytes: while a step copies, its old and new arrays are both alive,
    so the peak exceeds the final size by the old size of the step that peaks.  Steps run largest first keep the
    peak lowest."""
    alive = peak = int(current)
    for old, new in steps:
        peak = max(peak, alive + int(new))
        alive += int(new) - int(old)
    return peak


def grow_parts(current: int, factors: Iterable[float], steps_of, cap_bytes: int | None, must_stop) -> bool:
    """Enlarge a search's parts by the first of ``factors`` whose copies fit under ``cap_bytes`` (the peak of
    :func:`growth_peak` from ``current`` bytes, largest step first); ``steps_of(factor)`` gives the steps as
    ``(old bytes, new bytes, apply)`` with ``apply(must_stop)`` doing the copy.  False (nothing changed) when even
    the last factor does not fit: creeping up to the cap in small steps would copy everything for little room."""
    for factor in factors:
        steps = sorted(steps_of(factor), key=lambda step: -step[0])
        if cap_bytes is None or growth_peak(current, [step[:2] for step in steps]) <= cap_bytes:
            break
    else:
        return False
    for _, _, apply in steps:
        apply(must_stop)
    return True


def row_bytes(arr: np.ndarray) -> int:
    """Bytes of one entry along the first axis (one row of a 2-D array), from the array's own item size."""
    return int(arr.itemsize * (arr.size // arr.shape[0] if arr.shape[0] else int(np.prod(arr.shape[1:]))))


def arrays_bytes(arrays: Iterable[np.ndarray]) -> int:
    """Total ``nbytes`` of a group of arrays (a named tuple of search arrays)."""
    return int(sum(a.nbytes for a in arrays))
