"""CORELS tasks and the per-component (ablation) study shared by corels-table3/4/5/6 and corels-trace."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .report import accuracy, load_corels_fold, md_table, mean_std, search_fields, sig

# (label, solve keyword arguments); one component removed per row, as in Tables 4 and 5.
VARIANTS = [
    ("CORELS", {}),
    ("No priority queue (BFS)", {"policy": "bfs"}),
    ("No support bounds", {"ablation": ["support", "accurate_support"]}),
    ("No lookahead bound", {"ablation": ["lookahead"]}),
    ("No symmetry-aware map", {"map_type": "none"}),
    ("No equivalent points bound", {"ablation": ["equivalent_points"], "limited": True}),
]

SHORT = {"CORELS": "CORELS", "No priority queue (BFS)": "BFS", "No support bounds": "no support bounds",
         "No lookahead bound": "no lookahead", "No symmetry-aware map": "no symmetry map",
         "No equivalent points bound": "no equivalent points"}

COUNTERS = ("lower_bound_evaluations", "queue_insertions", "max_queue_size", "nodes_evaluated", "max_prefix_length",
            "time_to_optimum", "total_time", "memory_bytes", "n_antecedents", "n_samples")

NYCLU_ENV = "OPTBB_NYCLU_DIR"
NYCLU_MISSING = """The NYCLU stop-and-frisk data (NYPD 2014 SQF as processed by the CORELS authors, Feature Set E,
M = 46 antecedents) is **not available**: its only copy, `data/frisk.tar.gz` in nlarusstone/corels commit 9859097,
is absent from every snapshot we could reach (see `../shared/data/PROVENANCE.md`, "What is missing", item 2), and
rebuilding it needs the raw 2014 SQF CSV, which is not reachable here either. This study therefore did not run.

To run it, put the ten folds in the CORELS text format (`<name>_<i>_train.out`, `.label`, `.minor`, optionally
gzipped, i = 0..9) into one folder and set `OPTBB_NYCLU_DIR=<folder>`; the study then produces the table below
with our numbers beside the paper's."""


def load_fold(fold: int, dataset: str = "propublica", data_dir: str | None = None):
    if dataset == "propublica":
        return load_corels_fold(fold, "train")
    from optbb.common.data import read_corels

    d = Path(data_dir)
    for ext in ("", ".gz"):
        outs = sorted(d.glob(f"*_{fold}_train.out{ext}"))
        if outs:
            base = str(outs[0])[: -len(f".out{ext}")]
            label = next(p for p in (f"{base}.label", f"{base}.label.gz") if os.path.isfile(p))
            minor = next((p for p in (f"{base}.minor", f"{base}.minor.gz") if os.path.isfile(p)), None)
            return read_corels(outs[0], label, minor)
    raise FileNotFoundError(f"no *_{fold}_train.out[.gz] in {d}")


def nyclu_dir() -> str | None:
    d = os.environ.get(NYCLU_ENV)
    return d if d and Path(d).is_dir() and any(Path(d).glob("*_0_train.out*")) else None


_WARM = False


def warm_up(data) -> None:
    """Compile (or load) every JIT kernel the variants use on an easy problem (a large lambda), so that no timing
    includes compilation or first-call dispatch."""
    global _WARM
    if _WARM:
        return
    from optbb.corels import solve

    for _, kw in VARIANTS:
        solve(data, 0.2, **{k: tuple(v) if k == "ablation" else v for k, v in kw.items() if k != "limited"})
    _WARM = True


def corels_task(fold: int, regularization: float, policy: str = "lower_bound", map_type: str = "prefix",
                ablation=(), time_limit=None, memory_limit=None, dataset: str = "propublica", data_dir=None,
                trace: bool = False, test: bool = False) -> dict:
    """Solve one fold; return the counters, the status, the list and (optionally) its trace and test accuracy."""
    from optbb.corels import solve

    data = load_fold(fold, dataset, data_dir)
    warm_up(data)
    res = solve(data, regularization, policy=policy, map_type=map_type, ablation=tuple(ablation),
                time_limit=time_limit, memory_limit=memory_limit)
    out = {k: res.counters.get(k) for k in COUNTERS}
    out.update(search_fields(res), rules=len(res.model), model=res.model.text(),
               train_accuracy=accuracy(res.model.predict_antecedents(data.X), data.y))
    if test:
        test_data = load_corels_fold(fold, "test")
        if list(test_data.feature_names) != list(data.feature_names):
            raise ValueError(f"fold {fold}: test antecedents differ from the training fold's")
        out["test_accuracy"] = accuracy(res.model.predict_antecedents(test_data.X), test_data.y)
    if trace:
        tr = res.trace
        out["trace"] = {c: tr[c].to_numpy().tolist() for c in tr.columns}
    return out


