"""The estimator contract, over every optbb estimator: the same limit parameters in every constructor, exactly
``fit(X, y, sample_weight=None)``, scikit-learn's ``get_params`` / ``clone``, one way of checking parameters (every
bad value a ValueError naming the parameter), and the same name meaning the same thing everywhere."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from optbb.baselines.binoct import BinOCTClassifier
from optbb.common.result import Status
from optbb.common.validation import ParamNamesMixin
from optbb.baselines.cart import CARTClassifier
from optbb.corels import CorelsClassifier
from optbb.frl import FRLClassifier, SoftFRLClassifier
from optbb.osdt import OSDTClassifier

FAST = {  # small settings so every fit below takes well under a second
    CorelsClassifier: dict(regularization=0.05, max_card=1),
    OSDTClassifier: dict(regularization=0.05, max_depth=2),
    FRLClassifier: dict(n_iter=20, random_state=0, max_card=1),
    SoftFRLClassifier: dict(n_iter=20, random_state=0, max_card=1),
    BinOCTClassifier: dict(max_depth=1, time_limit=20),
    CARTClassifier: dict(),
}
ESTIMATORS = list(FAST)
SOLVERS = [c for c in ESTIMATORS if c is not CARTClassifier]  # the optbb searches (CART wraps scikit-learn)
LIMITS = ("time_limit", "node_limit", "memory_limit", "verbose")
REAL_WEIGHTS = {CorelsClassifier, OSDTClassifier, FRLClassifier, SoftFRLClassifier}  # solvers whose kernels sum real sample weights


def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 4)), columns=["a", "b", "c", "d"])
    y = ((X["a"] & X["b"]) | X["c"]).to_numpy()
    return X, y


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_constructor_takes_the_limits(cls):
    params = inspect.signature(cls.__init__).parameters
    for name in LIMITS:
        assert name in params, name
    assert params["time_limit"].default is None and params["node_limit"].default is None
    assert params["memory_limit"].default == "auto" and params["verbose"].default == 0
    assert "warm_start" not in params  # scikit-learn's name for reusing a previous fit: optbb says initial_tree


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_fit_signature_is_exactly_x_y_sample_weight(cls):
    sig = inspect.signature(cls.fit)
    assert list(sig.parameters) == ["self", "X", "y", "sample_weight"]
    assert sig.parameters["sample_weight"].default is None


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_get_params_set_params_and_clone(cls):
    est = cls(**FAST[cls])
    est.set_params(time_limit=600, node_limit=10 ** 6, memory_limit="1G", verbose=0)  # room for a cold compile
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    assert set(inspect.signature(cls.__init__).parameters) - {"self"} == set(est.get_params())
    X, y = data()
    fitted = twin.fit(X, y)
    assert fitted is twin and list(fitted.classes_) == [0, 1]
    assert np.array_equal(clone(fitted).fit(X, y).predict(X), fitted.predict(X))


@pytest.mark.parametrize("cls", [CorelsClassifier, OSDTClassifier, FRLClassifier, SoftFRLClassifier],
                         ids=lambda c: c.__name__)
def test_the_solvers_share_their_parameter_names_handling(cls):
    """The three families read their parameter names as one mixin does: once per class, from its own signature."""
    assert issubclass(cls, ParamNamesMixin)
    assert cls._get_param_names() == sorted(set(inspect.signature(cls.__init__).parameters) - {"self"})
    assert "_param_names" in cls.__dict__


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_one_way_of_checking_parameters(cls):
    # every parameter has a scikit-learn constraint, checked by scikit-learn's own _validate_params
    assert set(cls._parameter_constraints) >= set(cls().get_params())
    for klass in cls.__mro__:
        if klass.__module__.startswith("optbb"):
            assert "_validate_params" not in vars(klass), klass


BAD_LIMITS = [("time_limit", True), ("time_limit", "5"), ("time_limit", 0), ("time_limit", -1.0),
              ("time_limit", float("nan")), ("node_limit", 1.5), ("node_limit", "10"), ("node_limit", True),
              ("node_limit", 0), ("node_limit", 2 ** 70), ("memory_limit", True), ("memory_limit", "lots"),
              ("memory_limit", "0M"), ("memory_limit", -5), ("memory_limit", float("inf")), ("verbose", -1),
              ("verbose", "yes")]


@pytest.mark.parametrize("name,value", BAD_LIMITS)
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_bad_limits_name_the_parameter(cls, name, value):
    X, y = data()
    with pytest.raises(ValueError, match=f"'{name}' parameter of {cls.__name__} must be"):
        cls(**{**FAST[cls], name: value}).fit(X, y)


BAD_PARAMS = {
    CorelsClassifier: [("max_card", 2.0), ("max_card", None), ("max_card", True), ("min_support", "0.1"),
                       ("min_support", 0.7), ("ablation", None), ("ablation", ["nope"]), ("regularization", -0.01),
                       ("regularization", None), ("negations", 1), ("policy", "best"), ("map_type", 3),
                       ("feature_names", "abcd")],
    OSDTClassifier: [("regularization", 1.5), ("regularization", "0.1"),
                     ("initial_tree", "yes"), ("initial_tree", True), ("max_depth", 1.5), ("max_depth", -1),
                     ("max_leaves", 0), ("upper_bound", -1), ("ablation", "nope"), ("policy", None)],
    FRLClassifier: [("min_class_support", "0.1"), ("n_iter", True), ("n_iter", 0), ("random_state", -1),
                    ("random_state", "x"), ("regularization", -1), ("positive_weight", 0), ("p_stop", 1),
                    ("feasibility", "loose"), ("keep_duplicates", "no"), ("max_recorded_iterations", -1)],
    SoftFRLClassifier: [("monotonicity_penalty", -1), ("curiosity_weight", 2), ("max_card", 0),
                        ("negations", None)],
    BinOCTClassifier: [("max_depth", 0), ("max_depth", 2.0), ("regularization", 2), ("threads", 0),
                       ("formulation", "x"), ("initial_tree", False)],
    CARTClassifier: [("cp", 1), ("cp", "0.1"), ("max_depth", 0), ("ccp_alpha", -1), ("node_limit", 2),
                     ("class_weight", "equal")],
}


@pytest.mark.parametrize("cls,name,value", [(c, n, v) for c, bad in BAD_PARAMS.items() for n, v in bad],
                         ids=lambda x: getattr(x, "__name__", repr(x)))
def test_bad_parameters_name_the_parameter(cls, name, value):
    X, y = data()
    with pytest.raises(ValueError, match=f"'{name}' parameter of {cls.__name__} must be"):
        cls(**{**FAST[cls], name: value}).fit(X, y)


def test_message_format_is_whole():
    """The former message lost its interval's upper end ("must be a finite number in [0, , got -0.01")."""
    X, y = data()
    with pytest.raises(ValueError) as err:
        CorelsClassifier(regularization=-0.01).fit(X, y)
    assert str(err.value) == ("The 'regularization' parameter of CorelsClassifier must be a float in the range "
                              "[0.0, inf). Got -0.01 instead.")
    from optbb.common.validation import check_number

    with pytest.raises(ValueError, match=r"'lam' parameter of optbb must be a float in the range \[0.0, inf\)"):
        check_number("lam", -0.01, lo=0)


