"""``RashomonSet``: every model whose objective is within a bound of the optimum, for trees and rule lists alike.

A family supplies a *backend* holding the set in a form that counts without listing (the solved subproblems of a tree
search with their achievable ``(errors, size)`` pairs, the prefix tree of a rule-list search pruned at the bound).
The set is split into *levels*, one per achievable ``(errors, size)`` pair, ordered by objective (ties: fewer
leaves or rules first, then fewer errors); inside a level the backend fixes an order and can both list the level
and unrank it (give its ``k``-th model).  Everything here is built on those two operations:

- indexing and iteration in non-decreasing objective order, lazily (the ``i``-th model is the level's
  ``i - start``-th, found by bisection over the cumulative counts);
- ``sample(k)``: ``k`` distinct indices drawn uniformly from ``range(count)`` and unranked, so exactly uniform;
- the backend's exact per-sample class counts and per-feature usage, computed without listing.

Backend protocol (duck-typed): ``levels`` (list of :class:`Level`), ``model(level, k)``, ``models(level)``,
``rank(model)`` (the inverse of ``model``: ``(level, k)``, None for no member), ``class_counts()`` ((n_samples, K)
counts of the models predicting each class for each training row), ``feature_usage()`` (models using each feature),
``predict(model, X)``, ``feature_names``, ``classes``, ``features_of(model)``, ``json_fields()`` (what the set's
JSON adds for the family).  A set read back from JSON has a
:class:`~optbb.common.rashomon_json.ListedBackend` of the models written.
"""
from __future__ import annotations

import bisect
import contextlib
import gc
import json
import math
import os
import random
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import pandas as pd

from . import rashomon_json as rj
from .formats import as_int, as_list, json_label, loads, plain, reader
from .reliance import Reliances, SwitchRows, check_weights, merge_counts, reliance_by_prediction
from .result import Status

# A model is a member when its objective is at most the bound plus this relative tolerance: objectives summed in
# another order differ in their last bits, and a model exactly at the bound (epsilon = 0) must stay a member
BOUND_TOLERANCE = 1e-9


def within(objective: float, bound: float) -> bool:
    """Whether ``objective`` is within ``bound`` (up to :data:`BOUND_TOLERANCE`, relative to ``max(1, bound)``)."""
    return objective <= bound + BOUND_TOLERANCE * max(1.0, abs(bound))


def check_bound(epsilon, bound) -> tuple[float | None, float | None]:
    """``(epsilon, bound)`` as floats; a ValueError unless exactly one is given, finite and non-negative."""
    if (epsilon is None) == (bound is None):
        raise ValueError("give exactly one of epsilon (a share of the optimum) and bound (an absolute objective), "
                         f"got epsilon={epsilon!r}, bound={bound!r}")
    name, value = ("epsilon", epsilon) if epsilon is not None else ("bound", bound)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(float(value)) or float(value) < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return (None if epsilon is None else float(epsilon)), (None if bound is None else float(bound))


def resolve_bound(optimum: float, epsilon: float | None, bound: float | None) -> float:
    """The absolute bound: ``(1 + epsilon) * optimum``, or ``bound`` as given.  A positive ``epsilon`` over an
    optimum of 0 (no errors without regularization) widens nothing: a UserWarning says so."""
    if epsilon is not None and epsilon > 0 and optimum == 0:
        warnings.warn("the optimum is 0, so epsilon widens nothing ((1 + epsilon) * 0 = 0): the set holds the "
                      "models of objective 0 only; give an absolute bound= to widen it", UserWarning, stacklevel=3)
    return (1.0 + epsilon) * optimum if epsilon is not None else bound


@dataclass(frozen=True)
class Level:
    """The models of one achievable ``(errors, size)`` pair: ``errors`` the misclassified amount (samples, or
    weight), ``size`` leaves (trees) or rules (rule lists), ``objective`` their common objective, ``count`` how
    many there are."""

    objective: float
    size: int
    errors: float
    count: int


