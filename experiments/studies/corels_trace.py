"""CORELS Figures 16 and 18 style: objective and lower bound against time, per algorithm variant, on one fold.

Uses ``result.trace`` (time, objective, lower_bound, queue_size, nodes) of each variant of Table 4.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..corels_common import VARIANTS, corels_task, variant_params
from ..registry import register
from ..report import md_table, mode_note, pyplot, save_figure, sig, write_markdown
from ..runner import run_sweep

SETTINGS = {"full": dict(fold=0, lam=0.005, limits={"time_limit": 300.0, "memory_limit": "4G"}),
            "quick": dict(fold=0, lam=0.01, limits={"time_limit": 10.0, "memory_limit": "512M"}),
            "smoke": dict(fold=0, lam=0.02, limits={"time_limit": 2.0, "memory_limit": "256M"})}

PAPER_TEXT = ("Paper (ProPublica, lambda = 0.005): the representative fold of Fig. 16 took T = 21 s with full CORELS; "
              "Fig. 18: the optimum is reached within a second and certified in about a minute, while without the "
              "equivalent points bound the run is still far from complete after more than 2 hours.")


@register("corels-trace",
          "CORELS Figs 16/18: objective and lower bound vs time for each variant on one ProPublica fold")
def run(config) -> int:
    s = SETTINGS[config.mode]
    configs = [{"fold": s["fold"], "regularization": s["lam"], "trace": True, **variant_params(kw, s["limits"])}
               for _, kw in VARIANTS]
    res = run_sweep(corels_task, configs, config, "trace")
    frames, summary = [], []
    for (name, _), r in zip(VARIANTS, res):
        tr = pd.DataFrame(r["trace"])
        tr.insert(0, "variant", name)
        frames.append(tr)
        summary.append({"variant": name, "status": r["status"], "total time (s)": sig(r["total_time"], 3),
                        "time to optimum (s)": sig(r["time_to_optimum"], 3), "objective": f"{r['objective']:.6f}",
                        "lower bound": f"{r['lower_bound']:.6f}", "max queue size": f"{r['max_queue_size']:,}",
                        "trace points": len(tr)})
    traces = pd.concat(frames, ignore_index=True)
    traces.to_csv(config.out / "corels-trace.csv", index=False)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for i, (name, _) in enumerate(VARIANTS):
        tr = traces[traces.variant == name]
        t = np.maximum(tr.time.to_numpy(), 1e-4)
        axes[0].step(t, tr.objective, where="post", color=f"C{i}", label=name)
        axes[0].step(t, tr.lower_bound, where="post", color=f"C{i}", ls="--")
        axes[1].step(t, np.maximum(tr.queue_size, 1), where="post", color=f"C{i}", label=name)
    axes[0].set_xscale("log"), axes[0].set_xlabel("time (s)")
    axes[0].set_ylabel("objective (solid), lower bound (dashed)")
    axes[1].set_xscale("log"), axes[1].set_yscale("log"), axes[1].set_xlabel("time (s)")
    axes[1].set_ylabel("queue size"), axes[1].legend(fontsize=7)
    fig.suptitle(f"ProPublica fold {s['fold']}, lambda = {s['lam']}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, config.out, "corels-trace")
    write_markdown(config.out, "corels-trace", "CORELS execution traces (Figs 16 and 18 style)", [
        mode_note(config),
        f"ProPublica fold {s['fold']}, lambda = {s['lam']}; the 'no equivalent points' run stops at "
        f"{s['limits']['time_limit']:g} s or {s['limits']['memory_limit']}.", md_table(pd.DataFrame(summary)),
        PAPER_TEXT, "![corels-trace](corels-trace.png)"])
    return 0
