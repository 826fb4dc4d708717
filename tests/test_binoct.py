"""BinOCT / RBinOCT (HiGHS): optimum against brute force on tiny problems, Monk1 at depth 3 (OSDT Fig. 6),
time limits with an honest status and gap, estimator contract; CART's limits and the scikit-learn baselines."""
from __future__ import annotations

import math
import os
import signal
import time

import numpy as np
import pytest

from twins.binoct import complete_brute_force, complete_dp
from optbb.baselines import binoct
from optbb.baselines.binoct import BinOCTClassifier, CompleteTree, cart_features, tree_from_features
from optbb.baselines.highs_child import ChildFailed, capped_child_available
from optbb.common.result import COMMON_COUNTERS, Status
from optbb.datasets import load_osdt

pytest.importorskip("highspy")


def _random_problem(seed: int, n: int = 18, m: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    # a noisy function of the features so that deeper trees help
    y = ((X[:, 0] ^ X[:, 1 % m]) | (rng.random(n) < 0.2)).astype(np.uint8)
    if y.min() == y.max():
        y[0] ^= 1
    return X, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("formulation", ["binoct", "rowwise"])
def test_binoct_matches_brute_force(seed, formulation):
    depth = 2 if seed % 2 == 0 else 1
    X, y = _random_problem(seed, m=3 + seed % 2)
    best, _ = complete_brute_force(X, y, depth)
    assert complete_dp(X, y, depth) == best
    clf = BinOCTClassifier(max_depth=depth, formulation=formulation).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.errors_ == best
    assert np.sum(clf.predict(X) != y) == best
    assert clf.gap_ == 0.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [0.02, 0.08, 0.2])
def test_rbinoct_matches_brute_force(seed, lam):
    X, y = _random_problem(100 + seed, n=16, m=3)
    best, _ = complete_brute_force(X, y, 2, lam)
    assert complete_dp(X, y, 2, lam) == pytest.approx(best, abs=1e-12)
    clf = BinOCTClassifier(max_depth=2, regularization=lam).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.objective_ == pytest.approx(best, abs=1e-9)
    assert clf.lower_bound_ == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("lam", [1e-9, 1e-8])
def test_rbinoct_tiny_regularization_counts_leaves(lam):
    """A leaf penalty below HiGHS's tolerances still separates trees of equal errors: one leaf beats two."""
    X, y = np.array([[0, 1], [0, 1], [1, 1]]), np.array([0, 1, 1])
    best, _ = complete_brute_force(X, y, 2, lam)
    clf = BinOCTClassifier(max_depth=2, regularization=lam).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.n_leaves_ == 1
    assert clf.objective_ == pytest.approx(best, abs=1e-15)
    assert clf.lower_bound_ <= clf.objective_ + 1e-15

def test_rbinoct_equals_osdt_with_depth_limit():
    """RBinOCT's optimum is OSDT's optimum among trees of depth <= d (a shallower leaf is embedded by repeating a
    feature of its path; same-label siblings never help OSDT)."""
    from optbb.common.data import BinaryDataset
    from optbb.osdt import solve

    X, y = _random_problem(7, n=30, m=4)
    for lam in (0.01, 0.05):
        clf = BinOCTClassifier(max_depth=2, regularization=lam).fit(X, y)
        res = solve(BinaryDataset(X, y, [f"x{j}" for j in range(4)]), lam, max_depth=2)
        if res.model.n_leaves > 1:  # a one-leaf tree cannot be embedded without a constant feature
            assert clf.objective_ == pytest.approx(res.objective, abs=1e-9)


