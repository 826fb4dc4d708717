"""The Rashomon set of trees (optbb.osdt.rashomon_set) against the brute-force twin that lists every tree."""
from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import chisquare

from optbb.common.data import BinaryDataset
from optbb.common.result import Status
from optbb.osdt import OSDTClassifier, Tree, rashomon_set
from optbb.osdt.rashomon.engine import STAGES

sys.path.insert(0, str(Path(__file__).resolve().parent))

# the construction is compiled: without the JIT the large sets below take minutes
compiled_only = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
                                   reason="builds large sets with the compiled kernels (minutes without the JIT)")

from twins.trees_rashomon import leaf_labels, predict, rashomon_members  # noqa: E402


def twin_shape(tree: Tree):
    """A listed tree in the twin's form: ``("leaf",)`` or ``(feature, zero, one)``."""
    def conv(node):
        return ("leaf",) if node[0] == "leaf" else (node[1], conv(node[2]), conv(node[3]))
    return conv(tree._root)


def objective(tree: Tree, X, y, lam, w=None):
    """The objective of a listed tree recomputed from its predictions."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    return float(w[tree.predict(X) != y].sum() / w.sum() + lam * tree.n_leaves)


@st.composite
def problems(draw):
    """Tiny data (3-10 rows, 1-3 features, 2-4 classes, dyadic real weights half the time) with a penalty, a depth,
    a bound (epsilon or absolute) and the useless-split rule."""
    n, m, k = draw(st.integers(3, 10)), draw(st.integers(1, 3)), draw(st.integers(2, 4))
    X = draw(hnp.arrays(np.uint8, (n, m), elements=st.integers(0, 1)))
    y = draw(hnp.arrays(np.uint8, n, elements=st.integers(0, k - 1)))
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=st.integers(1, 12).map(lambda v: v / 4)))
    lam = draw(st.sampled_from([0.0, 0.01, 0.02, 0.05, 0.1, 0.2]))
    depth = draw(st.integers(0, 3) | st.none()) if lam > 0 else draw(st.integers(0, 3))
    eps = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 1.0, 3.0]))
    absolute = draw(st.booleans())
    exclude = draw(st.booleans())
    return X, y, k, w, lam, depth, eps, absolute, exclude


def _solve(X, y, k, w, lam, depth, eps, absolute, exclude):
    data = BinaryDataset(X, y, [f"f{j}" for j in range(X.shape[1])], w, tuple(str(c) for c in range(k)))
    opt, limit, members = rashomon_members(X, y, lam, epsilon=eps, max_depth=depth, sample_weight=w,
                                           exclude_useless=exclude, n_classes=k)
    kwargs = dict(bound=limit) if absolute else dict(epsilon=eps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = rashomon_set(data, lam, max_depth=depth, exclude_useless=exclude, **kwargs)
    return rs, opt, limit, members


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_the_set_lists_exactly_the_twins_members_in_objective_order(problem):
    X, y, k, w, lam, depth, eps, absolute, exclude = problem
    rs, opt, limit, members = _solve(*problem)
    assert rs.status is Status.OPTIMAL
    assert rs.optimum == pytest.approx(opt, abs=1e-12)
    assert rs.count == len(members)
    listed = list(rs)
    assert len(listed) == rs.count
    assert sorted(map(repr, map(twin_shape, listed))) == sorted(repr(t[2]) for t in members)
    objectives = [rs.objective_of_index(i) for i in range(rs.count)]
    assert all(a <= b for a, b in zip(objectives, objectives[1:]))
    for i, tree in enumerate(listed):
        assert objective(tree, X, y, lam, w) == pytest.approx(objectives[i], abs=1e-9)
        assert objectives[i] <= limit + 1e-9 * max(1.0, limit)
        assert rs[i].same_shape(tree)
        labels = leaf_labels(twin_shape(tree), X, y, w, k)
        assert np.array_equal(tree.predict(X), predict(twin_shape(tree), X, labels))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_class_counts_and_feature_usage_equal_those_of_the_full_listing(problem):
    X, y, k = problem[:3]
    rs = _solve(*problem)[0]
    listed = list(rs)
    counts = np.zeros((len(y), k), dtype=np.int64)
    for tree in listed:
        counts[np.arange(len(y)), tree.predict(X)] += 1
    assert np.array_equal(rs.class_counts(), counts)
    usage = [sum(j in tree.features_used() for tree in listed) for j in range(X.shape[1])]
    assert list(rs.feature_usage()) == usage
    if rs.count:
        assert np.allclose(rs.agreement(), counts.max(1) / rs.count)


WEIGHT_KINDS = {"thirds": lambda v: v / 3, "tenths": lambda v: v / 10, "quarters": lambda v: v / 4}


@st.composite
def weighted_problems(draw):
    """:func:`problems` with weights drawn as ``k / 3``, ``k / 10``, ``k / 4`` or random floats: sums that tie as
    floats need not tie in a binary fixed point, and the other way round (``0.1 + 0.2 > 0.3``)."""
    X, y, k, _, lam, depth, eps, absolute, exclude = draw(problems())
    kind = draw(st.sampled_from([*WEIGHT_KINDS, "floats"]))
    if kind == "floats":
        w = draw(hnp.arrays(np.float64, len(y), elements=st.floats(0.05, 3.0)))
    else:
        w = draw(hnp.arrays(np.int64, len(y), elements=st.integers(1, 12))).astype(np.float64)
        w = WEIGHT_KINDS[kind](w)
    return X, y, k, w, lam, depth, eps, absolute, exclude


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_problems())
def test_any_float_weights_give_the_twins_members_labels_and_counts(problem):
    """The set against the twin over float sums of the weights (``np.bincount``'s, as the models make them): the
    same members, each leaf's label the twin's, and class counts equal to those of the listing."""
    X, y, k, w, lam, depth, eps, absolute, exclude = problem
    rs, opt, limit, members = _solve(*problem)
    assert rs.optimum == pytest.approx(opt, abs=1e-9)  # random floats are counted to 2**-40 of the total weight
    assert rs.count == len(members)
    listed = list(rs)
    assert sorted(map(repr, map(twin_shape, listed))) == sorted(repr(t[2]) for t in members)
    counts = np.zeros((len(y), k), dtype=np.int64)
    for tree in listed:
        labels = leaf_labels(twin_shape(tree), X, y, w, k)
        assert np.array_equal(tree.predict(X), predict(twin_shape(tree), X, labels))
        counts[np.arange(len(y)), tree.predict(X)] += 1
    assert np.array_equal(rs.class_counts(), counts)


def test_weights_of_a_third_break_a_tie_as_the_classifier_does():
    """A leaf whose two classes weigh 1/3 + 1/3 and 2/3 predicts the larger class, as OSDTClassifier's does (the
    weights rounded row by row to a binary fixed point had made class 0 the heavier)."""
    X, y, w = np.array([[0], [1], [1]], np.uint8), np.array([0, 0, 1], np.uint8), np.array([1 / 3, 1 / 3, 2 / 3])
    rs = rashomon_set(BinaryDataset(X, y, ["a"], w), 0.5, epsilon=0.0, max_depth=0)
    clf = OSDTClassifier(regularization=0.5, max_depth=0).fit(X, y, sample_weight=w)
    assert rs.count == 1 and rs[0].predictions == [1] == list(clf.predict(X[:1]))


def test_a_split_that_lowers_no_weight_of_errors_is_useless_with_weights_of_tenths():
    """0.3 + 0.3 against 0.6 is no gain: one tree (the leaf), not two."""
    X, y = np.array([[1], [1], [0], [1]], np.uint8), np.array([0, 0, 1, 1], np.uint8)
    w = np.array([0.3, 0.3, 0.3, 0.6])
    rs = rashomon_set(BinaryDataset(X, y, ["a"], w), 0.5, bound=10, max_depth=1)
    assert rs.count == 1 and rs[0].n_leaves == 1
    assert rs.levels[0].errors == 0.6


def test_summaries_modulo_primes_equal_the_int64_ones(monkeypatch):
    """The summaries of a set beyond 2**63 members are made modulo primes and put together exactly: forced on
    small sets, they equal the int64 ones."""
    from optbb.osdt.rashomon import summary, trees

    rng = np.random.default_rng(11)
    for seed in range(6):
        X = rng.integers(0, 2, (30, 5)).astype(np.uint8)
        y = rng.integers(0, 3, 30).astype(np.uint8)
        data = BinaryDataset(X, y, [f"f{j}" for j in range(5)], None, ("a", "b", "c"))
        plain = rashomon_set(data, 0.01, epsilon=0.5, max_depth=3)
        counts, usage = plain.class_counts(), list(plain.feature_usage())
        monkeypatch.setattr(trees, "residue_runs", lambda total: list(summary.PRIMES[:3]))
        forced = rashomon_set(data, 0.01, epsilon=0.5, max_depth=3)
        assert (forced.class_counts().dtypes == object).all() and list(counts.columns) == [0, 1, 2]
        assert np.array_equal(forced.class_counts().to_numpy().astype(np.int64), counts)
        assert list(forced.feature_usage()) == usage
        monkeypatch.undo()


@compiled_only
def test_a_set_beyond_2_63_trees_is_counted_exactly():
    """COMPAS at lambda .001 within 6.5 % of the optimum at depth 6: 3.09e19 trees (past 2**64).  Class counts are
    exact Python ints, non-negative, each row summing to the count; feature usage lies within it; samples are
    distinct members; len() says to read count."""
    from optbb.datasets import load_osdt

    rs = rashomon_set(load_osdt("compas"), 0.001, epsilon=0.065, max_depth=6)
    assert rs.count > 10 ** 19
    counts = rs.class_counts().to_numpy()
    assert counts.dtype == object and min(counts.ravel()) >= 0
    assert all(total == rs.count for total in counts.sum(axis=1))
    assert all(0 <= v <= rs.count for v in rs.feature_usage())
    drawn = rs.sample(20, random_state=1)
    assert len({json.dumps(t.to_dict(), sort_keys=True) for t in drawn}) == 20
    assert all(t.n_leaves >= 1 for t in drawn)
    with pytest.raises(OverflowError, match="read .count"):
        len(rs)


def _small_set():
    """A set of 7 trees (random 12 x 3 data, lambda .05, epsilon .5, depth 2)."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (12, 3)).astype(np.uint8)
    y = (rng.random(12) < 0.5).astype(np.uint8)
    rs = rashomon_set(BinaryDataset(X, y, ["a", "b", "c"]), 0.05, epsilon=0.5, max_depth=2)
    assert 3 <= rs.count <= 12, rs.count
    return rs


