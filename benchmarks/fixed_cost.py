"""What a fit costs on the smallest data sets, where the search is the lesser part: optbb, ConTree and scikit-learn's
greedy CART, fit and predict, side by side in one process.

Usage::

    python benchmarks/fixed_cost.py [--cases iris@d2,wine@d3] [--repeats 300] [--out benchmarks/results/fixed_cost]

Cases ``<dataset>@d<depth>`` over scikit-learn's iris and wine (default: both at depths 2, 3 and 4).  Each round fits
and predicts on the training rows once with each solver, in an order that rotates from round to round, after 30
untimed rounds: ``OSDTClassifier(regularization=0, max_depth=d)`` (the optimal tree over every threshold),
``pycontree.ConTree(max_depth=d)`` (the same, a benchmark-only dependency) and
``sklearn.tree.DecisionTreeClassifier(max_depth=d)`` (greedy, compiled: a floor for what an estimator of this
library's kind spends outside its search).  A fourth timing, "optbb checks", runs only what ``OSDTClassifier.fit``
does before its search: the check of its parameters, of ``X`` and ``y``, and the sort of every column.  The table
quotes medians in milliseconds and the ratios to ConTree; optbb's errors must equal ConTree's.

Results: ``<out>.md``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import workers
from osdt_continuous import load

ROOT = Path(__file__).resolve().parents[1]
CASES = [f"{name}@d{d}" for name in ("iris", "wine") for d in (2, 3, 4)]
WARM_UP = 30


def solvers(depth: int) -> dict:
    """Each timed call: fit and predict on ``(X, y)``, returning the training errors (None: no model)."""
    from pycontree import ConTree
    from sklearn.tree import DecisionTreeClassifier

    from optbb.common.validation import validate_fit_input
    from optbb.osdt import OSDTClassifier
    from optbb.osdt.numeric.cuts import column_values

    def errors(model, X, y):
        return int(np.sum(model.fit(X, y).predict(X) != y))

    def checks(X, y):
        clf = OSDTClassifier(regularization=0, max_depth=depth)
        clf._validate_params()
        Xc, *_, w = validate_fit_input(X, y, None, estimator=clf, multiclass=True, numeric=True)
        column_values(Xc, w)

    return {"optbb": lambda X, y: errors(OSDTClassifier(regularization=0, max_depth=depth), X, y),
            "ConTree": lambda X, y: errors(ConTree(max_depth=depth), X, y),
            "CART": lambda X, y: errors(DecisionTreeClassifier(max_depth=depth, random_state=0), X, y),
            "optbb checks": checks}


def measure(case: str, repeats: int) -> dict:
    name, depth = case.split("@d")
    X, y = load(name)
    run = solvers(int(depth))
    names = list(run)
    times: dict[str, list[float]] = {s: [] for s in names}
    found: dict[str, object] = {}
    for i in range(WARM_UP + repeats):
        k = i % len(names)
        for s in names[k:] + names[:k]:
            t0 = time.perf_counter()
            found[s] = run[s](X, y)
            if i >= WARM_UP:
                times[s].append(time.perf_counter() - t0)
    return {"case": case, "ms": {s: 1e3 * float(np.median(t)) for s, t in times.items()},
            "errors": {s: found[s] for s in ("optbb", "ConTree", "CART")}}


def table(results: list[dict], header: str) -> str:
    lines = [header, "", "| case | optbb ms | ConTree ms | CART ms | optbb checks ms | optbb / ConTree | "
             "CART / ConTree | errors optbb / ConTree / CART |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        ms, e = r["ms"], r["errors"]
        flag = "" if e["optbb"] == e["ConTree"] else " (optimal errors differ!)"
        lines.append(f"| {r['case']} | {ms['optbb']:.3f} | {ms['ConTree']:.3f} | {ms['CART']:.3f} | "
                     f"{ms['optbb checks']:.3f} | {ms['optbb'] / ms['ConTree']:.2f} | "
                     f"{ms['CART'] / ms['ConTree']:.2f} | {e['optbb']} / {e['ConTree']} / {e['CART']}{flag} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--repeats", type=int, default=300)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "fixed_cost"))
    args = ap.parse_args()
    results = []
    for case in args.cases.split(","):
        results.append(measure(case, args.repeats))
        print(case, {s: round(v, 3) for s, v in results[-1]["ms"].items()}, flush=True)
    header = (f"# The cost of a fit on the smallest data: optbb, ConTree and CART\n\n"
              f"{workers.provenance(__file__, ROOT)}, {args.repeats} rounds (medians, ms)")
    text = table(results, header)
    Path(args.out).with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
