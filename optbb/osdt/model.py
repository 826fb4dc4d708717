"""``Tree``: a fitted OSDT decision tree, stored as its leaves (conjunctions of feature literals) with labels.

The binary-tree shape is rebuilt from the leaf set on demand (the root splits on a feature every leaf mentions,
recursively), for text, nested dict / JSON and Graphviz DOT output.

A tree fitted on numeric columns (:mod:`optbb.osdt.numeric.cuts`) has binary features that are cuts ``x <= t`` of
the raw columns (and 0/1 columns as they are); its ``cuts`` map reads them, so it prints ``petal_length <= 2.45``,
writes the thresholds in its dict / JSON and predicts on the raw columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..common.formats import (JsonForm, as_counts, as_int, as_labels, as_list, as_str_list, binary_rows,
                              class_labels, columns_by_name, dot_escape, json_label, latex_escape, plain, reader)
from ..common.proba import binary_counts, smoothed_probabilities
from ..preprocessing.thresholds import shortest_decimal
from .support import leaf_stats

Literal = tuple[int, int]  # (feature index, required value 0/1)


def cut_threshold(lo: float, hi: float) -> float:
    """The shortest decimal ``t`` with ``lo <= t < hi`` (strictly above ``lo`` unless the two are adjacent doubles):
    ``x <= t`` puts ``lo`` and everything below it on one side, ``hi`` and everything above on the other."""
    return shortest_decimal(float(lo), math.nextafter(float(hi), -math.inf))


def threshold_text(t: float) -> str:
    """A threshold as printed: the shortest text that reads back as the same double, ``5`` rather than ``5.0``."""
    s = repr(float(t))
    return s[:-2] if s.endswith(".0") else s


@dataclass(frozen=True)
class CutMap:
    """Which raw column and threshold each binary feature reads.

    ``column_names[j]`` names raw column ``j``; ``binary[j]`` says it is a 0/1 column (one feature, the column
    itself) rather than a numeric one (its cuts).  Feature ``f`` reads column ``columns[f]``: it is ``x <= t`` for
    ``t = thresholds[f]``, or the 0/1 value itself when ``thresholds[f]`` is None.
    """

    column_names: tuple[str, ...]
    binary: tuple[bool, ...]
    columns: tuple[int, ...] = ()
    thresholds: tuple[float | None, ...] = ()
    _names: list = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "column_names", tuple(str(n) for n in self.column_names))
        object.__setattr__(self, "binary", tuple(bool(b) for b in self.binary))
        object.__setattr__(self, "columns", tuple(int(c) for c in self.columns))
        object.__setattr__(self, "thresholds", tuple(None if t is None else float(t) for t in self.thresholds))
        if len(self.binary) != len(self.column_names) or len(self.columns) != len(self.thresholds):
            raise ValueError("a CutMap needs one kind per column and one column per threshold")
        for c, t in zip(self.columns, self.thresholds):
            if not 0 <= c < len(self.column_names):
                raise ValueError(f"a cut reads column {c}, but there are {len(self.column_names)} columns")
            if (t is None) != self.binary[c]:
                kind = "0/1" if self.binary[c] else "numeric"
                raise ValueError(f"column {self.column_names[c]!r} is {kind}: its features "
                                 f"{'take no' if self.binary[c] else 'need a'} threshold")

    @property
    def n_columns(self) -> int:
        return len(self.column_names)

    @property
    def n_features(self) -> int:
        return len(self.columns)

    def feature_names(self) -> list[str]:
        """``petal_length<=2.45`` for a cut, the column's name for a 0/1 column."""
        if self._names is None:
            object.__setattr__(self, "_names", [
                self.column_names[c] if t is None else f"{self.column_names[c]}<={threshold_text(t)}"
                for c, t in zip(self.columns, self.thresholds)])
        return self._names

    def condition(self, f: int, value: int) -> str:
        """The test of the branch where feature ``f`` is ``value``: ``petal_length <= 2.45`` (1) or
        ``petal_length > 2.45`` (0) for a cut, ``sex == 1`` for a 0/1 column."""
        name, t = self.column_names[self.columns[f]], self.thresholds[f]
        if t is None:
            return f"{name} == {value}"
        return f"{name} {'<=' if value else '>'} {threshold_text(t)}"

    def select(self, features) -> "CutMap":
        """The map of the given features only, in that order."""
        return CutMap(self.column_names, self.binary, tuple(self.columns[f] for f in features),
                      tuple(self.thresholds[f] for f in features))

    def transform(self, X) -> np.ndarray:
        """The 0/1 feature matrix (uint8) of raw rows ``X`` (numeric, ``n_columns`` columns, finite); a ValueError
        names a column read as 0/1 that holds anything else."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_columns:
            raise ValueError(f"X must have {self.n_columns} feature columns, got shape {X.shape}")
        out = np.empty((X.shape[0], self.n_features), dtype=np.uint8)
        missing = np.isnan(X)
        if missing.any():
            i, c = (int(v) for v in np.argwhere(missing)[0])
            raise ValueError(f"X contains NaN in column {self.column_names[c]!r} (row {i}): a tree over thresholds "
                             "needs a value in every cell; impute or drop the missing values first")
        for f, (c, t) in enumerate(zip(self.columns, self.thresholds)):
            x = X[:, c]
            if t is None:
                bad = np.flatnonzero((x != 0) & (x != 1))
                if bad.size:
                    raise ValueError(f"X is not binary in column {self.column_names[c]!r}, a 0/1 column when the "
                                     f"model was fitted: value {x[bad[0]]!r} in row {bad[0]}")
                out[:, f] = x
            else:
                np.less_equal(x, t, out=out[:, f], casting="unsafe")
        return out




@dataclass
class Tree(JsonForm):
    """Leaves of a decision tree over binary features.

    ``leaves[k]`` is a sorted tuple of ``(feature, value)`` literals; ``predictions[k]`` its label (a class index
    ``0 .. K-1``, read through the ``classes`` labels when the estimator sets them); ``n_samples``/``errors`` are
    numbers of training rows (reached, misclassified); ``class_counts[k]`` the leaf's training class counts, or
    class weights when the fit was weighted (they give ``predict_proba``).  ``cuts``: None for a tree over 0/1
    columns (it predicts on them); for a tree over numeric columns the :class:`~optbb.osdt.numeric.cuts.CutMap` of
    its features (feature ``f`` is ``x[:, cuts.columns[f]] <= cuts.thresholds[f]``, or a 0/1 column itself), and
    it predicts on the raw columns.
    """

    leaves: list[tuple[Literal, ...]]
    predictions: list[int]
    feature_names: list[str]
    n_samples: list[int] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)
    classes: Sequence | None = None
    class_counts: list = field(default_factory=list)  # per leaf: training samples of each class (may be empty)
    # the shape: ("leaf", k) or ("split", feature, subtree_when_0, subtree_when_1); None: rebuilt from the leaves
    # (the root splits on the smallest feature every leaf mentions), which loses the order of splits whose leaf set
    # is the same (two trees of a Rashomon set can differ only there)
    shape: tuple | None = field(default=None, repr=False, compare=False)
    cuts: CutMap | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.leaves = [tuple(sorted((int(f), int(v)) for f, v in leaf)) for leaf in self.leaves]
        self.predictions = [int(p) for p in self.predictions]
        if len(self.leaves) != len(self.predictions):
            raise ValueError("one prediction per leaf is required")
        if self.cuts is not None and self.cuts.n_features != len(self.feature_names):
            raise ValueError(f"cuts describes {self.cuts.n_features} features, feature_names {len(self.feature_names)}")
        if self.shape is None:
            self._root = _build(list(range(len(self.leaves))), self.leaves, set())
        else:
            _check_shape(self.shape, self.leaves, ())
            self._root = self.shape

    @classmethod
    def from_shape(cls, shape: tuple, leaves: list, predictions: list, feature_names: list, n_samples: list,
                   errors: list, classes, class_counts: list, cuts: CutMap | None = None) -> "Tree":
        """A tree of a known-consistent ``shape`` (leaf ``k`` reached by exactly the sorted literals ``leaves[k]``),
        built without the checks of the constructor: the models of a Rashomon set come by the thousand."""
        tree = cls.__new__(cls)
        tree.leaves, tree.predictions, tree.feature_names = leaves, predictions, feature_names
        tree.n_samples, tree.errors, tree.classes, tree.class_counts = n_samples, errors, classes, class_counts
        tree.shape = tree._root = shape
        tree.cuts = cuts
        return tree

    def over_columns(self, cuts: CutMap) -> "Tree":
        """This tree, whose features are the cuts ``cuts`` describes, as a tree over the raw columns: it keeps only
        the features it splits on (ordered by column, then threshold), reads them through ``cuts`` and predicts
        on raw rows.  Its text, dict and JSON name the columns and thresholds."""
        used = sorted(self.features_used(), key=lambda f: (cuts.columns[f], cuts.thresholds[f] or 0.0))
        new = {f: i for i, f in enumerate(used)}
        kept = cuts if used == list(range(cuts.n_features)) else cuts.select(used)  # a CutMap is immutable
        order: list[int] = []  # leaves in the order the dict lists them (the true branch first), as from_dict reads
        shape = _renumber(self._root, new, order)
        leaves = [tuple(sorted((new[f], v) for f, v in self.leaves[k])) for k in order]

        def pick(values):
            return [values[k] for k in order] if values else []

        return Tree(leaves, pick(self.predictions), kept.feature_names(), pick(self.n_samples), pick(self.errors),
                    self.classes, pick(self.class_counts), shape=shape, cuts=kept)

    def same_shape(self, other: "Tree") -> bool:
        """Whether the two trees have the same shape and the same feature at every split."""
        return _strip(self._root, self.leaves) == _strip(other._root, other.leaves)

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
        """Index of the leaf capturing each row of a 0/1 matrix, or of the raw rows of a tree with ``cuts`` (-1 if
        none, which cannot happen for a tree)."""
        if self.cuts is None:
            X = binary_rows(X, len(self.feature_names) or None, self.feature_names)
        else:
            X = self.cuts.transform(columns_by_name(X, self.cuts.column_names))
        used = self.features_used()
        col = {f: i for i, f in enumerate(used)}
        W = np.zeros((len(used), len(self.leaves)), dtype=np.float32)
        need = np.zeros(len(self.leaves), dtype=np.float32)
        for k, leaf in enumerate(self.leaves):
            for f, v in leaf:
                W[col[f], k] = 1.0 if v else -1.0
                need[k] += v
        out = np.full(X.shape[0], -1, dtype=np.int64)
        for lo in range(0, X.shape[0], _ROWS_AT_ONCE):
            out[lo:lo + _ROWS_AT_ONCE] = _last_leaf_met(X[lo:lo + _ROWS_AT_ONCE, used], W, need)
        return out

    def _leaf_of_rows(self, X) -> np.ndarray:
        idx = self.leaf_index(X)
        if np.any(idx < 0):
            raise ValueError("some rows are captured by no leaf; the leaves do not form a tree")
        return idx

    def predict(self, X) -> np.ndarray:
        """0/1 predictions (or ``classes`` labels when set) for a 0/1 matrix (raw rows for a tree with ``cuts``)."""
        idx = self._leaf_of_rows(X)
        return class_labels(self.classes, np.asarray(self.predictions, dtype=np.int64)[idx])

    def leaf_class_counts(self) -> np.ndarray:
        """``(n_leaves, K)`` training class counts per leaf: the stored ``class_counts``, or for a tree without them
        the binary counts that ``n_samples`` / ``errors`` imply (zeros when those are absent too)."""
        if self.class_counts:
            return np.asarray(self.class_counts, dtype=np.float64).reshape(self.n_leaves, -1)
        n = self.n_samples or [0] * self.n_leaves
        e = self.errors or [0] * self.n_leaves
        return binary_counts(n, e, self.predictions)

    def predict_proba(self, X) -> np.ndarray:
        """Smoothed training class frequencies of the leaf each row of a 0/1 matrix falls in (see
        :mod:`optbb.common.proba`); the largest entry of each row is that leaf's label."""
        return smoothed_probabilities(self.leaf_class_counts(), self.predictions)[self._leaf_of_rows(X)]

    # -- output -------------------------------------------------------------------------------------------------
    def _name(self, f: int) -> str:
        return self.feature_names[f] if f < len(self.feature_names) else f"x{f}"

    def _label(self, p: int):
        return self.classes[p] if self.classes is not None else p

    def _condition(self, f: int, value: int) -> str:
        """The test of the branch where feature ``f`` is ``value``: ``x3 == 1``, or ``petal_length <= 2.45`` and
        ``petal_length > 2.45`` for a cut."""
        return f"{self._name(f)} == {value}" if self.cuts is None else self.cuts.condition(f, value)

    def to_dict(self) -> dict:
        """The one dict (and JSON) shape of a tree: the nested root node, internal nodes
        ``{"feature", "name", "true", "false"}`` (``true`` is the branch where the feature is 1), leaves
        ``{"prediction", "n_samples", "errors"}``; the root also carries ``"model": "Tree"``, ``feature_names`` and
        ``classes`` (the labels the leaves predict), so the tree predicts on raw features after a round trip.

        A tree with ``cuts`` (numeric columns) writes its raw columns instead: the root's ``feature_names`` are the
        columns and ``column_kinds`` says which are ``"numeric"`` and which ``"binary"`` (0/1); a node's ``feature``
        is a column, and a split on a numeric column carries its ``threshold`` (``true`` is ``x <= threshold``)."""

        def rec(node):
            if node[0] == "leaf":
                k = node[1]
                d = {"prediction": json_label(self._label(self.predictions[k]))}
                for key, values in (("n_samples", self.n_samples), ("errors", self.errors)):
                    if values:
                        d[key] = int(values[k])
                if self.class_counts:
                    d["class_counts"] = plain(list(self.class_counts[k]))
                return d
            _, f, zero, one = node
            if cuts is None:
                return {"feature": int(f), "name": self._name(f), "true": rec(one), "false": rec(zero)}
            split = {"feature": cuts.columns[f], "name": self._name(f)}
            if cuts.thresholds[f] is not None:
                split["threshold"] = cuts.thresholds[f]
            return {**split, "true": rec(one), "false": rec(zero)}

        cuts = self.cuts
        names = self.feature_names if cuts is None else cuts.column_names
        head = {"model": "Tree", "feature_names": [str(n) for n in names]}
        if cuts is not None:
            head["column_kinds"] = ["binary" if b else "numeric" for b in cuts.binary]
        head["classes"] = None if self.classes is None else [json_label(c) for c in self.classes]
        return {**head, **rec(self._root)}

    @classmethod
    @reader("Tree")
    def from_dict(cls, d: dict) -> "Tree":
        """The tree ``to_dict`` describes (also the older flat form with ``leaves`` and ``predictions``); a
        ValueError on anything malformed."""
        names = as_str_list(d["feature_names"], "feature_names")
        classes = as_labels(d.get("classes"), "classes")
        if "column_kinds" in d:  # a tree over numeric columns
            return _read_cut_tree(cls, d, names, classes)
        if "leaves" in d:  # the flat form written by earlier versions of optbb.export
            leaves = [tuple(tuple(lit) for lit in as_list(leaf, "leaf")) for leaf in as_list(d["leaves"], "leaves")]
            preds = [as_int(p, "prediction", 0) for p in as_list(d["predictions"], "predictions")]
            counts = [as_int(c, "n_samples", 0) for c in as_list(d.get("n_samples", []), "n_samples")]
            errors = [as_int(e, "errors", 0) for e in as_list(d.get("errors", []), "errors")]
            per_class = [as_counts(c, "class_counts") for c in as_list(d.get("class_counts") or [], "class_counts")]
            if any(c is None for c in per_class):
                raise ValueError("class_counts must hold a list of counts for every leaf")
            shape = None
        else:
            leaves, preds, counts, errors, per_class = [], [], [], [], []
            shape = _read_node(d, (), len(names), classes, leaves, preds, (counts, errors, per_class))
        _check_leaf_stats(leaves, counts, errors, per_class, classes)
        for leaf in leaves:
            for lit in leaf:
                if len(lit) != 2:
                    raise ValueError(f"a leaf literal must be (feature, value), got {list(lit)}")
                as_int(lit[0], "leaf feature", 0, len(names) - 1)
                as_int(lit[1], "leaf value", 0, 1)
        return cls(leaves, preds, names, counts, errors, classes, per_class, shape=shape)

    def to_latex(self) -> str:
        """Nested ``algorithmic`` if/else over the tree's splits."""
        lines = [r"\begin{algorithmic}", r"\normalsize"]

        def rec(node):
            if "prediction" in node:
                lines.append(rf"\State $\text{{prediction}} = \text{{{latex_escape(node['prediction'])}}}$")
                return
            if "threshold" in node:  # a cut: column <= threshold
                column = latex_escape(d["feature_names"][node["feature"]])
                lines.append(f"\\If {{$\\text{{{column}}} \\le {threshold_text(node['threshold'])}$}}")
            else:
                lines.append(f"\\If {{$(\\text{{{latex_escape(node['name'])}}})$}}")
            rec(node["true"])
            lines.append(r"\Else")
            rec(node["false"])
            lines.append(r"\EndIf")

        d = self.to_dict()
        rec(d)
        lines.append(r"\end{algorithmic}")
        return "\n".join(lines)

    def text(self) -> str:
        """Indented if/else rendering."""
        lines: list[str] = []

        def rec(node, indent):
            pad = "    " * indent
            if node[0] == "leaf":
                k = node[1]
                counts = self.n_samples and self.errors
                extra = f"  ({self.n_samples[k]} samples, {self.errors[k]} errors)" if counts else ""
                lines.append(f"{pad}predict {self._label(self.predictions[k])}{extra}")
                return
            _, f, zero, one = node
            lines.append(f"{pad}if {self._condition(f, 1)}:")
            rec(one, indent + 1)
            lines.append(f"{pad}else:  # {self._condition(f, 0)}")
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
                label = dot_escape(f"predict {self._label(self.predictions[k])}")
                if self.n_samples:
                    label += f"\\n{self.n_samples[k]} samples"
                lines.append(f'  n{i} [shape=box, label="{label}"];')
                return i
            _, f, zero, one = node
            cut = self.cuts is not None and self.cuts.thresholds[f] is not None
            text = self._condition(f, 1) if cut else self._name(f)
            lines.append(f'  n{i} [shape=ellipse, label="{dot_escape(text)}"];')
            a = rec(one)
            lines.append(f'  n{i} -> n{a} [label="{"yes" if cut else "1"}"];')
            b = rec(zero)
            lines.append(f'  n{i} -> n{b} [label="{"no" if cut else "0"}"];')
            return i

        rec(self._root)
        lines.append("}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Tree(n_leaves={self.n_leaves}, depth={self.depth}, features={self.features_used()})"


def _read_cut_tree(cls, d: dict, columns: list[str], classes) -> "Tree":
    """The tree over numeric columns of a dict with ``column_kinds`` (see :meth:`Tree.to_dict`): its features are
    the (column, threshold) pairs its nodes split on, ordered by column then threshold, as
    :meth:`Tree.over_columns` orders them."""
    kinds = as_str_list(d["column_kinds"], "column_kinds")
    if len(kinds) != len(columns) or any(k not in ("binary", "numeric") for k in kinds):
        raise ValueError(f"column_kinds must give 'binary' or 'numeric' for each of the {len(columns)} columns")
    pairs: set = set()

    def collect(node):
        if not isinstance(node, dict):
            raise ValueError(f"a tree node must be an object, got {type(node).__name__}")
        if "prediction" in node:
            return
        pairs.add(_cut_of(node, kinds, columns))
        collect(node["true"])
        collect(node["false"])

    collect(d)
    used = sorted(pairs, key=lambda p: (p[0], p[1] or 0.0))
    cuts = CutMap(columns, [k == "binary" for k in kinds], [c for c, _ in used], [t for _, t in used])
    index = {p: f for f, p in enumerate(used)}
    leaves, preds, counts, errors, per_class = [], [], [], [], []
    shape = _read_node(d, (), len(used), classes, leaves, preds, (counts, errors, per_class),
                       feature_of=lambda node: index[_cut_of(node, kinds, columns)])
    _check_leaf_stats(leaves, counts, errors, per_class, classes)
    return cls(leaves, preds, cuts.feature_names(), counts, errors, classes, per_class, shape=shape, cuts=cuts)


def _check_leaf_stats(leaves, counts, errors, per_class, classes) -> None:
    """A ValueError unless the leaves' n_samples, errors and class counts are given for all or none, consistent and
    one count per class."""
    if any(len(v) not in (0, len(leaves)) for v in (counts, errors, per_class)):
        raise ValueError("n_samples, errors and class_counts must be given for every leaf or for none")
    if any(e > n for n, e in zip(counts, errors)):
        raise ValueError("a leaf has more errors than samples")
    n_classes = len(classes) if classes is not None else len(per_class[0]) if per_class else 0
    if any(len(c) != n_classes for c in per_class):
        raise ValueError(f"class_counts must hold {n_classes} values (one per class) in every leaf")


def _cut_of(node, kinds, columns) -> tuple:
    """``(column, threshold)`` of a split node of a tree over numeric columns (threshold None on a 0/1 column)."""
    c = as_int(node.get("feature"), "feature", 0, len(columns) - 1)
    t = node.get("threshold")
    if kinds[c] == "binary":
        if t is not None:
            raise ValueError(f"column {columns[c]!r} is binary: a split on it takes no threshold")
        return c, None
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise ValueError(f"a split on the numeric column {columns[c]!r} needs a finite threshold, got {t!r}")
    return c, float(t)


def _read_node(node, path, n_features, classes, leaves, preds, stats, feature_of=None) -> tuple:
    """Collect the leaves (literal paths), predictions and ``stats`` (lists of n_samples, errors and class counts)
    of a nested tree dict, checking every field (a feature at most once per path bounds the depth); returns the
    node's shape.  ``feature_of(node)`` gives a split node's feature (default: its ``feature`` field)."""
    if not isinstance(node, dict):
        raise ValueError(f"a tree node must be an object, got {type(node).__name__}")
    if "prediction" in node:
        label = node["prediction"]
        if classes is None:
            preds.append(as_int(label, "prediction", 0))
        elif label in classes:
            preds.append(classes.index(label))
        else:
            raise ValueError(f"leaf prediction {label!r} is not one of the classes {classes}")
        leaves.append(path)
        counts, errors, per_class = stats
        for key, values in (("n_samples", counts), ("errors", errors)):
            if key in node:
                values.append(as_int(node[key], key, 0))
        if node.get("class_counts") is not None:
            per_class.append(as_counts(node["class_counts"], "class_counts"))
        return ("leaf", len(leaves) - 1)
    f = as_int(node["feature"], "feature", 0, n_features - 1) if feature_of is None else feature_of(node)
    if any(g == f for g, _ in path):
        raise ValueError(f"feature {f} is split on twice along one path")
    one = _read_node(node["true"], path + ((f, 1),), n_features, classes, leaves, preds, stats, feature_of)
    zero = _read_node(node["false"], path + ((f, 0),), n_features, classes, leaves, preds, stats, feature_of)
    return ("split", f, zero, one)


def _renumber(node, new: dict, order: list) -> tuple:
    """A shape with feature ``f`` renamed ``new[f]`` and its leaves numbered in the order of a walk that takes the
    true branch first; ``order`` receives the former leaf numbers in that order."""
    if node[0] == "leaf":
        order.append(node[1])
        return ("leaf", len(order) - 1)
    one = _renumber(node[3], new, order)
    return ("split", new[node[1]], _renumber(node[2], new, order), one)


def _check_shape(node, leaves, path) -> None:
    """A ValueError unless ``node`` is a shape whose leaf ``k`` is reached by exactly the literals ``leaves[k]``."""
    if node[0] == "leaf":
        if not 0 <= node[1] < len(leaves) or tuple(sorted(path)) != leaves[node[1]]:
            raise ValueError(f"the shape's leaf {node[1]} does not match the leaves")
        return
    _, f, zero, one = node
    _check_shape(zero, leaves, path + ((f, 0),))
    _check_shape(one, leaves, path + ((f, 1),))


def _strip(node, leaves):
    """The shape with each leaf named by its literals instead of its index."""
    if node[0] == "leaf":
        return leaves[node[1]]
    return (node[1], _strip(node[2], leaves), _strip(node[3], leaves))


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


_ROWS_AT_ONCE = 1 << 15  # rows whose (rows x leaves) table of hits is made at once


def _last_leaf_met(X: np.ndarray, W: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Per 0/1 row of ``X``, the last leaf whose literals it meets, -1 for none: ``W[f, k]`` is 1 for a literal
    ``x_f == 1`` of leaf ``k``, -1 for ``x_f == 0``, and a row meets them all when ``X @ W[:, k]`` reaches
    ``need[k]``, the number of the first kind (all leaves in one product)."""
    if W.shape[1] == 0:
        return np.full(X.shape[0], -1, dtype=np.int64)
    hit = (X.astype(np.float32) @ W) == need
    last = hit.shape[1] - 1 - np.argmax(hit[:, ::-1], axis=1)
    return np.where(hit[np.arange(hit.shape[0]), last], last, -1)


def make_tree(X, y, leaves, names, n_classes, weights=None) -> tuple[Tree, float]:
    """The :class:`Tree` of a leaf set with (weighted) majority labels, and the weight of its errors (their number
    when unweighted).  Leaves carry their numbers of samples and of misclassified samples, and their class counts
    (class weights when weighted)."""
    stats = leaf_stats(X, y, leaves, n_classes, weights)
    tree = Tree(list(leaves), [s[0] for s in stats], list(names), [s[1] for s in stats], [s[2] for s in stats],
                class_counts=[s[3] for s in stats])
    return tree, sum(s[4] for s in stats)