def test_sample_gives_distinct_members_uniformly():
    rs = _small_set()
    keys = [repr(twin_shape(t)) for t in rs]
    draws = 400 * rs.count
    freq = np.zeros(rs.count)
    for seed in range(draws):
        (tree,) = rs.sample(1, random_state=seed)
        freq[keys.index(repr(twin_shape(tree)))] += 1
    assert chisquare(freq).pvalue > 1e-3, freq
    picked = rs.sample(rs.count, random_state=0)
    assert sorted(repr(twin_shape(t)) for t in picked) == sorted(keys)
    assert len(rs.sample(rs.count + 5, random_state=1)) == rs.count


def test_indexing_slices_and_negative_indices():
    rs = _small_set()
    listed = list(rs)
    assert all(a.same_shape(b) for a, b in zip(rs[1:5], listed[1:5]))
    assert rs[-1].same_shape(listed[-1])
    with pytest.raises(IndexError):
        rs[rs.count]
    with pytest.raises(TypeError):
        rs["0"]


def test_listed_trees_round_trip_through_json_with_their_shape():
    rs = _small_set()
    for tree in rs:
        back = Tree.from_json(tree.to_json())
        assert back.same_shape(tree)
        assert dict(zip(back.leaves, back.predictions)) == dict(zip(tree.leaves, tree.predictions))


