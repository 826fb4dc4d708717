"""What the solvers print: nothing on standard output at ``verbose=0`` (issue 28 item 12)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from .support import _env


def test_the_first_binoct_fit_prints_nothing_at_verbose_0():
    """HiGHS prints its banner when the first solver of a process is made, before any option is read: at
    ``verbose=0`` a fresh process's first fit writes nothing to standard output."""
    pytest.importorskip("highspy")
    code = textwrap.dedent("""
        import numpy as np
        from optbb.baselines.binoct import BinOCTClassifier
        X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3, dtype=np.uint8)
        y = np.array([0, 1, 1, 0] * 3, dtype=np.uint8)
        print(BinOCTClassifier(max_depth=1).fit(X, y).status_)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "optimal\n"
