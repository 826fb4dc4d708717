"""Why optbb's Rashomon set of trees and TreeFARMS' count differ, shown on data small enough to list every tree.

``docs/rashomon.md`` ("How the counts compare with TreeFARMS") has the measurements on monk1, tic-tac-toe and COMPAS.  Three differences:

1. Splits into two leaves.  optbb (``exclude_useless=True``) keeps such a split only when it lowers the errors.
   TreeFARMS (``rashomon_ignore_trivial_extensions``, on by default) drops it only when the two leaves predict the
   same class.  With two classes and the same tie rule (a tie goes to class 1), the two rules differ on one kind of
   split only: one child is tied (k rows of each class, labelled 1), the other child predicts 0 and so does the
   parent.  The labels differ but the errors stay the same.  TreeFARMS counts these splits and optbb does not.
2. The bound.  TreeFARMS multiplies the objective of the tree its first (GOSDT) phase returns.  That phase can run
   out of work with its optimality gap still open and return a worse tree (it prints the gap only when verbose;
   the Rashomon phase then resets the status to success).  The bound, and the set, then grow.
3. Tied objectives.  TreeFARMS groups a subproblem's trees by their float32 objective.  When a leaf and a subtree of
   the same subproblem have the same objective (``regularization * N`` an integer makes this common), the group
   counts as a leaf in difference 1: beside a sibling leaf of the same label the whole group is dropped, so its
   subtrees are lost too.

Each difference is checked against two brute forces that list every tree: ``twins.trees_rashomon`` for optbb's
definition and ``members`` below for TreeFARMS' rule.  When ``treefarms`` is installed, TreeFARMS itself is run on
the same data.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from optbb.common.data import BinaryDataset
from optbb.osdt import rashomon_set

sys.path.insert(0, str(Path(__file__).resolve().parent))

from twins.trees_rashomon import rashomon_members  # noqa: E402

TOL = 1e-9

# Difference 1: six rows, three features.  The stump on x0 splits the rows (4 of class 0, 2 of class 1: 2 errors) into
# x0 = 0 (1 of each class: a tie, labelled 1, 1 error) and x0 = 1 (3 and 1: labelled 0, 1 error).  The labels differ
# and the errors stay at 2, so TreeFARMS counts the stump and optbb does not.
TIE_X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 1, 0]])
TIE_Y = np.array([0, 1, 1, 0, 0, 0])
TIE = dict(lam=0.05, epsilon=0.5, max_depth=2)

# Difference 2: TreeFARMS' first phase stops at 1 error with 4 leaves (0.1969...) and misses the optimum, 0 errors
# with 6 leaves (0.18).
GAP_X = np.array([[1, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1], [1, 0, 0, 0], [1, 1, 1, 0],
                  [1, 1, 0, 1], [1, 1, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1], [0, 1, 1, 1], [0, 1, 0, 1]])
GAP_Y = np.array([0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 1])
GAP = dict(lam=0.03, epsilon=0.5, max_depth=3)

# Difference 3: ten rows, regularization 0.1, so regularization * N = 1 and one error is worth one leaf.
COINCIDE_X = np.array([[0, 1, 1], [1, 1, 0], [1, 1, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 0], [1, 0, 1],
                       [1, 1, 0], [0, 1, 1]])
COINCIDE_Y = np.array([1, 0, 0, 0, 1, 1, 1, 1, 1, 0])
COINCIDE = dict(lam=0.1, epsilon=0.25, max_depth=3)


# -- brute force ------------------------------------------------------------------------------------------------------
def _leaf(y_rows) -> tuple[int, int]:
    """(errors, label) of a leaf: the majority class, a tie to class 1 (as optbb and TreeFARMS both do)."""
    ones = int(y_rows.sum())
    label = 1 if 2 * ones >= len(y_rows) else 0
    return (len(y_rows) - ones if label else ones), label


def every_tree(X, y, max_depth, rule):
    """Every tree with two non-empty children at each split and at most ``max_depth`` splits on a path, as
    ``(tree, errors, leaves)``.  A tree is ``("leaf", label)`` or ``(feature, zero subtree, one subtree)``.
    ``rule`` decides which splits into two leaves are kept: ``"errors"`` (the errors must drop: optbb),
    ``"labels"`` (the leaves must predict different classes: TreeFARMS), or ``None`` (all of them)."""
    X, y = np.asarray(X), np.asarray(y)

    def grow(rows, depth):
        errors, label = _leaf(y[rows])
        out = [(("leaf", label), errors, 1)]
        if depth == 0:
            return out
        for f in range(X.shape[1]):
            zero, one = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
            if not zero.size or not one.size:
                continue
            for a, ea, la in grow(zero, depth - 1):
                for b, eb, lb in grow(one, depth - 1):
                    if la == lb == 1:
                        if rule == "errors" and ea + eb >= errors:
                            continue
                        if rule == "labels" and a[1] == b[1]:
                            continue
                    out.append(((f, a, b), ea + eb, la + lb))
        return out

    return grow(np.arange(len(y)), max_depth)


def members(X, y, lam, bound, max_depth, rule="labels") -> set:
    """The trees of :func:`every_tree` whose objective ``errors / N + lam * leaves`` is within ``bound``."""
    n = len(y)
    return {t for t, e, leaves in every_tree(X, y, max_depth, rule) if e / n + lam * leaves <= bound + TOL}


def count_by_rule(X, y, lam, bound, max_depth, rule="labels") -> int:
    """The number of trees of :func:`members`, counted without listing them: each (rows, depth) subproblem keeps
    the counts of its ``(errors, leaves)`` pairs within a budget, its bound minus the sibling's optimum.  Fast
    enough for the benchmark data sets (COMPAS at depth 5 in seconds); rows are Python-int bitsets."""
    X, y = np.asarray(X), np.asarray(y)
    n = len(y)
    bits = lambda column: int("".join("1" if v else "0" for v in column[::-1]) or "0", 2)  # noqa: E731
    features, ones = [bits(X[:, j] == 1) for j in range(X.shape[1])], bits(y == 1)
    per_leaf = lam * n  # costs in errors: errors + lam * n * leaves

    def leaf(rows):
        p, t = (rows & ones).bit_count(), rows.bit_count()
        return (t - p, 1) if 2 * p >= t else (p, 0)

    best: dict = {}

    def opt(rows, depth):
        key = (rows, depth)
        if key not in best:
            value = leaf(rows)[0] + per_leaf
            for f in range(len(features)) if depth else ():
                zero, one = rows & ~features[f], rows & features[f]
                if zero and one:
                    value = min(value, opt(zero, depth - 1) + opt(one, depth - 1))
            best[key] = value
        return best[key]

    done: dict = {}

    def pairs(rows, depth, budget):
        """{(errors, leaves, label of a leaf or None): trees} of cost at most ``budget``."""
        got = done.get((rows, depth))
        if got is not None and got[0] >= budget:
            return {k: c for k, c in got[1].items() if k[0] + per_leaf * k[1] <= budget}
        errors, label = leaf(rows)
        out = {(errors, 1, label): 1} if errors + per_leaf <= budget else {}
        for f in range(len(features)) if depth else ():
            zero, one = rows & ~features[f], rows & features[f]
            if not zero or not one:
                continue
            o_zero, o_one = opt(zero, depth - 1), opt(one, depth - 1)
            if o_zero + o_one > budget:
                continue
            slack = 1e-9 * n
            left, right = pairs(zero, depth - 1, budget - o_one + slack), pairs(one, depth - 1, budget - o_zero + slack)
            for (ea, la, ta), ca in left.items():
                for (eb, lb, tb), cb in right.items():
                    if ea + eb + per_leaf * (la + lb) > budget:
                        continue
                    if la == lb == 1 and ((rule == "errors" and ea + eb >= errors) or (rule == "labels" and ta == tb)):
                        continue
                    key = (ea + eb, la + lb, None)
                    out[key] = out.get(key, 0) + ca * cb
        done[(rows, depth)] = (budget, out)
        return out

    everything = (1 << n) - 1
    return sum(pairs(everything, max_depth, (bound + TOL * max(1.0, bound)) * n).values())


def optimum(X, y, lam, max_depth) -> float:
    n = len(y)
    return min(e / n + lam * leaves for _, e, leaves in every_tree(X, y, max_depth, None))


def tie_splits(tree, X, y, rows=None) -> list:
    """The splits into two leaves of ``tree`` that do not lower the errors of their parent, as (feature, the class
    counts of each child as (zeros, ones))."""
    rows = np.arange(len(y)) if rows is None else rows
    if tree[0] == "leaf":
        return []
    f, zero, one = tree
    r0, r1 = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
    found = tie_splits(zero, X, y, r0) + tie_splits(one, X, y, r1)
    if zero[0] == one[0] == "leaf" and _leaf(y[r0])[0] + _leaf(y[r1])[0] >= _leaf(y[rows])[0]:
        counts = lambda r: (int((y[r] == 0).sum()), int((y[r] == 1).sum()))  # noqa: E731
        found.append((f, counts(r0), counts(r1)))
    return found


def same_label_pair(tree) -> bool:
    """Whether ``tree`` splits somewhere into two leaves of the same label."""
    if tree[0] == "leaf":
        return False
    _, zero, one = tree
    return zero == one or same_label_pair(zero) or same_label_pair(one)


def optbb_count(X, y, lam, max_depth, **bound) -> int:
    data = BinaryDataset(np.asarray(X, dtype=np.uint8), np.asarray(y, dtype=np.uint8),
                         [f"x{j}" for j in range(np.shape(X)[1])])
    return rashomon_set(data, lam, max_depth=max_depth, **bound).count


# -- TreeFARMS ---------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _silenced():
    """No output from TreeFARMS: its Python side prints and its C++ side writes to file descriptor 1."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def treefarms_fit(X, y, lam, max_depth, *, epsilon=0.0, bound=0.0, trivial=True):
    """TreeFARMS on ``X``, ``y``.  Its depth budget counts the leaf level, so optbb's ``max_depth`` is
    ``depth_budget - 1``.  Every key is given: its configuration is process-wide and keeps the values of the
    previous fit for keys a fit leaves out."""
    treefarms = pytest.importorskip("treefarms", reason="TreeFARMS (pip treefarms) is a benchmark-only extra")
    import pandas as pd

    config = {"regularization": lam, "rashomon_bound_multiplier": epsilon, "rashomon_bound": bound,
              "rashomon_bound_adder": 0.0, "depth_budget": max_depth + 1, "rashomon": True,
              "rashomon_ignore_trivial_extensions": trivial, "verbose": False, "worker_limit": 1, "time_limit": 0}
    frame = pd.DataFrame(np.asarray(X, dtype=int), columns=[f"x{j}" for j in range(np.shape(X)[1])])
    with _silenced():
        model = treefarms.TREEFARMS(config)
        model.fit(frame, pd.Series(np.asarray(y, dtype=int), name="class"))
    return model