def test_monk1_depth3_optimum_is_figure6_accuracy():
    """OSDT Fig. 6: BinOCT at depth 3 reaches 91.129 % (113/124) on Monk1.  The recursion over regions certifies
    that 11 errors is the optimum of every complete depth-3 tree, so BinOCT cannot do better; HiGHS with the
    CART start (itself 11 errors) keeps a tree with 11 errors (the row-wise formulation certifies it in 45-100 s: see the slow test)."""
    d = load_osdt("monk1")
    assert complete_dp(d.X, d.y, 3) == 11
    clf = BinOCTClassifier(max_depth=3, time_limit=5).fit(d.X, d.y)
    assert clf.status_ in ("optimal", "time_limit")
    assert clf.errors_ == 11
    assert round(100 * clf.score(d.X, d.y), 3) == 91.129
    assert clf.n_leaves_ <= 8 and clf.n_leaves_merged_ <= clf.n_leaves_


@pytest.mark.slow
def test_monk1_depth3_certified_by_highs():
    d = load_osdt("monk1")
    clf = BinOCTClassifier(max_depth=3, formulation="rowwise", time_limit=600).fit(d.X, d.y)
    assert clf.status_ == "optimal"
    assert clf.errors_ == 11
    assert round(100 * clf.score(d.X, d.y), 3) == 91.129


def test_time_limit_is_honoured_and_gap_reported():
    d = load_osdt("tic-tac-toe")
    clf = BinOCTClassifier(max_depth=3, time_limit=2).fit(d.X, d.y)
    assert clf.solve_time_ < 2 + 10  # build time plus HiGHS' own overshoot
    assert clf.status_ == "time_limit"
    assert clf.result_.status is Status.TIME_LIMIT and clf.result_.gap == pytest.approx(clf.gap_)
    assert clf.mip_gap_ > 0
    assert clf.gap_ > 0 and clf.lower_bound_ <= clf.objective_
    # the best known tree (at worst the CART start) is kept and consistent with its counts
    assert clf.errors_ == int(np.sum(clf.predict(d.X) != d.y))
    assert clf.errors_ <= sum(tree_from_features(d.X, d.y, 3, cart_features(d.X, d.y, 3), d.feature_names).errors)
    assert clf.errors_ >= complete_dp(d.X, d.y, 3)


def test_node_limit_and_memory_limit_statuses():
    d = load_osdt("monk1")
    clf = BinOCTClassifier(max_depth=2, node_limit=1).fit(d.X, d.y)
    assert clf.status_ == "node_limit" and clf.report_["mip_nodes"] == 1  # HiGHS says "solution limit"
    assert clf.result_.status is Status.NODE_LIMIT and clf.result_.counters["nodes"] == 1
    assert clf.errors_ == int(np.sum(clf.predict(d.X) != d.y))
    clf = BinOCTClassifier(max_depth=2, memory_limit=1000).fit(d.X, d.y)
    assert clf.status_ == "memory_limit" and clf.report_["n_rows"] == 0 and math.isnan(clf.lower_bound_)
    assert clf.result_.status is Status.MEMORY_LIMIT and math.isnan(clf.result_.gap)
    assert clf.tree_.features == cart_features(d.X, d.y, 2)
    assert BinOCTClassifier(max_depth=2, memory_limit=1000, initial_tree=None).fit(d.X, d.y).tree_.features == [0] * 3


def test_a_constant_feature_adds_one_routing_row_per_node():
    X, y = _random_problem(5, m=3)
    base = BinOCTClassifier(max_depth=2).fit(X, y)
    const = BinOCTClassifier(max_depth=2).fit(np.column_stack([X, np.zeros(len(y), dtype=np.uint8)]), y)
    assert const.report_["n_rows"] - base.report_["n_rows"] == 3  # no empty row for the side no group takes
    assert const.errors_ == base.errors_


def test_cart_start_is_a_complete_tree_with_cart_predictions():
    from sklearn.tree import DecisionTreeClassifier

    d = load_osdt("monk1")
    feats = cart_features(d.X, d.y, 2)
    t = tree_from_features(d.X, d.y, 2, feats, d.feature_names)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(d.X, d.y)
    assert np.sum(t.predict(d.X) != d.y) == np.sum(cart.predict(d.X) != d.y)


