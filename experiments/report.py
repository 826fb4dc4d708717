"""Output helpers shared by the studies: Markdown tables, number formats, figures, data locations."""
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
BUNDLED_CORELS_CV = REPO / "tests" / "data" / "corels"


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


def corels_fold_paths(fold: int) -> tuple[Path, Path, Path | None]:
    """(out, label, minor) of a ProPublica JMLR training fold: the shared data if present, else the repo copy."""
    base = CORELS_CV / f"compas_{fold}_train"
    if Path(f"{base}.out.gz").is_file():
        return Path(f"{base}.out.gz"), Path(f"{base}.label"), Path(f"{base}.minor")
    base = BUNDLED_CORELS_CV / f"compas_{fold}_train"
    return Path(f"{base}.out.gz"), Path(f"{base}.label.gz"), Path(f"{base}.minor.gz")


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
