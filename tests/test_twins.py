"""The brute-force twins in ``tests/twins/`` stand alone: importing any of them loads nothing from optbb, so a bug
in the library cannot hide in the code that checks it."""
import subprocess
import sys
from pathlib import Path

import pytest

TWINS = Path(__file__).resolve().parent / "twins"
MODULES = sorted(p.stem for p in TWINS.glob("*.py") if p.stem != "__init__")


def test_there_are_twins():
    assert {"corels", "osdt", "frl", "binoct"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_twin_imports_nothing_from_optbb(name):
    code = (f"import sys; sys.path.insert(0, {str(TWINS.parent)!r}); import twins.{name}; "
            "print(sorted(m for m in sys.modules if m == 'optbb' or m.startswith('optbb.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout
