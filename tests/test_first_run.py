"""Where an installed optbb keeps its compiled kernels: never inside site-packages, whose leftovers after
``pip uninstall`` would shadow a later editable install (``No module named 'optbb.common.data'``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from optbb import _numba_cache

REPO = Path(__file__).resolve().parents[1]


def test_site_packages_is_recognised():
    assert _numba_cache.installed_in_site_packages(Path("/v/lib/python3.11/site-packages/optbb"))
    assert _numba_cache.installed_in_site_packages(Path("/usr/lib/python3/dist-packages/optbb"))
    assert not _numba_cache.installed_in_site_packages(Path("/home/me/src/optbb/optbb"))


def test_installed_copy_caches_in_the_user_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _numba_cache.configure(Path("/v/lib/python3.11/site-packages/optbb"))
    try:
        from numba.core import config

        assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "optbb" / "numba")
        assert config.CACHE_DIR == str(tmp_path / "optbb" / "numba")
    finally:
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        from numba.core import config

        config.reload_config()


def test_user_setting_and_checkouts_are_left_alone():
    env = dict(os.environ, NUMBA_CACHE_DIR="/somewhere/else", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", "import optbb, os; print(os.environ['NUMBA_CACHE_DIR'])"],
                         capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert out == "/somewhere/else"
    env.pop("NUMBA_CACHE_DIR")
    out = subprocess.run([sys.executable, "-c", "import optbb, os; print(os.environ.get('NUMBA_CACHE_DIR', ''))"],
                         capture_output=True, text=True, env=env, check=True, cwd=REPO).stdout.strip()
    assert out == ""  # a checkout caches beside its sources, as Numba does by default
