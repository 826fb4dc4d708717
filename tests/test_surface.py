"""The researcher's surface: scikit-learn conventions, the Binarizer, model exports, plots, the README example."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from optbb import Binarizer  # noqa: E402
from optbb.corels import CorelsClassifier  # noqa: E402
from optbb.datasets import load_osdt  # noqa: E402
from optbb.frl import FRLClassifier, SoftFRLClassifier  # noqa: E402
from optbb.osdt import OSDTClassifier  # noqa: E402
from sklearn_checks import expected_failed_checks  # noqa: E402  (tests/sklearn_checks.py)

ROOT = Path(__file__).resolve().parents[1]


def quick_estimators():
    """Each estimator with settings that keep a fit on small random data to a fraction of a second."""
    return [
        CorelsClassifier(regularization=0.05, max_card=1, node_limit=20000),
        OSDTClassifier(regularization=0.05, max_depth=3, node_limit=20000),
        FRLClassifier(n_iter=50, random_state=0),
        SoftFRLClassifier(n_iter=50, random_state=0),
    ]


def monk1_frame():
    d = load_osdt("monk1")
    return pd.DataFrame(d.X, columns=d.feature_names), pd.Series(np.where(d.y == 1, "yes", "no"), name="class")


# ---------------------------------------------------------------------------------------------------------------
# scikit-learn's estimator checks: no unexpected failure (the expected ones are listed with reasons)


def _failures(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, expected_failed_checks=expected_failed_checks(est), on_fail=None)
    return [(r["check_name"], repr(r["exception"])[:300]) for r in results if r["status"] == "failed"], results


@pytest.mark.parametrize("est", quick_estimators(), ids=lambda e: type(e).__name__)
def test_check_estimator_no_unexpected_failure(est):
    failed, results = _failures(est)
    assert not failed, failed
    statuses = {r["status"] for r in results}
    assert "passed" in statuses
    # every listed expected failure is still a failure (the list stays honest)
    xfail = {r["check_name"] for r in results if r["status"] == "xfail"}
    xpass = set(expected_failed_checks(est)) - xfail
    ran = {r["check_name"] for r in results}
    assert not (xpass & ran - xfail)


@pytest.mark.parametrize("est", quick_estimators(), ids=lambda e: type(e).__name__)
def test_check_estimator_on_binarized_pipeline(est):
    failed, _ = _failures(make_pipeline(Binarizer(), est))
    assert not failed, failed


def test_check_estimator_binarizer():
    failed, _ = _failures(Binarizer())
    assert not failed, failed


def test_compatibility_doc_lists_every_expected_failure():
    from sklearn_checks import BINARY_INPUT_CHECKS, CLASS_WEIGHT_CHECKS, FRL_EXTRA, PIPELINE_CHECKS

    doc = (ROOT / "docs" / "sklearn_compatibility.md").read_text()
    for name in (*BINARY_INPUT_CHECKS, *FRL_EXTRA, *CLASS_WEIGHT_CHECKS, *PIPELINE_CHECKS):
        assert name in doc, name


# ---------------------------------------------------------------------------------------------------------------
# clone, get_params(deep=True), GridSearchCV, cross_val_score


@pytest.mark.parametrize("est", quick_estimators(), ids=lambda e: type(e).__name__)
def test_clone_and_params(est):
    params = est.get_params(deep=True)
    c = clone(est)
    assert c.get_params(deep=True) == params
    c.set_params(**params)
    assert type(c)(**params).get_params() == params


def test_grid_search_and_cross_val_score():
    X, y = monk1_frame()
    grid = GridSearchCV(OSDTClassifier(max_depth=3), {"regularization": [0.02, 0.1]}, cv=3)
    grid.fit(X, y)
    assert grid.best_params_["regularization"] in (0.02, 0.1)
    assert 0.5 <= grid.best_score_ <= 1.0
    scores = cross_val_score(CorelsClassifier(regularization=0.02, max_card=2), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores >= 0.5)
    scores = cross_val_score(FRLClassifier(n_iter=100, random_state=0), X, y, cv=3)
    assert scores.shape == (3,)


def test_pandas_names_in_printed_models():
    X, y = monk1_frame()
    corels = CorelsClassifier(regularization=0.02).fit(X, y)
    osdt = OSDTClassifier(regularization=0.025).fit(X, y)
    frl = FRLClassifier(n_iter=200, random_state=0, min_class_support=0.05).fit(X, y)
    names = set(X.columns)
    assert str(osdt) == osdt.tree_.text() and str(frl) == str(frl.rule_list_)
    for text in (str(corels), str(osdt.tree_), str(frl.rule_list_)):
        assert any(n in text for n in names), text
        assert not re.search(r"\bx\d+\b", text), text
    assert list(corels.feature_names_in_) == list(X.columns)
    assert set(corels.predict(X)) <= {"yes", "no"} and set(frl.predict(X)) <= {"yes", "no"}


@pytest.mark.parametrize("est", quick_estimators(), ids=lambda e: type(e).__name__)
def test_integer_sample_weight_equals_repeated_rows(est):
    X, y = monk1_frame()
    X, y = X.iloc[:60], y.iloc[:60]
    w = np.tile([1, 2, 0], 20)
    a = clone(est).fit(X, y, sample_weight=w)
    b = clone(est).fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
    assert np.array_equal(a.predict(X), b.predict(X))
    if isinstance(est, OSDTClassifier):  # real weights: uniform ones change nothing
        assert np.array_equal(clone(est).fit(X, y, sample_weight=np.full(60, 0.5)).predict(X), clone(est).fit(X, y)
                              .predict(X))
    if type(est).__name__ in ("FRLClassifier", "SoftFRLClassifier", "OSDTClassifier", "CorelsClassifier"):
        return
    with pytest.raises(ValueError, match="integer sample_weight"):
        clone(est).fit(X, y, sample_weight=np.full(60, 0.5))


# ---------------------------------------------------------------------------------------------------------------
# Binarizer


def people():
    return pd.DataFrame({
        "age": [19, 22, 25, 26, 30, 35, 41, 52, 60, 23, 33, 47],
        "priors": [0, 1, 2, 3, 0, 5, 1, 2, 0, 7, 3, 4],
        "sex": ["Male", "Female", "Male", "Male", "Female", "Male", "Female", "Male", "Male", "Female", "Male",
                "Male"],
        "juvenile": [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1],
    })


def test_binarizer_names_and_values():
    df = people()
    b = Binarizer(thresholds={"age": [26, 40]}).fit(df)
    names = list(b.get_feature_names_out())
    assert names[:2] == ["age<26", "age<40"]
    assert "sex=Male" in names and "sex=Female" in names and "juvenile" in names
    Z = b.transform(df)
    assert Z.dtype == np.uint8 and Z.shape == (len(df), len(names))
    assert np.array_equal(Z[:, 0], (df["age"] < 26).to_numpy())
    assert np.array_equal(Z[:, names.index("juvenile")], df["juvenile"].to_numpy())
    iv = Binarizer(thresholds={"priors": [1, 2, 4]}, intervals=True).fit(df[["priors"]])
    assert list(iv.get_feature_names_out()) == ["priors<1", "priors=1", "priors=2-3", "priors>=4"]
    Zi = iv.transform(df[["priors"]])
    assert np.all(Zi.sum(axis=1) == 1)
    q = Binarizer(n_thresholds=3).fit(df)
    assert all(re.fullmatch(r"age<\d+", n) for n in q.get_feature_names_out() if n.startswith("age"))
    unseen = df.copy()
    unseen.loc[0, "sex"] = "Other"
    with pytest.raises(ValueError, match=r"unknown categories \['Other'\] in column 'sex'"):
        q.transform(unseen)
    q.set_params(handle_unknown="ignore")
    assert q.transform(unseen)[0, list(q.get_feature_names_out()).index("sex=Male")] == 0


def test_binarizer_in_pipeline_prints_names():
    df = people()
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0])
    pipe = make_pipeline(Binarizer(thresholds={"age": [26]}), CorelsClassifier(regularization=0.01))
    pipe.set_output(transform="pandas").fit(df, y)
    assert "age<26" in str(pipe[-1])
    assert pipe.score(df, y) == 1.0


def test_binarizer_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        Binarizer().fit(pd.DataFrame({"a": [1.0, np.nan, 3.0]}))
    with pytest.raises(ValueError, match="n_thresholds"):
        Binarizer(n_thresholds=0).fit(people())
    with pytest.raises(ValueError, match="feature names"):
        Binarizer().fit(people()).transform(people().iloc[:, :2])


# ---------------------------------------------------------------------------------------------------------------
# exports and plots


@pytest.fixture(scope="module")
def fitted_models():
    X, y = monk1_frame()
    corels = CorelsClassifier(regularization=0.02).fit(X, y)
    osdt = OSDTClassifier(regularization=0.025).fit(X, y)
    frl = FRLClassifier(n_iter=200, random_state=0, min_class_support=0.05).fit(X, y)
    soft = SoftFRLClassifier(n_iter=200, random_state=0, min_class_support=0.05).fit(X, y)
    return X, y, {"corels": corels, "osdt": osdt, "frl": frl, "soft": soft}


def _model(est):
    return getattr(est, "tree_", None) or est.rule_list_


@pytest.mark.parametrize("name", ["corels", "osdt", "frl", "soft"])
def test_json_round_trip_identical(fitted_models, name):
    from optbb import export

    X, _, models = fitted_models
    model = _model(models[name])
    s = export.to_json(model)
    back = export.from_json(s)
    assert type(back) is type(model)
    assert export.to_json(back) == s
    assert export.to_dict(back) == export.to_dict(model)
    assert export.to_text(back) == export.to_text(model)
    if name == "osdt":
        assert np.array_equal(back.predict(X.to_numpy()), model.predict(X.to_numpy()))
    elif name == "corels":
        A = models[name].antecedents_.transform(X.to_numpy())
        assert np.array_equal(back.predict_antecedents(A), model.predict_antecedents(A))
        assert type(model).from_json(model.to_json()) == model
    else:
        assert np.array_equal(back.predict(X.to_numpy()), model.predict(X.to_numpy()))
        assert np.allclose(back.probabilities, model.probabilities)


@pytest.mark.parametrize("name", ["corels", "osdt", "frl", "soft"])
def test_latex_and_dot(fitted_models, name):
    from optbb import export

    model = _model(fitted_models[2][name])
    tex = export.to_latex(model)
    assert tex.startswith(r"\begin{algorithmic}") and tex.endswith(r"\end{algorithmic}")
    assert tex.count(r"\If") == tex.count(r"\EndIf") or name != "osdt"
    if name == "corels" and len(model):
        assert r"\If {$(" in tex and r"\Else" in tex
    dot = export.to_dot(model)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")


def test_plots_on_agg(fitted_models, tmp_path):
    from optbb import plot

    _, _, models = fitted_models
    ax = plot.search_trace(models["corels"].result_)
    assert ax.get_xlabel() == "time (s)" and len(ax.lines) >= 2
    ax.figure.savefig(tmp_path / "trace.png")
    plot.search_trace(models["frl"].result_).figure.savefig(tmp_path / "frl.png")
    plot.tree(models["osdt"].tree_).figure.savefig(tmp_path / "tree.png")
    plot.rule_list(models["corels"].rule_list_).figure.savefig(tmp_path / "rl.png")
    plot.rule_list(models["soft"].rule_list_).figure.savefig(tmp_path / "frl_rl.png")
    ax = plot.accuracy_vs_sparsity({"CORELS": [(1, 0.7), (3, 0.8)], "OSDT": [(2, 0.75), (8, 1.0)]})
    assert len(ax.lines) == 2
    assert all((tmp_path / f).stat().st_size > 1000 for f in ("trace.png", "tree.png", "rl.png"))
    import matplotlib.pyplot as plt

    plt.close("all")


# ---------------------------------------------------------------------------------------------------------------
# progress lines


def test_progress_line_for_every_solver(monkeypatch, capsys):
    import sys

    from optbb.corels import solve as corels_solve
    from optbb.datasets import load_osdt
    from optbb.osdt import solve as osdt_solve

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    X, y = monk1_frame()
    FRLClassifier(n_iter=300, random_state=0, verbose=1).fit(X, y)
    data = load_osdt("monk1")
    osdt_solve(data, 0.01, verbose=1)
    from optbb.common.mining import mine_antecedents

    corels_solve(mine_antecedents(data, 2, 0.01, True).data, 0.01, verbose=1)
    err = capsys.readouterr().err
    for name in ("FRL", "osdt", "CORELS"):
        assert name in err, err[-500:]
    assert "obj=" in err
    # plain log lines when not a terminal, nothing at verbose=0
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    osdt_solve(data, 0.01, verbose=1)
    err = capsys.readouterr().err
    assert err.startswith("progress osdt") and "\r" not in err and "lb=" in err, err[-500:]
    FRLClassifier(n_iter=50, random_state=0, verbose=0).fit(X, y)
    osdt_solve(data, 0.01)
    assert capsys.readouterr().err == ""
