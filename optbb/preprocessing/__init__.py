"""``Binarizer``: numeric, time and categorical columns to the 0/1 features the optbb solvers take, with names.

Numeric columns become threshold indicators (``age<26``, or intervals ``priors=2-3``), categorical columns one
indicator per category (``sex=Male``); 0/1 columns pass through.  Thresholds are quantiles or, with
``strategy="gbdt"``, the splits of a gradient-boosted ensemble (the threshold guessing of GOSDT-guesses, McTavish et
al., AAAI 2022: a few well-chosen thresholds give models as accurate as many quantiles, and far smaller searches).
``get_feature_names_out`` names the ``uint8`` output columns, so in a pipeline with
``set_output(transform="pandas")`` the fitted optbb model prints with these names::

    from sklearn.pipeline import make_pipeline
    from optbb import Binarizer
    from optbb.corels import CorelsClassifier

    pipe = make_pipeline(Binarizer(n_thresholds=3), CorelsClassifier(regularization=0.01))
    pipe.set_output(transform="pandas").fit(X, y)     # X: a DataFrame with numeric and categorical columns
    print(pipe[-1])                                   # if ({age<26}) then ...
"""
from .binarizer import STRATEGIES, Binarizer
from .thresholds import ensemble_split_gains, top_thresholds

__all__ = ["Binarizer", "STRATEGIES", "ensemble_split_gains", "top_thresholds"]
