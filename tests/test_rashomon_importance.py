"""Variable importance over Rashomon sets, exact, against per-model computations through each model's predict:
model reliance (Fisher, Rudin & Dominici 2019, Eq. 3.5) unweighted and weighted, trees and rule lists, the
estimators' sets on raw columns, the distribution over a set and RID (Donnelly et al. 2023) over bootstraps."""
from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from optbb import rashomon_importance_distribution
from optbb.common.data import BinaryDataset
from optbb.common.rashomon import SwitchPlan, model_reliance
from optbb.corels import CorelsClassifier
from optbb.corels import rashomon_set as list_set
from optbb.osdt import OSDTClassifier
from optbb.osdt import rashomon_set as tree_set

compiled_only = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
                                   reason="times the compiled kernels")


def _random(seed: int, n_max: int = 40, m_max: int = 5, k_max: int = 3):
    rng = np.random.default_rng(seed)
    n, m, k = int(rng.integers(8, n_max)), int(rng.integers(2, m_max + 1)), int(rng.integers(2, k_max + 1))
    X = (rng.random((n, m)) < rng.uniform(0.2, 0.8, m)).astype(np.uint8)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return rng, X, y, k


def _data(X, y, k, w=None) -> BinaryDataset:
    return BinaryDataset(X, y, [f"f{j}" for j in range(X.shape[1])], w, tuple(f"c{c}" for c in range(k)))


def weighted_reliance(predict, X, y, w) -> np.ndarray:
    """The weighted definition written out: row ``i`` weighs ``w_i / W``, and takes the value of partner ``l !=
    i`` with probability ``w_l / (W - w_i)``; minus the weighted loss."""
    n, m = X.shape
    total = w.sum()
    base = np.mean(predict(X) != y) if w is None else np.dot(w, predict(X) != y) / total
    out = np.zeros(m)
    for j in range(m):
        switched = 0.0
        for i in range(n):
            rest = total - w[i]
            for other in range(n):
                if other != i and rest > 0:
                    row = X[i].copy()
                    row[j] = X[other, j]
                    switched += w[i] / total * w[other] / rest * float(predict(row[None, :])[0] != y[i])
        out[j] = switched - base
    return out


def slow_importance(rs, X, y, w=None) -> np.ndarray:
    """Every model's reliances through its predict: the per-model computation of before (``model_reliance``) when
    unweighted, the weighted definition otherwise."""
    models = list(rs)
    if w is None:
        plan = SwitchPlan.of(X, y)
        return np.array([model_reliance(lambda Z, mm=mm: rs.backend.predict(mm, Z), plan) for mm in models])
    return np.array([weighted_reliance(lambda Z, mm=mm: rs.backend.predict(mm, Z), X, y, w) for mm in models])


def check(rs, X, y, w=None) -> None:
    slow = slow_importance(rs, X, y, w)
    vi = rs.variable_importance(X, y, sample_weight=w)
    assert bool(vi["exact"].all())
    assert np.allclose(vi["min"], slow.min(0), atol=1e-12)
    assert np.allclose(vi["max"], slow.max(0), atol=1e-12)
    assert np.allclose(vi["optimal"], slow[0], atol=1e-12)
    first = rs[0]
    unused = [j for j in range(X.shape[1]) if j not in rs.backend.features_of(first)]
    assert all(vi["optimal"].iloc[j] == 0.0 for j in unused)  # exactly, not 1e-15
    names, dists = rs.reliance_distribution(X, y, sample_weight=w)
    assert names == list(vi.index)
    for j, (values, counts) in enumerate(dists):
        assert int(counts.sum()) == rs.count
        assert np.allclose(np.sort(slow[:, j]), np.repeat(values, counts), atol=1e-12)


