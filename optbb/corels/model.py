"""``RuleList``: the model CORELS returns, with prediction, per-rule statistics and text output."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..common.bounds import majority_labels
from ..common.data import MAX_CLASSES
from ..common.formats import (JsonForm, as_counts, as_float, as_int, as_labels, as_list, as_str_list, binary_rows,
                              class_labels, dot_chain, first_match, json_label, latex_chain, latex_escape, literals,
                              plain, reader)
from ..common.mining import Antecedent
from ..common.proba import binary_counts, smoothed_probabilities


@dataclass
class Rule:
    """One rule ``antecedent -> prediction`` with its training statistics in context.

    ``n_captured`` / ``n_correct``: training samples the rule captures / classifies correctly (rows, whatever their
    weights); ``class_counts``: the amount of each class it captures, sample counts or, when the list was learned with
    sample weights, sums of weights (the rule's prediction is their largest, ties to the larger class index).

    ``features`` / ``negated``: the antecedent as a conjunction of literals over the raw feature columns (the
    list's ``feature_names``), so the rule can be evaluated on raw features, e.g. after a JSON round trip.
    """

    antecedent: int
    name: str
    prediction: int
    n_captured: int = 0
    n_correct: int = 0
    features: tuple[int, ...] = ()
    negated: tuple[bool, ...] = ()
    class_counts: list | None = None  # amount of each class the rule captures (None: derive, binary)

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n_captured if self.n_captured else float("nan")

    def evaluate(self, X: np.ndarray) -> np.ndarray:
        """Boolean vector: the rows of a raw 0/1 feature matrix that satisfy the antecedent."""
        return Antecedent(self.features, self.negated).evaluate(X).astype(bool)


@dataclass
class RuleList(JsonForm):
    """An ordered list of rules followed by a default prediction, over ``len(label_names) >= 2`` classes.

    ``predict``, ``predict_proba`` and ``capture`` take the raw 0/1 features the list was learned from (columns in
    the order of ``feature_names``): each rule holds its literals over them, so the list predicts without the miner
    (after a JSON round trip too).  For CORELS-format data (antecedents given directly as columns) that matrix is the
    antecedent matrix.  ``antecedent`` indices refer to the columns of the antecedent matrix the list was learned
    on; ``predict_antecedents``, ``predict_proba_antecedents`` and ``capture_antecedents`` take such a matrix.

    ``classes``: the labels the rules predict (class index ``j`` predicts ``classes[j]``), set by the estimator and
    stored in the JSON; without them (a list from :func:`optbb.corels.solve`) ``predict`` gives class indices.
    """

    rules: list[Rule]
    default_prediction: int
    label_names: tuple[str, ...] = ("0", "1")
    default_captured: int = 0
    default_correct: int = 0
    n_samples: int = 0
    objective: float = float("nan")
    regularization: float = float("nan")
    meta: dict = field(default_factory=dict)
    feature_names: list[str] = field(default_factory=list)
    default_class_counts: list | None = None  # amount of each class reaching the default rule
    classes: list | None = None

    def __len__(self) -> int:
        return len(self.rules)

    def rule_classes(self) -> np.ndarray:
        """Class index each rule predicts, the default rule last."""
        return np.array([r.prediction for r in self.rules] + [self.default_prediction], dtype=np.uint8)

    def _labels_of(self, idx: np.ndarray) -> np.ndarray:
        return class_labels(self.classes, self.rule_classes()[idx])

    def capture(self, X) -> np.ndarray:
        """Index of the rule that classifies each row of a raw 0/1 feature matrix (``len(self)``: the default)."""
        X = binary_rows(X, len(self.feature_names), self.feature_names)
        if any(not r.features for r in self.rules):
            raise ValueError("this rule list does not know its antecedents' literals (an old JSON file?); use "
                             "capture_antecedents / predict_antecedents on the antecedent matrix")
        return first_match((r.evaluate(X) for r in self.rules), X.shape[0])

    def capture_antecedents(self, A: np.ndarray) -> np.ndarray:
        """Index of the rule that classifies each row of an antecedent matrix ``A`` (``len(self)``: the default)."""
        A = np.asarray(A)
        if A.ndim != 2:
            raise ValueError(f"A must be 2-D (samples x antecedents), got shape {A.shape}")
        top = max((r.antecedent for r in self.rules), default=-1)
        if A.shape[1] <= top:
            raise ValueError(f"A has {A.shape[1]} antecedent columns but the list uses antecedent {top}")
        return first_match((A[:, r.antecedent] != 0 for r in self.rules), A.shape[0])

    def predict(self, X) -> np.ndarray:
        """Labels (``classes``, else class indices) for the rows of a raw 0/1 feature matrix."""
        return self._labels_of(self.capture(X))

    def predict_antecedents(self, A: np.ndarray) -> np.ndarray:
        """Labels (``classes``, else class indices) for the rows of an antecedent matrix ``A``."""
        return self._labels_of(self.capture_antecedents(A))

    def predict_features(self, X) -> np.ndarray:
        """Deprecated alias of :meth:`predict` (which now takes the raw features)."""
        warnings.warn("RuleList.predict_features is deprecated and will be removed in the next release; use "
                      "RuleList.predict, which takes the raw 0/1 features", FutureWarning, stacklevel=2)
        return self.predict(X)

    def attach_literals(self, antecedents, feature_names) -> None:
        """Record each rule's literals (``antecedents[rule.antecedent]``, objects with ``features`` and
        ``negated``) over the raw features ``feature_names``."""
        for r in self.rules:
            a = antecedents[r.antecedent]
            r.features = tuple(int(f) for f in a.features)
            r.negated = tuple(bool(n) for n in a.negated)
        self.feature_names = [str(n) for n in feature_names]

    def class_counts(self) -> np.ndarray:
        """``(len(self) + 1, K)`` training class counts of each rule, the default rule last.

        Lists fitted by optbb store them; lists built by hand or read from an older JSON without them fall back to
        the binary counts their ``n_captured`` / ``n_correct`` imply.
        """
        stored = [r.class_counts for r in self.rules] + [self.default_class_counts]
        if all(c is not None for c in stored):
            return np.asarray(stored, dtype=np.float64).reshape(len(stored), -1)
        n = [r.n_captured for r in self.rules] + [self.default_captured]
        e = [r.n_captured - r.n_correct for r in self.rules] + [self.default_captured - self.default_correct]
        return binary_counts(n, e, self.rule_classes())

    def predict_proba(self, X) -> np.ndarray:
        """Smoothed training class frequencies of the rule classifying each row of a raw 0/1 feature matrix (see
        :mod:`optbb.common.proba`), columns in class order; the largest entry of each row is that rule's label."""
        return self._proba()[self.capture(X)]

    def predict_proba_antecedents(self, A: np.ndarray) -> np.ndarray:
        """:meth:`predict_proba` for the rows of an antecedent matrix ``A``."""
        return self._proba()[self.capture_antecedents(A)]

    def _proba(self) -> np.ndarray:
        return smoothed_probabilities(self.class_counts(), self.rule_classes())

    def text(self) -> str:
        """Text like the reference CORELS output: ``if ({a}) then ({label}) / else if ... / else ({label})``."""
        lines = [f"{'else if' if k else 'if'} ({{{r.name}}}) then ({{{self.label_names[r.prediction]}}})"
                 for k, r in enumerate(self.rules)]
        lines.append(f"else ({{{self.label_names[self.default_prediction]}}})")
        return "\n".join(lines)

    def statistics(self):
        """Per-rule support and accuracy on the training data (a DataFrame)."""
        import pandas as pd

        default = Rule(-1, "default", self.default_prediction, self.default_captured, self.default_correct)
        rows = [(r.name, self.label_names[r.prediction], r.n_captured, r.n_correct, r.accuracy)
                for r in [*self.rules, default]]
        return pd.DataFrame(rows, columns=["antecedent", "prediction", "n_captured", "n_correct", "accuracy"])

    # -- forms: dict / JSON / LaTeX / DOT ----------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The one dict (and JSON) shape of a rule list: ``{"model": "RuleList", "rules": [...], ...}``; each rule
        carries its literals (``features``, ``negated``) over ``feature_names``."""
        rules = [{"antecedent": int(r.antecedent), "name": str(r.name), "prediction": int(r.prediction),
                  "n_captured": int(r.n_captured), "n_correct": int(r.n_correct),
                  "features": [int(f) for f in r.features], "negated": [bool(n) for n in r.negated],
                  "class_counts": plain(r.class_counts)}
                 for r in self.rules]
        return {"model": "RuleList", "rules": rules, "default_prediction": int(self.default_prediction),
                "label_names": [str(x) for x in self.label_names], "default_captured": int(self.default_captured),
                "default_correct": int(self.default_correct), "n_samples": int(self.n_samples),
                "objective": plain(float(self.objective)), "regularization": plain(float(self.regularization)),
                "meta": plain(self.meta), "feature_names": [str(n) for n in self.feature_names],
                "default_class_counts": plain(self.default_class_counts),
                "classes": None if self.classes is None else [json_label(c) for c in self.classes]}

    @classmethod
    @reader("RuleList")
    def from_dict(cls, d: dict) -> "RuleList":
        """The rule list ``to_dict`` describes; a ValueError on anything malformed."""
        names = as_str_list(d.get("feature_names", []), "feature_names")
        labels = as_str_list(d["label_names"], "label_names")
        if len(labels) < 2:
            raise ValueError(f"label_names must hold at least two names, got {labels}")
        if len(labels) > MAX_CLASSES:
            raise ValueError(f"label_names must hold at most {MAX_CLASSES} names (the classes CORELS reads), got "
                             f"{len(labels)}")
        top = len(labels) - 1
        rules = []
        for k, r in enumerate(as_list(d["rules"], "rules")):
            what = f"rule {k}"
            feats, neg = literals(r.get("features", []), r.get("negated", []), len(names), what)
            if not isinstance(r["name"], str):
                raise ValueError(f"{what}: name must be a string")
            captured = as_int(r.get("n_captured", 0), f"{what} n_captured", 0)
            rules.append(Rule(as_int(r["antecedent"], f"{what} antecedent", 0), r["name"],
                              as_int(r["prediction"], f"{what} prediction", 0, top), captured,
                              as_int(r.get("n_correct", 0), f"{what} n_correct", 0, captured), feats, neg,
                              as_counts(r.get("class_counts"), f"{what} class_counts", len(labels))))
        meta = d.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError("meta must be an object")
        captured = as_int(d.get("default_captured", 0), "default_captured", 0)
        return cls(rules, as_int(d["default_prediction"], "default_prediction", 0, top), tuple(labels), captured,
                   as_int(d.get("default_correct", 0), "default_correct", 0, captured),
                   as_int(d.get("n_samples", 0), "n_samples", 0), as_float(d.get("objective"), "objective"),
                   as_float(d.get("regularization"), "regularization"), meta, names,
                   as_counts(d.get("default_class_counts"), "default_class_counts", len(labels)),
                   as_labels(d.get("classes"), "classes", len(labels)))

    def to_latex(self) -> str:
        """``algorithmic`` environment, as the C++ CORELS ``-L`` option writes it."""
        outs = [rf"\text{{prediction}} = \text{{{latex_escape(self.label_names[p])}}}" for p in self.rule_classes()]
        return latex_chain([r.name for r in self.rules], outs[:-1], outs[-1])

    def to_dot(self) -> str:
        """Graphviz DOT source: a chain of decisions."""
        outs = [f"predict {self.label_names[r.prediction]}" for r in self.rules]
        return dot_chain([r.name for r in self.rules], outs, f"predict {self.label_names[self.default_prediction]}")


def build_rule_list(A: np.ndarray, y: np.ndarray, prefix, names, label_names, regularization: float,
                    sample_weight: np.ndarray | None = None) -> RuleList:
    """The rule list a prefix determines on data ``(A, y)`` (``y``: class indices ``0 .. len(label_names)-1``):
    each rule predicts the class of largest captured amount in context (sample counts, or sums of ``sample_weight``),
    ties to the larger class index (for two classes a tie predicts 1); the objective is the misclassified amount over
    the total plus ``regularization`` per rule.  Each rule's literal is its own antecedent column (the raw features
    are ``A``'s columns until an estimator attaches the mined literals)."""
    A = np.asarray(A)
    y = np.asarray(y).astype(np.int64)
    k = len(label_names)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    open_ = np.ones(A.shape[0], dtype=bool)
    stats = []
    for a in prefix:
        hit = open_ & (A[:, a] != 0)
        counts, pred, _ = _majority(y, w, hit, k)
        stats.append((counts, pred, int(hit.sum()), int(np.sum(y[hit] == pred))))
        open_ &= ~hit
    dcounts, dpred, _ = _majority(y, w, open_, k)
    stats.append((dcounts, dpred, int(open_.sum()), int(np.sum(y[open_] == dpred))))
    total = A.shape[0] if w is None else float(w.sum())
    return assemble_rule_list(prefix, stats, names, [str(x) for x in names], label_names, regularization,
                              A.shape[0], total)


def assemble_rule_list(prefix, stats: list, names, feature_names: list, label_names, regularization: float,
                       n_samples: int, total) -> RuleList:
    """The rule list of ``prefix`` from the statistics of its rules and default (``stats``, the default last: class
    amounts as a list, class, samples captured, samples classified correctly): errors summed rule by rule, each
    the amounts of the other classes in class order, and the objective ``errors / total + regularization * k``."""
    rules = []
    errors = 0
    for a, (counts, pred, captured, correct) in zip(prefix, stats):
        errors += sum(counts[j] for j in range(len(counts)) if j != pred)
        rules.append(Rule(int(a), names[a], pred, captured, correct, (int(a),), (False,), counts))
    dcounts, dpred, dcaptured, dcorrect = stats[len(rules)]
    errors += sum(dcounts[j] for j in range(len(dcounts)) if j != dpred)
    objective = errors / total + regularization * len(rules)
    return RuleList(rules, dpred, tuple(label_names), dcaptured, dcorrect, int(n_samples), objective, regularization,
                    feature_names=feature_names, default_class_counts=dcounts)


def _majority(y: np.ndarray, w: np.ndarray | None, hit: np.ndarray, k: int) -> tuple[list, int, float]:
    """Class amounts of the samples ``hit``, their majority class (ties: the larger index) and the amount of the
    other classes (summed class by class, as the kernel does)."""
    counts = np.bincount(y[hit], weights=None if w is None else w[hit], minlength=k)
    values = counts.tolist()  # Python ints (sample counts) or floats (sums of weights)
    pred = int(majority_labels(counts))
    err = sum(values[j] for j in range(k) if j != pred)
    return values, pred, err
