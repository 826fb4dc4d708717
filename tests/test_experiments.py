"""The reproduction studies: the command line, the registry, the cached runner and every registered study in smoke
mode.

Smoke mode (``OPTBB_EXPERIMENTS_SMOKE=1``) is a smaller ``--quick``: one fold or one split, few iterations, short
limits.  Studies run in this process so the JIT kernels and bank-full load once, and each runs once per session
(the ``study_output`` fixture): the checks of its numbers here and in test_experiments_osdt.py read that run.
"""
import json
import os
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import SMOKE_ENV
from experiments import registry, runner
from experiments.__main__ import main
from experiments.osdt_common import OSDT_SPLITS, has_folds
from experiments.report import CORELS_TEST
from optbb.common.result import Status

STUDIES = sorted(registry.load_all())
# studies that write a note instead of results when their data is missing (the NYCLU folds are not available)
NOTE_STUDIES = ["corels-table3", "corels-table5"]
# studies whose data lives beside the repository only: skipped without it
NEEDS = {
    "corels-accuracy": pytest.mark.skipif(not (CORELS_TEST / "compas_0_test.out").is_file(),
                                          reason="the reconstructed ProPublica test folds are not beside the "
                                                 "repository"),
    "osdt-cv": pytest.mark.skipif(not has_folds("monk1"), reason=f"the OSDT 10-fold splits are not in {OSDT_SPLITS}"),
}
# the result schema (docs/reproduction.md): status words, and column names that must not come back
STATUS_WORDS = {s.value for s in Status} | {"solution_limit", "infeasible", "-"}  # BinOCT's HiGHS statuses too
RETIRED_COLUMNS = {"train_acc", "test_acc", "paper_acc"}


@pytest.fixture(autouse=True)
def smoke(monkeypatch):
    for name, value in SMOKE_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPTBB_NYCLU_DIR", raising=False)


def test_list_names_every_study(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    for name in STUDIES:
        assert name in out


def test_every_study_module_registers_a_study():
    """A module of ``experiments/studies/`` that fails to import is skipped by the registry with a message; here it
    fails, so that every study file is run by the smoke test below."""
    files = {p.stem for p in registry.STUDIES_DIR.glob("*.py") if not p.name.startswith("_")}
    registered = {s.module.rsplit(".", 1)[-1] for s in registry.load_all().values()}
    assert files <= registered, files - registered
    assert set(NOTE_STUDIES) | set(NEEDS) <= set(STUDIES)


def test_usage_errors(capsys):
    assert main([]) == 2
    assert main(["no-such-study"]) == 2
    assert "known studies" in capsys.readouterr().err
    assert main(["corels-table6", "--jobs", "0"]) == 2


def test_dask_missing_is_a_clear_error(capsys, tmp_path):
    try:
        import dask.distributed  # noqa: F401
        pytest.skip("dask is installed")
    except ImportError:
        pass
    assert main(["corels-table6", "--dask", "tcp://127.0.0.1:1", "--out", str(tmp_path)]) == 2
    assert "dask" in capsys.readouterr().err


def _outputs(out: Path, name: str):
    assert (out / f"{name}.csv").stat().st_size > 0
    md = (out / f"{name}.md").read_text()
    assert "paper" in md.lower()
    pngs, pdfs = list(out.glob("*.png")), list(out.glob("*.pdf"))
    assert pngs and pdfs and len(pngs) == len(pdfs)
    assert all(p.stat().st_size < 300_000 for p in pngs)
    return md


def _schema(out: Path) -> None:
    for csv in out.glob("*.csv"):
        df = pd.read_csv(csv)
        assert not RETIRED_COLUMNS & set(df.columns), (csv.name, RETIRED_COLUMNS & set(df.columns))
        if "status" in df.columns:
            assert set(df.status.dropna()) <= STATUS_WORDS, (csv.name, set(df.status.dropna()) - STATUS_WORDS)


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEEDS.get(n, ())) for n in STUDIES])
def test_study_writes_outputs(name, study_output):
    """Every registered study, in smoke mode: a CSV in the one result schema, Markdown with the paper's numbers and
    PNG/PDF figures (or, for the NYCLU studies, a note saying the data is missing)."""
    out = study_output(name)
    if name in NOTE_STUDIES:
        note = (out / "NOTE.md").read_text()
        assert "not available" in note
        assert "Not run" in (out / f"{name}.md").read_text()
    else:
        _outputs(out, name)
    _schema(out)


def test_table4_values(study_output):
    df = pd.read_csv(study_output("corels-table4") / "corels-table4.csv")
    assert len(df) == 6
    done = df[df.status == "optimal"]
    assert done.objective.nunique() == 1  # every certified variant finds the same optimum
    no_ep = df[df.variant == "No equivalent points bound"].iloc[0]
    assert no_ep.lower_bound_evaluations >= done.lower_bound_evaluations.max()


