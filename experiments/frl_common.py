"""bank-full loading (once per process) and FRL/softFRL fitting shared by the frl-* studies."""
from __future__ import annotations

import functools
import time

import numpy as np


@functools.lru_cache(maxsize=1)
def bank():
    """UCI bank-full as FRL items (the bundled copy): a BinaryDataset with one column per item."""
    from optbb.datasets import load_bank_full

    return load_bank_full()


def fit_frl(method: str, X, y, names, w: float, C: float, C1: float | None, n_iter: int, seed: int):
    from optbb.frl import FRLClassifier, SoftFRLClassifier

    if method == "FRL":
        est = FRLClassifier(positive_weight=w, regularization=C, n_iter=n_iter, random_state=seed,
                            feature_names=names)
    else:
        est = SoftFRLClassifier(positive_weight=w, regularization=C, monotonicity_penalty=C1, n_iter=n_iter,
                                random_state=seed, feature_names=names)
    t0 = time.perf_counter()
    est.fit(X, y)
    return est, time.perf_counter() - t0


def rule_rows(est) -> list[dict]:
    return est.rule_list_.to_frame().to_dict(orient="records")


def split_indices(n: int, split: int, train_fraction: float = 0.75):
    rng = np.random.default_rng(1000 + split)
    perm = rng.permutation(n)
    k = int(round(train_fraction * n))
    return np.sort(perm[:k]), np.sort(perm[k:])
