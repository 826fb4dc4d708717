"""Input validation shared by the estimators (scikit-learn conventions, clear errors, no mutation of inputs)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .data import check_binary_arrays


def feature_names_of(X) -> np.ndarray | None:
    """Column names of a DataFrame with all-string column labels (sklearn's ``feature_names_in_`` rule)."""
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(X.columns, dtype=object)
    return None


def validate_fit_input(X, y, sample_weight=None):
    """Return ``(X01, y01, classes, names, weights)``: binary feature matrix, labels encoded 0/1 by sorted class,
    the two classes, printable feature names and validated weights.  Raises ``ValueError`` naming the problem."""
    if y is None:
        raise ValueError("y is required: this estimator needs labels to fit")
    y_arr = np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y_arr.shape}")
    if y_arr.dtype.kind == "f" and not np.all(np.isfinite(y_arr)):
        raise ValueError("y contains NaN or inf")
    if y_arr.dtype.kind == "O" and pd.isna(y_arr).any():
        raise ValueError("y contains missing values")
    classes, y_enc = np.unique(y_arr, return_inverse=True)
    if len(classes) == 1:
        raise ValueError(f"y has a single class ({classes[0]!r}); a classifier needs two classes")
    if len(classes) > 2:
        raise ValueError(f"y has {len(classes)} classes; only binary classification is supported")
    names = feature_names_of(X)
    X01, y01, w = check_binary_arrays(X, y_enc.reshape(-1), sample_weight)
    printable = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(X01.shape[1])]
    if len(set(printable)) != len(printable):
        raise ValueError("duplicate feature names")
    return X01, y01, classes, names, w


def validate_predict_input(estimator, X) -> np.ndarray:
    """Binary matrix with the fitted number of columns (and the fitted names when X is a DataFrame)."""
    check_is_fitted(estimator)
    names = feature_names_of(X)
    fitted = getattr(estimator, "feature_names_in_", None)
    if names is not None and fitted is not None and list(names) != list(fitted):
        raise ValueError("the feature names of X differ from those seen in fit")
    X01, _, _ = check_binary_arrays(X, np.zeros(np.shape(X)[0] if np.ndim(X) else 0))
    if X01.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X01.shape[1]} features, but the model was fitted with {estimator.n_features_in_}")
    return X01