def test_count_within_a_tighter_epsilon_equals_a_new_set():
    data = BinaryDataset(*_random(60, 5, seed=1), [f"f{j}" for j in range(5)])
    wide = rashomon_set(data, 0.01, epsilon=0.3, max_depth=3)
    for eps in (0.0, 0.05, 0.1, 0.2):
        assert wide.count_within(epsilon=eps) == rashomon_set(data, 0.01, epsilon=eps, max_depth=3).count


def _random(n, m, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(n) < 0.2)).astype(np.uint8)
    return X, y


# -- bad input ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(), "exactly one of epsilon"),
    (dict(epsilon=0.1, bound=0.3), "exactly one of epsilon"),
    (dict(epsilon=-0.1), "epsilon must be finite and >= 0"),
    (dict(epsilon=math.nan), "epsilon must be finite"),
    (dict(bound="x"), "bound must be a number"),
    (dict(epsilon=0.1, max_depth=-1), "max_depth"),
    (dict(epsilon=0.1, max_depth=2.5), "max_depth"),
    (dict(epsilon=0.1, max_depth=True), "max_depth"),
    (dict(epsilon=0.1, node_limit=0), "node_limit"),
])
def test_bad_parameters_are_named(kwargs, message):
    data = BinaryDataset(*_random(20, 3, seed=0), ["a", "b", "c"])
    with pytest.raises(ValueError, match=message):
        rashomon_set(data, 0.01, **kwargs)


