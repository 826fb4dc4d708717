"""The documentation names only what exists: every ``optbb.…`` name and every ``optbb/…`` file cited in ``docs/``,
the README and ``mkdocs.yml`` is found in the package, so a rename cannot leave a page pointing at nothing."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", REPO / "mkdocs.yml", *(REPO / "docs").rglob("*.md")])
DOTTED = re.compile(r"(?<![\w/.])optbb(?:\.[A-Za-z_]\w*)+")
FILES = re.compile(r"(?<![\w/.])optbb/(?:[\w]+/)*[\w]+\.py\b")


def _cited(pattern: re.Pattern) -> list[tuple[str, str]]:
    found = set()
    for page in PAGES:
        for name in pattern.findall(page.read_text(encoding="utf-8")):
            found.add((name, str(page.relative_to(REPO))))
    return sorted(found)


def _resolves(dotted: str) -> bool:
    """``dotted`` is a module, or an attribute path from the longest importable module prefix."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_pages_cite_names_at_all():
    assert len(_cited(DOTTED)) > 20 and len(_cited(FILES)) > 5  # the patterns still match how the pages cite


@pytest.mark.parametrize("name, page", _cited(DOTTED))
def test_every_cited_name_exists(name, page):
    assert _resolves(name), f"{page} cites {name}, which optbb does not have"


@pytest.mark.parametrize("path, page", _cited(FILES))
def test_every_cited_file_exists(path, page):
    assert (REPO / path).is_file(), f"{page} cites {path}, which is not in the repository"
