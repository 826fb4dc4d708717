"""Where Numba keeps optbb's compiled kernels.

From a source checkout (an editable install) the kernels are cached beside the sources, in ``__pycache__``, as
Numba does by default.  From an installed wheel they go to the user's cache folder instead
(``$XDG_CACHE_HOME/optbb/numba``, by default ``~/.cache/optbb/numba``): cache files written into
``site-packages/optbb/*/__pycache__`` are not removed by ``pip uninstall``, and the folder they leave behind shadows a
later editable install as an empty namespace package (``No module named 'optbb.common.data'``).

A ``NUMBA_CACHE_DIR`` set by the user always wins.  Numba applies one cache folder to the whole process, so this
choice also applies to other cached Numba functions compiled in the same process.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def installed_in_site_packages(package_dir: Path = _PACKAGE_DIR) -> bool:
    """Whether the package was installed (copied) into a ``site-packages`` or ``dist-packages`` folder."""
    return any(part in ("site-packages", "dist-packages") for part in package_dir.parts)


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/optbb/numba`` (``~/.cache/optbb/numba`` when XDG_CACHE_HOME is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "optbb" / "numba"


def configure(package_dir: Path = _PACKAGE_DIR) -> None:
    """Send Numba's cache to the user's cache folder when optbb runs from an installed wheel."""
    if os.environ.get("NUMBA_CACHE_DIR") or not installed_in_site_packages(package_dir):
        return
    os.environ["NUMBA_CACHE_DIR"] = str(user_cache_dir())
    if "numba" in sys.modules:  # Numba read its configuration at import; make it read the new folder
        from numba.core import config

        config.reload_config()
