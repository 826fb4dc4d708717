"""Orderings that tie, written out: the enumeration (:mod:`optbb.corels.rashomon.kernel`) expands one ordering of a
set of antecedents per float of their errors and stores the others as *aliases* of it.  Two orderings over one set
of antecedents leave the same samples uncaptured (CORELS Cor. 16), so with the same errors every list extending one
has the same sums, hence the same objective, as the same extension of the other: the members below an alias are
its node's with the prefix reordered.  :func:`unfold` copies, below each alias, the part of its node's subtree that
holds members (aliases in it unfolded in turn), so that the listing, ranking and summaries read one prefix tree.
"""
from __future__ import annotations

import numpy as np

from ...common.jit import njit


@njit(cache=True)
def _member_bearing(parent, alias, ent_num):
    """Per node, whether members lie at or below it (through an alias: at or below its node), and how many nodes
    and entries its written-out subtree adds below it (``grow_nodes``, ``grow_ent``, entries of the node itself
    included).  Nodes are taken deepest first, an alias after the nodes of its depth (its node is one of them)."""
    n = parent.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        depth[i] = depth[parent[i]] + 1
    order = np.argsort(-(2 * depth + (alias < 0)), kind="mergesort")
    has = ent_num > 0
    grow_nodes = np.zeros(n, dtype=np.int64)
    grow_ent = ent_num.copy()
    for x in order:
        if alias[x] >= 0:
            t = alias[x]
            has[x] = has[t]
            grow_nodes[x], grow_ent[x] = grow_nodes[t], grow_ent[t]
        if has[x] and x > 0:
            p = parent[x]
            has[p] = True
            grow_nodes[p] += 1 + grow_nodes[x]
            grow_ent[p] += grow_ent[x]
    return has, grow_nodes, grow_ent


@njit(cache=True)
def _children(parent):
    """Each node's first child and each node's next sibling (children in increasing id, i.e. antecedent, order)."""
    n = parent.shape[0]
    first = np.full(n, -1, dtype=np.int64)
    sibling = np.full(n, -1, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        sibling[i] = first[parent[i]]
        first[parent[i]] = i
    return first, sibling


@njit(cache=True)
def unfold_sizes(parent, alias, ent_node):
    """The nodes and entries :func:`unfold` adds (``(nodes, entries)``), and the per-node arrays it reads."""
    n = parent.shape[0]
    ent_num = np.zeros(n, dtype=np.int64)
    ent_first = np.full(n, -1, dtype=np.int64)
    for e in range(ent_node.shape[0]):
        v = ent_node[e]
        if v >= 0:
            if ent_first[v] < 0:
                ent_first[v] = e
            ent_num[v] += 1
    has, grow_nodes, grow_ent = _member_bearing(parent, alias, ent_num)
    add_nodes, add_ent = 0, 0
    for x in range(n):
        if alias[x] >= 0 and has[x]:
            add_nodes += grow_nodes[x]
            add_ent += grow_ent[x]
    return add_nodes, add_ent, has, ent_first, ent_num


@njit(cache=True)
def unfold(parent, rule, expanded, alias, ent_node, ent_pair, ent_count, pair_count, has, ent_first, ent_num,
           out_parent, out_rule, out_expanded, out_ent_node, out_ent_pair, out_ent_count):
    """The prefix tree with its aliases written out into the ``out_*`` arrays (sized by :func:`unfold_sizes`): the
    stored nodes and entries first, unchanged, then below each alias holding members a copy of its node's
    member-bearing subtree, the children of each copied node consecutive and in antecedent order, with copies of
    its entries; ``pair_count`` gains the copied entries' members."""
    n, ne = parent.shape[0], ent_node.shape[0]
    out_parent[:n], out_rule[:n], out_expanded[:n] = parent, rule, expanded
    out_ent_node[:ne], out_ent_pair[:ne], out_ent_count[:ne] = ent_node, ent_pair, ent_count
    first, sibling = _children(parent)
    queue_out = np.empty(out_parent.shape[0], dtype=np.int64)  # the aliases, then the copies
    queue_src = np.empty(queue_out.shape[0], dtype=np.int64)
    head = tail = 0
    for x in range(n):
        if alias[x] >= 0 and has[x]:
            queue_out[tail], queue_src[tail] = x, alias[x]
            tail += 1
    nodes, ents = n, ne
    while head < tail:
        x, src = queue_out[head], queue_src[head]
        head += 1
        out_expanded[x] = 1
        for e in range(ent_first[src], ent_first[src] + ent_num[src]):
            out_ent_node[ents], out_ent_pair[ents], out_ent_count[ents] = x, ent_pair[e], ent_count[e]
            pair_count[ent_pair[e]] += ent_count[e]
            ents += 1
        c = first[src]
        while c >= 0:
            if has[c]:
                out_parent[nodes], out_rule[nodes], out_expanded[nodes] = x, rule[c], 0
                queue_out[tail], queue_src[tail] = nodes, alias[c] if alias[c] >= 0 else c
                tail += 1
                nodes += 1
            c = sibling[c]
    return nodes, ents