def test_rerun_uses_the_cache(tmp_path, capsys, study_output):
    shutil.copytree(study_output("corels-table6"), tmp_path, dirs_exist_ok=True)  # a finished run
    files = sorted((tmp_path / "cache").glob("*.json"))
    assert files
    mtimes = [f.stat().st_mtime_ns for f in files]
    capsys.readouterr()
    assert main(["corels-table6", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(files)} cached, 0 to run" in out
    assert [f.stat().st_mtime_ns for f in sorted((tmp_path / "cache").glob("*.json"))] == mtimes


def test_runner_resumes_and_runs_in_parallel(tmp_path):
    cfg = registry.RunConfig(study="t", out=tmp_path, jobs=2, verbose=0)
    configs = [{"x": i} for i in range(4)]
    first = runner.run_sweep(runner.echo, configs[:2], cfg)
    assert [r["x"] for r in first] == [0, 1]
    # an "interrupted" sweep: two cached, two to run; a torn cache file is recomputed
    (tmp_path / "cache" / "garbage.json").write_text("{")
    res = runner.run_sweep(runner.echo, configs, cfg)
    assert [r["echo"] for r in res] == configs
    assert cfg.extra["sweeps"][-1] == {"label": "sweep", "total": 4, "cached": 2, "ran": 2}
    key = runner.config_hash(runner.echo, {"x": 3})
    assert json.loads((tmp_path / "cache" / f"{key}.json").read_text())["params"] == {"x": 3}


def test_registry_picks_up_any_module_name(tmp_path, monkeypatch):
    (tmp_path / "osdt-example.py").write_text(
        "from experiments.registry import register\n"
        "register('osdt-example', 'an example study', lambda config: 0)\n")
    monkeypatch.setattr(registry, "STUDIES_DIR", tmp_path)
    monkeypatch.setattr(registry, "_LOADED", False)
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    try:
        assert "osdt-example" in registry.load_all()
    finally:
        sys.modules.pop("experiments.studies.osdt-example", None)


def test_cart_matches_rpart_pruning_sizes():
    import numpy as np

    from optbb.baselines.cart import CARTClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(2000, 6))
    y = ((X[:, 0] & X[:, 1]) | (rng.random(2000) < 0.1)).astype(int)
    sizes = [CARTClassifier(cp=cp).fit(X, y).n_leaves_ for cp in (0.0, 0.001, 0.01, 0.1, 0.5)]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-1] == 1 or sizes[-1] <= 3
    m = CARTClassifier(cp=0.01).fit(X, y)
    assert m.predict_proba(X).shape == (2000, 2)
    assert np.mean(m.predict(X) == y) > 0.85


def test_plots_draw_on_the_given_axes_with_a_title():
    from experiments.report import pyplot
    from optbb import plot
    from optbb.corels.model import Rule, RuleList
    from optbb.osdt.model import Tree

    plt = pyplot()
    _, (left, right) = plt.subplots(1, 2)
    assert plot.tree(Tree([((0, 1),), ((0, 0),)], [1, 0], ["a"]), ax=left, title="tree") is left
    assert plot.rule_list(RuleList([Rule(0, "a", 1)], 0), ax=right, title="rules") is right
    assert (left.get_title(), right.get_title()) == ("tree", "rules")
    assert "a" in [t.get_text() for t in left.texts] and "a" in [t.get_text() for t in right.texts]
    plt.close("all")


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("distributed", reason="the Dask path needs the optional 'dask[distributed]' "
                                                            "package (pip install -e '.[dask]')")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_dask_sweep_runs_on_the_cluster_and_resumes(tmp_path, dask_scheduler):
    cfg = registry.RunConfig(study="t", out=tmp_path, jobs=1, verbose=0, dask=dask_scheduler)
    configs = [{"x": i} for i in range(6)]
    runner.run_sweep(runner.echo, configs[:2], cfg)
    res = runner.run_sweep(runner.echo, configs, cfg)
    assert [r["echo"] for r in res] == configs  # results in configuration order, whatever the completion order
    assert cfg.extra["sweeps"][-1] == {"label": "sweep", "total": 6, "cached": 2, "ran": 4}
    assert all(r["pid"] != os.getpid() for r in res)  # computed by the cluster's worker processes


def test_dask_study_matches_local_processes(tmp_path, dask_scheduler):
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert main(["corels-table6", "--smoke", "--out", str(local), "-q"]) == 0
    assert main(["corels-table6", "--smoke", "--out", str(remote), "--dask", dask_scheduler, "-q"]) == 0
    a = pd.read_csv(local / "corels-table6.csv")
    b = pd.read_csv(remote / "corels-table6.csv")
    cols = [c for c in a.columns if c in ("objective", "lower_bound", "status", "rules", "nodes_evaluated",
                                          "queue_insertions", "lower_bound_evaluations")]
    assert cols
    pd.testing.assert_frame_equal(a[cols], b[cols])