def test_bad_regularization_and_data():
    data = BinaryDataset(*_random(20, 3, seed=0), ["a", "b", "c"])
    for lam in (-0.1, 2.0, math.nan, "x"):
        with pytest.raises(ValueError, match="regularization"):
            rashomon_set(data, lam, epsilon=0.1)
    with pytest.raises(ValueError, match="regularization 0 needs max_depth"):
        rashomon_set(data, 0.0, epsilon=0.1)
    with pytest.raises(TypeError, match="BinaryDataset"):
        rashomon_set(np.zeros((3, 2)), 0.01, epsilon=0.1)


def test_a_bound_below_the_optimum_gives_an_empty_set_and_says_so():
    data = BinaryDataset(*_random(20, 3, seed=0), ["a", "b", "c"])
    with pytest.warns(UserWarning, match="below the optimum"):
        rs = rashomon_set(data, 0.01, bound=0.0)
    assert rs.count == 0 and list(rs) == [] and rs.status is Status.OPTIMAL
    assert rs.optimum > 0
    assert rs.class_counts().to_numpy().sum() == 0


# -- limits ---------------------------------------------------------------------------------------------------------
@compiled_only
def test_a_node_limit_ends_with_a_status_and_a_set_complete_below_its_level():
    from optbb.datasets import load_osdt

    data = load_osdt("compas")
    full = rashomon_set(data, 0.005, epsilon=0.05, max_depth=4)
    cut = rashomon_set(data, 0.005, epsilon=0.05, max_depth=4, node_limit=4000)
    assert cut.status is Status.NODE_LIMIT
    assert cut.complete_below < full.bound
    # what the cut set holds is exactly the full set below its level
    assert cut.count == full.count_within(bound=cut.complete_below)
    assert cut.count >= 1 and cut.optimum == full.optimum
    assert len(STAGES) >= 2


@pytest.mark.parametrize("n_features", [1500, 3000])
def test_a_depth_two_set_over_many_features_stays_small(n_features):
    """At depth 2 every split of a depth-1 subproblem made two stored leaves, the features squared of them: 2,000
    features took 1.4 GB and 4,000 features 5.9 GB.  A depth-1 subproblem's best split is now counted directly."""
    from optbb.common.data import from_arrays
    from optbb.osdt import solve

    rng = np.random.default_rng(n_features)
    X = rng.integers(0, 2, (200, n_features)).astype(np.uint8)
    y = ((X[:, 0] ^ X[:, 1]) | (rng.random(200) < 0.2)).astype(int)
    data = from_arrays(X, y)
    rs = rashomon_set(data, 0.02, epsilon=0.02, max_depth=2, memory_limit="100M")
    assert rs.status is Status.OPTIMAL and rs.counters["memory_bytes"] < 40e6
    assert rs.optimum == pytest.approx(solve(data, 0.02, max_depth=2).objective)
    for tree in rs:
        assert rs.optimum - 1e-12 <= objective(tree, X, y, 0.02) <= rs.bound + 1e-12


