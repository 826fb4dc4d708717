"""Models own their forms: one JSON shape per model, ``optbb.export`` only dispatches, every JSON predicts on raw
features after a round trip, and anything malformed is a ValueError (never a KeyError, TypeError, ...)."""
from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest

from optbb import export
from optbb.common.data import from_arrays
from optbb.corels import CorelsClassifier, RuleList
from optbb.corels.model import Rule
from optbb.corels import solve as corels_solve
from optbb.frl import FallingRuleList, FRLClassifier, SoftFRLClassifier
from optbb.osdt import OSDTClassifier, Tree


def data():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.integers(0, 2, size=(120, 5)), columns=["a", "b", "c<3", "d", "e"])
    y = np.where(((X["a"] & ~X["b"].astype(bool)) | X["c<3"]).to_numpy(), "yes", "no")
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = data()
    return X, y, {
        "corels": CorelsClassifier(regularization=0.01).fit(X, y),
        "corels-negations": CorelsClassifier(regularization=0.005, max_card=2).fit(X, y),
        "osdt": OSDTClassifier(regularization=0.02).fit(X, y),
        "frl": FRLClassifier(n_iter=100, random_state=0, max_card=2, min_class_support=0.05).fit(X, y),
        "softfrl": SoftFRLClassifier(n_iter=100, random_state=0, min_class_support=0.05).fit(X, y),
    }


def model_of(est):
    return getattr(est, "tree_", None) or est.rule_list_


def raw_predict(model, X):
    """Predictions of a model read back from JSON, on raw 0/1 features (the labels it stores)."""
    return model.predict(np.asarray(X))


@pytest.mark.parametrize("name", ["corels", "corels-negations", "osdt", "frl", "softfrl"])
def test_one_json_shape_and_raw_feature_predictions(fitted, name):
    X, y, ests = fitted
    est = ests[name]
    model = model_of(est)
    s = model.to_json()
    assert s == export.to_json(model)  # the model's own JSON is export's JSON
    assert "NaN" not in s and "Infinity" not in s
    back = export.from_json(s)
    assert type(back) is type(model) and back.to_json() == s
    assert type(model).from_json(s).to_json() == s
    # the JSON alone predicts on the raw features what the fitted estimator predicts
    assert np.array_equal(raw_predict(back, X), est.predict(X))


def test_corels_json_is_self_contained(fitted):
    """Issue: rules stored only the antecedent index and name; now each rule holds its literals."""
    X, _, ests = fitted
    d = json.loads(ests["corels-negations"].rule_list_.to_json())
    assert d["feature_names"] == list(X.columns)
    for rule in d["rules"]:
        assert rule["features"] and len(rule["features"]) == len(rule["negated"])
    # a list solved on an antecedent table directly: the antecedent columns are its features
    A = np.asarray(X, dtype=np.uint8)
    result = corels_solve(from_arrays(A, (np.asarray(data()[1]) == "yes").astype(np.uint8), list(X.columns)), 0.01)
    back = RuleList.from_json(result.model.to_json())
    assert np.array_equal(back.predict(A), result.model.predict_antecedents(A))


def test_tree_to_json_is_read_by_export(fitted):
    tree = fitted[2]["osdt"].tree_
    back = export.from_json(tree.to_json())
    assert isinstance(back, Tree) and sorted(back.leaves) == sorted(tree.leaves) and back.classes == tree.classes
    # the nested structure is still walked as before
    d = tree.to_dict()
    node = d
    while "prediction" not in node:
        node = node["false"]
    assert node["prediction"] in tree.classes
    # the flat form older versions of optbb.export wrote is still read
    flat = {"model": "Tree", "leaves": [[list(lit) for lit in leaf] for leaf in tree.leaves],
            "predictions": tree.predictions, "feature_names": tree.feature_names, "n_samples": tree.n_samples,
            "errors": tree.errors, "classes": list(tree.classes), "class_counts": tree.class_counts}
    assert export.from_json(json.dumps(flat)).to_json() == tree.to_json()


def test_non_finite_numbers_are_written_as_null():
    rl = RuleList([], 1)  # objective and regularization unknown (NaN)
    s = rl.to_json()
    json.loads(s, parse_constant=lambda c: pytest.fail(f"non-finite constant {c} in JSON"))
    back = RuleList.from_json(s)
    assert np.isnan(back.objective) and back.default_prediction == 1


BAD_VALUES = [None, True, -1, 2, 10 ** 6, 0.5, "x", "", [], [1, "a"], [[0, 1]], {}, {"model": "Tree"}]


