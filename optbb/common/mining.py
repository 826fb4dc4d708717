"""Antecedent mining: literals (features and optionally their negations) and their conjunctions.

``mine_antecedents`` follows pycorels: conjunctions of up to ``max_card`` literals over distinct features, kept when
their support lies in ``[min_support, 1 - min_support]``; identical bit vectors are de-duplicated, keeping the
first name.  ``mine_classwise`` is FRL's miner: itemsets frequent within the positive class or within the negative
class.  Both return a ``BinaryDataset`` whose columns are the antecedents, plus the literal structure of each.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .data import BinaryDataset

NOT = "not "
AND = ","


@dataclass(frozen=True)
class Antecedent:
    """A conjunction of literals: feature indices of the original data and their signs (True = negated)."""

    features: tuple[int, ...]
    negated: tuple[bool, ...]

    def evaluate(self, X: np.ndarray) -> np.ndarray:
        """0/1 vector over the rows of a 0/1 feature matrix ``X``."""
        out = np.ones(X.shape[0], dtype=bool)
        for f, neg in zip(self.features, self.negated):
            col = X[:, f].astype(bool)
            out &= ~col if neg else col
        return out.astype(np.uint8)

    def name(self, feature_names) -> str:
        return AND.join((NOT if n else "") + feature_names[f] for f, n in zip(self.features, self.negated))


@dataclass
class MinedAntecedents:
    """Mined antecedents over a feature dataset: ``data`` has one column per antecedent."""

    data: BinaryDataset
    antecedents: list[Antecedent]
    source_feature_names: list[str]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Antecedent matrix (rows x antecedents) of new 0/1 feature rows."""
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.source_feature_names):
            raise ValueError(f"X must have {len(self.source_feature_names)} feature columns, got shape {X.shape}")
        if len(self.antecedents) == 0:
            return np.zeros((X.shape[0], 0), dtype=np.uint8)
        return np.stack([a.evaluate(X) for a in self.antecedents], axis=1)


def _check_params(max_card: int, min_support: float) -> None:
    if int(max_card) != max_card or max_card < 1:
        raise ValueError(f"max_card must be a positive integer, got {max_card!r}")
    if not (0.0 <= float(min_support) <= 0.5):
        raise ValueError(f"min_support must lie in [0, 0.5], got {min_support!r}")


def _literals(X: np.ndarray, negations: bool):
    lits = [(j, False) for j in range(X.shape[1])]
    if negations:
        lits += [(j, True) for j in range(X.shape[1])]
    cols = {lit: (1 - X[:, lit[0]]) if lit[1] else X[:, lit[0]] for lit in lits}
    return lits, cols


def _collect(data: BinaryDataset, candidates, keep, dedupe: bool) -> MinedAntecedents:
    """Keep candidates (antecedent, 0/1 column) passing ``keep``; optionally drop repeated bit vectors."""
    seen: set[bytes] = set()
    ants, cols = [], []
    for ant, col in candidates:
        if not keep(col):
            continue
        if dedupe:
            key = np.packbits(col).tobytes()
            if key in seen:
                continue
            seen.add(key)
        ants.append(ant)
        cols.append(col)
    names = [a.name(data.feature_names) for a in ants]
    if dedupe is False:
        names = _uniquify(names)
    if not cols:
        raise ValueError("no antecedent passes the support filter; lower min_support")
    X = np.stack(cols, axis=1).astype(np.uint8)
    mined = BinaryDataset(X, data.y, names, data.sample_weight, data.label_names)
    return MinedAntecedents(mined, ants, list(data.feature_names))


def _uniquify(names):
    count: dict[str, int] = {}
    out = []
    for n in names:
        k = count.get(n, 0)
        out.append(n if k == 0 else f"{n}#{k}")
        count[n] = k + 1
    return out


def _conjunctions(X: np.ndarray, max_card: int, negations: bool):
    lits, cols = _literals(X, negations)
    for card in range(1, max_card + 1):
        for combo in combinations(lits, card):
            feats = [f for f, _ in combo]
            if len(set(feats)) < card:
                continue
            col = cols[combo[0]]
            for lit in combo[1:]:
                col = col & cols[lit]
            yield Antecedent(tuple(feats), tuple(n for _, n in combo)), col.astype(np.uint8)


def mine_antecedents(data: BinaryDataset, max_card: int = 2, min_support: float = 0.01, negations: bool = True,
                     dedupe: bool = True) -> MinedAntecedents:
    """Conjunctions of up to ``max_card`` literals of distinct features with support in
    ``[min_support, 1 - min_support]`` (CORELS Thm 10 and Thm 21 applied at mining time)."""
    _check_params(max_card, min_support)
    n = data.n_samples
    lo, hi = min_support * n, (1.0 - min_support) * n

    def keep(col):
        s = int(col.sum())
        return lo <= s <= hi and s > 0

    return _collect(data, _conjunctions(data.X, max_card, negations), keep, dedupe)


def class_support_threshold(min_support: float):
    """``min_support`` as an exact fraction ``(num, den)``: an itemset with ``count`` rows in a class of ``n_class``
    rows is frequent iff ``count * den >= num * n_class`` (pyfim's ``count * 100 >= supp * n_class`` for a
    percentage ``supp``, without floating-point rounding: ``0.1 * 30`` is not ``3``)."""
    from fractions import Fraction

    f = Fraction(str(float(min_support))).limit_denominator(10 ** 9)
    return f.numerator, f.denominator


def mine_classwise(data: BinaryDataset, max_card: int = 2, min_support: float = 0.1, negations: bool = False,
                   dedupe: bool = True) -> MinedAntecedents:
    """Itemsets of up to ``max_card`` literals with support at least ``min_support`` within the positive class or
    within the negative class (FRL's miner, replacing the reference's FP-growth on each class).

    The test is exact (:func:`class_support_threshold`).  With ``min_support = 0`` every itemset qualifies, so with
    ``max_card = 1`` the antecedents are exactly the columns of ``X`` (identical columns merged when ``dedupe``).
    """
    _check_params(max_card, min_support)
    pos = data.y == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    num, den = class_support_threshold(min_support)

    def keep(col):
        if num == 0:
            return True
        c = col.astype(bool)
        in_pos, in_neg = int((c & pos).sum()), int((c & ~pos).sum())
        return (n_pos > 0 and in_pos * den >= num * n_pos) or (n_neg > 0 and in_neg * den >= num * n_neg)

    return _collect(data, _conjunctions(data.X, max_card, negations), keep, dedupe)
