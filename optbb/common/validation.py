"""Input validation shared by the estimators: scikit-learn's checks and wording, clear errors, inputs never modified.

Parameters are checked one way: each estimator declares scikit-learn's ``_parameter_constraints`` (with
:class:`Number`, :class:`MemorySize`, :class:`NameList`) and calls ``self._validate_params()`` at the start of
``fit``; functions use :func:`check_params` or :func:`check_number`.  Every message names the parameter.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import assert_all_finite
from sklearn.utils._param_validation import Interval, Options, StrOptions, validate_parameter_constraints
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .data import check_binary_arrays
from .limits import MAX_NODES, parse_memory


class Number(Interval):
    """scikit-learn's ``Interval`` that also refuses booleans and non-finite values: ``True`` is not a time limit
    and ``nan`` lies in no interval."""

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, self.type):
            return False
        if not isinstance(val, numbers.Integral) and not math.isfinite(val):
            return False
        return val in self


class MemorySize(StrOptions):
    """A memory size written as text: ``"auto"`` (half of the physical memory) or ``"512M"``, ``"2G"``, ..."""

    def __init__(self) -> None:
        super().__init__({"auto"})

    def is_satisfied_by(self, val) -> bool:
        if not isinstance(val, str):
            return False
        try:
            parse_memory(val)  # "auto" included
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        return "'auto' or a size such as '512M' or '2G'"


class NameList(Options):
    """A list (tuple, set) of names among ``options``; a bare string counts as one name."""

    def __init__(self, options) -> None:
        super().__init__(str, set(options))

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, str):
            val = (val,)
        if not isinstance(val, (list, tuple, set, frozenset)):
            return False
        return all(isinstance(v, str) and v in self.options for v in val)

    def __str__(self) -> str:
        return f"a list of names among {sorted(self.options)}"


# The parameters every optbb estimator takes, with one meaning: time in seconds, nodes in the solver's own unit,
# memory in bytes ("auto": half of the physical memory, None: no cap), verbose >= 1 shows progress.
LIMIT_CONSTRAINTS: dict[str, list] = {
    "time_limit": [Number(numbers.Real, 0, None, closed="neither"), None],
    "node_limit": [Number(numbers.Integral, 1, MAX_NODES, closed="both"), None],
    "memory_limit": [Number(numbers.Real, 0, None, closed="neither"), MemorySize(), None],
    "verbose": ["verbose"],
}
FEATURE_NAMES_CONSTRAINT = {"feature_names": ["array-like", None]}


class ParamNamesMixin:
    """scikit-learn's ``get_params`` (hence ``_validate_params``, ``clone``, ``set_params``) with the parameter names
    read from ``__init__``'s signature once per class instead of at every call (0.1 ms a fit)."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        if "_param_names" not in cls.__dict__:  # a subclass reads its own signature
            cls._param_names = tuple(super()._get_param_names())
        return list(cls._param_names)


def check_params(constraints: dict, params: dict, caller: str) -> None:
    """Check ``params`` against scikit-learn style ``constraints`` (the one way optbb checks parameters).

    Raises ``InvalidParameterError`` (a ``ValueError``): "The 'name' parameter of caller must be ... Got ... instead."
    """
    validate_parameter_constraints(constraints, params, caller_name=caller)


def check_number(name: str, value, lo=None, hi=None, lo_open: bool = False, hi_open: bool = False,
                 integer: bool = False, caller: str = "optbb"):
    """``value`` as a float (an int if ``integer``) in the interval from ``lo`` to ``hi`` (open ends where asked), or
    a ValueError naming the parameter, the interval and the value (the message of :func:`check_params`).  Booleans,
    text and non-finite values are refused."""
    left_open, right_open = lo is None or bool(lo_open), hi is None or bool(hi_open)
    closed = ("both", "left", "right", "neither")[2 * left_open + right_open]
    kind = numbers.Integral if integer else numbers.Real
    check_params({name: [Number(kind, lo, hi, closed=closed)]}, {name: value}, caller)
    return int(value) if integer else float(value)


