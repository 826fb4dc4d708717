"""What the reliability tests share: data locations and golden values, the ``jit_only`` mark, child processes
(a prelude with peak-RSS and result helpers, started with ``subprocess``), small problems and the command line.

Measurements that need a fresh process (peak RSS, signals, a cold Numba cache) run the solver in a child Python
started with ``subprocess``; the child finds ``optbb`` and ``tests/conftest.py`` on its ``PYTHONPATH``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parents[1]  # tests/
REPO = HERE.parent
sys.path.insert(0, str(HERE))


FICO = REPO.parent / "shared" / "data" / "osdt" / "fico_binary.csv.gz"
TIC_TAC_TOE = [REPO.parent / "shared" / "data" / "osdt" / "tic-tac-toe.csv", HERE / "data" / "osdt" / "tic-tac-toe.csv"]
KR_VS_KP = REPO.parent / "shared" / "data" / "dl" / "kr-vs-kp.txt.gz"
TIC_TAC_TOE_OPT_001 = 0.250751566  # lambda 0.01, ../shared/golden/osdt_objectives.csv
CORELS_OPT_0005 = 0.3523552124  # fold 0, lambda 0.005 (tests/test_corels.py golden value)
OSDT_COMPAS_OPT_0005 = 2286 / 6907 + 5 * 0.005  # 0.355968583, tests/data/osdt/osdt_objectives.csv
HARD_CORELS = dict(regularization=0.005, ablation=("equivalent_points",))

# with NUMBA_DISABLE_JIT=1 (coverage runs) the kernels run as plain Python: timing, memory, signal and cache tests
# measure nothing meaningful and are skipped, and the properties run fewer examples
NOJIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
jit_only = pytest.mark.skipif(NOJIT, reason="measures the compiled solvers (time, memory, signals, Numba cache)")


def _allowed_overshoot(limit: float) -> float:
    return max(0.05 * limit, 0.5)


# ---------------------------------------------------------------------------------------------------------------
# child processes


def _env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(HERE)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                                   else []))
    env.update({k: str(v) for k, v in extra.items()})
    return env


PRELUDE = textwrap.dedent("""
    import hashlib, json, os, resource, signal, sys, time
    import numpy as np

    # a child started from a background job inherits SIGINT ignored; Ctrl-C tests need Python's default handler
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def _status(key):
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        return None

    def rss_now():
        return _status("VmRSS:") or 0

    def reset_peak():
        try:  # reset the peak RSS, so transient peaks of start-up, reading and warm-up do not count
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
        except OSError:  # then the growth measured after it is an upper bound
            pass

    def peak_rss():
        # peak RSS of this process image: VmHWM.  getrusage's ru_maxrss is used only without /proc: Linux carries
        # the parent's RSS at fork into it across exec, so a child of a big pytest process reports the parent's size
        hwm = _status("VmHWM:")
        return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def digest(obj):
        return hashlib.sha256(repr(obj).encode()).hexdigest()

    def stable_counters(c):
        out = {}
        for k, v in sorted(c.items()):
            if "time" in k:
                continue
            out[k] = np.asarray(v).tolist() if isinstance(v, np.ndarray) else v
        return out

    def report(r, **extra):
        d = dict(status=r.status.name, objective=r.objective, lower_bound=r.lower_bound, gap=r.gap,
                 counters=stable_counters(r.counters), total_time=r.counters.get("total_time"),
                 returned_at=time.time(), **extra)
        print("RESULT " + json.dumps(d, default=str), flush=True)
""")


def _random_binary(n: int, m: int, seed: int = 0) -> str:
    """Child code binding ``X``, ``y`` and ``data``: ``n`` x ``m`` random 0/1 features and labels that depend on
    four of them plus 20 % noise.  At small regularization no search over such data ends within minutes, and it
    needs nothing beside the repository."""
    return f"""
        from optbb.common.data import from_arrays
        _rng = np.random.default_rng({seed})
        X = (_rng.random(({n}, {m})) < 0.5).astype(np.uint8)
        y = (((X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])) ^ (_rng.random({n}) < 0.2)).astype(np.uint8)
        data = from_arrays(X, y)
    """


# the dynamic-programming search on its hard cases: random 2,000 x 40 data at lambda 1e-6 without a depth limit
# (tic-tac-toe, used before, ends in a few seconds on a fast machine), and kr-vs-kp (DL8.5 / MurTree set, skipped when
# absent) at lambda 1e-6 and depth 6; neither ends within minutes
OSDT_DP_LOAD = {
    "dp-random": textwrap.dedent(_random_binary(2000, 40, seed=2)) + """
from optbb.osdt import solve
KW = dict(search="dp")
""",
    "dp-deep": f"""
        from optbb.datasets.dl import load_dl
        from optbb.osdt import solve
        data = load_dl({str(KR_VS_KP)!r})
        KW = dict(search="dp", max_depth=6)
    """,
}


def _needs_dp_case(case: str):
    if case == "dp-deep" and not KR_VS_KP.is_file():
        pytest.skip(f"{KR_VS_KP} is not present")


CORELS_LOAD = "from conftest import corels_fold\nfrom optbb.corels import solve\ndata = corels_fold(0)\n"
OSDT_FICO_LOAD = (f"from optbb.common.data import read_osdt_csv\nfrom optbb.osdt import solve\n"
                  f"data = read_osdt_csv({str(FICO)!r})\n")


def _code(*parts: str) -> str:
    """Child source from pieces written at any indentation."""
    return "\n".join(textwrap.dedent(p).strip("\n") for p in parts) + "\n"


def _parse(out: str) -> dict:
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"the child printed no result:\n{out}"
    return json.loads(lines[-1][len("RESULT "):])


def _run_child(code: str, timeout: float = 600, **env) -> dict:
    proc = subprocess.run([sys.executable, "-c", _code(PRELUDE, code)], capture_output=True, text=True,
                          cwd=REPO, env=_env(**env), timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _parse(proc.stdout)


def _start_child(code: str, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", _code(PRELUDE, code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, env=_env(**env))


# Child code that makes the next search say "READY" from inside itself, after its first chunk: the driver's progress
# display is updated after every chunk.  A test that signals a running search waits for this line instead of
# sleeping a fixed time, which is too short on a slow machine and too long on a fast one (the search may be over).
READY_IN_SEARCH = """
    import optbb.common.driver as _driver

    class _ReadyInSearch(_driver.Progress):
        said = False

        def update(self, *args):
            if not _ReadyInSearch.said:
                _ReadyInSearch.said = True
                print("READY", flush=True)
            super().update(*args)

    _driver.Progress = _ReadyInSearch
"""


def _wait_ready(proc: subprocess.Popen) -> None:
    line = proc.stdout.readline()
    if not line:  # end of stream: the child has ended or is ending; its error says why
        proc.wait(timeout=60)
    assert line.startswith("READY"), (line, proc.stderr.read()[-3000:] if proc.poll() is not None else "")


def _tic_tac_toe():
    from optbb.common.data import read_osdt_csv

    for p in TIC_TAC_TOE:
        if p.is_file():
            return read_osdt_csv(p)
    from optbb.datasets import load_osdt

    try:
        return load_osdt("tic-tac-toe")
    except Exception:  # noqa: BLE001
        pytest.skip("tic-tac-toe is not available")


def _needs_fico():
    if not FICO.is_file():
        pytest.skip(f"{FICO} is not present")


def _good(n=40, m=4, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.5).astype(np.uint8)
    y = (rng.random(n) < 0.5).astype(np.uint8)
    y[:2] = [0, 1]
    return X, y


def _cli(argv):
    import contextlib
    import io

    from optbb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()
