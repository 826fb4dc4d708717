"""The numbers the OSDT studies report in smoke mode (``OPTBB_EXPERIMENTS_SMOKE=1``: a smaller ``--quick``) are the
certified ones.  Each study runs once per session (the ``study_output`` fixture); test_experiments.py checks that
every study writes its CSV, Markdown and figures."""
import pandas as pd
import pytest

from experiments.osdt_common import OSDT_SPLITS, has_folds


def test_table2(study_output):
    out = study_output("osdt-table2")
    assert "232,402" in (out / "osdt-table2.md").read_text()  # the paper's count beside ours
    df = pd.read_csv(out / "osdt-table2.csv")
    done = df[df.status == "optimal"]
    assert "All bounds" in set(done.variant)
    assert (done.objective - 0.355968583).abs().max() < 1e-8  # every finished variant certifies Fig. 4's optimum
    assert (df.objective >= 0.355968583 - 1e-9).all() and (df.lower_bound <= 0.355968583 + 1e-9).all()


def test_trace(study_output):
    tr = pd.read_csv(study_output("osdt-trace") / "osdt-trace.csv")
    assert set(tr.policy) == {"curiosity", "lower_bound", "objective"}
    assert (tr.lower_bound <= tr.objective + 1e-12).all()


def test_accuracy_vs_leaves(study_output):
    out = study_output("osdt-accuracy-vs-leaves")
    assert "91.129" in (out / "osdt-accuracy-vs-leaves.md").read_text()
    df = pd.read_csv(out / "osdt-accuracy-vs-leaves.csv")
    assert set(df.method) == {"OSDT", "CART", "BinOCT"}
    osdt = df[(df.method == "OSDT") & (df.dataset == "monk1")]
    # Monk1 lambda 0.05: 5 leaves, 91.129 % (reference run), certified
    row = osdt[osdt.param == "lambda=0.05"].iloc[0]
    assert row.status == "optimal" and row.n_leaves == 5 and abs(row.train_accuracy - 113 / 124) < 1e-12


def test_trees(study_output):
    out = study_output("osdt-trees")
    assert "priors:>3" in (out / "osdt-trees.md").read_text()
    df = pd.read_csv(out / "osdt-trees.csv").set_index("figure")
    assert abs(df.loc["Fig. 4", "train_accuracy"] - 0.669031) < 1e-6
    assert abs(df.loc["Fig. 7b", "objective"] - 0.365773) < 1e-6
    assert abs(df.loc["Fig. 6b", "train_accuracy"] - 1.0) < 1e-12
    assert df.loc["Fig. 6a", "train_accuracy"] <= 113 / 124 + 1e-12  # no complete depth-3 tree beats 11 errors


@pytest.mark.skipif(not has_folds("monk1"), reason=f"the OSDT 10-fold splits are not in {OSDT_SPLITS}")
def test_cv(study_output):
    out = study_output("osdt-cv")
    df = pd.read_csv(out / "osdt-cv.csv")
    assert df.test_accuracy.between(0, 1).all() and df.fold.notna().all()
    assert (out / "osdt-cv-summary.csv").is_file()