@dataclass
class RashomonSet:
    """The models whose objective is at most ``bound``, in non-decreasing objective order.

    Attributes
    ----------
    family : ``"trees"`` or ``"rule lists"``.
    optimum : the optimal objective (certified when ``status`` is OPTIMAL).
    bound : the objective every member is within.
    status : how the search ended; when it is not OPTIMAL the set is complete only below ``complete_below``.
    complete_below : every model with objective at most this is a member (``bound`` when ``status`` is OPTIMAL).
    regularization : the objective's penalty per leaf or rule.
    counters : numbers of the search (time, subproblems, memory).
    prepare : for a set made by an estimator, its check of a raw ``X`` (column names and values as ``predict``
        takes them) into the matrix the models read.
    """

    family: str
    backend: Any
    optimum: float
    bound: float
    status: Status
    complete_below: float
    regularization: float
    counters: dict = field(default_factory=dict)
    # the estimator's check of a raw X (a DataFrame, labels): the matrix the models read; None: X as given
    prepare: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._levels: list[Level] = list(self.backend.levels)
        self._starts = [0]
        for lev in self._levels:
            self._starts.append(self._starts[-1] + int(lev.count))
        if self.status is not Status.OPTIMAL and self.count:
            warnings.warn(f"the Rashomon set is partial ({self.status.value}): its {self.count} models are those "
                          f"found, not the set; every model within {self.complete_below:.6g} is among them "
                          f"({self.count_complete} models, see complete_below and objectives()['complete'])",
                          UserWarning, stacklevel=4)

    @property
    def count_complete(self) -> int:
        """The members within ``complete_below``: the part of a partial set that is the set itself (``count`` when
        the search finished)."""
        return sum(lv.count for lv in self._levels if within(lv.objective, self.complete_below))

    # -- size and order -----------------------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """The exact number of models in the set (a Python int)."""
        return self._starts[-1]

    def __len__(self) -> int:
        """The number of models; a set beyond ``sys.maxsize`` (``2**63 - 1``) models, which Python's ``len`` cannot
        return, raises an OverflowError that says so: read ``count``."""
        if self.count > sys.maxsize:
            raise OverflowError(f"the set has {self.count} models, more than len() can return: read .count")
        return self.count

    @property
    def levels(self) -> list[Level]:
        """The achievable ``(errors, size)`` pairs with their objective and count, in the set's order."""
        return list(self._levels)

    def objectives(self) -> pd.DataFrame:
        """One row per level: objective, size, errors, count, the cumulative count (the set's index range) and
        whether the level is complete (within ``complete_below``: all its models are members; in a partial set the
        levels above it hold only the models found)."""
        rows = [(lv.objective, lv.size, lv.errors, lv.count, self._starts[i], within(lv.objective, self.complete_below))
                for i, lv in enumerate(self._levels)]
        return pd.DataFrame(rows, columns=["objective", "size", "errors", "count", "first_index", "complete"])

    def count_within(self, epsilon: float | None = None, bound: float | None = None) -> int:
        """Members within a tighter bound (``epsilon`` relative to the optimum or an absolute ``bound``), counted
        from the levels without listing."""
        epsilon, bound = check_bound(epsilon, bound)
        limit = resolve_bound(self.optimum, epsilon, bound)
        return sum(lv.count for lv in self._levels if within(lv.objective, limit))

    def _locate(self, i: int) -> tuple[int, int]:
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"a Rashomon set is indexed by integers or slices, got {type(i).__name__}")
        given = i = int(i)
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError(f"index {given} is out of range for a set of {self.count} models")
        level = bisect.bisect_right(self._starts, i) - 1
        return level, i - self._starts[level]

    def __getitem__(self, i):
        """The ``i``-th model in objective order (negative indices count from the end); a list of models for a
        slice, a list or 1-D array of integer indices, or a boolean mask with one entry per model."""
        if isinstance(i, slice):
            return self.models_at(range(*i.indices(self.count)))
        if isinstance(i, (list, np.ndarray)):
            return self.models_at(self._selected(i))
        level, k = self._locate(i)
        return self.backend.model(level, k)

    def _selected(self, sel) -> list:
        """The indices a list or array picks: its integers, or where a boolean mask of ``count`` entries is true."""
        mask = sel.dtype == bool if isinstance(sel, np.ndarray) else bool(sel) and all(isinstance(b, bool) for b in sel)
        if mask:
            sel = np.asarray(sel)
            if sel.ndim != 1 or sel.shape[0] != self.count:
                raise IndexError(f"a boolean mask needs one entry per model ({self.count}), got shape {sel.shape}")
            return np.flatnonzero(sel).tolist()
        if isinstance(sel, np.ndarray) and (sel.ndim != 1 or (sel.size and sel.dtype.kind not in "iuO")):
            raise TypeError(f"a Rashomon set is indexed by a 1-D array of integers, got {sel.dtype} of shape "
                            f"{sel.shape}")
        return list(sel.tolist() if isinstance(sel, np.ndarray) else sel)

    def index(self, model) -> int:
        """The position of ``model`` in the set (objective order), ``rset.index(rset[i]) == i``: its level found from
        its errors and size, its rank within the level by counting (the inverse of indexing; nothing is listed).  A
        model with the structure of a member (a tree read back from JSON, the estimator's tree) is found; a
        ValueError when it is no member, as ``list.index``."""
        got = self.backend.rank(model)
        if got is None:
            raise ValueError(f"{model!r} is not in the set")
        return self._starts[got[0]] + got[1]

    def __iter__(self) -> Iterator:
        """The models in objective order, lazily: the first come at once however large the set is."""
        if not hasattr(self.backend, "models_at"):
            for level in range(len(self._levels)):
                yield from self.backend.models(level)
            return
        for levels, ranks in self._batches():
            yield from self.backend.models_at(levels, ranks)

    def _batches(self, size: int = 2048) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The whole set as ``(levels, ranks)`` arrays of at most ``size`` models, in order."""
        levels: list = []
        ranks: list = []
        held = 0
        for level, lv in enumerate(self._levels):
            lo = 0
            while lo < lv.count:
                take = min(lv.count - lo, size - held)
                levels.append(np.full(take, level, dtype=np.int64))
                ranks.append(np.arange(lo, lo + take, dtype=np.int64))
                lo, held = lo + take, held + take
                if held == size:
                    yield np.concatenate(levels), np.concatenate(ranks)
                    levels, ranks, held = [], [], 0
        if ranks:
            yield np.concatenate(levels), np.concatenate(ranks)

    def models_at(self, indices) -> list:
        """The models of the given indices (an iterable of ints, negative ones counting from the end), built in
        batches when the backend can (``backend.models_at``)."""
        located = [self._locate(i) for i in indices]
        if not hasattr(self.backend, "models_at"):
            return [self.backend.model(level, k) for level, k in located]
        out: list = []
        with collection_paused():
            for lo in range(0, len(located), 2048):
                part = np.array(located[lo:lo + 2048], dtype=np.int64).reshape(-1, 2)
                out.extend(self.backend.models_at(part[:, 0], part[:, 1]))
        return out

    def objective_of_index(self, i: int) -> float:
        """The objective of the ``i``-th model, without building it."""
        return self._levels[self._locate(i)[0]].objective

    # -- sampling -----------------------------------------------------------------------------------------------
    def sample_indices(self, k: int, random_state=None) -> list[int]:
        """``k`` distinct indices drawn uniformly from the set (all of them, shuffled, when ``k >= count``)."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"k must be a non-negative integer, got {k!r}")
        rng = random.Random(_seed(random_state))
        if self.count <= sys.maxsize:
            return rng.sample(range(self.count), min(int(k), self.count))
        chosen: dict = {}  # beyond what a range can be sampled from: uniform draws, repeats drawn again
        while len(chosen) < k:
            chosen.setdefault(rng.randrange(self.count))
        return list(chosen)

    def sample(self, k: int, random_state=None) -> list:
        """``k`` distinct models drawn uniformly from the set (each ``k``-subset equally likely)."""
        return [self[i] for i in self.sample_indices(k, random_state)]

    # -- exact summaries over the whole set ---------------------------------------------------------------------
    def class_counts(self) -> pd.DataFrame:
        """For each training row (a row of the frame, in training order), how many models of the set predict each
        class (a column, labelled by the class the models predict): exact, without listing; int64, or Python ints
        (object columns) for sets beyond 2**63 models.  Each row sums to ``count``."""
        counts = self.backend.class_counts()
        classes = self.backend.classes
        labels = list(range(counts.shape[1])) if classes is None else list(classes)
        return pd.DataFrame(counts, columns=pd.Index(labels, name="class"))

    def agreement(self) -> np.ndarray:
        """For each training row, the share of the set predicting its most predicted class (1: all agree)."""
        counts = self.backend.class_counts()
        if self.count == 0:
            return np.full(counts.shape[0], np.nan)
        return np.array([max(row) / self.count for row in counts.tolist()], dtype=np.float64)

    def feature_usage(self) -> pd.Series:
        """For each feature, how many models of the set use it (exact, without listing): int64, or Python ints
        (an object Series) for a set beyond 2**63 models."""
        usage = [int(v) for v in self.backend.feature_usage()]
        dtype = np.int64 if self.count < 2 ** 63 else object
        return pd.Series(usage, index=list(self.backend.feature_names), dtype=dtype, name="models")

    # -- predictions --------------------------------------------------------------------------------------------
    def _default_models(self, models, what: str):
        """``models``, or when None the first :data:`DEFAULT_LISTED` models, with a UserWarning when that leaves
        some out (``what``: the method's name)."""
        if models is not None:
            return models
        if self.count > DEFAULT_LISTED:
            warnings.warn(f"{what} reads the first {DEFAULT_LISTED} of the set's {self.count} models; pass models= "
                          "(a slice or a list of indices, e.g. models=slice(None) for all) to choose them",
                          UserWarning, stacklevel=3)
        return slice(0, min(self.count, DEFAULT_LISTED))

    def _chosen(self, models) -> list:
        if isinstance(models, slice):
            return self[models]
        return self.models_at(int(i) for i in models)

    def predict(self, X, models=None) -> np.ndarray:
        """``(n_models, n_rows)`` predictions of the chosen models (a slice or a list of indices; default the first
        :data:`DEFAULT_LISTED`) on the rows of ``X`` (the matrix the models read)."""
        chosen = self._chosen(self._default_models(models, "predict"))
        X = self._matrix(X)
        return np.array([self.backend.predict(m, X) for m in chosen])

    def _matrix(self, X):
        return np.asarray(X) if self.prepare is None else self.prepare(X)

    def variable_importance(self, X, y, models=None, max_models: int | None = 1_000_000, random_state=0,
                            sample_weight=None) -> pd.DataFrame:
        """For each feature (column of ``X``, 0/1), the range over the set of its model reliance: the rise of the
        0-1 loss when the feature is switched between rows (Fisher, Rudin & Dominici 2019, Eq. 3.5's ``e_switch``,
        computed exactly for a binary column) minus the model's own loss (:mod:`optbb.common.reliance`).  Over the
        whole set when it has at most ``max_models`` models (None: always), else over ``max_models`` models
        sampled uniformly (column ``exact`` says which); ``models`` (a slice or indices) picks them.
        ``sample_weight``: a weighted 0-1 loss (default: the weights the set was built with, if any).  Exact: each
        model's reliance is a sum of integer counts (of weights) divided once, computed in compiled code for trees
        and rule lists (the whole 52,565-tree COMPAS depth-4 set in a fraction of a second).

        Columns: ``min``, ``max`` (the range over the models), ``optimal`` (that of the set's first model, an
        optimal one; with ``models``, of the first chosen), ``exact``.
        """
        plan, names = self._switch_rows(X, y, sample_weight)
        chunks, exact, first = self._measured(models, max_models, random_state)
        low, high = np.full(len(names), np.inf), np.full(len(names), -np.inf)
        for rel in self._reliances(plan, chunks):
            a, b = rel.range()
            low, high = np.minimum(low, a), np.maximum(high, b)
        optimal = next(self._reliances(plan, [first])).of_model(0)
        return pd.DataFrame({"min": low, "max": high, "optimal": optimal, "exact": exact}, index=names)

    def reliance_distribution(self, X, y, max_models: int | None = 1_000_000, random_state=0,
                              sample_weight=None) -> tuple[list, list]:
        """For each feature, the distribution over the set of its model reliance (see
        :meth:`variable_importance`): ``(names, [(values, counts), ...])``, per feature its distinct reliances
        (sorted) and how many models have each; over a uniform sample of ``max_models`` models for a larger set."""
        plan, names = self._switch_rows(X, y, sample_weight)
        chunks, _, _ = self._measured(None, max_models, random_state)
        parts: list = [[] for _ in names]
        for rel in self._reliances(plan, chunks):
            for j in range(len(names)):
                parts[j].append(rel.distribution(j))
        return names, [merge_counts(p) for p in parts]

    def _switch_rows(self, X, y, sample_weight) -> tuple[SwitchRows, list]:
        """The rows the reliances are measured on, and the names of the columns."""
        X = self._matrix(X)
        y = np.asarray(y)
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        if self.count == 0:
            raise ValueError("the set is empty: there is no model to measure")
        names = list(getattr(self.backend, "column_names", self.backend.feature_names))
        if X.shape[1] != len(names):
            raise ValueError(f"X has {X.shape[1]} columns but the models read {len(names)}")
        own = getattr(self.backend, "sample_weight", None)
        if sample_weight is None and own is not None:
            if len(own) != X.shape[0]:
                raise ValueError(f"the set was built with sample_weight of {len(own)} rows and X has {X.shape[0]}: "
                                 "pass sample_weight= for X (np.ones for unit weights)")
            sample_weight = own
        w = check_weights(sample_weight, X.shape[0])
        labels = list(self.backend.class_labels)
        index = np.asarray(pd.Index(labels).get_indexer(pd.Index(y)), dtype=np.int64)  # -1: no model's class
        return SwitchRows.of(X, index, len(labels), w), names

    def _measured(self, models, max_models, random_state) -> tuple[list, bool, tuple]:
        """The ``(levels, ranks)`` chunks of the models measured, whether they are the whole set, and the first
        model (the set's first when ``models`` is None)."""
        if models is None:
            if max_models is None or self.count <= max_models:
                return self._batches(RELIANCE_CHUNK), True, _one(self._locate(0))
            idx = self.sample_indices(max_models, random_state)
            exact = False
        else:
            idx = range(*models.indices(self.count)) if isinstance(models, slice) else [int(i) for i in models]
            exact = False
        located = np.array([self._locate(i) for i in idx], dtype=np.int64).reshape(-1, 2)
        if located.shape[0] == 0:
            raise ValueError("no model is chosen: there is no model to measure")
        chunks = [(located[lo:lo + RELIANCE_CHUNK, 0], located[lo:lo + RELIANCE_CHUNK, 1])
                  for lo in range(0, located.shape[0], RELIANCE_CHUNK)]
        first = _one(self._locate(0)) if models is None else (located[:1, 0], located[:1, 1])
        return chunks, exact, first

    def _reliances(self, plan: SwitchRows, chunks) -> Iterator[Reliances]:
        """The reliances of the models of each chunk: compiled when the backend has them (``reliances``), else
        through each model's ``predict``."""
        labels = pd.Index(list(self.backend.class_labels))
        for levels, ranks in chunks:
            if hasattr(self.backend, "reliances"):
                yield self.backend.reliances(plan, levels, ranks)
                continue
            models = [self.backend.model(int(a), int(b)) for a, b in zip(levels, ranks)]
            num = np.array([reliance_by_prediction(
                lambda Z, m=m: labels.get_indexer(pd.Index(self.backend.predict(m, Z))), plan) for m in models])
            feat = np.broadcast_to(np.arange(plan.rows.shape[1]), num.shape).copy()
            yield Reliances(feat, num, plan.divisor, plan.rows.shape[1])

    # -- tables and JSON ----------------------------------------------------------------------------------------
    def to_frame(self, models=None) -> pd.DataFrame:
        """One row per chosen model (default: the first :data:`DEFAULT_LISTED`): index, objective, size, errors,
        the features it uses and its text."""
        models = self._default_models(models, "to_frame")
        idx = list(range(*models.indices(self.count))) if isinstance(models, slice) else [int(i) for i in models]
        rows = []
        with collection_paused():  # thousands of rows of strings and lists, no cycles
            for i, m in zip(idx, self.models_at(idx)):
                lv = self._levels[self._locate(i)[0]]
                names = [self.backend.feature_names[f] for f in sorted(self.backend.features_of(m))]
                rows.append((i, lv.objective, lv.size, lv.errors, names, str(m)))
        return pd.DataFrame(rows, columns=["index", "objective", "size", "errors", "features", "model"])

    def to_dict(self, models=None, summaries: bool = True) -> dict:
        """The set's JSON form (:mod:`optbb.common.rashomon_json`): its summary (family, optimum, bound, status,
        complete_below, regularization, counters, count, levels), feature names and classes, the chosen models'
        dict forms with their indices (default: the first :data:`DEFAULT_LISTED`, with a warning when that leaves
        some out; ``models=slice(None)`` writes the whole set) and, with ``summaries``, the exact class counts and
        feature usage of the whole set."""
        models = self._default_models(models, "to_dict")
        idx = list(range(*models.indices(self.count))) if isinstance(models, slice) else \
            [int(i) + (self.count if int(i) < 0 else 0) for i in self._selected(models)]
        out = {"model": "RashomonSet", "format": rj.FORMAT, "family": self.family,
               "optimum": rj.write_real(self.optimum), "bound": rj.write_real(self.bound),
               "status": self.status.value, "complete_below": rj.write_real(self.complete_below),
               "regularization": self.regularization, "counters": plain(self.counters),
               "count": rj.write_count(self.count),
               "levels": [[lv.objective, lv.size, lv.errors, str(lv.count)] for lv in self._levels],
               "feature_names": [str(n) for n in self.backend.feature_names],
               "classes": None if self.backend.classes is None else [json_label(c) for c in self.backend.classes],
               **self.backend.json_fields(), **rj.reading_fields(self.backend), "model_indices": rj.runs(idx)}
        forms = [m.to_dict() for m in (self[models] if isinstance(models, slice) else self[idx])]
        out["shared"] = rj.shared_fields(forms)  # what every model's dict holds alike, written once
        out["models"] = forms
        if summaries:
            out["class_counts"] = rj.write_table(self.backend.class_counts())
            out["feature_usage"] = [rj.write_count(v) for v in self.backend.feature_usage()]
        return out

    def to_json(self, path=None, models=None, indent: int | None = None, summaries: bool = True) -> str:
        """JSON of :meth:`to_dict`; written to ``path`` when given.  :meth:`from_json` reads the set back; a model
        alone reads back with its class's ``from_dict`` of ``{**shared, **model}`` (the fields all the models share
        are written once, in ``shared``)."""
        text = json.dumps(plain(self.to_dict(self._default_models(models, "to_json"), summaries)), indent=indent)
        if path is not None:
            with open(path, "w") as fh:
                fh.write(text)
        return text

    @classmethod
    def from_json(cls, source) -> "RashomonSet":
        """The set :meth:`to_json` wrote, from its text or the path of its file: the same count, levels, optimum,
        bound, status, complete_below, regularization, counters and summaries, and the models written, at their
        indices (a set written with some of its models gives those only: see ``models_held``).  The family's
        package reads its models: ``optbb.osdt`` (trees) or ``optbb.corels`` (rule lists) must be imported."""
        if isinstance(source, (str, bytes, bytearray)) and source.lstrip()[:1] in ("{", b"{"):
            text = source
        elif isinstance(source, (str, os.PathLike)):
            if not os.path.isfile(source):
                raise ValueError(f"{str(source)[:80]!r} is neither the JSON text of a Rashomon set nor a file")
            with open(source) as fh:
                text = fh.read()
        else:
            raise ValueError(f"a Rashomon set is read from JSON text or a path, got {type(source).__name__}")
        return cls.from_dict(loads(text, "Rashomon set"))

    @classmethod
    def from_dict(cls, d: dict) -> "RashomonSet":
        """The set a :meth:`to_dict` dict describes; a ValueError on anything malformed."""
        if not isinstance(d, dict) or d.get("model") != "RashomonSet":
            raise ValueError("this is not the JSON of a Rashomon set (its 'model' must be 'RashomonSet')")
        return _read_set(cls, d)

    @property
    def models_held(self) -> int:
        """The models the set can give: ``count``, or for a set read from JSON the models written (asking for
        another is an IndexError)."""
        return int(getattr(self.backend, "held", self.count))

    def __repr__(self) -> str:
        return (f"RashomonSet({self.family}, count={self.count}, optimum={self.optimum:.6g}, bound={self.bound:.6g}, "
                f"status={self.status.value})")


