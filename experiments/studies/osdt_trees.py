"""OSDT Figs. 4-7 and 9: the trees themselves.  Fig. 4 the optimal COMPAS tree (lambda 0.005); Fig. 5 Tic-Tac-Toe,
BinOCT depth 3 vs OSDT with eight leaves; Fig. 6 Monk1, BinOCT depth 3 vs OSDT; Fig. 7 RBinOCT vs OSDT at lambda
0.007 on COMPAS (the caption's "Monk1" is a typo, spec osdt.md section 4.3); Fig. 9 CART with OSDT's leaf counts.
"""
from __future__ import annotations

import pandas as pd

from ..osdt_common import binoct_task, cart_task, osdt_task, pct
from ..registry import register
from ..report import md_table, mode_note, pyplot, save_figure, sig, write_markdown
from ..runner import run_sweep

LIMITS = {"full": {"osdt": 1800.0, "binoct": 1800.0, "rbinoct": 3600.0, "memory": "4G"},
          "quick": {"osdt": 10.0, "binoct": 10.0, "rbinoct": 15.0, "memory": "1G"},
          "smoke": {"osdt": 3.0, "binoct": 2.0, "rbinoct": 2.0, "memory": "256M"}}

# (figure, label, kind, parameters, paper accuracy %, paper note)
PANELS = [
    ("Fig. 4", "OSDT, COMPAS, lambda 0.005", "osdt", {"dataset": "compas", "regularization": 0.005}, 66.90,
     "5 leaves"),
    ("Fig. 5a", "BinOCT depth 3, Tic-Tac-Toe", "binoct", {"dataset": "tic-tac-toe", "depth": 3}, 76.722,
     "complete depth-3 tree, 30 min, 8 threads (CPLEX)"),
    ("Fig. 5b", "OSDT, Tic-Tac-Toe, 8 leaves (lambda 0.001, max 8 leaves)", "osdt",
     {"dataset": "tic-tac-toe", "regularization": 0.001, "max_leaves": 8}, 82.881, "8 leaves"),
    ("Fig. 6a", "BinOCT depth 3, Monk1", "binoct", {"dataset": "monk1", "depth": 3}, 91.129,
     "two useless splits"),
    ("Fig. 6b", "OSDT, Monk1, lambda 0.025", "osdt", {"dataset": "monk1", "regularization": 0.025}, 100.0,
     "8 leaves"),
    ("Fig. 7a", "RBinOCT depth 3, COMPAS, lambda 0.007", "rbinoct",
     {"dataset": "compas", "depth": 3, "regularization": 0.007}, 66.223, "not finished after 1 h"),
    ("Fig. 7b", "OSDT, COMPAS, lambda 0.007", "osdt", {"dataset": "compas", "regularization": 0.007}, 66.223,
     "optimum in 3.390 s"),
    ("Fig. 9a", "CART, COMPAS, 5 leaves", "cart", {"dataset": "compas", "n_leaves": 5}, 66.135, ""),
    ("Fig. 9b", "CART, Monk1, 8 leaves", "cart", {"dataset": "monk1", "n_leaves": 8}, 91.935, ""),
    ("Fig. 9c", "CART, Tic-Tac-Toe, 8 leaves", "cart", {"dataset": "tic-tac-toe", "n_leaves": 8}, 76.513, ""),
]


@register("osdt-trees", "OSDT Figs 4-7 and 9: the trees (OSDT, BinOCT, RBinOCT at lambda 0.007, CART)")
def run(config) -> int:
    lim = LIMITS[config.mode]
    results = []
    for kind, task, extra in (("osdt", osdt_task, {"time_limit": lim["osdt"], "memory_limit": lim["memory"]}),
                              ("binoct", binoct_task, {"time_limit": lim["binoct"]}),
                              ("rbinoct", binoct_task, {"time_limit": lim["rbinoct"]}),
                              ("cart", cart_task, {})):
        idx = [i for i, p in enumerate(PANELS) if p[2] == kind]
        configs = [{**PANELS[i][3], **extra, "tree": True} for i in idx]
        for i, r in zip(idx, run_sweep(task, configs, config, kind)):
            results.append((i, r))
    results = [r for _, r in sorted(results, key=lambda t: t[0])]
    rows, csv_rows, texts = [], [], []
    for (fig, label, kind, params, paper, note), r in zip(PANELS, results):
        status = r.get("status", "-")
        t = r.get("total_time", r.get("solve_time"))
        leaves = r["n_leaves"] if kind != "binoct" and kind != "rbinoct" else (
            f"{r['n_leaves']} non-empty, {r['n_leaves_merged']} after merging")
        rows.append({"figure": fig, "model": label, "paper acc (%)": f"{paper:.3f}", "paper": note,
                     "our acc (%)": pct(r["train_accuracy"]), "leaves": leaves, "status": status,
                     "objective": "-" if r.get("objective") is None else f"{r['objective']:.6f}",
                     "time (s)": "-" if t is None else sig(t, 3)})
        csv_rows.append({"figure": fig, "model": label, "kind": kind, **{k: v for k, v in params.items()},
                         "paper_accuracy_pct": paper, "train_accuracy": r["train_accuracy"], "n_leaves": r["n_leaves"],
                         "status": status,
                         "objective": r.get("objective"), "lower_bound": r.get("lower_bound"), "time": t,
                         "time_to_optimum": r.get("time_to_optimum"), "tree": r["tree"]})
        texts.append((f"{fig}: {label}", r["tree"], r["train_accuracy"], paper))
    pd.DataFrame(csv_rows).to_csv(config.out / "osdt-trees.csv", index=False)

    plt = pyplot()
    show = [t for t in texts if not t[0].startswith("Fig. 9")]
    fig, axes = plt.subplots(-(-len(show) // 2), 2, figsize=(11, 2.6 * (-(-len(show) // 2))), squeeze=False)
    for ax, (title, tree, acc, paper) in zip(axes.flat, show):
        ax.axis("off")
        lines = tree.splitlines()
        ax.set_title(f"{title}\nours {100 * acc:.3f} %, paper {paper:.3f} %", fontsize=7, loc="left")
        ax.text(0, 1, "\n".join(lines[:24]) + ("\n..." if len(lines) > 24 else ""), family="monospace",
                fontsize=4.6, va="top", ha="left", transform=ax.transAxes)
    for ax in list(axes.flat)[len(show):]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, config.out, "osdt-trees", dpi=110)

    parts = [mode_note(config),
             f"Time limits: OSDT {lim['osdt']:g} s, BinOCT {lim['binoct']:g} s, RBinOCT {lim['rbinoct']:g} s "
             "(HiGHS, one thread; the paper ran BinOCT on CPLEX with 8 threads for 30 min and RBinOCT for 1 h).",
             md_table(pd.DataFrame(rows))]
    for title, tree, acc, paper in texts:
        parts.append(f"**{title}** (ours {100 * acc:.3f} %, paper {paper:.3f} %)\n\n```\n{tree}\n```")
    parts.append("![osdt-trees](osdt-trees.png)")
    write_markdown(config.out, "osdt-trees", "OSDT Figs. 4-7 and 9: the trees", parts)
    return 0
