"""Properties of every solver against the brute-force twins, for any variant and any stop (extending
tests/test_corels.py, test_osdt.py and test_frl.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optbb.common.data import from_arrays
from optbb.common.result import Status
from optbb.corels import ABLATIONS as CORELS_ABLATIONS
from optbb.corels import POLICIES as CORELS_POLICIES
from optbb.corels import solve as corels_solve
from optbb.frl import FRLClassifier
from strategies import CORELS_LAMBDAS, corels_problems, frl_problems
from twins.corels import corels_brute_force, rule_list_objective
from twins.frl import frl_optimum, objective as frl_objective
from twins.osdt import osdt_brute_force, tree_objective

from .support import NOJIT

# hypothesis profiles: the default run keeps a few hundred extra examples per property (the solver test modules
# already run >= 1,000 per solver); the slow-marked twins run 10^4 examples each
DEFAULT = settings(max_examples=30 if NOJIT else 300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SLOW = settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def corels_problem(draw):
    A, y, lam = draw(corels_problems(CORELS_LAMBDAS + (1.5,)))
    policy = draw(st.sampled_from(CORELS_POLICIES))
    map_type = draw(st.sampled_from(["none", "prefix", "captured"]))
    ablation = tuple(sorted(draw(st.sets(st.sampled_from(CORELS_ABLATIONS)))))
    nodes = draw(st.none() | st.integers(1, 30))
    return A, y, lam, policy, map_type, ablation, nodes


def _corels_property(problem):
    A, y, lam, policy, map_type, ablation, nodes = problem
    expected, _ = corels_brute_force(A, y, lam)
    r = corels_solve(from_arrays(A, y), lam, policy=policy, map_type=map_type, ablation=ablation, node_limit=nodes)
    prefix = [rule.antecedent for rule in r.model.rules]
    assert rule_list_objective(A, y, prefix, lam) == pytest.approx(r.objective, abs=1e-12)
    assert r.lower_bound <= expected + 1e-12 <= r.objective + 2e-12
    if r.status is Status.OPTIMAL:
        assert r.objective == pytest.approx(expected, abs=1e-12) and r.gap == 0
    else:
        assert r.status is Status.NODE_LIMIT and r.counters["nodes_evaluated"] == nodes


test_corels_property_any_variant_any_stop = DEFAULT(given(corels_problem())(_corels_property))
test_corels_property_any_variant_any_stop_slow = pytest.mark.slow(SLOW(given(corels_problem())(_corels_property)))


@st.composite
def osdt_problem(draw):
    from optbb.osdt import ABLATIONS, POLICIES

    n = draw(st.integers(2, 24))
    m = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    lam = draw(st.sampled_from([0.005, 0.01, 0.03, 0.05, 0.1, 0.25, 1.0]))
    policy = draw(st.sampled_from(sorted(POLICIES)))
    ablation = tuple(sorted(draw(st.sets(st.sampled_from(ABLATIONS)))))
    warm = draw(st.sampled_from(["cart", None]))
    nodes = draw(st.none() | st.integers(1, 40))
    max_depth = draw(st.none() | st.integers(0, 3))
    return X, y, lam, policy, ablation, warm, nodes, max_depth


def _osdt_property(problem):
    from optbb.osdt import solve as osdt_solve

    X, y, lam, policy, ablation, warm, nodes, max_depth = problem
    expected = osdt_brute_force(X, y, lam, max_depth=max_depth)[0]
    r = osdt_solve(from_arrays(X, y), lam, policy=policy, ablation=ablation, initial_tree=warm, node_limit=nodes,
                   max_depth=max_depth)
    assert tree_objective(X, y, r.model.leaves, lam) == pytest.approx(r.objective, abs=1e-12)
    assert r.lower_bound <= expected + 1e-12 <= r.objective + 2e-12
    if r.status is Status.OPTIMAL:
        assert r.objective == pytest.approx(expected, abs=1e-12)
    else:
        assert r.status is Status.NODE_LIMIT


test_osdt_property_any_variant_any_stop = DEFAULT(given(osdt_problem())(_osdt_property))
test_osdt_property_any_variant_any_stop_slow = pytest.mark.slow(SLOW(given(osdt_problem())(_osdt_property)))


@st.composite
def frl_problem(draw):
    X, y, w, C, _ = draw(frl_problems(max_cols=6))
    n_iter = draw(st.sampled_from([1, 5, 50, 3000]))
    return X, y, w, C, n_iter, draw(st.integers(0, 2 ** 31))


def _frl_property(problem):
    """Any run, however short: the returned list is falling, its objective is what the twin computes, and it is
    never below the exhaustive optimum; long runs reach the optimum."""
    X, y, w, C, n_iter, seed = problem
    est = FRLClassifier(max_card=1, min_class_support=0.0, random_state=seed, positive_weight=w, regularization=C,
                        n_iter=n_iter).fit(X, y)
    best, _ = frl_optimum(X, y, w, C)
    rl = est.rule_list_
    counts = list(zip(rl.n_pos.tolist(), rl.n_neg.tolist()))
    assert rl.is_falling()
    assert frl_objective(counts, len(y), w, C) == pytest.approx(est.result_.objective, abs=1e-9)
    assert est.result_.objective >= best - 1e-9
    if n_iter >= 3000:
        assert est.result_.objective == pytest.approx(best, abs=1e-9)


test_frl_property_short_and_long_runs = DEFAULT(given(frl_problem())(_frl_property))
test_frl_property_short_and_long_runs_slow = pytest.mark.slow(SLOW(given(frl_problem())(_frl_property)))
