"""Figures with matplotlib (safe on the Agg backend, no display needed): search traces, accuracy against sparsity,
trees and rule lists, Rashomon sets.  Every function draws on ``ax`` (a new figure when None) and returns the ``Axes``::

    import matplotlib
    matplotlib.use("Agg")
    from optbb import plot
    ax = plot.search_trace(result)          # objective and lower bound against time, time to optimum marked
    ax.figure.savefig("trace.png")
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["search_trace", "accuracy_vs_sparsity", "tree", "rule_list", "rashomon_objectives",
           "rashomon_count_vs_epsilon", "rashomon_feature_usage", "rashomon_agreement"]


def _axes(ax, figsize=(6, 4), layout=None):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize, layout=layout)[1]


def search_trace(result, ax=None, title: str | None = None):
    """Objective (incumbent) and lower bound against time from a :class:`optbb.SearchResult`.

    The time the optimum (final incumbent) was first found is marked with a dashed line; for Monte-Carlo searches
    (FRL) without a lower bound only the objective is drawn.
    """
    ax = _axes(ax)
    tr = result.trace
    if tr is not None and len(tr):
        t = tr["time"].to_numpy(dtype=float)
        obj = tr["objective"].to_numpy(dtype=float)
        lb = tr["lower_bound"].to_numpy(dtype=float)
        total = result.counters.get("total_time", math.nan)
        if total is not None and math.isfinite(total) and total > t[-1]:  # extend to the end of the search
            final_lb = result.lower_bound if result.lower_bound is not None else math.nan
            t, obj, lb = np.r_[t, total], np.r_[obj, result.objective], np.r_[lb, final_lb]
        ax.step(t, obj, where="post", label="objective (incumbent)")
        if np.isfinite(lb).any():
            ax.step(t, lb, where="post", label="lower bound")
    t_opt = result.counters.get("time_to_optimum", math.nan)
    if t_opt is not None and math.isfinite(t_opt):
        ax.axvline(t_opt, color="grey", linestyle="--", label=f"time to optimum {t_opt:.3g} s")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("objective")
    ax.set_title(title or f"search trace ({result.status.name})")
    ax.legend(loc="best", fontsize="small")
    return ax


def accuracy_vs_sparsity(points, ax=None, title: str = "accuracy against sparsity"):
    """Accuracy against model size for several methods.

    ``points``: a DataFrame with columns ``method``, ``size`` (rules or leaves), ``accuracy``, or a dict
    ``{method: [(size, accuracy), ...]}``.
    """
    if isinstance(points, dict):
        rows = [(m, s, a) for m, pts in points.items() for s, a in pts]
        points = pd.DataFrame(rows, columns=["method", "size", "accuracy"])
    ax = _axes(ax)
    for method, g in points.groupby("method", sort=False):
        g = g.sort_values("size")
        ax.plot(g["size"], g["accuracy"], marker="o", label=str(method))
    ax.set_xlabel("model size (rules or leaves)")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return ax


def tree(model, ax=None, title: str | None = None):
    """Draw an OSDT :class:`optbb.osdt.Tree` (splits as ellipses, leaves as boxes; left branch = feature is 1).

    A split on a threshold of a numeric column (a tree fitted on numeric columns, ``model.cuts``) shows the column at
    the node and the two tests on its branches, as the tree's text prints them: ``petal_length <= 2.45`` on the left,
    ``petal_length > 2.45`` on the right.  A split on a 0/1 feature shows its name, branches ``1`` and ``0``.
    """
    d = model.to_dict()
    cuts = model.cuts
    # a threshold split of the dict names its column and threshold; the map's feature of that pair gives its tests
    feature_of = {} if cuts is None else {(c, t): f for f, (c, t) in enumerate(zip(cuts.columns, cuts.thresholds))}

    def split_labels(node) -> tuple[str, str, str, bool]:
        """``(node label, true-branch label, false-branch label, is a threshold split)``."""
        if "threshold" not in node:
            return node["name"], "1", "0", False
        f = feature_of[(node["feature"], node["threshold"])]
        return d["feature_names"][node["feature"]], cuts.condition(f, 1), cuts.condition(f, 0), True

    def width(node):
        return 1 if "prediction" in node else width(node["true"]) + width(node["false"])

    def depth(node):
        return 0 if "prediction" in node else 1 + max(depth(node["true"]), depth(node["false"]))

    def longest(node):  # characters of the longest test written on a branch
        if "prediction" in node:
            return 0
        _, yes, no, cut = split_labels(node)
        return max(len(yes) * cut, len(no) * cut, longest(node["true"]), longest(node["false"]))

    W, D = width(d), depth(d)
    per_leaf = max(1.8, 0.1 * longest(d) + 0.2)  # inches: two tests side by side between two subtrees fit
    ax = _axes(ax, figsize=(max(4, per_leaf * W), max(3, 1.3 * (D + 1))))
    ax.set_axis_off()

    def draw(node, x0, level):
        w = width(node)
        x = x0 + w / 2
        y = D - level
        if "prediction" in node:
            label = f"predict {node['prediction']}"
            if "n_samples" in node:
                label += f"\nn={node['n_samples']}"
            ax.text(x, y, label, ha="center", va="center", fontsize=8,
                    bbox=dict(boxstyle="square", facecolor="#e8f0fe"))
            return x, y
        name, yes, no, cut = split_labels(node)
        xl, yl = draw(node["true"], x0, level + 1)
        xr, yr = draw(node["false"], x0 + width(node["true"]), level + 1)
        for (xc, yc), lab, side in (((xl, yl), yes, "right"), ((xr, yr), no, "left")):
            ax.annotate("", xy=(xc, yc + 0.2), xytext=(x, y - 0.2), arrowprops=dict(arrowstyle="->"))
            if cut:  # a test beside its branch, on its outer side (clear of the arrow)
                shift = 0.03 if side == "left" else -0.03
                ax.text((x + xc) / 2 + shift, (y + yc) / 2, lab, fontsize=7, color="grey", ha=side, va="bottom")
            else:
                ax.text((x + xc) / 2, (y + yc) / 2, lab, fontsize=7, color="grey")
        ax.text(x, y, name, ha="center", va="center", fontsize=8, bbox=dict(boxstyle="round", facecolor="white"))
        return x, y

    draw(d, 0, 0)
    ax.set_xlim(-0.2, W + 0.2)
    ax.set_ylim(-0.6, D + 0.6)
    if title:
        ax.set_title(title)
    return ax


def rule_list(model, ax=None, title: str | None = None):
    """Draw a CORELS :class:`~optbb.corels.RuleList` or an FRL :class:`~optbb.frl.FallingRuleList` as a table of
    clauses; for falling rule lists a bar shows each clause's probability."""
    if type(model).__name__ == "FallingRuleList":
        probs = np.asarray(model.probabilities, dtype=float)
        clauses = [("IF" if k == 0 else "ELSE IF", n, f"{probs[k]:.3f}") for k, n in enumerate(model.names)]
        clauses.append(("ELSE", "", f"{probs[-1]:.3f}"))
        bars = probs
    else:
        lab = model.label_names
        clauses = [("IF" if k == 0 else "ELSE IF", r.name, str(lab[r.prediction])) for k, r in
                   enumerate(model.rules)]
        clauses.append(("ELSE", "", str(lab[model.default_prediction])))
        bars = None
    n = len(clauses)
    ax = _axes(ax, figsize=(7, 0.45 * n + 0.8))
    ax.set_axis_off()
    for k, (kw, cond, out) in enumerate(clauses):
        y = n - 1 - k
        ax.text(0.0, y, kw, fontsize=9, fontweight="bold", va="center")
        ax.text(0.12, y, cond, fontsize=9, va="center")
        ax.text(0.72, y, "then " + out, fontsize=9, va="center")
        if bars is not None:
            ax.barh(y, 0.12 * bars[k], left=0.86, height=0.5, color="#4c72b0")
    ax.set_xlim(0, 1.0)
    ax.set_ylim(-0.7, n - 0.3)
    if title:
        ax.set_title(title)
    return ax