def test_a_time_limit_before_the_optimum_gives_an_empty_set_with_the_status():
    from optbb.datasets import load_osdt

    rs = rashomon_set(load_osdt("compas"), 0.001, epsilon=0.05, max_depth=5, time_limit=1e-9)
    assert rs.status is Status.TIME_LIMIT
    assert rs.count == 0 and rs.complete_below == -math.inf
    with pytest.raises(ValueError, match="time_limit must be a positive number"):  # as every other search
        rashomon_set(load_osdt("compas"), 0.001, epsilon=0.05, max_depth=5, time_limit=0.0)


def test_ctrl_c_returns_what_was_found(monkeypatch):
    """Ctrl-C (a real SIGINT, caught by the search driver) during the widening to the bound keeps the set of the
    stage before (the optimal trees)."""
    from optbb.osdt.rashomon import engine

    data = BinaryDataset(*_random(40, 4, seed=2), [f"f{j}" for j in range(4)])
    full = rashomon_set(data, 0.005, epsilon=0.5, max_depth=3)
    widen, calls = engine.start_widen, [0]

    def interrupted(*args):
        calls[0] += 1
        if calls[0] == 2:  # the second stage: to the bound
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs before the widening starts
        return widen(*args)

    monkeypatch.setattr(engine, "start_widen", interrupted)
    rs = rashomon_set(data, 0.005, epsilon=0.5, max_depth=3)
    assert calls[0] == 2
    assert rs.status is Status.INTERRUPTED
    assert rs.complete_below == rs.optimum == full.optimum
    assert rs.count == full.count_within(epsilon=0.0) >= 1
    assert [t.n_leaves for t in rs] == [t.n_leaves for t in full[:rs.count]]


# -- the estimator --------------------------------------------------------------------------------------------------
def test_the_estimators_set_predicts_its_labels_on_raw_x():
    X, y = _random(80, 4, seed=4)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    labels = np.where(y == 1, "yes", "no")
    est = OSDTClassifier(regularization=0.02, max_depth=3).fit(frame, labels)
    rs = est.rashomon_set(epsilon=0.1)
    assert rs.optimum == pytest.approx(est.result_.objective)
    assert rs[0].n_leaves == est.tree_.n_leaves
    pred = rs.predict(frame, models=slice(0, 3))
    assert pred.shape == (min(3, rs.count), 80) and set(np.unique(pred)) <= {"yes", "no"}
    assert np.array_equal(pred[0], est.predict(frame)) or rs.levels[0].count > 1
    vi = rs.variable_importance(frame, labels)
    assert list(vi.index) == ["a", "b", "c", "d"] and bool(vi["exact"].all())
    assert (vi["min"] <= vi["max"]).all()
    with pytest.raises(ValueError, match="columns|feature"):
        rs.predict(frame[["a", "b"]])


# -- a large set, counted exactly -----------------------------------------------------------------------------------
@compiled_only
def test_compas_depth_5_counts_lists_samples_and_agrees_in_seconds():
    """About 3.3e13 trees (lambda .001, epsilon .05, depth 5): counted, the first 10,000 listed in order, 1,000
    sampled and the per-sample agreement computed."""
    from optbb.datasets import load_osdt

    data = load_osdt("compas")
    rs = rashomon_set(data, 0.001, epsilon=0.05, max_depth=5)
    assert rs.count == 33_136_324_750_064
    first = rs[:10_000]
    assert all(rs.objective_of_index(i) <= rs.objective_of_index(i + 1) for i in range(0, 9_999, 97))
    assert first[0].n_leaves >= 1
    sample = rs.sample(1_000, random_state=0)
    assert len({repr(twin_shape(t)) for t in sample}) == 1_000
    agreement = rs.agreement()
    assert agreement.shape == (data.n_samples,) and (agreement >= 0.5).all() and (agreement <= 1).all()