def treefarms_trees(model) -> set:
    """TreeFARMS' trees in the form of :func:`every_tree` (its ``true`` branch is feature value 1)."""
    def conv(node):
        if "prediction" in node:
            return ("leaf", int(node["prediction"]))
        return (int(node["feature"]), conv(node["false"]), conv(node["true"]))

    return {conv(model[i].source) for i in range(model.get_tree_count())}


# -- 1. splits that keep the errors ---------------------------------------------------------------------------------
def test_the_rules_differ_on_tie_splits():
    X, y, lam, eps, depth = TIE_X, TIE_Y, TIE["lam"], TIE["epsilon"], TIE["max_depth"]
    best, bound, twin = rashomon_members(X, y, lam, epsilon=eps, max_depth=depth)
    assert best == pytest.approx(optimum(X, y, lam, depth), abs=1e-12)
    kept = members(X, y, lam, bound, depth, "errors")
    theirs = members(X, y, lam, bound, depth, "labels")
    everything = members(X, y, lam, bound, depth, None)

    # optbb = its definition (twin) = the errors rule; TreeFARMS' rule gives more; no rule gives more still
    assert optbb_count(X, y, lam, depth, epsilon=eps) == len(twin) == len(kept) == 3
    assert len(theirs) == 7
    assert optbb_count(X, y, lam, depth, epsilon=eps, exclude_useless=False) == len(everything) == 10
    assert kept < theirs < everything
    # every extra tree of TreeFARMS' rule has a split whose child is a tie (k of each class) beside a child of
    # the other label, and whose errors equal the parent's
    for tree in theirs - kept:
        splits = tie_splits(tree, X, y)
        assert splits, tree
        for _, zero, one in splits:
            assert zero[0] == zero[1] or one[0] == one[1], (tree, splits)
    assert (0, ("leaf", 1), ("leaf", 0)) in theirs - kept  # the stump on x0
    # the trees that only the count without a rule has split into two leaves of the same label
    for tree in everything - theirs:
        assert same_label_pair(tree), tree
    assert not any(same_label_pair(tree) for tree in theirs)