# ---------------------------------------------------------------------------------------------------------------
# Rashomon sets (optbb.common.rashomon.RashomonSet)
# ---------------------------------------------------------------------------------------------------------------
def rashomon_objectives(rset, ax=None, bins: int = 30, title: str | None = None):
    """Histogram of the objectives of the set's models (counted from its levels, without listing), optimum and
    bound marked; a log count axis when the bins span more than three decades."""
    ax = _axes(ax)
    frame = rset.objectives()
    if len(frame):
        weights = np.array([float(c) for c in frame["count"]])
        heights, _, _ = ax.hist(frame["objective"].to_numpy(dtype=float), bins=bins, weights=weights,
                                range=(rset.optimum, max(rset.bound, rset.optimum * (1 + 1e-9))))
        filled = heights[heights > 0]
        if filled.size and filled.max() > 1000 * filled.min():
            ax.set_yscale("log")
    ax.axvline(rset.optimum, color="grey", linestyle="--", label=f"optimum {rset.optimum:.4g}")
    ax.axvline(rset.bound, color="C3", linestyle=":", label=f"bound {rset.bound:.4g}")
    ax.set_xlabel("objective")
    ax.set_ylabel("models")
    ax.set_title(title or f"Rashomon set of {rset.family}: {_count_text(rset.count)} models")
    ax.legend(loc="best", fontsize="small")
    return ax


