"""CORELS Figures 9 and 11: test accuracy on the ten ProPublica folds, and sparsity against accuracy.

CORELS learns on the mined antecedents of each training fold and is tested on the reconstructed test fold (same
antecedents).  The other methods get the binary features of the single-clause antecedents (17 of them), as in the
paper.  CART is rpart-style (``optbb.baselines.cart``) over its cp grid.  C4.5, RIPPER and SBRL come from the
optional extra ``optbb[baselines]`` (``optbb.baselines.rule_learners``: imodels and wittgenstein); C4.5 and RIPPER get
the single-clause features, SBRL the mined antecedents CORELS sees (as in the paper).  Without the extra their rows
are skipped with a note.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..corels_common import corels_task
from ..registry import register
from ..report import accuracy, load_corels_fold, md_table, mean_std, mode_note, pyplot, save_figure, write_markdown
from ..runner import run_sweep

# Fig. 9: mean (population std) test accuracy over the 10 folds (authors' raw files; spec section 4.11)
PAPER_FIG9 = {"GLM": (.6706, .0198), "SVM": (.6709, .0193), "AdaBoost": (.6677, .0185), "CART": (.6541, .0199),
              "RF": (.6693, .0192), "C4.5": (.6699, .0186), "RIPPER": (.6699, .0190), "SBRL": (.6638, .0187),
              "COMPAS": (.6598, .0186), "CORELS": (.6647, .0176)}
# Fig. 11: (test accuracy, model size = leaves or rules incl. the default, train accuracy or None)
PAPER_FIG11 = {("CORELS", 0.005): (.6647, 4.3, .6675), ("CORELS", 0.01): (.6521, 3.2, .6588),
               ("CORELS", 0.02): (.6389, 2.0, .6389), ("CART", 0.001): (.6690, 10.8, None),
               ("CART", 0.003): (.6638, 7.4, None), ("CART", 0.01): (.6541, 4.4, None),
               ("CART", 0.03): (.6460, 2.9, None), ("CART", 0.1): (.6389, 2.0, None)}
# Fig. 11 for the rule learners at their default settings: (test accuracy, model size); C4.5 at J48's C = .25, SBRL
# at eta 3, lambda 9 (spec section 4.11)
PAPER_FIG11_RULES = {"C4.5": (.6699, 14.7), "RIPPER": (.6699, 5.5), "SBRL": (.6638, 9.2)}
RULE_SETTINGS = {"C4.5": "J48 C .25 / imodels: unpruned", "RIPPER": "k 2", "SBRL": "eta 3, lambda 9"}
PAPER_CORELS_FOLDS = [.6946, .6541, .6643, .6541, .6628, .6874, .6585, .6797, .6609, .6304]

SETTINGS = {
    "full": dict(folds=list(range(10)), lams=[0.005, 0.01, 0.02], cps=[0.001, 0.003, 0.01, 0.03, 0.1],
                 others=["GLM", "SVM", "AdaBoost", "RF"], rules=["C4.5", "RIPPER", "SBRL"], sbrl_chains=11),
    "quick": dict(folds=[0, 1], lams=[0.01, 0.02], cps=[0.001, 0.01, 0.1], others=["GLM", "SVM", "AdaBoost", "RF"],
                  rules=["C4.5", "RIPPER", "SBRL"], sbrl_chains=3),
    "smoke": dict(folds=[0], lams=[0.02], cps=[0.01, 0.1], others=["GLM", "AdaBoost"], rules=["RIPPER"],
                  sbrl_chains=1),
}


def single_clause(data) -> list[int]:
    return [i for i, n in enumerate(data.feature_names) if "," not in n]


def baseline_task(fold: int, method: str, setting: float | None = None) -> dict:
    """Train a baseline on the single-clause features of a training fold; accuracy on train and test."""
    from optbb.baselines.sklearn_models import make_model

    tr, te = load_corels_fold(fold, "train"), load_corels_fold(fold, "test")
    cols = single_clause(tr)
    X, Xt = tr.X[:, cols], te.X[:, cols]
    model = make_model(method, **({"cp": setting} if method == "CART" else {})).fit(X, tr.y)
    out = {"train_accuracy": accuracy(model.predict(X), tr.y), "test_accuracy": accuracy(model.predict(Xt), te.y),
           "n_features": len(cols)}
    out["size"] = int(model.n_leaves_) if method == "CART" else None
    return out


def rule_task(fold: int, method: str, n_chains: int = 11) -> dict:
    """C4.5 or RIPPER on the single-clause features, SBRL on the mined antecedents (``n_chains`` chains of 1,000
    iterations); accuracy on train and test and the model size (leaves, or rules incl. the default)."""
    from optbb.baselines.rule_learners import make_model

    tr, te = load_corels_fold(fold, "train"), load_corels_fold(fold, "test")
    cols = list(range(tr.X.shape[1])) if method == "SBRL" else single_clause(tr)
    X, Xt = tr.X[:, cols], te.X[:, cols]
    model = make_model(method, **({"n_chains": n_chains} if method == "SBRL" else {})).fit(X, tr.y)
    return {"train_accuracy": float(np.mean(model.predict(X) == tr.y)),
            "test_accuracy": float(np.mean(model.predict(Xt) == te.y)), "n_features": len(cols),
            "size": int(model.size_)}


def _rule_rows(s, config) -> tuple[list[dict], str]:
    """Rows of the installed rule learners, and a note on those skipped (optional extra not installed)."""
    from optbb.baselines.rule_learners import EXTRA, missing

    absent = missing()
    run_now = [m for m in s["rules"] if m not in absent]
    note = ""
    if absent and set(s["rules"]) & set(absent):
        skipped = [m for m in s["rules"] if m in absent]
        note = (f"**Skipped:** {', '.join(skipped)}: not installed: "
                f"{', '.join(sorted({absent[m] for m in skipped}))} (`{EXTRA}` adds it).")
    cfg = [{"fold": f, "method": m, **({"n_chains": s["sbrl_chains"]} if m == "SBRL" else {})}
           for m in run_now for f in s["folds"]]
    res = run_sweep(rule_task, cfg, config, "rule learners") if cfg else []
    return [{"method": r["method"], "setting": None, "fold": r["fold"], "train_accuracy": r["train_accuracy"],
             "test_accuracy": r["test_accuracy"], "size": r["size"]} for r in res], note


@register("corels-accuracy", "CORELS Figs 9 and 11: test accuracy on the 10 ProPublica folds vs CART, GLM, SVM, "
                             "AdaBoost, RF (and C4.5, RIPPER, SBRL with optbb[baselines]); sparsity vs accuracy over "
                             "lambda and CART cp")
def run(config) -> int:
    s = SETTINGS[config.mode]
    cor = run_sweep(corels_task, [{"fold": f, "regularization": lam, "test": True}
                                  for lam in s["lams"] for f in s["folds"]], config, "corels")
    base_cfg = [{"fold": f, "method": "CART", "setting": cp} for cp in s["cps"] for f in s["folds"]]
    base_cfg += [{"fold": f, "method": m, "setting": None} for m in s["others"] for f in s["folds"]]
    base = run_sweep(baseline_task, base_cfg, config, "baselines")
    rows = [{"method": "CORELS", "setting": r["regularization"], "fold": r["fold"], "train_accuracy":
             r["train_accuracy"], "test_accuracy": r["test_accuracy"], "size": r["rules"] + 1, "model": r["model"],
             "status": r["status"]} for r in cor]
    rows += [{"method": r["method"], "setting": r["setting"], "fold": r["fold"], "train_accuracy":
              r["train_accuracy"], "test_accuracy": r["test_accuracy"], "size": r["size"]} for r in base]
    rule_rows, rule_note = _rule_rows(s, config)
    rows += rule_rows
    rules_run = [m for m in s["rules"] if any(r["method"] == m for r in rule_rows)]
    df = pd.DataFrame(rows)
    df.to_csv(config.out / "corels-accuracy.csv", index=False)

    # Figure 9 table: one setting per method (CORELS at its smallest lambda, CART at rpart's default cp .01)
    lam9 = min(s["lams"])
    fig9 = []
    for method in ["CORELS", "CART", *s["others"], *rules_run]:
        g = df[(df.method == method) & ((df.setting == (lam9 if method == "CORELS" else 0.01)) |
                                        (method not in ("CORELS", "CART")))]
        if g.empty:
            continue
        pm, ps = PAPER_FIG9[method]
        fig9.append({"method": method + (f" (lambda {lam9})" if method == "CORELS" else
                                         " (cp .01)" if method == "CART" else ""),
                     "test accuracy": mean_std(g.test_accuracy, 3), "paper": f"{pm:.4f} ({ps:.4f})",
                     "train accuracy": mean_std(g.train_accuracy, 3)})
    fig11 = []
    for (method, setting), (pt, psz, ptr) in PAPER_FIG11.items():
        g = df[(df.method == method) & (df.setting == setting)]
        if g.empty:
            continue
        fig11.append({"method": method, "lambda / cp": setting, "test accuracy": mean_std(g.test_accuracy, 3),
                      "paper": f"{pt:.4f}", "model size": f"{g['size'].mean():.1f}", "paper ": f"{psz}",
                      "train accuracy": mean_std(g.train_accuracy, 3), "paper  ": "" if ptr is None else f"{ptr}"})
    for method in rules_run:
        g = df[df.method == method]
        pt, psz = PAPER_FIG11_RULES[method]
        fig11.append({"method": method, "lambda / cp": RULE_SETTINGS[method],
                      "test accuracy": mean_std(g.test_accuracy, 3), "paper": f"{pt:.4f}",
                      "model size": f"{g['size'].mean():.1f}", "paper ": f"{psz}",
                      "train accuracy": mean_std(g.train_accuracy, 3), "paper  ": ""})
    per_fold = df[(df.method == "CORELS") & (df.setting == lam9)].sort_values("fold")
    fold_tab = pd.DataFrame({"fold": per_fold.fold, "ours": per_fold.test_accuracy.map(lambda v: f"{v:.4f}"),
                             "paper": [f"{PAPER_CORELS_FOLDS[f]:.4f}" if lam9 == 0.005 else "" for f in per_fold.fold],
                             "list": per_fold.model.map(_compact)})
    _figures(df, dict(s, others=[*s["others"], *rules_run]), lam9, config.out)
    write_markdown(config.out, "corels-accuracy", "CORELS Figures 9 and 11: accuracy and sparsity (ProPublica)", [
        mode_note(config),
        f"Folds {', '.join(map(str, s['folds']))} of the JMLR ProPublica CV (Feature Set A). CORELS: mined "
        "antecedents, tested on the reconstructed test folds. Other methods: the 17 single-clause binary features "
        "(scikit-learn stand-ins for the paper's R packages); C4.5 (imodels, unpruned), RIPPER (wittgenstein) on "
        "the same features, SBRL (imodels' Bayesian rule list, eta 3, lambda 9, "
        f"{s['sbrl_chains']} chains x 1,000 iterations) on the mined antecedents. Mean (population std) over folds; "
        "'paper' = the authors' raw numbers behind the figures.", rule_note,
        "## Figure 9: test accuracy", md_table(pd.DataFrame(fig9)),
        "![corels-accuracy-fig9](corels-accuracy-fig9.png)",
        "## Figure 11: sparsity vs accuracy", md_table(pd.DataFrame(fig11)),
        "![corels-accuracy-fig11](corels-accuracy-fig11.png)",
        f"## CORELS per fold (lambda {lam9})", md_table(fold_tab)])
    return 0


def _compact(text: str) -> str:
    """``if ({a}) then ({label:Yes})`` lines as ``a -> Yes; ...; else No``."""
    import re

    parts = []
    for line in text.splitlines():
        m = re.match(r"(?:else )?if \(\{(.*)\}\) then \(\{.*:(\w+)\}\)", line.strip())
        if m:
            parts.append(f"{m.group(1)} -> {m.group(2)}")
        else:
            m = re.match(r"else \(\{.*:(\w+)\}\)", line.strip())
            parts.append(f"else {m.group(1)}" if m else line.strip())
    return "; ".join(parts)


def _figures(df, s, lam9, out):
    plt = pyplot()
    methods = ["CORELS", "CART", *s["others"]]
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    for i, m in enumerate(methods):
        g = df[(df.method == m) & ((df.setting == (lam9 if m == "CORELS" else 0.01)) | (m not in ("CORELS", "CART")))]
        ax.scatter(np.full(len(g), i) + np.linspace(-0.15, 0.15, len(g)), g.test_accuracy, s=10, color="C0",
                   label="ours, per fold" if i == 0 else None)
        ax.errorbar(i + 0.3, g.test_accuracy.mean(), yerr=g.test_accuracy.std(ddof=0), fmt="o", color="C0", ms=4)
        pm, ps = PAPER_FIG9[m]
        ax.errorbar(i + 0.42, pm, yerr=ps, fmt="s", color="0.5", ms=4, label="paper mean (std)" if i == 0 else None)
    ax.set_xticks(range(len(methods)))
    ax.set_xticklabels([f"CORELS\nlambda={lam9}" if m == "CORELS" else ("CART\ncp=.01" if m == "CART" else m)
                        for m in methods], fontsize=7)
    ax.set_ylabel("test accuracy"), ax.legend(fontsize=7), ax.set_title("ProPublica (Fig. 9)", fontsize=9)
    save_figure(fig, out, "corels-accuracy-fig9")

    fig, ax = plt.subplots(figsize=(5, 3.4))
    for i, m in enumerate(m for m in s["others"] if m in PAPER_FIG11_RULES):
        g = df[df.method == m]
        ax.plot(g["size"].mean(), g.test_accuracy.mean(), "^", color=f"C{i + 2}", label=f"{m} (ours)")
        ax.plot(PAPER_FIG11_RULES[m][1], PAPER_FIG11_RULES[m][0], "^", color=f"C{i + 2}", mfc="none", ms=9,
                label=f"{m} (paper)")
    for m, color in (("CORELS", "C0"), ("CART", "C1")):
        g = df[df.method == m].groupby("setting").agg(acc=("test_accuracy", "mean"), size=("size", "mean"))
        ax.plot(g["size"], g["acc"], "o-", color=color, label=f"{m} (ours)")
        for setting, r in g.iterrows():
            ax.annotate(f"{setting:g}", (r["size"], r["acc"]), fontsize=6, xytext=(3, 3), textcoords="offset points")
        p = sorted((v[1], v[0]) for (mm, _), v in PAPER_FIG11.items() if mm == m)
        ax.plot([a for a, _ in p], [b for _, b in p], "s--", color=color, mfc="none", ms=9, lw=0.8,
                label=f"{m} (paper)")
    if df["size"].max() > 30:  # unpruned C4.5 trees
        ax.set_xscale("log")
    ax.set_xlabel("model size (leaves / rules incl. default)"), ax.set_ylabel("test accuracy")
    ax.legend(fontsize=7), ax.set_title("Sparsity vs accuracy (Fig. 11)", fontsize=9)
    save_figure(fig, out, "corels-accuracy-fig11")
