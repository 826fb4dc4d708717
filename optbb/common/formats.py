"""Pieces the models share for their dict / JSON / LaTeX / DOT forms.

Each model class owns its forms (``to_dict``, ``from_dict``, ``to_json``, ``from_json``, ``to_latex``, ``to_dot``);
this module holds what they have in common: JSON-safe values (no ``NaN`` or ``Infinity`` in the text: non-finite
numbers are written as ``null``), escaping, the if / else-if / else chain of a rule list, and the reading rules
(anything malformed is a ``ValueError`` naming the model and the problem, never a ``KeyError`` or ``TypeError``).
"""
from __future__ import annotations

import functools
import json
import math
import numbers

import numpy as np
import pandas as pd

from .data import check_binary


def plain(v):
    """JSON-safe Python value: numpy scalars and arrays to Python, tuples to lists, non-finite floats to None."""
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    return v


def json_label(v):
    """A class label as JSON holds it: a string, number or boolean as it is (numpy scalars as Python values),
    anything else (a date, a tuple) as its ``str``, the way rule lists write their ``label_names``."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (str, bool, numbers.Real)):
        return plain(v)
    return str(v)


def class_labels(classes, indices: np.ndarray) -> np.ndarray:
    """The labels of class indices: ``classes[indices]``, or the indices themselves when a model does not know its
    ``classes`` (one read from an old JSON file, or made by a ``solve`` function)."""
    return indices if classes is None else np.asarray(classes)[indices]


def as_labels(v, what: str, n_classes: int | None = None) -> list | None:
    """The ``classes`` of a model read from JSON: None, or a list of distinct strings, numbers or booleans (at
    least two; ``n_classes`` where given)."""
    if v is None:
        return None
    v = as_list(v, what)
    if not all(isinstance(x, (str, bool, numbers.Real)) for x in v):
        raise ValueError(f"{what} must be a list of strings, numbers or booleans")
    if len(v) < 2 or (n_classes is not None and len(v) != n_classes):
        need = "at least two" if n_classes is None else str(n_classes)
        raise ValueError(f"{what} must hold {need} labels (one per class), got {len(v)}")
    if len({(type(x), x) for x in v}) != len(v):
        raise ValueError(f"{what} must hold distinct labels, got {v}")
    return list(v)


def dumps(d: dict, indent: int | None = 2) -> str:
    """Strict JSON text of a model dict (``allow_nan=False``: strict parsers reject ``NaN``)."""
    return json.dumps(plain(d), indent=indent, allow_nan=False)


def loads(s, kind: str) -> dict:
    """The dict a JSON text holds, or a ValueError saying why it cannot be a ``kind``."""
    if not isinstance(s, (str, bytes, bytearray)):
        raise ValueError(f"{kind} JSON must be text, got {type(s).__name__}")
    try:
        d = json.loads(s)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid JSON for a {kind}: {exc}") from None
    except RecursionError:
        raise ValueError(f"{kind} JSON is nested too deeply") from None
    if not isinstance(d, dict):
        raise ValueError(f"{kind} JSON must be an object, got {type(d).__name__}")
    return d


def reader(kind: str):
    """Decorator for a ``from_dict``: the model's name must match ``d["model"]`` (absent is accepted), and any
    ``KeyError`` / ``TypeError`` / ``AttributeError`` / ``IndexError`` while reading becomes a ``ValueError``."""

    def wrap(fn):
        @functools.wraps(fn)
        def read(cls, d):
            if not isinstance(d, dict):
                raise ValueError(f"a {kind} must be read from a dict, got {type(d).__name__}")
            if d.get("model", kind) != kind:
                raise ValueError(f"this JSON describes a {d.get('model')!r}, not a {kind}")
            try:
                return fn(cls, d)
            except KeyError as exc:
                raise ValueError(f"malformed {kind}: missing field {exc}") from None
            except (TypeError, AttributeError, IndexError, OverflowError) as exc:
                raise ValueError(f"malformed {kind}: {exc}") from None
            except RecursionError:
                raise ValueError(f"malformed {kind}: nested too deeply") from None

        return read

    return wrap


class JsonForm:
    """``to_json`` / ``from_json`` of a model class that has ``to_dict`` / ``from_dict``, and ``str(model)``: its
    ``text()``."""

    def __str__(self) -> str:
        return self.text()

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text of ``to_dict``; ``from_json`` (or ``optbb.export.from_json``) rebuilds an identical model."""
        return dumps(self.to_dict(), indent)

    @classmethod
    def from_json(cls, s):
        return cls.from_dict(loads(s, cls.__name__))


def first_match(hits, n: int) -> np.ndarray:
    """Index of the first boolean vector of ``hits`` true on each of ``n`` rows (``len(hits)`` where none is): the
    clause of a decision list that classifies each row."""
    out = np.full(n, -1, dtype=np.int64)
    k = -1
    for k, hit in enumerate(hits):
        out[(out < 0) & hit] = k
    out[out < 0] = k + 1
    return out


