"""Compiled listing and model reliance of a Rashomon set of rule lists (:mod:`optbb.corels.rashomon`).

- :func:`prefixes`: the antecedents of a batch of members, each given by its entry's node and its rank among that
  node's member children of the entry's errors (the children evaluated once per run of models of one entry).
- :func:`rule_stats`: per rule of each member and its default, the class amounts of what it captures (counts, or
  sums of weights in sample order, as :func:`~optbb.corels.model.build_rule_list` sums them), its class, and the
  samples it captures and classifies correctly: all a :class:`~optbb.corels.model.RuleList` holds.
- :func:`list_reliances`: the numerators of each member's model reliance (:mod:`optbb.common.reliance`) on the
  columns of the distinct rows ``rows``; an antecedent is a conjunction of literals over those columns (one literal,
  its own column, for the antecedent matrix).  Flipping column ``j`` changes only the antecedents holding it, so a
  row captured before the first rule holding ``j`` keeps its prediction; the others are followed down the list
  again with ``j`` flipped.
"""
from __future__ import annotations

import numpy as np

from ...common.bitset import popcount64
from ...common.bounds import majority_class
from ...common.jit import njit
from .kernel import _all_samples, _amounts, _class_amounts, _path, node_children


@njit(cache=True)
def prefixes(data, w, parent, rule, nodes, ranks, targets, lam, limit, out, lengths):
    """Member ``i`` (``nodes[i]``: its entry's node, -1 for the empty list; ``ranks[i]`` among the node's member
    children whose errors are ``targets[i]``) into ``out[i, :lengths[i]]``.  The models are taken node by node, so
    each node's children are evaluated once."""
    m = data.rules.shape[0]
    path = np.empty(out.shape[1] + 1, dtype=np.int64)
    kids = np.empty(max(1, m), dtype=np.int64)
    errs = np.empty(max(1, m))
    last, found = -2, 0
    for i in np.argsort(nodes, kind="mergesort"):
        node = nodes[i]
        if node < 0:
            lengths[i] = 0
            continue
        d = _path(parent, rule, node, path)
        if node != last:
            found = node_children(data, w, path[:d], lam, limit, kids, errs)
            last = node
        for q in range(d):
            out[i, q] = path[q]
        seen = -1
        for c in range(found):
            if errs[c] == targets[i]:
                seen += 1
                if seen == ranks[i]:
                    out[i, d] = kids[c]
                    break
        lengths[i] = d + 1


@njit(cache=True)
def rule_stats(data, w, pre, lengths, amounts, preds, captured, correct):
    """For rule ``q`` of member ``i`` (``q = lengths[i]``: its default), its class amounts ``amounts[i, q]``, class
    ``preds[i, q]``, and samples captured and classified correctly."""
    rules, Y = data.rules, data.Y
    nw = Y.shape[1]
    U = np.empty(nw, dtype=np.uint64)
    tv = np.empty(nw, dtype=np.uint64)
    cc = np.empty(Y.shape[0])
    for i in range(pre.shape[0]):
        _all_samples(Y, U)
        for q in range(lengths[i]):
            r = rules[pre[i, q]]
            nv = _amounts(U, r, Y, w, cc, tv)
            p, _ = majority_class(cc)
            right = 0
            for k in range(nw):
                right += popcount64(U[k] & r[k] & Y[p, k])
                U[k] &= ~r[k]
            amounts[i, q, :] = cc
            preds[i, q], captured[i, q], correct[i, q] = p, nv, right
        q = lengths[i]
        _class_amounts(U, Y, w, cc)
        p, _ = majority_class(cc)
        nv, right = 0, 0
        for k in range(nw):
            nv += popcount64(U[k])
            right += popcount64(U[k] & Y[p, k])
        amounts[i, q, :] = cc
        preds[i, q], captured[i, q], correct[i, q] = p, nv, right


@njit(cache=True, inline="always")
def _holds(lit_first, lit_feat, a, j):
    for t in range(lit_first[a], lit_first[a + 1]):
        if lit_feat[t] == j:
            return True
    return False


@njit(cache=True, inline="always")
def _true_flipped(lit_first, lit_feat, lit_neg, row, a, j):
    """Antecedent ``a`` on ``row`` with column ``j`` flipped."""
    for t in range(lit_first[a], lit_first[a + 1]):
        x = row[lit_feat[t]] ^ (1 if lit_feat[t] == j else 0)
        if x == lit_neg[t]:
            return False
    return True


@njit(cache=True)
def list_reliances(pre, lengths, preds, truth, lits, rows, amounts, other, out_feat, out_num):
    """For each member ``i``, the columns its antecedents hold (ascending, into ``out_feat[i]``, -1 after) and the
    numerators of its reliance on them.  ``truth[r, a]``: antecedent ``a`` on distinct row ``r``; ``lits``: the
    literals of each antecedent (``first``, ``feat``, ``neg`` in CSR form)."""
    lit_first, lit_feat, lit_neg = lits
    m = rows.shape[1]
    first_rule = np.full(m, -1, dtype=np.int64)
    acc = np.zeros(m)
    cols = np.empty(m, dtype=np.int64)
    for i in range(pre.shape[0]):
        n_rules, n_cols = lengths[i], 0
        for q in range(n_rules):
            a = pre[i, q]
            for t in range(lit_first[a], lit_first[a + 1]):
                j = lit_feat[t]
                if first_rule[j] < 0:
                    first_rule[j] = q
                    cols[n_cols] = j
                    n_cols += 1
        for r in range(rows.shape[0]):
            row = rows[r]
            t = 0
            while t < n_rules and not truth[r, pre[i, t]]:
                t += 1
            p = preds[i, t]
            for c in range(n_cols):
                j = cols[c]
                q = first_rule[j]
                if t < q:
                    continue  # captured before any rule holding j
                while q < n_rules:
                    a = pre[i, q]
                    hit = _true_flipped(lit_first, lit_feat, lit_neg, row, a, j) if _holds(lit_first, lit_feat, a, j) \
                        else truth[r, a] != 0
                    if hit:
                        break
                    q += 1
                p2 = preds[i, q]
                if p2 != p:
                    acc[j] += other[j, row[j]] * (amounts[r, p] - amounts[r, p2])
        cols[:n_cols].sort()
        for c in range(n_cols):
            j = cols[c]
            out_feat[i, c], out_num[i, c] = j, acc[j]
            acc[j], first_rule[j] = 0.0, -1
        for c in range(n_cols, out_feat.shape[1]):
            out_feat[i, c], out_num[i, c] = -1, 0.0
