"""Locate, build and run the reference implementations that optbb is measured against.

The anchors live beside the repository in ``../shared/anchors`` (CI clones the repository with ``shared/``
next to it):

* ``corels-cxx``: the C++ CORELS (GPL-3.0). It is built from there into a cache directory outside the
  repository and only ever run as a subprocess; none of its code is part of optbb.
* ``osdt-reference``: the reference Python OSDT (MIT), run with ``run_osdt.py`` in its own virtual environment.
* ``gosdt``: ``run_gosdt.py``, which fits the PyPI ``gosdt`` package, also in its own virtual environment.

Built and installed things go under ``$OPTBB_ANCHORS_CACHE`` (default ``~/.cache/optbb-anchors``):
``corels/corels``, ``osdt-venv/`` and ``gosdt-venv/``. ``OPTBB_CORELS_BIN``, ``OPTBB_OSDT_PYTHON`` and
``OPTBB_GOSDT_PYTHON`` point at an existing binary or interpreter instead.

Every function returns ``None`` when its anchor (or ``../shared``) is missing, so benchmark scripts can skip the
comparison. The ``run_*`` functions return a dict of parsed results with these keys in common:
``status`` ("certified", "node_cap", "not_converged", "timeout" or "error"), ``certified``, ``objective``,
``wall_time`` (seconds, measured here), ``peak_rss_bytes`` (the child's own maximum resident set size, from
``os.wait4``), ``returncode``, ``command`` and, on failure, ``stderr_tail``.

This module is pure Python and imports nothing from optbb.
"""

import contextlib
import csv
import fcntl
import gzip
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
ANCHORS_DIR = SHARED_DIR / "anchors"
DATA_DIR = SHARED_DIR / "data"

CORELS_SOURCE_DIR = ANCHORS_DIR / "corels-cxx"
OSDT_SCRIPT = ANCHORS_DIR / "osdt-reference" / "run_osdt.py"
GOSDT_SCRIPT = ANCHORS_DIR / "gosdt" / "run_gosdt.py"

OSDT_REQUIREMENTS = ("numpy", "pandas<3", "scikit-learn", "gmpy2")
GOSDT_REQUIREMENTS = ("gosdt",)

DEFAULT_TIMEOUT = 3600.0
_TAIL = 2000  # characters of stderr kept in a failed run's result


def cache_dir() -> Path:
    """Where anchors are built and installed (outside the repository)."""
    return Path(os.environ.get("OPTBB_ANCHORS_CACHE", "~/.cache/optbb-anchors")).expanduser()


# --------------------------------------------------------------------------------------------- processes


@lru_cache(maxsize=None)
def _gnu_time():
    """Path of GNU time, which reports a child's peak RSS without this Python process's footprint, or None."""
    path = shutil.which("time", path="/usr/bin:/bin")
    if path is None:
        return None
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (subprocess.SubprocessError, OSError):
        return None
    return path if "GNU" in version.stdout + version.stderr else None


