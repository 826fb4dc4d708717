"""Bad input to every estimator, to ``solve`` and to the limits: refused with an error naming the problem, inputs
left untouched."""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from optbb.common.data import BinaryDataset, from_arrays, from_dataframe
from optbb.common.limits import Limits
from optbb.common.proba import smoothed_probabilities
from optbb.common.result import SearchResult, Status
from optbb.common.validation import expand_weights
from optbb.corels import CorelsClassifier, solve as corels_solve
from optbb.frl import FRLClassifier, SoftFRLClassifier, solve as frl_solve
from optbb.osdt import OSDTClassifier

from .support import _good


def _bad_cases():
    X, y = _good()
    Xf = X.astype(np.float64)
    return {
        "non_binary": (np.where(X == 1, 2, 0), y, r"binary|0 and 1|0/1"),
        "nan_in_X": (np.where(X == 1, np.nan, 0.0), y, r"NaN"),
        "inf_in_X": (np.where(X == 1, np.inf, 0.0), y, r"inf"),
        "nan_in_y": (Xf, np.where(y == 1, np.nan, 0.0), r"NaN"),
        "single_class": (X, np.zeros(len(y), dtype=np.uint8), r"single class|one class|two classes"),
        "three_classes": (X, np.arange(len(y)) % 3, r"binary|classes"),
        "empty": (np.zeros((0, 4), dtype=np.uint8), np.zeros(0, dtype=np.uint8), r"0 sample|empty"),
        "zero_features": (np.zeros((40, 0), dtype=np.uint8), y, r"0 feature"),
        "length_mismatch": (X, y[:-1], r"length mismatch|inconsistent|samples"),
        "duplicate_names": (pd.DataFrame(X, columns=["a", "a", "b", "c"]), y, r"[Dd]uplicate|unique"),
        "text_values": (X.astype(str).astype(object) + "x", y, r"numeric|string|binary"),
        "three_dims": (X.reshape(40, 2, 2), y, r"2-D|dim"),
        "two_column_y": (X, np.stack([y, y], axis=1), r"y must be 1-D"),
        "missing_label": (X, np.where(y == 1, "yes", None), r"y contains missing values"),
        "mixed_label_types": (X, np.array([1 if v else "no" for v in y], dtype=object), r"y mixes labels of different"),
    }


ESTIMATORS = {
    "corels": lambda **kw: CorelsClassifier(max_card=1, **kw),
    "osdt": lambda **kw: OSDTClassifier(**kw),
    "frl": lambda **kw: FRLClassifier(n_iter=50, random_state=0, min_class_support=0.05, **kw),
    "softfrl": lambda **kw: SoftFRLClassifier(n_iter=50, random_state=0, min_class_support=0.05, **kw),
}


def _fingerprint(a) -> str:
    if isinstance(a, pd.DataFrame):
        meta = repr((list(a.columns), [str(t) for t in a.dtypes], list(a.index)))
        return hashlib.sha256(a.to_numpy().tobytes() + meta.encode()).hexdigest()
    if isinstance(a, pd.Series):
        meta = repr((a.name, str(a.dtype), list(a.index)))
        return hashlib.sha256(a.to_numpy().tobytes() + meta.encode()).hexdigest()
    if isinstance(a, list):
        return hashlib.sha256(repr(a).encode()).hexdigest()
    arr = np.asarray(a)
    return hashlib.sha256(arr.tobytes() + repr((arr.dtype.str, arr.shape)).encode()).hexdigest()


def _binoct(**kw):
    from optbb.baselines.binoct import BinOCTClassifier

    return BinOCTClassifier(max_depth=2, time_limit=5, **kw)


# BinOCT takes 0/1 features like the solvers (the rpart-style CART baseline takes real values, NaN and several
# classes, as scikit-learn's trees do, so it is not in this catalogue)
BAD_INPUT_ESTIMATORS = {**ESTIMATORS, "binoct": _binoct}
MULTICLASS = {"osdt"}  # estimators that take k >= 2 classes


