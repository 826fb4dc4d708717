"""The command's exports predict on the CSV's own columns and labels; options and output paths are checked before any
search runs; messages say what the user can do (issue 28 items 7, 8, 9 and 11)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optbb import export
from optbb.corels import CorelsClassifier

from .support import _cli


def _table(tmp_path, labels=(0, 1), name="t.csv"):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(120, 6))
    k = np.where(X[:, 0] & X[:, 1], 1, np.where(X[:, 2] & (len(labels) > 2), 2, 0))
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    df["label"] = np.asarray(labels, dtype=object)[k]
    path = tmp_path / name
    df.to_csv(path, index=False)
    return str(path), X, df["label"].to_numpy()


def test_corels_json_of_a_csv_predicts_on_the_csvs_columns(tmp_path):
    """The command wrote rules over the mined antecedents: ``X must have 18 feature columns`` on the CSV's 6."""
    path, X, y = _table(tmp_path)
    out = tmp_path / "r.json"
    code, _, err = _cli(["corels", path, "--json", str(out)])
    assert code == 0, err
    model = export.from_json(out.read_text())
    assert model.feature_names == [f"f{j}" for j in range(6)]
    assert np.array_equal(model.predict(X), CorelsClassifier().fit(X, y.astype(np.int64)).predict(X))


@pytest.mark.parametrize("command", ["corels", "osdt", "frl"])
def test_any_two_label_values_are_read_and_predicted(tmp_path, command):
    """Labels 1/2 were refused as "y is not binary ... use optbb.Binarizer"."""
    path, X, y = _table(tmp_path, labels=(1, 2))
    out = tmp_path / "m.json"
    code, _, err = _cli([command, path, "--json", str(out), *(["-n", "50"] if command == "frl" else [])])
    assert code == 0, err
    pred = export.from_json(out.read_text()).predict(X)
    assert set(np.unique(pred)) <= {1, 2}
    if command != "frl":  # the exact solvers fit this small table perfectly
        assert np.array_equal(pred, y)


@pytest.mark.parametrize("command", ["corels", "osdt"])
def test_three_classes_are_read_where_the_solver_takes_them(tmp_path, command):
    path, X, y = _table(tmp_path, labels=("ant", "bee", "cat"))
    out = tmp_path / "m.json"
    code, _, err = _cli([command, path, "-r", "0.01", "--json", str(out)])
    assert code == 0, err
    assert np.array_equal(export.from_json(out.read_text()).predict(X), y)


def test_frl_says_it_takes_two_classes(tmp_path):
    path, _, _ = _table(tmp_path, labels=("ant", "bee", "cat"))
    code, out, err = _cli(["frl", path, "-n", "10"])
    assert code == 2 and "two classes" in err and "3" in err and "Binarizer" not in err, err
    assert out == ""


@pytest.mark.parametrize("command", ["frl", "osdt"])
def test_raw_bundled_data_set_message_says_what_to_do(command):
    code, _, err = _cli([command, "adult"])
    assert code == 2
    assert f"use it with `optbb {command}`" not in err
    assert "Binarizer" in err and "optbb datasets" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("n", ["0", "-5", "abc"])
def test_frl_iteration_count_must_be_positive(tmp_path, n):
    """``-n 0`` ran the default 3,000 iterations and exited 0."""
    path, _, _ = _table(tmp_path)
    code, out, err = _cli(["frl", path, "-n", n])
    assert code == 2 and "--n-iter" in err and "positive integer" in err, err
    assert "ITERATION_LIMIT" not in out


@pytest.mark.parametrize("command", ["corels", "osdt", "frl"])
@pytest.mark.parametrize("flag", ["--json", "--latex", "--dot", "--trace"])
def test_output_paths_are_checked_before_the_search(tmp_path, command, flag):
    """The tree was solved and printed (and a --trace written) before the command found it could not write --json."""
    path, _, _ = _table(tmp_path)
    trace = tmp_path / "trace.csv"
    bad = "/nonexistent/folder/m.out"
    args = [command, path, "--trace", str(trace), flag, bad] if flag != "--trace" else [command, path, flag, bad]
    code, out, err = _cli(args + (["-n", "20"] if command == "frl" else []))
    assert code == 2, err
    assert err.strip() == f"optbb {command}: error: {bad}: cannot write: No such file or directory (no folder " \
                          f"'/nonexistent/folder') ({flag}; nothing was run)"
    assert out == "" and not trace.exists()


def test_an_output_that_is_a_directory_is_refused_before_the_search(tmp_path):
    code, out, err = _cli(["osdt", "osdt-monk1", "--json", str(tmp_path)])
    assert code == 2 and f"{tmp_path}: cannot write: Is a directory" in err, err
    assert out == ""
