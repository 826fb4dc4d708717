"""The :class:`Binarizer` estimator (see :mod:`optbb.preprocessing`)."""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..common.validation import Number


STRATEGIES = ("quantile", "gbdt")
# the 0/1 output of a threshold spec ``(name, kind, value)`` on its column's values ``x``
_TESTS = {"lt": lambda x, v: x < v, "le": lambda x, v: x <= v,
          "inr": lambda x, v: (x > v[0]) & (x <= v[1]), "in": lambda x, v: (x >= v[0]) & (x < v[1])}


def _fmt(v: float, digits: int = 4) -> str:
    """A threshold as people write it: ``26`` rather than ``26.0``, ``digits`` significant digits otherwise."""
    v = float(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{digits}g}"


def _digits_to_distinguish(values, data) -> int:
    """The fewest significant digits (at least 4) under which the thresholds of one column print differently and
    each printed number splits the column's training values as the threshold itself does (``<`` and ``<=``); 17
    digits print any double exactly."""
    values = [float(v) for v in values]
    data = np.unique(np.asarray(data, dtype=np.float64))
    for d in range(4, 17):
        printed = [_fmt(v, d) for v in values]
        if len(set(printed)) == len(values) and all(
                np.array_equal(data < v, data < float(p)) and np.array_equal(data <= v, data <= float(p))
                for v, p in zip(values, printed)):
            return d
    return 17


def _numeric(col: pd.Series, name: str) -> np.ndarray:
    try:
        x = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"column {name!r} is not numeric ({exc}); mark it categorical when fitting") from None
    if not np.all(np.isfinite(x)):
        raise ValueError(f"Input X contains NaN or infinity (column {name!r})")
    return x


def _unique_names(names: list[str], keep_first: list[bool]) -> list[str]:
    """Unique output names: those marked ``keep_first`` claim their name first, then the others in output order; a
    name already claimed gets the first suffix ``_2``, ``_3``, ... used by no other output, original or renamed."""
    taken = set(names)
    claimed: set[str] = set()
    out = list(names)
    order = [k for k in range(len(names)) if keep_first[k]] + [k for k in range(len(names)) if not keep_first[k]]
    for k in order:
        name = names[k]
        if name in claimed:
            i = 2
            while f"{name}_{i}" in taken:
                i += 1
            name = f"{name}_{i}"
            taken.add(name)
        claimed.add(name)
        out[k] = name
    return out


def ensemble_split_gains(X: np.ndarray, y, n_estimators: int = 40, max_depth: int = 1, random_state=0,
                         learning_rate: float = 0.1) -> dict[tuple[int, float], float]:
    """``{(column, threshold): importance}`` of every split ``x_column <= threshold`` of a gradient-boosted ensemble.

    A scikit-learn ``GradientBoostingClassifier(n_estimators, max_depth, learning_rate)`` is fitted to ``(X, y)``.
    A threshold's importance is the impurity decrease of the splits that use it, each weighted by its node's
    training weight, summed over the ensemble: the quantity scikit-learn's ``feature_importances_`` sums per column.
    """
    from sklearn.ensemble import GradientBoostingClassifier

    gb = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=max_depth, learning_rate=learning_rate,
                                    random_state=random_state).fit(X, y)
    gain: dict[tuple[int, float], float] = {}
    for tree in np.asarray(gb.estimators_).ravel():
        t = tree.tree_
        w, imp = t.weighted_n_node_samples, t.impurity
        for node in np.flatnonzero(t.children_left >= 0):
            left, right = t.children_left[node], t.children_right[node]
            g = w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]
            key = (int(t.feature[node]), float(t.threshold[node]))
            gain[key] = gain.get(key, 0.0) + max(float(g), 0.0)
    return gain