def _run(cmd, *, cwd=None, timeout=DEFAULT_TIMEOUT):
    """Run ``cmd`` and wait for it, killing it after ``timeout`` seconds.

    Output goes to files rather than pipes (the reference OSDT prints a great deal). Peak RSS comes from GNU time
    (``%M``) when it is installed: Linux seeds a child's maximum RSS with the memory of the process it was forked
    from, so ``os.wait4`` on a child of this Python process never reports less than this process's own size. That
    reading is the fallback. Returns (returncode, stdout, stderr, wall_time, peak_rss_bytes, timed_out).
    """
    with tempfile.TemporaryDirectory(prefix="optbb-run-") as tmp:
        out_file, err_file, rss_file = (Path(tmp) / name for name in ("stdout", "stderr", "rss"))
        gnu_time = _gnu_time()
        full = [gnu_time, "-f", "%M", "-o", str(rss_file), *map(str, cmd)] if gnu_time else list(map(str, cmd))
        timed_out = threading.Event()
        with open(out_file, "wb") as out, open(err_file, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(full, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    start_new_session=True)

            def kill_group():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)

            def on_timeout():
                timed_out.set()
                children = []
                if gnu_time:  # kill the measured command only, so that GNU time still writes its reading
                    with contextlib.suppress(OSError):
                        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
                for pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
                if not children:
                    kill_group()

            timer = threading.Timer(timeout, on_timeout) if timeout is not None else None
            if timer:
                timer.start()
            try:
                _, status, usage = os.wait4(proc.pid, 0)
            except BaseException:  # interrupted: do not leave the child running
                kill_group()
                proc.wait()
                raise
            finally:
                if timer:
                    timer.cancel()
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            kill_group()  # anything the command left behind
        stdout = out_file.read_text(errors="replace")
        stderr = err_file.read_text(errors="replace")
        rss = usage.ru_maxrss * 1024
        if gnu_time:
            with contextlib.suppress(OSError, ValueError, IndexError):
                rss = int(rss_file.read_text().split()[-1]) * 1024
    return proc.returncode, stdout, stderr, wall, rss, timed_out.is_set()


def _base_result(anchor, cmd, returncode, stderr, wall, rss, timed_out):
    result = {
        "anchor": anchor,
        "command": shlex.join(str(c) for c in cmd),
        "returncode": returncode,
        "wall_time": wall,
        "peak_rss_bytes": rss,
        "status": "timeout" if timed_out else ("error" if returncode != 0 else None),
        "certified": False,
        "objective": None,
    }
    if returncode != 0:
        result["stderr_tail"] = stderr[-_TAIL:]
    return result