def display_names(feature_names, X_names, n_features: int) -> list[str]:
    """The names models print: the estimator's ``feature_names`` parameter, else the DataFrame's columns, else
    ``x0, x1, ...``.  A ValueError when ``feature_names`` has the wrong length or repeats a name."""
    if feature_names is None:
        return [str(n) for n in X_names] if X_names is not None else [f"x{j}" for j in range(n_features)]
    names = [str(n) for n in feature_names]
    if len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names but X has {n_features} columns")
    if len(set(names)) != len(names):
        raise ValueError("feature_names repeats a name; every feature needs its own")
    return names


class BinaryOnlyTagsMixin:
    """scikit-learn tags of the optbb classifiers: binary targets only (unless ``_multi_class``), dense input only,
    no missing values."""

    _multi_class = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._multi_class
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        return tags


class MultiClassTagsMixin(BinaryOnlyTagsMixin):
    """scikit-learn tags of an optbb classifier that takes ``k >= 2`` classes: dense input only, no missing values."""

    _multi_class = True


def feature_names_of(X) -> np.ndarray | None:
    """Column names of a DataFrame with all-string column labels (sklearn's ``feature_names_in_`` rule)."""
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(X.columns, dtype=object)
    return None


def _fixed_width_text(a):
    """``a`` with numpy's variable-width ``StringDType`` text as fixed-width ``str``, which scikit-learn's checks read
    (they fail on the former with numpy's 'dtype argument must be a NumPy dtype')."""
    if not isinstance(a, np.ndarray) or a.dtype.kind != "T":
        return a
    return a.astype(f"U{max(1, int(np.strings.str_len(a).max(initial=0)))}")


def _target_array(y) -> np.ndarray:
    y_arr = _fixed_width_text(np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y))
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is ravelled to shape "
                      "(n_samples,)", DataConversionWarning, stacklevel=3)
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y_arr.shape}")
    if y_arr.dtype.kind == "f":
        assert_all_finite(y_arr, input_name="y")  # "Input y contains NaN." / "... infinity ..."
    if y_arr.dtype.kind == "O" and pd.isna(y_arr).any():
        raise ValueError("y contains missing values")
    if y_arr.dtype.kind == "O":
        try:
            np.unique(y_arr)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in y_arr})
            raise ValueError(f"y mixes labels of different types ({', '.join(kinds)}); labels must be all numbers "
                             "or all strings") from None
    return y_arr


