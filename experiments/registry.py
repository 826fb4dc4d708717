"""The study registry: each module in ``experiments/studies/`` registers its studies on import.

A study is a name (as used on the command line, e.g. ``corels-table4``), a one-line description and a function
``run(config) -> int`` taking a :class:`RunConfig`.  Any ``*.py`` file dropped into ``experiments/studies/`` is
picked up, whatever its name (``osdt-table1.py`` or ``osdt_table1.py``).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

STUDIES_DIR = Path(__file__).resolve().parent / "studies"


@dataclass
class RunConfig:
    """What the command line asked for; passed to every study's ``run``.

    ``quick`` is the reduced CI version; ``smoke`` (environment variable ``OPTBB_EXPERIMENTS_SMOKE=1`` or
    ``--smoke``) shrinks it further for the test suite.  ``out`` is the study's output folder.
    """

    study: str
    out: Path
    quick: bool = False
    smoke: bool = False
    jobs: int = 1
    dask: str | None = None
    verbose: int = 1
    extra: dict = field(default_factory=dict)

    @property
    def mode(self) -> str:
        return "smoke" if self.smoke else ("quick" if self.quick else "full")

    def log(self, msg: str) -> None:
        if self.verbose:
            print(f"[{self.study}] {msg}", flush=True)


@dataclass(frozen=True)
class Study:
    name: str
    description: str
    run: Callable[[RunConfig], int]
    module: str = ""


_REGISTRY: dict[str, Study] = {}
_LOADED = False


def register(name: str, description: str, run: Callable[[RunConfig], int] | None = None):
    """Register a study; usable as ``register(name, description, run)`` or as a decorator on ``run``."""

    def add(fn: Callable[[RunConfig], int]):
        if name in _REGISTRY and _REGISTRY[name].run is not fn:
            raise ValueError(f"study {name!r} is registered twice ({_REGISTRY[name].module} and {fn.__module__})")
        _REGISTRY[name] = Study(name, description, fn, fn.__module__)
        return fn

    return add(run) if run is not None else add


def _import_study_file(path: Path) -> None:
    modname = f"experiments.studies.{path.stem}"
    if modname in sys.modules:
        return
    if path.stem.isidentifier():
        importlib.import_module(modname)
        return
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[modname]
        raise


def load_all() -> dict[str, Study]:
    """Import every module in ``experiments/studies/`` (once) and return the registry, sorted by name.

    A module that fails to import is reported on stderr and skipped, so one broken study does not hide the others.
    """
    global _LOADED
    if not _LOADED:
        for path in sorted(STUDIES_DIR.glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                _import_study_file(path)
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"experiments: could not load {path.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        _LOADED = True
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> Study:
    studies = load_all()
    if name not in studies:
        raise KeyError(f"unknown study {name!r}; known studies: {', '.join(studies)}")
    return studies[name]


def smoke_from_env() -> bool:
    return os.environ.get("OPTBB_EXPERIMENTS_SMOKE", "").strip().lower() in ("1", "true", "yes")
