"""HiGHS and the process it runs in: a forked child whose address space is capped, for BinOCT's solve under
``memory_limit`` (Linux), and an instance made without HiGHS's banner on the standard output.

HiGHS has no memory cap of its own, and a watch on the process's resident memory can only act where HiGHS calls back
(between branch-and-bound nodes, not during presolve or the root node's cuts, which take seconds and hundreds of
MiB).  A child whose ``RLIMIT_AS`` is its size at the fork plus the cap cannot outgrow the cap: an allocation past it
fails (HiGHS catches its ``std::bad_alloc`` and stops; elsewhere a MemoryError, or the abort of an uncaught
``std::bad_alloc``).  The child sends its progress (each improving solution) through a pipe, so the parent keeps the
last one when the child dies, runs out of time or is interrupted.
"""
from __future__ import annotations

import math
import os
import pickle
import select
import signal
import struct
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Callable

try:
    import resource
except ImportError:  # not a Unix
    resource = None

Send = Callable[[dict], None]
_HEADER = struct.Struct("<Q")  # the length of each pickled message
_PR_SET_PDEATHSIG = 1  # prctl option
_M_ARENA_MAX = -8  # mallopt parameter (glibc)


class ChildFailed(RuntimeError):
    """The child raised an exception other than MemoryError: a fault of the work, not of the cap."""


@dataclass
class ChildOutcome:
    """What the parent learnt.  ``report``: every update the child sent merged in order (its returned report last
    when it ended normally).  ``ending``: ``"done"`` (the work returned), ``"memory"`` (a MemoryError, or death
    without a report: a signal such as the abort of a failed C++ allocation), ``"deadline"`` (killed at the hard
    deadline) or ``"interrupted"`` (Ctrl-C in the parent; the child was killed).  ``peak_rss_growth``: the child's
    peak resident memory (``wait4``'s ``ru_maxrss``) minus its resident memory when it started (bytes)."""

    report: dict
    ending: str
    peak_rss_growth: int


def status_bytes(key: str) -> int | None:
    """A size from ``/proc/self/status`` (``"VmSize:"``, ``"VmRSS:"``, ...) in bytes; None without ``/proc``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def quiet_highs(highspy, verbose: int):
    """A ``highspy.Highs`` instance.  The first one of a process prints HiGHS's banner on the C level standard output,
    before any option can be set: at ``verbose=0`` that descriptor points to the null device meanwhile."""
    if verbose:
        return highspy.Highs()
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def capped_child_available() -> bool:
    """True where a child's address space can be capped and measured: ``fork``, ``resource`` and ``/proc``."""
    return hasattr(os, "fork") and resource is not None and status_bytes("VmSize:") is not None


def run_capped(work: Callable[[Send], dict], memory_limit: int, hard_deadline: float | None = None) -> ChildOutcome:
    """Run ``work(send)`` in a forked child whose address space may grow by ``memory_limit`` bytes.  ``send(dict)``
    passes an update to the parent; the dict ``work`` returns is the last one.  ``hard_deadline`` (a
    ``time.perf_counter()`` value) is when the parent kills a child that has not ended.  A child that raises anything
    but MemoryError makes this raise :class:`ChildFailed` with its traceback."""
    reader, writer = os.pipe()
    parent = os.getpid()
    _flush_output()  # else the child would print the parent's buffered output a second time
    with warnings.catch_warnings():  # Python 3.12+ warns about forking with threads (HiGHS's, BLAS's) alive
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        os.close(reader)
        _child_main(work, writer, memory_limit, parent)
    os.close(writer)
    try:
        report, ending, failure, rss_start = _collect(reader, hard_deadline)
    except BaseException:  # whatever escapes (a Ctrl-C before the reading began) leaves no child behind
        _reap(pid, kill=True, ending="interrupted")
        raise
    finally:
        os.close(reader)
    usage, ending = _reap(pid, kill=ending in ("deadline", "interrupted"), ending=ending)
    if failure is not None:
        raise ChildFailed(f"BinOCT's HiGHS child process failed:\n{failure}")
    return ChildOutcome(report, ending, usage.ru_maxrss * 1024 - rss_start)