def test_tree_text_counts_and_merging():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    y = np.array([0, 0, 1, 1] * 3, dtype=np.uint8)
    t = tree_from_features(X, y, 2, [0, 1, 0], ["a", "b"])  # right subtree repeats a: one empty leaf
    assert isinstance(t, CompleteTree)
    assert t.n_samples == [3, 3, 0, 6]
    assert t.n_leaves == 3  # non-empty leaves
    assert t.n_leaves_merged == 2  # the split on b under a = 0 is useless
    text = t.to_text()
    assert "if a == 1:" in text and "[empty]" in text
    assert np.array_equal(t.predict(X), y)
    assert t.to_dict() == {"depth": 2, "features": ["a", "b", "a"], "predictions": [0, 0, 1, 1],
                           "n_samples": [3, 3, 0, 6], "errors": [0, 0, 0, 0]}


def test_estimator_contract_and_labels():
    import pandas as pd

    X, y = _random_problem(3, n=20, m=3)
    labels = np.where(y == 1, "yes", "no")
    Xdf = pd.DataFrame(X, columns=["p", "q", "r"])
    clf = BinOCTClassifier(max_depth=1)
    assert clf.fit(Xdf, labels) is clf
    assert set(clf.predict(Xdf)) <= {"no", "yes"}
    assert list(clf.feature_names_in_) == ["p", "q", "r"]
    assert "p" in str(clf.tree_) or "q" in str(clf.tree_) or "r" in str(clf.tree_)
    assert 0 <= clf.score(Xdf, labels) <= 1
    with pytest.raises(ValueError, match="max_depth"):
        BinOCTClassifier(max_depth=0).fit(X, y)
    with pytest.raises(ValueError, match="regularization"):
        BinOCTClassifier(regularization=-1).fit(X, y)
    with pytest.raises(ValueError, match="time_limit"):
        BinOCTClassifier(time_limit=0).fit(X, y)
    with pytest.raises(ValueError, match="formulation"):
        BinOCTClassifier(formulation="x").fit(X, y)
    with pytest.raises(ValueError):
        BinOCTClassifier().fit(X * 2, y)
    assert math.isfinite(clf.objective_)


def test_integer_sample_weights_count_samples():
    X, y = _random_problem(11, n=12, m=3)
    w = np.arange(12) % 3
    a = BinOCTClassifier(max_depth=2).fit(X, y, sample_weight=w)
    b = BinOCTClassifier(max_depth=2).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert a.errors_ == b.errors_ == complete_dp(np.repeat(X, w, axis=0), np.repeat(y, w), 2)


def test_cart_memory_limit_and_verbose_report(capsys):
    from optbb.baselines.cart import CARTClassifier

    X, y = _random_problem(2, n=40)
    with pytest.raises(ValueError, match="memory_limit 1000 bytes is below the 8160 bytes CART needs"):
        CARTClassifier(memory_limit=1000).fit(X, y)
    m = CARTClassifier(verbose=1, min_samples_split=2, min_samples_leaf=1).fit(X, y)
    assert f"CART: {m.tree_model_.get_n_leaves()} leaves grown, {m.n_leaves_} after pruning" in capsys.readouterr().err


def test_baselines_by_name():
    from sklearn.svm import SVC
    from optbb.baselines.sklearn_models import make_model

    svm = make_model("SVM", class_weight="balanced")
    assert isinstance(svm, SVC) and (svm.C, svm.kernel, svm.gamma, svm.class_weight) == (1.0, "rbf", "auto", "balanced")
    with pytest.raises(ValueError, match="unknown baseline 'C5.0'; expected one of GLM, SVM, AdaBoost, RF, CART"):
        make_model("C5.0")


