"""``TreeBackend``: the Rashomon set of trees (a :class:`~optbb.osdt.rashomon.space.TreeSpace` and its root) as
:class:`~optbb.common.rashomon.RashomonSet` reads it: levels, listing, unranking, and the exact per-sample class
counts and per-feature usage, computed on the subproblems without listing a tree.

When the features are the cuts of numeric columns (a :class:`~optbb.osdt.numeric.cuts.CutMap`), every member is a
tree over the raw columns (:meth:`~optbb.osdt.model.Tree.over_columns`): it prints ``petal_length <= 2.45``, writes
the columns and thresholds in its JSON and predicts on raw rows, while the backend's predictions, usage and class
counts keep reading the matrix of cuts the search saw."""
from __future__ import annotations

import numpy as np

from ...common.formats import as_labels, as_list, as_str_list
from ...common.rashomon import Level, collection_paused, within
from ...common.rashomon_json import read_names, register_family
from ...common.reliance import Reliances, SwitchRows
from ..model import CutMap, Tree
from .listing import TreeLister
from .reliance import tree_reliances
from .space import KEY, TreeSpace
from .store import N_LABEL
from .summary import (class_counts, exact_from_residues, outside_weights, parents_first, residue_runs,
                      usage_recounts)


BATCH = 2048  # trees unranked at once when listing a level


class TreeReading:
    """How the members of a set of trees read the search's features (``feature_names``; ``cuts``: their map when
    they are cuts of numeric columns, whose members are trees over the raw columns, else None) and predict
    ``classes``: what a set and a set read back from JSON share."""

    def __init__(self, feature_names, classes, cuts: CutMap | None):
        self.feature_names, self.classes, self.cuts = list(feature_names), classes, cuts
        # a cut's feature index by its (column, threshold): where a member's feature sits in the matrix of cuts
        self._cut_index = None if cuts is None else {ct: f for f, ct in enumerate(zip(cuts.columns, cuts.thresholds))}

    def predict(self, model: Tree, X) -> np.ndarray:
        """The member's predictions on ``X``, the 0/1 matrix of the search's features (for cuts, the matrix
        :meth:`~optbb.osdt.numeric.cuts.CutMap.transform` makes of raw rows: the set's ``prepare``)."""
        if model.cuts is None:
            return model.predict(X)
        binary = Tree.from_shape(model.shape, model.leaves, model.predictions, model.feature_names,
                                 model.n_samples, model.errors, model.classes, model.class_counts)
        return binary.predict(np.asarray(X)[:, self.search_features(model)])

    def features_of(self, model: Tree) -> set:
        """The search's features (indices into ``feature_names``) the member splits on."""
        return set(model.features_used() if model.cuts is None else self.search_features(model))

    def search_features(self, model: Tree) -> list[int]:
        """For each feature of a member over raw columns, the index of its cut among the search's features."""
        cuts = model.cuts
        return [self._cut_index[ct] for ct in zip(cuts.columns, cuts.thresholds)]

    def structure(self, model: Tree) -> tuple | None:
        """The tree as the search sees it: ``("leaf", class index)`` or ``("split", search feature, zero, one)``;
        None when it cannot be a member (a feature or a class the search does not have)."""
        if not isinstance(model, Tree):
            raise TypeError(f"a set of trees holds Tree models, got {type(model).__name__}")
        if model.classes is not None and self.classes is not None and list(model.classes) != list(self.classes):
            return None
        if model.cuts is None:
            if self.cuts is not None or list(model.feature_names) != self.feature_names:
                return None
            feature = list(range(len(self.feature_names)))
        else:
            cuts = model.cuts
            if self.cuts is None or cuts.column_names != self.cuts.column_names:
                return None
            feature = [self._cut_index.get(ct) for ct in zip(cuts.columns, cuts.thresholds)]

        def walk(node):
            if node[0] == "leaf":
                return ("leaf", model.predictions[node[1]])
            f = feature[node[1]] if node[1] < len(feature) else None
            zero, one = walk(node[2]), walk(node[3])
            return None if f is None or zero is None or one is None else ("split", f, zero, one)

        return walk(model._root)

    def key(self, model: Tree):
        return self.structure(model)

    def json_fields(self) -> dict:
        """The search's cuts, for a set over numeric columns (what its JSON adds to the common fields)."""
        if self.cuts is None:
            return {}
        c = self.cuts
        return {"cuts": {"column_names": list(c.column_names), "binary": list(c.binary), "columns": list(c.columns),
                         "thresholds": list(c.thresholds)}}