def rashomon_count_vs_epsilon(rset, ax=None, epsilons=None, title: str | None = None):
    """The number of models within ``(1 + epsilon) *`` the optimum, for ``epsilon`` up to the set's own (counted from
    its levels, without listing)."""
    ax = _axes(ax)
    top = rset.bound / rset.optimum - 1 if rset.optimum > 0 else 0.0
    eps = np.linspace(0, top, 50) if epsilons is None else np.asarray(epsilons, dtype=float)
    counts = [float(rset.count_within(epsilon=float(e))) for e in eps]
    ax.step(eps, counts, where="post")
    if max(counts, default=0) > 1000 * max(min(counts, default=1), 1):
        ax.set_yscale("log")
    ax.set_xlabel("epsilon (share of the optimum)")
    ax.set_ylabel("models within the bound")
    ax.set_title(title or f"Rashomon set size against epsilon ({rset.family})")
    return ax


def rashomon_feature_usage(rset, ax=None, top: int = 20, title: str | None = None):
    """The share of the set's models using each feature (the ``top`` most used), exact.  Features no model uses are
    left out: after a fit on numeric columns every cut is a feature (``petal_length<=2.45``), most of them unused.
    On a new figure the margin fits the longest name."""
    ax = _axes(ax, figsize=(6, max(3.0, 0.25 * top)), layout="constrained")
    usage = rset.feature_usage()
    share = pd.Series([int(v) / max(rset.count, 1) for v in usage], index=usage.index).sort_values(kind="stable")
    share = share[share > 0].iloc[-top:]
    ax.barh(range(len(share)), share.to_numpy())
    ax.set_yticks(range(len(share)), labels=[str(i) for i in share.index], fontsize="small")
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the models using the feature")
    ax.set_title(title or f"feature usage over {_count_text(rset.count)} {rset.family}")
    return ax


def rashomon_agreement(rset, ax=None, bins: int = 20, title: str | None = None):
    """Histogram over the training rows of the share of the set predicting each row's most predicted class."""
    ax = _axes(ax)
    ax.hist(rset.agreement(), bins=bins, range=(0, 1) if bins else None)
    ax.set_xlabel("share of the models agreeing on the row")
    ax.set_ylabel("training rows")
    ax.set_title(title or f"per-sample agreement over {_count_text(rset.count)} {rset.family}")
    return ax


def _count_text(count: int) -> str:
    """A count as a title prints it: with thousands separators (``52,565``), in powers of ten beyond a billion
    (``3.3e+13``)."""
    return f"{count:,}" if count < 10 ** 9 else f"{count:.2g}"
