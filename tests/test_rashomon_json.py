"""A Rashomon set written with ``to_json`` and read back with ``RashomonSet.from_json``: the
same summary, levels, summaries and models in order, for trees (0/1 features, numeric thresholds, weights), rule
lists, an empty set, a set written with some of its models, a partial set and a set past 2**53 models."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from optbb import RashomonSet
from optbb.common.data import BinaryDataset
from optbb.common.result import Status
from optbb.corels import CorelsClassifier
from optbb.corels import rashomon_set as rule_list_set
from optbb.osdt import OSDTClassifier, cut_dataset
from optbb.osdt import rashomon_set as tree_set


def binary(n=60, m=5, seed=1, k=2, weights=False) -> BinaryDataset:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(n) < 0.2)).astype(np.uint8) if k == 2 else rng.integers(0, k, n)
    w = rng.integers(1, 8, n) / 4 if weights else None
    return BinaryDataset(X, y.astype(np.uint8), [f"f{j}" for j in range(m)], w, tuple(f"c{c}" for c in range(k)))


def form(model) -> str:
    return json.dumps(model.to_dict(), sort_keys=True)


def assert_same_set(a: RashomonSet, b: RashomonSet, X=None) -> None:
    """Everything a user reads of ``a`` is the same in ``b``, every model it holds equal in order."""
    for name in ("family", "count", "levels", "optimum", "bound", "status", "complete_below", "regularization",
                 "count_complete"):
        got, want = getattr(b, name), getattr(a, name)
        assert got == want or (isinstance(want, float) and np.isnan(want) and np.isnan(got)), name
    pd.testing.assert_frame_equal(b.objectives(), a.objectives())
    pd.testing.assert_frame_equal(b.class_counts(), a.class_counts())
    pd.testing.assert_series_equal(b.feature_usage(), a.feature_usage())
    assert np.array_equal(b.agreement(), a.agreement(), equal_nan=True)
    assert b.counters == json.loads(json.dumps(a.counters))
    held = b.models_held
    assert [form(m) for m in b[:held]] == [form(m) for m in a[:held]]
    assert b[:held] == a[:held]
    assert [b.index(m) for m in a[:held]] == list(range(held))
    if held:
        pd.testing.assert_frame_equal(b.to_frame(models=slice(0, held)), a.to_frame(models=slice(0, held)))
    if X is not None and held:
        assert np.array_equal(b.predict(X, models=slice(0, held)), a.predict(X, models=slice(0, held)))


def round_trip(rs: RashomonSet, **kwargs) -> RashomonSet:
    return RashomonSet.from_json(rs.to_json(models=slice(None), **kwargs))


def test_tree_sets_read_back_whole():
    for data in (binary(), binary(seed=2, k=3), binary(seed=3, weights=True)):
        rs = tree_set(data, 0.01, epsilon=0.3, max_depth=3)
        back = round_trip(rs)
        assert back.models_held == back.count == rs.count > 5
        assert_same_set(rs, back, data.X)
        assert [form(m) for m in back] == [form(m) for m in rs]
        assert round_trip(back).to_json(models=slice(None)) == back.to_json(models=slice(None))


def test_a_set_over_numeric_columns_reads_back_with_its_cuts(tmp_path):
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    X, y = d.data, d.target.to_numpy()
    w = np.random.default_rng(1).integers(1, 4, len(X)).astype(float)
    rs = tree_set(cut_dataset(X, y, sample_weight=w), 0.02, epsilon=0.1, max_depth=2, classes=list(d.target_names))
    rs.to_json(tmp_path / "iris.json", models=slice(None))
    back = RashomonSet.from_json(tmp_path / "iris.json")
    assert_same_set(rs, back, X)  # predict takes raw rows, as the set's did
    # the set read back measures each tree through its predictions, the set itself in compiled code: weighted
    # sums in another order, equal up to rounding
    got, want = (s.variable_importance(X, d.target_names[y], models=slice(None)) for s in (back, rs))
    assert got.index.equals(want.index) and got["exact"].equals(want["exact"])
    assert np.allclose(got[["min", "max", "optimal"]], want[["min", "max", "optimal"]], rtol=1e-12, atol=1e-15)
    clf = OSDTClassifier(regularization=0.02, max_depth=2).fit(X, y)
    es = clf.rashomon_set(epsilon=0.1)
    eback = RashomonSet.from_json(es.to_json(models=slice(None)))
    assert_same_set(es, eback, X)
    assert eback.index(clf.tree_) == es.index(clf.tree_)


def test_rule_list_sets_read_back_whole():
    data = binary(m=6, seed=4, k=3, weights=True)
    rs = rule_list_set(data, 0.01, epsilon=0.3, max_length=3)
    back = round_trip(rs)
    assert back.count == rs.count > 5
    assert_same_set(rs, back, data.X)
    rng = np.random.default_rng(4)
    X = pd.DataFrame((rng.random((80, 4)) < 0.5).astype(int), columns=["young", "priors", "male", "juvenile"])
    y = np.where((X.young & X.priors) | X.juvenile, "yes", "no")
    clf = CorelsClassifier(regularization=0.02, max_card=2).fit(X, y)
    es = clf.rashomon_set(epsilon=0.15)
    eback = RashomonSet.from_json(es.to_json(models=slice(None)))
    assert_same_set(es, eback, X)
    assert list(eback.class_counts().columns) == ["no", "yes"]
    assert eback.index(clf.rule_list_) == es.index(clf.rule_list_)


def test_an_empty_set_reads_back_empty():
    data = binary()
    with pytest.warns(UserWarning, match="below the optimum"):
        rs = tree_set(data, 0.01, bound=0.0, max_depth=2)
    back = round_trip(rs)
    assert back.count == 0 and list(back) == [] and back.levels == []
    assert_same_set(rs, back)


def test_a_set_written_with_some_models_holds_only_those():
    data = binary()
    rs = tree_set(data, 0.01, epsilon=0.3, max_depth=3)
    for chosen in (slice(0, 5), [7, 2, -1]):
        back = RashomonSet.from_json(rs.to_json(models=chosen))
        picked = list(range(rs.count))[chosen] if isinstance(chosen, slice) else [7, 2, rs.count - 1]
        assert back.count == rs.count and back.models_held == len(picked)
        pd.testing.assert_frame_equal(back.objectives(), rs.objectives())
        pd.testing.assert_frame_equal(back.class_counts(), rs.class_counts())
        assert [form(back[i]) for i in picked] == [form(rs[i]) for i in picked]
        assert back[picked] == rs[picked]
        assert [back.index(rs[i]) for i in picked] == picked
        missing = next(i for i in range(rs.count) if i not in picked)
        with pytest.raises(IndexError, match=f"holds {len(picked)} of its {rs.count} models"):
            back[missing]
        with pytest.raises(ValueError, match="not in the set"):
            back.index(rs[missing])
        with pytest.raises(IndexError, match="was not written"):
            list(back)


def test_a_partial_set_reads_back_partial():
    data = binary(m=8, seed=3)
    A, y = data.X, data.y
    with pytest.warns(UserWarning, match="partial"):
        rs = rule_list_set(BinaryDataset(A, y, [f"a{j}" for j in range(8)]), 0.01, epsilon=0.5, max_length=5,
                           node_limit=3000)
    assert rs.status is Status.NODE_LIMIT
    with pytest.warns(UserWarning, match="partial"):
        back = round_trip(rs)
    assert_same_set(rs, back, A)


def test_a_set_past_2_53_models_keeps_its_counts_exact():
    """COMPAS at lambda .001 within 5 % at depth 5 (33,136,324,750,064 trees): the count, the levels' counts and
    the class counts read back exactly; the first 20 trees are held."""
    from optbb.datasets import load_osdt

    rs = tree_set(load_osdt("compas"), 0.001, epsilon=0.05, max_depth=5)
    text = rs.to_json(models=slice(0, 20))
    assert '"count": "33136324750064"' not in text and '"count": 33136324750064' in text
    back = RashomonSet.from_json(text)
    assert back.count == rs.count and back.levels == rs.levels and back.models_held == 20
    pd.testing.assert_frame_equal(back.class_counts(), rs.class_counts())
    assert [back.index(t) for t in rs[:20]] == list(range(20))


def test_summaries_can_be_left_out_and_bad_json_is_refused(tmp_path):
    rs = tree_set(binary(), 0.01, epsilon=0.3, max_depth=3)
    lean = RashomonSet.from_json(rs.to_json(models=slice(None), summaries=False))
    assert "class_counts" not in json.loads(rs.to_json(models=[0], summaries=False))
    with pytest.raises(ValueError, match="no class counts"):
        lean.class_counts()
    with pytest.raises(ValueError, match="no feature usage"):
        lean.feature_usage()
    good = json.loads(rs.to_json(models=slice(0, 3)))
    for broken, match in (({**good, "count": good["count"] + 1}, "not the sum"),
                          ({**good, "status": "done"}, "unknown status"),
                          ({**good, "family": "forests"}, "unknown family"),
                          ({**good, "levels": [[0.1, 2]]}, "level 0"),
                          ({**good, "model_indices": [[0, 2]]}, "one distinct index per model"),
                          ({**good, "model_indices": [[rs.count - 1, 3]]}, "passes the set"),
                          ({**good, "model": "Tree"}, "not the JSON of a Rashomon set"),
                          ({k: v for k, v in good.items() if k != "bound"}, "missing field 'bound'")):
        with pytest.raises(ValueError, match=match):
            RashomonSet.from_json(json.dumps(broken))
    for source, match in (("not json", "neither"), (tmp_path / "absent.json", "neither"), (3, "text or a path")):
        with pytest.raises(ValueError, match=match):
            RashomonSet.from_json(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RashomonSet.from_json(json.dumps(good)).models_held == 3
