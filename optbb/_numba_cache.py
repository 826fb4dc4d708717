"""Where Numba keeps optbb's compiled kernels: one folder per version of the sources.

Numba decides whether a cached kernel is stale from the source file that defines it, not from the files of the
kernels it calls and compiles into itself.  After a change to ``osdt/bounds.py`` alone (an update of a checkout, or
an upgrade that leaves the other files as they were), the cached kernels of ``osdt/caches.py`` would still run the
old bound.  So the cache folder is named after a hash of every source file of the package:
``$XDG_CACHE_HOME/optbb/numba/<hash>`` (by default ``~/.cache/optbb/numba/<hash>``).  Any change to the sources
means a new folder and a fresh compile; the same sources, in any process, share one.  Never inside
``site-packages`` either: cache files written there are not removed by ``pip uninstall``, and the folder they leave
behind shadows a later editable install as an empty namespace package (``No module named 'optbb.common.data'``).

A ``NUMBA_CACHE_DIR`` set by the user always wins (and then keeping it apart per version is the user's choice).
Numba applies one cache folder to the whole process, so this choice also applies to other cached Numba functions
compiled in the same process.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/optbb/numba`` (``~/.cache/optbb/numba`` when XDG_CACHE_HOME is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "optbb" / "numba"


def source_fingerprint(package_dir: Path = _PACKAGE_DIR) -> str:
    """16 hex digits of a SHA-256 over the relative path and the bytes of every ``.py`` file of the package."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_dir(package_dir: Path = _PACKAGE_DIR) -> Path:
    """The cache folder of these sources: ``user_cache_dir() / source_fingerprint()``."""
    return user_cache_dir() / source_fingerprint(package_dir)


def configure(package_dir: Path = _PACKAGE_DIR) -> None:
    """Send Numba's cache to the folder of these sources, unless the user set ``NUMBA_CACHE_DIR``."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir(package_dir))
    if "numba" in sys.modules:  # Numba read its configuration at import; make it read the new folder
        from numba.core import config

        config.reload_config()