def test_treefarms_counts_the_tie_splits():
    X, y, lam, eps, depth = TIE_X, TIE_Y, TIE["lam"], TIE["epsilon"], TIE["max_depth"]
    bound = (1 + eps) * optimum(X, y, lam, depth)
    model = treefarms_fit(X, y, lam, depth, epsilon=eps)
    assert model.get_tree_count() == 7
    assert treefarms_trees(model) == members(X, y, lam, bound, depth, "labels")
    # without its trivial-extension rule it counts every tree, as optbb does with exclude_useless=False
    model = treefarms_fit(X, y, lam, depth, epsilon=eps, trivial=False)
    assert treefarms_trees(model) == members(X, y, lam, bound, depth, None)
    assert model.get_tree_count() == optbb_count(X, y, lam, depth, epsilon=eps, exclude_useless=False) == 10


def _random_cases():
    rng = np.random.default_rng(20261127)
    cases = []
    while len(cases) < 16:
        n, m = int(rng.integers(6, 13)), int(rng.integers(2, 5))
        X, y = rng.integers(0, 2, size=(n, m)), rng.integers(0, 2, size=n)
        if y.min() == y.max():
            continue
        lam = float(rng.choice([0.015, 0.03, 0.045, 0.07]))  # regularization * N is never an integer here
        cases.append((X, y, lam, float(rng.choice([0.25, 0.5, 1.0])), int(rng.integers(1, 4))))
    return cases