@pytest.mark.parametrize("cls", SOLVERS, ids=lambda c: c.__name__)
def test_feature_names_is_a_constructor_parameter(cls):
    X, y = data()
    est = cls(**FAST[cls], feature_names=["p", "q", "r", "s"]).fit(X.to_numpy(), y)
    model = getattr(est, "tree_", None) or est.rule_list_
    text = str(model)
    assert not any(f"x{j}" in text for j in range(4))
    with pytest.raises(ValueError, match="feature_names has 3 names but X has 4 columns"):
        cls(**FAST[cls], feature_names=["p", "q", "r"]).fit(X, y)


def test_regularization_zero_is_allowed_where_the_bounds_allow_it():
    """0 is a valid penalty for CORELS (its theorems hold for lambda >= 0), FRL / softFRL (Theorem 4.6 holds for
    C >= 0) and RBinOCT; OSDT accepts it only with a depth limit (minimum errors, dynamic-programming search): the
    leaf-set search is sized by the leaf bound floor(R / lambda) and without a depth limit nothing bounds a tree."""
    X, y = data()
    assert CorelsClassifier(regularization=0, max_card=1).fit(X, y).result_.status.name == "OPTIMAL"
    for cls in (FRLClassifier, SoftFRLClassifier):
        assert len(cls(**{**FAST[cls], "regularization": 0}).fit(X, y).rule_list_) >= 0
    assert BinOCTClassifier(max_depth=1, regularization=0).fit(X, y).status_ == "optimal"
    with pytest.raises(ValueError, match="regularization 0 .* needs max_depth and search='dp'"):
        OSDTClassifier(regularization=0).fit(X, y)
    with pytest.raises(ValueError, match="regularization 0 .* needs max_depth and search='dp'"):
        OSDTClassifier(regularization=0, max_depth=2, search="leaf_set").fit(X, y)
    est = OSDTClassifier(regularization=0, max_depth=2).fit(X, y)
    assert est.result_.status.name == "OPTIMAL"


