"""The Rashomon importance distribution (RID; Donnelly, Katta, Rudin & Browne, "The Rashomon Importance
Distribution: Getting RID of Unstable, Single Model-based Variable Importance", NeurIPS 2023).

For a feature ``j``, RID is the distribution of its model reliance over the good models of the data *and* over
reasonable perturbations of the data: with ``D_1 .. D_B`` bootstrap samples of ``(X, y)`` and ``R(D_b)`` the
Rashomon set built on ``D_b`` (the paper's Eq. for the estimator of ``RID_j``)::

    CDF_j(k) = (1 / B) sum_b |{f in R(D_b) : MR_j(f, D_b) <= k}| / |R(D_b)|

every bootstrap weighs the same, and inside it every model of its set.  ``MR_j(f, D_b)`` is the model reliance of
:meth:`~optbb.common.rashomon.RashomonSet.variable_importance` (Fisher, Rudin & Dominici 2019, Eq. 3.5), measured
on the bootstrap sample the set was built on, exactly over the whole set (or a uniform sample of ``max_models``
models of a larger one).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from .rashomon import RashomonSet
from .reliance import check_weights


@dataclass
class ImportanceDistribution:
    """RID per feature: ``values[j]`` the distinct reliances of feature ``names[j]`` met (sorted) and ``mass[j]``
    their probability (summing to 1); ``models`` the size of each bootstrap's set; ``exact`` whether every set was
    measured whole."""

    names: list
    values: list
    mass: list
    models: list
    exact: bool

    def _at(self, feature) -> int:
        if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
            if not 0 <= int(feature) < len(self.names):
                raise ValueError(f"feature {feature} is out of range for {len(self.names)} features")
            return int(feature)
        if feature not in self.names:
            raise ValueError(f"unknown feature {feature!r}")
        return self.names.index(feature)

    def cdf(self, feature, k):
        """``P(MR <= k)`` for a feature (name or index), at ``k`` (a number or an array)."""
        j = self._at(feature)
        cum = np.concatenate([[0.0], np.cumsum(self.mass[j])])
        return cum[np.searchsorted(self.values[j], np.asarray(k, dtype=np.float64), side="right")]

    def quantile(self, feature, q):
        """The least reliance ``k`` with ``P(MR <= k) >= q`` (``q`` a number or an array in [0, 1])."""
        j = self._at(feature)
        cum = np.cumsum(self.mass[j])
        q = np.asarray(q, dtype=np.float64)
        if np.any((q < 0) | (q > 1)):
            raise ValueError("quantiles must be within [0, 1]")
        at = np.minimum(np.searchsorted(cum, q - 1e-12, side="left"), cum.size - 1)
        return self.values[j][at]

    def to_frame(self, quantiles=(0.05, 0.25, 0.5, 0.75, 0.95)) -> pd.DataFrame:
        """One row per feature: the mean reliance, ``P(MR > 0)`` and the given quantiles."""
        rows = {"mean": [float(np.dot(v, p)) for v, p in zip(self.values, self.mass)],
                "P(MR > 0)": [1.0 - float(self.cdf(j, 0.0)) for j in range(len(self.names))]}
        for q in quantiles:
            rows[f"q{q:g}"] = [float(self.quantile(j, q)) for j in range(len(self.names))]
        return pd.DataFrame(rows, index=list(self.names))


def rashomon_importance_distribution(build: Callable[..., RashomonSet], X, y, n_bootstrap: int = 10,
                                     sample_weight=None, random_state=0,
                                     max_models: int | None = 1_000_000) -> ImportanceDistribution:
    """RID (Donnelly et al. 2023) of each feature: ``build(X_b, y_b)`` (``build(X_b, y_b, w_b)`` with
    ``sample_weight``) makes the Rashomon set of each of ``n_bootstrap`` bootstrap samples of the rows (drawn with
    ``random_state``); each set's models' reliances on its own sample (:meth:`RashomonSet.reliance_distribution`)
    are pooled, each bootstrap weighing ``1 / n_bootstrap`` and each model of a set ``1 / count``.

    ``X`` is a 0/1 matrix or a DataFrame (rows taken with ``.iloc``), ``y`` its labels.  Example, trees of depth 3
    on a dataset ``data``::

        from optbb.common.data import BinaryDataset
        from optbb.osdt import rashomon_set
        rid = rashomon_importance_distribution(
            lambda X, y: rashomon_set(BinaryDataset(X, y, data.feature_names), 0.01, epsilon=0.05, max_depth=3),
            data.X, data.y, n_bootstrap=20)
        rid.to_frame()
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")
    if not callable(build):
        raise ValueError("build must be a function of (X, y) returning a RashomonSet")
    y = np.asarray(y)
    n = y.shape[0]
    if len(X) != n or n == 0:
        raise ValueError(f"X has {len(X)} rows but y has {n}")
    w = check_weights(sample_weight, n)
    rng = np.random.default_rng(random_state)
    names, parts, models, exact = None, None, [], True
    for _ in range(int(n_bootstrap)):
        idx = rng.integers(0, n, size=n)
        Xb = X.iloc[idx] if hasattr(X, "iloc") else np.asarray(X)[idx]
        args = (Xb, y[idx]) if w is None else (Xb, y[idx], w[idx])
        rset = build(*args)
        if not isinstance(rset, RashomonSet):
            raise ValueError(f"build must return a RashomonSet, got {type(rset).__name__}")
        these, dists = rset.reliance_distribution(Xb, y[idx], max_models=max_models,
                                                  sample_weight=None if w is None else w[idx])
        names = names or these
        parts = parts or [[] for _ in names]
        measured = int(dists[0][1].sum()) if dists else 0
        exact &= measured == rset.count
        models.append(rset.count)
        for j, (values, counts) in enumerate(dists):
            parts[j].append((values, counts / (measured * n_bootstrap)))
    values, mass = [], []
    for pieces in parts:
        v = np.concatenate([a for a, _ in pieces])
        p = np.concatenate([b for _, b in pieces])
        merged, at = np.unique(v, return_inverse=True)
        values.append(merged)
        mass.append(np.bincount(at.reshape(-1), weights=p, minlength=merged.size))
    return ImportanceDistribution(list(names), values, mass, models, exact)
