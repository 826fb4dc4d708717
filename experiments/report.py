"""Output helpers shared by the studies: the result schema, Markdown tables, number formats, figures, data locations.

Every study records a search with the same columns (:func:`search_fields`): ``status`` is the value of
:class:`optbb.common.result.Status` (``"optimal"``, ``"time_limit"``, ``"node_limit"``, ``"memory_limit"``,
``"interrupted"``, ``"iteration_limit"``; the same words as ``BinOCTClassifier.status_``), then ``objective``,
``lower_bound`` and ``gap``; accuracies are ``train_accuracy`` and ``test_accuracy`` (fractions, :func:`accuracy`).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("OPTBB_SHARED_DATA", REPO.parent / "shared" / "data"))
CORELS_CV = SHARED_DATA / "corels" / "CrossValidation"
CORELS_TEST = CORELS_CV / "reconstructed_test"
CORELS_FOLDS_ENV = "OPTBB_CORELS_FOLDS"  # a folder of compas_<i>_train.out/.label/.minor[.gz] instead of CORELS_CV


def search_fields(res) -> dict:
    """The columns every study records for a ``SearchResult``: status (its ``Status`` value), objective, lower
    bound and gap."""
    return {"status": res.status.value, "objective": res.objective, "lower_bound": res.lower_bound, "gap": res.gap}


def accuracy(pred, y) -> float:
    """Fraction of predictions equal to the labels (the ``train_accuracy`` / ``test_accuracy`` columns)."""
    return float(np.mean(np.asarray(pred) == np.asarray(y)))


def md_table(df: pd.DataFrame) -> str:
    """A DataFrame as a GitHub Markdown table (cells printed as given; format them beforehand)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join("" if (isinstance(v, float) and math.isnan(v)) else str(v)
                                       for v in row.tolist()) + " |")
    return "\n".join(lines)


def sig(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` significant digits, paper style (``.98``, ``26``, ``1.2e+06``)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 6 or mag < -4:
        return f"{x:.{max(digits - 1, 0)}e}"
    dec = max(digits - 1 - mag, 0)
    s = f"{x:.{dec}f}"
    if s.startswith("0."):
        s = s[1:]
    return s


def mean_std(values, digits: int = 2, prefix: str = "") -> str:
    """``mean (std)`` with the population std (``np.std``), as the CORELS paper reports."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    if v.size == 0:
        return "-"
    if v.size == 1:
        return prefix + sig(v[0], digits)
    return f"{prefix}{sig(v.mean(), digits)} ({sig(v.std(), digits)})"


def save_figure(fig, out: Path, name: str, dpi: int = 90) -> list[Path]:
    """Write ``name.png`` and ``name.pdf`` into ``out``; close the figure."""
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=dpi, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def mode_note(config) -> str:
    if config.mode == "full":
        return "Full run."
    return (f"**{config.mode.capitalize()} run** (`--quick`{' in smoke mode' if config.smoke else ''}): reduced "
            "settings (fewer folds, seeds or iterations, larger lambda, smaller limits); the paper's values are "
            "for the full setting, so compare trends, not numbers.")


def write_markdown(out: Path, name: str, title: str, parts: list[str]) -> Path:
    path = out / f"{name}.md"
    path.write_text(f"# {title}\n\n" + "\n\n".join(p.strip() for p in parts if p) + "\n")
    return path


def corels_fold_paths(fold: int) -> tuple[Path, Path, Path]:
    """(out, label, minor) of a ProPublica JMLR training fold, each plain or gzip-compressed: from the folder named
    by ``$OPTBB_CORELS_FOLDS`` if set, else from the shared data (``CORELS_CV``)."""
    folder = Path(os.environ[CORELS_FOLDS_ENV]) if os.environ.get(CORELS_FOLDS_ENV) else CORELS_CV
    paths = []
    for ext in ("out", "label", "minor"):
        plain = folder / f"compas_{fold}_train.{ext}"
        found = next((p for p in (plain, Path(f"{plain}.gz")) if p.is_file()), None)
        if found is None:
            raise FileNotFoundError(f"{plain}[.gz] not found: the JMLR ProPublica training folds live in {CORELS_CV} "
                                    f"(set OPTBB_SHARED_DATA to the folder holding corels/, or {CORELS_FOLDS_ENV} to "
                                    "a folder of compas_<i>_train.out, .label and .minor files)")
        paths.append(found)
    return paths[0], paths[1], paths[2]


def load_corels_fold(fold: int, split: str = "train"):
    """ProPublica JMLR fold ``fold`` (Feature Set A) as a BinaryDataset, train (with minority bits) or test."""
    from optbb.common.data import read_corels

    if split == "train":
        out, label, minor = corels_fold_paths(fold)
        return read_corels(out, label, minor)
    base = CORELS_TEST / f"compas_{fold}_test"
    if not Path(f"{base}.out").is_file():
        raise FileNotFoundError(f"test fold {base}.out not found: the reconstructed ProPublica test folds live in "
                                f"{CORELS_TEST} (set OPTBB_SHARED_DATA to the folder holding corels/)")
    return read_corels(f"{base}.out", f"{base}.label")
