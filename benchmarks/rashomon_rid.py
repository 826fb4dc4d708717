"""The Rashomon importance distribution (RID, Donnelly et al. 2023) of the COMPAS features, and its figure.

    python benchmarks/rashomon_rid.py [--bootstrap 20] [--lam 0.005] [--epsilon 0.05] [--depth 4]
                                      [--out docs/figures/rashomon-rid.png]

Draws ``--bootstrap`` bootstrap samples of OSDT's binarised COMPAS (``optbb.datasets.load_osdt("compas")``), builds
on each the Rashomon set of trees within ``(1 + epsilon)`` times its optimum (``optbb.osdt.rashomon_set``), and
pools the model reliance of every tree of every set on its own sample, each bootstrap weighing the same
(``optbb.rashomon_importance_distribution``).  Prints the set sizes, the time, and per feature the mean, ``P(MR >
0)`` and quantiles; draws per feature the 5-95 % and 25-75 % ranges, the median and the mean, beside the range of
the set built on the whole data (``variable_importance``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's optbb

from optbb import rashomon_importance_distribution  # noqa: E402
from optbb.common.data import BinaryDataset  # noqa: E402
from optbb.datasets import load_osdt  # noqa: E402
from optbb.osdt import rashomon_set  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", type=int, default=20)
    parser.add_argument("--lam", type=float, default=0.005)
    parser.add_argument("--epsilon", type=float, default=0.05)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--out", default=str(ROOT / "docs" / "figures" / "rashomon-rid.png"))
    args = parser.parse_args()
    data = load_osdt("compas")

    def build(X, y):
        return rashomon_set(BinaryDataset(X, y, data.feature_names), args.lam, epsilon=args.epsilon,
                            max_depth=args.depth)

    whole = build(data.X, data.y)
    vi = whole.variable_importance(data.X, data.y)
    start = time.perf_counter()
    rid = rashomon_importance_distribution(build, data.X, data.y, n_bootstrap=args.bootstrap, random_state=0)
    seconds = time.perf_counter() - start
    print(f"COMPAS, lambda {args.lam}, epsilon {args.epsilon}, depth {args.depth}: whole data {whole.count:,} trees; "
          f"{args.bootstrap} bootstrap sets of {min(rid.models):,} to {max(rid.models):,} trees, RID in "
          f"{seconds:.1f} s (exact: {rid.exact})")
    table = rid.to_frame()
    print(table.round(4).to_string())
    figure(rid, table, vi, whole.count, args)


def figure(rid, table, vi, count: int, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = table.sort_values("mean").index.tolist()
    y = np.arange(len(order))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.3, 1]})
    ax = axes[0]
    ax.hlines(y - 0.18, vi.loc[order, "min"], vi.loc[order, "max"], color="0.6", lw=3,
              label=f"range over the set on all rows ({count:,} trees)")
    ax.hlines(y + 0.1, table.loc[order, "q0.05"], table.loc[order, "q0.95"], color="C0", lw=1.5, label="RID 5-95 %")
    ax.hlines(y + 0.1, table.loc[order, "q0.25"], table.loc[order, "q0.75"], color="C0", lw=5, label="RID 25-75 %")
    ax.plot(table.loc[order, "q0.5"], y + 0.1, "|", color="k", ms=10, label="RID median")
    ax.plot(table.loc[order, "mean"], y + 0.1, "o", color="C3", ms=4, label="RID mean")
    ax.axvline(0, color="0.8", lw=0.8, zorder=0)
    ax.set_yticks(y, labels=order, fontsize=8)
    ax.set_xlabel("model reliance (rise of the 0-1 loss)")
    ax.set_title(f"RID over {args.bootstrap} bootstrap Rashomon sets (COMPAS, depth {args.depth}, "
                 f"lambda {args.lam}, epsilon {args.epsilon})", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax = axes[1]
    top = order[::-1][:5]
    for name in top:
        values = rid.values[rid.names.index(name)]
        grid = np.concatenate([[min(values.min(), 0.0) - 0.005], values, [values.max() + 0.005]])
        ax.step(grid, rid.cdf(name, grid), where="post", label=name)
    ax.set_xlabel("model reliance k")
    ax.set_ylabel("P(MR <= k)")
    ax.set_title("RID: cumulative distribution of the five largest means", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"figure: {args.out}")


if __name__ == "__main__":
    main()