DEFAULT_LISTED = 1000  # models listed by predict / to_frame / to_json when none are chosen
RELIANCE_CHUNK = 1 << 16  # models whose reliances are computed at once


def _one(located: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """One model's ``(levels, ranks)`` arrays."""
    return np.array([located[0]], dtype=np.int64), np.array([located[1]], dtype=np.int64)


@contextlib.contextmanager
def collection_paused():
    """Python's cyclic garbage collector paused for the block: building thousands of models (tuples, lists, no
    cycles) otherwise sets off collections that scan every model still alive, most of the time of a listing."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@reader("RashomonSet")
def _read_set(cls, d: dict) -> RashomonSet:
    """The set of a :meth:`RashomonSet.to_dict` dict, its backend a :class:`~optbb.common.rashomon_json.ListedBackend`
    of the models written."""
    if d.get("format", rj.FORMAT) != rj.FORMAT:
        raise ValueError(f"a Rashomon set of format {d.get('format')!r}; this version reads format {rj.FORMAT}")
    family = rj.family_reader(d["family"])(d)
    levels = []
    for k, lv in enumerate(as_list(d["levels"], "levels")):
        if not isinstance(lv, list) or len(lv) != 4:
            raise ValueError(f"level {k} must be [objective, size, errors, count], got {lv!r}")
        levels.append(Level(rj.read_real(lv[0], "a level's objective"), as_int(lv[1], "a level's size", 0),
                            rj.read_errors(lv[2], "a level's errors"), rj.read_count(lv[3], "a level's count")))
    count = sum(lv.count for lv in levels)
    if rj.read_count(d["count"], "count") != count:
        raise ValueError(f"count {d['count']} is not the sum of the levels' counts ({count})")
    try:
        status = Status(d["status"])
    except ValueError:
        raise ValueError(f"unknown status {d['status']!r}") from None
    counts = None if d.get("class_counts") is None else rj.read_table(d["class_counts"], count, family.classes)
    usage = None if d.get("feature_usage") is None else \
        rj.read_usage(d["feature_usage"], count, len(family.feature_names))
    backend = rj.ListedBackend(levels, rj.read_models(d, count), family, counts, usage, rj.read_reading(d))
    counters = d.get("counters") or {}
    if not isinstance(counters, dict):
        raise ValueError("counters must be an object")
    return cls(str(d["family"]), backend, rj.read_real(d["optimum"], "optimum"), rj.read_real(d["bound"], "bound"),
               status, rj.read_real(d["complete_below"], "complete_below"),
               rj.read_real(d["regularization"], "regularization"), counters, prepare=family.prepare)


def _seed(random_state) -> int | None:
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2 ** 63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2 ** 31))
    raise ValueError(f"random_state must be None, an int or a numpy Generator / RandomState, got {random_state!r}")


@dataclass
class SwitchPlan:
    """What the model reliance of every model on the same ``(X, y)`` shares: the distinct rows of ``X`` (each model
    predicts each once), every row's index among them, and per column and value the share of the other rows
    holding that value."""

    rows: np.ndarray
    inverse: np.ndarray
    y: np.ndarray
    shares: np.ndarray  # (n_features, 2, n_rows)

    @classmethod
    def of(cls, X: np.ndarray, y: np.ndarray) -> "SwitchPlan":
        n = X.shape[0]
        rows, inverse = np.unique(X, axis=0, return_inverse=True)
        col = X.astype(np.int64).T  # (n_features, n)
        ones = col.sum(1, keepdims=True)
        holders = np.stack([(n - ones) - (col == 0), ones - (col == 1)], axis=1)
        return cls(rows, inverse.reshape(-1), y, holders / max(n - 1, 1))


def model_reliance(predict, plan: SwitchPlan) -> np.ndarray:
    """Model reliance of one model on each 0/1 column: ``e_switch - e_orig`` for the 0-1 loss, where ``e_switch``
    averages the loss over every pair of distinct rows ``(i, l)`` with row ``i`` taking row ``l``'s value of the
    column (Fisher, Rudin & Dominici 2019, Eq. 3.5); for a binary column that is, per row, the loss with the value
    set to ``v`` weighted by the share of the other rows holding ``v``."""
    n = plan.inverse.size
    wrong = float(np.count_nonzero(predict(plan.rows)[plan.inverse] != plan.y))
    out = np.empty(plan.rows.shape[1])
    for j in range(plan.rows.shape[1]):
        switched = 0.0
        for v in (0, 1):
            Z = plan.rows.copy()
            Z[:, j] = v
            switched += float(np.dot(plan.shares[j, v], predict(Z)[plan.inverse] != plan.y))
        out[j] = (switched - wrong) / n
    return out
