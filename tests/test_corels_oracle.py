"""CORELS at small lambda against independent oracles: brute force on lists of six and seven rules (the hypothesis
tests draw at most five antecedents), and the C++ CORELS on ProPublica folds cut to their single-feature
antecedents (skipped when the C++ is not built).  benchmarks/corels_oracle.py runs the full sweep."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from conftest import check_corels_every_policy_and_map, corels_fold
from twins.corels import corels_brute_force
from optbb.common.data import BinaryDataset
from optbb.corels import solve

_spec = importlib.util.spec_from_file_location(
    "anchors", Path(__file__).resolve().parents[1] / "benchmarks" / "anchors.py")
anchors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchors)


def _deep_problem(seed: int, k: int, weighted: bool):
    """7 antecedents, 90 samples, ``k`` classes with random labels: at lambda 0.001 the optimum uses most of them."""
    rng = np.random.default_rng(seed)
    A = (rng.random((90, 7)) < rng.uniform(0.15, 0.45, 7)).astype(np.uint8)
    A[60:] = A[:30]  # repeated rows with their own labels: equivalent points
    y = rng.integers(0, k, 90).astype(np.uint8)
    w = rng.lognormal(0.0, 1.0, 90) if weighted else None
    return A, y, w


@pytest.mark.parametrize("seed,k,weighted,lam", [(0, 3, True, 0.001), (1, 2, False, 0.001), (2, 3, False, 0.0)])
def test_deep_lists_agree_with_brute_force(seed, k, weighted, lam):
    A, y, w = _deep_problem(seed, k, weighted)
    expected, best = corels_brute_force(A, y, lam, sample_weight=w)
    assert len(best) >= 5  # the case reaches the depths the hypothesis tests cannot
    data = BinaryDataset(A, y, [f"a{j}" for j in range(7)], w, tuple(f"c{j}" for j in range(k)))
    check_corels_every_policy_and_map(data, lam, expected, A, y, w)


def _write(data, root: Path) -> list[Path]:
    def line(name, bits):
        return "{%s} %s\n" % (name, " ".join(np.asarray(bits, dtype=np.uint8).astype(str)))

    paths = [root.with_suffix(".out"), root.with_suffix(".label")]
    paths[0].write_text("".join(line(f"a{j}", data.X[:, j]) for j in range(data.n_features)))
    paths[1].write_text(line("y=0", data.y == 0) + line("y=1", data.y == 1))
    return paths


@pytest.mark.skipif(anchors.corels_binary(build=False) is None, reason="the C++ CORELS is not built")
@pytest.mark.parametrize("fold,lam", [(0, 0.0005), (6, 0.001)])
def test_single_feature_folds_match_the_cxx(tmp_path, fold, lam):
    """The fold's single-feature antecedents (the 17 without a comma): small enough that the C++ certifies
    lambda <= 0.001 in well under a second; without the .minor file the C++ drops only a bound, not the answer."""
    full = corels_fold(fold)
    data = full.subset(columns=[j for j, name in enumerate(full.feature_names) if "," not in name])
    cxx = anchors.run_corels(*_write(data, tmp_path / "fold"), regularization=lam, timeout=120)
    assert cxx["certified"]
    for options in ({}, {"map_type": "captured"}, {"policy": "curiosity"}):
        result = solve(data, lam, **options)
        assert result.status.name == "OPTIMAL"
        assert result.objective == pytest.approx(cxx["objective"], abs=1e-9), options