def _materialize(path, directory):
    """Return ``path`` itself, or its decompressed copy in ``directory`` when it ends in .gz."""
    path = Path(path)
    if path.suffix != ".gz":
        return path.resolve()
    target = Path(directory) / path.stem
    with gzip.open(path, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


# --------------------------------------------------------------------------------------------- C++ CORELS


@contextlib.contextmanager
def _locked(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def corels_binary(build=True, timeout=900.0):
    """Path of the C++ CORELS binary, building it from ``../shared/anchors/corels-cxx`` on first use.

    Returns None when there is no binary and it cannot be built (no sources, no compiler, or the build fails).
    """
    override = os.environ.get("OPTBB_CORELS_BIN")
    if override:
        return Path(override) if os.access(override, os.X_OK) else None
    dest = cache_dir() / "corels"
    binary = dest / "corels"
    if os.access(binary, os.X_OK):
        return binary
    script = CORELS_SOURCE_DIR / "build.sh"
    if not build or not script.is_file() or not (shutil.which("make") and shutil.which("g++")):
        return None
    with _locked(cache_dir() / "corels.lock"):
        if not os.access(binary, os.X_OK):  # another process may have built it meanwhile
            try:
                subprocess.run(["bash", str(script), str(dest)], check=True, timeout=timeout,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except (subprocess.SubprocessError, OSError):
                return None
    return binary if os.access(binary, os.X_OK) else None


# counters taken from the last row of the binary's own CSV log (see Logger::dumpState in the reference)
_CORELS_LOG_COUNTERS = {
    "lower_bound_num": "lower_bound_evaluations",
    "objective_num": "objective_evaluations",
    "tree_insertion_num": "queue_insertions",  # every node inserted into the trie is pushed on the queue
    "evaluate_children_num": "nodes_expanded",
    "permutation_map_insertion_num": "pmap_insertions",
    "pmap_discard_num": "pmap_discards",
}


def _parse_corels_log(path):
    """Counters from the CSV log, plus the largest queue and trie sizes among the logged rows.

    The log has a row every ``-f`` iterations and at every improvement, so the maxima are sampled, not exact.
    """
    if not path.is_file():
        return {}
    parsed = {}
    max_queue = max_nodes = 0
    last = None
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            last = row
            with contextlib.suppress(KeyError, TypeError, ValueError):
                max_queue = max(max_queue, int(row["queue_size"]))
                max_nodes = max(max_nodes, int(row["tree_num_nodes"]))
    if last is None:
        return {}
    for column, key in _CORELS_LOG_COUNTERS.items():
        with contextlib.suppress(KeyError, TypeError, ValueError):
            parsed[key] = int(last[column])
    with contextlib.suppress(KeyError, TypeError, ValueError):
        parsed["best_objective_logged"] = float(last["tree_min_objective"])
    parsed["max_queue_size_logged"] = max_queue
    parsed["max_num_nodes_logged"] = max_nodes
    return parsed


def parse_corels_output(stdout):
    """Parse the stdout of the C++ CORELS (verbosity ``progress``, its default)."""
    parsed = {}
    patterns = {
        "objective": (r"^minimum objective:\s*(\S+)", float),  # 10 decimals, finer than 'final min_objective'
        "min_lower_bound_in_queue": (r"^minimum lower bound in queue:\s*(\S+)", float),
        "num_nodes": (r"^final num_nodes:\s*(\d+)", int),
        "num_evaluated": (r"^final num_evaluated:\s*(\d+)", int),
        "final_min_objective": (r"^final min_objective:\s*(\S+)", float),
        "accuracy": (r"^final accuracy:\s*(\S+)", float),
        "total_time": (r"^final total time:\s*(\S+)", float),
    }
    for key, (pattern, kind) in patterns.items():
        match = re.search(pattern, stdout, re.MULTILINE)
        if match:
            parsed[key] = kind(match.group(1))
    if parsed.get("objective") is None and "final_min_objective" in parsed:
        parsed["objective"] = parsed["final_min_objective"]
    lines = stdout.splitlines()
    if "OPTIMAL RULE LIST" in lines:
        rules = []
        for line in lines[lines.index("OPTIMAL RULE LIST") + 1:]:
            if not line.strip():
                break
            rules.append(line)
        parsed["rule_list"] = "\n".join(rules)
        parsed["rule_list_length"] = max(len(rules) - 1, 0)  # rules before the default
    if "Exited because queue empty" in stdout:
        parsed["status"] = "certified"
    elif "Exited because max number of nodes" in stdout:
        parsed["status"] = "node_cap"
    return parsed


def run_corels(out_path, label_path, minor_path=None, regularization=0.01, policy_flag="-c 2", map_flag="-p 1",
               ablation=None, node_cap=10**9, timeout=DEFAULT_TIMEOUT, log_frequency=None, binary=None):
    """Run the C++ CORELS on one data set and return its parsed results, or None without a binary.

    ``out_path``, ``label_path`` and ``minor_path`` may end in .gz; they are decompressed into a temporary directory.
    Without ``minor_path`` the equivalent points bound is off. ``policy_flag`` is ``"-c N"`` or ``"-b"``,
    ``map_flag`` ``"-p 0|1|2"``, ``ablation`` 1 (no support bounds) or 2 (no lookahead), ``node_cap`` the ``-n`` trie
    limit, ``log_frequency`` the ``-f`` logging period (the binary's default, 1000, when None).

    Keys besides the common ones: ``accuracy``, ``total_time`` (the binary's own 'final total time'), ``num_nodes``,
    ``num_evaluated``, ``min_lower_bound_in_queue``, ``rule_list`` (text), ``rule_list_length``, ``minor_used``
    (False when no .minor was given or the binary skipped it), and from its CSV log ``lower_bound_evaluations``,
    ``objective_evaluations``, ``queue_insertions``, ``nodes_expanded``, ``pmap_insertions``, ``pmap_discards``,
    ``max_queue_size_logged``, ``max_num_nodes_logged``. After a timeout, ``objective`` is None and
    ``best_objective_logged`` holds the best objective found by then.
    """
    binary = binary or corels_binary()
    if binary is None:
        return None
    with tempfile.TemporaryDirectory(prefix="optbb-corels-") as tmp:
        # the binary writes its logs to ../logs relative to its working directory
        work, logs = Path(tmp) / "run", Path(tmp) / "logs"
        work.mkdir()
        logs.mkdir()
        inputs = [_materialize(p, work) for p in (out_path, label_path, minor_path) if p is not None]
        cmd = [str(binary), "-r", repr(float(regularization)), *shlex.split(policy_flag), *shlex.split(map_flag)]
        if ablation:
            cmd += ["-a", str(int(ablation))]
        if log_frequency is not None:
            cmd += ["-f", str(int(log_frequency))]
        cmd += ["-n", str(int(node_cap)), *map(str, inputs)]
        returncode, stdout, stderr, wall, rss, timed_out = _run(cmd, cwd=work, timeout=timeout)
        log_files = sorted(p for p in logs.glob("*.txt") if not p.name.endswith("-opt.txt"))
        log = _parse_corels_log(log_files[0]) if log_files else {}
    result = _base_result("corels-cxx", cmd, returncode, stderr, wall, rss, timed_out)
    result["minor_used"] = minor_path is not None and "skipping" not in stderr
    result.update(log)
    parsed = parse_corels_output(stdout)
    status = parsed.pop("status", None)
    result.update(parsed)
    if result["status"] is None:
        result["status"] = status or "error"
    result["certified"] = result["status"] == "certified"
    if result["status"] == "error" and "stderr_tail" not in result:
        result["stderr_tail"] = stderr[-_TAIL:]
    return result


# --------------------------------------------------------------------------------------------- Python anchors


@lru_cache(maxsize=None)
def _can_import(python, modules):
    try:
        return subprocess.run([python, "-c", f"import {modules}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except (subprocess.SubprocessError, OSError):
        return False


def _venv_python(env_var, venv_name, script, modules, requirements, install):
    if not script.is_file():
        return None
    override = os.environ.get(env_var)
    if override:
        return Path(override) if _can_import(override, modules) else None
    venv = cache_dir() / venv_name
    python = venv / "bin" / "python"
    if not python.exists() and install:
        with _locked(cache_dir() / f"{venv_name}.lock"):
            if not python.exists():
                try:
                    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
                    subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements],
                                   check=True, timeout=1800)
                except (subprocess.SubprocessError, OSError):
                    return None
                _can_import.cache_clear()
    if python.exists() and _can_import(str(python), modules):
        return python
    return None


def osdt_python(install=False):
    """Interpreter of the reference OSDT's virtual environment, or None.

    With ``install=True`` a missing environment is created with ``pip install numpy "pandas<3" scikit-learn
    gmpy2`` (needs access to a package index).
    """
    return _venv_python("OPTBB_OSDT_PYTHON", "osdt-venv", OSDT_SCRIPT, "numpy, pandas, sklearn, gmpy2",
                        OSDT_REQUIREMENTS, install)


def gosdt_python(install=False):
    """Interpreter of the virtual environment holding the PyPI ``gosdt`` package, or None.

    With ``install=True`` a missing environment is created with ``pip install gosdt``.
    """
    return _venv_python("OPTBB_GOSDT_PYTHON", "gosdt-venv", GOSDT_SCRIPT, "gosdt, pandas, sklearn",
                        GOSDT_REQUIREMENTS, install)


def _number(text):
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(text)
    return text


def _key_values(line):
    return {key: _number(value) for key, value in re.findall(r"(\w+)=(\S+)", line)}


def _count_rows(csv_path):
    """Data rows of a (possibly gzipped) CSV with a header line."""
    opener = gzip.open if str(csv_path).endswith(".gz") else open
    with opener(csv_path, "rb") as handle:
        return sum(1 for line in handle if line.strip()) - 1


def run_osdt_reference(csv_path, lam, timeout=DEFAULT_TIMEOUT, options=None, python=None):
    """Run the reference OSDT (``run_osdt.py``) on a ';'-separated binary CSV; None when it is not installed.

    ``options`` are OSDT keywords passed as ``key=value`` (e.g. ``{"timelimit": 600, "lookahead": False}``).
    Keys besides the common ones: ``leaves``, ``accuracy``, ``total_seconds`` (OSDT's own timer),
    ``time_to_optimum``, ``trees_evaluated``, ``trees_to_optimum``, ``n``, ``errors`` and
    ``objective`` = errors / n + lam * leaves. OSDT stops at its ``timelimit`` (default none) without saying
    whether the search finished, so a clean exit is reported as "certified" only when no ``timelimit`` was given.
    """
    python = python or osdt_python()
    if python is None:
        return None
    cmd = [str(python), str(OSDT_SCRIPT), str(Path(csv_path).resolve()), repr(float(lam))]
    cmd += [f"{key}={value}" for key, value in (options or {}).items()]
    with tempfile.TemporaryDirectory(prefix="optbb-osdt-") as tmp:
        returncode, stdout, stderr, wall, rss, timed_out = _run(cmd, cwd=tmp, timeout=timeout)
    result = _base_result("osdt-reference", cmd, returncode, stderr, wall, rss, timed_out)
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        result["status"] = result["status"] or "error"
        result.setdefault("stderr_tail", stderr[-_TAIL:])
        return result
    result.update(_key_values(lines[-1]))
    if isinstance(result.get("leaves"), int):  # 'NA' when OSDT fell back to its CART tree
        n = _count_rows(csv_path)
        errors = round((1.0 - result["accuracy"]) * n)  # accuracy has 6 decimals, exact for n < 10**5
        result.update(n=n, errors=errors, objective=errors / n + lam * result["leaves"])
    limited = (options or {}).get("timelimit") not in (None, 0, float("inf"))
    result["status"] = result["status"] or ("not_converged" if limited else "certified")
    result["certified"] = result["status"] == "certified"
    return result


def run_gosdt(csv_path, lam, timeout=DEFAULT_TIMEOUT, python=None):
    """Run GOSDT (``run_gosdt.py``) on a ';'-separated binary CSV; None when it is not installed.

    Keys besides the common ones, from its result line: ``n``, ``lambda``, ``errors``, ``leaves``, ``objective``,
    ``seconds`` (time spent in ``fit``) and ``gosdt_status`` (e.g. ``Status.CONVERGED``, which counts as certified).
    """
    python = python or gosdt_python()
    if python is None:
        return None
    cmd = [str(python), str(GOSDT_SCRIPT), str(Path(csv_path).resolve()), repr(float(lam))]
    with tempfile.TemporaryDirectory(prefix="optbb-gosdt-") as tmp:
        returncode, stdout, stderr, wall, rss, timed_out = _run(cmd, cwd=tmp, timeout=timeout)
    result = _base_result("gosdt", cmd, returncode, stderr, wall, rss, timed_out)
    lines = [line for line in stdout.splitlines() if line.startswith("n=") and "objective=" in line]
    if not lines:
        result["status"] = result["status"] or "error"
        result.setdefault("stderr_tail", stderr[-_TAIL:])
        return result
    values = _key_values(lines[-1])
    values["gosdt_status"] = str(values.pop("status", ""))
    result.update(values)
    if result["status"] is None:
        result["status"] = "certified" if values["gosdt_status"].endswith("CONVERGED") else "not_converged"
    result["certified"] = result["status"] == "certified"
    return result


def corels_cv_fold(fold, data_dir=None):
    """(out, label, minor) paths of one ProPublica cross-validation fold in ``../shared/data``, or None."""
    base = Path(data_dir) if data_dir else DATA_DIR / "corels" / "CrossValidation"
    paths = []
    for suffix in (".out", ".label", ".minor"):
        plain = base / f"compas_{fold}_train{suffix}"
        gz = plain.with_name(plain.name + ".gz")
        found = plain if plain.is_file() else gz if gz.is_file() else None
        if found is None:
            return None
        paths.append(found)
    return tuple(paths)


def git_commit(path: Path) -> str:
    """Short commit of the checkout at ``path`` (for a results header), or "unknown"."""
    try:
        return subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def dist_version(dist: str) -> str:
    """Installed version of the distribution ``dist`` (for a results header), or "not installed"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"