def columns_by_name(X, names):
    """``X`` with a DataFrame's columns taken by the model's column ``names``, whatever their order in the frame (a
    ValueError names those it lacks); a frame holding none of the names (e.g. a model fitted on an unnamed matrix),
    and anything else, is read by position as given."""
    if not isinstance(X, pd.DataFrame) or not names:
        return X
    cols = [str(c) for c in X.columns]
    if cols == [str(n) for n in names]:
        return X
    where = {c: j for j, c in enumerate(cols)}
    missing = [str(n) for n in names if str(n) not in where]
    if len(missing) == len(names):
        return X
    if missing:
        raise ValueError(f"X lacks {len(missing)} of the model's columns ({', '.join(map(repr, missing[:5]))}"
                         f"{', ...' if len(missing) > 5 else ''}); the model reads its columns by name")
    return X.iloc[:, [where[str(n)] for n in names]]


def binary_rows(X, n_features: int | None, names=None) -> np.ndarray:
    """``X`` as a 2-D array of raw 0/1 features with ``n_features`` columns (any number when None), or a ValueError
    naming what is wrong with it; a DataFrame's columns are taken by ``names`` (:func:`columns_by_name`)."""
    X = np.asarray(columns_by_name(X, names))
    if n_features is not None and (X.ndim != 2 or X.shape[1] != n_features):
        raise ValueError(f"X must have {n_features} feature columns, got shape {X.shape}")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (samples x features), got shape {X.shape}")
    check_binary(X, "X")
    return X


def as_int(v, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer field (``True`` and ``2.5`` refused), in ``[lo, hi]`` where given."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{what} must be an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{what} must lie in [{lo}, {hi}], got {v!r}")
    return int(v)


def as_float(v, what: str) -> float:
    """A number field; None (how non-finite numbers are written) reads as NaN."""
    if v is None:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what} must be a number or null, got {v!r}")
    return float(v)


def as_list(v, what: str) -> list:
    if not isinstance(v, list):
        raise ValueError(f"{what} must be a list, got {type(v).__name__}")
    return v


def as_counts(v, what: str, n_classes: int | None = None) -> list[float] | None:
    """Class counts (non-negative numbers, one per class: ``n_classes`` where given) or None where a model does not
    store them."""
    if v is None:
        return None
    v = as_list(v, what)
    if not all(not isinstance(x, bool) and isinstance(x, numbers.Real) and math.isfinite(x) and x >= 0 for x in v):
        raise ValueError(f"{what} must be a list of non-negative numbers")
    if n_classes is not None and len(v) != n_classes:
        raise ValueError(f"{what} must hold {n_classes} values (one per class), got {len(v)}")
    return [int(x) if isinstance(x, numbers.Integral) else float(x) for x in v]


def as_str_list(v, what: str) -> list[str]:
    v = as_list(v, what)
    if not all(isinstance(x, str) for x in v):
        raise ValueError(f"{what} must be a list of strings")
    return list(v)


def literals(features, negated, n_features: int, what: str) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """A conjunction's feature indices (each in ``[0, n_features)``) and signs, read from JSON lists."""
    feats = tuple(as_int(f, f"{what} feature", 0, n_features - 1) for f in as_list(features, f"{what} features"))
    neg = as_list(negated, f"{what} negated")
    if len(neg) != len(feats) or not all(isinstance(b, bool) for b in neg):
        raise ValueError(f"{what}: negated must hold one true/false per feature")
    return feats, tuple(neg)


LATEX_ESCAPES = str.maketrans({"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                               "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}", "<": r"$<$",
                               ">": r"$>$"})


def latex_escape(s) -> str:
    """Escape the LaTeX special characters of a feature or label name (each character once: the braces of
    ``\\textbackslash{}`` are not escaped again)."""
    return str(s).translate(LATEX_ESCAPES)


def dot_escape(s) -> str:
    """Escape a Graphviz label."""
    return str(s).replace("\\", "\\\\").replace('"', '\\"')


def latex_chain(conditions: list[str], outcomes: list[str], default: str) -> str:
    """``algorithmic`` environment ``\\If / \\ElsIf / \\Else`` (the C++ CORELS ``-L`` layout).  ``conditions`` are
    plain names (escaped here and set as text in the math of the condition, so that ``age<=30`` or ``not a`` read as
    written); ``outcomes`` and ``default`` are LaTeX math already."""
    lines = [r"\begin{algorithmic}", r"\normalsize"]
    for k, (cond, out) in enumerate(zip(conditions, outcomes)):
        keyword = r"\If" if k == 0 else r"\ElsIf"
        lines.append(f"{keyword} {{$(\\text{{{latex_escape(cond)}}})$}}")
        lines.append(rf"\State ${out}$")
    default_line = rf"\State ${default}$"
    lines += [r"\Else", default_line, r"\EndIf"] if conditions else [default_line]
    lines.append(r"\end{algorithmic}")
    return "\n".join(lines)


def dot_chain(conditions: list[str], outcomes: list[str], default: str) -> str:
    """Graphviz DOT source of a decision list: a chain of conditions, each with its outcome (edges "if true" and
    "else", which no class name such as "yes" can be mistaken for)."""
    lines = ["digraph RuleList {", '  node [fontname="Helvetica"];']
    for k, (cond, out) in enumerate(zip(conditions, outcomes)):
        lines.append(f'  c{k} [shape=ellipse, label="{dot_escape(cond)}"];')
        lines.append(f'  o{k} [shape=box, label="{dot_escape(out)}"];')
        lines.append(f'  c{k} -> o{k} [label="if true"];')
        nxt = f"c{k + 1}" if k + 1 < len(conditions) else "default"
        lines.append(f'  c{k} -> {nxt} [label="else"];')
    lines += [f'  default [shape=box, label="{dot_escape(default)}"];', "}"]
    return "\n".join(lines)
