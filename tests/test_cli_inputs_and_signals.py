"""The optbb command under hostile conditions: unreadable input files exit 2 with one line naming the file, and
SIGTERM (a batch scheduler's warning before SIGKILL) ends a search like Ctrl-C: best model, bound and gap printed,
exit code 143."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from optbb.cli import EXIT_INPUT, main

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NOJIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
jit_only = pytest.mark.skipif(NOJIT, reason="measures the compiled solvers (signals)")


def _good_csv() -> bytes:
    return b"a;b;y\n1;0;1\n0;1;0\n1;1;1\n0;0;0\n"


def _corrupt_gz(path: Path) -> Path:
    body = bytearray(gzip.compress(_good_csv() * 50))
    body[20:40] = bytes(20)  # damaged deflate stream, valid header
    path.write_bytes(bytes(body))
    return path


def _truncated_gz(path: Path) -> Path:
    path.write_bytes(gzip.compress(_good_csv() * 50)[:-12])
    return path


def _not_gzip(path: Path) -> Path:
    path.write_bytes(_good_csv())
    return path


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


def _bad_utf8(path: Path) -> Path:
    path.write_bytes(b"a;b;y\n1;0;1\n\xff\xfe;1;0\n")
    return path


BAD_FILES = {"corrupt.csv.gz": _corrupt_gz, "truncated.csv.gz": _truncated_gz, "plain.csv.gz": _not_gzip,
             "folder.csv": _directory, "latin.csv": _bad_utf8, "rules.out.gz": _truncated_gz}


@pytest.mark.parametrize("solver", ["osdt", "corels", "frl"])
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_unreadable_file_exits_2_with_one_line(capsys, tmp_path, solver, name):
    path = BAD_FILES[name](tmp_path / name)
    if name.startswith("rules"):
        (tmp_path / "rules.label").write_text("{label=0} 1 0\n{label=1} 0 1\n")
    rc = main([solver, str(path)])
    out, err = capsys.readouterr()
    assert rc == EXIT_INPUT
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert str(path) in lines[0] and "Traceback" not in err


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


HARD = {
    "corels": ["corels", str(HERE / "data" / "corels" / "compas_0_train.out.gz"), "-r", "0.005", "-a",
               "equivalent_points", "--time-limit", "120", "--memory-limit", "1G"],
    "osdt": ["osdt", "osdt-tic-tac-toe", "-r", "0.005", "-a", "lookahead", "--time-limit", "120",
             "--memory-limit", "1G"],
    "frl": ["frl", "frl-bank-full", "-n", "100000000", "--time-limit", "120"],
}


CHILD = """
import os, signal, sys
from optbb.cli import main, run
args = {args!r}
main(args[:-2] + ["--time-limit", "0.5"])  # load or compile the kernels first: the signal must land in the search
print("=== the run", flush=True)
import optbb.common.driver as driver
class TermInSearch(driver.Progress):  # one SIGTERM from inside the search, after its first chunk (mining is over)
    sent = False
    def update(self, *a):
        if not TermInSearch.sent:  # a second SIGTERM would abort at once, as documented, with no model printed
            TermInSearch.sent = True
            os.kill(os.getpid(), signal.SIGTERM)
        super().update(*a)
driver.Progress = TermInSearch
sys.argv = ["optbb", *args]
run()
"""


@jit_only
@pytest.mark.parametrize("solver", sorted(HARD))
def test_sigterm_prints_best_model_and_exits_143(solver):
    proc = subprocess.run([sys.executable, "-c", CHILD.format(args=HARD[solver])], capture_output=True, text=True,
                          cwd=REPO, env=_env(), timeout=600)
    out = proc.stdout.split("=== the run", 1)[-1]
    assert proc.returncode == 143, (out, proc.stderr[-2000:])
    assert "status=INTERRUPTED" in out and "lower_bound=" in out and "gap=" in out, out



def test_closed_output_pipe_is_not_a_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "optbb.cli", "datasets"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO, env=_env())
    proc.stdout.close()  # the reader is gone before the first line is written (as `optbb datasets | head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141 and "Traceback" not in err, err
