"""Resource limits (time, nodes, memory) and the budget a chunked search checks between chunks."""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from .result import Status

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40}


def parse_memory(value) -> int | None:
    """Bytes from an int or a string such as ``"512M"`` or ``"2GB"``; None stays None."""
    if value is None:
        return None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if not m or m.group(2).lower() not in _UNITS:
            raise ValueError(f"memory_limit {value!r} is not a size such as 512M or 2G")
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"memory_limit must be a positive number of bytes, got {value!r}")
    return int(value)


def _positive_or_none(name: str, value, integer: bool = False):
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number or None, got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive number or None, got {value!r}")
    return int(v) if integer else v


@dataclass
class Limits:
    """User limits: ``time_limit`` in seconds, ``node_limit`` in nodes (solver-defined unit, e.g. prefixes
    evaluated), ``memory_limit`` in bytes of accounted search structures."""

    time_limit: float | None = None
    node_limit: int | None = None
    memory_limit: int | None = None

    def __post_init__(self) -> None:
        self.time_limit = _positive_or_none("time_limit", self.time_limit)
        self.node_limit = _positive_or_none("node_limit", self.node_limit, integer=True)
        self.memory_limit = parse_memory(self.memory_limit)


class Budget:
    """Clock and limits of one search; solvers ask it how much they may do in the next chunk."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining_time(self) -> float:
        if self.limits.time_limit is None:
            return math.inf
        return self.limits.time_limit - self.elapsed()

    def remaining_nodes(self, used: int) -> int:
        if self.limits.node_limit is None:
            return 1 << 62
        return max(0, self.limits.node_limit - used)

    def exceeded(self, nodes_used: int, memory_used: int) -> Status | None:
        """The limit that is exhausted, or None."""
        if self.limits.time_limit is not None and self.elapsed() >= self.limits.time_limit:
            return Status.TIME_LIMIT
        if self.limits.node_limit is not None and nodes_used >= self.limits.node_limit:
            return Status.NODE_LIMIT
        if self.limits.memory_limit is not None and memory_used > self.limits.memory_limit:
            return Status.MEMORY_LIMIT
        return None

    def must_stop(self, guard: "InterruptGuard") -> bool:
        """Whether a long step between chunks (an array growth) should be abandoned: the time limit is reached or
        Ctrl-C was pressed."""
        return guard.interrupted or self.remaining_time() <= 0


class InterruptGuard:
    """Context manager turning the first Ctrl-C into a flag the search checks between chunks (so it can return the
    best model so far with status INTERRUPTED); a second Ctrl-C raises ``KeyboardInterrupt`` at once."""

    def __init__(self) -> None:
        self.interrupted = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True

    def __enter__(self) -> "InterruptGuard":
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc) -> bool:
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False