def test_frl_min_support_is_renamed_min_class_support():
    """CORELS's min_support counts support over all samples (two-sided); FRL's over each class: FRL's is renamed,
    the old name still works with a FutureWarning and gives the same list."""
    X, y = data()
    new = FRLClassifier(n_iter=50, random_state=3, min_class_support=0.2).fit(X, y)
    with pytest.warns(FutureWarning, match="min_class_support"):
        old = FRLClassifier(n_iter=50, random_state=3, min_support=0.2).fit(X, y)
    assert old.rule_list_.to_json() == new.rule_list_.to_json()
    corels_params = CorelsClassifier().get_params()
    assert "min_support" in corels_params and "min_class_support" not in corels_params
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FRLClassifier(n_iter=5, random_state=0).fit(X, y)  # the default raises no warning


@pytest.mark.parametrize("cls", [FRLClassifier, SoftFRLClassifier], ids=lambda c: c.__name__)
def test_frl_empty_mining_names_min_class_support(cls):
    """No antecedent passes the filter: the default-only list, certified (there is no other), with a warning that
    names min_class_support (it once said 'lower min_support', the deprecated name), as CORELS does."""
    X = np.eye(20, dtype=int)[:, :3]
    y = np.arange(20) % 2
    with pytest.warns(UserWarning, match=r"no antecedent passes the support filter; lower min_class_support \(now 0.2"):
        est = cls(min_class_support=0.2, n_iter=10, random_state=0).fit(X, y)
    assert len(est.rule_list_.names) == 0 and est.result_.status is Status.OPTIMAL and est.n_antecedents_ == 0
    assert len(cls(min_class_support=0.0, n_iter=10, random_state=0).fit(X, y).classes_) == 2


def test_osdt_initial_tree_replaces_warm_start():
    from optbb.common.data import from_arrays
    from optbb.osdt import solve

    X, y = data()
    a = OSDTClassifier(regularization=0.05, initial_tree=None).fit(X, y)
    b = OSDTClassifier(regularization=0.05, initial_tree="cart").fit(X, y)
    assert a.result_.objective == pytest.approx(b.result_.objective, abs=1e-12)
    d = from_arrays(X.to_numpy(), y)
    with pytest.raises(TypeError, match="warm_start"):  # its former name, deprecated since 0.1, is gone
        solve(d, 0.05, warm_start=None)
    assert solve(d, 0.05, initial_tree="none").objective == solve(d, 0.05, initial_tree=None).objective


@pytest.mark.parametrize("cls", SOLVERS, ids=lambda c: c.__name__)
def test_sample_weight_text_and_near_integers_are_refused(cls):
    """Issue: sample_weight "1" was accepted and 1 + 1e-9 silently rounded to 1."""
    X, y = data()
    with pytest.raises(ValueError, match="sample_weight must hold numbers"):
        cls(**FAST[cls]).fit(X, y, sample_weight=np.array(["1"] * len(y)))
    w = np.ones(len(y))
    w[0] += 1e-9
    if cls in REAL_WEIGHTS:  # real weights are weights, not rounded to integers
        assert cls(**FAST[cls]).fit(X, y, sample_weight=w).predict(X).shape == (len(y),)
    else:
        with pytest.raises(ValueError, match="integer sample_weight"):
            cls(**FAST[cls]).fit(X, y, sample_weight=w)
    assert cls(**FAST[cls]).fit(X, y, sample_weight=np.full(len(y), 2)).predict(X).shape == (len(y),)


