"""Run a sweep of configurations in parallel (joblib, or a Dask cluster) with a per-configuration result cache.

A configuration is a JSON-serialisable dict of parameters; the task is a module-level function ``task(**params)
-> dict`` (JSON-serialisable).  Each finished configuration is written to ``<out>/cache/<hash>.json`` as soon as it
completes, where the hash covers the task's qualified name and the parameters; a rerun loads those files and only
runs the configurations that are missing, so an interrupted sweep resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Callable, Iterable

from .registry import RunConfig

CACHE_VERSION = 2  # 2: one result schema (status as the Status value, train_accuracy / test_accuracy)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item) and getattr(obj, "ndim", 1) == 0:
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, Path):
        return os.fspath(obj)
    return obj


def task_name(task: Callable) -> str:
    return f"{task.__module__}.{task.__qualname__}"


def config_hash(task: Callable, params: dict) -> str:
    """Stable hash of a task and its parameters (the cache key)."""
    blob = json.dumps({"task": task_name(task), "params": _jsonable(params), "v": CACHE_VERSION}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _run_one(task: Callable, params: dict) -> dict:
    t0 = time.perf_counter()
    out = task(**params)
    out = dict(out)
    out.setdefault("wall_seconds", time.perf_counter() - t0)
    return _jsonable(out)


class SweepStats:
    def __init__(self, total: int, cached: int):
        self.total = total
        self.cached = cached
        self.ran = 0


def run_sweep(task: Callable, configs: Iterable[dict], config: RunConfig, label: str = "sweep") -> list[dict]:
    """Run ``task(**params)`` for every params dict, in order; return the results with the params merged in.

    Results already in the cache are not recomputed.  ``config.jobs`` > 1 uses joblib processes;
    ``config.dask`` (a scheduler address) submits the tasks to that Dask cluster instead.
    """
    configs = [dict(c) for c in configs]
    cache_dir = Path(config.out) / "cache"
    cache_dir.mkdir(parents=True, exist_ok=True)
    keys = [config_hash(task, c) for c in configs]
    results: dict[str, dict] = {}
    for k in set(keys):
        f = cache_dir / f"{k}.json"
        if f.is_file():
            try:
                results[k] = json.loads(f.read_text())["result"]
            except (json.JSONDecodeError, KeyError):
                f.unlink()  # a torn write from an interrupted run: recompute
    todo = []
    seen = set()
    for k, c in zip(keys, configs):
        if k not in results and k not in seen:
            todo.append((k, c))
            seen.add(k)
    stats = SweepStats(len(set(keys)), len(set(keys)) - len(todo))
    config.log(f"{label}: {stats.total} configurations, {stats.cached} cached, {len(todo)} to run"
               + (f" on {config.dask}" if config.dask and todo else
                  (f" with {config.jobs} jobs" if config.jobs > 1 and len(todo) > 1 else "")))

    def save(k: str, c: dict, res: dict) -> None:
        tmp = cache_dir / f".{k}.json.tmp"
        tmp.write_text(json.dumps({"task": task_name(task), "params": _jsonable(c), "result": res}, indent=1))
        os.replace(tmp, cache_dir / f"{k}.json")
        results[k] = res
        stats.ran += 1
        if config.verbose > 1 or len(todo) > 3:
            config.log(f"{label}: {stats.cached + stats.ran}/{stats.total} done ({_short(c)})")

    if todo:
        if config.dask:
            _run_dask(task, todo, config.dask, save)
        elif config.jobs > 1 and len(todo) > 1:
            from joblib import Parallel, delayed

            gen = Parallel(n_jobs=config.jobs, return_as="generator")(delayed(_run_one)(task, c) for _, c in todo)
            for (k, c), res in zip(todo, gen):
                save(k, c, res)
        else:
            for k, c in todo:
                save(k, c, _run_one(task, c))
    config.extra.setdefault("sweeps", []).append({"label": label, "total": stats.total, "cached": stats.cached,
                                                 "ran": stats.ran})
    return [{**_jsonable(c), **results[k]} for k, c in zip(keys, configs)]


def _run_dask(task: Callable, todo: list, address: str, save: Callable) -> None:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise RuntimeError("--dask needs the 'dask[distributed]' package, which is not installed "
                           "(pip install 'dask[distributed]'); run without --dask to use local processes") from None
    with Client(address) as client:
        futures = {client.submit(_run_one, task, c, pure=False): (k, c) for k, c in todo}
        for fut in as_completed(futures):
            k, c = futures[fut]
            save(k, c, fut.result())


def _short(params: dict) -> str:
    return ", ".join(f"{k}={'+'.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
                     for k, v in params.items() if not isinstance(v, dict))[:100]


def echo(**params) -> dict:
    """A trivial task returning its parameters and the worker's process id: checks a set-up (joblib, Dask)."""
    return {"echo": params, "pid": os.getpid()}
