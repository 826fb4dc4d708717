"""FRL's antecedents: itemsets mined class-wise (:func:`~optbb.common.mining.mine_classwise`), with, on request, the
pairs the reference code holds twice."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..common.data import BinaryDataset
from ..common.limits import Budget
from ..common.mining import MinedAntecedents, class_support_threshold, mine_classwise


def mine_frl(data: BinaryDataset, max_card: int, min_support: float, negations: bool, keep_duplicates: bool,
             budget: Budget, weights: np.ndarray | None = None) -> MinedAntecedents:
    """The antecedents FRL searches over: itemsets frequent within a class, duplicates merged, or with
    ``keep_duplicates`` the reference's set (the twins of :func:`reference_twins` appended).  No antecedent: an
    empty complete result (``data`` None)."""
    mined = mine_classwise(data, max_card=max_card, min_support=min_support, negations=negations,
                           dedupe=not keep_duplicates, budget=budget, weights=weights, allow_empty=True)
    if not keep_duplicates or not mined.complete or mined.data is None:
        return mined
    twins = reference_twins(mined, data.X, data.y, min_support, weights)
    if not twins:
        return mined
    ants = list(mined.antecedents) + [mined.antecedents[k] for k in twins]
    names = list(mined.data.feature_names)
    for k in twins:
        i, j = ants[k].features
        names.append(f"{data.feature_names[j]},{data.feature_names[i]}")
    A = np.concatenate([mined.data.X, mined.data.X[:, twins]], axis=1)
    return dataclasses.replace(mined, data=BinaryDataset(A, data.y, names, weights), antecedents=ants)


def reference_twins(mined: MinedAntecedents, X: np.ndarray, y: np.ndarray, min_support: float,
                    weights: np.ndarray | None = None) -> list[int]:
    """Indices of mined pairs that the reference code holds twice.

    The reference unions the item tuples FP-growth reports for each class; FP-growth writes the items of a set in
    its per-class frequency order, so a pair frequent in both classes whose two items rank differently in the two
    classes appears as two tuples (spec of the reference run, Section 4).  Ties in frequency keep the column order.
    With ``weights``, supports and frequencies are weights, as in the weighted miner.
    """
    num, den = class_support_threshold(min_support)
    pos = y == 1
    wt = np.ones(y.shape[0], dtype=np.int64) if weights is None else weights  # counts: weights of 1, exact integers
    w_pos, w_neg = wt[pos], wt[~pos]
    f_pos, f_neg = w_pos @ X[pos], w_neg @ X[~pos]
    n_pos, n_neg = w_pos.sum(), w_neg.sum()
    Xa = mined.data.X
    twins = []
    for k, a in enumerate(mined.antecedents):
        if len(a.features) != 2 or any(a.negated):
            continue
        c_pos, c_neg = w_pos @ Xa[pos, k], w_neg @ Xa[~pos, k]
        if not (c_pos * den >= num * n_pos and c_neg * den >= num * n_neg):
            continue
        i, j = a.features
        order_pos = (-f_pos[i], i) < (-f_pos[j], j)
        order_neg = (-f_neg[i], i) < (-f_neg[j], j)
        if order_pos != order_neg:
            twins.append(k)
    return twins
