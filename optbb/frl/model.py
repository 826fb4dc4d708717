"""``FallingRuleList``: the fitted model of FRL and softFRL (spec Eq. (1)), with its training counts."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..common.formats import (JsonForm, as_float, as_int, as_labels, as_list, as_str_list, binary_rows,
                              class_labels, dot_chain, first_match, json_label, latex_chain, literals, plain, reader)
from ..common.mining import Antecedent
from .objective import fractions_fall


def _count(v):
    """A training count as a Python number: int for counts, float for weight sums."""
    return int(v) if isinstance(v, (numbers.Integral, np.integer)) else float(v)


def _show(v) -> str:
    return str(v) if isinstance(v, (numbers.Integral, np.integer)) else f"{v:.6g}"


@dataclass
class FallingRuleList(JsonForm):
    """``if a_0 then p_0 elif a_1 then p_1 ... else p_K``.

    Attributes
    ----------
    antecedents : the ``K`` rules' antecedents (conjunctions over the input feature columns).
    names : their display names.
    probabilities : ``K + 1`` output probabilities (the else clause last).  For FRL these are the empirical
        proportions; for softFRL the pulled-down values of ``make_falling``.
    proportions : ``K + 1`` raw empirical positive proportions on the training data.
    n_pos, n_neg : ``K + 1`` training counts captured by each rule (int64); with sample or class weights, the
        weights of the samples captured (float64).
    positive_weight : ``w``; predictions use the threshold ``1/(1+w)`` (Theorem 2.8).
    objective : the training objective (``L`` or ``L~``).
    classes : the two labels ``[negative, positive]`` (set by the estimator and stored in the JSON); ``predict``
        gives them, or 0/1 when they are not known.

    ``predict``, ``predict_proba`` and ``capture`` take the raw 0/1 features (columns in the order of
    ``feature_names``): the antecedents are literals over them.
    """

    antecedents: list[Antecedent]
    names: list[str]
    probabilities: np.ndarray
    proportions: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    positive_weight: float
    objective: float = float("nan")
    soft: bool = False
    feature_names: list[str] = field(default_factory=list)
    classes: list | None = None

    def __len__(self) -> int:
        """Size ``|d|``: number of rules, the else clause excluded."""
        return len(self.antecedents)

    @property
    def threshold(self) -> float:
        return 1.0 / (1.0 + self.positive_weight)

    def capture(self, X) -> np.ndarray:
        """``capt(x, d)``: index of the first rule each row satisfies (``len(self)`` for the else clause)."""
        X = binary_rows(X, len(self.feature_names) or None, self.feature_names)
        return first_match((a.evaluate(X).astype(bool) for a in self.antecedents), X.shape[0])

    def rule_probability(self, X) -> np.ndarray:
        """Probability of the rule that captures each row."""
        return np.asarray(self.probabilities, dtype=np.float64)[self.capture(X)]

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` array ``[1 - p, p]`` with ``p`` the capturing rule's probability."""
        p = self.rule_probability(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """The positive label (``classes[1]``, else 1) where the capturing rule's probability exceeds ``1/(1+w)``
        (strict, as in training), the negative one (``classes[0]``, else 0) elsewhere."""
        return class_labels(self.classes, (self.rule_probability(X) > self.threshold).astype(np.int64))

    def attach_literals(self, antecedents, feature_names) -> None:
        """Restate each rule's antecedent, a column ``j`` of the matrix the search read (``Antecedent((j,),
        (False,))``, as :func:`~optbb.frl.search.solve` builds them), as ``antecedents[j]``: literals over the raw
        features ``feature_names``, which the list then predicts on."""
        self.antecedents = [antecedents[a.features[0]] for a in self.antecedents]
        self.feature_names = [str(n) for n in feature_names]

    def is_falling(self) -> bool:
        """Whether the output probabilities never rise from one clause to the next (``p_0 >= p_1 >= ... >= p_K``)."""
        p = np.asarray(self.probabilities, dtype=np.float64)
        return bool(fractions_fall(p, np.ones_like(p)))

    def to_frame(self) -> pd.DataFrame:
        """One row per rule, as the paper's Table 1 (plus the raw proportion column of the softFRL tables)."""
        df = pd.DataFrame([{
            "rule": "IF" if j == 0 and len(self) else ("ELSE" if j == len(self) else "ELSE IF"),
            "antecedent": self.names[j] if j < len(self) else "-",
            "probability": float(self.probabilities[j]),
            "proportion": float(self.proportions[j]),
            "n_pos": _count(self.n_pos[j]),
            "n_neg": _count(self.n_neg[j]),
        } for j in range(len(self) + 1)])
        if not self.soft:
            df = df.drop(columns="proportion")
        return df

    # -- forms: dict / JSON / LaTeX / DOT ----------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The one dict (and JSON) shape: ``{"model": "FallingRuleList", "antecedents": [{"features", "negated"}],
        ...}``; the antecedents are literals over ``feature_names``, so the list predicts on raw features."""
        return {"model": "FallingRuleList",
                "antecedents": [{"features": [int(f) for f in a.features], "negated": [bool(n) for n in a.negated]}
                                for a in self.antecedents],
                "names": [str(n) for n in self.names],
                "probabilities": plain(np.asarray(self.probabilities, float)),
                "proportions": plain(np.asarray(self.proportions, float)), "n_pos": plain(np.asarray(self.n_pos)),
                "n_neg": plain(np.asarray(self.n_neg)), "positive_weight": plain(float(self.positive_weight)),
                "objective": plain(float(self.objective)), "soft": bool(self.soft),
                "feature_names": [str(n) for n in self.feature_names],
                "classes": None if self.classes is None else [json_label(c) for c in self.classes]}

    @classmethod
    @reader("FallingRuleList")
    def from_dict(cls, d: dict) -> "FallingRuleList":
        """The list ``to_dict`` describes; a ValueError on anything malformed."""
        feature_names = as_str_list(d["feature_names"], "feature_names")
        ants = [Antecedent(*literals(a["features"], a["negated"], len(feature_names), f"antecedent {k}"))
                for k, a in enumerate(as_list(d["antecedents"], "antecedents"))]
        names = as_str_list(d["names"], "names")
        k = len(ants)
        if len(names) != k:
            raise ValueError(f"names holds {len(names)} names for {k} antecedents")
        cols = {key: np.array([as_float(v, key) for v in as_list(d[key], key)], dtype=np.float64)
                for key in ("probabilities", "proportions")}
        for key in ("n_pos", "n_neg"):
            vals = as_list(d[key], key)
            if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vals):
                cols[key] = np.array([as_int(v, key, 0) for v in vals], dtype=np.int64)
            else:  # weighted counts
                cols[key] = np.array([as_float(v, key) for v in vals], dtype=np.float64)
                if not np.all(np.isfinite(cols[key]) & (cols[key] >= 0)):
                    raise ValueError(f"{key} must hold non-negative counts or weights")
        for key, col in cols.items():
            if col.shape[0] != k + 1:
                raise ValueError(f"{key} must hold {k + 1} values (one per rule and the else clause)")
        if not np.all((cols["probabilities"] >= 0) & (cols["probabilities"] <= 1)):
            raise ValueError("probabilities must lie in [0, 1]")
        w = as_float(d["positive_weight"], "positive_weight")
        if not (np.isfinite(w) and w > 0):
            raise ValueError(f"positive_weight must be a positive number, got {w!r}")
        if not isinstance(d["soft"], bool):
            raise ValueError("soft must be true or false")
        return cls(ants, names, cols["probabilities"], cols["proportions"], cols["n_pos"], cols["n_neg"], w,
                   as_float(d.get("objective"), "objective"), d["soft"], feature_names,
                   as_labels(d.get("classes"), "classes", 2))

    def to_latex(self) -> str:
        """``algorithmic`` environment with each clause's probability."""
        outs = [f"P(y=1) = {p:.4f}" for p in np.asarray(self.probabilities, dtype=float)]
        return latex_chain(list(self.names), outs[:-1], outs[-1])

    def to_dot(self) -> str:
        """Graphviz DOT source: a chain of decisions, each with its probability."""
        outs = [f"P(y=1) = {p:.4f}" for p in np.asarray(self.probabilities, dtype=float)]
        return dot_chain(list(self.names), outs[:-1], outs[-1])

    def text(self) -> str:
        """The table ``print`` shows: one row per clause with its probability and training counts."""
        df = self.to_frame()
        w_ant = max([len("antecedent")] + [len(s) for s in df["antecedent"]])
        head = f"{'rule':<8} {'antecedent':<{w_ant}} {'prob.':>6}"
        if self.soft:
            head += f" {'prop.':>6}"
        head += f" {'n+':>6} {'n-':>6}"
        lines = [head]
        for _, r in df.iterrows():
            s = f"{r['rule']:<8} {r['antecedent']:<{w_ant}} {r['probability']:>6.4f}"
            if self.soft:
                s += f" {r['proportion']:>6.4f}"
            s += f" {_show(r['n_pos']):>6} {_show(r['n_neg']):>6}"
            lines.append(s)
        lines.append(f"objective = {self.objective:.6f}")
        return "\n".join(lines)