def top_thresholds(gains: dict[tuple[int, float], float], columns=None,
                   max_thresholds: int | None = None) -> dict[int, np.ndarray]:
    """``{column: sorted thresholds}`` from :func:`ensemble_split_gains`, restricted to ``columns`` (all if None),
    keeping the ``max_thresholds`` most important (ties: column, then threshold order) when it is given."""
    keys = sorted((k for k in gains if columns is None or k[0] in columns), key=lambda k: (-gains[k], k))
    if max_thresholds is not None:
        keys = keys[:max_thresholds]
    out: dict[int, list[float]] = {}
    for j, thr in keys:
        out.setdefault(j, []).append(thr)
    return {j: np.unique(np.asarray(v, dtype=np.float64)) for j, v in sorted(out.items())}


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a table of numeric and categorical columns into 0/1 features with readable names.

    Parameters
    ----------
    n_thresholds : int, default 3
        ``strategy="quantile"``: thresholds per numeric column, at the quantiles ``1/(n+1), ..., n/(n+1)`` of its
        values (snapped to values present in the data, duplicates dropped).  A numeric column with ``k`` thresholds
        gives ``k`` features ``col<t`` (or ``k + 1`` interval features with ``intervals=True``).
    strategy : "quantile" (default) or "gbdt"
        ``"gbdt"``: the thresholds a scikit-learn ``GradientBoostingClassifier(n_estimators, max_depth)`` fitted to
        ``(X, y)`` splits on (``fit`` then needs ``y``), features ``col<=t`` with ``t`` the ensemble's threshold
        (a midpoint between two data values, e.g. ``age<=26.5``); intervals are then closed on the right
        (``age=27-30``, ``26.5<col<=30.5``).  A numeric column the ensemble never splits on gives no feature.  The
        ensemble sees every column (categories one-hot), so it picks the thresholds that matter beside them.
    n_estimators, max_depth : int, default 40 and 1
        ``strategy="gbdt"``: the ensemble's number of trees and their depth (more and deeper: more thresholds).
    max_thresholds : int or None
        ``strategy="gbdt"``: keep only this many thresholds over all numeric columns, the most important first
        (impurity decrease summed over the ensemble's splits, as GOSDT-guesses keeps the most important features).
    random_state : int, default 0
        ``strategy="gbdt"``: seeds the ensemble (its tie-breaking between equally good splits).
    thresholds : dict or None
        Thresholds to use instead of quantiles, ``{column: [t1, t2, ...]}`` (column by name for DataFrames, by index
        otherwise).  Columns not listed get quantile thresholds; a key that is no column raises ``ValueError``.
    categorical : "auto" or list
        Columns to one-hot encode.  ``"auto"``: the columns whose dtype is not numeric (object, string, category,
        bool columns with other values than 0/1).  A list names them (or gives their indices); a name that is no
        column raises ``ValueError``, and so does a text column the list leaves out.
    intervals : bool, default False
        Numeric columns as intervals (``priors<1``, ``priors=1``, ``priors=2-3``, ``priors>=4``) instead of
        ``col<t`` indicators.  Intervals print as ``a-b`` for integer columns and ``a<=col<b`` otherwise.
    max_categories : int, default 50
        A categorical column with more distinct values raises ``ValueError`` (a likely mistake, e.g. an id column).

    Output names are unique: when two outputs would print alike (a numeric column ``a`` with threshold 3 beside a
    0/1 column named ``a<3``), the 0/1 column keeps its name and the other gets the first free suffix ``_2``,
    ``_3``, ... (see :func:`_unique_names`).

    Attributes
    ----------
    n_features_in_, feature_names_in_ (DataFrame input), thresholds_ (dict column -> thresholds used),
    categories_ (dict column -> categories), passthrough_ (columns already 0/1), specs_ (one entry per output
    column: ``(column, kind, value)``).
    """

    _parameter_constraints: dict = {
        "n_thresholds": [Number(numbers.Integral, 1, None, closed="left")],
        "intervals": ["boolean"],
        "strategy": [StrOptions(set(STRATEGIES))],
        "n_estimators": [Number(numbers.Integral, 1, None, closed="left")],
        "max_depth": [Number(numbers.Integral, 1, None, closed="left")],
        "max_thresholds": [Number(numbers.Integral, 1, None, closed="left"), None],
        **dict.fromkeys(("thresholds", "categorical", "max_categories", "random_state"), "no_validation"),
    }  # thresholds and categorical are checked where they are read

    def __init__(self, n_thresholds=3, thresholds=None, categorical="auto", intervals=False, max_categories=50,
                 strategy="quantile", n_estimators=40, max_depth=1, max_thresholds=None, random_state=0):
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

    def _is_categorical(self, j: int, name: str, col: pd.Series) -> bool:
        if isinstance(self.categorical, str) and self.categorical == "auto":
            if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                return False
            try:  # numbers stored as objects are numeric
                pd.to_numeric(col, errors="raise")
                return False
            except (TypeError, ValueError):
                return True
        if not isinstance(self.categorical, (list, tuple, set, np.ndarray)):
            raise ValueError(f"categorical must be 'auto' or a list of columns, got {self.categorical!r}")
        return name in self.categorical or j in self.categorical

    def _check_named_columns(self, columns: list[str]) -> None:
        """Every column that ``categorical`` or ``thresholds`` names (by name or index) is a column of X."""
        for param, keys, kinds in (("categorical", self.categorical, (list, tuple, set, np.ndarray)),
                                   ("thresholds", self.thresholds, dict)):
            if isinstance(keys, kinds):
                unknown = [k for k in keys if k not in columns
                           and not (isinstance(k, numbers.Integral) and 0 <= k < len(columns))]
                if unknown:
                    raise ValueError(f"{param} names columns that X does not have: {unknown[:5]}")

    def _given_thresholds(self, j: int, name: str):
        if self.thresholds is None:
            return None
        if not isinstance(self.thresholds, dict):
            raise ValueError(f"thresholds must be a dict {{column: [values]}} or None, got {self.thresholds!r}")
        for key in (name, j):
            if key in self.thresholds:
                t = np.asarray(self.thresholds[key], dtype=np.float64).reshape(-1)
                if not np.all(np.isfinite(t)):
                    raise ValueError(f"thresholds for column {name!r} must be finite numbers")
                return np.unique(t)
        return None

    def _categories(self, name: str, col: pd.Series) -> list[str]:
        if col.isna().any():
            raise ValueError(f"column {name!r} has missing values; fill them (e.g. with 'missing') first")
        bad = [v for v in col if not isinstance(v, (str, bool, np.bool_, numbers.Number))]
        if bad:
            raise TypeError(f"column {name!r}: argument must be a string or a number, got {type(bad[0]).__name__}")
        cats = sorted(pd.unique(col.astype(str)))
        if len(cats) > self.max_categories:
            raise ValueError(f"column {name!r} has {len(cats)} categories (more than max_categories="
                             f"{self.max_categories}); is it an identifier?")
        return cats

    def _quantile_thresholds(self, x: np.ndarray, values: np.ndarray) -> np.ndarray:
        n = self.n_thresholds
        t = np.unique(np.quantile(x, np.arange(1, n + 1) / (n + 1), method="higher"))
        t = t[t > values[0]]  # "col < min" would be empty
        if t.size == 0 and values.size > 1:
            t = values[1:2]
        return t

    def _ensemble_thresholds(self, df: pd.DataFrame, kinds: dict, numeric: dict, y) -> dict[str, np.ndarray]:
        """``{numeric column: thresholds}`` of the gradient-boosted ensemble fitted on every column (categories
        one-hot, 0/1 columns as they are); ``max_thresholds`` ranks the numeric columns' thresholds only."""
        if y is None:
            raise ValueError("strategy='gbdt' needs the labels: call fit(X, y)")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != df.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({df.shape[0]}), got shape {y.shape}")
        if pd.unique(y).size < 2:
            raise ValueError("strategy='gbdt' needs at least two classes in y")
        cols, blocks = [], []
        for name in df.columns:
            if kinds[name] == "cat":
                blocks += [(df[name].astype(str).to_numpy() == c).astype(np.float64) for c in self.categories_[name]]
                cols += [None] * len(self.categories_[name])
            else:
                blocks.append(numeric[name])
                cols.append(name if kinds[name] == "num" else None)
        gains = ensemble_split_gains(np.column_stack(blocks), y, self.n_estimators, self.max_depth,
                                     self.random_state)
        found = top_thresholds(gains, {j for j, c in enumerate(cols) if c is not None}, self.max_thresholds)
        return {cols[j]: t for j, t in found.items()}

    # -- fit / transform ------------------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Choose thresholds and categories column by column (``y`` is needed by ``strategy="gbdt"`` only)."""
        self._validate_params()
        df = self._frame(X, reset=True)
        if df.shape[0] == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, %d)) while a minimum of 1 is required."
                             % df.shape[1])
        self._check_named_columns(list(df.columns))
        self.thresholds_, self.categories_, self.passthrough_ = {}, {}, []
        kinds: dict[str, str] = {}  # "cat", "id" (0/1, passed through), "given" (user thresholds) or "num"
        numeric: dict[str, np.ndarray] = {}
        for j, name in enumerate(df.columns):
            col = df[name]
            if self._is_categorical(j, name, col):
                self.categories_[name] = self._categories(name, col)
                kinds[name] = "cat"
                continue
            numeric[name] = x = _numeric(col, name)
            given = self._given_thresholds(j, name)
            if given is not None:
                self.thresholds_[name] = given
                kinds[name] = "given"
            elif set(np.unique(x).tolist()) <= {0.0, 1.0}:
                kinds[name] = "id"
            else:
                kinds[name] = "num"
        if self.strategy == "gbdt":
            guessed = self._ensemble_thresholds(df, kinds, numeric, y)
        else:
            guessed = {c: self._quantile_thresholds(numeric[c], np.unique(numeric[c])) for c in df.columns
                       if kinds[c] == "num"}
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
                specs += self._threshold_specs(name, numeric[name], self.thresholds_[name],
                                               kind == "num" and self.strategy == "gbdt")
        if not specs:
            raise ValueError(f"the Binarizer found no feature: every column is constant over the "
                             f"n_samples = {df.shape[0]} sample(s)")
        self.specs_ = specs
        self._digits = {name: _digits_to_distinguish(t, numeric[name]) for name, t in self.thresholds_.items()}
        names = [self._spec_name(s) for s in specs]
        self._names_out = np.asarray(_unique_names(names, [s[1] == "id" for s in specs]), dtype=object)
        return self

    def _threshold_specs(self, name: str, x: np.ndarray, t: np.ndarray, le: bool) -> list:
        """``(name, "lt"|"le", t)`` per threshold, or with ``intervals`` ``(name, "in"|"inr", (lo, hi, integer))``."""
        integer = bool(np.all(x == np.round(x)))
        if not self.intervals:
            return [(name, "le" if le else "lt", float(v)) for v in t]
        bounds = [-np.inf, *t.tolist(), np.inf]
        if not le:
            integer = integer and bool(np.all(t == np.round(t)))
        return [(name, "inr" if le else "in", (bounds[k], bounds[k + 1], integer)) for k in range(len(bounds) - 1)]

    def _spec_name(self, spec) -> str:
        name, kind, v = spec
        if kind == "id":
            return name
        if kind == "eq":
            return f"{name}={v}"
        digits = getattr(self, "_digits", {}).get(name, 4)
        f = lambda u: _fmt(u, digits)  # noqa: E731
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

    def transform(self, X):
        """The 0/1 matrix (``uint8``), one column per entry of ``get_feature_names_out()``."""
        check_is_fitted(self, "specs_")
        df = self._frame(X, reset=False)
        out = np.zeros((df.shape[0], len(self.specs_)), dtype=np.uint8)
        numeric: dict[str, np.ndarray] = {}
        for k, (name, kind, v) in enumerate(self.specs_):
            if kind == "eq":
                out[:, k] = (df[name].astype(str).to_numpy() == v)
                continue
            if name not in numeric:
                numeric[name] = _numeric(df[name], name)
            x = numeric[name]
            if kind == "id":
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
