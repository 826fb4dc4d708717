"""The scikit-learn estimator checks optbb's estimators are expected to fail, each with its reason.

The optbb solvers take 0/1 features only (``X`` with any other value raises ``ValueError`` pointing to
:class:`optbb.Binarizer`), while most of scikit-learn's checks fit on random real-valued data.  Those checks are
listed here and run as expected failures; every other check must pass.  The same checks also run on
``make_pipeline(Binarizer(), estimator)``, where they fit on binarised data and so exercise the estimator contract
itself (clone, pickle, idempotent fit, sample-order invariance, ...).  ``docs/sklearn_compatibility.md`` reads the same.

Use::

    from sklearn.utils.estimator_checks import check_estimator
    from sklearn_checks import expected_failed_checks      # this file, tests/sklearn_checks.py
    check_estimator(est, expected_failed_checks=expected_failed_checks(est))
"""
from __future__ import annotations

BINARY_X = "binary-only input: the check fits on real-valued X, optbb estimators take 0/1 features (use Binarizer)"

# checks that fit on real-valued X (all four estimators)
BINARY_INPUT_CHECKS = (
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_classifiers_train",
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency", "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input", "check_sample_weight_equivalence_on_dense_data", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series", "check_sample_weights_shape", "check_supervised_y_2d",
)
# estimators with both predict_proba and decision_function (all optbb classifiers) also run these
FRL_EXTRA = ("check_decision_proba_consistency",)
# estimators with a class_weight parameter also run these
CLASS_WEIGHT_CHECKS = ("check_class_weight_classifiers",)

PIPELINE = "Pipeline's own behaviour: Pipeline.fit replaces its `steps` parameter, which the check forbids"
PIPELINE_CHECKS = ("check_estimators_overwrite_params", "check_dont_overwrite_parameters")


def expected_failed_checks(estimator) -> dict[str, str]:
    """``{check name: reason}`` for an optbb estimator, the Binarizer or a Pipeline ending in an optbb estimator."""
    from sklearn.pipeline import Pipeline

    from optbb.preprocessing import Binarizer

    if isinstance(estimator, Pipeline):
        return {name: PIPELINE for name in PIPELINE_CHECKS}
    if isinstance(estimator, Binarizer):
        return {}
    if type(estimator).__name__ == "OSDTClassifier":  # takes numeric columns (every cut is a feature): passes all
        return {}
    out = {name: BINARY_X for name in BINARY_INPUT_CHECKS}
    if hasattr(estimator, "predict_proba") and hasattr(estimator, "decision_function"):
        out.update({name: BINARY_X for name in FRL_EXTRA})
    if "class_weight" in estimator.get_params(deep=False):
        out.update({name: BINARY_X for name in CLASS_WEIGHT_CHECKS})
    return out
