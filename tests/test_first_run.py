"""A fresh process: where an installed optbb keeps its compiled kernels (never inside site-packages, whose leftovers
after ``pip uninstall`` would shadow a later editable install: ``No module named 'optbb.common.data'``), and that a
first fit compiles each kernel once."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from optbb import _numba_cache

REPO = Path(__file__).resolve().parents[1]


def test_kernels_cache_in_the_user_cache_folder_of_these_sources(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    package = tmp_path / "site-packages" / "optbb"
    (package / "osdt").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "osdt" / "bounds.py").write_text("LIMIT = 1\n")
    _numba_cache.configure(package)
    try:
        from numba.core import config

        first = _numba_cache.source_fingerprint(package)
        assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "optbb" / "numba" / first)
        assert config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
        # a change to one file (a callee of kernels defined elsewhere) is a new folder: no stale kernel is loaded
        (package / "osdt" / "bounds.py").write_text("LIMIT = 2\n")
        assert _numba_cache.source_fingerprint(package) != first
    finally:
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        from numba.core import config

        config.reload_config()


def test_user_setting_wins_and_checkouts_use_their_sources_folder():
    env = dict(os.environ, NUMBA_CACHE_DIR="/somewhere/else", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", "import optbb, os; print(os.environ['NUMBA_CACHE_DIR'])"],
                         capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert out == "/somewhere/else"
    env.pop("NUMBA_CACHE_DIR")
    out = subprocess.run([sys.executable, "-c", "import optbb, os; print(os.environ.get('NUMBA_CACHE_DIR', ''))"],
                         capture_output=True, text=True, env=env, check=True, cwd=REPO).stdout.strip()
    assert out == str(_numba_cache.cache_dir(REPO / "optbb"))  # a checkout too: its sources' folder


def test_kernels_compile_once_per_argument_type():
    """Calls between kernels with literal integers (constants, or a variable still holding its first value) reuse
    the plain-integer specialisation; boolean literals keep their own."""
    import numpy as np

    from optbb.common.jit import njit

    @njit
    def pick(a, k, flag):
        return a[k] + (1.0 if flag else 2.0)

    @njit
    def tail(a, k=0):
        return a[k]

    @njit
    def caller(a):
        j = 0
        return (pick(a, 0, True) + pick(a, 1, True) + pick(a, j, False) + pick(a, k=2, flag=False)
                + tail(a) + tail(a, 1) + tail(a, k=2))

    assert caller(np.arange(3.0)) == 0 + 1 + 1 + 1 + 0 + 2 + 2 + 2 + 0 + 1 + 2
    assert sorted(str(s[1:]) for s in pick.signatures) == ["(int64, Literal[bool](False))",
                                                           "(int64, Literal[bool](True))"]
    assert [str(s[1:]) for s in tail.signatures] == ["(int64,)"]  # an omitted integer is passed as its default


SOLVER_FITS = {
    "corels": "from optbb.corels import CorelsClassifier as C",
    "osdt": "from optbb.osdt import OSDTClassifier as C",
    "frl": "from optbb.frl import FRLClassifier as C",
    "softfrl": "from optbb.frl import SoftFRLClassifier as C",
}


@pytest.mark.slow
@pytest.mark.parametrize("solver", sorted(SOLVER_FITS))
def test_first_fit_compiles_each_kernel_once(solver, tmp_path):
    """A first fit with an empty cache compiles every optbb kernel for one signature only (the cold-start cost
    doubles with each duplicate specialisation: benchmarks/cold_start.py --profile)."""
    code = f"""
import collections, numpy as np
from numba.core import event
seen = collections.defaultdict(set)
class L(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        if d.py_func.__module__.startswith("optbb."):
            seen[d.py_func.__module__ + "." + d.py_func.__qualname__].add(str(ev.data["args"]))
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
{SOLVER_FITS[solver]}
rng = np.random.default_rng(0)
C().fit(rng.integers(0, 2, size=(50, 5)), rng.integers(0, 2, size=50))
print(sorted((k, sorted(v)) for k, v in seen.items() if len(v) > 1 and not any("Literal[bool]" in s for s in v)))
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "[]"
