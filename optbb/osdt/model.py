"""``Tree``: a fitted OSDT decision tree, stored as its leaves (conjunctions of feature literals) with labels.

The binary-tree shape is rebuilt from the leaf set on demand (the root splits on a feature every leaf mentions,
recursively), for text, nested dict / JSON and Graphviz DOT output.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

Literal = tuple[int, int]  # (feature index, required value 0/1)


@dataclass
class Tree:
    """Leaves of a decision tree over binary features.

    ``leaves[k]`` is a sorted tuple of ``(feature, value)`` literals; ``predictions[k]`` its label (0/1, or the
    class when a ``classes`` mapping is set by the estimator); ``n_samples``/``errors`` are training counts.
    """

    leaves: list[tuple[Literal, ...]]
    predictions: list[int]
    feature_names: list[str]
    n_samples: list[int] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)
    classes: Sequence | None = None

    def __post_init__(self) -> None:
        self.leaves = [tuple(sorted((int(f), int(v)) for f, v in leaf)) for leaf in self.leaves]
        self.predictions = [int(p) for p in self.predictions]
        if len(self.leaves) != len(self.predictions):
            raise ValueError("one prediction per leaf is required")
        self._root = _build(list(range(len(self.leaves))), self.leaves, set())

    # -- basic properties ---------------------------------------------------------------------------------------
    @property
    def n_leaves(self) -> int:
        return len(self.leaves)

    @property
    def depth(self) -> int:
        return max((len(leaf) for leaf in self.leaves), default=0)

    def features_used(self) -> list[int]:
        return sorted({f for leaf in self.leaves for f, _ in leaf})

    # -- prediction ---------------------------------------------------------------------------------------------
    def leaf_index(self, X) -> np.ndarray:
        """Index of the leaf capturing each row of a 0/1 matrix (-1 if none, which cannot happen for a tree)."""
        X = np.asarray(X)
        out = np.full(X.shape[0], -1, dtype=np.int64)
        for k, leaf in enumerate(self.leaves):
            hit = np.ones(X.shape[0], dtype=bool)
            for f, v in leaf:
                hit &= X[:, f] == v
            out[hit] = k
        return out

    def predict(self, X) -> np.ndarray:
        """0/1 predictions (or ``classes`` labels when set) for a 0/1 matrix."""
        idx = self.leaf_index(X)
        if np.any(idx < 0):
            raise ValueError("some rows are captured by no leaf; the leaves do not form a tree")
        pred = np.asarray(self.predictions, dtype=np.int64)[idx]
        if self.classes is not None:
            return np.asarray(self.classes)[pred]
        return pred

    # -- output -------------------------------------------------------------------------------------------------
    def _name(self, f: int) -> str:
        return self.feature_names[f] if f < len(self.feature_names) else f"x{f}"

    def _label(self, p: int):
        return self.classes[p] if self.classes is not None else p

    def to_dict(self) -> dict:
        """Nested dict: internal nodes ``{"feature", "name", "true", "false"}`` (``true`` is the branch where the
        feature is 1), leaves ``{"prediction", "n_samples", "errors"}``."""

        def rec(node):
            if node[0] == "leaf":
                k = node[1]
                d = {"prediction": _jsonable(self._label(self.predictions[k]))}
                if self.n_samples:
                    d["n_samples"] = int(self.n_samples[k])
                if self.errors:
                    d["errors"] = int(self.errors[k])
                return d
            _, f, zero, one = node
            return {"feature": int(f), "name": self._name(f), "true": rec(one), "false": rec(zero)}

        return rec(self._root)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def text(self) -> str:
        """Indented if/else rendering."""
        lines: list[str] = []

        def rec(node, indent):
            pad = "    " * indent
            if node[0] == "leaf":
                k = node[1]
                extra = ""
                if self.n_samples:
                    extra = f"  ({self.n_samples[k]} samples, {self.errors[k]} errors)" if self.errors else ""
                lines.append(f"{pad}predict {self._label(self.predictions[k])}{extra}")
                return
            _, f, zero, one = node
            lines.append(f"{pad}if {self._name(f)} == 1:")
            rec(one, indent + 1)
            lines.append(f"{pad}else:  # {self._name(f)} == 0")
            rec(zero, indent + 1)

        rec(self._root, 0)
        return "\n".join(lines)

    def to_dot(self) -> str:
        """Graphviz DOT source."""
        lines = ["digraph Tree {", '  node [fontname="Helvetica"];']
        counter = [0]

        def rec(node):
            i = counter[0]
            counter[0] += 1
            if node[0] == "leaf":
                k = node[1]
                label = f"predict {self._label(self.predictions[k])}"
                if self.n_samples:
                    label += f"\\n{self.n_samples[k]} samples"
                lines.append(f'  n{i} [shape=box, label="{_esc(label)}"];')
                return i
            _, f, zero, one = node
            lines.append(f'  n{i} [shape=ellipse, label="{_esc(self._name(f))}"];')
            a = rec(one)
            lines.append(f'  n{i} -> n{a} [label="1"];')
            b = rec(zero)
            lines.append(f'  n{i} -> n{b} [label="0"];')
            return i

        rec(self._root)
        lines.append("}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Tree(n_leaves={self.n_leaves}, depth={self.depth}, features={self.features_used()})"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def _build(idx: list[int], leaves: list[tuple[Literal, ...]], used: set[int]):
    """Shape of the tree from its leaves: ("leaf", k) or ("split", feature, subtree_when_0, subtree_when_1)."""
    if len(idx) == 1:
        return ("leaf", idx[0])
    if not idx:
        raise ValueError("the leaves do not form a tree (an empty branch)")
    common = None
    for k in idx:
        feats = {f for f, _ in leaves[k]} - used
        common = feats if common is None else common & feats
    if not common:
        raise ValueError("the leaves do not form a tree (no feature splits all of them)")
    f = min(common)
    zero = [k for k in idx if (f, 0) in leaves[k]]
    one = [k for k in idx if (f, 1) in leaves[k]]
    return ("split", f, _build(zero, leaves, used | {f}), _build(one, leaves, used | {f}))


def tree_objective_counts(tree: Tree, X, y) -> tuple[int, int]:
    """(errors, leaves) of a tree on data, with majority labels recomputed from the data (ties -> 1)."""
    idx = tree.leaf_index(X)
    y = np.asarray(y)
    errors = 0
    for k in range(tree.n_leaves):
        yk = y[idx == k]
        pos = int(yk.sum())
        errors += min(pos, len(yk) - pos)  # the majority label's mistakes (the same on a tie)
    return errors, tree.n_leaves


def leaves_from_sklearn(estimator, n_features: int) -> list[tuple[Literal, ...]]:
    """Leaves of a fitted sklearn ``DecisionTreeClassifier`` on 0/1 features (left branch = feature 0)."""
    t = estimator.tree_
    out: list[tuple[Literal, ...]] = []
    stack: list[tuple[int, tuple[Literal, ...]]] = [(0, ())]
    while stack:
        node, lits = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out.append(lits)
            continue
        f = int(t.feature[node])
        stack.append((right, lits + ((f, 1),)))
        stack.append((left, lits + ((f, 0),)))
    return out


def literal_names(leaf: Sequence[Literal], names: Sequence[str]) -> str:
    return " and ".join(f"{names[f]}={v}" for f, v in leaf) or "(all)"
