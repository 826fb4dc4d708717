"""Worker processes for the benchmark scripts that time each (solver, case) in a fresh subprocess.

A script that uses this module runs itself as ``SCRIPT --worker SOLVER CASE --repeats R --timeout T`` for each
cell of its table (:func:`measure`).  The worker times its fits (:func:`timed_runs`) and prints one line per fit: a
marker of the script (e.g. ``"RASHOMON-RESULT "``) followed by a JSON object with at least ``seconds`` and
``status``; any other line on its standard output (TreeFARMS prints trees from C) is passed over.  The parent runs
the worker in its own process group and kills the group after a hard timeout, or when the parent itself is
interrupted, so that a hanging solver only blanks its cell (:func:`run_worker`).

Also here: the common command line of such a script (:func:`parser`, :func:`command_line`), the loop over the
cells with a progress line each (:func:`measure_all`), the first line of a results table (:func:`provenance`) and
the writing of its Markdown and CSV (:func:`write_results`).

This module is pure Python and imports nothing from optbb.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import fnmatch
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from anchors import git_commit

# --------------------------------------------------------------------------------------------- worker side


def emit(mark: str, row: dict) -> None:
    """Print one result line of a worker: ``mark`` and the JSON of ``row``."""
    print(mark + json.dumps(row), flush=True)


def timed_runs(repeats: int, fit: Callable[[], object], row: Callable[[object, float], dict], *, mark: str,
               until: Callable[[object], bool] | None = None) -> None:
    """Time ``repeats`` calls of ``fit()`` (``time.perf_counter`` around the call); after each, :func:`emit` the row
    ``row(out, seconds)`` of what it returned.  Stops after the first call whose ``out`` makes ``until(out)`` true."""
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fit()
        seconds = time.perf_counter() - t0
        emit(mark, row(out, seconds))
        if until is not None and until(out):
            break


# --------------------------------------------------------------------------------------------- parent side


@dataclass
class Finished:
    """How a worker ended: its exit code, its standard output and error, and whether the parent killed it."""

    returncode: int
    stdout: str
    stderr: str
    killed: bool

    def last_error_line(self) -> str:
        """The last line of the standard error, or ``"no output"``."""
        return (self.stderr.strip().splitlines() or ["no output"])[-1]


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_worker(cmd: list[str], hard_timeout: float | None, **popen) -> Finished:
    """Run ``cmd`` in a new process group and wait for it; kill the group after ``hard_timeout`` seconds, or when
    this process is interrupted (then the exception goes on).  ``popen``: more keywords of ``subprocess.Popen``
    (``cwd``, ``env``)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            **popen)
    killed = False
    try:
        stdout, stderr = proc.communicate(timeout=hard_timeout)
    except subprocess.TimeoutExpired:
        killed = True
        _kill_group(proc)
        stdout, stderr = proc.communicate()
    except BaseException:  # Ctrl-C: the worker, in its own session, did not get it
        _kill_group(proc)
        proc.wait()
        raise
    return Finished(proc.returncode, stdout, stderr, killed)


def result_rows(stdout: str, mark: str) -> list[dict]:
    """The JSON objects of the lines of ``stdout`` that start with ``mark``, in order."""
    return [json.loads(line[len(mark):]) for line in stdout.splitlines() if line.startswith(mark)]


def measure(script: str | Path, solver: str, case: str, repeats: int, timeout: float, *, mark: str,
            hard_timeout: float, summary: Callable[[list[dict]], dict], say_why: bool = False) -> dict:
    """Run ``script --worker solver case --repeats R --timeout T`` (:func:`run_worker`) and summarise its rows.

    Returns ``solver``, ``case``, ``status`` and ``times`` (the ``seconds`` of each row); where the worker printed
    rows, also their ``median`` and what ``summary(rows)`` returns, and the status is the last row's.  Without rows
    the status is ``"killed"`` (after ``hard_timeout`` seconds) or ``"failed"``, with the last line of the worker's
    standard error in brackets when ``say_why``."""
    cmd = [sys.executable, str(script), "--worker", solver, case, "--repeats", str(repeats), "--timeout", str(timeout)]
    done = run_worker(cmd, hard_timeout)
    return summarised(done, result_rows(done.stdout, mark), solver, case, summary, say_why)