@pytest.mark.parametrize("case", sorted(_bad_cases()))
@pytest.mark.parametrize("name", sorted(BAD_INPUT_ESTIMATORS))
def test_bad_input_is_refused_and_not_modified(name, case):
    if name == "corels" and case == "three_classes":
        pytest.skip("CORELS takes k >= 2 classes (tests/test_corels_weights_classes.py)")
    X, y, match = _bad_cases()[case]
    before = (_fingerprint(X), _fingerprint(y))
    if case == "three_classes" and name in MULTICLASS:  # not bad input for them: fitted, input untouched
        assert len(BAD_INPUT_ESTIMATORS[name]().fit(X, y).classes_) == 3
    elif case == "non_binary" and name == "osdt":  # OSDT takes numeric columns (every threshold): fitted, untouched
        est = BAD_INPUT_ESTIMATORS[name]().fit(X, y)
        assert est.tree_.cuts is not None and np.array_equal(est.predict(X), est.predict(X.astype(np.float64)))
    else:
        with pytest.raises((ValueError, TypeError), match=match):
            BAD_INPUT_ESTIMATORS[name]().fit(X, y)
    assert (_fingerprint(X), _fingerprint(y)) == before


@pytest.mark.parametrize("name", sorted(BAD_INPUT_ESTIMATORS))
def test_repeated_feature_names_are_refused(name):
    X, y = _good()
    with pytest.raises(ValueError, match="feature_names repeats a name"):
        BAD_INPUT_ESTIMATORS[name](feature_names=["a", "b", "a", "c"]).fit(X, y)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_predict_refuses_other_feature_names(name):
    X, y = _good()
    est = ESTIMATORS[name]().fit(pd.DataFrame(X, columns=list("abcd")), y)
    with pytest.raises(ValueError, match="passed during fit: the feature names of X differ"):
        est.predict(pd.DataFrame(X, columns=list("abdc")))


@pytest.mark.parametrize("lam", [-0.1, float("nan"), float("inf"), "x", None])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_bad_regularization_is_refused(name, lam):
    X, y = _good()
    with pytest.raises((ValueError, TypeError), match="regularization"):
        ESTIMATORS[name](regularization=lam).fit(X, y)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_huge_regularization_gives_the_empty_model(name):
    X, y = _good()
    lam = 1.0 if name == "osdt" else 10.0  # OSDT's lambda lives in (0, 1]
    est = ESTIMATORS[name](regularization=lam).fit(X, y)
    if name == "osdt":
        assert est.tree_.n_leaves == 1
    elif name == "corels":
        assert len(est.rule_list_) == 0 and est.result_.status is Status.OPTIMAL
    else:
        assert len(est.rule_list_.names) == 0
    assert len(set(est.predict(X).tolist())) == 1


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_valid_fit_leaves_inputs_untouched(name):
    X, y = _good()
    Xd = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    ys = pd.Series(np.where(y == 1, "yes", "no"))
    for XX, yy in ((X, y), (Xd, ys), (X.astype(bool), y.astype(np.float64)), (X.tolist(), y.tolist())):
        before = (_fingerprint(XX), _fingerprint(yy))
        est = ESTIMATORS[name]().fit(XX, yy)
        est.predict(XX)
        assert (_fingerprint(XX), _fingerprint(yy)) == before


@pytest.mark.parametrize("rs", [-1, 1.5, "seven", True, [1, 2], object()])
@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier])
def test_bad_random_state(cls, rs):
    X, y = _good()
    with pytest.raises((ValueError, TypeError), match="random_state"):
        cls(n_iter=10, random_state=rs, min_class_support=0.05).fit(X, y)


def test_solve_rejects_non_dataset_and_bad_data():
    with pytest.raises((TypeError, ValueError), match="BinaryDataset"):
        corels_solve(np.zeros((3, 3)), 0.01)
    from optbb.osdt import solve as osdt_solve

    with pytest.raises((TypeError, ValueError), match="BinaryDataset"):
        osdt_solve(np.zeros((3, 3)), 0.01)
    X, y = _good()
    for bad, match in ((np.where(X == 1, 2, 0), "binary"), (np.where(X == 1, np.nan, 0), "NaN"),
                       (X[:0], "0 samples|empty"), (X[:, :0], "0 features")):
        with pytest.raises(ValueError, match=match):
            BinaryDataset(bad, y[: len(bad)], [f"x{j}" for j in range(bad.shape[1])])
    with pytest.raises(ValueError, match="duplicate"):
        BinaryDataset(X, y, ["a", "a", "b", "c"])
    with pytest.raises(ValueError, match="length mismatch"):
        BinaryDataset(X, y[:-1], ["a", "b", "c", "d"])