def variant_params(kw: dict, limits: dict) -> dict:
    p = {k: v for k, v in kw.items() if k != "limited"}
    if kw.get("limited"):
        p.update(limits)
    return p


def ablation_sweep(config, folds, lam, limits, dataset="propublica", data_dir=None, label="ablation"):
    from .runner import run_sweep

    configs, labels = [], []
    for name, kw in VARIANTS:
        for f in folds:
            configs.append({"fold": f, "regularization": lam, "dataset": dataset, "data_dir": data_dir,
                            **variant_params(kw, limits)})
            labels.append(name)
    rows = run_sweep(corels_task, configs, config, label)
    df = pd.DataFrame(rows)
    df.insert(0, "variant", labels)
    return df


def ablation_tables(df: pd.DataFrame, paper: dict, time_unit: str, tto_unit: str, count_scale: tuple,
                    paper_time_unit: str = "min") -> tuple:
    """The two halves of Table 4/5 (our value, then the paper's, for every column)."""
    t_div = {"min": 60.0, "s": 1.0}[time_unit]
    tto_mul = {"s": 1.0, "μs": 1e6}[tto_unit]
    lbe_scale, q_scale, q_label = count_scale
    base = df[df.variant == "CORELS"]["total_time"].mean()
    top, bottom = [], []
    for name, _ in VARIANTS:
        g = df[df.variant == name]
        if g.empty:
            continue
        complete = bool((g.status == "optimal").all())
        gt = "" if complete else ">"
        pr = paper.get(name, {})
        slow = g["total_time"].mean() / base if base > 0 else float("nan")
        # incomplete rows: mean (std) of the incomplete time, as in the paper; minimum over folds for the counts
        scaled = lambda c, s: (mean_std(g[c] / s) if complete else ">" + sig((g[c] / s).min()))  # noqa: E731
        lens = g["max_prefix_length"]
        plen = str(int(lens.min())) if lens.min() == lens.max() else f"{int(lens.min())}-{int(lens.max())}"
        top.append({"Algorithm variant": name + ("" if complete else " (stopped)"),
                    "Total time (%s)" % time_unit: mean_std(g["total_time"] / t_div, prefix=gt),
                    f"paper ({paper_time_unit})": pr.get("time", ""),
                    "Slowdown": "-" if name == "CORELS" else f"{gt}{sig(slow)}x",
                    "paper ": pr.get("slow", ""),
                    "Time to optimum (%s)" % tto_unit: mean_std(g["time_to_optimum"] * tto_mul, prefix=gt),
                    "paper  ": pr.get("tto", ""),
                    "Max evaluated prefix length": (">=" if not complete else "") + plen,
                    "paper   ": pr.get("len", "")})
        bottom.append({"Algorithm variant": name + ("" if complete else " (stopped)"),
                       "Lower bound evaluations (x10^6)": scaled("lower_bound_evaluations", lbe_scale),
                       "paper": pr.get("lbe", ""),
                       f"Total queue insertions ({q_label})": scaled("queue_insertions", q_scale),
                       "paper ": pr.get("qi", ""),
                       f"Max queue size ({q_label})": scaled("max_queue_size", q_scale),
                       "paper  ": pr.get("mq", ""),
                       "folds certified": f"{int((g.status == 'optimal').sum())}/{len(g)}"})
    return pd.DataFrame(top), pd.DataFrame(bottom)


def ablation_figure(df: pd.DataFrame, out: Path, name: str, title: str):
    from .report import pyplot, save_figure

    plt = pyplot()
    names = [n for n, _ in VARIANTS if n in set(df.variant)]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, col, lab in zip(axes, ("total_time", "lower_bound_evaluations", "max_queue_size"),
                            ("total time (s)", "lower bound evaluations", "max queue size")):
        for i, n in enumerate(names):
            g = df[df.variant == n]
            done = g.status == "optimal"
            ax.scatter(np.full(done.sum(), i), g[col][done], color="C0", s=14, zorder=3)
            ax.scatter(np.full((~done).sum(), i), g[col][~done], color="C3", marker="^", s=18, zorder=3,
                       label="stopped by a limit" if (i == len(names) - 1 and (~done).any()) else None)
            ax.bar(i, g[col].mean(), color="0.8")
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([SHORT[n] for n in names], rotation=40, ha="right", fontsize=7)
        ax.set_title(lab, fontsize=9)
    if any(h for h in axes[-1].get_legend_handles_labels()[1]):
        axes[-1].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out, name)


def fmt_md(top: pd.DataFrame, bottom: pd.DataFrame) -> str:
    return md_table(top) + "\n\n" + md_table(bottom)
