"""Bundled data sets, their loaders and provenance, and the ProPublica COMPAS fold pipeline.

The pipeline tests compare against the authors' files in ``../shared/data/corels/CrossValidation`` and skip when
that folder is absent.
"""
from __future__ import annotations

import fnmatch
import gzip
import hashlib
import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import optbb.datasets as ds
from optbb.common.bitset import unpack
from optbb.common.data import read_corels, read_osdt_csv
from optbb.datasets import propublica as pp

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
CV = SHARED / "corels" / "CrossValidation"
RAW = SHARED / "compas" / "raw" / pp.RAW_CSV_NAME

needs_raw = pytest.mark.skipif(not RAW.is_file(), reason=f"ProPublica raw CSV not found at {RAW} (shared data absent)")
needs_cv = pytest.mark.skipif(not (CV / "compas_0_train.out.gz").is_file(),
                              reason=f"authors' CORELS cross-validation files not found in {CV} (shared data absent)")


# --------------------------------------------------------------------------- bundled files and provenance

def _bundled_files() -> list[Path]:
    return sorted(p for p in ds.DATA_DIR.rglob("*") if p.is_file() and p.name != "PROVENANCE.md")


def _provenance_rows() -> dict[str, tuple[int, str, str]]:
    """file -> (bytes stored, sha256 of content, sha256 of the stored file) from the bundled PROVENANCE.md."""
    rows = {}
    for line in (ds.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `([^`]+)` \| (\d+) \|.*?\| `([0-9a-f]{64})` \| (?:`([0-9a-f]{64})`|same) \|", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), m.group(3), m.group(4) or m.group(3))
    return rows


def test_every_bundled_file_has_provenance_with_matching_checksums():
    rows = _provenance_rows()
    files = {p.relative_to(ds.DATA_DIR).as_posix(): p for p in _bundled_files()}
    assert set(files) == set(rows)
    for rel, path in files.items():
        size, content_sha, stored_sha = rows[rel]
        stored = path.read_bytes()
        content = gzip.decompress(stored) if rel.endswith(".gz") else stored
        assert len(stored) == size, rel
        assert hashlib.sha256(stored).hexdigest() == stored_sha, rel
        assert hashlib.sha256(content).hexdigest() == content_sha, rel


def test_no_fico_file_is_bundled_and_the_bundle_is_small():
    files = _bundled_files()
    assert not [p for p in files if "fico" in p.name.lower() or "heloc" in p.name.lower()]
    assert sum(p.stat().st_size for p in files) < 1_000_000


def test_package_data_globs_cover_every_bundled_file():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["optbb.datasets"]
    for path in [*_bundled_files(), ds.DATA_DIR / "PROVENANCE.md"]:
        rel = path.relative_to(ds.DATA_DIR.parent).as_posix()
        assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


def test_list_datasets_and_paths():
    listing = ds.list_datasets()
    assert "corels-compas-train" in listing and "osdt-car" in listing and "frl-bank-full" in listing
    for name, description in listing.items():
        assert description and "\n" not in description
        files = ds.data_files(name)
        assert files[0] == ds.data_path(name)
        assert all(f.is_file() for f in files)
    assert ds.data_path("corels/compas_train.label").is_file()
    with pytest.raises(ValueError, match="unknown data set"):
        ds.data_path("iris")
    with pytest.raises(ValueError, match="redistribut"):
        ds.data_path("osdt-fico")


# --------------------------------------------------------------------------- loaders

def test_load_compas_corels():
    train = ds.load_compas_corels()
    test = ds.load_compas_corels("test")
    assert train.X.shape == (6489, 155) and test.X.shape == (721, 155)
    assert train.feature_names == test.feature_names
    assert train.feature_names[:2] == ["sex:Female", "sex:Male"]
    assert "sex:Male,age:18-20" in train.feature_names
    assert train.label_names == ("recidivate-within-two-years:No", "recidivate-within-two-years:Yes")
    assert train.minority is not None and test.minority is None
    train.minority_bits()  # the authors' .minor agrees with the computed one
    with pytest.raises(ValueError, match="split"):
        ds.load_compas_corels("validation")


# N, M, number of label-1 rows: osdt.md section 4.2
OSDT_SHAPES = {"compas": (6907, 12, 3196), "monk1": (124, 11, 62), "monk2": (169, 11, 64), "monk3": (122, 11, 60),
               "tic-tac-toe": (958, 18, 626), "car": (1728, 15, 518)}


@pytest.mark.parametrize("name", ds.OSDT_NAMES)
def test_load_osdt(name):
    data = ds.load_osdt(name)
    n, m, pos = OSDT_SHAPES[name]
    assert data.X.shape == (n, m)
    assert int(data.y.sum()) == pos


def test_load_osdt_compas_features():
    data = ds.load_osdt("compas")
    assert data.feature_names == ["sex:Female", "age:<21", "age:<23", "age:<26", "age:<46", "juvenile-felonies:=0",
                                  "juvenile-misdemeanors:=0", "juvenile-crimes:=0", "priors:=0", "priors:=1",
                                  "priors:2-3", "priors:>3"]


def test_load_osdt_fico_needs_a_user_path(tmp_path):
    with pytest.raises(ValueError, match="not bundled.*redistribut"):
        ds.load_osdt("fico")
    with pytest.raises(FileNotFoundError):
        ds.load_osdt("fico", path=tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="unknown OSDT data set"):
        ds.load_osdt("iris")
    toy = tmp_path / "fico_binary.csv"
    toy.write_text("ExternalRiskEstimate<0.49;ExternalRiskEstimate<0.65;label\n1;1;0\n0;1;1\n0;0;1\n")
    data = ds.load_osdt("fico", path=toy)
    assert data.X.shape == (3, 2) and data.y.tolist() == [0, 1, 1]


def test_load_bank_full_items():
    items, y = ds.load_bank_full_items()
    assert len(items) == len(y) == 45211
    assert int(y.sum()) == 5289 and y.dtype == np.uint8
    assert {len(row) for row in items} == {12}
    assert items[0][:3] == ["50<=age<60", "job=management", "marital=married"]
    frame, y2 = ds.load_bank_full_items(as_frame=True)
    assert np.array_equal(y, y2)
    assert frame.shape[0] == 45211 and (frame.sum(axis=1) == 12).all()
    assert frame.columns[0] == "50<=age<60"
    # supports printed in the FRL supplement (frl.md section 7, Table 1)
    success = frame["poutcome=success"].to_numpy(dtype=bool)
    assert (int(y[success].sum()), int((1 - y[success]).sum())) == (978, 533)
    both = success & frame["default=no"].to_numpy(dtype=bool)
    assert (int(y[both].sum()), int((1 - y[both]).sum())) == (978, 531)


def test_bank_item_and_label_file_errors(tmp_path):
    from optbb.datasets import bank

    csv = tmp_path / "bank.csv"
    csv.write_text("age;job;marital;education;default;balance;housing;loan;contact;campaign;previous;poutcome;y\n"
                   "16;student;single;primary;no;10;no;no;cellular;1;0;unknown;no\n")
    with pytest.raises(ValueError, match="value 16 falls in no bin"):
        bank.discretize_bank(csv)
    (tmp_path / "bank-full_items.txt.gz").write_bytes(gzip.compress(b"age>=60 job=retired\njob=student\n"))
    (tmp_path / "bank-full_all.Y").write_text("0\n")
    with pytest.raises(ValueError, match="has 2 rows but .*bank-full_all.Y has 1 labels"):
        bank.read_bank_items(tmp_path)
    with pytest.raises(ValueError, match="give data_dir"):
        bank.read_bank_items(items_path=tmp_path / "bank-full_items.txt.gz")
    (tmp_path / "bank-full_all.Y").write_text("0\n2\n")
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        bank.read_bank_items(tmp_path)
    with pytest.raises(ValueError, match="length mismatch: 1 item rows but 2 labels"):
        ds.items_to_dataset([["job=student"]], np.array([0, 1]))


def test_load_adult_reads_the_uci_files(tmp_path):
    row = ("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, "
           "40, United-States, ")
    (tmp_path / "adult.data").write_text(row + "<=50K\n")
    (tmp_path / "adult.test").write_text("|1x3 Cross validator\n" + row + ">50K.\n")
    X, y = ds.load_adult("train", tmp_path)
    assert list(X.columns) == list(ds.ADULT_COLUMNS[:-1]) and X["workclass"].tolist() == ["State-gov"]
    assert y.name == "income" and y.tolist() == ["<=50K"]
    X, y = ds.load_adult("test", tmp_path)
    assert X["age"].tolist() == [39] and y.tolist() == [">50K"]  # the test file's comment line and period dropped
    with pytest.raises(FileNotFoundError, match="holds no adult.data"):
        ds.load_adult("train", tmp_path / "elsewhere")


# --------------------------------------------------------------------------- miner and writer (no shared data)

def test_mine_categorical_reference_rules():
    # 10 rows; with min_support 0.15 the support must lie strictly in (1.5, 8.5)
    table = pd.DataFrame({
        "a": ["x", "y", "x", "x", "y", "x", "x", "z", "x", "x"],
        "b": ["p", "q", "q", "p", "q", "p", "q", "p", "p", "p"],
        pp.LABEL: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
    })
    mined = pp.mine_categorical(table, attributes=("a", "b"), min_support=0.15)
    # 'a:z' (support 1) is dropped and takes no part in pairs; values keep their order of first appearance
    assert mined.data.feature_names == ["a:x", "a:y", "b:p", "b:q", "a:x,b:p", "a:x,b:q", "a:y,b:q"]
    assert mined.source_feature_names == ["a:x", "a:y", "a:z", "b:p", "b:q"]
    assert mined.data.X[:, 4].tolist() == [1, 0, 0, 1, 0, 1, 0, 0, 1, 1]
    # 'a:y,b:p' has support 0 and is not kept; support 2 is kept (strictly above 1.5)
    assert int(mined.data.X[:, 6].sum()) == 2
    # the same antecedents evaluated on other rows
    other = table.iloc[[7, 1]].reset_index(drop=True)
    X = mined.transform(pp.onehot(other, mined.source_feature_names))
    assert X.tolist() == [[0, 0, 1, 0, 0, 0, 0], [0, 1, 0, 1, 0, 0, 1]]
    with pytest.raises(ValueError, match="no antecedent has support strictly between 1.5 and 8.5 of 10 rows"):
        pp.mine_categorical(table.assign(a="x", b="p"), attributes=("a", "b"), min_support=0.15)


def test_write_corels_round_trip(tmp_path):
    data = ds.load_compas_corels("test")
    paths = pp.write_corels(data, tmp_path / "compas_test")
    assert [p.suffix for p in paths] == [".out", ".label", ".minor"]
    back = read_corels(*paths)
    assert back.feature_names == data.feature_names and back.label_names == data.label_names
    assert np.array_equal(back.X, data.X) and np.array_equal(back.y, data.y)
    # the bundled test split is byte-identical to what the writer produces
    assert paths[0].read_bytes() == gzip.decompress(ds.data_path("corels/compas_test.out.gz").read_bytes())
    assert paths[1].read_bytes() == ds.data_path("corels/compas_test.label").read_bytes()


def test_missing_raw_csv_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not bundled"):
        pp.propublica_categorical(tmp_path / "nothing.csv")


def test_folds_partition_rows():
    folds = pp.propublica_folds(n_samples=6907)
    assert len(folds) == 10
    assert [len(te) for _, te in folds] == [691] * 7 + [690] * 3
    assert np.array_equal(np.sort(np.concatenate([te for _, te in folds])), np.arange(6907))
    for train, test in folds:
        assert len(train) + len(test) == 6907 and not set(train) & set(test)


# --------------------------------------------------------------------------- ProPublica pipeline vs the authors

@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return pp.propublica_categorical(RAW)


@needs_raw
def test_propublica_categorical(table):
    assert len(table) == 6907
    assert list(table.columns) == [*pp.ATTRIBUTES, pp.LABEL]
    assert sorted(table["age"].unique()) == ["18-20", "21-22", "23-25", "26-45", ">45"]
    assert sorted(table["priors"].unique()) == ["2-3", "=0", "=1", ">3"]
    assert int(table[pp.LABEL].sum()) == 3196


@needs_raw
@needs_cv
def test_propublica_binary_equals_authors_file():
    ours = pp.propublica_binary(RAW)
    theirs = pd.read_csv(CV / "compas-binary.csv")
    assert list(ours.columns) == list(theirs.columns)
    assert np.array_equal(ours.to_numpy(), theirs.to_numpy())


@needs_raw
@needs_cv
def test_folds_match_reconstructed_test_indices():
    for i, (_, test_idx) in enumerate(pp.propublica_folds(RAW)):
        idx = np.loadtxt(CV / "reconstructed_test" / f"compas_{i}_test.idx", dtype=np.int64)
        assert np.array_equal(test_idx, idx), i


@needs_raw
@needs_cv
@pytest.mark.parametrize("fold", range(10))
def test_fold_matches_authors(table, fold, tmp_path):
    train, test = pp.fold_datasets(table, fold)
    theirs = read_corels(CV / f"compas_{fold}_train.out.gz", CV / f"compas_{fold}_train.label",
                         CV / f"compas_{fold}_train.minor")
    assert train.feature_names == theirs.feature_names
    assert np.array_equal(train.X, theirs.X)
    assert np.array_equal(train.y, theirs.y) and train.label_names == theirs.label_names
    # the equivalent-points minority that optbb.common computes from our data flags as many points in every
    # equivalence class as the authors' .minor (minority_bits raises otherwise)
    train.minority = theirs.minority
    assert unpack(train.minority_bits(), train.n_samples).sum() == unpack(theirs.minority, train.n_samples).sum()
    # the written files are byte-identical to the authors'
    out, label, minor = pp.write_corels(train, tmp_path / f"compas_{fold}_train")
    assert out.read_bytes() == gzip.decompress((CV / f"compas_{fold}_train.out.gz").read_bytes())
    assert label.read_bytes() == (CV / f"compas_{fold}_train.label").read_bytes()
    assert minor.read_bytes() == (CV / f"compas_{fold}_train.minor").read_bytes()
    # test fold: the training fold's antecedents on the test rows, as in the reconstructed test files
    rec = read_corels(CV / "reconstructed_test" / f"compas_{fold}_test.out",
                      CV / "reconstructed_test" / f"compas_{fold}_test.label")
    assert test.feature_names == train.feature_names == rec.feature_names
    assert np.array_equal(test.X, rec.X) and np.array_equal(test.y, rec.y)
    assert train.n_samples + test.n_samples == 6907


@needs_raw
def test_propublica_fold_dataset_public_api():
    train = pp.propublica_fold_dataset(RAW, fold=3, split="train")
    test = pp.propublica_fold_dataset(RAW, fold=3, split="test")
    assert 121 <= train.n_features <= 123 and test.feature_names == train.feature_names
    assert (train.n_samples, test.n_samples) == (6216, 691)
    with pytest.raises(ValueError, match="split"):
        pp.propublica_fold_dataset(RAW, fold=0, split="valid")
    with pytest.raises(ValueError, match="fold"):
        pp.propublica_fold_dataset(RAW, fold=10)


@pytest.mark.skipif(not (SHARED / "osdt" / "monk1-train.csv").is_file(), reason="shared OSDT data absent")
def test_read_osdt_bundled_equals_shared_copy():
    shared = SHARED / "osdt" / "monk1-train.csv"
    a, b = ds.load_osdt("monk1"), read_osdt_csv(shared)
    assert a.feature_names == b.feature_names and np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
