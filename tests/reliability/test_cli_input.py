"""The command line on bad CSV files, bad options and missing files: exit code 2 and a message naming the problem."""
from __future__ import annotations

from pathlib import Path

import pytest

from optbb.common.data import read_binary_csv

from .support import _cli


def _csv(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


GOOD_CSV = "a,b,c,y\n1,0,1,1\n0,1,1,0\n1,1,0,1\n0,0,0,0\n1,0,0,1\n0,1,0,0\n"

CLI_BAD_CSV = {
    "non_binary": ("a,b,y\n1,2,1\n0,1,0\n", r"binary"),
    "nan": ("a,b,y\n1,,1\n0,1,0\n", r"NaN"),
    "inf": ("a,b,y\n1,inf,1\n0,1,0\n", r"NaN or inf"),
    "text": ("a,b,y\n1,yes,1\n0,1,0\n", r"non-numeric"),
    "single_class": ("a,b,y\n1,0,1\n0,1,1\n", r"single class"),
    "empty": ("a,b,y\n", r"0 samples|empty"),
    "zero_features": ("y\n1\n0\n", r"feature column"),
    "duplicate_names": ("a,a,y\n1,0,1\n0,1,0\n", r"duplicate"),
    "ragged": ("a,b,y\n1,0,1\n0,1\n", r"NaN|fields|ragged"),
}


@pytest.mark.parametrize("command", ["corels", "osdt", "frl"])
@pytest.mark.parametrize("case", sorted(CLI_BAD_CSV))
def test_cli_bad_csv(tmp_path, command, case):
    text, match = CLI_BAD_CSV[case]
    path = _csv(tmp_path, text)
    before = Path(path).read_bytes()
    code, _, err = _cli([command, path])
    assert code == 2, err
    assert "error" in err
    import re

    assert re.search(match, err), err
    assert Path(path).read_bytes() == before


@pytest.mark.parametrize("command", ["corels", "osdt", "frl"])
@pytest.mark.parametrize("lam", ["-0.1", "nan"])
def test_cli_bad_regularization(tmp_path, command, lam):
    code, _, err = _cli([command, _csv(tmp_path, GOOD_CSV), "-r", lam])
    assert code == 2 and "regularization" in err, err


@pytest.mark.parametrize("command,lam", [("corels", "10"), ("osdt", "1"), ("frl", "10")])
def test_cli_huge_regularization_is_valid(tmp_path, command, lam):
    code, out, err = _cli([command, _csv(tmp_path, GOOD_CSV), "-r", lam, "-n", "50"] if command == "frl"
                          else [command, _csv(tmp_path, GOOD_CSV), "-r", lam])
    assert code == 0, err


@pytest.mark.parametrize("seed", ["-1", "abc", "1.5"])
def test_cli_bad_seed(tmp_path, seed):
    code, _, err = _cli(["frl", _csv(tmp_path, GOOD_CSV), "--seed", seed, "-n", "10"])
    assert code == 2 and ("seed" in err or "random_state" in err), err


@pytest.mark.parametrize("opt,val", [("--time-limit", "-1"), ("--node-limit", "0"), ("--memory-limit", "lots"),
                                     ("--time-limit", "nan")])
def test_cli_bad_limits(tmp_path, opt, val):
    code, _, err = _cli(["corels", _csv(tmp_path, GOOD_CSV), opt, val])
    assert code == 2 and "limit" in err, err


def test_cli_missing_file():
    code, _, err = _cli(["corels", "/nonexistent/file.csv"])
    assert code == 2 and "no such file" in err


def test_read_binary_csv_refuses_duplicate_header(tmp_path):
    with pytest.raises(ValueError, match="duplicate"):
        read_binary_csv(_csv(tmp_path, "a,a,y\n1,0,1\n0,1,0\n"))


@pytest.mark.parametrize("flag", ["--json", "--latex", "--dot", "--trace"])
def test_cli_output_file_that_cannot_be_written(tmp_path, flag):
    code, out, err = _cli(["corels", _csv(tmp_path, GOOD_CSV), flag, str(tmp_path)])
    assert code == 2 and f"{tmp_path}: cannot write: Is a directory" in err, err
    assert out == ""  # checked before the search: nothing solved or printed


def test_cli_unreadable_label_file_is_the_file_named(tmp_path):
    out = tmp_path / "d.out"
    out.write_text("{a} 1 0 1 0\n{b} 0 0 1 1\n")
    missing, folder = tmp_path / "none.label", tmp_path / "folder"
    folder.mkdir()
    code, _, err = _cli(["corels", str(out), "--label", str(missing)])
    assert code == 2 and f"{missing}: cannot read: No such file or directory" in err, err
    code, _, err = _cli(["corels", str(out), "--label", str(folder)])
    assert code == 2 and f"{folder}: is a directory, not a data file" in err, err
