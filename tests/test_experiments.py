"""The reproduction studies: the command line, the registry, the cached runner and every study in smoke mode.

Smoke mode (``OPTBB_EXPERIMENTS_SMOKE=1``) is a smaller ``--quick``: one fold or one split, few iterations, short
limits.  Studies run in this process so the JIT kernels and bank-full load once.
"""
import json
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments import registry, runner
from experiments.__main__ import main

CORELS_STUDIES = ["corels-table4", "corels-table6", "corels-accuracy", "corels-trace"]
FRL_STUDIES = ["frl-tables", "frl-roc", "frl-pruning"]
NOTE_STUDIES = ["corels-table3", "corels-table5"]
TEST_FOLD = Path(runner.__file__).resolve().parents[2] / "shared" / "data" / "corels" / "CrossValidation"


@pytest.fixture(autouse=True)
def smoke(monkeypatch):
    monkeypatch.setenv("OPTBB_EXPERIMENTS_SMOKE", "1")
    monkeypatch.delenv("OPTBB_NYCLU_DIR", raising=False)


def test_list_names_every_study(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    for name in CORELS_STUDIES + FRL_STUDIES + NOTE_STUDIES:
        assert name in out


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


needs_test_folds = pytest.mark.skipif(not (TEST_FOLD / "reconstructed_test" / "compas_0_test.out").is_file(),
                                      reason="the reconstructed ProPublica test folds are not beside the repository")


@pytest.mark.parametrize("name", ["corels-table4", "corels-table6", "corels-trace",
                                  pytest.param("corels-accuracy", marks=needs_test_folds)])
def test_corels_study_writes_outputs(name, tmp_path):
    assert main([name, "--quick", "--out", str(tmp_path), "-q"]) == 0
    _outputs(tmp_path, name)


@pytest.mark.parametrize("name", FRL_STUDIES)
def test_frl_study_writes_outputs(name, tmp_path):
    assert main([name, "--quick", "--out", str(tmp_path), "-q"]) == 0
    _outputs(tmp_path, name)


@pytest.mark.parametrize("name", NOTE_STUDIES)
def test_nyclu_studies_say_the_data_is_missing(name, tmp_path):
    assert main([name, "--out", str(tmp_path), "-q"]) == 0
    note = (tmp_path / "NOTE.md").read_text()
    assert "not available" in note
    assert "Not run" in (tmp_path / f"{name}.md").read_text()


def test_table4_values(tmp_path):
    assert main(["corels-table4", "--quick", "--out", str(tmp_path), "-q"]) == 0
    import pandas as pd

    df = pd.read_csv(tmp_path / "corels-table4.csv")
    assert len(df) == 6
    done = df[df.status == "OPTIMAL"]
    assert done.objective.nunique() == 1  # every certified variant finds the same optimum
    no_ep = df[df.variant == "No equivalent points bound"].iloc[0]
    assert no_ep.lower_bound_evaluations >= done.lower_bound_evaluations.max()


def test_rerun_uses_the_cache(tmp_path, capsys):
    assert main(["corels-table6", "--quick", "--out", str(tmp_path)]) == 0
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