def _dataset_cases():
    X, y = _good()
    names = list("abcd")
    return {
        "one_label": (lambda: BinaryDataset(X, y, names, label_names=("only",)), r"at least two classes"),
        "names_length": (lambda: BinaryDataset(X, y, ["a"]), r"feature_names has 1 entries but X has 4 columns"),
        "one_dim_X": (lambda: BinaryDataset(X[:, 0], y, []), r"X must be 2-D"),
        "scalar_y": (lambda: BinaryDataset(X, 1, names), r"y must be 1-D"),
        "ragged_X": (lambda: BinaryDataset([[0, 1], [1]], [0, 1], ["a", "b"]), r"X cannot be converted to an array"),
        "complex_X": (lambda: BinaryDataset(X.astype(complex), y, names), r"X has dtype complex128; expected 0/1"),
        "256_labels": (lambda: BinaryDataset(X, y, names, label_names=[str(j) for j in range(256)]),
                       r"at most 255 classes"),
        "class_index": (lambda: BinaryDataset(X, np.where(y == 1, 3, 0), names, label_names=("a", "b", "c")),
                        r"class indices 0 \.\. 2 .* at index 1$"),
        "weight_length": (lambda: BinaryDataset(X, y, names, np.ones(39)), r"40 samples but sample_weight has 39"),
        "weight_nan": (lambda: BinaryDataset(X, y, names, np.where(y == 1, np.nan, 1.0)), r"NaN or inf"),
        "weight_zero": (lambda: BinaryDataset(X, y, names, np.zeros(40)), r"sums to zero"),
        "weight_sum_overflows": (lambda: BinaryDataset(X, y, names, np.full(40, 1e308)), r"sums to more than"),
        "weight_matrix": (lambda: BinaryDataset(X, y, names, np.ones((20, 2))), r"sample_weight must be 1-D"),
        "label_column": (lambda: from_dataframe(pd.DataFrame(X, columns=names), label="z"),
                         r"label column 'z' not found"),
    }


@pytest.mark.parametrize("case", sorted(_dataset_cases()))
def test_dataset_refuses_bad_arrays_labels_and_weights(case):
    make, match = _dataset_cases()[case]
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("name", sorted(BAD_INPUT_ESTIMATORS))
def test_numpy_variable_width_text(name):
    """numpy's StringDType text raised numpy's 'dtype argument must be a NumPy dtype' from scikit-learn's checks."""
    X, y = _good()
    text = np.dtypes.StringDType()
    labels = np.array(np.where(y == 1, "yes", "no"), dtype=text)
    clf = BAD_INPUT_ESTIMATORS[name]().fit(X, labels)
    assert list(clf.classes_) == ["no", "yes"]
    assert np.array_equal(clf.predict(X), BAD_INPUT_ESTIMATORS[name]().fit(X, labels.astype("U3")).predict(X))
    with pytest.raises(ValueError, match=r"strings"):
        clf.predict(np.array(X.astype(str), dtype=text))
    with pytest.raises(ValueError, match=r"strings"):
        BAD_INPUT_ESTIMATORS[name]().fit(np.array(X.astype(str), dtype=text), y)


@pytest.mark.parametrize("name", sorted(BAD_INPUT_ESTIMATORS))
def test_sample_weight_matrix_is_refused(name):
    """A (20, 2) sample_weight for 40 samples was flattened and fitted as if it were one weight per sample."""
    X, y = _good()
    with pytest.raises(ValueError, match=r"sample_weight must be 1-D .* got shape \(20, 2\)"):
        BAD_INPUT_ESTIMATORS[name]().fit(X, y, sample_weight=np.ones((20, 2)))
    assert BAD_INPUT_ESTIMATORS[name]().fit(X, y, sample_weight=np.ones((40, 1))).predict(X).shape == (40,)


