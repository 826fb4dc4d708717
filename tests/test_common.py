"""The shared layer: bitset kernels, readers, mining, equivalent points, heap, hash table."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from optbb.common import bitset as B
from optbb.common.data import from_arrays, read_corels
from optbb.common.equivalence import minority_vector
from optbb.common import growth
from optbb.common.growth import GrowthStopped, grow
from optbb.common.hashtable import ht_find, ht_put, new_table, rehash
from optbb.common.mining import mine_antecedents
from optbb.common.queue import heap_pop, heap_push, new_heap

bits = st.integers(1, 300).flatmap(lambda n: arrays(np.uint8, (3, n), elements=st.integers(0, 1)))


@settings(max_examples=200, deadline=None)
@given(bits)
def test_bitset_kernels_match_numpy(rows):
    a, b, c = (B.pack(r) for r in rows)
    ra, rb, rc = (r.astype(bool) for r in rows)
    n = rows.shape[1]
    assert B.popcount(a) == ra.sum()
    assert B.popcount_and(a, b) == (ra & rb).sum()
    assert B.popcount_and3(a, b, c) == (ra & rb & rc).sum()
    Y, cc = np.stack([a, b, c, a & c]), np.full(4, -1.0)
    assert B.class_popcounts(a, b, Y, 1, cc) == cc[1:].sum()
    assert cc.tolist() == [-1.0] + [float((ra & rb & r).sum()) for r in (rb, rc, ra & rc)]
    out = np.zeros_like(a)
    assert B.and_into(out, a, b) == (ra & rb).sum() and (B.unpack(out, n) == (ra & rb)).all()
    assert B.not_into(out, a, n) == (~ra).sum() and (B.unpack(out, n) == ~ra).all()
    assert B.popcount(B.ones(n)) == n


def test_pack_rows_pads_with_zeros():
    m = np.ones((2, 70), dtype=np.uint8)
    words = B.pack_rows(m)
    assert words.shape == (2, 2) and words[0, 1] == (1 << 6) - 1


def _write_corels(tmp_path, out_text, label_text, minor_text=None):
    (tmp_path / "d.out").write_bytes(out_text.encode())
    (tmp_path / "d.label").write_bytes(label_text.encode())
    minor = None
    if minor_text is not None:
        (tmp_path / "d.minor").write_bytes(minor_text.encode())
        minor = tmp_path / "d.minor"
    return read_corels(tmp_path / "d.out", tmp_path / "d.label", minor)


def test_read_corels_tolerates_crlf_trailing_spaces_and_no_final_newline(tmp_path):
    d = _write_corels(tmp_path, "{a} 1 0 1 1  \r\n{b,c} 0 0 1 0\r\n", "{no} 0 1 0 0\r\n{yes} 1 0 1 1")
    assert d.feature_names == ["a", "b,c"] and d.label_names == ("no", "yes")
    assert d.X.T.tolist() == [[1, 0, 1, 1], [0, 0, 1, 0]] and d.y.tolist() == [1, 0, 1, 1]


@pytest.mark.parametrize("out,label,match", [
    ("{a} 1 0 1\n{b} 1 0\n", "{n} 0 1 0\n{y} 1 0 1\n", "ragged"),
    ("{a} 1 0 2\n", "{n} 0 1 0\n{y} 1 0 1\n", "not 0 or 1"),
    ("{a} 1 0 1\n", "{n} 0 1 0\n", "expected 2 label lines"),
    ("{a} 1 0 1\n", "{n} 0 1\n{y} 1 0\n", "values"),
    ("{a} 1 0 1\n", "{n} 1 1 0\n{y} 1 0 1\n", "complementary"),
])
def test_read_corels_rejects_malformed_files(tmp_path, out, label, match):
    with pytest.raises(ValueError, match=match):
        _write_corels(tmp_path, out, label)


def test_minor_file_is_checked_against_the_data(tmp_path):
    out, label = "{a} 1 1 0 0\n", "{n} 1 0 1 1\n{y} 0 1 0 0\n"
    good = _write_corels(tmp_path, out, label, "{group_minority} 1 0 0 0\n")
    assert B.popcount(good.minority_bits()) == 1
    with pytest.raises(ValueError, match="minor"):
        _write_corels(tmp_path, out, label, "{group_minority} 0 0 0 0\n")


def test_minority_vector_by_hand():
    X = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]], dtype=np.uint8)
    y = np.array([1, 1, 0, 0, 1], dtype=np.uint8)
    z = minority_vector(X, y)
    assert z.tolist() == [0, 0, 1, 0, 1]  # class {0,1,2}: minority label 0; class {3,4}: tie -> flag label 1


def test_mining_support_bounds_negations_and_dedupe():
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    data = from_arrays(X, np.array([0, 1, 1, 0]), ["p", "q"])
    mined = mine_antecedents(data, max_card=2, min_support=0.25, negations=True)
    names = mined.data.feature_names
    assert names[:4] == ["p", "q", "not p", "not q"]
    assert "p,q" in names and "p,not p" not in names
    assert mined.transform(X).shape == (4, len(names))
    cols = {tuple(c) for c in mined.data.X.T}
    assert len(cols) == len(names)  # identical bit vectors removed
    strict = mine_antecedents(data, max_card=2, min_support=0.5, negations=False)
    assert strict.data.feature_names == ["p", "q"]  # support exactly 0.5 kept (inclusive bounds)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_mining_warm_up_compiles_the_kernel_that_mining_runs():
    """``load_kernels`` warms the specialisation of ``mine_chunk`` that mining then calls: an omitted argument is
    a Numba type of its own, and the warm-up once left ``w`` out, compiling the kernel a second time (1.2-1.4 s of
    every CORELS and FRL cold start)."""
    from numba import types
    from optbb.common import mining

    mining.load_kernels()
    mine_antecedents(from_arrays(np.array([[1, 0], [0, 1], [1, 1]]), np.array([1, 0, 1])), max_card=2)
    omitted = [sig for sig in mining.mine_chunk.signatures if any(isinstance(t, types.Omitted) for t in sig)]
    assert omitted == []


def test_heap_orders_by_key_then_insertion():
    n = 50
    heap = new_heap(n)
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 5, n).astype(float)
    size = 0
    for i, k in enumerate(keys):
        size = heap_push(heap, size, k, i, i)
    popped = []
    while size:
        it, k, size = heap_pop(heap, size)
        popped.append(it)
    assert popped == sorted(range(n), key=lambda i: (keys[i], i))


def test_hashtable_find_put_rehash():
    table = new_table(16, 2)
    keys = [np.array([i, i * 7], dtype=np.uint64) for i in range(6)]
    from optbb.common.bitset import hash_words
    for i, k in enumerate(keys):
        slot = ht_find(table, k, hash_words(k))
        assert slot < 0
        ht_put(table, slot, k, hash_words(k), float(i), i)
    table = rehash(table, 64)
    for i, k in enumerate(keys):
        slot = ht_find(table, k, hash_words(k))
        assert slot >= 0 and table.ival[slot] == i


def _filled_table(n_keys: int):
    from optbb.common.bitset import hash_words
    table = new_table(4 * n_keys, 2)
    keys = [np.array([i, i * 7 + 1], dtype=np.uint64) for i in range(n_keys)]
    for i, k in enumerate(keys):
        ht_put(table, ht_find(table, k, hash_words(k)), k, hash_words(k), float(i), i)
    return table, keys


@pytest.mark.parametrize("shape", [(1000,), (1000, 3)])
def test_grow_copies_in_slices_and_zero_fills(monkeypatch, shape):
    monkeypatch.setattr(growth, "SLICE_BYTES", 64)  # many slices
    rng = np.random.default_rng(0)
    a = rng.integers(1, 1 << 40, size=shape).astype(np.uint64)
    before = a.copy()
    b = grow(a, 2500)
    assert b.shape == (2500,) + shape[1:] and b.dtype == a.dtype
    assert (b[:1000] == a).all() and not b[1000:].any()
    assert (a == before).all()


def test_grow_and_rehash_stop_between_slices_and_leave_inputs_untouched(monkeypatch):
    """A growth abandoned half-way raises GrowthStopped and leaves what it was growing as it was."""
    monkeypatch.setattr(growth, "SLICE_BYTES", 64)
    calls = []

    def stop_after(k):
        calls.clear()
        return lambda: calls.append(1) or len(calls) > k

    a = np.arange(1000, dtype=np.int64)
    with pytest.raises(GrowthStopped):
        grow(a, 2000, stop_after(3))
    assert len(calls) == 4 and (a == np.arange(1000)).all()
    with pytest.raises(GrowthStopped):
        grow(a, 2000, lambda: True)  # checked before the first slice

    table, keys = _filled_table(200)
    snapshot = [t.copy() for t in table]
    with pytest.raises(GrowthStopped):
        rehash(table, 2048, stop_after(5))
    assert all((t == s).all() for t, s in zip(table, snapshot))
    grown = rehash(table, 2048, lambda: False)
    from optbb.common.bitset import hash_words
    for i, k in enumerate(keys):
        slot = ht_find(grown, k, hash_words(k))
        assert slot >= 0 and grown.ival[slot] == i


def test_trace_samples_are_spaced_by_their_cost():
    """A costly lower bound is sampled rarely enough to take at most ``max_share`` of the search time."""
    import time

    from optbb.common.trace import TraceRecorder

    tr = TraceRecorder(interval=0.05, max_share=0.05)
    assert tr.due(0.0)
    assert tr.sample(0.0, 1.0, lambda: 0.5, 10, 1) == 0.5
    assert not tr.due(0.049) and tr.due(0.05)  # a cheap bound: the interval alone
    tr.sample(1.0, 0.9, lambda: time.sleep(0.02) or 0.6, 10, 2)  # costs >= 0.02 s: next sample >= 0.4 s later
    assert not tr.due(1.3) and tr.due(31.0)
    assert tr.frame()["lower_bound"].tolist() == [0.5, 0.6] and tr.last_lower_bound() == 0.6


def test_weighted_counts_match_numpy():
    from optbb.common.bitset import pack, weight_and, weight_of

    rng = np.random.default_rng(3)
    for n in (1, 63, 64, 65, 200):
        a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
        w = rng.random(n) * 10
        assert np.isclose(weight_of(pack(a), w), w[a == 1].sum())
        assert np.isclose(weight_and(pack(a), pack(b), w), w[(a & b) == 1].sum())


def test_combined_weights_balanced_dict_and_errors():
    from optbb.common.weights import combined_weights

    y = np.array([0, 0, 0, 1])
    classes = np.array([0, 1])
    w = combined_weights(y, None, "balanced", classes, "Est")
    assert np.allclose(w, [4 / 6, 4 / 6, 4 / 6, 2.0])
    assert np.allclose(combined_weights(y, np.array([1.0, 1, 1, 2]), {1: 3}, classes, "Est"), [1, 1, 1, 6])
    assert combined_weights(y, None, None, classes, "Est") is None
    with pytest.raises(ValueError, match="class_weight names label 7"):  # and gives none to 0 and 1
        combined_weights(y, None, {7: 1.0}, classes, "Est")
    assert np.allclose(combined_weights(y, None, {0: 1, 1: 3, 7: 1.0}, classes, "Est"), [1, 1, 1, 3])  # 7: not in y
    with pytest.raises(ValueError, match="only one class"):
        combined_weights(y, np.array([1.0, 1, 1, 0]), None, classes, "Est")


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200])
def test_pack_columns_is_pack_rows_of_the_transpose(n):
    from optbb.common.bitset import pack_columns, pack_rows

    rng = np.random.default_rng(n)
    X = (rng.random((n, 7)) < 0.5).astype(np.uint8)
    assert np.array_equal(pack_columns(X), pack_rows(X.T))
    assert np.array_equal(pack_columns(X.astype(bool)), pack_rows(X.T))
    assert np.array_equal(pack_columns(3 * X.astype(np.int64)), pack_rows(X.T))  # nonzero is 1
    assert np.array_equal(pack_columns(np.asfortranarray(X)), pack_rows(X.T))
    mask = rng.random(n) < 0.5
    assert np.array_equal(pack_columns(X, mask), pack_rows(X[mask].T))  # the rows of a mask, in their order
    order = rng.permutation(n)[: n // 2]
    assert np.array_equal(pack_columns(X, order), pack_rows(X[order].T))  # the rows given, in that order
