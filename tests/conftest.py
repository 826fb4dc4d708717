import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SHARED = HERE.parent.parent / "shared"
sys.path.insert(0, str(HERE))


@pytest.fixture(scope="session")
def shared_dir():
    if not SHARED.is_dir():
        pytest.skip(f"the shared benchmark data ({SHARED}) is not present beside the repository")
    return SHARED


def corels_fold(i: int, with_minor: bool = False):
    from optbb.common.data import read_corels

    base = DATA / "corels" / f"compas_{i}_train"
    return read_corels(f"{base}.out.gz", f"{base}.label.gz", f"{base}.minor.gz" if with_minor else None)
