"""``RuleList``: the model CORELS returns, with prediction, per-rule statistics and text output."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Rule:
    """One rule ``antecedent -> prediction`` with its training statistics in context."""

    antecedent: int
    name: str
    prediction: int
    n_captured: int = 0
    n_correct: int = 0

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n_captured if self.n_captured else float("nan")


@dataclass
class RuleList:
    """An ordered list of rules followed by a default prediction.

    ``antecedent`` indices refer to the columns of the antecedent matrix the list was learned on; ``predict`` takes
    such a matrix (the estimator translates raw features first).
    """

    rules: list[Rule]
    default_prediction: int
    label_names: tuple[str, str] = ("0", "1")
    default_captured: int = 0
    default_correct: int = 0
    n_samples: int = 0
    objective: float = float("nan")
    regularization: float = float("nan")
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rules)

    def predict(self, A: np.ndarray) -> np.ndarray:
        """Labels (0/1) for the rows of an antecedent matrix ``A``."""
        A = np.asarray(A)
        out = np.full(A.shape[0], self.default_prediction, dtype=np.uint8)
        open_ = np.ones(A.shape[0], dtype=bool)
        for r in self.rules:
            hit = open_ & (A[:, r.antecedent] != 0)
            out[hit] = r.prediction
            open_ &= ~hit
        return out

    def text(self) -> str:
        """Text like the reference CORELS output: ``if ({a}) then ({label}) / else if ... / else ({label})``."""
        lines = []
        for k, r in enumerate(self.rules):
            kw = "if" if k == 0 else "else if"
            lines.append(f"{kw} ({{{r.name}}}) then ({{{self.label_names[r.prediction]}}})")
        lines.append(f"else ({{{self.label_names[self.default_prediction]}}})")
        return "\n".join(lines)

    def statistics(self):
        """Per-rule support and accuracy on the training data (a DataFrame)."""
        import pandas as pd

        rows = [(r.name, self.label_names[r.prediction], r.n_captured, r.n_correct, r.accuracy) for r in self.rules]
        acc = self.default_correct / self.default_captured if self.default_captured else float("nan")
        rows.append(("default", self.label_names[self.default_prediction], self.default_captured,
                     self.default_correct, acc))
        return pd.DataFrame(rows, columns=["antecedent", "prediction", "n_captured", "n_correct", "accuracy"])

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["label_names"] = list(self.label_names)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RuleList":
        d = dict(d)
        d["rules"] = [Rule(**r) for r in d["rules"]]
        d["label_names"] = tuple(d["label_names"])
        return cls(**d)

    def to_json(self) -> str:
        """JSON text; ``RuleList.from_json`` (or ``optbb.export.from_json``) rebuilds an identical list."""
        from ..export import to_json

        return to_json(self)

    @classmethod
    def from_json(cls, s: str) -> "RuleList":
        d = json.loads(s)
        if d.get("model") == "RuleList":
            from ..export import rule_list_from_dict

            return rule_list_from_dict(d)
        return cls.from_dict(d)

    def to_latex(self) -> str:
        """``algorithmic`` environment, as the C++ CORELS ``-L`` option writes it."""
        from ..export import to_latex

        return to_latex(self)

    def to_dot(self) -> str:
        """Graphviz DOT source: a chain of decisions."""
        from ..export import to_dot

        return to_dot(self)


def build_rule_list(A: np.ndarray, y: np.ndarray, prefix, names, label_names, regularization: float) -> RuleList:
    """The rule list a prefix determines on data ``(A, y)``: majority labels in context, ties predict 1."""
    A = np.asarray(A)
    y = np.asarray(y).astype(np.int64)
    open_ = np.ones(A.shape[0], dtype=bool)
    rules = []
    errors = 0
    for a in prefix:
        hit = open_ & (A[:, a] != 0)
        n1 = int(y[hit].sum())
        n = int(hit.sum())
        pred = 0 if (n - n1) > n1 else 1
        correct = n1 if pred == 1 else n - n1
        errors += n - correct
        rules.append(Rule(int(a), names[a], pred, n, correct))
        open_ &= ~hit
    n1 = int(y[open_].sum())
    n = int(open_.sum())
    dpred = 0 if (n - n1) > n1 else 1
    dcorrect = n1 if dpred == 1 else n - n1
    errors += n - dcorrect
    objective = errors / A.shape[0] + regularization * len(rules)
    return RuleList(rules, dpred, tuple(label_names), n, dcorrect, int(A.shape[0]), objective, regularization)