def _bound_between_objectives(X, y, lam, eps, depth) -> float:
    """A bound just above ``(1 + eps) * optimum``, halfway to the next objective a tree has: no tree lies on it,
    so float32 rounding (TreeFARMS) cannot move a tree in or out."""
    n = len(y)
    objectives = sorted({e / n + lam * leaves for _, e, leaves in every_tree(X, y, depth, None)})
    target = (1 + eps) * objectives[0]
    above = [o for o in objectives if o > target + 1e-7]
    return (target + above[0]) / 2 if above else target + 0.01


def test_treefarms_follows_the_labels_rule_on_random_data():
    """With a bound that no tree sits on and no two objectives that coincide, TreeFARMS lists exactly the trees of
    the labels rule, and optbb counts exactly the trees of the errors rule, on every case."""
    differing = 0
    for X, y, lam, eps, depth in _random_cases():
        bound = _bound_between_objectives(X, y, lam, eps, depth)
        ours = members(X, y, lam, bound, depth, "errors")
        assert optbb_count(X, y, lam, depth, bound=bound) == len(ours)
        model = treefarms_fit(X, y, lam, depth, bound=bound)
        theirs = treefarms_trees(model)
        assert model.get_tree_count() == len(theirs)
        assert theirs == members(X, y, lam, bound, depth, "labels")
        assert ours <= theirs
        differing += ours != theirs
    assert differing >= 2  # the cases do include tie splits (3 of the 16)