@pytest.mark.parametrize("cls", SOLVERS, ids=lambda c: c.__name__)
def test_sample_weight_of_numbers_in_an_object_array_is_taken(cls):
    """Issue: an object array (or object Series) of numbers was refused as 'sample_weight must hold numbers'."""
    X, y = data()
    w = np.full(len(y), 2)
    expected = cls(**FAST[cls]).fit(X, y, sample_weight=w).predict(X)
    for given in (w.astype(object), pd.Series(w.astype(float), dtype=object)):
        assert np.array_equal(cls(**FAST[cls]).fit(X, y, sample_weight=given).predict(X), expected)
    with pytest.raises(ValueError, match="sample_weight must hold numbers"):
        cls(**FAST[cls]).fit(X, y, sample_weight=np.array([1] * (len(y) - 1) + ["1"], dtype=object))


# ---------------------------------------------------------------------------------------------------------------
# one solve() shape: solve(data, regularization, *, options..., time_limit, node_limit, memory_limit, verbose)

def _solvers():
    from optbb import corels, frl, osdt

    return {"corels": corels.solve, "osdt": osdt.solve, "frl": frl.solve}


SOLVE_OPTIONS = {"corels": dict(policy="bfs"), "osdt": dict(max_depth=2), "frl": dict(n_iter=20, random_state=0)}
BAD_SOLVE_OPTIONS = {"corels": ("policy", "widest"), "osdt": ("max_depth", -1), "frl": ("n_iter", 0)}


@pytest.mark.parametrize("family", ["corels", "osdt", "frl"])
def test_solve_has_one_shape(family):
    params = list(inspect.signature(_solvers()[family]).parameters.values())
    assert [p.name for p in params[:2]] == ["data", "regularization"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params[:2])
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:]), [p.name for p in params[2:]]
    assert {"time_limit", "node_limit", "memory_limit", "verbose"} <= {p.name for p in params[2:]}


@pytest.mark.parametrize("family", ["corels", "osdt", "frl"])
def test_solve_takes_a_dataset_and_checks_its_options_as_the_estimators_do(family):
    from optbb.common.data import from_arrays

    solve = _solvers()[family]
    X, y = data()
    X = X.to_numpy().astype(np.uint8)
    with pytest.raises(TypeError, match="BinaryDataset.*ndarray"):
        solve(X, 0.05)
    name, value = BAD_SOLVE_OPTIONS[family]
    with pytest.raises(ValueError, match=name):
        solve(from_arrays(X, y), 0.05, **{name: value})
    with pytest.raises(TypeError):  # the options are keyword-only
        solve(from_arrays(X, y), 0.05, *SOLVE_OPTIONS[family].values())
    r = solve(from_arrays(X, y), 0.05, **SOLVE_OPTIONS[family], time_limit=30, node_limit=None, memory_limit="1G",
              verbose=0)
    assert np.isfinite(r.objective)


# ---------------------------------------------------------------------------------------------------------------
# every model predicts on the raw X it was learned from, also after a JSON round trip

def _model_of(est):
    return getattr(est, "tree_", None) or est.rule_list_


@pytest.mark.parametrize("cls", [CorelsClassifier, OSDTClassifier, FRLClassifier, SoftFRLClassifier],
                         ids=lambda c: c.__name__)
def test_a_model_read_back_from_json_predicts_on_raw_x(cls):
    from optbb import export

    X, y = data()
    est = clone(cls(**FAST[cls])).fit(X, y)
    back = export.from_json(export.to_json(_model_of(est)))
    raw = X.to_numpy()
    assert np.array_equal(back.predict(raw), est.predict(X))
    assert np.allclose(back.predict_proba(raw), est.predict_proba(X))