def test_result_reports_as_the_other_solvers_do():
    """``result_`` is a SearchResult like every solver's: certified status, objective and bound, and every common
    counter (HiGHS's improving solutions counted by its callback)."""
    X, y = _random_problem(3, n=30, m=4)
    clf = BinOCTClassifier(max_depth=2, regularization=0.01).fit(X, y)
    r = clf.result_
    assert r.status is Status.OPTIMAL and clf.status_ == "optimal"
    assert r.objective == clf.objective_ and r.lower_bound == clf.lower_bound_ and r.model is clf.tree_
    assert set(COMMON_COUNTERS) <= set(r.counters)
    assert r.counters["improvements"] >= 1 and r.counters["nodes"] == clf.report_["mip_nodes"]
    assert 0 <= r.counters["time_to_optimum"] <= r.counters["total_time"] == pytest.approx(clf.solve_time_)
    assert list(r.trace.columns) == ["time", "objective", "lower_bound", "queue_size", "nodes"]


# ---------------------------------------------------------------------------------------------------------------
# memory_limit: the build and HiGHS run in a child process whose address space is capped (Linux)
needs_child = pytest.mark.skipif(not capped_child_available(), reason="no fork, resource module or /proc")


@needs_child
@pytest.mark.parametrize("regularization", [None, 0.02])
def test_a_capped_fit_equals_the_uncapped_one(regularization):
    X, y = _random_problem(21, n=40, m=4)
    free = BinOCTClassifier(max_depth=2, regularization=regularization, memory_limit=None).fit(X, y)
    capped = BinOCTClassifier(max_depth=2, regularization=regularization, memory_limit="200M").fit(X, y)
    assert capped.status_ == free.status_ == "optimal"
    assert capped.tree_.features == free.tree_.features and capped.tree_.predictions == free.tree_.predictions
    assert capped.objective_ == free.objective_ and capped.lower_bound_ == pytest.approx(free.lower_bound_)
    assert capped.report_["mip_objective"] == pytest.approx(free.report_["mip_objective"])
    assert capped.report_["improvements"] >= 1 and capped.report_["n_rows"] == free.report_["n_rows"]
    assert 0 < capped.report_["child_peak_rss_growth"] < 200 << 20
    assert "child_peak_rss_growth" not in free.report_


@needs_child
def test_in_process_and_child_runs_with_different_thread_counts():
    """HiGHS's task scheduler is kept per thread and inherited by a forked child without its worker threads: each
    run starts a fresh one, so fits in the process and in children alternate with any thread count."""
    X, y = _random_problem(22, n=40, m=4)
    errors = {BinOCTClassifier(max_depth=2, threads=threads, memory_limit=cap, time_limit=60).fit(X, y).errors_
              for cap, threads in [(None, 1), ("1G", 2), (None, 2), ("1G", 1), (None, 1), ("1G", 2)]}
    assert errors == {complete_dp(X, y, 2)}


def _fake_child(monkeypatch, behaviour):
    """Replace the build and HiGHS run (in the child) by ``behaviour(send)``."""
    monkeypatch.setattr(binoct._HighsRun, "solve", lambda self, report, send: behaviour(send))


@needs_child
def test_a_child_killed_by_a_signal_gives_memory_limit_and_the_start_tree(monkeypatch):
    """An allocation failure HiGHS does not catch aborts the child: the fit ends with status memory_limit and the
    CART start tree, without an exception."""
    d = load_osdt("monk1")
    _fake_child(monkeypatch, lambda send: os.kill(os.getpid(), signal.SIGKILL))
    clf = BinOCTClassifier(max_depth=2, memory_limit="1G").fit(d.X, d.y)
    assert clf.status_ == "memory_limit" and clf.result_.status is Status.MEMORY_LIMIT
    assert clf.tree_.features == cart_features(d.X, d.y, 2) and not clf.report_["has_solution"]
    assert clf.errors_ == int(np.sum(clf.predict(d.X) != d.y))


