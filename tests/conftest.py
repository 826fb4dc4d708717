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


# CORELS's symmetry-aware maps by name (``map_type``)
CORELS_MAPS = ("none", "prefix", "captured")


def check_corels_every_policy_and_map(data, lam, expected, A, y, w=None):
    """Every policy with every map certifies ``expected`` on ``data`` (antecedent matrix ``A``, labels ``y``,
    weights ``w``), and the returned list scores that objective under the brute-force twin."""
    from twins.corels import rule_list_objective
    from optbb.corels import POLICIES, solve

    for policy in POLICIES:
        for map_type in CORELS_MAPS:
            result = solve(data, lam, policy=policy, map_type=map_type)
            assert result.status.name == "OPTIMAL"
            assert result.objective == pytest.approx(expected, abs=1e-12), (policy, map_type)
            prefix = [r.antecedent for r in result.model.rules]
            score = rule_list_objective(A, y, prefix, lam, w)
            assert score == pytest.approx(result.objective, abs=1e-12)
            assert score == pytest.approx(expected, abs=1e-12)


def class_bitsets(y, k: int):
    """uint64[k, W]: one packed bitset per class of the labels ``y`` (0..k-1), the class rows of the OSDT depth-2
    solver's inputs."""
    import numpy as np
    from optbb.common.bitset import pack_rows

    y = np.asarray(y)
    return np.ascontiguousarray(pack_rows(y[None, :] == np.arange(k)[:, None]))


def corels_fold(i: int, with_minor: bool = False):
    from optbb.common.data import read_corels

    base = DATA / "corels" / f"compas_{i}_train"
    return read_corels(f"{base}.out.gz", f"{base}.label.gz", f"{base}.minor.gz" if with_minor else None)


# the environment of the experiments' smoke runs: smoke mode, and the ProPublica training folds of tests/data
SMOKE_ENV = {"OPTBB_EXPERIMENTS_SMOKE": "1", "OPTBB_CORELS_FOLDS": str(DATA / "corels")}


@pytest.fixture(scope="session")
def study_output(tmp_path_factory):
    """``study_output(name)``: the output folder of study ``name`` run in smoke mode, once per session."""
    from experiments.__main__ import main

    done = {}

    def run(name: str) -> Path:
        if name not in done:
            out = tmp_path_factory.mktemp(name)
            with pytest.MonkeyPatch.context() as mp:
                for key, value in SMOKE_ENV.items():
                    mp.setenv(key, value)
                mp.delenv("OPTBB_NYCLU_DIR", raising=False)
                assert main([name, "--quick", "--out", str(out), "-q"]) == 0
            done[name] = out
        return done[name]

    return run