def validate_fit_input(X, y, sample_weight=None, *, estimator, multiclass: bool = False, numeric: bool = False):
    """Return ``(X01, y01, classes, names, weights)``: binary feature matrix, labels encoded 0/1 by sorted class,
    the two classes, the DataFrame's feature names (or None) and validated weights.

    With ``multiclass``, ``y`` may have ``k >= 2`` classes: the labels are then encoded ``0 .. k-1`` (int64) by
    sorted class.  With ``numeric``, ``X`` may hold any finite numbers: it is returned as the uint8 matrix above
    when every value is 0 or 1, else as float64 (text, categories, NaN and infinity raise a ValueError naming the
    column, see :func:`check_numeric_columns`).  ``n_features_in_`` and ``feature_names_in_`` are set on
    ``estimator`` the scikit-learn way.  Raises ``ValueError`` naming the problem.
    """
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    y_arr = _target_array(y)
    n_x = X.shape[0] if len(getattr(X, "shape", ())) else (len(X) if hasattr(X, "__len__") else None)
    if n_x is not None and n_x != y_arr.shape[0]:
        raise ValueError(f"length mismatch: X has {n_x} samples but y has {y_arr.shape[0]}")
    names = feature_names_of(X)
    if numeric:
        _refuse_categories(X)
    X_checked = _checked_matrix(X, estimator, numeric)
    if numeric:
        _refuse_non_finite(X_checked, names)
    classes, y_enc, y_type = _encoded_labels(y_arr)
    if y_type in ("continuous", "continuous-multioutput", "multilabel-indicator", "multiclass-multioutput"):
        raise ValueError(f"Unknown label type: {y_type}; a classifier needs two class labels")
    if len(classes) == 1:
        raise ValueError(f"y has a single class ({classes[0]!r}): one class is not enough, a classifier needs two")
    if len(classes) > 2 and not multiclass:
        raise ValueError(f"Only binary classification is supported. The type of the target is {y_type} "
                         f"(y has {len(classes)} classes)")
    if sample_weight is not None:
        w0 = np.asarray(sample_weight.to_numpy() if isinstance(sample_weight, pd.Series) else sample_weight)
        if w0.dtype.kind == "O" and all(isinstance(v, numbers.Real) for v in w0.ravel()):
            w0 = w0.astype(np.float64)
        if w0.dtype.kind not in "biuf":
            raise ValueError(f"sample_weight must hold numbers, got {w0.dtype} values such as {w0.ravel()[:1]!r}")
        if w0.ndim == 1 and w0.shape[0] == y_enc.shape[0] and w0.dtype.kind in "iuf":
            if np.all(w0 == 0):
                raise ValueError("sample_weight is zero for every sample (all weights are zero)")
            if np.all(w0 >= 0) and len(np.unique(y_enc[w0 > 0])) < 2:
                raise ValueError("the samples of non-zero sample_weight have a single class; a classifier needs "
                                 "two classes")
        sample_weight = w0
    if numeric and not np.all((X_checked == 0) | (X_checked == 1)):  # numbers: y and weights checked as for 0/1
        _, y01, w = check_binary_arrays(np.zeros((X_checked.shape[0], 1), np.uint8), y_enc.reshape(-1),
                                        sample_weight, max(2, len(classes)))
        X01 = np.asarray(X_checked, dtype=np.float64)  # not copied when it is float64 already: nothing writes it
    else:
        X01, y01, w = check_binary_arrays(X_checked, y_enc.reshape(-1), sample_weight, max(2, len(classes)))
    if len(classes) > 2:
        y01 = y01.astype(np.int64)
    if names is not None and len(set(names)) != len(names):  # the default names x0, x1, ... are distinct
        raise ValueError("duplicate feature names")
    return X01, y01, classes, names, w


def _checked_matrix(X, estimator, numeric: bool):
    """``X`` as scikit-learn's ``validate_data`` checks it for a fit (numbers, 2-D, not empty, finite unless
    ``numeric``), with ``n_features_in_`` and ``feature_names_in_`` set on ``estimator``.  A plain numpy matrix of
    numbers that passes those checks has the same outcome without them (they look for dataframes of several
    libraries first: 0.25 ms a fit); anything else, or an error, goes through scikit-learn's checks and messages."""
    if _plain_numbers(X, numeric) and X.shape[1] >= 1:
        if hasattr(estimator, "feature_names_in_"):  # a fit on data without names forgets the former ones
            delattr(estimator, "feature_names_in_")
        estimator.n_features_in_ = X.shape[1]
        return X
    return validate_data(estimator, _fixed_width_text(X), dtype="numeric", accept_sparse=False,
                         ensure_min_samples=1, ensure_min_features=1, ensure_all_finite=not numeric)


def _plain_numbers(X, numeric: bool) -> bool:
    """Whether ``X`` is a plain numpy matrix of numbers with rows, finite unless ``numeric``: what scikit-learn's
    checks pass unchanged, apart from the number of columns."""
    return (type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "biuf" and X.shape[0] >= 1
            and (numeric or X.dtype.kind != "f" or bool(np.isfinite(X).all())))


