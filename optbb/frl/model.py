"""``FallingRuleList``: the fitted model of FRL and softFRL (spec Eq. (1)), with its training counts."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..common.mining import Antecedent


@dataclass
class FallingRuleList:
    """``if a_0 then p_0 elif a_1 then p_1 ... else p_K``.

    Attributes
    ----------
    antecedents : the ``K`` rules' antecedents (conjunctions over the input feature columns).
    names : their display names.
    probabilities : ``K + 1`` output probabilities (the else clause last).  For FRL these are the empirical
        proportions; for softFRL the pulled-down values of ``make_falling``.
    proportions : ``K + 1`` raw empirical positive proportions on the training data.
    n_pos, n_neg : ``K + 1`` training counts captured by each rule.
    positive_weight : ``w``; predictions use the threshold ``1/(1+w)`` (Theorem 2.8).
    objective : the training objective (``L`` or ``L~``).
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

    def __len__(self) -> int:
        """Size ``|d|``: number of rules, the else clause excluded."""
        return len(self.antecedents)

    @property
    def threshold(self) -> float:
        return 1.0 / (1.0 + self.positive_weight)

    def capture(self, X) -> np.ndarray:
        """``capt(x, d)``: index of the first rule each row satisfies (``len(self)`` for the else clause)."""
        X = np.asarray(X)
        out = np.full(X.shape[0], len(self), dtype=np.int64)
        free = np.ones(X.shape[0], dtype=bool)
        for j, a in enumerate(self.antecedents):
            hit = free & a.evaluate(X).astype(bool)
            out[hit] = j
            free &= ~hit
        return out

    def rule_probability(self, X) -> np.ndarray:
        """Probability of the rule that captures each row."""
        return np.asarray(self.probabilities, dtype=np.float64)[self.capture(X)]

    def predict_proba(self, X) -> np.ndarray:
        """``(n, 2)`` array ``[1 - p, p]`` with ``p`` the capturing rule's probability."""
        p = self.rule_probability(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """1 where the capturing rule's probability exceeds ``1/(1+w)`` (strict, as in training)."""
        return (self.rule_probability(X) > self.threshold).astype(np.int64)

    def is_falling(self) -> bool:
        p = np.asarray(self.probabilities)
        return bool(np.all(p[:-1] >= p[1:]))

    def to_frame(self) -> pd.DataFrame:
        """One row per rule, as the paper's Table 1 (plus the raw proportion column of the softFRL tables)."""
        rows = []
        for j in range(len(self) + 1):
            rows.append({
                "rule": "IF" if j == 0 and len(self) else ("ELSE" if j == len(self) else "ELSE IF"),
                "antecedent": self.names[j] if j < len(self) else "-",
                "probability": float(self.probabilities[j]),
                "proportion": float(self.proportions[j]),
                "n_pos": int(self.n_pos[j]),
                "n_neg": int(self.n_neg[j]),
            })
        df = pd.DataFrame(rows)
        if not self.soft:
            df = df.drop(columns="proportion")
        return df

    def text(self) -> str:
        """The table ``print`` shows: one row per clause with its probability and training counts."""
        return str(self)

    def to_json(self) -> str:
        """JSON text; ``FallingRuleList.from_json`` rebuilds an identical list."""
        from ..export import to_json

        return to_json(self)

    @classmethod
    def from_json(cls, s: str) -> "FallingRuleList":
        from ..export import from_json

        return from_json(s)

    def to_latex(self) -> str:
        """``algorithmic`` environment with each clause's probability."""
        from ..export import to_latex

        return to_latex(self)

    def to_dot(self) -> str:
        from ..export import to_dot

        return to_dot(self)

    def __str__(self) -> str:
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
            s += f" {r['n_pos']:>6d} {r['n_neg']:>6d}"
            lines.append(s)
        lines.append(f"objective = {self.objective:.6f}")
        return "\n".join(lines)
