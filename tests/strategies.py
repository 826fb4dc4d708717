"""Hypothesis strategies shared by the test modules: small random problems for each solver and its brute-force twin.

Each strategy draws its values in a fixed order, so a test that extends one (``draw(corels_problems())`` and then
its own choices) sees the same examples as before the strategies were shared.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# CORELS: regularisations from none to one that empties every rule list
CORELS_LAMBDAS = (0.0, 0.005, 0.01, 0.03, 0.05, 0.1, 0.2, 0.5)

# OSDT enumerates simultaneous splits without dynamic programming, so random labels with a tiny lambda are hard for
# it (optimal trees with dozens of leaves); lambda >= 0.025 with N <= 24 keeps every case well under a second.
OSDT_LAMBDAS = (0.025, 0.03, 0.04, 0.05, 0.0625, 0.07, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.45)


@st.composite
def corels_problems(draw, lambdas=CORELS_LAMBDAS):
    """``(A, y, lam)``: 1-30 samples, 1-5 antecedents, every bit drawn by hypothesis (so it shrinks well)."""
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 5))
    bits = draw(st.lists(st.integers(0, 1), min_size=n * m, max_size=n * m))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    lam = draw(st.sampled_from(list(lambdas)))
    return np.array(bits, dtype=np.uint8).reshape(n, m), np.array(y, dtype=np.uint8), lam


@st.composite
def osdt_problems(draw):
    """``(X, y, lam, max_depth, max_leaves)``: 1-24 samples, 1-6 features, half the time with duplicated rows."""
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 24))
    X = draw(hnp.arrays(np.uint8, (n, m), elements=st.integers(0, 1)))
    if draw(st.booleans()):  # duplicate rows with conflicting labels exercise the equivalent points bound
        X[n // 2:] = X[: n - n // 2]
    y = draw(hnp.arrays(np.uint8, n, elements=st.integers(0, 1)))
    lam = draw(st.sampled_from(list(OSDT_LAMBDAS)) | st.floats(0.025, 0.6))
    max_depth = draw(st.none() | st.integers(0, 4))
    max_leaves = draw(st.none() | st.integers(1, 8))
    return X, y, lam, max_depth, max_leaves


@st.composite
def frl_problems(draw, max_cols=8):
    """``(X, y, w, C, rng)``: 3-30 samples, 1-``max_cols`` antecedents of random density drawn from a seeded
    generator (returned, for further random choices), both classes present, a positive weight and a rule cost."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    n = draw(st.integers(3, 30))
    k = draw(st.integers(1, max_cols))
    rng = np.random.default_rng(seed)
    X = (rng.random((n, k)) < rng.uniform(0.15, 0.7)).astype(np.uint8)
    y = (rng.random(n) < rng.uniform(0.15, 0.7)).astype(np.uint8)
    y[0], y[1] = 0, 1
    w = draw(st.sampled_from([1.0, 2.0, 3.0, 7.0, 1.5]))
    C = draw(st.sampled_from([1e-6, 0.001, 0.02, 0.05]))
    return X, y, w, C, rng