def _encoded_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """``(classes, codes, label type)`` of the 1-D labels ``y`` (checked by :func:`_target_array`): the sorted
    classes, each label's index among them, and scikit-learn's ``type_of_target``.  The type of numbers is worked
    out here from the classes (``type_of_target`` checks its input again: 0.35 ms a fit); anything else is asked
    of scikit-learn first, whose errors come before any other."""
    if y.size and y.dtype.kind in "biuf":
        classes, codes = _unique_labels(y)
        if y.dtype.kind == "f" and np.any(y != y.astype(np.int64).astype(y.dtype)):
            return classes, codes, "continuous"
        return classes, codes, "multiclass" if len(classes) > 2 else "binary"
    y_type = type_of_target(y, input_name="y", raise_unknown=True)
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes, y_type


def _unique_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)`` of 1-D numbers ``y``; integers within a span of ``2 len(y) + 256``
    are counted instead of sorted (the sort took 4 ms on 32,561 labels)."""
    if y.dtype.kind not in "biu":
        return np.unique(y, return_inverse=True)
    lo, hi = y.min(), y.max()
    if int(hi) - int(lo) > 2 * y.size + 256:
        return np.unique(y, return_inverse=True)
    wide = y.astype(np.uint64 if y.dtype.kind == "u" else np.int64)  # no wrap-around in the offsets
    base = wide.dtype.type(lo)
    offsets = (wide - base).astype(np.intp)
    present = np.bincount(offsets) > 0
    classes = (base + np.flatnonzero(present).astype(wide.dtype)).astype(y.dtype)
    return classes, (np.cumsum(present) - 1)[offsets]


def expand_weights(X01: np.ndarray, y01: np.ndarray, w: np.ndarray | None, name: str):
    """Integer sample weights as repeated rows: a row of weight ``k`` counts ``k`` times, weight 0 drops it.

    The optbb objectives count errors over samples, so integer weights are exactly repeated rows (the remedy the
    CORELS maintainers suggest for imbalanced data).  Fractional weights are refused: the bit-vector kernels count
    samples, they do not sum weights.  Returns ``(X, y)`` unchanged when ``w`` is None or all ones.
    """
    if w is None:
        return X01, y01
    if not np.array_equal(w, np.round(w)):  # exactly: 1 + 1e-9 is not silently 1
        raise ValueError(f"{name} supports integer sample_weight only (a weight k counts a sample k times); "
                         "got fractional weights")
    k = np.round(w).astype(np.int64)
    if np.all(k == 1):
        return X01, y01
    X2, y2 = np.repeat(X01, k, axis=0), np.repeat(y01, k)
    if len(np.unique(y2)) < 2:
        raise ValueError(f"{name}: after sample_weight, y has a single class; a classifier needs two classes")
    return X2, y2


def validate_predict_input(estimator, X, numeric: bool = False) -> np.ndarray:
    """Binary matrix with the fitted number of columns (and the fitted names when X is a DataFrame); with
    ``numeric``, a float64 matrix of finite numbers (a ValueError names a column of text, categories, NaN or
    infinity)."""
    check_is_fitted(estimator)
    names = feature_names_of(X)
    fitted = getattr(estimator, "feature_names_in_", None)
    if names is not None and fitted is not None and list(names) != list(fitted):
        raise ValueError("The feature names should match those that were passed during fit: "
                         "the feature names of X differ from those seen in fit")
    if numeric:
        _refuse_categories(X)
    X_checked = _checked_rows(X, estimator, numeric)
    if numeric:
        _refuse_non_finite(X_checked, names)
        return np.array(X_checked, dtype=np.float64)
    X01, _, _ = check_binary_arrays(X_checked, np.zeros(X_checked.shape[0]))
    return X01


def _checked_rows(X, estimator, numeric: bool):
    """``X`` as scikit-learn's ``validate_data`` checks it for a prediction (:func:`_checked_matrix`'s checks, and
    the fitted number of columns).  A plain numpy matrix of numbers with the fitted number of columns, for an
    estimator fitted without feature names, passes them unchanged (0.25 ms a call); anything else goes through
    scikit-learn's checks, its warnings and messages."""
    if (_plain_numbers(X, numeric) and X.shape[1] == getattr(estimator, "n_features_in_", None)
            and getattr(estimator, "feature_names_in_", None) is None):
        return X
    return validate_data(estimator, _fixed_width_text(X), dtype="numeric", accept_sparse=False, reset=False,
                         ensure_all_finite=not numeric)


