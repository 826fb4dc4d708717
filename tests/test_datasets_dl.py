"""The DL8.5 / MurTree format loader (optbb.datasets.dl)."""
from __future__ import annotations

import gzip
import re
import shutil

import numpy as np
import pytest

from optbb.datasets.dl import DL_NAMES, DL_OPTIMA, default_shared_dir, dl_path, load_dl

from conftest import DATA, SHARED

VOTE = DATA / "dl" / "vote.txt.gz"


def test_vote_fixture_shape_labels_and_depth2_optimum():
    data = load_dl(VOTE)
    assert (data.n_samples, data.n_features) == (435, 48)
    assert int(data.y.sum()) == 267
    with gzip.open(VOTE, "rt") as fh:
        first = [int(t) for t in fh.readline().split()]
    assert data.y[0] == first[0] and data.X[0].tolist() == first[1:]
    # the published minimum errors at depth 2 (DL8.5 / STreeD), reproduced by the pair-count solver
    from optbb.common.bitset import ones
    from conftest import class_bitsets
    from optbb.osdt.dp.depth2 import depth2

    res = depth2(np.ascontiguousarray(data.bits), class_bitsets(data.y.astype(np.int64), 2), ones(435), 0.0)
    assert res[0] == DL_OPTIMA["vote"][0] == 17


@pytest.mark.parametrize("text, match", [
    ("1 0 1\n0 1\n", "ragged"),
    ("1 0 2\n0 1 1\n", "feature 1 has value 2"),
    ("2 0 1\n0 1 1\n1 0 0\n", "binary 0/1 labels only"),
    ("1 0 1\n1 1 1\n", "single class"),
    ("1 0 x\n0 1 1\n", "not an integer"),
    ("1 0 1\n0 1 --1\n", "line 2: token '--1' is not an integer"),
    ("1 0 1\n0 1 99999999999999999999\n", "line 2: token '99999999999999999999' is not an integer of the int64"),
    ("1\n0\n", "no feature columns"),
    ("\n\n", "empty file"),
])
def test_bad_files_are_value_errors(tmp_path, text, match):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_dl(p)


def test_plain_text_and_trailing_spaces(tmp_path):
    p = tmp_path / "ok.txt"
    p.write_text("1 0 1 \r\n0 1 1\n\n1 1 0")
    data = load_dl(p)
    assert data.X.tolist() == [[0, 1], [1, 1], [1, 0]] and data.y.tolist() == [1, 0, 1]
    assert data.feature_names == ["x0", "x1"]


def test_unknown_names_and_missing_shared_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="neither a file"):
        load_dl("no-such-set")
    with pytest.raises(FileNotFoundError, match="not found under"):
        load_dl("vote", shared_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown DL data set 'iris'"):
        dl_path("iris")


def test_the_default_shared_folder_is_beside_the_repository_or_optbb_shared(tmp_path, monkeypatch):
    monkeypatch.delenv("OPTBB_SHARED", raising=False)
    assert default_shared_dir() == SHARED
    (tmp_path / "data" / "dl").mkdir(parents=True)
    shutil.copy(VOTE, tmp_path / "data" / "dl")
    monkeypatch.setenv("OPTBB_SHARED", str(tmp_path))
    assert dl_path("vote") == tmp_path / "data" / "dl" / "vote.txt.gz"
    np.testing.assert_array_equal(load_dl("vote").X, load_dl(VOTE).X)


def test_names_resolve_in_the_shared_folder_and_optima_match_its_readme(shared_dir):
    readme = (shared_dir / "data" / "dl" / "README.md").read_text()
    table = {}
    for name, d2, d3 in re.findall(r"^\| ([a-z0-9-]+) \| (\d+) \| (\d+|-) \|$", readme, flags=re.M):
        table[name] = (int(d2), None if d3 == "-" else int(d3))
    assert table == DL_OPTIMA
    assert set(DL_NAMES) == set(DL_OPTIMA)
    data = load_dl("vote", shared_dir=shared_dir)
    np.testing.assert_array_equal(data.X, load_dl(VOTE).X)
