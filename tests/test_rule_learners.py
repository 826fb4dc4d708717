"""C4.5, RIPPER and SBRL baselines (optional extra ``optbb[baselines]``): a clear ImportError without it, and the
wrappers' contract with it."""
from __future__ import annotations

import builtins
import importlib.util

import numpy as np
import pytest

from optbb.baselines import rule_learners as rl


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6))
    y = np.where((X[:, 0] == 1) & (X[:, 1] == 0) | (X[:, 2] == 1) & (rng.random(n) < 0.9), "yes", "no")
    return X, y


@pytest.mark.parametrize("name,package", [("C4.5", "imodels"), ("RIPPER", "wittgenstein"), ("SBRL", "imodels")])
def test_missing_package_names_the_extra(name, package, monkeypatch):
    real_import = builtins.__import__

    def fake_import(mod, *args, **kwargs):
        if mod.split(".")[0] == package:
            raise ImportError(f"No module named {package!r}")
        return real_import(mod, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.setattr(rl.importlib, "import_module", lambda mod: fake_import(mod))
    X, y = _data(60)
    with pytest.raises(ImportError, match=r"optbb\[baselines\]") as exc:
        rl.make_model(name).fit(X, y)
    assert package in str(exc.value) and name in str(exc.value)


def test_missing_reports_absent_packages(monkeypatch):
    monkeypatch.setattr(rl.importlib.util, "find_spec", lambda pkg: None if pkg == "wittgenstein" else object())
    assert rl.missing() == {"RIPPER": "wittgenstein"}


def test_unknown_baseline_and_bad_input():
    with pytest.raises(ValueError, match="unknown rule-learner baseline"):
        rl.make_model("C5.0")
    with pytest.raises(ValueError, match="two classes"):
        rl.C45Classifier().fit(np.zeros((4, 2)), np.array([0, 1, 2, 0]))


@pytest.mark.parametrize("name", ["C4.5", "RIPPER", "SBRL"])
def test_wrappers_learn_and_predict_labels(name):
    if importlib.util.find_spec(rl.PACKAGES[name]) is None:
        pytest.skip(f"{rl.PACKAGES[name]} not installed (optional extra optbb[baselines])")
    X, y = _data()
    model = rl.make_model(name, **({"n_chains": 2, "max_iter": 300} if name == "SBRL" else {})).fit(X, y)
    pred = model.predict(X)
    assert set(pred) <= {"yes", "no"}
    assert np.mean(pred == y) > 0.8  # a planted rule set with 10 % noise on one rule
    assert model.size_ >= 2