@pytest.mark.parametrize("seed", range(25))
def test_tree_importance_equals_the_per_model_computation(seed):
    rng, X, y, k = _random(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = tree_set(_data(X, y, k), float(rng.choice([0.01, 0.03])), epsilon=float(rng.choice([0.1, 0.3])),
                      max_depth=int(rng.integers(1, 4)))
    check(rs, X, y)


@pytest.mark.parametrize("seed", range(8))
def test_weighted_tree_importance_equals_the_weighted_definition(seed):
    rng, X, y, k = _random(100 + seed, n_max=16, m_max=3)
    w = rng.uniform(0.2, 2.0, X.shape[0])
    rs = tree_set(_data(X, y, k, w), 0.02, epsilon=0.3, max_depth=2)
    check(rs, X, y, w)
    assert rs.variable_importance(X, y).equals(rs.variable_importance(X, y, sample_weight=w))  # the set's weights


@pytest.mark.parametrize("seed", range(25))
def test_rule_list_importance_equals_the_per_model_computation(seed):
    rng, X, y, k = _random(200 + seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = list_set(_data(X, y, k), float(rng.choice([0.01, 0.03])), epsilon=float(rng.choice([0.1, 0.4])),
                      max_length=int(rng.integers(1, 4)))
    check(rs, X, y)


@pytest.mark.parametrize("seed", range(8))
def test_weighted_rule_list_importance_equals_the_weighted_definition(seed):
    rng, X, y, k = _random(300 + seed, n_max=16, m_max=3)
    w = rng.uniform(0.2, 2.0, X.shape[0])
    rs = list_set(_data(X, y, k, w), 0.02, epsilon=0.3, max_length=2)
    check(rs, X, y, w)


def test_equal_weights_are_eq_3_5_itself_and_the_sets_weights_need_their_rows():
    _, X, y, k = _random(7)
    rs = tree_set(_data(X, y, k), 0.02, epsilon=0.2, max_depth=2)
    assert rs.variable_importance(X, y).equals(rs.variable_importance(X, y, sample_weight=np.full(len(y), 2.5)))
    weighted = tree_set(_data(X, y, k, np.linspace(1, 2, len(y))), 0.02, epsilon=0.2, max_depth=2)
    with pytest.raises(ValueError, match="sample_weight"):
        weighted.variable_importance(X[:-1], y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        rs.variable_importance(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="columns"):
        rs.variable_importance(X[:, :-1], y)
    given = np.array(X, copy=True)
    rs.variable_importance(given, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(given, X)


def test_chosen_models_and_a_sample_are_measured_as_chosen():
    _, X, y, k = _random(12, n_max=60, m_max=6)
    rs = tree_set(_data(X, y, k), 0.005, epsilon=1.0, max_depth=3)
    slow = slow_importance(rs, X, y)
    chosen = [3, 0, rs.count - 1]
    vi = rs.variable_importance(X, y, models=chosen)
    assert np.allclose(vi["min"], slow[chosen].min(0)) and np.allclose(vi["optimal"], slow[3])
    assert not vi["exact"].any()
    sampled = rs.variable_importance(X, y, max_models=5, random_state=1)
    picked = slow[rs.sample_indices(5, 1)]
    assert np.allclose(sampled["max"], picked.max(0)) and np.allclose(sampled["optimal"], slow[0])
    assert not sampled["exact"].any() and rs.count > 5


def test_the_estimators_sets_measure_raw_columns_and_labels():
    rng = np.random.default_rng(5)
    X = (rng.random((60, 4)) < 0.5).astype(np.uint8)
    y = np.where((X[:, 0] & X[:, 1]) | (rng.random(60) < 0.15), "yes", "no")
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    trees = OSDTClassifier(regularization=0.02, max_depth=2).fit(frame, y).rashomon_set(epsilon=0.2)
    lists = CorelsClassifier(regularization=0.02, max_card=2, min_support=0.05).fit(frame, y).rashomon_set(
        epsilon=0.2, max_length=2)
    for rs in (trees, lists):
        plan = SwitchPlan.of(X, y)
        slow = np.array([model_reliance(mm.predict, plan) for mm in rs])
        vi = rs.variable_importance(frame, y)
        assert list(vi.index) == ["a", "b", "c", "d"]
        assert np.allclose(vi["min"], slow.min(0)) and np.allclose(vi["max"], slow.max(0))
        assert np.allclose(vi["optimal"], slow[0])


def test_rid_pools_the_bootstrap_sets_each_weighing_the_same():
    _, X, y, k = _random(21, n_max=50, m_max=4)
    names = [f"f{j}" for j in range(X.shape[1])]

    def build(Xb, yb):
        return tree_set(BinaryDataset(Xb, yb, names), 0.02, epsilon=0.2, max_depth=2)

    rid = rashomon_importance_distribution(build, X, y, n_bootstrap=4, random_state=3)
    rng = np.random.default_rng(3)
    cdfs = []
    for _ in range(4):
        idx = rng.integers(0, len(y), len(y))
        rs = build(X[idx], y[idx])
        cdfs.append(slow_importance(rs, X[idx], y[idx]))
    grid = np.linspace(-0.2, 0.3, 41)
    for j, name in enumerate(names):
        expected = np.mean([np.mean(r[:, j][:, None] <= grid[None, :] + 1e-12, axis=0) for r in cdfs], axis=0)
        assert np.allclose(rid.cdf(name, grid + 1e-12), expected)
        assert np.isclose(rid.mass[j].sum(), 1.0)
    assert rid.models == [len(r) for r in cdfs] and rid.exact
    table = rid.to_frame()
    assert list(table.index) == names and (table["q0.05"] <= table["q0.95"]).all()
    assert np.allclose(table["mean"], [np.mean([r[:, j].mean() for r in cdfs]) for j in range(len(names))])


def test_rid_names_bad_input():
    _, X, y, k = _random(2)
    build = lambda Xb, yb: tree_set(_data(Xb, yb, k), 0.02, epsilon=0.1, max_depth=1)  # noqa: E731
    with pytest.raises(ValueError, match="n_bootstrap"):
        rashomon_importance_distribution(build, X, y, n_bootstrap=0)
    with pytest.raises(ValueError, match="rows"):
        rashomon_importance_distribution(build, X[:-1], y)
    with pytest.raises(ValueError, match="RashomonSet"):
        rashomon_importance_distribution(lambda Xb, yb: None, X, y)
    rid = rashomon_importance_distribution(build, X, y, n_bootstrap=2)
    with pytest.raises(ValueError, match="unknown feature"):
        rid.cdf("nope", 0.0)


@compiled_only
def test_compas_depth_4_importance_over_the_whole_set_in_under_two_seconds():
    """All 52,565 trees (lambda .005, epsilon .05, depth 4): before, 51-57 s for a sample of 5,000."""
    from optbb.datasets import load_osdt

    data = load_osdt("compas")
    rs = tree_set(data, 0.005, epsilon=0.05, max_depth=4)
    assert rs.count == 52_565
    rs.variable_importance(data.X, data.y, models=[0, 1])  # loads the kernels
    start = time.perf_counter()
    vi = rs.variable_importance(data.X, data.y)
    seconds = time.perf_counter() - start
    assert bool(vi["exact"].all()) and seconds < 2.0
    used = rs.backend.features_of(rs[0])
    assert all(vi["optimal"].iloc[j] == 0.0 for j in range(len(vi)) if j not in used)
    assert (vi["min"] <= vi["optimal"]).all() and (vi["optimal"] <= vi["max"]).all()
