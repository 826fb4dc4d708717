"""The depth <= 2 pair-count solver and the dp search's depth <= 1 solver against a brute force over every tree of
that depth (tests/twins)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import class_bitsets
from optbb.common.bitset import ones, pack, pack_rows
from optbb.osdt.dp import depth2 as D
from optbb.osdt.dp import kernel as DP
from optbb.osdt.dp.engine import DPEngine, search_dataset
from twins import brute_depth2 as B

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, k_choices=(2, 3), dyadic=True):
    """Random 0/1 data, labels in 0..k-1, a random support and lam_n (dyadic, so cost ties are exact)."""
    k = draw(st.sampled_from(k_choices))
    n = draw(st.integers(1, 80))
    m = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dens = draw(st.sampled_from([0.1, 0.5, 0.9]))
    X = (rng.random((n, m)) < dens).astype(np.uint8)
    if draw(st.booleans()):  # copy or complement a column, so features coincide on the support
        X[:, rng.integers(m)] = X[:, rng.integers(m)] ^ rng.integers(2)
    y = rng.integers(0, k, n).astype(np.int64)
    if draw(st.booleans()):  # labels that depend on the features, so deep trees pay off
        y = ((X[:, 0] ^ X[:, -1]) + rng.integers(0, 2, n) * (rng.random(n) < 0.2)) % k
    mask = rng.random(n) < draw(st.sampled_from([0.3, 0.7, 1.0]))
    lam_n = draw(st.integers(0, 24)) / 4 if dyadic else draw(st.floats(0, 6, allow_nan=False))
    return X, y.astype(np.int64), mask, k, lam_n


def _bits(X, y, mask, k):
    return (np.ascontiguousarray(pack_rows(X.T)), class_bitsets(y, k), np.ascontiguousarray(pack(mask)))


def _depth1(X, y, mask, lam_n):
    """The dp search's depth <= 1 solver on the samples of ``mask`` (not empty): ``(cost, feature)``, -1 for the
    leaf.  Its data are those samples alone: the search's equivalent-points bitsets hold for supports made of whole
    groups of identical rows, which every support the search reaches is, and an arbitrary mask is not."""
    data = DPEngine(search_dataset(X[mask], y[mask]), 1.0).data
    k = data.ybits.shape[0]  # one row per class: unweighted data is one weight layer
    S, cnt, tmp = ones(int(mask.sum())), np.zeros(k, np.int64), np.zeros(k, np.int64)
    n, z = DP.support_counts(S, data, cnt)
    return DP.solve_depth1(S, n, cnt, z, data, float(lam_n), tmp)


def _check_tree(X, y, mask, k, lam_n, res, max_depth):
    cost, L, f, gl, gr = res
    tree = (int(f), int(gl), int(gr))
    assert B.n_leaves(tree) == L
    if max_depth < 2:
        assert gl == -1 and gr == -1
    e = B.tree_errors(X, y, mask, k, tree)
    assert cost == pytest.approx(e + lam_n * L, abs=1e-9)
    if f >= 0:  # every split has two non-empty sides on the support it splits
        assert 0 < np.sum(mask & (X[:, f] == 1)) < mask.sum()
        for side, g in ((0, gl), (1, gr)):
            if g >= 0:
                rows = mask & (X[:, f] == side)
                assert 0 < np.sum(rows & (X[:, g] == 1)) < rows.sum()


@SETTINGS
@given(problems())
def test_depth2_matches_brute_force(p):
    X, y, mask, k, lam_n = p
    res = D.depth2(*_bits(X, y, mask, k), lam_n)
    cost, leaves = B.best(X, y, mask, k, lam_n, 2)
    assert res[0] == pytest.approx(cost, abs=1e-9)
    assert res[1] == leaves  # fewest leaves among the optimal trees
    _check_tree(X, y, mask, k, lam_n, res, 2)


@SETTINGS
@given(problems())
def test_depth1_matches_brute_force(p):
    X, y, mask, k, lam_n = p
    assume(mask.any())
    cost, f = _depth1(X, y, mask, lam_n)
    assert cost == pytest.approx(B.best(X, y, mask, k, lam_n, 1)[0], abs=1e-9)
    if f >= 0:  # a stump on a feature that splits the support, at the cost returned
        assert 0 < np.sum(mask & (X[:, f] == 1)) < mask.sum()
        assert cost == pytest.approx(B.tree_errors(X, y, mask, k, (f, -1, -1)) + 2 * lam_n, abs=1e-9)
    else:
        assert cost == pytest.approx(B.tree_errors(X, y, mask, k, (-1, -1, -1)) + lam_n, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(problems(dyadic=False))
def test_depth2_cost_any_lambda(p):
    X, y, mask, k, lam_n = p
    res = D.depth2(*_bits(X, y, mask, k), lam_n)
    assert res[0] == pytest.approx(B.best(X, y, mask, k, lam_n, 2)[0], abs=1e-9)
    _check_tree(X, y, mask, k, lam_n, res, 2)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_table_rows_give_min_errors_per_leaf_budget(p):
    X, y, mask, k, _ = p
    table = D.depth2_table(*D.pair_counts(*_bits(X, y, mask, k)))
    for L in range(1, 5):
        rows = [int(table[j, 0]) for j in range(1, L + 1) if table[j, 0] >= 0]
        assert min(rows) == B.min_errors_at_most(X, y, mask, k, L)
        if table[L, 0] >= 0:
            tree = tuple(int(v) for v in table[L, 1:])
            assert B.n_leaves(tree) == L
            assert B.tree_errors(X, y, mask, k, tree) == table[L, 0]


@settings(max_examples=200, deadline=None)
@given(problems())
def test_pair_counts_and_sibling_subtraction(p):
    X, y, mask, k, lam_n = p
    xb, yb, sb = _bits(X, y, mask, k)
    counts, totals = D.pair_counts(xb, yb, sb)
    onehot = (y[:, None] == np.arange(k)[None, :]) & mask[:, None]
    Xi = X.astype(np.int64)
    np.testing.assert_array_equal(totals, onehot.sum(axis=0))
    np.testing.assert_array_equal(counts, np.einsum("nc,nf,ng->cfg", onehot.astype(np.int64), Xi, Xi))
    for mode in (D.WORDS, D.GATHER):  # both ways of restricting the data to the support
        c2, t2 = D.pair_counts(xb, yb, sb, mode)
        np.testing.assert_array_equal(c2, counts)
        np.testing.assert_array_equal(t2, totals)
    # the child x_0 = 1 and its sibling x_0 = 0, the latter by subtraction only
    child = mask & (X[:, 0] == 1)
    cc, ct = D.pair_counts(xb, yb, np.ascontiguousarray(pack(child)))
    sc, stot = counts - cc, totals - ct
    dc, dt = D.pair_counts(xb, yb, np.ascontiguousarray(pack(mask & (X[:, 0] == 0))))
    np.testing.assert_array_equal(sc, dc)
    np.testing.assert_array_equal(stot, dt)
    assert D.depth2_from_counts(sc, stot, lam_n) == D.depth2(xb, yb, np.ascontiguousarray(pack(mask & (X[:, 0] == 0))),
                                                            lam_n)
    f = int(X.shape[1] - 1)
    lc, lt, rc, rt = (np.full_like(counts, 7), np.full_like(totals, 7), np.full_like(counts, 7),
                      np.full_like(totals, 7))  # filled, whatever they held before
    D.split_counts_into(xb, yb, sb, counts, totals, f, lc, lt, rc, rt)
    for side, (tc, tt) in ((0, (lc, lt)), (1, (rc, rt))):
        ec, et = D.pair_counts(xb, yb, np.ascontiguousarray(pack(mask & (X[:, f] == side))))
        np.testing.assert_array_equal(tc, ec)
        np.testing.assert_array_equal(tt, et)
    # a similar support: drop some rows, add others, counting only the difference
    other = np.random.default_rng(int(counts.sum())).random(X.shape[0]) < 0.5
    target = (mask & ~(other & mask)) | (other & ~mask)
    uc, ut = counts.copy(), totals.copy()
    D.accumulate_pair_counts(uc, ut, xb, yb, np.ascontiguousarray(pack(other & mask)), -1)
    D.accumulate_pair_counts(uc, ut, xb, yb, np.ascontiguousarray(pack(other & ~mask)), 1)
    ec, et = D.pair_counts(xb, yb, np.ascontiguousarray(pack(target)))
    np.testing.assert_array_equal(uc, ec)
    np.testing.assert_array_equal(ut, et)


def test_kernel_label_rule_matches_the_models():
    """The label and errors of a leaf in the kernels (``majority_class``, ties to the largest label) are those the
    returned trees carry (``leaf_stats``)."""
    from optbb.common.bounds import majority_class
    from optbb.osdt.support import leaf_stats

    rng = np.random.default_rng(3)
    for _ in range(200):
        n, k = int(rng.integers(1, 12)), int(rng.integers(2, 4))
        X = rng.integers(0, 2, (n, 2)).astype(np.uint8)
        y = rng.integers(0, k, n)
        label, _, _, _, errors = leaf_stats(X, y, [()], k)[0]
        counts = np.bincount(y, minlength=k).astype(np.int64)
        assert majority_class(counts) == (label, errors)
    for counts, label in (([2, 2], 1), ([3, 3, 1], 1), ([3, 3, 3], 2), ([4, 1, 3], 0)):
        assert majority_class(np.array(counts, dtype=np.int64))[0] == label


def test_constant_features_and_degenerate_supports():
    X = np.array([[0, 1, 1], [0, 1, 0], [0, 1, 1], [0, 1, 0]], dtype=np.uint8)  # features 0, 1 constant
    y = np.array([1, 0, 1, 0])
    xb, yb = np.ascontiguousarray(pack_rows(X.T)), class_bitsets(y, 2)
    full = np.ascontiguousarray(pack(np.ones(4, bool)))
    assert D.depth2(xb, yb, full, 0.0) == (0.0, 2, 2, -1, -1)
    assert _depth1(X, y, np.ones(4, bool), 0.5) == (1.0, 2)
    assert D.depth2(xb, yb, full, 2.5) == (4.5, 1, -1, -1, -1)  # 2 errors + one leaf beats 0 errors + two
    const = np.ascontiguousarray(pack(np.array([1, 0, 1, 0], bool)))  # feature 2 is constant here too
    assert D.depth2(xb, yb, const, 0.0) == (0.0, 1, -1, -1, -1)
    mixed = np.ascontiguousarray(pack(np.array([1, 1, 0, 0], bool)))  # only feature 2 can split, no child split
    assert D.depth2(xb, yb, mixed, 0.0) == (0.0, 2, 2, -1, -1)
    empty = np.zeros_like(full)
    assert D.depth2(xb, yb, empty, 1.5) == (1.5, 1, -1, -1, -1)


def test_many_words_and_sparse_supports():
    rng = np.random.default_rng(11)
    n, m, k = 300, 6, 3
    X = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = ((X[:, 1] + 2 * X[:, 4]) % 3 + (rng.random(n) < 0.1)) % 3
    for frac in (1.0, 0.5, 0.05):
        mask = rng.random(n) < frac
        mask[rng.integers(n)] = True
        for lam_n in (0.0, 1.0, 7.25):
            res = D.depth2(*_bits(X, y, mask, k), lam_n)
            cost, leaves = B.best(X, y, mask, k, lam_n, 2)
            assert res[0] == pytest.approx(cost) and res[1] == leaves


def test_agrees_with_the_leaf_set_search_at_depth_two():
    from optbb.common.data import from_arrays
    from optbb.osdt import solve

    rng = np.random.default_rng(5)
    for trial in range(12):
        n, m = int(rng.integers(8, 40)), int(rng.integers(2, 5))
        X = rng.integers(0, 2, (n, m)).astype(np.uint8)
        y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.15)).astype(np.uint8)
        if y.min() == y.max():
            continue
        lam = float(rng.choice([0.01, 0.03, 0.08]))
        res = solve(from_arrays(X, y), lam, max_depth=2, time_limit=30)
        mine = D.depth2(*_bits(X, y.astype(np.int64), np.ones(n, bool), 2), lam * n)
        assert mine[0] / n == pytest.approx(res.objective, abs=1e-9)


def test_depth3_from_depth2_children_reproduces_the_published_vote_optimum():
    """A root split over two depth-2 subtrees (tables by split_counts_into) gives the published depth-3 optimum."""
    from conftest import DATA
    from optbb.datasets.dl import DL_OPTIMA, load_dl

    data = load_dl(DATA / "dl" / "vote.txt.gz")
    xb, yb, s = np.ascontiguousarray(data.bits), class_bitsets(data.y.astype(np.int64), 2), ones(data.n_samples)
    counts, totals = D.pair_counts(xb, yb, s)
    best = D.depth2_from_counts(counts, totals, 0.0)[0]
    assert best == DL_OPTIMA["vote"][0]
    bufs = (np.empty_like(counts), np.empty_like(totals), np.empty_like(counts), np.empty_like(totals))
    for f in range(data.n_features):
        D.split_counts_into(xb, yb, s, counts, totals, f, *bufs)
        if bufs[1].sum() and bufs[3].sum():
            left = D.depth2_from_counts(bufs[0], bufs[1], 0.0)[0]
            best = min(best, left + D.depth2_from_counts(bufs[2], bufs[3], 0.0)[0])
    assert best == DL_OPTIMA["vote"][1] == 12
