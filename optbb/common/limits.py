"""Resource limits (time, nodes, memory) and the budget a chunked search checks between chunks."""
from __future__ import annotations

import math
import numbers
import os
import re
import signal
import threading
import time
from dataclasses import dataclass

import numpy as np

from .result import Status

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40}


MAX_NODES = 1 << 62  # node limits above this are clamped: every node counter is an int64


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (``os.sysconf``), or None where the system does not say."""
    try:
        pages, page = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * page if pages > 0 and page > 0 else None


AUTO_FALLBACK = 4 << 30  # the "auto" memory limit where the physical memory is unknown


def auto_memory_limit() -> int:
    """``memory_limit="auto"``: half of the physical memory, or :data:`AUTO_FALLBACK` when it is unknown."""
    total = physical_memory()
    return total // 2 if total else AUTO_FALLBACK


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def parse_memory(value, name: str = "memory_limit") -> int | None:
    """Bytes from a positive number, a string such as ``"512M"`` or ``"2GB"``, or ``"auto"`` (half of the physical
    memory, :func:`auto_memory_limit`); None stays None (no cap).  Anything else is a ValueError naming ``name``."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() == "auto":
            return auto_memory_limit()
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if not m or m.group(2).lower() not in _UNITS:
            raise ValueError(f"{name} {value!r} is not a size such as 512M or 2G, 'auto' or None")
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    elif not _is_number(value):
        raise ValueError(f"{name} must be a number of bytes, a size such as '512M', 'auto' or None, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 1:
        raise ValueError(f"{name} must be a positive number of bytes, got {value!r}")
    return int(v)


def check_time_limit(value, name: str = "time_limit") -> float | None:
    """Seconds: a positive finite number or None; booleans and strings are refused with a ValueError."""
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a positive number of seconds or None, got {value!r}")
    return float(value)


def check_node_limit(value, name: str = "node_limit") -> int | None:
    """A positive integer or None (booleans, strings and fractions refused); values above :data:`MAX_NODES` are
    clamped to it."""
    if value is None:
        return None
    ok = _is_number(value) and (isinstance(value, numbers.Integral)
                                or (math.isfinite(float(value)) and float(value).is_integer()))
    if not ok or value < 1:
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return min(int(value), MAX_NODES)


@dataclass
class Limits:
    """User limits: ``time_limit`` in seconds, ``node_limit`` in nodes (solver-defined unit, e.g. prefixes
    evaluated), ``memory_limit`` in bytes of accounted search structures (a number, a size such as ``"512M"``,
    ``"auto"`` for half of the physical memory, or None for no cap)."""

    time_limit: float | None = None
    node_limit: int | None = None
    memory_limit: int | None = None

    def __post_init__(self) -> None:
        self.time_limit = check_time_limit(self.time_limit)
        self.node_limit = check_node_limit(self.node_limit)
        self.memory_limit = parse_memory(self.memory_limit)

    def over_memory(self, memory: int) -> bool:
        """Whether ``memory`` accounted bytes exceed the cap."""
        return self.memory_limit is not None and memory > self.memory_limit

    def left(self, elapsed: float, nodes_spent: int = 0, memory_spent: int = 0) -> tuple[Limits | None, Status | None]:
        """The limits left for the next phase of a call after the earlier ones ran ``elapsed`` seconds, spent
        ``nodes_spent`` nodes and hold ``memory_spent`` bytes: ``(limits, None)``, or ``(None, status)`` when a limit
        is used up (TIME_LIMIT, NODE_LIMIT or MEMORY_LIMIT, checked in that order)."""
        spent = ((self.time_limit, elapsed, Status.TIME_LIMIT), (self.node_limit, nodes_spent, Status.NODE_LIMIT),
                 (self.memory_limit, memory_spent, Status.MEMORY_LIMIT))
        rest = [None if limit is None else limit - used for limit, used, _ in spent]
        for value, (_, _, status) in zip(rest, spent):
            if value is not None and value <= 0:
                return None, status
        return Limits(*rest), None

    def share(self, fraction: float) -> "Limits":
        """These limits with ``fraction`` of the time and of the nodes (the memory limit as it is): what one phase
        of a call may spend when the others must keep the rest."""
        return Limits(None if self.time_limit is None else self.time_limit * fraction,
                      None if self.node_limit is None else max(1, int(self.node_limit * fraction)), self.memory_limit)


class Budget:
    """Clock and limits of one search, kept by the search driver (:mod:`optbb.common.driver`).  ``started``: the
    ``time.perf_counter()`` at which the clock started (default: now), e.g. when the caller's ``solve`` or ``fit``
    was called, so that its preparation counts toward the time limit; ``off_clock`` seconds spent since then that
    the clock does not count (compiling or loading kernels) move that start later."""

    def __init__(self, limits: Limits, started: float | None = None, off_clock: float = 0.0):
        self.limits = limits
        self.start = time.perf_counter() if started is None else float(started) + off_clock

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining_time(self) -> float:
        if self.limits.time_limit is None:
            return math.inf
        return self.limits.time_limit - self.elapsed()

    def must_stop(self, guard: "InterruptGuard") -> bool:
        """Whether a long step between chunks (an array growth) should be abandoned: the time limit is reached or
        Ctrl-C was pressed."""
        return self.stop_status(guard) is not None

    def stop_status(self, guard: "InterruptGuard", memory: int | None = None,
                    reserve: float = 0.0) -> Status | None:
        """INTERRUPTED after a Ctrl-C, TIME_LIMIT once the time is up (or only ``reserve`` seconds are left: what
        the search needs to build its answer after it stops), MEMORY_LIMIT when ``memory`` (accounted bytes, if
        given) exceeds the cap, else None: the checks between two chunks of a search."""
        if guard.interrupted:
            return Status.INTERRUPTED
        if self.remaining_time() <= reserve:
            return Status.TIME_LIMIT
        return Status.MEMORY_LIMIT if memory is not None and self.limits.over_memory(memory) else None


class InterruptGuard:
    """Context manager turning the first Ctrl-C (SIGINT) or SIGTERM into a flag the search checks between chunks (so
    it can return the best model so far with status INTERRUPTED); a second signal raises ``KeyboardInterrupt`` at
    once.  ``InterruptGuard.last_signal`` keeps the number of the last signal caught (the CLI's exit code tells
    SIGINT, 130, from SIGTERM, 143)."""

    last_signal: int | None = None

    def __init__(self) -> None:
        self.interrupted = False
        self._previous: dict = {}

    def _handler(self, signum, frame):
        InterruptGuard.last_signal = signum
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True

    def __enter__(self) -> "InterruptGuard":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> bool:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()
        return False


def forget_caught_interrupts() -> None:
    """CPython run as ``python -m`` kills itself with SIGINT at exit (code -2, not ours) when a KeyboardInterrupt
    once left code that ``exec`` or ``eval`` ran from a string, as dataclasses and namedtuples being made do, even if
    a caller caught it and went on.  The next such ``exec`` that ends normally clears that mark."""
    exec("pass")