# ---------------------------------------------------------------------------------------------------------------
# numeric columns (optimal trees over every threshold): numbers only, each bad column named

ONE_HOT_HINT = ("one-hot encode it first (e.g. optbb.Binarizer, which makes one 0/1 column per category, or "
                "pandas.get_dummies)")


def _column_label(names, j: int) -> str:
    return repr(str(names[j])) if names is not None else f"{j} (x{j})"


def _refuse_categories(X) -> None:
    """A ValueError naming the first column of ``X`` that holds text or is a pandas categorical or string column
    with values other than 0 and 1 (the order of categories is no scale to cut): numbers in an object column are
    numbers, and other objects are left to scikit-learn's conversion (its TypeError)."""
    if isinstance(X, pd.DataFrame):
        for j, (name, col) in enumerate(X.items()):
            dtype = col.dtype
            # pandas 3 counts object as a string dtype: an object column is declared nothing, its values decide
            declared = isinstance(dtype, pd.CategoricalDtype) or (dtype != object
                                                                  and pd.api.types.is_string_dtype(dtype))
            if not (declared or dtype == object):
                continue
            values = col.astype(object)
            as_numbers = pd.to_numeric(values, errors="coerce")
            text = as_numbers.isna() & values.notna()
            if text.any() or (declared and not np.all(as_numbers.isna() | as_numbers.isin([0, 1]))):
                example = values[text].iloc[0] if text.any() else values.dropna().iloc[0]
                raise ValueError(f"X column {str(name)!r} is categorical ({dtype} values such as {example!r}): "
                                 f"an optimal tree over thresholds takes numeric and 0/1 columns; {ONE_HOT_HINT}")
        return
    a = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if a.ndim != 2 or a.dtype.kind not in "OUST":
        return
    for j in range(a.shape[1]):
        for v in a[:, j]:
            if isinstance(v, (str, bytes, np.str_, np.bytes_)) and not _is_number_text(v):
                raise ValueError(f"X column {j} (x{j}) holds text ({v!r}): an optimal tree over thresholds takes "
                                 f"numeric and 0/1 columns; {ONE_HOT_HINT}")


def _is_number_text(v) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def _refuse_non_finite(X: np.ndarray, names) -> None:
    """A ValueError naming the first column of ``X`` with NaN or an infinity."""
    bad = ~np.isfinite(np.asarray(X, dtype=np.float64))
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        i = int(np.flatnonzero(bad[:, j])[0])
        what = "NaN" if np.isnan(float(X[i, j])) else "infinity"
        raise ValueError(f"Input X contains {what} in column {_column_label(names, j)} (row {i}): optimal trees "
                         "need a value in every cell; impute or drop the missing values first")


def check_numeric_columns(X, names=None) -> np.ndarray:
    """``X`` (numpy array or DataFrame, rows x columns) as a float64 matrix of finite numbers, or a ValueError naming
    the column that holds text, categories, NaN or infinity (``names`` name the columns in the messages)."""
    _refuse_categories(X)
    names = names if names is not None else (list(X.columns) if isinstance(X, pd.DataFrame) else None)
    a = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    try:
        a = np.array(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X must hold numbers: {exc}") from None
    if a.ndim != 2:
        raise ValueError(f"X must be 2-D (samples x features), got an array of shape {a.shape}")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"X is empty: shape {a.shape}")
    _refuse_non_finite(a, names)
    return a
