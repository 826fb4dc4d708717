"""The JSON form of a :class:`~optbb.common.rashomon.RashomonSet` and the backend of a set read back from it.

A set's JSON (``RashomonSet.to_json``) holds its summary (family, optimum, bound, status, complete_below,
regularization, counters, count, levels), the feature names and class labels, the family's fields (the cuts of a
set of trees over numeric columns), the chosen models with their indices (``model_indices``: runs
``[first index, length]``; ``shared``: the fields of their dicts that are the same in all, written once) and, unless left out, the exact summaries over the whole set (``class_counts``,
``feature_usage``).  A set written with all its models reads back whole; written with some, it holds those only
(:class:`ListedBackend` refuses the others with an IndexError that says so) while its count, levels and summaries
stay the whole set's.

Numbers JSON cannot hold are written as text: counts of ``2**53`` and more (beyond what a double holds exactly) as
decimal strings, non-finite objectives as ``"inf"``, ``"-inf"`` or ``"nan"``.

The families register how their models are read and predict (:func:`register_family`) when they are imported: the
set of trees in :mod:`optbb.osdt.rashomon.trees` (imported with :mod:`optbb.osdt`), of rule lists in
:mod:`optbb.corels.listed` (with :mod:`optbb.corels`).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable

import numpy as np

from .formats import as_float, as_labels, as_list, as_str_list, json_label

FORMAT = 1  # the version of the set's JSON form
BIG = 2 ** 53  # counts from here on are written as decimal strings

# family name -> the reader of its JSON fields (``ListedFamily`` protocol), registered by the family's module
FAMILIES: dict[str, Callable[[dict], Any]] = {}
FAMILY_MODULES = {"trees": "optbb.osdt", "rule lists": "optbb.corels"}


def register_family(name: str, reader: Callable[[dict], Any]) -> None:
    """Register how a family's set is read back: ``reader(d)`` takes the set's dict and returns an object with
    ``feature_names``, ``classes``, ``prepare`` (None or the check of a raw ``X``), ``read_model(dict)``,
    ``predict(model, X)``, ``features_of(model)`` and ``key(model)`` (a hashable form two equal members share)."""
    FAMILIES[name] = reader


def family_reader(name) -> Callable[[dict], Any]:
    if name not in FAMILY_MODULES:
        raise ValueError(f"unknown family {name!r} in a Rashomon set's JSON (expected one of "
                         f"{', '.join(map(repr, FAMILY_MODULES))})")
    if name not in FAMILIES:
        raise ValueError(f"reading a set of {name} needs {FAMILY_MODULES[name]}: import it first")
    return FAMILIES[name]


# -- numbers --------------------------------------------------------------------------------------------------------
def write_count(v) -> int | str:
    """A count as JSON holds it exactly: an int below ``2**53``, else its decimal string."""
    v = int(v)
    return str(v) if v >= BIG else v


def read_count(v, what: str) -> int:
    """A count written by :func:`write_count` (an int, or a string of digits)."""
    if isinstance(v, str) and v.isdigit():
        return int(v)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
        raise ValueError(f"{what} must be a non-negative integer (or its decimal string), got {v!r}")
    return int(v)


def write_real(v) -> float | str:
    """A float, or ``"inf"`` / ``"-inf"`` / ``"nan"`` for what JSON cannot hold."""
    v = float(v)
    return v if math.isfinite(v) else str(v)


def read_real(v, what: str) -> float:
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what} must be a number (or 'inf', '-inf', 'nan'), got {v!r}")
    return float(v)


def read_errors(v, what: str) -> int | float:
    """A level's errors: an int (rows) or a float (weight), as written."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what} must be a number, got {v!r}")
    return v if isinstance(v, numbers.Integral) else float(v)


def runs(indices: list[int]) -> list[list[int]]:
    """``indices`` as runs ``[first, length]`` of consecutive indices, in their order."""
    out: list[list[int]] = []
    for i in indices:
        if out and out[-1][0] + out[-1][1] == i:
            out[-1][1] += 1
        else:
            out.append([i, 1])
    return out


def read_runs(v, count: int) -> list[int]:
    """The indices of runs written by :func:`runs`, each in ``range(count)``."""
    out: list[int] = []
    for r in as_list(v, "model_indices"):
        if not isinstance(r, list) or len(r) != 2:
            raise ValueError(f"model_indices must hold runs [first, length], got {r!r}")
        first, length = read_count(r[0], "a run's first index"), read_count(r[1], "a run's length")
        if first + length > count:
            raise ValueError(f"model_indices run {r} passes the set's {count} models")
        out.extend(range(first, first + length))
    return out


def write_table(counts) -> list:
    """Class counts (rows of counts) as lists of :func:`write_count` values."""
    return [[write_count(v) for v in row] for row in np.asarray(counts).tolist()]


def read_table(v, count: int, classes) -> np.ndarray:
    """Class counts written by :func:`write_table` (one per class of ``classes``, or as many as the first row holds
    when they are None): int64, or Python ints in an object array beyond ``2**63``."""
    rows = [[read_count(x, "a class count") for x in as_list(row, "class_counts row")]
            for row in as_list(v, "class_counts")]
    width = len(classes) if classes is not None else len(rows[0]) if rows else 0
    if any(len(r) != width for r in rows):
        raise ValueError(f"class_counts must hold {width} counts (one per class) in every row")
    if any(x > count for r in rows for x in r):
        raise ValueError(f"a class count passes the set's {count} models")
    if count < 2 ** 63:
        return np.array(rows, dtype=np.int64).reshape(len(rows), width)
    out = np.empty((len(rows), width), dtype=object)
    for i, r in enumerate(rows):
        out[i, :] = r
    return out


