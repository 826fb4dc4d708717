"""Antecedent mining: literals (features and optionally their negations) and their conjunctions.

``mine_antecedents`` follows pycorels: conjunctions of up to ``max_card`` literals over distinct features, kept when
their support lies in ``[min_support, 1 - min_support]``; identical bit vectors are de-duplicated, keeping the
first name.  ``mine_classwise`` is FRL's miner: itemsets frequent within the positive class or within the negative
class.  Both return a ``MinedAntecedents`` whose ``data`` columns are the antecedents, plus the literal structure of
each.

Both run on one engine (:func:`_mine`): a Numba kernel enumerates the conjunctions in the order of
``itertools.combinations`` over the literals, prunes a partial conjunction whose support already fails the
(anti-monotone) lower support test, and de-duplicates through a hash index over the kept bit vectors.  It works in
chunks that return to Python, which checks a :class:`~optbb.common.limits.Budget` (time and memory limits) and
Ctrl-C between chunks, exactly as a search does.  A miner stopped by a limit returns the antecedents found so far
with ``status`` set (TIME_LIMIT, MEMORY_LIMIT or INTERRUPTED); they are a prefix of the complete list, and a model
learned on them is not certified for the complete set (:func:`raw_points_bound` gives a lower bound that holds for
every antecedent set).  ``nbytes`` counts the mined arrays, so callers charge it to the memory limit.
"""
from __future__ import annotations

import gc
import operator
import time
from bisect import bisect_right
from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
import functools

import numpy as np
from .jit import njit

from .bitset import hash_words, n_words, pack_columns, pack_rows, popcount64, unpack_rows, weight_and, weight_of
from .data import BinaryDataset
from .driver import next_work
from .equivalence import minority_vector
from .growth import GrowthStopped, grow
from .keyindex import SLOT_BYTES, find_row, index_capacity, index_put, new_index, reindex
from .limits import Budget, InterruptGuard, Limits
from .result import Status

NOT = "not "
AND = ","

# per kept antecedent, bytes of the Python objects (Antecedent, its tuples, the list slots; the name is added) and
# of the final dense matrix per sample (the uint8 column, the BinaryDataset copy and its 0/1 check temporaries)
PY_BYTES = 300
DENSE_BYTES_PER_SAMPLE = 5
START_KEPT = 1024
FIRST_CHUNK = 1 << 12  # conjunctions of the first chunk; the next ones: the search driver's rule (next_work)
DENSE_BLOCK_CELLS = 1 << 23  # cells of the dense antecedent matrix built between two limit checks


class NoAntecedents(ValueError):
    """No antecedent passes the support filter (a complete mining that keeps nothing)."""


@dataclass(frozen=True)
class Antecedent:
    """A conjunction of literals: feature indices of the original data and their signs (True = negated)."""

    features: tuple[int, ...]
    negated: tuple[bool, ...]

    def evaluate(self, X: np.ndarray) -> np.ndarray:
        """0/1 vector over the rows of a 0/1 feature matrix ``X``."""
        out = np.ones(X.shape[0], dtype=bool)
        for f, neg in zip(self.features, self.negated):
            col = X[:, f].astype(bool)
            out &= ~col if neg else col
        return out.astype(np.uint8)

    def name(self, feature_names) -> str:
        return AND.join((NOT if n else "") + feature_names[f] for f, n in zip(self.features, self.negated))


