"""The data of an FRL/softFRL search: the samples split by class and packed as bitsets (per-word or per-sample
weights), with the level-0 and level-1 count caches (:class:`SearchData`), and the weights they are packed with."""
from __future__ import annotations

import time

import numpy as np

from ..common.bitset import ones, pack_columns, pack_rows
from ..common.data import BinaryDataset
from ..common.growth import arrays_bytes
from ..common.weights import combined_weights, drop_zero_weights
from .counts import column_mass, pair_mass
from .kernel import Caches, Data


def _pack_class(A: np.ndarray, rows: np.ndarray, wc: np.ndarray | None, by_word: bool):
    """``(bits, all, weights)`` of the samples of one class, the ``rows`` (indices) of ``A`` (samples x antecedents):
    ``bits[j]`` the packed column ``j`` of those rows, ``all`` the bitset of every sample and the weights (None, per
    sample, or per word when ``by_word``: the samples sorted by weight, each weight's run starting on a word
    boundary)."""
    k, m = rows.shape[0], A.shape[1]
    if k == 0:
        return np.zeros((m, 0), dtype=np.uint64), ones(0), (None if wc is None else np.zeros(0))
    if not by_word:
        return pack_columns(A, rows), ones(k), wc
    values, level = np.unique(wc, return_inverse=True)
    order = np.argsort(level, kind="stable")
    counts = np.bincount(level, minlength=values.shape[0])
    words = (counts + 63) // 64
    start = 64 * np.concatenate([[0], np.cumsum(words)[:-1]])
    slot = start[level[order]] + (np.arange(k) - np.repeat(np.cumsum(counts) - counts, counts))
    padded = np.zeros((64 * int(words.sum()), m), dtype=np.uint8)
    padded[slot] = A[rows[order]]
    every = np.zeros((1, padded.shape[0]), dtype=bool)
    every[0, slot] = True
    return pack_columns(padded), pack_rows(every)[0], np.repeat(values, words)


class SearchData:
    """Class-split packed antecedent bitsets and the level-0/level-1 count caches of one fit.

    ``weights`` (optional, one non-negative weight per sample): counts become weight sums.  Samples of weight 0 are
    left out (a weight ``k`` counts a sample ``k`` times, 0 drops it), so every packed sample weighs more than 0 and
    a rule captures something exactly when its weight is positive.  ``mass`` is the total weight (``n`` without
    weights), ``tiny`` half the smallest weight: remainders obtained by subtraction below it are rounding noise.  With
    few distinct weights (``per_word``) the samples of each class are laid out by weight, one weight per word, and a
    weighted count costs a popcount and a multiply per word; otherwise each set bit's weight is added.
    """

    PAIR_WORK_LIMIT = 4e8  # skip the pairwise cache when computing it would cost more word operations
    PAIR_BIT_COST = 8      # a per-sample weighted count visits set bits: about this many word operations each
    LEVEL_PADDING = 0.25   # per-word weights when padding each weight's run to whole words adds at most this share
    MIN_LEVELS = 8         # ... or at most this many words

    @classmethod
    def bytes_needed(cls, A: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> int:
        """What :meth:`nbytes` will be for these arguments, computed without packing: exact without weights, a lower
        bound with them (the padding of per-word weights and a pair cache are left out), so a search refused
        for it could not have fitted."""
        y = np.asarray(y).astype(bool)
        if weights is not None:
            y = y[np.asarray(weights) > 0]
        m = int(A.shape[1])
        words = [(k + 63) // 64 for k in (int(y.sum()), int((~y).sum()))]
        bits = 8 * (m + 1) * sum(words) + 2 * 8 * m  # both classes' columns and every-sample sets, the column masses
        if weights is not None:
            return bits + 8 * sum(words) + 2 * 8
        pairs = m ** 2 * sum(words) / 2 <= cls.PAIR_WORK_LIMIT
        return bits + 2 * 4 * (m * m if pairs else 1)

    def __init__(self, A: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None):
        t0 = time.perf_counter()
        A = np.asarray(A, dtype=np.uint8)
        y = np.asarray(y, dtype=np.uint8)
        self.n = int(A.shape[0])
        self.n_antecedents = int(A.shape[1])
        weights, A, y = drop_zero_weights(weights, A, y)
        pos = y == 1
        wp, wn = (None, None) if weights is None else (weights[pos], weights[~pos])
        self.per_word = weights is not None and all(
            np.unique(wc).shape[0] <= max(self.MIN_LEVELS, self.LEVEL_PADDING * wc.shape[0] / 64) for wc in (wp, wn))
        self.Xpos, self.all_pos, self.wpos = _pack_class(A, np.flatnonzero(pos), wp, self.per_word)
        self.Xneg, self.all_neg, self.wneg = _pack_class(A, np.flatnonzero(~pos), wn, self.per_word)
        if weights is None:
            self.tiny = 0.0
            self.n_pos, self.n_neg = int(pos.sum()), int((~pos).sum())
        else:
            self.tiny = 0.5 * float(weights.min())
            self.n_pos, self.n_neg = float(wp.sum()), float(wn.sum())
        A = self.n_antecedents
        count, pair = (np.int64, np.int32) if weights is None else (np.float64, np.float64)
        self.tot_pos = column_mass(self.Xpos, self.wpos, self.per_word, np.empty(A, count))
        self.tot_neg = column_mass(self.Xneg, self.wneg, self.per_word, np.empty(A, count))
        # word operations of the pair cache; a per-sample weighted count also visits each set bit (at most A per bit)
        work = A ** 2 * (self.Xpos.shape[1] + self.Xneg.shape[1]) / 2
        if weights is not None and not self.per_word:
            bits = sum(float(column_mass(X, None, False, np.empty(A, np.int64)).sum()) for X in (self.Xpos, self.Xneg))
            work += A * bits / 2 * self.PAIR_BIT_COST
        self.mass = self.n_pos + self.n_neg
        self.use_pairs = work <= self.PAIR_WORK_LIMIT
        shape = (A, A) if self.use_pairs else (1, 1)
        self.pair_pos, self.pair_neg = np.zeros(shape, pair), np.zeros(shape, pair)
        if self.use_pairs:
            pair_mass(self.Xpos, self.wpos, self.per_word, self.pair_pos)
            pair_mass(self.Xneg, self.wneg, self.per_word, self.pair_neg)
        self.seconds = time.perf_counter() - t0

    @property
    def data(self) -> Data:
        """The packed samples as the chunk kernels take them."""
        return Data(self.Xpos, self.Xneg, self.all_pos, self.all_neg)

    @property
    def caches(self) -> Caches:
        """The count caches as the chunk kernels take them."""
        return Caches(self.tot_pos, self.tot_neg, self.pair_pos, self.pair_neg)

    @property
    def weighted(self) -> bool:
        return self.wpos is not None

    def nbytes(self) -> int:
        return arrays_bytes(tuple(a for a in (self.Xpos, self.Xneg, self.all_pos, self.all_neg, self.tot_pos,
                                              self.tot_neg, self.pair_pos, self.pair_neg, self.wpos, self.wneg)
                                  if a is not None))


def frl_weights(data: BinaryDataset) -> np.ndarray | None:
    """The weights of ``data`` as the search packs them, one float64 vector, or None when every sample weighs the
    same (the popcount kernels then run); a ValueError when they leave a single class with positive weight."""
    if data.sample_weight is None:
        return None
    return combined_weights(data.y, data.sample_weight, None, np.array([0, 1]), "frl.solve")