def test_model_reliance_equals_the_switch_over_every_pair_of_rows():
    """Fisher et al.'s e_switch written out: every ordered pair of distinct rows, row i taking row l's value."""
    from optbb.common.rashomon import SwitchPlan, model_reliance

    X, y = _random(25, 3, seed=7)
    tree = rashomon_set(BinaryDataset(X, y, ["a", "b", "c"]), 0.02, epsilon=0.0, max_depth=2)[0]
    n = len(y)
    expected = []
    for j in range(3):
        loss = 0.0
        for i in range(n):
            for other in range(n):
                if other != i:
                    row = X[i].copy()
                    row[j] = X[other, j]
                    loss += float(tree.predict(row[None, :])[0] != y[i])
        expected.append(loss / (n * (n - 1)) - float(np.mean(tree.predict(X) != y)))
    assert np.allclose(model_reliance(tree.predict, SwitchPlan.of(X, y)), expected)


def test_listing_the_first_models_by_default_says_so():
    """predict, to_frame and to_json read the first 1,000 models unless told otherwise, and warn when that leaves
    some out; an explicit choice does not warn."""
    from optbb.common.rashomon import DEFAULT_LISTED

    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (40, 6)).astype(np.uint8)
    y = rng.integers(0, 2, 40).astype(np.uint8)
    rs = rashomon_set(BinaryDataset(X, y, [f"f{j}" for j in range(6)]), 0.01, epsilon=1.0, max_depth=3)
    assert rs.count > DEFAULT_LISTED
    for call in (lambda: rs.predict(X), rs.to_frame, rs.to_json):
        with pytest.warns(UserWarning, match=f"first {DEFAULT_LISTED} of the set's {rs.count} models"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rs.predict(X, models=slice(0, 5)).shape == (5, 40)
        assert len(rs.to_frame(models=[0, 1])) == 2


def test_small_edges_of_a_set():
    """An index below -count names itself; a positive epsilon over an optimum of 0 says it widens nothing; without
    weights the levels' errors are counts (ints, as the rule lists'), feature usage an int64 Series, and a plot's
    title writes the count in full."""
    import matplotlib
    matplotlib.use("Agg")
    from optbb import plot

    rs = _small_set()
    assert all(type(lv.errors) is int for lv in rs.levels)
    assert rs.feature_usage().dtype == np.int64
    assert f"{rs.count:,} models" in plot.rashomon_objectives(rs).get_title()
    with pytest.raises(IndexError, match=f"index {-rs.count - 1} is out of range"):
        rs[-rs.count - 1]
    X = np.array([[0], [1], [0], [1]], np.uint8)
    with pytest.warns(UserWarning, match="the optimum is 0, so epsilon widens nothing"):
        zero = rashomon_set(BinaryDataset(X, X[:, 0], ["a"]), 0.0, epsilon=0.5, max_depth=2)
    assert zero.optimum == 0 and zero.bound == 0


# -- lists of indices, index(model), labelled class counts -------------------------------------------------------
def test_a_list_array_or_mask_of_indices_gives_a_list_of_models():
    rs = _small_set()
    listed = list(rs)
    for chosen, expected in (([1, 2], [1, 2]), (np.array([-1, 0]), [rs.count - 1, 0]), ([], []),
                             (np.array([], dtype=np.int64), []), (np.arange(rs.count) % 2 == 0,
                                                                  list(range(0, rs.count, 2)))):
        got = rs[chosen]
        assert isinstance(got, list) and len(got) == len(expected)
        assert all(a.same_shape(listed[j]) for a, j in zip(got, expected))
    assert [t.n_leaves for t in rs[[0, 0]]] == [listed[0].n_leaves] * 2
    with pytest.raises(IndexError, match="out of range"):
        rs[[0, rs.count]]
    with pytest.raises(IndexError, match="one entry per model"):
        rs[np.ones(rs.count + 1, dtype=bool)]
    for bad in ([0.5], np.array([1.0]), np.zeros((2, 2), dtype=np.int64), ["0"]):
        with pytest.raises(TypeError):
            rs[bad]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_index_inverts_indexing(problem):
    """index(rset[i]) == i for every member, and for the member read back from its JSON (weights, classes,
    exclude_useless and depths of the twin's problems)."""
    rs = _solve(*problem)[0]
    for i in range(rs.count):
        assert rs.index(rs[i]) == i
        assert rs.index(Tree.from_json(rs[i].to_json())) == i


def test_index_refuses_what_is_no_member():
    """A tree of a wider set is found in the narrower one exactly when its objective is within the bound; a leaf
    relabelled, other feature names or another kind of model are no members (ValueError, TypeError)."""
    data = BinaryDataset(*_random(60, 5, seed=1), [f"f{j}" for j in range(5)])
    wide = rashomon_set(data, 0.01, epsilon=0.5, max_depth=3)
    narrow = rashomon_set(data, 0.01, epsilon=0.1, max_depth=3)
    found = 0
    for i, tree in enumerate(wide):
        if wide.objective_of_index(i) <= narrow.bound + 1e-12:
            assert narrow[narrow.index(tree)].same_shape(tree)
            found += 1
        else:
            with pytest.raises(ValueError, match="not in the set"):
                narrow.index(tree)
    assert found == narrow.count < wide.count
    d = narrow[0].to_dict()
    node = d
    while "prediction" not in node:
        node = node["true"]
    node["prediction"] = 1 - node["prediction"]
    with pytest.raises(ValueError, match="not in the set"):
        narrow.index(Tree.from_dict(d))
    renamed = Tree.from_dict({**narrow[0].to_dict(), "feature_names": [f"g{j}" for j in range(5)]})
    with pytest.raises(ValueError, match="not in the set"):
        narrow.index(renamed)
    from optbb.corels import rashomon_set as rule_list_set
    with pytest.raises(TypeError, match="holds Tree models"):
        narrow.index(rule_list_set(data, 0.01, epsilon=0.1, max_length=1)[0])


def test_index_finds_the_estimators_tree_and_class_counts_are_labelled():
    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.integers(0, 2, (80, 5)), columns=[f"c{j}" for j in range(5)])
    y = np.where(X.c0.to_numpy() ^ X.c1.to_numpy() ^ (rng.random(80) < 0.15), "yes", "no")
    clf = OSDTClassifier(regularization=0.01, max_depth=3).fit(X, y)
    rs = clf.rashomon_set(epsilon=0.2)
    i = rs.index(clf.tree_)
    assert rs[i].same_shape(clf.tree_) and rs.objective_of_index(i) == pytest.approx(rs.optimum, abs=1e-12)
    counts = rs.class_counts()
    assert isinstance(counts, pd.DataFrame) and list(counts.columns) == ["no", "yes"]
    assert (counts.dtypes == np.int64).all() and counts.shape == (80, 2)
    assert counts.sum(axis=1).tolist() == [rs.count] * 80
    listed = rs.predict(X, models=slice(None))
    assert counts["yes"].tolist() == (listed == "yes").sum(0).tolist()
    assert np.allclose(rs.agreement(), counts.max(axis=1) / rs.count)


@compiled_only
def test_index_of_sampled_members_of_a_huge_set():
    """COMPAS at lambda .001 within 5 % at depth 5 (3.3e13 trees): index(rset[i]) == i for 300 sampled i, each
    found by counting."""
    from optbb.datasets import load_osdt

    rs = rashomon_set(load_osdt("compas"), 0.001, epsilon=0.05, max_depth=5)
    assert rs.count == 33_136_324_750_064
    drawn = rs.sample_indices(300, random_state=2) + [0, rs.count - 1]
    trees = [rs[i] for i in drawn]
    started = time.perf_counter()
    assert [rs.index(t) for t in trees] == drawn
    assert time.perf_counter() - started < 30
