"""The optbb command on bundled data: output, exit codes (0 certified, 2 bad input, 3 limit), bad input."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from optbb.cli import EXIT_INPUT, EXIT_LIMIT, EXIT_OK, main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_demo(capsys):
    rc, out, _ = run(capsys, "demo")
    assert rc == EXIT_OK
    assert sum(line.startswith("== ") for line in out.splitlines()) == 3
    assert "CORELS" in out and "OSDT" in out and "FRL" in out
    assert "status=OPTIMAL" in out and "ITERATION_LIMIT" in out


def test_corels_bundled(capsys):
    rc, out, _ = run(capsys, "corels", "corels-compas-train", "-r", "0.02")
    assert rc == EXIT_OK
    assert "status=OPTIMAL" in out and "if ({" in out and "else ({" in out


def test_osdt_bundled(capsys):
    rc, out, _ = run(capsys, "osdt", "osdt-monk1", "-r", "0.1")
    assert rc == EXIT_OK
    assert "status=OPTIMAL" in out and "predict" in out


def test_frl_bundled(capsys):
    rc, out, _ = run(capsys, "frl", "frl-bank-full", "-n", "200")
    assert rc == EXIT_OK
    assert "ITERATION_LIMIT" in out and "ELSE" in out and "objective =" in out


def test_datasets(capsys):
    rc, out, _ = run(capsys, "datasets")
    assert rc == EXIT_OK
    for name in ("corels-compas-train", "osdt-monk1", "frl-bank-full"):
        assert name in out


def test_reproduce_list(capfd):
    # the studies run in a child process (python -m experiments of this checkout), so read the file descriptors
    rc = main(["reproduce", "--list"])
    out, _ = capfd.readouterr()
    assert rc == EXIT_OK
    assert "osdt-" in out or "corels-" in out


def test_missing_file_exits_2(capsys, tmp_path):
    rc, out, err = run(capsys, "corels", str(tmp_path / "nope.csv"))
    assert rc == EXIT_INPUT
    assert "no such file" in err and "optbb corels: error" in err
    rc, _, err = run(capsys, "osdt", str(tmp_path / "nope.csv"))
    assert rc == EXIT_INPUT and "no such file" in err


def test_bad_values_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,label\n0,2,1\n1,0,0\n")
    rc, _, err = run(capsys, "osdt", str(bad))
    assert rc == EXIT_INPUT and "binary" in err
    rc, _, err = run(capsys, "osdt", "osdt-monk1", "-r", "-1")
    assert rc == EXIT_INPUT and "regularization" in err


def test_limit_exits_3(capsys):
    rc, out, _ = run(capsys, "corels", "corels-compas-train", "-r", "0.001", "--node-limit", "2000")
    assert rc == EXIT_LIMIT and "NODE_LIMIT" in out
    rc, out, _ = run(capsys, "osdt", "osdt-compas", "-r", "0.001", "--node-limit", "500")
    assert rc == EXIT_LIMIT and "NODE_LIMIT" in out


def test_trace_file(capsys, tmp_path):
    path = tmp_path / "trace.csv"
    rc, out, _ = run(capsys, "osdt", "osdt-monk1", "-r", "0.1", "--trace", str(path))
    assert rc == EXIT_OK and path.exists() and path.read_text().startswith("time,objective,lower_bound")


def test_subprocess_exit_codes():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = subprocess.run([sys.executable, "-m", "optbb", "datasets"], capture_output=True, text=True, env=env,
                        timeout=120)
    assert ok.returncode == 0 and "osdt-monk1" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "optbb", "corels", "/nonexistent/file.out"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "error" in bad.stderr


def test_exports_from_the_command_line(capsys, tmp_path):
    from optbb import export

    files = {k: tmp_path / f"model.{k}" for k in ("json", "latex", "dot")}
    rc, out, _ = run(capsys, "osdt", "osdt-monk1", "-r", "0.1", *[a for k, f in files.items() for a in
                                                                   (f"--{k}", str(f))])
    assert rc == EXIT_OK and "json written to" in out
    tree = export.from_json(files["json"].read_text())
    assert tree.n_leaves >= 1
    assert files["latex"].read_text().startswith(r"\begin{algorithmic}")
    assert files["dot"].read_text().startswith("digraph")
    rc, _, _ = run(capsys, "corels", "corels-compas-train", "-r", "0.02", "--latex", str(tmp_path / "rl.tex"))
    assert rc == EXIT_OK and r"\If" in (tmp_path / "rl.tex").read_text()
    rc, _, _ = run(capsys, "frl", "frl-bank-full", "-n", "50", "--json", str(tmp_path / "frl.json"))
    assert rc == EXIT_OK and export.from_json((tmp_path / "frl.json").read_text()).is_falling()


def test_cli_reference_is_current():
    from optbb.cli import build_parser

    doc = (ROOT / "docs" / "cli.md").read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sp in sub.choices.items():
        assert f"## optbb {name}" in doc
        for action in sp._actions:
            for opt in action.option_strings:
                assert opt in doc, (name, opt)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_to_a_full_disk_is_one_line_not_a_traceback():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "optbb", "datasets"], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=120)
    assert proc.returncode == EXIT_INPUT, proc.stderr
    assert proc.stderr == "optbb: error: cannot write the output: No space left on device\n"
