"""The :class:`Binarizer` estimator (see :mod:`optbb.preprocessing`)."""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..common.validation import Number
from .columns import (TIME_UNIT, category_key, category_keys, category_name, numeric_values, resolve_columns,
                      time_kind, time_values)
from .thresholds import (digits_to_distinguish, ensemble_split_gains, fmt, fmt_time, merge_rank_splits, needs_ranks,
                         quantile_thresholds, ranks, split_from_rank, top_thresholds, unique_names)

STRATEGIES = ("quantile", "gbdt")
# the 0/1 output of a threshold spec ``(name, kind, value)`` on its column's values ``x``
_TESTS = {"lt": lambda x, v: x < v, "le": lambda x, v: x <= v,
          "inr": lambda x, v: (x > v[0]) & (x <= v[1]), "in": lambda x, v: (x >= v[0]) & (x < v[1])}
_HELD = {None: "numbers", "datetime": "timezone-naive datetimes", "datetime-tz": "timezone-aware datetimes",
         "timedelta": "timedeltas"}


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a table of numeric, time and categorical columns into 0/1 features with readable names.

    Parameters
    ----------
    n_thresholds : int, default 3
        ``strategy="quantile"``: thresholds per numeric column, at the quantiles ``1/(n+1), ..., n/(n+1)`` of its
        values (snapped to values present in the data, duplicates dropped), each then printed as the shortest
        decimal that splits the training rows alike (``a<-0.4577``, not ``a<-0.45772582566733916``).  A numeric
        column with ``k`` thresholds gives ``k`` features ``col<t`` (or ``k + 1`` interval features with
        ``intervals=True``).
    strategy : "quantile" (default) or "gbdt"
        ``"gbdt"``: the thresholds a scikit-learn ``GradientBoostingClassifier(n_estimators, max_depth)`` fitted to
        ``(X, y)`` splits on (``fit`` then needs ``y``), features ``col<=t`` with ``t`` the midpoint between the two
        data values the ensemble splits between (e.g. ``age<=26.5``); intervals are then closed on the right
        (``age=27-30``, ``26.5<col<=30.5``).  A column whose order float32 (the precision of scikit-learn's trees)
        would lose (values near ``1e300``, differences below float32 precision, times) is given to the ensemble as
        ranks, its splits mapped back to values.  A numeric column the
        ensemble never splits on gives no feature.  The ensemble sees every column (categories one-hot), so it
        picks the thresholds that matter beside them.
    n_estimators, max_depth : int, default 40 and 1
        ``strategy="gbdt"``: the ensemble's number of trees and their depth (more and deeper: more thresholds).
    max_thresholds : int or None
        ``strategy="gbdt"``: keep only this many thresholds over all numeric columns, the most important first
        (impurity decrease summed over the ensemble's splits, as GOSDT-guesses keeps the most important features).
    random_state : int, RandomState or None, default 0
        ``strategy="gbdt"``: seeds the ensemble (its tie-breaking between equally good splits).
    thresholds : dict or None
        Thresholds to use instead of quantiles, ``{column: [t1, t2, ...]}``, at least one per listed column (dates
        such as ``"2020-01-03"`` for a datetime column, durations such as ``"3 days"`` for a timedelta column).
        Columns not listed get quantile thresholds.  Thresholds for a categorical column are a ``ValueError``.
    categorical : "auto" or list
        Columns to one-hot encode.  ``"auto"``: the columns whose dtype is neither numeric nor a time (object,
        string, category, bool columns with other values than 0/1).  A list names them; a text column the list
        leaves out raises ``ValueError``.
    intervals : bool, default False
        Numeric columns as intervals (``priors<1``, ``priors=1``, ``priors=2-3``, ``priors>=4``) instead of
        ``col<t`` indicators.  Intervals print as ``a-b`` for integer columns and ``a<=col<b`` otherwise.
    max_categories : int, default 50
        A categorical column with more distinct values raises ``ValueError`` (a likely mistake, e.g. an id column).
    handle_unknown : "error" (default) or "ignore"
        A category that ``transform`` meets but ``fit`` did not: a ``ValueError`` naming the column and the values,
        or (``"ignore"``) all zeros in that column's category features, as scikit-learn's ``OneHotEncoder``.

    Naming columns (keys of ``thresholds``, entries of ``categorical``): a DataFrame's columns are named by their
    labels only, whatever their type (``{0: [15]}`` is the column labelled ``0``, wherever it stands; ``"0"`` names
    a column labelled ``"0"``, not ``0``); an array's columns, which have no labels, by position ``0 .. n - 1`` only.
    A boolean names no column (``TypeError``); a key naming no column raises ``ValueError``.

    Categories are compared by value: a column fitted on ``[1, 2, 3]`` recognises ``2.0`` as ``2`` (pandas turns
    integers into floats beside a missing value), and ``"2"`` (text) as another category.  Missing values in a
    categorical column are a ``ValueError`` in ``fit`` and ``transform`` alike, as in numeric columns.

    Datetime and timedelta columns are read in nanoseconds whatever their unit (``datetime64[us]`` and
    ``datetime64[ns]`` alike; timezone-aware datetimes in UTC) and their thresholds print as round times
    (``date<2020-01-03``, ``date<2020-01-03 12:00:00 UTC``, ``wait<3 days 04:00:00``).  A column that held
    datetimes in ``fit`` must hold datetimes of the same kind (timezone-aware or not) in ``transform``.  Complex
    numbers are refused (``ValueError``): they have no order to cut.

    Output names are unique: when two outputs would print alike (a numeric column ``a`` with threshold 3 beside a
    0/1 column named ``a<3``), the 0/1 column keeps its name and the other gets the first free suffix ``_2``,
    ``_3``, ... (see :func:`optbb.preprocessing.thresholds.unique_names`).

    Attributes
    ----------
    n_features_in_, feature_names_in_ (DataFrame input), thresholds_ (dict column -> thresholds used; for time
    columns ``datetime64[ns]`` in UTC or ``timedelta64[ns]``), categories_ (dict column -> sorted categories, as
    values: ``1`` for ``1`` and ``1.0``), passthrough_ (columns already 0/1), specs_ (one entry per output column:
    ``(column, kind, value)``).
    """

    _parameter_constraints: dict = {
        "n_thresholds": [Number(numbers.Integral, 1, None, closed="left")],
        "intervals": ["boolean"],
        "strategy": [StrOptions(set(STRATEGIES))],
        "n_estimators": [Number(numbers.Integral, 1, None, closed="left")],
        "max_depth": [Number(numbers.Integral, 1, None, closed="left")],
        "max_thresholds": [Number(numbers.Integral, 1, None, closed="left"), None],
        "max_categories": [Number(numbers.Integral, 1, None, closed="left")],
        "handle_unknown": [StrOptions({"error", "ignore"})],
        "random_state": ["random_state"],
        **dict.fromkeys(("thresholds", "categorical"), "no_validation"),
    }  # thresholds and categorical are checked where they are read

    def __init__(self, n_thresholds=3, thresholds=None, categorical="auto", intervals=False, max_categories=50,
                 strategy="quantile", n_estimators=40, max_depth=1, max_thresholds=None, random_state=0,
                 handle_unknown="error"):
        self.n_thresholds = n_thresholds
        self.thresholds = thresholds
        self.categorical = categorical
        self.intervals = intervals
        self.max_categories = max_categories
        self.strategy = strategy
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_thresholds = max_thresholds
        self.random_state = random_state
        self.handle_unknown = handle_unknown

    # -- helpers --------------------------------------------------------------------------------------------------
    def _frame(self, X, reset: bool) -> pd.DataFrame:
        """``X`` as a DataFrame of the fitted column names (validate_data checks the columns against fit)."""
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan", skip_check_array=True)
            df = X.copy()
            if reset:
                self._columns = [str(c) for c in X.columns]
            df.columns = self._columns
            return df
        arr = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan", accept_sparse=False,
                            ensure_min_features=1)
        if reset:
            self._columns = [f"x{j}" for j in range(arr.shape[1])]
        return pd.DataFrame(arr, columns=self._columns)

    def _named_columns(self, labels: list | None, n: int) -> tuple[set | None, dict]:
        """``(positions of the categorical columns, or None for "auto"; {position: thresholds given})``."""
        cats = None
        if not (isinstance(self.categorical, str) and self.categorical == "auto"):
            if not isinstance(self.categorical, (list, tuple, set, np.ndarray)):
                raise ValueError(f"categorical must be 'auto' or a list of columns, got {self.categorical!r}")
            cats = set(resolve_columns("categorical", list(self.categorical), labels, n))
        if self.thresholds is not None and not isinstance(self.thresholds, dict):
            raise ValueError(f"thresholds must be a dict {{column: [values]}} or None, got {self.thresholds!r}")
        keys = list(self.thresholds or {})
        return cats, {j: self.thresholds[k] for j, k in zip(resolve_columns("thresholds", keys, labels, n), keys)}

    @staticmethod
    def _is_categorical(j: int, col: pd.Series, cats: set | None) -> bool:
        if cats is not None:
            return j in cats
        if time_kind(col) is not None or pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            return False
        try:  # numbers stored as objects are numeric
            pd.to_numeric(col, errors="raise")
            return False
        except (TypeError, ValueError):
            return True

    @staticmethod
    def _given_thresholds(name: str, given, tk: str | None) -> np.ndarray:
        """The thresholds given for one column, sorted and unique (int64 nanoseconds for a time column)."""
        items = np.asarray(given, dtype=object).reshape(-1)
        if items.size == 0:
            raise ValueError(f"thresholds for column {name!r} is empty: give at least one threshold, or leave the "
                             "column out of thresholds to get quantile thresholds")
        if tk is None:
            try:
                t = np.asarray(given, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                raise ValueError(f"thresholds for column {name!r} must be finite numbers, got {given!r}") from None
            if not np.all(np.isfinite(t)):
                raise ValueError(f"thresholds for column {name!r} must be finite numbers")
            return np.unique(t)
        what = "durations such as '3 days'" if tk == "timedelta" else "dates such as '2020-01-03'"
        out = []
        for v in items:
            if isinstance(v, (numbers.Number, np.number)) and not isinstance(v, np.timedelta64):
                raise ValueError(f"thresholds for column {name!r} must be {what}, got the number {v!r}")
            try:
                if tk == "timedelta":
                    out.append(pd.Timedelta(v).as_unit(TIME_UNIT).value)
                    continue
                ts = pd.Timestamp(v)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"thresholds for column {name!r} must be {what}, got {v!r} ({exc})") from None
            if (ts.tzinfo is not None) != (tk == "datetime-tz"):
                raise ValueError(f"thresholds for column {name!r}: {v!r} must {'' if ts.tzinfo is None else 'not '}"
                                 f"carry a timezone, as the column's datetimes "
                                 f"{'do' if ts.tzinfo is None else 'do not'}")
            out.append((ts.tz_convert("UTC").tz_localize(None) if ts.tzinfo else ts).as_unit(TIME_UNIT).value)
        return np.unique(np.asarray(out, dtype=np.int64))

    def _fit_categories(self, name: str, col: pd.Series) -> None:
        _, keys = category_keys(col, name)
        if len(keys) > self.max_categories:
            raise ValueError(f"column {name!r} has {len(keys)} categories (more than max_categories="
                             f"{self.max_categories}); is it an identifier?")
        self._cat_keys[name] = sorted(keys)
        self.categories_[name] = [k[1] for k in self._cat_keys[name]]

    def _category_positions(self, name: str, col: pd.Series) -> np.ndarray:
        """Each row's index in ``categories_[name]`` (-1: unknown, allowed by ``handle_unknown="ignore"``)."""
        codes, keys = category_keys(col, name)
        index = {k: p for p, k in enumerate(self._cat_keys[name])}
        pos = np.asarray([index.get(k, -1) for k in keys], dtype=np.int64)
        if self.handle_unknown == "error" and np.any(pos < 0):
            unknown = [category_name(k) for k in keys if k not in index]
            raise ValueError(f"Found unknown categories {unknown[:5]} in column {name!r} during transform; "
                             "handle_unknown='ignore' encodes them as all zeros")
        return pos[codes]

    def _ensemble_thresholds(self, df: pd.DataFrame, kinds: dict, values: dict, y) -> dict[str, np.ndarray]:
        """``{numeric column: thresholds}`` of the gradient-boosted ensemble fitted on every column (categories
        one-hot, columns that float32 would spoil as ranks); ``max_thresholds`` ranks the numeric columns' thresholds
        only."""
        if y is None:
            raise ValueError("strategy='gbdt' needs the labels: call fit(X, y)")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != df.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({df.shape[0]}), got shape {y.shape}")
        if pd.unique(y).size < 2:
            raise ValueError("strategy='gbdt' needs at least two classes in y")
        cols, blocks, distinct = [], [], {}
        for name in df.columns:
            if kinds[name] == "cat":
                pos = self._category_positions(name, df[name])
                blocks += [(pos == p).astype(np.float64) for p in range(len(self.categories_[name]))]
                cols += [None] * len(self.categories_[name])
                continue
            if kinds[name] == "num" and needs_ranks(values[name]):
                distinct[len(cols)], r = ranks(values[name])
                blocks.append(r)
            else:
                blocks.append(values[name])
            cols.append(name if kinds[name] == "num" else None)
        gains = merge_rank_splits(ensemble_split_gains(np.column_stack(blocks), y, self.n_estimators, self.max_depth,
                                                       self.random_state), set(distinct))
        found = top_thresholds(gains, {j for j, c in enumerate(cols) if c is not None}, self.max_thresholds)
        out = {}
        for j, t in found.items():
            tk = self._time.get(cols[j])
            if j in distinct:
                t = np.asarray([split_from_rank(distinct[j], v, tk) for v in t],
                               dtype=np.float64 if tk is None else np.int64)
            out[cols[j]] = t
        return out

    # -- fit / transform ------------------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Choose thresholds and categories column by column (``y`` is needed by ``strategy="gbdt"`` only)."""
        self._validate_params()
        df = self._frame(X, reset=True)
        if df.shape[0] == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, %d)) while a minimum of 1 is required."
                             % df.shape[1])
        cats, given = self._named_columns(list(X.columns) if isinstance(X, pd.DataFrame) else None, df.shape[1])
        self.thresholds_, self.categories_, self.passthrough_ = {}, {}, []
        self._cat_keys, self._time = {}, {}  # sorted category keys; time kind of datetime / timedelta columns
        self._kinds = kinds = {}  # "cat", "id" (0/1, passed through), "given" (user thresholds) or "num"
        values: dict[str, np.ndarray] = {}
        for j, name in enumerate(df.columns):
            col = df[name]
            if self._is_categorical(j, col, cats):
                if j in given:
                    raise ValueError(f"thresholds names column {name!r}, which is categorical (one feature per "
                                     "category); thresholds apply to numeric and time columns only")
                self._fit_categories(name, col)
                kinds[name] = "cat"
                continue
            tk = time_kind(col)
            if tk is not None:
                self._time[name] = tk
            values[name] = x = numeric_values(col, name) if tk is None else time_values(col, name, tk)
            if j in given:
                self.thresholds_[name] = self._given_thresholds(name, given[j], tk)
                kinds[name] = "given"
            elif tk is None and set(np.unique(x).tolist()) <= {0.0, 1.0}:
                kinds[name] = "id"
            else:
                kinds[name] = "num"
        if self.strategy == "gbdt":
            guessed = self._ensemble_thresholds(df, kinds, values, y)
        else:
            guessed = {c: quantile_thresholds(values[c], self.n_thresholds) for c in df.columns if kinds[c] == "num"}
        self.thresholds_.update(guessed)  # after the given ones, numeric columns in column order
        specs = []
        for name in df.columns:
            kind = kinds[name]
            if kind == "cat":
                specs += [(name, "eq", c) for c in self.categories_[name]]
            elif kind == "id":
                self.passthrough_.append(name)
                specs.append((name, "id", None))
            elif name in self.thresholds_:  # given or guessed; "le": the ensemble's splits read x <= t
                specs += self._threshold_specs(name, values[name], self.thresholds_[name],
                                               kind == "num" and self.strategy == "gbdt")
        if not specs:
            raise ValueError(self._no_feature_message(values))
        self.specs_ = specs
        self._digits = {name: digits_to_distinguish(t, values[name]) for name, t in self.thresholds_.items()
                        if name not in self._time}
        for name, tk in self._time.items():
            if name in self.thresholds_:
                self.thresholds_[name] = self.thresholds_[name].astype(np.int64).view(
                    f"{'timedelta64' if tk == 'timedelta' else 'datetime64'}[{TIME_UNIT}]")
        names = [self._spec_name(s) for s in specs]
        self._names_out = np.asarray(unique_names(names, [s[1] == "id" for s in specs]), dtype=object)
        return self

    def _no_feature_message(self, values: dict) -> str:
        """Why no column gave a feature: each is numeric (0/1, categorical and given columns always give some)."""
        n = next(iter(values.values())).shape[0]
        varied = [name for name, x in values.items() if np.unique(x).size > 1]
        if not varied:
            return f"the Binarizer found no feature: every column is constant over the n_samples = {n} sample(s)"
        return (f"the Binarizer found no feature: strategy='gbdt' fitted an ensemble that splits on none of the "
                f"numeric columns {varied[:5]}; use strategy='quantile' or give thresholds")

    def _threshold_specs(self, name: str, x: np.ndarray, t: np.ndarray, le: bool) -> list:
        """``(name, "lt"|"le", t)`` per threshold, or with ``intervals`` ``(name, "in"|"inr", (lo, hi, integer))``;
        a time column's thresholds are ints (nanoseconds), compared exactly with its int64 values."""
        number = float if name not in self._time else int
        integer = name not in self._time and bool(np.all(x == np.round(x)))
        if not self.intervals:
            return [(name, "le" if le else "lt", number(v)) for v in t]
        bounds = [-np.inf, *[number(v) for v in t], np.inf]
        if not le:
            integer = integer and bool(np.all(t == np.round(t)))
        return [(name, "inr" if le else "in", (bounds[k], bounds[k + 1], integer)) for k in range(len(bounds) - 1)]

    def _spec_name(self, spec) -> str:
        name, kind, v = spec
        if kind == "id":
            return name
        if kind == "eq":
            return f"{name}={category_name(category_key(v, name))}"
        digits = getattr(self, "_digits", {}).get(name, 4)
        tk = self._time.get(name)
        f = (lambda u: fmt_time(u, tk)) if tk else (lambda u: fmt(u, digits))  # noqa: E731
        if kind == "lt":
            return f"{name}<{f(v)}"
        if kind == "le":
            return f"{name}<={f(v)}"
        lo, hi, integer = v
        if kind == "inr":  # (lo, hi]: integers lo < k <= hi are floor(lo) + 1 .. floor(hi)
            if integer:
                first = -np.inf if lo == -np.inf else np.floor(lo) + 1
                last = np.inf if hi == np.inf else np.floor(hi)
                if first == -np.inf:
                    return f"{name}<={f(last)}"
                if last == np.inf:
                    return f"{name}>={f(first)}"
                return f"{name}={f(first)}" if first == last else f"{name}={f(first)}-{f(last)}"
            if lo == -np.inf:
                return f"{name}<={f(hi)}"
            if hi == np.inf:
                return f"{name}>{f(lo)}"
            return f"{f(lo)}<{name}<={f(hi)}"
        if lo == -np.inf:
            return f"{name}<{f(hi)}"
        if hi == np.inf:
            return f"{name}>={f(lo)}"
        if integer:
            top = hi - 1
            return f"{name}={f(lo)}" if top == lo else f"{name}={f(lo)}-{f(top)}"
        return f"{f(lo)}<={name}<{f(hi)}"

    def _read(self, name: str, col: pd.Series) -> np.ndarray:
        """A column in ``transform`` as ``fit`` read it: category positions, float64 numbers or int64 times."""
        if self._kinds[name] == "cat":
            return self._category_positions(name, col)
        tk, now = self._time.get(name), time_kind(col)
        if tk != now:
            raise ValueError(f"column {name!r} held {_HELD[tk]} during fit but holds {_HELD[now]} ({col.dtype}) now")
        return numeric_values(col, name) if tk is None else time_values(col, name, tk)

    def transform(self, X):
        """The 0/1 matrix (``uint8``), one column per entry of ``get_feature_names_out()``."""
        check_is_fitted(self, "specs_")
        df = self._frame(X, reset=False)
        out = np.zeros((df.shape[0], len(self.specs_)), dtype=np.uint8)
        columns: dict[str, np.ndarray] = {}
        for k, (name, kind, v) in enumerate(self.specs_):
            if name not in columns:
                columns[name] = self._read(name, df[name])
            x = columns[name]
            if kind == "eq":
                out[:, k] = x == self._cat_keys[name].index(category_key(v, name))
            elif kind == "id":
                if np.any((x != 0) & (x != 1)):
                    raise ValueError(f"column {name!r} was 0/1 during fit but now has other values")
                out[:, k] = x == 1
            else:
                out[:, k] = _TESTS[kind](x, v)
        return out

    def get_feature_names_out(self, input_features=None):
        """Printable names of the output columns (``age<26``, ``sex=Male``, ``priors=2-3``)."""
        check_is_fitted(self, "specs_")
        return self._names_out.copy()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.requires_fit = True
        tags.transformer_tags.preserves_dtype = []  # always uint8
        return tags