@needs_child
def test_a_child_out_of_memory_keeps_the_last_tree_it_sent(monkeypatch):
    d = load_osdt("monk1")

    def behaviour(send):
        send({"n_rows": 10, "n_cols": 20, "build_time": 0.01})
        send({"features": [1, 2, 3], "has_solution": True, "mip_objective": 40.0, "improvements": 1,
              "time_to_optimum": 0.02})
        raise MemoryError
    _fake_child(monkeypatch, behaviour)
    clf = BinOCTClassifier(max_depth=2, memory_limit="1G").fit(d.X, d.y)
    assert clf.status_ == "memory_limit"
    assert clf.tree_.features == [1, 2, 3] and clf.report_["mip_objective"] == 40.0
    assert clf.report_["n_rows"] == 10 and clf.lower_bound_ == 0.0  # built: no objective is negative
    assert clf.result_.counters["improvements"] == 1


@needs_child
def test_a_failing_child_raises_its_error_in_the_caller(monkeypatch):
    def behaviour(send):
        raise ValueError("a fault of the work, not of the cap")
    _fake_child(monkeypatch, behaviour)
    X, y = _random_problem(23)
    with pytest.raises(ChildFailed, match="ValueError: a fault of the work, not of the cap"):
        BinOCTClassifier(max_depth=2, memory_limit="1G").fit(X, y)


@needs_child
def test_a_stuck_child_is_killed_at_the_hard_deadline(monkeypatch):
    """A child that outlives the time limit by CHILD_GRACE_SECONDS is killed: status time_limit, the start tree."""
    monkeypatch.setattr(binoct, "CHILD_GRACE_SECONDS", 0.3)
    _fake_child(monkeypatch, lambda send: time.sleep(60))
    d = load_osdt("monk1")
    t0 = time.perf_counter()
    clf = BinOCTClassifier(max_depth=2, memory_limit="1G", time_limit=0.5).fit(d.X, d.y)
    assert time.perf_counter() - t0 < 0.5 + 0.3 + 1.0
    assert clf.status_ == "time_limit" and clf.tree_.features == cart_features(d.X, d.y, 2)


CTRL_C_CHILD = """
import json, os, signal, time
import numpy as np
signal.signal(signal.SIGINT, signal.default_int_handler)
import optbb.baselines.highs_child as highs_child
from optbb.baselines.binoct import BinOCTClassifier
rng = np.random.default_rng(0)
X = (rng.random((1000, 20)) < 0.5).astype(np.uint8)
y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(1000) < 0.2)).astype(np.uint8)
read = highs_child._read_message
def announce(fd):  # READY once the child process has started
    message = read(fd)
    if message and message[0] == "start":
        print("READY", flush=True)
    return message
highs_child._read_message = announce
clf = BinOCTClassifier(max_depth=3, time_limit=120, memory_limit="1G").fit(X, y)
returned = time.time()
try:
    os.waitpid(-1, os.WNOHANG)
    left = True
except ChildProcessError:
    left = False
print("RESULT " + json.dumps(dict(status=clf.status_, result=clf.result_.status.name, returned=returned,
                                  left=left, consistent=clf.errors_ == int(np.sum(clf.predict(X) != y)))))
"""


@needs_child
def test_ctrl_c_ends_a_capped_fit_with_status_interrupted():
    """HiGHS runs in the child, which ignores SIGINT; the waiting parent kills it on Ctrl-C and returns the best
    tree so far with status interrupted, leaving no process behind (measured latency 0.02-0.03 s)."""
    import json
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    assert line.startswith("READY"), (line, proc.stderr.read()[-2000:])
    time.sleep(0.5)
    sent = time.time()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    r = json.loads(out.split("RESULT ", 1)[1])
    assert r["status"] == "interrupted" and r["result"] == "INTERRUPTED" and r["consistent"]
    assert not r["left"]
    assert r["returned"] - sent < 2.0
