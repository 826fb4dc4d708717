"""``Binarizer``: numeric and categorical columns to the 0/1 features the optbb solvers take, with printable names.

Numeric columns become threshold indicators (``age<26``; with ``intervals=True`` one indicator per interval,
``priors=2-3``), categorical columns one indicator per category (``sex=Male``), and columns that are already 0/1
pass through under their own name.  The output is a ``uint8`` matrix; ``get_feature_names_out`` names its columns,
so in a :class:`sklearn.pipeline.Pipeline` with ``set_output(transform="pandas")`` the fitted optbb model prints with
these names::

    from sklearn.pipeline import make_pipeline
    from optbb import Binarizer
    from optbb.corels import CorelsClassifier

    pipe = make_pipeline(Binarizer(n_thresholds=3), CorelsClassifier(regularization=0.01))
    pipe.set_output(transform="pandas").fit(X, y)     # X: a DataFrame with numeric and categorical columns
    print(pipe[-1])                                   # if ({age<26}) then ...
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data


def _fmt(v: float) -> str:
    """A threshold as people write it: ``26`` rather than ``26.0``, four significant digits otherwise."""
    v = float(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4g}"


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a table of numeric and categorical columns into 0/1 features with readable names.

    Parameters
    ----------
    n_thresholds : int, default 3
        Thresholds per numeric column, at the quantiles ``1/(n+1), ..., n/(n+1)`` of its values (snapped to values
        present in the data, duplicates dropped).  A numeric column with ``k`` thresholds gives ``k`` features
        ``col<t`` (or ``k + 1`` interval features with ``intervals=True``).
    thresholds : dict or None
        Thresholds to use instead of quantiles, ``{column: [t1, t2, ...]}`` (column by name for DataFrames, by index
        otherwise).  Columns not listed get quantile thresholds.
    categorical : "auto" or list
        Columns to one-hot encode.  ``"auto"``: the columns whose dtype is not numeric (object, string, category,
        bool columns with other values than 0/1).  A list names them (or gives their indices).
    intervals : bool, default False
        Numeric columns as intervals (``priors<1``, ``priors=1``, ``priors=2-3``, ``priors>=4``) instead of
        ``col<t`` indicators.  Intervals print as ``a-b`` for integer columns and ``a<=col<b`` otherwise.
    max_categories : int, default 50
        A categorical column with more distinct values raises ``ValueError`` (a likely mistake, e.g. an id column).

    Attributes
    ----------
    n_features_in_, feature_names_in_ (DataFrame input), thresholds_ (dict column -> thresholds used),
    categories_ (dict column -> categories), passthrough_ (columns already 0/1), specs_ (one entry per output
    column: ``(column, kind, value)``).
    """

    def __init__(self, n_thresholds=3, thresholds=None, categorical="auto", intervals=False, max_categories=50):
        self.n_thresholds = n_thresholds
        self.thresholds = thresholds
        self.categorical = categorical
        self.intervals = intervals
        self.max_categories = max_categories

    # -- helpers --------------------------------------------------------------------------------------------------
    def _frame(self, X, reset: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan", skip_check_array=True)
            df = X.copy()
            if reset:
                self._columns = [str(c) for c in X.columns]
            elif X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but Binarizer is expecting {self.n_features_in_} "
                                 "features as input")
            df.columns = self._columns
            return df
        arr = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan", accept_sparse=False,
                            ensure_min_features=1)
        if reset:
            self._columns = [f"x{j}" for j in range(arr.shape[1])]
        if arr.dtype.kind == "c":
            raise ValueError("Complex data not supported")
        return pd.DataFrame(arr, columns=self._columns)

    def _is_categorical(self, j: int, name: str, col: pd.Series) -> bool:
        if self.categorical == "auto":
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

    # -- fit / transform ------------------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Choose thresholds and categories column by column."""
        n = self.n_thresholds
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n_thresholds must be a positive integer, got {n!r}")
        if not isinstance(self.intervals, (bool, np.bool_)):
            raise ValueError(f"intervals must be True or False, got {self.intervals!r}")
        df = self._frame(X, reset=True)
        if df.shape[0] == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, %d)) while a minimum of 1 is required."
                             % df.shape[1])
        self.thresholds_, self.categories_, self.passthrough_, specs = {}, {}, [], []
        for j, name in enumerate(df.columns):
            col = df[name]
            if self._is_categorical(j, name, col):
                if col.isna().any():
                    raise ValueError(f"column {name!r} has missing values; fill them (e.g. with 'missing') first")
                bad = [v for v in col if not isinstance(v, (str, bool, np.bool_, numbers.Number))]
                if bad:
                    raise TypeError(f"column {name!r}: argument must be a string or a number, got "
                                    f"{type(bad[0]).__name__}")
                cats = sorted(pd.unique(col.astype(str)))
                if len(cats) > self.max_categories:
                    raise ValueError(f"column {name!r} has {len(cats)} categories (more than max_categories="
                                     f"{self.max_categories}); is it an identifier?")
                self.categories_[name] = cats
                specs += [(name, "eq", c) for c in cats]
                continue
            x = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64)
            if not np.all(np.isfinite(x)):
                raise ValueError(f"Input X contains NaN or infinity (column {name!r})")
            values = np.unique(x)
            given = self._given_thresholds(j, name)
            if given is None and set(values.tolist()) <= {0.0, 1.0}:
                self.passthrough_.append(name)
                specs.append((name, "id", None))
                continue
            if given is None:
                qs = np.quantile(x, np.arange(1, n + 1) / (n + 1), method="higher")
                t = np.unique(qs)
                t = t[t > values[0]]  # "col < min" would be empty
                if t.size == 0 and values.size > 1:
                    t = values[1:2]
            else:
                t = given
            self.thresholds_[name] = t
            integer = bool(np.all(x == np.round(x))) and bool(np.all(t == np.round(t)))
            if not self.intervals:
                specs += [(name, "lt", float(v)) for v in t]
            else:
                bounds = [-np.inf, *t.tolist(), np.inf]
                specs += [(name, "in", (bounds[k], bounds[k + 1], integer)) for k in range(len(bounds) - 1)]
        if not specs:
            raise ValueError(f"the Binarizer found no feature: every column is constant over the "
                             f"n_samples = {df.shape[0]} sample(s)")
        self.specs_ = specs
        self._names_out = np.asarray([self._spec_name(s) for s in specs], dtype=object)
        return self

    @staticmethod
    def _spec_name(spec) -> str:
        name, kind, v = spec
        if kind == "id":
            return name
        if kind == "eq":
            return f"{name}={v}"
        if kind == "lt":
            return f"{name}<{_fmt(v)}"
        lo, hi, integer = v
        if lo == -np.inf:
            return f"{name}<{_fmt(hi)}"
        if hi == np.inf:
            return f"{name}>={_fmt(lo)}"
        if integer:
            top = hi - 1
            return f"{name}={_fmt(lo)}" if top == lo else f"{name}={_fmt(lo)}-{_fmt(top)}"
        return f"{_fmt(lo)}<={name}<{_fmt(hi)}"

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
                x = pd.to_numeric(df[name], errors="raise").to_numpy(dtype=np.float64)
                if not np.all(np.isfinite(x)):
                    raise ValueError(f"Input X contains NaN or infinity (column {name!r})")
                numeric[name] = x
            x = numeric[name]
            if kind == "id":
                if np.any((x != 0) & (x != 1)):
                    raise ValueError(f"column {name!r} was 0/1 during fit but now has other values")
                out[:, k] = x == 1
            elif kind == "lt":
                out[:, k] = x < v
            else:
                lo, hi, _ = v
                out[:, k] = (x >= lo) & (x < hi)
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