def _paths(obj, prefix=()):
    """Every path to a value inside a JSON object (keys and list indices)."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            yield from _paths(v, prefix + (i,))


def _mutations(d):
    for path in _paths(d):
        if not path:
            continue
        parent = d
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict):
            gone = copy.deepcopy(d)
            target = gone
            for key in path[:-1]:
                target = target[key]
            del target[path[-1]]
            yield path, "deleted", gone
        for bad in BAD_VALUES:
            m = copy.deepcopy(d)
            target = m
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = copy.deepcopy(bad)
            yield path, bad, m


@pytest.mark.parametrize("name", ["corels-negations", "osdt", "frl"])
def test_malformed_json_raises_value_error_only(fitted, name):
    X, _, ests = fitted
    d = json.loads(model_of(ests[name]).to_json())
    n_read = n_refused = 0
    for path, bad, m in _mutations(d):
        try:
            model = export.from_json(json.dumps(m))
        except ValueError:
            n_refused += 1
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"{name}: {path} -> {bad!r} raised {type(exc).__name__}: {exc}")
        n_read += 1
        # a model that was read is usable: it writes itself again and predicts or refuses with a ValueError
        model.to_json()
        try:
            raw_predict(model, X)
        except ValueError:
            pass
    assert n_refused > 50 and n_read > 0


@pytest.mark.parametrize("text", ["", "{", "[]", "null", "3", '"RuleList"', "{}", '{"model": "Forest"}',
                                  '{"model": ["RuleList"]}', '{"model": "RuleList"}', '{"model": "Tree"}',
                                  '{"model": "FallingRuleList", "antecedents": 5}', b"\xff\xfe", "[" * 100_000])
def test_garbage_is_a_value_error(text):
    with pytest.raises(ValueError):
        export.from_json(text)
    for cls in (RuleList, FallingRuleList, Tree):
        with pytest.raises(ValueError):
            cls.from_json(text)


@pytest.mark.parametrize("reader", [export, RuleList, FallingRuleList, Tree])
def test_readers_refuse_what_is_not_a_dict_or_text(reader):
    with pytest.raises(ValueError, match="must be read from a dict, got list"):
        reader.from_dict([])
    with pytest.raises(ValueError, match="JSON must be text, got dict"):
        reader.from_json({"model": "Tree"})


def test_tree_nested_deeper_than_python_recurses_is_a_value_error():
    import sys

    depth = sys.getrecursionlimit() + 100  # a chain of splits, one feature each
    node = {"prediction": 0}
    for f in reversed(range(depth)):
        node = {"feature": f, "true": {"prediction": 1}, "false": node}
    d = {"model": "Tree", "feature_names": [f"x{j}" for j in range(depth)], "classes": None, **node}
    with pytest.raises(ValueError, match="malformed Tree: nested too deeply"):
        export.from_dict(d)


def test_export_imports_no_model_internals():
    import ast
    from pathlib import Path

    import optbb.export as ex

    tree = ast.parse(Path(ex.__file__).read_text())
    imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names}
    assert imported <= {"annotations", "dumps", "loads", "RuleList", "FallingRuleList", "Tree"}, imported
    with pytest.raises(TypeError, match="no exporter"):
        export.to_json(object())


def test_tree_dot_leaf_label_breaks_the_line_before_its_sample_count():
    tree = Tree([((0, 1),), ((0, 0),)], [1, 0], ['a"\\'], n_samples=[3, 4], errors=[0, 1], classes=['y"es', "no"])
    dot = tree.to_dot()
    assert r'label="predict no\n3 samples"' in dot and r'label="predict y\"es\n4 samples"' in dot
    assert r'label="a\"\\"' in dot


def test_weighted_class_counts_keep_their_type_through_a_round_trip():
    X, y = data()
    w = np.linspace(0.5, 2.0, len(y))
    texts = [model_of(est.fit(X, y, sample_weight=w)).to_json()
             for est in (CorelsClassifier(regularization=0.01), OSDTClassifier(regularization=0.02))]
    assert "0.0" in texts[0]
    for s in texts:
        assert export.to_json(export.from_json(s)) == s


def test_class_counts_must_hold_one_value_per_class():
    rl = {"model": "RuleList", "default_prediction": 0, "label_names": ["n", "p"], "feature_names": ["a"],
          "rules": [{"antecedent": 0, "name": "a", "prediction": 1, "features": [0], "negated": [False],
                     "class_counts": [1, 5]}], "default_class_counts": [4, 1]}
    tree = {"model": "Tree", "feature_names": ["a"], "classes": ["n", "p"], "feature": 0,
            "true": {"prediction": "p", "class_counts": [1, 2]}, "false": {"prediction": "n", "class_counts": [4, 0]}}
    assert export.from_dict(rl).to_dict() and export.from_dict(tree).to_dict()
    places = [(rl, lambda d: d["rules"][0], "class_counts"), (rl, lambda d: d, "default_class_counts"),
              (tree, lambda d: d["true"], "class_counts")]
    for bad in ([1, 2, 3], [7]):
        for d, place, key in places:
            m = copy.deepcopy(d)
            place(m)[key] = bad
            with pytest.raises(ValueError, match=r"class_counts must hold 2 values \(one per class\)"):
                export.from_dict(m)
    ragged = {**tree, "classes": None, "true": {"prediction": 1, "class_counts": [1, 2, 3]},
              "false": {"prediction": 0, "class_counts": [4, 0]}}
    with pytest.raises(ValueError, match="class_counts must hold 3 values"):
        export.from_dict(ragged)


@pytest.mark.parametrize("name", ["corels", "osdt", "frl"])
def test_models_read_from_json_refuse_raw_features_they_cannot_read(fitted, name):
    X, _, ests = fitted
    model = export.from_json(model_of(ests[name]).to_json())
    A = np.asarray(X)
    two = A.copy()
    two[3, 2] = 2
    for bad, match in ((A[:, :4], r"X must have 5 feature columns, got shape \(120, 4\)"),
                       (np.hstack([A, A[:, :1]]), r"X must have 5 feature columns, got shape \(120, 6\)"),
                       (A[0], r"X must have 5 feature columns, got shape \(5,\)"),
                       (two, r"X is not binary: value .*2.* at index \(3, 2\)")):
        with pytest.raises(ValueError, match=match):
            raw_predict(model, bad)
    if not isinstance(model, RuleList):
        with pytest.raises(ValueError, match="X is not binary"):
            model.predict_proba(np.where(A == 1, np.nan, A))


def test_rule_list_json_with_more_classes_than_corels_reads_is_refused():
    d = RuleList([], 0, tuple(str(j) for j in range(255))).to_dict()
    assert len(export.from_dict(d).predict(np.zeros((2, 0)))) == 2
    d["label_names"].append("255")
    d["default_prediction"] = 255
    with pytest.raises(ValueError, match="label_names must hold at most 255 names"):
        export.from_dict(d)


def test_latex_conditions_are_text_inside_the_math():
    rl = RuleList([Rule(0, "not age<=30", 1), Rule(1, "x_1>=2", 0)], 1)
    tex = export.to_latex(rl)
    assert r"\If {$(\text{not age$<$=30})$}" in tex and r"\ElsIf {$(\text{x\_1$>$=2})$}" in tex
    tree = Tree([((0, 1),), ((0, 0),)], [1, 0], ["c<3"])
    assert r"\If {$(\text{c$<$3})$}" in export.to_latex(tree)


def test_latex_escapes_a_backslash_once():
    tree = Tree([((0, 1),), ((0, 0),)], [1, 0], ["a\\b{c}"], classes=["50%", "x&y"])
    tex = export.to_latex(tree)
    assert r"\text{a\textbackslash{}b\{c\}}" in tex and r"\text{50\%}" in tex and r"\text{x\&y}" in tex


def test_more_correct_or_misclassified_samples_than_captured_is_refused():
    rl = RuleList([Rule(0, "a", 1, 5, 4, (0,), (False,))], 0, default_captured=3, default_correct=3,
                  feature_names=["a"]).to_dict()
    tree = Tree([((0, 1),), ((0, 0),)], [1, 0], ["a"], n_samples=[3, 4], errors=[3, 0]).to_dict()
    for d in (rl, tree):
        assert export.from_dict(d).to_dict() == d
    for field, value, match in (("n_correct", 6, r"rule 0 n_correct must lie in \[0, 5\], got 6"),
                                ("default_correct", 4, r"default_correct must lie in \[0, 3\], got 4")):
        m = copy.deepcopy(rl)
        (m["rules"][0] if field == "n_correct" else m)[field] = value
        with pytest.raises(ValueError, match=match):
            export.from_dict(m)
    m = copy.deepcopy(tree)
    m["true"]["errors"] = 4
    with pytest.raises(ValueError, match="a leaf has more errors than samples"):
        export.from_dict(m)
