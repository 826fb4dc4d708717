"""The measurements of docs/tutorials/continuous_data.md: quantile against gradient-boosted thresholds on UCI Adult.

For each binarisation (``Binarizer(n_thresholds=3)`` and ``Binarizer(strategy="gbdt", max_thresholds=8)``) it fits
OSDT and CORELS (lambda = 0.005, a time limit per search) on the training file, and a CART tree with as many leaves
as each of them on the raw columns (categories one-hot), and prints one Markdown table: binary features, leaves
(rules including the default for CORELS), training and test accuracy, search time and status.

    python docs/tutorials/continuous_data.py --data ../shared/data/adult/raw   # all 32,561 / 16,281 rows
    python docs/tutorials/continuous_data.py                                   # the bundled 5,000 / 2,500 sample
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from optbb import Binarizer
from optbb.corels import CorelsClassifier
from optbb.datasets import load_adult
from optbb.osdt import OSDTClassifier

COLUMNS = ["age", "education-num", "marital-status", "sex", "capital-gain", "capital-loss", "hours-per-week"]
BINARIZERS = {"quantile (3 per column)": lambda: Binarizer(n_thresholds=3),
              "gbdt (8 most important)": lambda: Binarizer(strategy="gbdt", max_thresholds=8)}


def cart_accuracy(X, y, Xt, yt, leaves: int) -> tuple[float, float]:
    """CART (Gini, best-first growth to ``leaves`` leaves) on the raw columns, categories one-hot."""
    Xd = pd.get_dummies(X, dtype=float)
    Xtd = pd.get_dummies(Xt, dtype=float).reindex(columns=Xd.columns, fill_value=0.0)
    if leaves < 2:
        majority = y.mode()[0]
        return float(np.mean(y == majority)), float(np.mean(yt == majority))
    tree = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(Xd, y)
    return float(np.mean(tree.predict(Xd) == y)), float(np.mean(tree.predict(Xtd) == yt))


def measure(data: str | None, time_limit: float, regularization: float) -> pd.DataFrame:
    X, y = load_adult("train", data)
    Xt, yt = load_adult("test", data)
    X, Xt = X[COLUMNS], Xt[COLUMNS]
    rows = []
    for label, make in BINARIZERS.items():
        t0 = time.perf_counter()
        b = make().set_output(transform="pandas").fit(X, y)
        Z, Zt = b.transform(X), b.transform(Xt)
        bin_time = time.perf_counter() - t0
        for est in (OSDTClassifier(regularization=regularization, time_limit=time_limit),
                    CorelsClassifier(regularization=regularization, max_card=2, time_limit=time_limit)):
            t0 = time.perf_counter()
            est.fit(Z, y)
            fit_time = time.perf_counter() - t0
            leaves = est.tree_.n_leaves if isinstance(est, OSDTClassifier) else len(est.rule_list_) + 1
            cart_train, cart_test = cart_accuracy(X, y, Xt, yt, leaves)
            rows.append({"thresholds": label, "features": Z.shape[1], "binarize (s)": round(bin_time, 1),
                         "model": "OSDT" if isinstance(est, OSDTClassifier) else "CORELS", "leaves": leaves,
                         "train acc.": round(float(np.mean(est.predict(Z) == y)), 4),
                         "test acc.": round(float(np.mean(est.predict(Zt) == yt)), 4),
                         "fit (s)": round(fit_time, 1), "status": est.result_.status.name.lower(),
                         "CART train": round(cart_train, 4), "CART test": round(cart_test, 4)})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None, help="folder with UCI adult.data / adult.test (default: bundled sample)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per OSDT / CORELS search")
    p.add_argument("--regularization", type=float, default=0.005)
    args = p.parse_args(argv)
    df = measure(args.data, args.time_limit, args.regularization)
    print("| " + " | ".join(df.columns) + " |")
    print("|" + "---|" * len(df.columns))
    for row in df.itertuples(index=False):
        print("| " + " | ".join(str(v) for v in row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
