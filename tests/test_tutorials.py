"""Every tutorial's code blocks run as-is (in order, one namespace per tutorial), and the README's example."""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md")) + [ROOT / "docs" / "extending.md"]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M)


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    blocks = python_blocks(path)
    assert blocks, f"{path.name} has no python code block"
    monkeypatch.chdir(tmp_path)  # figures the tutorials save land here
    ns: dict = {"__name__": "__tutorial__"}
    for k, code in enumerate(blocks):
        exec(compile(code, f"{path.name}[block {k}]", "exec"), ns)
    plt.close("all")


def test_readme_example_runs_verbatim(tmp_path, monkeypatch):
    blocks = python_blocks(ROOT / "README.md")
    assert blocks, "README.md has no python example"
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md[example]", "exec"), {"__name__": "__readme__"})


def test_tutorials_exist():
    assert {p.stem for p in TUTORIALS} >= {"corels", "osdt", "frl", "binarizer"}