def read_usage(v, count: int, n_features: int) -> list[int]:
    usage = [read_count(x, "a feature usage") for x in as_list(v, "feature_usage")]
    if len(usage) != n_features or any(x > count for x in usage):
        raise ValueError(f"feature_usage must hold one count (at most the set's {count}) per feature "
                         f"({n_features})")
    return usage


# -- the backend of a set read back ---------------------------------------------------------------------------------
def reading_fields(backend) -> dict:
    """What the model reliances of a set read beside its models (:meth:`RashomonSet.variable_importance`): the
    class labels by index, the weights the set was built with, and the columns the models read when they are not
    the search's features."""
    out = {}
    if hasattr(backend, "class_labels"):
        out["class_labels"] = [json_label(c) for c in backend.class_labels]
    w = getattr(backend, "sample_weight", None)
    if w is not None:
        out["sample_weight"] = [float(v) for v in np.asarray(w, dtype=np.float64)]
    columns = getattr(backend, "column_names", None)
    if columns is not None and list(columns) != list(backend.feature_names):
        out["column_names"] = [str(c) for c in columns]
    return out


def read_reading(d: dict) -> dict:
    """The fields of :func:`reading_fields`, checked."""
    out = {}
    if d.get("class_labels") is not None:
        out["class_labels"] = as_labels(d["class_labels"], "class_labels")
    if d.get("sample_weight") is not None:
        w = np.array([as_float(v, "a sample weight") for v in as_list(d["sample_weight"], "sample_weight")])
        if not np.all(np.isfinite(w) & (w >= 0)):
            raise ValueError("sample_weight must hold finite non-negative numbers")
        out["sample_weight"] = w
    if d.get("column_names") is not None:
        out["column_names"] = as_str_list(d["column_names"], "column_names")
    return out


class ListedBackend:
    """A set read back from its JSON: the levels, the models written (by index) and the summaries written.  A model
    that was not written is an IndexError; ``held`` says how many there are."""

    def __init__(self, levels: list, models: dict, family, class_counts=None, feature_usage=None,
                 reading: dict | None = None):
        self.levels = levels
        self.family = family
        self.feature_names, self.classes = list(family.feature_names), family.classes
        reading = reading or {}
        # what the model reliances read (:func:`reading_fields`): the labels by class index, the set's weights and
        # the columns the models read, when they are not the features
        self.class_labels = reading.get("class_labels") or list(self.classes or [])
        self.sample_weight = reading.get("sample_weight")
        if reading.get("column_names") is not None:
            self.column_names = reading["column_names"]
        self._written = models  # index -> the model's dict
        self._built: dict = {}
        self._counts, self._usage = class_counts, feature_usage
        self._starts = np.cumsum([0] + [int(lv.count) for lv in levels]).tolist()
        self._index: dict | None = None

    @property
    def held(self) -> int:
        return len(self._written)

    def model(self, level: int, k: int):
        i = self._starts[level] + int(k)
        got = self._built.get(i)
        if got is None:
            if i not in self._written:
                raise IndexError(f"model {i} was not written: this set, read from JSON, holds {self.held} of its "
                                 f"{self._starts[-1]} models (write them all with to_json(models=slice(None)))")
            got = self._built[i] = self.family.read_model(self._written[i])
        return got

    def models(self, level: int):
        for k in range(int(self.levels[level].count)):
            yield self.model(level, k)

    def rank(self, model) -> tuple[int, int] | None:
        """``(level, k)`` of a written model equal to ``model`` (same family key), None when there is none."""
        if self._index is None:
            self._index = {}
            for i in sorted(self._written):
                level = int(np.searchsorted(self._starts, i, side="right")) - 1
                self._index.setdefault(self.family.key(self.model(level, i - self._starts[level])),
                                       (level, i - self._starts[level]))
        return self._index.get(self.family.key(model))

    def class_counts(self) -> np.ndarray:
        if self._counts is None:
            raise ValueError("this set's JSON holds no class counts (written with summaries=False)")
        return self._counts.copy()

    def feature_usage(self) -> list[int]:
        if self._usage is None:
            raise ValueError("this set's JSON holds no feature usage (written with summaries=False)")
        return list(self._usage)

    def predict(self, model, X) -> np.ndarray:
        return self.family.predict(model, X)

    def features_of(self, model) -> set:
        return self.family.features_of(model)

    def json_fields(self) -> dict:
        return self.family.json_fields()


def shared_fields(forms: list[dict]) -> dict:
    """The fields every dict of ``forms`` holds with the same value (feature names, classes, ...), removed from
    them: written once for all the models."""
    if not forms:
        return {}
    shared = {k: v for k, v in forms[0].items() if all(k in f and f[k] == v for f in forms[1:])}
    for f in forms:
        for k in shared:
            del f[k]
    return shared


def read_models(d: dict, count: int) -> dict:
    """``index -> model dict`` of a set's JSON (``models`` with their ``model_indices``, each completed by the
    ``shared`` fields)."""
    shared = d.get("shared") or {}
    if not isinstance(shared, dict):
        raise ValueError("shared must be an object")
    models = [m if not isinstance(m, dict) else {**shared, **m} for m in as_list(d.get("models", []), "models")]
    indices = read_runs(d.get("model_indices", [[0, len(models)]] if models else []), count)
    if len(indices) != len(models) or len(set(indices)) != len(indices):
        raise ValueError(f"model_indices must give one distinct index per model: {len(indices)} indices for "
                         f"{len(models)} models")
    if not all(isinstance(m, dict) for m in models):
        raise ValueError("every model of a set's JSON must be an object")
    return dict(zip(indices, models))


def read_names(d: dict) -> list[str]:
    return as_str_list(d.get("feature_names"), "feature_names")