def test_count_by_rule_matches_the_listing():
    cases = [(TIE_X, TIE_Y, TIE), (GAP_X, GAP_Y, GAP), (COINCIDE_X, COINCIDE_Y, COINCIDE)]
    cases += [(X, y, dict(lam=lam, epsilon=eps, max_depth=d)) for X, y, lam, eps, d in _random_cases()]
    for X, y, case in cases:
        lam, depth = case["lam"], case["max_depth"]
        for bound in ((1 + case["epsilon"]) * optimum(X, y, lam, depth), 10.0):
            for rule in ("labels", "errors", None):
                assert count_by_rule(X, y, lam, bound, depth, rule) == len(members(X, y, lam, bound, depth, rule))


# -- 2. the bound of an unfinished first phase ----------------------------------------------------------------------
def test_treefarms_bound_from_an_unfinished_first_phase():
    X, y, lam, eps, depth = GAP_X, GAP_Y, GAP["lam"], GAP["epsilon"], GAP["max_depth"]
    n = len(y)
    best = optimum(X, y, lam, depth)
    assert best == pytest.approx(0 / n + 6 * lam)  # 0 errors, 6 leaves
    exact = (1 + eps) * best
    assert optbb_count(X, y, lam, depth, epsilon=eps) == len(members(X, y, lam, exact, depth, "errors")) == 24
    assert len(members(X, y, lam, exact, depth, "labels")) == 26
    # TreeFARMS' bound multiplies the objective of the tree its first phase stops at (1 error, 4 leaves)
    stopped = (1 + eps) * (1 / n + 4 * lam)
    assert len(members(X, y, lam, stopped, depth, "labels")) == 73
    assert optbb_count(X, y, lam, depth, bound=stopped) == len(members(X, y, lam, stopped, depth, "errors")) == 70

    assert treefarms_fit(X, y, lam, depth, epsilon=eps).get_tree_count() == 73
    # given the bound itself, it skips the first phase and agrees with the labels rule at the true bound
    assert treefarms_fit(X, y, lam, depth, bound=exact).get_tree_count() == 26


# -- 3. a leaf and a subtree of the same objective ------------------------------------------------------------------
def test_treefarms_loses_trees_when_a_leaf_and_a_subtree_tie():
    X, y, lam, eps, depth = COINCIDE_X, COINCIDE_Y, COINCIDE["lam"], COINCIDE["epsilon"], COINCIDE["max_depth"]
    bound = (1 + eps) * optimum(X, y, lam, depth)
    ours, theirs = members(X, y, lam, bound, depth, "errors"), members(X, y, lam, bound, depth, "labels")
    twin = rashomon_members(X, y, lam, epsilon=eps, max_depth=depth)[2]
    assert optbb_count(X, y, lam, depth, epsilon=eps) == len(twin) == 5
    assert ours == theirs and len(ours) == 5
    # the four trees of 3 leaves put a leaf of class 1 beside a two-leaf subtree with the objective of a leaf on the
    # same rows (x0 = 1: 3 rows of each class, a leaf labelled 1 with 3 errors, a split on x1 with 2 errors:
    # 0.3 + 0.1 = 0.2 + 0.2).  TreeFARMS files the subtree with that leaf, and the leaf beside a sibling leaf of the
    # same label is a trivial extension, so the subtree goes with it.
    model = treefarms_fit(X, y, lam, depth, epsilon=eps)
    assert treefarms_trees(model) == {("leaf", 1)}
    # a regularization a hair away breaks the tie of the objectives and TreeFARMS finds all five
    near = 0.1003
    near_bound = (1 + eps) * optimum(X, y, near, depth)
    model = treefarms_fit(X, y, near, depth, epsilon=eps)
    assert treefarms_trees(model) == members(X, y, near, near_bound, depth, "labels")
    assert model.get_tree_count() == 5
