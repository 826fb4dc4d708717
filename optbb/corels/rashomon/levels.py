"""The backend of a rule-list :class:`~optbb.common.rashomon.RashomonSet`: the stored prefix tree of a search,
its levels, the unranking and listing of their models, and the exact summaries."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...common.rashomon import Level, collection_paused
from ...common.reliance import Reliances, SwitchRows
from ..listed import RuleListReading
from ..model import RuleList, assemble_rule_list
from . import kernel as K
from .engine import Problem, Search
from .listing import list_reliances, prefixes, rule_stats


class RuleListLevels(RuleListReading):
    """The backend of a :class:`~optbb.common.rashomon.RashomonSet` of rule lists (the protocol of
    :mod:`optbb.common.rashomon`): the stored prefix tree of a finished (or stopped) enumeration.

    ``models`` are :class:`~optbb.corels.model.RuleList` objects built by ``build_rule_list`` (their ``objective``
    is their level's); ``model_hook`` finishes each (the estimator attaches literals and classes); ``classes`` the
    labels ``predict`` gives (default: the class indices)."""

    def __init__(self, problem: Problem, search: Search | None, classes=None,
                 model_hook: Callable[[RuleList], None] | None = None):
        self.p = problem
        self.limit = search.limit if search is not None else -math.inf
        self.feature_names = list(problem.data.feature_names)
        self.classes = list(range(problem.n_classes)) if classes is None else list(classes)
        self.model_hook = model_hook
        if search is None:
            self._parent, self._rule = np.full(1, -1, np.int64), np.full(1, -1, np.int32)
            self._expanded = np.zeros(1, np.uint8)
            ent_node, ent_pair, ent_count = (np.zeros(0, np.int64),) * 3
            err, k, count = np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            st, pairs = search.st, search.pairs
            self._parent, self._rule, self._expanded, ent_node, ent_pair, ent_count, count = search.members_tree()
            err, k = pairs.err[: int(st[K.S_PAIRS])], pairs.k[: int(st[K.S_PAIRS])]
        self._root = search.root if search is not None else (0.0, 0)
        objective = err / problem.n + problem.lam * k  # the kernel's formula, elementwise
        order = np.lexsort((err, k, objective))
        rank = np.empty(order.shape[0], dtype=np.int64)
        rank[order] = np.arange(order.shape[0])
        weighted = problem.weights is not None
        self.levels = [Level(float(objective[i]), int(k[i]), float(err[i]) if weighted else int(err[i]),
                             int(count[i])) for i in order]
        self._err = err[order].copy()
        # entries grouped by level, each level's in the search's order
        by_level = np.argsort(rank[ent_pair], kind="stable") if ent_pair.shape[0] else np.zeros(0, np.int64)
        self._ent_node = np.asarray(ent_node)[by_level].copy()
        self._ent_count = np.asarray(ent_count)[by_level]
        self._ends = np.cumsum(self._ent_count)
        self._first = np.searchsorted(rank[ent_pair][by_level], np.arange(len(self.levels) + 1))
        self._direct = np.zeros(self._parent.shape[0], dtype=np.int64)  # member children of each node
        inner = np.asarray(ent_node) >= 0
        np.add.at(self._direct, np.asarray(ent_node)[inner], np.asarray(ent_count)[inner])
        self._summary = None
        self._shared = None  # the feature names and total amount every listed model shares
        self._columns = None  # read_columns: the raw features the models read and the antecedents' literals
        self._child_keys = self._by_node = None  # for rank(), made when first asked

    # -- unranking and listing ---------------------------------------------------------------------------------
    def _path(self, node: int) -> list[int]:
        path = []
        while node > 0:
            path.append(int(self._rule[node]))
            node = int(self._parent[node])
        return path[::-1]

    def _children(self, prefix: list[int], level: int) -> np.ndarray:
        p = self.p
        out = np.empty(max(1, p.m), dtype=np.int64)
        found = K.member_children(p.kdata, p.weights, np.asarray(prefix, dtype=np.int64), p.lam, self.limit,
                                  float(self._err[level]), out)
        return out[:found]

    def _model(self, prefix) -> RuleList:
        model = self.p.build(prefix)
        if self.model_hook is not None:
            self.model_hook(model)
        return model

    def model(self, level: int, k: int) -> RuleList:
        """The ``k``-th model of level ``level``."""
        count = self.levels[level].count
        if not 0 <= k < count:
            raise IndexError(f"model {k} of a level of {count}")
        first = self._first[level]
        g = (int(self._ends[first - 1]) if first > 0 else 0) + int(k)
        e = int(np.searchsorted(self._ends, g, side="right"))
        j = g - (int(self._ends[e]) - int(self._ent_count[e]))
        node = int(self._ent_node[e])
        if node < 0:
            return self._model([])
        prefix = self._path(node)
        return self._model(prefix + [int(self._children(prefix, level)[j])])

    def models(self, level: int):
        """The models of level ``level`` in the order of :meth:`model`."""
        for e in range(self._first[level], self._first[level + 1]):
            node = int(self._ent_node[e])
            if node < 0:
                yield self._model([])
                continue
            prefix = self._path(node)
            for s in self._children(prefix, level):
                yield self._model(prefix + [int(s)])

    # -- batches, compiled ---------------------------------------------------------------------------------------
    def _prefixes(self, levels: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The antecedents of member ``ranks[i]`` of level ``levels[i]`` (row ``i``, ``lengths[i]`` of them)."""
        p = self.p
        first = self._first[levels]
        base = np.where(first > 0, self._ends[np.maximum(first - 1, 0)], 0)
        g = base + ranks
        e = np.searchsorted(self._ends, g, side="right")
        j = g - (self._ends[e] - self._ent_count[e])
        out = np.zeros((levels.shape[0], max(1, max((lv.size for lv in self.levels), default=0))), dtype=np.int64)
        lengths = np.zeros(levels.shape[0], dtype=np.int64)
        prefixes(p.kdata, p.weights, self._parent, self._rule, self._ent_node[e], j, self._err[levels], p.lam,
                 self.limit, out, lengths)
        return out, lengths

    def models_at(self, levels: np.ndarray, ranks: np.ndarray) -> list[RuleList]:
        """Member ``ranks[i]`` of level ``levels[i]`` for each ``i``: the prefixes and the statistics of their rules
        computed in compiled code, the lists put together as :func:`~optbb.corels.model.build_rule_list` does."""
        p, d = self.p, self.p.data
        pre, lengths = self._prefixes(levels, ranks)
        n, width = pre.shape
        amounts = np.zeros((n, width + 1, p.n_classes))
        preds, captured, correct = (np.zeros((n, width + 1), dtype=np.int64) for _ in range(3))
        rule_stats(p.kdata, p.weights, pre, lengths, amounts, preds, captured, correct)
        if self._shared is None:
            total = d.n_samples if d.sample_weight is None else float(np.asarray(d.sample_weight).sum())
            self._shared = ([str(x) for x in d.feature_names], total)
        names, total = self._shared
        as_int = d.sample_weight is None
        out = []
        with collection_paused():
            for i, (row, k) in enumerate(zip(pre.tolist(), lengths.tolist())):
                per = amounts[i, :k + 1].astype(np.int64).tolist() if as_int else amounts[i, :k + 1].tolist()
                stats = list(zip(per, preds[i, :k + 1].tolist(), captured[i, :k + 1].tolist(),
                                 correct[i, :k + 1].tolist()))
                model = assemble_rule_list(row[:k], stats, d.feature_names, names, d.label_names, p.lam,
                                           d.n_samples, total)
                if self.model_hook is not None:
                    self.model_hook(model)
                out.append(model)
        return out

    # -- model reliance ----------------------------------------------------------------------------------------
    @property
    def class_labels(self) -> list:
        return list(self.classes)

    @property
    def sample_weight(self) -> np.ndarray | None:
        """The weights the set was built with (None: unweighted)."""
        w = self.p.data.sample_weight
        return None if w is None else np.asarray(w, dtype=np.float64)

    @property
    def column_names(self) -> list[str]:
        """The columns of the matrix the models read: the antecedents, or the raw features of
        :meth:`read_columns`."""
        return self.feature_names if self._columns is None else self._columns[0]

    def read_columns(self, names: list[str], antecedents) -> None:
        """The models read the raw 0/1 features ``names``, of which antecedent ``a`` is the conjunction
        ``antecedents[a]`` (with ``features`` and ``negated``), as an estimator's members do."""
        first = np.cumsum([0] + [len(a.features) for a in antecedents]).astype(np.int64)
        feat = np.array([f for a in antecedents for f in a.features], dtype=np.int64)
        neg = np.array([int(bool(x)) for a in antecedents for x in a.negated], dtype=np.uint8)
        self._columns = (list(names), (first, feat, neg), antecedents)

    def reliances(self, plan: SwitchRows, levels: np.ndarray, ranks: np.ndarray) -> Reliances:
        """The reliances of member ``ranks[i]`` of level ``levels[i]`` on the columns of ``plan``, in compiled code
        (:func:`~optbb.corels.rashomon.listing.list_reliances`)."""
        p = self.p
        pre, lengths = self._prefixes(levels, ranks)
        n, width = pre.shape
        preds = np.zeros((n, width + 1), dtype=np.int64)
        scratch = np.zeros((n, width + 1), dtype=np.int64)
        rule_stats(p.kdata, p.weights, pre, lengths, np.zeros((n, width + 1, p.n_classes)), preds, scratch,
                   scratch.copy())
        rows = plan.rows
        if self._columns is None:  # each antecedent is its own column
            truth = rows
            m = rows.shape[1]
            lits = (np.arange(m + 1, dtype=np.int64), np.arange(m, dtype=np.int64), np.zeros(m, dtype=np.uint8))
        else:
            _, lits, antecedents = self._columns
            truth = np.ascontiguousarray(np.stack([a.evaluate(rows) for a in antecedents], axis=1), dtype=np.uint8)
        most = int(np.max(np.diff(lits[0]), initial=1))
        out_feat = np.empty((n, max(1, min(rows.shape[1], width * most))), dtype=np.int64)
        out_num = np.empty(out_feat.shape, dtype=np.float64)
        list_reliances(pre, lengths, preds, truth, lits, rows, plan.amounts, plan.other, out_feat, out_num)
        return Reliances(out_feat, out_num, plan.divisor, rows.shape[1])

    # -- ranking: the inverse of model() -----------------------------------------------------------------------
    def rank(self, model: RuleList) -> tuple[int, int] | None:
        """``(level, k)`` with ``model(level, k)`` of the list's antecedents, None when it is no member: the node of
        its prefix less the last rule in the prefix tree, that node's entry of the level whose member children
        include the last rule (the kernel's own errors), and the rule's place among them."""
        prefix, classes = self.key(model)
        if (model.classes is not None and self.classes is not None and list(model.classes) != self.classes) or \
                len(set(prefix)) != len(prefix) or any(not 0 <= a < self.p.m for a in prefix):
            return None
        node = self._node_of(prefix[:-1]) if prefix else -1
        if node is None or tuple(self.p.build(prefix).rule_classes().tolist()) != classes:
            return None
        nodes, order = self._entries_by_node()
        for e in order[np.searchsorted(nodes, node):np.searchsorted(nodes, node, side="right")].tolist():
            level = int(np.searchsorted(self._first, e, side="right")) - 1
            if prefix:
                at = np.flatnonzero(self._children(list(prefix[:-1]), level) == prefix[-1])
                if at.size == 0:
                    continue
                j = int(at[0])
            else:
                j = 0
            first = self._first[level]
            before = int(self._ends[first - 1]) if first > 0 else 0
            return level, int(self._ends[e]) - int(self._ent_count[e]) - before + j
        return None

    def _node_of(self, prefix) -> int | None:
        """The prefix tree's node of ``prefix`` (0: the empty prefix), None when the search did not keep it."""
        if self._child_keys is None:
            width = self.p.m + 1
            keys = self._parent[1:] * width + self._rule[1:]
            order = np.argsort(keys, kind="stable")
            self._child_keys = (keys[order], order + 1, width)
        keys, ids, width = self._child_keys
        node = 0
        for a in prefix:
            want = node * width + a
            at = int(np.searchsorted(keys, want))
            if at >= keys.size or keys[at] != want:
                return None
            node = int(ids[at])
        return node

    def _entries_by_node(self) -> tuple[np.ndarray, np.ndarray]:
        """The entries' nodes sorted (the empty list's entry as node -1) and the entries in that order."""
        if self._by_node is None:
            nodes = np.where(self._ent_node < 0, -1, self._ent_node)
            order = np.argsort(nodes, kind="stable")
            self._by_node = (nodes[order], order)
        return self._by_node

    # -- exact summaries ---------------------------------------------------------------------------------------
    def _summaries(self):
        if self._summary is None:
            p = self.p
            counts = np.zeros((p.data.n_samples, p.n_classes), dtype=np.int64)
            usage = np.zeros(p.m, dtype=np.int64)
            if self._direct.sum():
                K.summaries(p.kdata, p.weights, self._parent, self._rule, self._expanded, self._direct, p.lam,
                            self.limit, counts, usage)
            if np.any(self._ent_node < 0):  # the empty list is a member: its default predicts every row
                counts[:, self._root[1]] += 1
            self._summary = counts, usage
        return self._summary

    def class_counts(self) -> np.ndarray:
        """``(n_samples, K)``: for each training row, how many members predict each class."""
        return self._summaries()[0].copy()

    def feature_usage(self) -> np.ndarray:
        """For each antecedent, how many members use it."""
        return self._summaries()[1].copy()