class ListedTrees(TreeReading):
    """A set of trees read back from JSON (:class:`~optbb.common.rashomon_json.ListedBackend`): its features,
    classes and cuts, and its trees read with :meth:`Tree.from_dict`; over numeric columns its ``prepare`` makes
    the cuts of raw rows, as the set's did."""

    def __init__(self, d: dict):
        cuts = d.get("cuts")
        if cuts is not None:
            if not isinstance(cuts, dict):
                raise ValueError("cuts must be an object")
            cuts = CutMap(as_str_list(cuts["column_names"], "cuts column_names"), as_list(cuts["binary"], "binary"),
                          as_list(cuts["columns"], "cuts columns"), as_list(cuts["thresholds"], "thresholds"))
        super().__init__(read_names(d), as_labels(d.get("classes"), "classes"), cuts)
        self.prepare = None if cuts is None else cuts.transform

    @staticmethod
    def read_model(d: dict) -> Tree:
        return Tree.from_dict(d)


register_family("trees", ListedTrees)


class TreeBackend(TreeReading):
    """The members of ``root`` (a subproblem id) with cost at most ``bound``; ``cuts``: the map of the features when
    they are cuts of numeric columns (members are then trees over the raw columns), else None."""

    def __init__(self, space: TreeSpace, root: int, bound: float, feature_names, classes, cuts: CutMap | None = None):
        super().__init__(feature_names, classes, cuts)
        self.space, self.root, self.bound = space, root, bound
        a = space.a
        pairs = [(int(k) // KEY, int(k) % KEY, int(c)) for k, c in zip(space.keys(root), space.counts(root))]
        rows = [(space.cost(e, leaves), leaves, e, c) for e, leaves, c in pairs if within(space.cost(e, leaves), bound)]
        rows.sort()
        self._pairs = [(e, leaves) for _, leaves, e, _ in rows]
        self.levels = [Level(cost, leaves, a.weight(e), c) for cost, leaves, e, c in rows]
        self._level_of = {pair: i for i, pair in enumerate(self._pairs)}
        self._weights: dict = {}  # modulus -> (outside weights, order)
        self._leaf_info: dict = {}
        self._labels: dict = {}  # subproblem -> its leaf_info and label
        # shared parts of the trees built: each feature's literals (as one-tuples to extend a path with), the shape's
        # leaf nodes and the sorted path of each path met
        self._lits = [(((f, 0),), ((f, 1),)) for f in range(len(self.feature_names))]
        self._ends = [("leaf", k) for k in range(max((lv.size for lv in self.levels), default=1))]
        self._paths: dict = {}
        self._lister: TreeLister | None = None

    # -- models -------------------------------------------------------------------------------------------------
    def model(self, level: int, k: int) -> Tree:
        return self.models_at(np.array([level], dtype=np.int64), np.array([k], dtype=np.int64))[0]

    def models(self, level: int):
        count = self.levels[level].count
        for lo in range(0, count, BATCH):
            ranks = np.arange(lo, min(count, lo + BATCH), dtype=np.int64)
            yield from self.models_at(np.full(ranks.size, level, dtype=np.int64), ranks)

    def models_at(self, levels: np.ndarray, ranks: np.ndarray) -> list[Tree]:
        """Tree ``ranks[i]`` of level ``levels[i]`` for each ``i``: unranked in compiled code
        (:class:`~optbb.osdt.rashomon.listing.TreeLister`), then built from their preorder arrays."""
        feat, node = self.lister().unrank(levels, ranks)
        with collection_paused():
            return [self._tree_of(f, n) for f, n in zip(feat.tolist(), node.tolist())]

    def lister(self) -> TreeLister:
        """The compiled unranking of the set's trees (its table of ways built on first use)."""
        if self._lister is None:
            s = self.space.store
            order = parents_first(s.nodes, s.pools, self.root)
            most = max((lv.size for lv in self.levels), default=1)
            self._lister = TreeLister(s, self.root, self._root_pairs(), order, most)
        return self._lister

    def _tree_of(self, feat: list, node: list) -> Tree:
        """The :class:`Tree` of preorder lists (as :meth:`tree` makes it of a shape).  The literals, the leaf
        nodes of the shape and the sorted leaf paths are shared between trees (fewer objects to build and for the
        garbage collector to scan); each tree has its own lists."""
        leaves, preds, sizes, errors, counts = [], [], [], [], []
        at = iter(zip(feat, node))
        lits, ends, paths, info = self._lits, self._ends, self._paths, self._labels

        def read(path):  # the preorder (zero side first) as a nested shape
            f, sub = next(at)
            if f < 0:
                return (path, sub)
            zero = read(path + lits[f][0])
            return ("split", f, zero, read(path + lits[f][1]))

        def walk(node):  # the leaves numbered true branch first, as the tree's dict lists them
            if node[0] != "split":
                path, sub = node
                got = info.get(sub)
                if got is None:
                    got = info[sub] = self.leaf_info(sub) + (self.space.label(sub),)
                leaf = paths.get(path)
                if leaf is None:
                    leaf = paths[path] = tuple(sorted(path))
                end = ends[len(leaves)]
                leaves.append(leaf)
                preds.append(got[3])
                sizes.append(got[0])
                errors.append(got[1])
                counts.append(list(got[2]))
                return end
            one = walk(node[3])
            return ("split", node[1], walk(node[2]), one)

        shape = walk(read(()))
        tree = Tree.from_shape(shape, leaves, preds, self.feature_names, sizes, errors, self.classes, counts)
        return tree if self.cuts is None else tree.over_columns(self.cuts)

    def tree(self, shape) -> Tree:
        """A :class:`Tree` keeping the shape (the leaves alone do not fix the order of the splits); over the raw
        columns when the features are cuts."""
        leaves, preds, sizes, errors, counts = [], [], [], [], []

        def walk(node, path):
            if node[0] == "leaf":
                sub = node[1]
                size, wrong, per = self.leaf_info(sub)
                leaves.append(tuple(sorted(path)))
                preds.append(self.space.label(sub))
                sizes.append(size)
                errors.append(wrong)
                counts.append(list(per))
                return ("leaf", len(leaves) - 1)
            _, f, zero, one = node  # the true branch first, as the tree's dict lists its leaves
            o = walk(one, path + ((f, 1),))
            return ("split", f, walk(zero, path + ((f, 0),)), o)

        shape = walk(shape, ())
        tree = Tree.from_shape(shape, leaves, preds, self.feature_names, sizes, errors, self.classes, counts)
        return tree if self.cuts is None else tree.over_columns(self.cuts)

    def leaf_info(self, node: int) -> tuple:
        """``(rows, misclassified rows, class amounts)`` of a subproblem as a leaf (weights for a weighted fit, summed
        as the models sum them)."""
        got = self._leaf_info.get(node)
        if got is None:
            a, rows = self.space.a, self.space.rows(node)
            label = self.space.label(node)
            wrong = int(rows.size - np.count_nonzero(a.y[rows] == label))
            per = [int(v) if float(v).is_integer() else float(v) for v in a.class_weights(rows).tolist()]
            got = self._leaf_info[node] = (int(rows.size), wrong, per)
        return got

    # -- ranking: the inverse of model() -----------------------------------------------------------------------
    def rank(self, model: Tree) -> tuple[int, int] | None:
        """``(level, k)`` with ``model(level, k)`` of the tree's structure, None when it is no member: its
        ``(errors, leaves)`` pair and rank are counted bottom-up along its splits, as :meth:`TreeSpace.unrank`
        reads them top-down."""
        shape = self.structure(model)
        got = None if shape is None else self._rank(self.root, shape)
        level = None if got is None else self._level_of.get((got[0] // KEY, got[0] % KEY))
        return None if level is None else (level, got[1])

    def _rank(self, node: int, shape: tuple) -> tuple[int, int] | None:
        """``(pair key, rank within the pair)`` of a subtree of subproblem ``node``, None when there is none."""
        space = self.space
        if shape[0] == "leaf":
            return (space.leaf_errors(node) * KEY + 1, 0) if shape[1] == space.label(node) else None
        feat, left_ids, right_ids = space.options(node)
        at = np.flatnonzero(feat == shape[1])
        if at.size == 0:
            return None
        o = int(at[0])
        left, right = int(left_ids[o]), int(right_ids[o])
        zero, one = self._rank(left, shape[2]), self._rank(right, shape[3])
        if zero is None or one is None:
            return None
        key = zero[0] + one[0]
        opt, li, ri, cum = space.splits(node, key // KEY, key % KEY)
        ways = np.flatnonzero(opt == o)
        ways = ways[space.keys(left)[li[ways]] == zero[0]]
        if ways.size == 0:
            return None
        b = int(ways[0])
        return key, (int(cum[b - 1]) if b else 0) + zero[1] * int(space.counts(right)[ri[b]]) + one[1]

    # -- model reliance ------------------------------------------------------------------------------------------
    @property
    def class_labels(self) -> list:
        """The labels the trees predict, by class index."""
        return list(self.classes) if self.classes is not None else list(range(self.space.a.K))

    @property
    def sample_weight(self) -> np.ndarray | None:
        """The weights the set was built with (None: unweighted)."""
        return self.space.a.rows_data.w if self.space.a.weighted else None

    def reliances(self, plan: SwitchRows, levels: np.ndarray, ranks: np.ndarray) -> Reliances:
        """The reliances of tree ``ranks[i]`` of level ``levels[i]`` on the columns of ``plan``, unranked and
        measured in compiled code (:func:`~optbb.osdt.rashomon.reliance.tree_reliances`)."""
        lister = self.lister()
        labels = np.ascontiguousarray(self.space.store.nodes.ints[:, N_LABEL])
        feat, node = lister.unrank(levels, ranks)
        width = max(1, min(plan.rows.shape[1], lister.width // 2))
        out_feat = np.empty((feat.shape[0], width), dtype=np.int64)
        out_num = np.empty((feat.shape[0], width), dtype=np.float64)
        tree_reliances(feat, node, labels, plan.rows, plan.amounts, plan.other, out_feat, out_num)
        return Reliances(out_feat, out_num, plan.divisor, plan.rows.shape[1])

    # -- exact summaries ----------------------------------------------------------------------------------------
    def _root_pairs(self) -> np.ndarray:
        """The indices of the root's pairs within the bound (the levels) among its pairs."""
        keys = np.array([e * KEY + leaves for e, leaves in self._pairs], dtype=np.int64)
        return np.searchsorted(self.space.keys(self.root), keys).astype(np.int64)

    def outside(self, p=None) -> tuple[np.ndarray, np.ndarray]:
        """``(weights, order)``: per pair of the pool, the number of ways the rest of a member completes a subtree
        of that pair (modulo ``p``), and the subproblems below the root, parents first
        (:func:`~optbb.osdt.rashomon.summary.outside_weights`)."""
        got = self._weights.get(p)
        if got is None:
            s = self.space.store
            order = parents_first(s.nodes, s.pools, self.root)
            got = self._weights[p] = (outside_weights(s.nodes, s.pools, order, self._root_pairs(), p), order)
        return got

    def _moduli(self) -> list:
        return residue_runs(sum(lv.count for lv in self.levels))

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: per training row, the members predicting each class (a subproblem is a leaf of as
        many members as its outside weight at its leaf pair, and predicts its label for each of its rows): int64,
        or Python ints beyond 2**63 members."""
        s, a, moduli = self.space.store, self.space.a, self._moduli()
        runs = [class_counts(s.nodes, s.pools, self.outside(p)[1], self.outside(p)[0], a.n, a.K, p) for p in moduli]
        return exact_from_residues(runs, moduli)

    def feature_usage(self) -> list[int]:
        """Per feature, the members using it: the count minus the members of a recount without its splits (the
        recounts of all features at once, bottom-up, one column per feature)."""
        s, moduli = self.space.store, self._moduli()
        order = parents_first(s.nodes, s.pools, self.root)
        kept = exact_from_residues([usage_recounts(s.nodes, s.pools, order, self._root_pairs(), self.space.a.m, p)
                                    for p in moduli], moduli)
        total = sum(lv.count for lv in self.levels)
        return [total - int(x) for x in kept]