def summarised(done: Finished, rows: list[dict], solver: str, case: str, summary: Callable[[list[dict]], dict],
               say_why: bool = False) -> dict:
    """:func:`measure`'s result of a finished worker and the rows it printed for ``solver``."""
    if done.killed:
        return {"solver": solver, "case": case, "status": "killed", "times": []}
    if not rows:
        why = f" ({done.last_error_line()[:80]})" if say_why else ""
        return {"solver": solver, "case": case, "status": "failed" + why, "times": []}
    times = [r["seconds"] for r in rows]
    return {"solver": solver, "case": case, "status": rows[-1]["status"], **summary(rows), "times": times,
            "median": statistics.median(times)}


def measure_all(args: argparse.Namespace, cases: list[str], measure_one: Callable[[str, str, int, float], dict],
                progress: Callable[[dict], str]) -> list[dict]:
    """``measure_one(solver, case, args.repeats, args.timeout)`` for each case and each of the comma-separated
    ``args.solvers``, printing ``progress(result)`` after each."""
    results, solvers = [], args.solvers.split(",")
    for case in cases:
        runs: dict[str, list[dict]] = {solver: [] for solver in solvers}
        for _ in range(max(1, getattr(args, "processes", 1))):
            for solver in solvers:
                runs[solver].append(measure_one(solver, case, args.repeats, args.timeout))
        for solver in solvers:
            results.append(pooled(runs[solver]))
            print(progress(results[-1]), flush=True)
    return results


def pooled(runs: list[dict]) -> dict:
    """One result of several workers' results for a (solver, case): the last one's, with every fit's time, their
    median, and the first status other than ``"optimal"`` if any."""
    out = dict(runs[-1])
    out["times"] = [t for r in runs for t in r["times"]]
    if out["times"]:
        out["median"] = statistics.median(out["times"])
    out["status"] = next((r["status"] for r in runs if r["status"] != "optimal"), out["status"])
    return out


# --------------------------------------------------------------------------------------------- command line, results


def parser(description: str, *, solvers: str, timeout: float, out: str | Path) -> argparse.ArgumentParser:
    """The options of a script that measures (solver, case) cells in workers; defaults: ``--solvers``,
    ``--timeout`` (seconds) and ``--out`` (the results' path without suffix)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--worker", nargs=2, metavar=("SOLVER", "CASE"))
    p.add_argument("--cases", default="*")
    p.add_argument("--solvers", default=solvers)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--processes", type=int, default=1, help="workers per (solver, case), interleaved; their fits "
                   "pooled (one process's timings can sit apart from another's)")
    p.add_argument("--timeout", "--time-limit", dest="timeout", type=float, default=timeout,
                   help="seconds a solver may search per fit")
    p.add_argument("--out", default=str(out))
    p.add_argument("--list", action="store_true")
    return p


def command_line(doc: str, cases: list[str], worker: Callable[[str, str, int, float], None], *, solvers: str,
                 timeout: float, out: str | Path) -> tuple[argparse.Namespace, list[str] | None]:
    """Parse the command line (:func:`parser`, described by the first line of ``doc``) and return the options and the
    cases of ``cases`` that match one of the comma-separated patterns of ``--cases``.  The cases are None when there
    is nothing more to do: with ``--worker`` this process was the worker (``worker(solver, case, repeats, timeout)``
    has run), with ``--list`` it printed the cases."""
    args = parser(doc.split("\n")[0], solvers=solvers, timeout=timeout, out=out).parse_args()
    if args.worker:
        worker(*args.worker, args.repeats, args.timeout)
        return args, None
    chosen = [c for c in cases if any(fnmatch.fnmatch(c, pat) for pat in args.cases.split(","))]
    if args.list:
        print("\n".join(chosen))
        return args, None
    return args, chosen


def provenance(script: str | Path, root: str | Path) -> str:
    """How, at which commit of ``root``, when and at what load a table was made, in Markdown:
    "`python benchmarks/NAME ARGS` at COMMIT, DATE UTC, load L" (the 1-minute load average)."""
    return (f"`python benchmarks/{Path(script).name} {' '.join(sys.argv[1:])}` at {git_commit(Path(root))}, "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}")


def seconds_cell(times: list[float]) -> str:
    """The times of a cell's fits for a CSV column: ``"0.0101 0.0099"``."""
    return " ".join(f"{t:.4f}" for t in times)


def write_results(out: str | Path, text: str, columns: list[str], rows: list[list]) -> None:
    """Write ``text`` to ``<out>.md`` and the ``rows`` under the header ``columns`` to ``<out>.csv``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(text)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        w.writerows(rows)