class AntecedentTable(Sequence):
    """The mined antecedents as arrays (one row of literal indices each, rows in order of cardinality); the
    :class:`Antecedent` objects are made on access, so a large mining creates no per-antecedent Python objects."""

    def __init__(self, lits: np.ndarray, card_ends: list[int], lit_feat: np.ndarray, lit_neg: np.ndarray):
        self._lits, self._card_ends, self._feat, self._neg = lits, list(card_ends), lit_feat, lit_neg

    def __len__(self) -> int:
        return int(self._lits.shape[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = operator.index(i)
        i += len(self) if i < 0 else 0
        if not 0 <= i < len(self):
            raise IndexError("antecedent index out of range")
        row = self._lits[i, :bisect_right(self._card_ends, i) + 1]
        return Antecedent(tuple(self._feat[row].tolist()), tuple(self._neg[row].tolist()))

    def __iter__(self):
        ends = self._card_ends + ([len(self)] if not self._card_ends or self._card_ends[-1] < len(self) else [])
        start = 0
        for card, end in enumerate(ends, 1):
            rows = self._lits[start:end, :card]
            for f, g in zip(self._feat[rows].tolist(), self._neg[rows].tolist()):
                yield Antecedent(tuple(f), tuple(g))
            start = end


@dataclass
class MinedAntecedents:
    """Mined antecedents over a feature dataset: ``data`` has one column per antecedent (None when a limit stopped
    the miner: no search runs on a truncated set, so its dense matrix is not built).

    ``status`` is None when the list is complete, else the limit that stopped the miner (the list is then a prefix
    of the complete one); ``elapsed`` the seconds spent; ``nbytes`` the accounted bytes of the mined arrays and
    objects.
    """

    data: BinaryDataset | None
    antecedents: Sequence[Antecedent]
    source_feature_names: list[str]
    status: Status | None = None
    elapsed: float = 0.0
    nbytes: int = 0
    candidates: int = field(default=0, repr=False)

    @property
    def complete(self) -> bool:
        return self.status is None

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Antecedent matrix (rows x antecedents) of new 0/1 feature rows."""
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.source_feature_names):
            raise ValueError(f"X must have {len(self.source_feature_names)} feature columns, got shape {X.shape}")
        if len(self.antecedents) == 0:
            return np.zeros((X.shape[0], 0), dtype=np.uint8)
        return np.stack([a.evaluate(X) for a in self.antecedents], axis=1)


def _check_params(max_card: int, min_support: float) -> None:
    if int(max_card) != max_card or max_card < 1:
        raise ValueError(f"max_card must be a positive integer, got {max_card!r}")
    if not (0.0 <= float(min_support) <= 0.5):
        raise ValueError(f"min_support must lie in [0, 0.5], got {min_support!r}")


def _uniquify(names):
    count: dict[str, int] = {}
    out = []
    for n in names:
        k = count.get(n, 0)
        out.append(n if k == 0 else f"{n}#{k}")
        count[n] = k + 1
    return out


# ---------------------------------------------------------------------------------------------------------------
# the engine: a resumable enumeration of conjunctions in Numba

MODE_RANGE, MODE_CLASSWISE = 0, 1  # support in [lo, hi] (CORELS, Thms 10 and 21); frequent in a class (FRL)
MODE_CLASSWISE_WEIGHTED = 2  # frequent in a class by weight: class weights in fp[0], fp[1] (FRL with sample weights)
CARD_DONE, CHUNK_DONE, NEED_ROOM = 0, 1, 2
# int64 parameters: mode, num, den, n_pos, n_neg, dedupe; float64: lo, hi
P_MODE, P_NUM, P_DEN, P_NPOS, P_NNEG, P_DEDUPE = range(6)
# state: current level, candidates examined, kept antecedents, started
S_LEVEL, S_EXAMINED, S_KEPT, S_STARTED = range(4)
N_STATE = 4
# ``Literals``: the bitset of each literal (``bits``, n_lits x words), its feature (``feat``) and the positive class
# (``ypos``).  ``Cursor``: where the enumeration of one cardinality stands, the literals of the current conjunction
# (``combo``, one per level; its length is the cardinality) and the bitsets of its prefixes (``partial``, level
# ``k + 1`` = level ``k`` and literal ``combo[k]``).  ``Kept``: the kept antecedents, their bitsets (``rows``) and
# literals (``lits``), and the de-duplication index over the rows (``index``, ``ehash``, see
# :func:`~optbb.common.keyindex.find_row`).  The weights ``w`` are an argument of their own: Numba leaves out the
# weighted counting for a None only when it is an argument's type.
Literals = namedtuple("Literals", "bits feat ypos")
Cursor = namedtuple("Cursor", "combo partial")
Kept = namedtuple("Kept", "index ehash rows lits")


@njit(cache=True, inline="always")
def _counts(col, ypos, w):
    """Rows of a conjunction and positive rows among them: counts, or weights when ``w`` (per-sample) is given."""
    if w is not None:
        return weight_of(col, w), weight_and(col, ypos, w)
    s = 0
    sp = 0
    for i in range(col.shape[0]):
        s += popcount64(col[i])
        sp += popcount64(col[i] & ypos[i])
    return s, sp


@njit(cache=True, inline="always")
def _frequent(s, sp, ip, fp):
    """Whether a conjunction with ``s`` rows, ``sp`` of them positive, passes the test of the miner."""
    if ip[P_MODE] == MODE_RANGE:
        return fp[0] <= s <= fp[1] and s > 0
    if ip[P_NUM] == 0:
        return True
    sn = s - sp
    if ip[P_MODE] == MODE_CLASSWISE_WEIGHTED:
        return ((fp[0] > 0 and sp * ip[P_DEN] >= ip[P_NUM] * fp[0])
                or (fp[1] > 0 and sn * ip[P_DEN] >= ip[P_NUM] * fp[1]))
    return ((ip[P_NPOS] > 0 and sp * ip[P_DEN] >= ip[P_NUM] * ip[P_NPOS])
            or (ip[P_NNEG] > 0 and sn * ip[P_DEN] >= ip[P_NUM] * ip[P_NNEG]))


@njit(cache=True, inline="always")
def _extensible(s, sp, ip, fp):
    """Whether some extension of a partial conjunction can pass: the lower support tests are anti-monotone."""
    if ip[P_MODE] == MODE_RANGE:
        return s > 0 and s >= fp[0]
    return _frequent(s, sp, ip, fp)


@njit(cache=True)
def mine_chunk(literals, w, ip, fp, cursor, state, kept, max_work):
    """Continue the enumeration of ``card``-literal conjunctions (``card`` = ``len(cursor.combo)``) where
    ``cursor`` and ``state`` left it, for at most ``max_work`` conjunctions computed (partial ones included); kept
    ones go to row ``state[S_KEPT]`` of ``kept.rows`` / ``kept.lits``.  Returns CARD_DONE, CHUNK_DONE, or NEED_ROOM
    (the kept arrays or the index are full; the candidate is examined again on the next call).  Every return leaves
    ``combo[:k + 1]`` and ``partial[:k + 1]`` consistent, so the next call resumes at the same conjunction.  ``w``
    (per-sample weights, or None) makes the support tests count weight instead of rows."""
    lits, lit_feat, ypos = literals.bits, literals.feat, literals.ypos
    combo, partial = cursor.combo, cursor.partial
    index, ehash, kept_bits, kept_lits = kept.index, kept.ehash, kept.rows, kept.lits
    card = combo.shape[0]
    n_lits, nw = lits.shape
    dedupe = ip[P_DEDUPE] != 0
    k = state[S_LEVEL]
    if state[S_STARTED] == 0:
        state[S_STARTED] = 1
        k = 0
        combo[0] = 0
    work = 0
    while True:
        if work >= max_work:
            state[S_LEVEL] = k
            return CHUNK_DONE
        if combo[k] > n_lits - (card - k):  # no room left for the remaining levels: backtrack
            if k == 0:
                state[S_LEVEL] = 0
                return CARD_DONE
            k -= 1
            combo[k] += 1
            continue
        lit = combo[k]
        clash = False
        for j in range(k):
            if lit_feat[combo[j]] == lit_feat[lit]:
                clash = True
                break
        if clash:
            combo[k] += 1
            continue
        work += 1
        for i in range(nw):
            partial[k + 1, i] = partial[k, i] & lits[lit, i]
        s, sp = _counts(partial[k + 1], ypos, w)
        if k < card - 1:
            if _extensible(s, sp, ip, fp):
                k += 1
                combo[k] = combo[k - 1] + 1
            else:
                combo[k] += 1
            continue
        if _frequent(s, sp, ip, fp):
            row = state[S_KEPT]
            if row >= kept_bits.shape[0] or (dedupe and 2 * (row + 1) > index.shape[0]):
                state[S_LEVEL] = k
                return NEED_ROOM
            keep = True
            if dedupe:
                h = hash_words(partial[k + 1])
                found = find_row(kept, partial[k + 1], h)
                if found >= 0:
                    keep = False
                else:
                    index_put(index, found, row)
                    ehash[row] = h
            if keep:
                for i in range(nw):
                    kept_bits[row, i] = partial[k + 1, i]
                for j in range(card):
                    kept_lits[row, j] = combo[j]
                for j in range(card, kept_lits.shape[1]):
                    kept_lits[row, j] = -1
                state[S_KEPT] += 1
        state[S_EXAMINED] += 1
        combo[k] += 1


# ---------------------------------------------------------------------------------------------------------------
# the Python side: chunks, growth and limits


class _Miner:
    """Arrays and bookkeeping of one mining run."""

    def __init__(self, data: BinaryDataset, max_card: int, negations: bool, ip: np.ndarray, fp: np.ndarray,
                 budget: Budget, weights: np.ndarray | None = None):
        self.weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        self.n = data.n_samples
        self.feature_names = list(data.feature_names)
        self.max_card = int(max_card)
        signs = (False, True) if negations else (False,)  # the literals: every feature, then every negation
        lits = pack_columns(np.concatenate([1 - data.X if g else data.X for g in signs], axis=1))
        self.lit_feat = np.tile(np.arange(data.n_features, dtype=np.int64), len(signs))
        self.lit_neg_arr = np.repeat(np.array(signs, dtype=bool), data.n_features)
        self.lit_names = np.array([(NOT if g else "") + name for g in signs for name in self.feature_names],
                                  dtype=object)
        self.literals = Literals(lits, self.lit_feat, pack_rows((data.y == 1).reshape(1, -1))[0])
        self.ip, self.fp = ip, fp
        self.budget = budget
        self.nw = n_words(self.n)
        self.index = new_index(2 * START_KEPT)
        self.ehash = np.zeros(START_KEPT, dtype=np.uint64)
        self.kept_bits = np.zeros((START_KEPT, max(self.nw, 1)), dtype=np.uint64)
        self.kept_lits = np.zeros((START_KEPT, self.max_card), dtype=np.int32)
        self.state = np.zeros(N_STATE, dtype=np.int64)
        self.card_ends: list[int] = []
        self.names: list[str] = []
        self.name_bytes = 0
        self.X: np.ndarray | None = None

    def array_bytes(self) -> int:
        return int(self.literals.bits.nbytes + self.index.nbytes + self.ehash.nbytes + self.kept_bits.nbytes
                   + self.kept_lits.nbytes)

    def final_bytes(self, kept: int) -> int:
        """Bytes of what ``kept`` antecedents become: objects, names, the dense matrix and its packed copy."""
        per = PY_BYTES + DENSE_BYTES_PER_SAMPLE * self.n + 8 * self.nw
        return kept * per + self.name_bytes

    def nbytes(self) -> int:
        return self.array_bytes() + self.final_bytes(len(self.names))

    def limit_status(self, guard: InterruptGuard) -> Status | None:
        return self.budget.stop_status(guard, self.nbytes())

    def grow(self, guard: InterruptGuard) -> bool:
        """Double the kept arrays and the index; False when the memory limit forbids it."""
        rows = self.kept_bits.shape[0]
        new_rows = 2 * rows
        added = rows * (self.kept_bits.shape[1] * 8 + self.kept_lits.shape[1] * 4 + 8)
        idx = index_capacity(new_rows) if self.ip[P_DEDUPE] else self.index.shape[0]
        added += (idx - self.index.shape[0]) * SLOT_BYTES
        # the new rows will also become objects and dense columns: charge them before they are filled
        added += self.final_bytes(new_rows) - self.final_bytes(rows)
        if self.budget.limits.over_memory(self.nbytes() + added):
            return False
        stop = functools.partial(self.budget.must_stop, guard)
        kept_bits, kept_lits, ehash = (grow(a, new_rows, stop) for a in (self.kept_bits, self.kept_lits, self.ehash))
        index = reindex(ehash, int(self.state[S_KEPT]), idx, stop) if idx != self.index.shape[0] else self.index
        self.kept_bits, self.kept_lits, self.ehash, self.index = kept_bits, kept_lits, ehash, index
        return True

    def materialise(self, start: int, end: int, card: int) -> None:
        """Names of kept rows ``start .. end - 1`` (all of ``card`` literals)."""
        if end <= start:
            return
        rows = self.kept_lits[start:end, :card]
        parts = [self.lit_names[rows[:, j]].tolist() for j in range(card)]
        names = parts[0] if card == 1 else [AND.join(t) for t in zip(*parts)]
        self.names.extend(names)
        self.name_bytes += sum(map(len, names)) + 49 * len(names)

    def run(self) -> Status | None:
        """Mine every cardinality in chunks; the limit that stopped the miner, or None when complete."""
        chunk = FIRST_CHUNK
        with InterruptGuard() as guard:
            for card in range(1, self.max_card + 1):
                cursor = Cursor(np.zeros(card, dtype=np.int64), np.zeros((card + 1, max(self.nw, 1)), dtype=np.uint64))
                cursor.partial[0] = pack_rows(np.ones((1, self.n), dtype=np.uint8))[0]
                self.state[S_STARTED] = self.state[S_LEVEL] = 0
                while True:
                    status = self.limit_status(guard)
                    if status is not None:
                        return status
                    before = int(self.state[S_KEPT])
                    t0 = time.perf_counter()
                    kept = Kept(self.index, self.ehash, self.kept_bits, self.kept_lits)
                    code = mine_chunk(self.literals, self.weights, self.ip, self.fp, cursor, self.state, kept, chunk)
                    self.materialise(before, int(self.state[S_KEPT]), card)
                    dt = time.perf_counter() - t0
                    if code == CARD_DONE:
                        self.card_ends.append(int(self.state[S_KEPT]))
                        break
                    if code == NEED_ROOM:
                        try:
                            if not self.grow(guard):
                                return Status.MEMORY_LIMIT
                        except GrowthStopped:
                            pass  # reported by the limit check at the top of the loop
                    else:
                        chunk = next_work(chunk, dt, self.budget.remaining_time())
            return self.build_dense(guard)

    def build_dense(self, guard: InterruptGuard) -> Status | None:
        """The samples x antecedents 0/1 matrix the search reads, built between limit checks in blocks of about
        :data:`DENSE_BLOCK_CELLS` cells, each a run of 64-sample rows times a run of antecedents (it is the largest
        array of a big mining); the limit that stopped it, or None.  A block spans few rows of the C-ordered
        matrix, so it writes (and first touches) only its own pages: column blocks spanning every row touched a
        page per row each, and wrote with a stride of a whole row (2,000 x 320,000: 1.5-2.2 s for the first
        block, about 5 s in all)."""
        kept, n = int(self.state[S_KEPT]), self.n
        self.X = np.empty((n, kept), dtype=np.uint8)
        words = max(1, min(self.nw, DENSE_BLOCK_CELLS // (64 * max(kept, 1))))  # 64-sample words per block
        cols = max(1, min(kept, DENSE_BLOCK_CELLS // (64 * words)))
        for w0 in range(0, self.nw, words):
            r0, r1 = 64 * w0, min(n, 64 * (w0 + words))
            for c0 in range(0, kept, cols):
                status = self.limit_status(guard)
                if status is not None:
                    self.X = None
                    return status
                c1 = min(kept, c0 + cols)
                self.X[r0:r1, c0:c1] = unpack_rows(self.kept_bits[c0:c1, w0:w0 + words], r1 - r0).T
        return None

    def result(self, status: Status | None, data: BinaryDataset, dedupe: bool, elapsed: float,
               allow_empty: bool = False) -> MinedAntecedents:
        kept = len(self.names)
        names = self.names if dedupe else _uniquify(self.names)
        mined_data = None
        if kept and status is None:  # a truncated set is not searched: skip the dense matrix, return promptly
            bits = np.ascontiguousarray(self.kept_bits[:kept])
            mined_data = BinaryDataset.from_bits(bits, data.y, names, data.sample_weight, data.label_names, self.X)
        elif status is None and not allow_empty:
            raise NoAntecedents("no antecedent passes the support filter; lower min_support")
        nbytes = self.final_bytes(kept) if mined_data is not None else kept * PY_BYTES + self.name_bytes
        table = AntecedentTable(self.kept_lits[:kept].copy(), self.card_ends, self.lit_feat, self.lit_neg_arr)
        return MinedAntecedents(mined_data, table, list(data.feature_names), status, elapsed, nbytes,
                                int(self.state[S_EXAMINED]))


def _mine(data: BinaryDataset, max_card: int, negations: bool, dedupe: bool, ip: np.ndarray, fp: np.ndarray,
          budget: Budget | None, weights: np.ndarray | None = None, allow_empty: bool = False) -> MinedAntecedents:
    budget = budget if budget is not None else Budget(Limits())
    t0 = time.perf_counter()
    gc_was_on = gc.isenabled()
    gc.disable()  # the antecedents hold no cycles; full collections over a large heap would overshoot the limits
    try:
        miner = _Miner(data, max_card, negations, ip, fp, budget, weights)
        status = miner.run()
        return miner.result(status, data, dedupe, time.perf_counter() - t0, allow_empty)
    finally:
        if gc_was_on:
            gc.enable()


def mine_antecedents(data: BinaryDataset, max_card: int = 2, min_support: float = 0.01, negations: bool = True,
                     dedupe: bool = True, *, budget: Budget | None = None,
                     sample_weight: np.ndarray | None = None, allow_empty: bool = False) -> MinedAntecedents:
    """Conjunctions of up to ``max_card`` literals of distinct features with support in
    ``[min_support, 1 - min_support]`` (CORELS Thm 10 and Thm 21 applied at mining time).

    ``budget`` (optional) bounds the time and the memory of the mined arrays; Ctrl-C stops the miner too.  A stopped
    miner returns what it found with ``status`` set (see the module docstring).  ``sample_weight`` (optional,
    per sample, non-negative) makes the support *weighted*: an antecedent is kept when the weight of the samples it
    captures lies in ``[min_support * W, (1 - min_support) * W]``, ``W`` the total weight (positive), so integer
    weights keep exactly the antecedents of repeated rows; a conjunction of zero weight is never kept.  When no
    antecedent passes, a ``ValueError`` is raised, or with ``allow_empty`` a complete (``status`` None) result with
    no antecedents and ``data`` None is returned."""
    _check_params(max_card, min_support)
    total = data.n_samples if sample_weight is None else float(np.sum(sample_weight))
    ip = np.array([MODE_RANGE, 0, 1, 0, 0, bool(dedupe)], dtype=np.int64)
    fp = np.array([min_support * total, (1.0 - min_support) * total], dtype=np.float64)
    return _mine(data, max_card, negations, dedupe, ip, fp, budget, sample_weight, allow_empty)


def class_support_threshold(min_support: float):
    """``min_support`` as an exact fraction ``(num, den)``: an itemset with ``count`` rows in a class of ``n_class``
    rows is frequent iff ``count * den >= num * n_class`` (pyfim's ``count * 100 >= supp * n_class`` for a
    percentage ``supp``, without floating-point rounding: ``0.1 * 30`` is not ``3``)."""
    f = Fraction(str(float(min_support))).limit_denominator(10 ** 9)
    return f.numerator, f.denominator


def mine_classwise(data: BinaryDataset, max_card: int = 2, min_support: float = 0.1, negations: bool = False,
                   dedupe: bool = True, *, budget: Budget | None = None,
                   weights: np.ndarray | None = None, allow_empty: bool = False) -> MinedAntecedents:
    """Itemsets of up to ``max_card`` literals with support at least ``min_support`` within the positive class or
    within the negative class (FRL's miner, replacing the reference's FP-growth on each class).

    The test is exact (:func:`class_support_threshold`).  With ``min_support = 0`` every itemset qualifies, so with
    ``max_card = 1`` the antecedents are exactly the columns of ``X`` (identical columns merged when ``dedupe``).
    ``budget``: as in :func:`mine_antecedents`.  ``weights`` (optional, one non-negative weight per sample): the
    support is a fraction of the class's *weight*, ``weight(itemset in class) >= min_support * weight(class)``, so
    integer weights mine exactly what repeated samples would; the weights are summed over the bits (float64).
    ``allow_empty``: as in :func:`mine_antecedents`.
    """
    _check_params(max_card, min_support)
    pos = data.y == 1
    n_pos = int(pos.sum())
    num, den = class_support_threshold(min_support)
    mode = MODE_CLASSWISE
    fp = np.zeros(2, dtype=np.float64)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if weights.shape != (data.n_samples,):
            raise ValueError(f"weights must hold one value per sample ({data.n_samples}), got shape {weights.shape}")
        mode = MODE_CLASSWISE_WEIGHTED
        fp[:] = weights[pos].sum(), weights[~pos].sum()
    ip = np.array([mode, num, den, n_pos, data.n_samples - n_pos, bool(dedupe)], dtype=np.int64)
    return _mine(data, max_card, negations, dedupe, ip, fp, budget, weights, allow_empty)


def load_kernels() -> None:
    """Compile (or load from Numba's cache) the mining kernels on a tiny input.  Callers run it before starting a
    limit's clock, so a fresh process does not charge the kernels' loading to its first time limit (the pure-Python
    miner this engine replaced had no such cost)."""
    literals = Literals(np.zeros((1, 1), dtype=np.uint64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64))
    cursor = Cursor(np.zeros(1, dtype=np.int64), np.zeros((2, 1), dtype=np.uint64))
    kept = Kept(new_index(16), np.zeros(1, dtype=np.uint64), np.zeros((1, 1), dtype=np.uint64),
                np.zeros((1, 1), dtype=np.int32))
    mine_chunk(literals, None, np.zeros(6, dtype=np.int64), np.zeros(2, dtype=np.float64), cursor,
               np.zeros(N_STATE, dtype=np.int64), kept, 0)
    reindex(np.zeros(1, dtype=np.uint64), 1, 16)


def raw_points_bound(data: BinaryDataset) -> float:
    """A lower bound on the misclassification rate of every classifier that is a function of the features of
    ``data``: the equivalent points bound (CORELS Prop. 19 / Thm 20) over identical feature rows.  Antecedents are
    functions of the features, so it holds for any antecedent set, complete or cut short by a limit."""
    z = minority_vector(data.X, data.y, data.sample_weight)
    w = np.ones(data.n_samples) if data.sample_weight is None else data.sample_weight
    return float((z * w).sum() / w.sum())
