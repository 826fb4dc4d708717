"""CORELS Tables 3 and 5 (NYCLU stop-and-frisk, M = 46): run only when the processed folds are supplied.

The NYCLU data is not available (see ``corels_common.NYCLU_MISSING``); without it both studies write a note,
the paper's table, and exit 0.
"""
from __future__ import annotations

import pandas as pd

from ..corels_common import (NYCLU_ENV, NYCLU_MISSING, ablation_figure, ablation_sweep, ablation_tables, corels_task,
                             fmt_md, nyclu_dir)
from ..registry import register
from ..report import md_table, mean_std, mode_note, write_markdown

TABLE3_PAPER = pd.DataFrame([
    {"lambda": ".04", "Total time (s)": ".61 (.03)", "Time to optimum (s)": ".002 (.001)",
     "Max evaluated prefix length": "6", "Optimal prefix length": "2", "Lower bound evaluations (x10^6)": ".070 (.004)",
     "Total queue insertions (x10^3)": "2.2 (.1)", "Max queue size (x10^3)": ".9 (.1)"},
    {"lambda": ".01", "Total time (s)": "70 (6)", "Time to optimum (s)": ".008 (.002)",
     "Max evaluated prefix length": "11", "Optimal prefix length": "3", "Lower bound evaluations (x10^6)": "7.5 (.6)",
     "Total queue insertions (x10^3)": "210 (20)", "Max queue size (x10^3)": "130 (10)"},
    {"lambda": ".0025", "Total time (s)": "1600 (100)", "Time to optimum (s)": "56 (74)",
     "Max evaluated prefix length": "16-17", "Optimal prefix length": "6-10",
     "Lower bound evaluations (x10^6)": "150 (10)", "Total queue insertions (x10^3)": "4400 (300)",
     "Max queue size (x10^3)": "2500 (170)"},
])

TABLE5_PAPER = {
    "CORELS": dict(time="1.1 (.1)", slow="-", tto="8.9 (.1)", len="11", lbe="7 (1)", qi="2.0 (.2)", mq="1.3 (.1)"),
    "No priority queue (BFS)": dict(time="2.2 (.2)", slow="2.0x", tto="110 (10)", len="11", lbe="14 (1)",
                                    qi="4.1 (.4)", mq="1.4 (.1)"),
    "No support bounds": dict(time="1.2 (.1)", slow="1.1x", tto="8.8 (.8)", len="11", lbe="8 (1)", qi="2.1 (.2)",
                              mq="1.3 (.1)"),
    "No lookahead bound": dict(time="1.7 (.2)", slow="1.6x", tto="7.3 (1.8)", len="11-12", lbe="11 (1)",
                               qi="3.2 (.3)", mq="2.1 (.2)"),
    "No symmetry-aware map": dict(time="> 73 (5)", slow="> 68x", tto="> 7.6 (.4)", len="> 10", lbe="> 390 (40)",
                                  qi="> 1000 (0)", mq="> 900 (10)"),
    "No equivalent points bound": dict(time="4 (.3)", slow="3.8x", tto="6.4 (.9)", len="14", lbe="33 (2)",
                                       qi="9.4 (.7)", mq="6.0 (.4)"),
}

T5_PAPER_MD = ("| Algorithm variant | Total time (min) | Slowdown | Time to optimum (μs) | Max evaluated prefix length "
               "| Lower bound evaluations (x10^6) | Total queue insertions (x10^5) | Max queue size (x10^5) |\n"
               "|---|---|---|---|---|---|---|---|\n") + "\n".join(f"| {k} | {v['time']} | {v['slow']} | {v['tto']} | {v['len']} | {v['lbe']} | {v['qi']} | {v['mq']} |"
                for k, v in TABLE5_PAPER.items())

FOLDS = {"full": list(range(10)), "quick": [0, 1], "smoke": [0]}


