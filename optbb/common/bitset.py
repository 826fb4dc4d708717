"""Packed ``uint64`` bitsets and the Numba kernels every solver is built on.

A bitset over ``n`` items is a 1-D ``uint64`` array of ``n_words(n)`` words; item ``i`` is bit ``i % 64`` of
word ``i // 64``.  Rows of a bit matrix are padded to whole words and the padding bits are always zero, so
popcounts never need a mask.  Kernels that produce a complement (``not_into``) re-apply the tail mask.
"""
from __future__ import annotations

import time

import numpy as np
from .jit import njit

WORD_BITS = 64

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


def n_words(n_items: int) -> int:
    """Number of 64-bit words needed to hold ``n_items`` bits."""
    return (int(n_items) + WORD_BITS - 1) // WORD_BITS


@njit(cache=True, inline="always")
def popcount64(x):
    """Population count of one word (SWAR; LLVM lowers it to ``popcnt`` where available)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True)
def popcount(a):
    """Number of set bits of bitset ``a``."""
    c = 0
    for i in range(a.shape[0]):
        c += popcount64(a[i])
    return c


@njit(cache=True)
def popcount_and(a, b):
    """``popcount(a & b)`` without materialising ``a & b``."""
    c = 0
    for i in range(a.shape[0]):
        c += popcount64(a[i] & b[i])
    return c


@njit(cache=True)
def popcount_and3(a, b, c):
    """``popcount(a & b & c)`` without materialising it."""
    n = 0
    for i in range(a.shape[0]):
        n += popcount64(a[i] & b[i] & c[i])
    return n


@njit(cache=True, inline="always")
def class_popcounts(a, b, Y, first, cc):
    """``cc[j] = popcount(a & b & Y[j])`` for each class ``j >= first`` (``Y``: one bitset per class); returns their
    sum."""
    total = 0
    for j in range(first, Y.shape[0]):
        yj = Y[j]
        cj = 0
        for i in range(a.shape[0]):
            cj += popcount64(a[i] & b[i] & yj[i])
        cc[j] = cj
        total += cj
    return total


@njit(cache=True)
def weight_of(a, w):
    """Sum of ``w[i]`` over the set bits ``i`` of ``a``: the weighted :func:`popcount` (sample weights)."""
    total = 0.0
    for k in range(a.shape[0]):
        word = a[k]
        while word:
            total += w[k * 64 + trailing_zeros(word)]
            word &= word - np.uint64(1)
    return total


@njit(cache=True)
def weight_and(a, b, w):
    """``weight_of(a & b, w)`` without materialising ``a & b``."""
    total = 0.0
    for k in range(a.shape[0]):
        word = a[k] & b[k]
        while word:
            total += w[k * 64 + trailing_zeros(word)]
            word &= word - np.uint64(1)
    return total


@njit(cache=True, inline="always")
def copy_into(out, a, n):
    """``out[:n] = a[:n]`` for any 1-D arrays, as a loop: a slice assignment between arrays compiles Numba's
    shape-mismatch message (its string formatting: about a second of a fresh process's first call)."""
    for i in range(n):
        out[i] = a[i]


@njit(cache=True)
def weight_words_and(a, b, word_w):
    """``weight_of(a & b, w)`` when every sample of word ``k`` weighs ``word_w[k]`` (samples laid out by weight, each
    weight's run starting on a word boundary): one popcount and one multiply-add per word."""
    total = 0.0
    for k in range(a.shape[0]):
        total += word_w[k] * popcount64(a[k] & b[k])
    return total


@njit(cache=True)
def and_into(out, a, b):
    """``out = a & b``; returns ``popcount(out)``."""
    c = 0
    for i in range(a.shape[0]):
        out[i] = a[i] & b[i]
        c += popcount64(out[i])
    return c


@njit(cache=True)
def not_into(out, a, n_items):
    """``out = ~a`` restricted to the first ``n_items`` bits (padding stays zero); returns ``popcount(out)``."""
    c = 0
    nw = a.shape[0]
    for i in range(nw):
        out[i] = ~a[i]
    rem = n_items - (nw - 1) * 64
    if nw > 0 and rem < 64:
        out[nw - 1] &= (np.uint64(1) << np.uint64(rem)) - np.uint64(1)
    for i in range(nw):
        c += popcount64(out[i])
    return c


@njit(cache=True)
def ones(n_items):
    """Bitset with the first ``n_items`` bits set."""
    nw = (n_items + 63) // 64
    out = np.zeros(nw, dtype=np.uint64)
    not_into(out, out.copy(), n_items)
    return out


@njit(cache=True, inline="always")
def trailing_zeros(w):
    """Index of the lowest set bit of a non-zero word."""
    return popcount64((w & (~w + np.uint64(1))) - np.uint64(1))


@njit(cache=True)
def hash_words(a):
    """64-bit FNV-1a style hash of a word array (for hash-table keys)."""
    h = np.uint64(0xCBF29CE484222325)
    for i in range(a.shape[0]):
        h ^= a[i]
        h *= np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    return h


def pack_rows(bits: np.ndarray) -> np.ndarray:
    """Pack a 2-D 0/1 array (rows = bitsets over its columns) into ``uint64`` words, padding with zeros."""
    bits = np.ascontiguousarray(np.asarray(bits, dtype=bool))
    if bits.ndim != 2:
        raise ValueError(f"pack_rows expects a 2-D array, got shape {bits.shape}")
    n_rows, n_cols = bits.shape
    nw = n_words(n_cols)
    padded = np.zeros((n_rows, nw * WORD_BITS), dtype=bool)
    padded[:, :n_cols] = bits
    as_bytes = np.packbits(padded, axis=1, bitorder="little")
    return np.ascontiguousarray(as_bytes).view("<u8").astype(np.uint64).reshape(n_rows, nw)


def pack_columns(X: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``pack_rows(X[rows].T)`` (one bitset per column over the rows of ``X``, or over the ``rows`` given, a boolean
    mask or indices, in their order; nonzero = 1) without transposing ``X`` or copying its rows: a transpose of a
    tall matrix is a strided copy (1.1 s for 600,000 x 210, against 0.04 s packed row by row), and a copy of a
    class's rows of 1,000,000 x 210 took 0.04 s (more in a fresh process, whose pages are new)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"pack_columns expects a 2-D array, got shape {X.shape}")
    X = np.ascontiguousarray(X) if X.dtype == np.uint8 else np.ascontiguousarray(X != 0).view(np.uint8)
    if rows is None:
        idx = np.arange(X.shape[0], dtype=np.int64)
    else:
        rows = np.asarray(rows)
        idx = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64)
    out = np.zeros((X.shape[1], n_words(idx.shape[0])), dtype=np.uint64)
    _pack_columns(X, idx, out)
    return out


def pack_columns_load() -> float:
    """Compile (or load from Numba's cache) the kernel of :func:`pack_columns` if this process has not yet, and
    return the seconds that took (0 once done): a search that packs its data after its clock started keeps them
    off the clock, as the driver keeps its kernels' loading (compiling it took 1.1 s on a loaded machine)."""
    if not getattr(_pack_columns, "signatures", True):
        t0 = time.perf_counter()
        _pack_columns(np.zeros((1, 1), np.uint8), np.zeros(1, np.int64), np.zeros((1, 1), np.uint64))
        return time.perf_counter() - t0
    return 0.0


@njit(cache=True)
def _pack_columns(X, idx, out):
    n, m = idx.shape[0], X.shape[1]
    acc = np.zeros(m, dtype=np.uint64)
    for w in range(out.shape[1]):
        acc[:] = 0
        r0 = w * 64
        for i in range(r0, min(n, r0 + 64)):
            bit = np.uint64(1) << np.uint64(i - r0)
            r = idx[i]
            for j in range(m):
                if X[r, j] != 0:
                    acc[j] |= bit
        for j in range(m):
            out[j, w] = acc[j]


def pack(bits: np.ndarray) -> np.ndarray:
    """Pack a 1-D 0/1 vector into a bitset."""
    return pack_rows(np.asarray(bits).reshape(1, -1))[0]


def unpack_rows(words: np.ndarray, n_items: int) -> np.ndarray:
    """Inverse of :func:`pack_rows`: a ``(rows, n_items)`` uint8 array of 0/1."""
    words = np.ascontiguousarray(np.atleast_2d(words).astype("<u8"))
    as_bytes = words.view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :n_items]


def unpack(words: np.ndarray, n_items: int) -> np.ndarray:
    """Inverse of :func:`pack`."""
    return unpack_rows(np.asarray(words).reshape(1, -1), n_items)[0]
