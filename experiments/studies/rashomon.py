"""Rashomon sets: how many models are nearly as good as the optimal one, what they agree on, and which features they
need.  Trees (``optbb.osdt.rashomon_set``) on COMPAS, monk2 and car, as in the TreeFARMS paper (Xin et al.,
NeurIPS 2022, Fig. 2: set size against epsilon), and rule lists (``optbb.corels.rashomon_set``) on the bundled
COMPAS antecedents; the variable importance over the set (model reliance, Fisher et al. 2019) against that of one
optimal model; the distribution of the per-sample agreement.

Every count is exact (counted from the sets' levels, without listing).  The sets' definitions are in
docs/rashomon.md; TreeFARMS counts differently (also there), so its counts, measured with treefarms 0.2.4 by
``benchmarks/rashomon.py``, stand beside ours as a reference, not as the same quantity.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..registry import register
from ..report import md_table, mode_note, pyplot, save_figure, write_markdown

# per mode: tree data sets, lambda, max_depth (optbb's splits per path; TreeFARMS' depth budget is one more), the
# epsilon grid, the variable-importance set (data set, lambda, epsilon, depth) and the rule-list setting
SETTINGS = {
    "full": dict(trees=["compas", "monk2", "car"], lam=0.01, depth=4, eps=[0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1],
                 vi=("compas", 0.01, 0.05, 4), rules=dict(lam=0.01, max_length=3, eps=[0.0, 0.01, 0.02, 0.03, 0.05])),
    "quick": dict(trees=["compas", "monk2", "car"], lam=0.01, depth=3, eps=[0.0, 0.01, 0.02, 0.05, 0.1],
                  vi=("compas", 0.01, 0.05, 3), rules=dict(lam=0.01, max_length=2, eps=[0.0, 0.02, 0.05])),
    "smoke": dict(trees=["monk2"], lam=0.02, depth=2, eps=[0.0, 0.05], vi=("monk2", 0.02, 0.05, 2),
                  rules=dict(lam=0.02, max_length=1, eps=[0.0, 0.05])),
}
# TreeFARMS 0.2.4 counts measured here (benchmarks/rashomon.py; lambda, epsilon, optbb's max_depth): its own
# definition, see docs/rashomon.md
TREEFARMS = {("compas", 0.01, 0.05, 4): 1105, ("compas", 0.005, 0.05, 4): 63000, ("monk2", 0.01, 0.05, 4): 684}
# CorelsEnum (Mata et al. 2022), the one published enumeration of near-optimal rule lists (no code released)
CORELS_ENUM = "CorelsEnum: tens of thousands of lists (at most 3 rules) in about 1,000 s"


def _tree_sets(config, s) -> tuple[pd.DataFrame, dict]:
    from optbb.datasets import load_osdt
    from optbb.osdt import rashomon_set

    rows, sets = [], {}
    for name in s["trees"]:
        data = load_osdt(name)
        t0 = time.perf_counter()
        rs = rashomon_set(data, s["lam"], epsilon=max(s["eps"]), max_depth=s["depth"])
        seconds = time.perf_counter() - t0
        sets[name] = rs
        config.log(f"trees {name}: {rs.count:,} within epsilon {max(s['eps'])} in {seconds:.2f} s")
        for eps in s["eps"]:
            ref = TREEFARMS.get((name, s["lam"], eps, s["depth"]))
            rows.append({"family": "trees", "data set": name, "lambda": s["lam"], "limit": f"max_depth {s['depth']}",
                         "epsilon": eps, "models": rs.count_within(epsilon=eps), "optimum": rs.optimum,
                         "seconds (whole set)": seconds, "TreeFARMS (its definition)": ref if ref else "-",
                         "paper": "-"})
    return pd.DataFrame(rows), sets


def _rule_sets(config, s) -> tuple[pd.DataFrame, object, object]:
    from optbb.corels import rashomon_set
    from optbb.datasets import load_compas_corels

    r = s["rules"]
    data = load_compas_corels()
    t0 = time.perf_counter()
    rs = rashomon_set(data, r["lam"], epsilon=max(r["eps"]), max_length=r["max_length"])
    seconds = time.perf_counter() - t0
    config.log(f"rule lists COMPAS: {rs.count:,} within epsilon {max(r['eps'])} in {seconds:.2f} s")
    rows = [{"family": "rule lists", "data set": "compas (155 antecedents)", "lambda": r["lam"],
             "limit": f"max_length {r['max_length']}", "epsilon": eps, "models": rs.count_within(epsilon=eps),
             "optimum": rs.optimum, "seconds (whole set)": seconds, "TreeFARMS (its definition)": "-",
             "paper": CORELS_ENUM if (r["lam"], r["max_length"], eps) == (0.01, 3, 0.05) else "-"}
            for eps in r["eps"]]
    return pd.DataFrame(rows), rs, data


def _importance(s) -> tuple[pd.DataFrame, object]:
    from optbb.datasets import load_osdt
    from optbb.osdt import rashomon_set

    name, lam, eps, depth = s["vi"]
    data = load_osdt(name)
    rs = rashomon_set(data, lam, epsilon=eps, max_depth=depth)
    vi = rs.variable_importance(data.X, data.y)
    vi.insert(0, "models using it", [int(v) for v in rs.feature_usage()])
    vi.insert(0, "feature", vi.index)
    return vi.reset_index(drop=True), rs


def _figure(config, counts: pd.DataFrame, vi: pd.DataFrame, tree_set, rule_set) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    ax = axes[0]
    for (family, name), sub in counts.groupby(["family", "data set"], sort=False):
        ax.plot(sub["epsilon"], sub["models"].astype(float), marker="o", label=f"{family}: {name}")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("models within (1 + epsilon) x optimum")
    ax.set_title("Rashomon set size against epsilon", fontsize=10)
    ax.legend(fontsize=7)
    ax = axes[1]
    order = vi.sort_values("max")
    y = np.arange(len(order))
    ax.hlines(y, order["min"], order["max"], color="C0", lw=4, label="range over the set")
    ax.plot(order["optimal"], y, "o", color="C3", label="one optimal tree")
    ax.set_yticks(y, labels=order["feature"], fontsize=7)
    ax.set_xlabel("model reliance (0-1 loss increase)")
    ax.set_title(f"variable importance over {tree_set.count:,} trees", fontsize=10)
    ax.legend(fontsize=7)
    ax = axes[2]
    ax.hist(tree_set.agreement(), bins=20, range=(0.5, 1), alpha=0.7, label=f"{tree_set.count:,} trees")
    if rule_set is not None and rule_set.count:
        ax.hist(rule_set.agreement(), bins=20, range=(0.5, 1), alpha=0.7, label=f"{rule_set.count:,} rule lists")
    ax.set_xlabel("share of the set agreeing on a row")
    ax.set_ylabel("training rows")
    ax.set_title("per-sample agreement (COMPAS)", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, config.out, "rashomon")


@register("rashomon", "Rashomon sets: size against epsilon (trees, rule lists), variable importance, agreement")
def run(config) -> int:
    s = SETTINGS[config.mode]
    trees, tree_sets = _tree_sets(config, s)
    rules, rule_set, _ = _rule_sets(config, s)
    counts = pd.concat([trees, rules], ignore_index=True)
    counts.to_csv(config.out / "rashomon.csv", index=False)
    vi, vi_set = _importance(s)
    vi.to_csv(config.out / "rashomon-importance.csv", index=False)
    agreement = pd.DataFrame({"set": "trees", "agreement": vi_set.agreement()})
    if rule_set.count:
        agreement = pd.concat([agreement, pd.DataFrame({"set": "rule lists", "agreement": rule_set.agreement()})])
    agreement.to_csv(config.out / "rashomon-agreement.csv", index=False)
    _figure(config, counts, vi, vi_set, rule_set)
    shown = counts.assign(models=[f"{int(m):,}" for m in counts["models"]],
                          optimum=[f"{o:.6f}" for o in counts["optimum"]],
                          **{"seconds (whole set)": [f"{t:.2f}" for t in counts["seconds (whole set)"]]})
    unanimous = {k: float(np.mean(g["agreement"] == 1.0)) for k, g in agreement.groupby("set")}
    name, lam, eps, depth = s["vi"]
    write_markdown(config.out, "rashomon", "Rashomon sets of trees and rule lists", [
        mode_note(config),
        "Set size against epsilon (exact counts: each set is built once at the largest epsilon and counted below "
        "each smaller one from its levels). TreeFARMS' counts, where measured, follow its own definition "
        "(docs/rashomon.md explains the difference) and are a reference, not the same quantity. The paper column "
        "gives the one published figure for rule lists (CorelsEnum, Mata et al. 2022, COMPAS, lambda 0.01, "
        "epsilon 0.05, at most 3 rules: about 1,000 s); the TreeFARMS paper plots its set sizes without printing "
        "them.",
        md_table(shown),
        f"Variable importance over the set ({name}, lambda {lam}, epsilon {eps}, max_depth {depth}: "
        f"{vi_set.count:,} trees): the range over the set of each feature's model reliance (the rise of the "
        "training 0-1 loss when the feature is switched between rows) beside the reliance of one optimal tree, "
        "and the number of trees using the feature. A feature whose range starts at 0 is one some good tree does "
        "without; one optimal tree shows a single point of that range.",
        md_table(vi.round(4)),
        "Per-sample agreement (the share of the set predicting a row's most predicted class): rows on which every "
        "model agrees: " + ", ".join(f"{k} {100 * v:.1f} %" for k, v in unanimous.items()) + ".",
        "![rashomon](rashomon.png)"])
    return 0