def _missing(config, name: str, title: str, paper_md: str) -> int:
    note = config.out / "NOTE.md"
    note.write_text(f"# {title}: not run\n\n{NYCLU_MISSING}\n")
    write_markdown(config.out, name, title, [
        "**Not run: the NYCLU data is not available.** " + NYCLU_MISSING,
        "The paper's table (for reference; no values of ours):", paper_md])
    config.log(f"NYCLU data not available; wrote {note} (set {NYCLU_ENV} to a folder of processed folds to run)")
    return 0


@register("corels-table3", "CORELS Table 3: NYCLU over lambda 0.04/0.01/0.0025 (needs the NYCLU data; notes if absent)")
def run_table3(config) -> int:
    title = "CORELS Table 3: CORELS with different regularization parameters (NYCLU)"
    d = nyclu_dir()
    if d is None:
        return _missing(config, "corels-table3", title, md_table(TABLE3_PAPER))
    from ..runner import run_sweep

    lams = [0.04, 0.01] if config.quick else [0.04, 0.01, 0.0025]
    folds = FOLDS[config.mode]
    configs = [{"fold": f, "regularization": lam, "dataset": "nyclu", "data_dir": d} for lam in lams for f in folds]
    df = pd.DataFrame(run_sweep(corels_task, configs, config, "table3"))
    df.drop(columns=["model"]).to_csv(config.out / "corels-table3.csv", index=False)
    rows = []
    for lam in lams:
        g = df[df.regularization == lam]
        pl = g["max_prefix_length"]
        rl = g["rules"]
        rows.append({"lambda": lam, "Total time (s)": mean_std(g.total_time),
                     "Time to optimum (s)": mean_std(g.time_to_optimum),
                     "Max evaluated prefix length": f"{pl.min()}-{pl.max()}" if pl.min() != pl.max() else str(pl.min()),
                     "Optimal prefix length": f"{rl.min()}-{rl.max()}" if rl.min() != rl.max() else str(rl.min()),
                     "Lower bound evaluations (x10^6)": mean_std(g.lower_bound_evaluations / 1e6),
                     "Total queue insertions (x10^3)": mean_std(g.queue_insertions / 1e3),
                     "Max queue size (x10^3)": mean_std(g.max_queue_size / 1e3)})
    from ..report import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    for lam in lams:
        g = df[df.regularization == lam]
        ax.scatter(g.time_to_optimum, g.total_time, label=f"lambda={lam}", s=14)
    ax.set_xscale("log"), ax.set_yscale("log"), ax.set_xlabel("time to optimum (s)"), ax.set_ylabel("total time (s)")
    ax.legend(fontsize=7)
    save_figure(fig, config.out, "corels-table3")
    write_markdown(config.out, "corels-table3", title, [
        mode_note(config), f"Data: {d}. Ours:", md_table(pd.DataFrame(rows)), "Paper:", md_table(TABLE3_PAPER),
        "![corels-table3](corels-table3.png)"])
    return 0


@register("corels-table5", "CORELS Table 5: per-component ablation on NYCLU (needs the NYCLU data; notes if absent)")
def run_table5(config) -> int:
    title = "CORELS Table 5: per-component performance improvement (NYCLU)"
    d = nyclu_dir()
    if d is None:
        return _missing(config, "corels-table5", title, T5_PAPER_MD)
    lam = 0.01 if config.mode == "full" else 0.04
    limits = {"time_limit": {"full": 1800.0, "quick": 10.0, "smoke": 2.0}[config.mode], "memory_limit": "8G"}
    df = ablation_sweep(config, FOLDS[config.mode], lam, limits, dataset="nyclu", data_dir=d, label="table5")
    df.drop(columns=["model"]).to_csv(config.out / "corels-table5.csv", index=False)
    top, bottom = ablation_tables(df, TABLE5_PAPER, "min" if config.mode == "full" else "s", "μs",
                                 (1e6, 1e5, "x10^5"))
    ablation_figure(df, config.out, "corels-table5", f"NYCLU, lambda = {lam}")
    write_markdown(config.out, "corels-table5", title, [mode_note(config), fmt_md(top, bottom),
                                                        "![corels-table5](corels-table5.png)"])
    return 0