def _child_main(work: Callable[[Send], dict], fd: int, memory_limit: int, parent: int) -> None:
    """The child's whole life: it never returns into the caller's stack (a test runner's, an application's)."""
    code = 1
    try:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent acts
            _die_with(parent)
            _cap_address_space(memory_limit)
            # the child's own resident size: at the fork it holds the parent's anonymous pages, not its file pages
            _write_message(fd, ("start", status_bytes("VmRSS:") or 0))
            report = work(lambda update: _write_message(fd, ("update", update)))
            _write_message(fd, ("done", report))
            code = 0
        except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent, nothing escapes
            kind = "memory" if isinstance(exc, MemoryError) else "error"
            try:
                _write_message(fd, (kind, "".join(traceback.format_exception(exc))[-4000:]))
            except BaseException:  # noqa: BLE001 - no memory left, or the parent is gone
                pass
        _flush_output()
    finally:
        os._exit(code)


def _die_with(parent: int) -> None:
    """The kernel kills this child when its parent dies (Linux's ``PR_SET_PDEATHSIG``), so a killed parent leaves
    no solver running."""
    if _libc_call("prctl", _PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) and os.getppid() != parent:
        os._exit(1)  # the parent died before the request


def _cap_address_space(memory_limit: int) -> None:
    """``RLIMIT_AS`` (soft and hard) at the current virtual size plus ``memory_limit`` (within an existing hard
    limit), and no core file when an allocation failure aborts the child.  The C library's allocator gets one arena:
    each further thread's would reserve 64-128 MiB of address space (a multi-threaded HiGHS under a 100M cap ran
    four times slower, its threads failing to reserve arenas)."""
    _libc_call("mallopt", _M_ARENA_MAX, 1)
    limit = status_bytes("VmSize:") + int(memory_limit)
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _collect(fd: int, hard_deadline: float | None) -> tuple[dict, str, str | None, int]:
    """Read the child's messages until its report, its failure, the end of the pipe, the hard deadline or Ctrl-C:
    the merged report, the ending, the traceback of a failure other than MemoryError, and the child's resident
    bytes when it started."""
    report: dict = {}
    rss_start = 0
    ready = select.poll()  # not select.select, which takes no descriptor above 1023
    ready.register(fd, select.POLLIN)
    try:
        while True:
            wait = None if hard_deadline is None else hard_deadline - time.perf_counter()
            if wait is not None and (wait <= 0 or not ready.poll(math.ceil(1000 * wait))):
                return report, "deadline", None, rss_start
            message = _read_message(fd)
            if message is None:  # the child died without a word: killed by a signal (an aborted allocation)
                return report, "memory", None, rss_start
            kind, body = message
            if kind == "start":
                rss_start = body
            elif kind in ("update", "done"):
                report.update(body)
                if kind == "done":
                    return report, "done", None, rss_start
            else:  # "memory" (a MemoryError) or "error" (any other exception) with the child's traceback
                return report, kind, body if kind == "error" else None, rss_start
    except KeyboardInterrupt:
        return report, "interrupted", None, rss_start


def _reap(pid: int, kill: bool, ending: str) -> tuple[object, str]:
    """Wait for the child (killing it first when asked, or on Ctrl-C meanwhile): its resource usage and the ending."""
    while True:
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            return os.wait4(pid, 0)[2], ending
        except KeyboardInterrupt:
            kill, ending = True, "interrupted"


def _write_message(fd: int, message: tuple) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_message(fd: int) -> tuple | None:
    """The next message, or None at the end of the pipe (a message cut short counts as its end)."""
    head = _read_exactly(fd, _HEADER.size)
    body = None if head is None else _read_exactly(fd, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _flush_output() -> None:
    """Python's and the C library's buffered standard output and error (HiGHS logs through the C library)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    _libc_call("fflush", None)


def _libc_call(name: str, *args) -> bool:
    """Call a C library function (``prctl``, ``mallopt``, ``fflush``) where it exists; False where it does not."""
    try:
        import ctypes

        getattr(ctypes.CDLL(None), name)(*args)
    except (OSError, AttributeError):
        return False
    return True