@pytest.mark.parametrize("name", sorted(BAD_INPUT_ESTIMATORS))
def test_a_single_number_as_sample_weight_weighs_every_sample_alike(name):
    """As in scikit-learn: ``sample_weight=3`` weighs every sample alike, so the fit is as good as with unit
    weights (an optimum of the same objective; a tie may pick another model); 0 weighs nothing."""
    X, y = _good()
    plain = BAD_INPUT_ESTIMATORS[name]().fit(X, y).score(X, y)
    assert BAD_INPUT_ESTIMATORS[name]().fit(X, y, sample_weight=3).score(X, y) == plain
    with pytest.raises(ValueError, match="zero"):
        BAD_INPUT_ESTIMATORS[name]().fit(X, y, sample_weight=0)


def test_from_arrays_takes_the_names_of_a_dataframe():
    X, y = _good()
    assert from_arrays(pd.DataFrame(X, columns=list("pqrs")), y).feature_names == ["p", "q", "r", "s"]


@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier], ids=lambda c: c.__name__)
@pytest.mark.parametrize("sample_weight, class_weight, match", [
    (None, "heavy", r"'class_weight' parameter of \w+Classifier must be"),
    (None, [1, 2], r"'class_weight' parameter of \w+Classifier must be"),
    (np.full(40, 1e306), {1: 1000}, r"sample_weight times class_weight overflows to inf"),
])
def test_frl_refuses_bad_class_weight(cls, sample_weight, class_weight, match):
    """The class weights are the estimators' (``frl.solve`` reads the weights of its data, nothing beside it)."""
    X, y = _good()
    with pytest.raises(ValueError, match=match):
        cls(class_weight=class_weight).fit(X, y, sample_weight=sample_weight)
    with pytest.raises(TypeError, match="class_weight"):
        frl_solve(BinaryDataset(X, y, list("abcd")), class_weight=class_weight)


def test_integer_sample_weight_as_repeated_rows():
    """All-one weights leave the data as it came; weights that keep a single class are refused (BinOCT repeats
    rows; boolean weights pass the estimators' early check of the weighted classes)."""
    X, y = _good()
    X2, y2 = expand_weights(X, y, np.ones(len(y)), "BinOCTClassifier")
    assert X2 is X and y2 is y
    with pytest.raises(ValueError, match="after sample_weight, y has a single class"):
        _binoct().fit(X, y, sample_weight=y == 0)


@pytest.mark.parametrize("counts", [[3, 1], [[3], [1]]])
def test_class_counts_need_a_column_per_class(counts):
    with pytest.raises(ValueError, match=r"counts must be a \(rules, classes >= 2\) matrix"):
        smoothed_probabilities(counts, [0, 0])


def test_search_result_repr_is_its_summary():
    r = SearchResult(None, 0.25, 0.2, Status.TIME_LIMIT, {"total_time": 1.5})
    assert repr(r) == "SearchResult(status=TIME_LIMIT objective=0.2500000000 lower_bound=0.2000000000 gap=0.05 " \
                      "time=1.500s)"


@pytest.mark.parametrize("bad", [0, -1, "lots", "12 parsecs", float("nan"), float("inf")])
def test_bad_limits_are_errors(bad):
    with pytest.raises(ValueError, match="limit"):
        Limits(memory_limit=bad)
    if not isinstance(bad, str):
        with pytest.raises(ValueError, match="time_limit"):
            Limits(time_limit=bad)
        with pytest.raises(ValueError, match="node_limit"):
            Limits(node_limit=bad)


@pytest.mark.parametrize("search", ["dp", "leaf_set"])
def test_a_depth_limit_beyond_the_features_limits_nothing(search):
    """``OSDTClassifier(max_depth=10**30)`` raised a bare OverflowError; a limit above the number of features is no
    limit (a path splits on a feature at most once), and the tree is the unlimited one."""
    from optbb.osdt import OSDTClassifier

    X, y = _good(60, 4, seed=3)
    huge = OSDTClassifier(regularization=0.02, max_depth=10 ** 30, search=search).fit(X, y)
    free = OSDTClassifier(regularization=0.02, search=search).fit(X, y)
    assert huge.result_.objective == pytest.approx(free.result_.objective, abs=1e-12)
    assert huge.max_depth == 10 ** 30  # the parameter itself is left as given
