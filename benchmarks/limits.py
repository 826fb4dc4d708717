"""How closely the solvers honour ``time_limit``, and how fast they answer Ctrl-C, on problems made to be hard.

Each measurement runs in a fresh subprocess whose kernels are compiled (or loaded) before the clock starts:

* time limit: wall time of ``solve`` (result building included) minus the limit, ``--repeats`` runs per limit;
* Ctrl-C: SIGINT sent ``--signal-after`` seconds into the search; time from the signal to ``solve`` returning.

Problems: ``corels`` = ProPublica fold 0, lambda 0.005, no equivalent-points bound; ``osdt-fico`` = FICO at lambda
0.0005 (needs ``../shared/data/osdt/fico_binary.csv.gz``); ``osdt-ttt`` = tic-tac-toe at lambda 0.001 (OSDT's
default search, dynamic programming); ``osdt-dp-ttt`` = tic-tac-toe at lambda 1e-6, ``search="dp"``; ``osdt-dp-deep``
= kr-vs-kp (``../shared/data/dl/kr-vs-kp.txt.gz``) at lambda 1e-6, depth 6, ``search="dp"``; ``frl`` = FRL on random
3,000 x 16 data.  Large inputs (the estimator's ``fit`` on 1,000,000 random 0/1 rows, validation, packing and
warm starts on the clock): ``osdt-dp-1m``, ``osdt-dp-depth-1m`` (depth 4), ``osdt-leaf-1m``, ``osdt-weighted-1m``
(real sample weights) on 40 features at lambda 1e-4, ``frl-1m`` and ``corels-1m`` on 20 features;
``corels-mining-2k400`` (2,000 x 400 features mined to pairs: a 640 MB antecedent matrix) and ``binoct-3k30`` /
``binoct-6k30`` (depth 3 on 3,000 or 6,000 x 30: building the MIP is a large share; the default memory limit runs
HiGHS in a child process, which the fit kills on Ctrl-C).  Run it on an idle machine::

    python benchmarks/limits.py --problems corels,osdt-fico,osdt-ttt,frl --limits 0.5,2,3,10 --repeats 3
    python benchmarks/limits.py --problems osdt-dp-1m,osdt-leaf-1m,frl-1m,corels-1m --limits 1 --repeats 3

``--resources`` runs the resource cases instead (``--cases`` picks some of them):

* ``osdt-tiny-lambda``: OSDT on 60 x 4 random 0/1 data at lambda 1e-6 ... 1e-12, 1e-20 and 1e-300, both searches
  (``leaf_set``, ``dp``, ``auto``), CART or no initial tree, default limits: each solve OPTIMAL in < 2 s with peak
  RSS growth < 100 MB (no array may be sized by 1 / lambda);

and, for mining and start-up inside the limits (wall time of ``fit``, mining included, on random 0/1 features):

* ``corels-39200``: CORELS on 200 x 140 features (max_card 2 with negations: 39,200 antecedents), time_limit=1,
  must stop within max(5 %, 0.5 s);
* ``corels-5000`` / ``frl-5000``: 200 x 5,000 features, time_limit=5, must return within 6 s;
* ``frl-500``: FRL on 200 x 500 features, time_limit=1;
* ``noisy-default``: ``CorelsClassifier(regularization=0.005)`` on 800 x 12 features, two planted rules, 15 %
  label noise, with the default memory limit when ``Limits`` accepts ``memory_limit="auto"`` (else ``"1G"``):
  status, wall time and peak RSS (VmHWM after resetting it past start-up and warm-up) against physical memory.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FICO = REPO.parent / "shared" / "data" / "osdt" / "fico_binary.csv.gz"
KR_VS_KP = REPO.parent / "shared" / "data" / "dl" / "kr-vs-kp.txt.gz"

LOAD = {
    "corels": """
        from optbb.common.data import read_corels
        from optbb.corels import solve
        base = REPO + "/tests/data/corels/compas_0_train"
        data = read_corels(base + ".out.gz", base + ".label.gz")
        warm = lambda: solve(data, 0.005, ablation=("equivalent_points",), node_limit=2000)
        run = lambda **kw: solve(data, 0.005, ablation=("equivalent_points",), memory_limit="4G", **kw)
    """,
    "osdt-fico": """
        from optbb.common.data import read_osdt_csv
        from optbb.osdt import solve
        data = read_osdt_csv(FICO)
        warm = lambda: solve(data, 0.0005, memory_limit=4 << 20, time_limit=60)
        run = lambda **kw: solve(data, 0.0005, memory_limit="4G", **kw)
    """,
    "osdt-ttt": """
        from optbb.datasets import load_osdt
        from optbb.osdt import solve
        data = load_osdt("tic-tac-toe")
        warm = lambda: solve(data, 0.001, memory_limit=4 << 20, time_limit=60)
        run = lambda **kw: solve(data, 0.001, memory_limit="4G", **kw)
    """,
    "osdt-dp-ttt": """
        from optbb.datasets import load_osdt
        from optbb.osdt import solve
        data = load_osdt("tic-tac-toe")
        warm = lambda: solve(data, 1e-6, search="dp", memory_limit=4 << 20, time_limit=60)
        run = lambda **kw: solve(data, 1e-6, search="dp", memory_limit="4G", **kw)
    """,
    "osdt-dp-deep": """
        from optbb.datasets.dl import load_dl
        from optbb.osdt import solve
        data = load_dl(KR_VS_KP)
        warm = lambda: solve(data, 1e-6, search="dp", max_depth=6, memory_limit=4 << 20, time_limit=60)
        run = lambda **kw: solve(data, 1e-6, search="dp", max_depth=6, memory_limit="4G", **kw)
    """,
    "frl": """
        import numpy as np
        from optbb.frl import FRLClassifier
        rng = np.random.default_rng(1)
        X = (rng.random((3000, 16)) < 0.35).astype(np.uint8)
        y = (rng.random(3000) < 0.3).astype(np.uint8)
        warm = lambda: FRLClassifier(n_iter=20, random_state=0, min_class_support=0.05).fit(X, y)
        run = lambda **kw: FRLClassifier(n_iter=10 ** 8, random_state=0, min_class_support=0.05, **kw).fit(X, y).result_
    """,
}

_FEATURES = """
        import numpy as np
        rng = np.random.default_rng(0)
        X = rng.integers(0, 2, (200, {f}))
        y = rng.integers(0, 2, 200)
"""
for _name, _f, _est in (("corels-39200", 140, "CorelsClassifier()"), ("corels-5000", 5000, "CorelsClassifier()"),
                        ("frl-500", 500, "FRLClassifier(random_state=0)"),
                        ("frl-5000", 5000, "FRLClassifier(random_state=0)")):
    _cls = _est.split("(")[0]
    _mod = "corels" if _cls.startswith("Corels") else "frl"
    LOAD[_name] = _FEATURES.format(f=_f) + f"""
        from optbb.{_mod} import {_cls}
        warm = lambda: {_est}.set_params(time_limit=5).fit(X[:, :6], y)
        run = lambda **kw: {_est}.set_params(**kw).fit(X, y).result_
"""
_LARGE = """
        import numpy as np
        rng = np.random.default_rng(0)
        X = (rng.random((1000000, {m})) < 0.5).astype(np.uint8)
        y = (rng.random(1000000) < 0.5).astype(np.uint8)
        w = rng.random(1000000) + 0.5
"""
for _name, _m, _est, _w in (
        ("osdt-dp-1m", 40, "OSDTClassifier(regularization=1e-4, search='dp')", False),
        ("osdt-dp-depth-1m", 40, "OSDTClassifier(regularization=1e-4, search='dp', max_depth=4)", False),
        ("osdt-leaf-1m", 40, "OSDTClassifier(regularization=1e-4, search='leaf_set')", False),
        ("osdt-weighted-1m", 40, "OSDTClassifier(regularization=1e-4, search='dp')", True),
        ("frl-1m", 20, "FRLClassifier(random_state=0)", False),
        ("corels-1m", 20, "CorelsClassifier()", False)):
    _cls = _est.split("(")[0]
    _mod = {"OSDTClassifier": "osdt", "FRLClassifier": "frl", "CorelsClassifier": "corels"}[_cls]
    _sw = "w" if _w else "None"
    LOAD[_name] = _LARGE.format(m=_m) + f"""
        from optbb.{_mod} import {_cls}
        warm = lambda: {_est}.set_params(time_limit=1).fit(X[:300, :8], y[:300], None if {_sw} is None else w[:300])
        run = lambda **kw: {_est}.set_params(**kw).fit(X, y, {_sw}).result_
"""
LOAD["corels-mining-2k400"] = """
        import numpy as np
        rng = np.random.default_rng(0)
        X = (rng.random((2000, 400)) < 0.5).astype(np.uint8)
        y = (rng.random(2000) < 0.5).astype(np.uint8)
        from optbb.corels import CorelsClassifier
        warm = lambda: CorelsClassifier(max_card=2, time_limit=0.3).fit(X[:200, :40], y[:200])
        run = lambda **kw: CorelsClassifier(max_card=2).set_params(**kw).fit(X, y).result_
"""
for _name, _n in (("binoct-3k30", 3000), ("binoct-6k30", 6000)):
    LOAD[_name] = f"""
        import numpy as np
        rng = np.random.default_rng(0)
        X = (rng.random(({_n}, 30)) < 0.5).astype(np.uint8)
        y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random({_n}) < 0.2)).astype(np.uint8)
        from optbb.baselines.binoct import BinOCTClassifier
        warm = lambda: BinOCTClassifier(max_depth=2, time_limit=0.5).fit(X[:50, :5], y[:50])
        run = lambda **kw: BinOCTClassifier(max_depth=3).set_params(**kw).fit(X, y).result_
"""
RESOURCE_CASES = (("corels-39200", 1.0), ("corels-5000", 5.0), ("frl-500", 1.0), ("frl-5000", 5.0))

NOISY = """
    import numpy as np
    from optbb.common.limits import Limits
    from optbb.corels import CorelsClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (800, 12))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & (1 - X[:, 3]))  # two planted rules
    flip = rng.random(800) < 0.15
    y = np.where(flip, 1 - y, y)
    try:
        Limits(memory_limit="auto")
        kw, memory = {}, "default (auto)"
    except (ValueError, TypeError):
        kw, memory = {"memory_limit": "1G"}, "1G (Limits does not accept 'auto' yet)"
    CorelsClassifier(regularization=0.005, node_limit=50, **kw).fit(X, y)  # warm-up: compile outside the measure
    rss0 = reset_peak_rss()
    t0 = time.perf_counter()
    clf = CorelsClassifier(regularization=0.005, **kw).fit(X, y)
    wall = time.perf_counter() - t0
    r = clf.result_
    phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    print("RESULT " + json.dumps(dict(wall=wall, status=r.status.name, objective=r.objective, lower_bound=r.lower_bound,
                                      peak_rss=status_bytes("VmHWM:"), rss_before=rss0, physical=phys,
                                      accounted=r.counters["memory_bytes"], memory=memory,
                                      rules=len(clf.rule_list_))), flush=True)
"""

TINY_LAMBDA = """
    import gc
    import numpy as np
    from optbb.common.data import BinaryDataset
    from optbb.osdt import solve

    rng = np.random.default_rng(0)
    X = (rng.random((60, 4)) < 0.5).astype(np.uint8)
    y = (rng.random(60) < 0.5).astype(np.uint8)
    data = BinaryDataset(X, y, ["f0", "f1", "f2", "f3"])
    for s in ("leaf_set", "dp"):  # warm-up: compile outside the measure
        solve(data, 1e-3, search=s)
    rows = []
    for lam in LAMBDAS:
        for s in ("leaf_set", "dp", "auto"):
            for it in ("cart", None):
                gc.collect()
                rss0 = reset_peak_rss()
                t0 = time.perf_counter()
                try:
                    r = solve(data, lam, search=s, initial_tree=it)
                    out = dict(status=r.status.name, leaves=r.model.n_leaves, accounted=r.counters["memory_bytes"])
                except Exception as exc:  # an overflow or allocation failure is a result to report
                    out = dict(status=type(exc).__name__, leaves=None, accounted=None)
                wall = time.perf_counter() - t0
                peak = status_bytes("VmHWM:")
                rows.append(dict(lam=lam, search=s, initial_tree=it, wall=wall,
                                 growth=None if peak is None else peak - rss0, **out))
    print("RESULT " + json.dumps(dict(rows=rows)), flush=True)
"""

TIME_LIMIT = """
    warm()
    t0 = time.perf_counter()
    r = run(time_limit=LIMIT)
    print("RESULT " + json.dumps(dict(wall=time.perf_counter() - t0, status=r.status.name)), flush=True)
"""

CTRL_C = """
    warm()
    print("READY", flush=True)
    r = run(time_limit=600)
    print("RESULT " + json.dumps(dict(returned=time.time(), status=r.status.name)), flush=True)
"""


RSS_HELPERS = """
from optbb.baselines.highs_child import status_bytes


def reset_peak_rss():
    'Resets the peak RSS (VmHWM) to the current RSS where the kernel allows it; returns the current RSS.'
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    return status_bytes("VmRSS:")
"""


def _child(problem: str | None, body: str, **values) -> list[str]:
    head = f"import json, os, time\nREPO = {str(REPO)!r}\nFICO = {str(FICO)!r}\nKR_VS_KP = {str(KR_VS_KP)!r}\n"
    head += RSS_HELPERS
    for k, v in values.items():
        head += f"{k} = {v!r}\n"
    code = head + (textwrap.dedent(LOAD[problem]) if problem else "") + textwrap.dedent(body)
    return [sys.executable, "-c", code]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _result(stdout: str) -> dict:
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        raise RuntimeError(f"no result:\n{stdout[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def time_limit_overshoot(problem: str, limit: float) -> dict:
    proc = subprocess.run(_child(problem, TIME_LIMIT, LIMIT=limit), capture_output=True, text=True, env=_env(),
                          cwd=REPO, timeout=limit + 600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    r = _result(proc.stdout)
    return dict(overshoot=r["wall"] - limit, status=r["status"])


def ctrl_c_latency(problem: str, after: float) -> dict:
    proc = subprocess.Popen(_child(problem, CTRL_C), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), cwd=REPO)
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        raise RuntimeError(proc.stderr.read()[-3000:])
    time.sleep(after)
    sent = time.time()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=600)
    r = _result(stdout)
    return dict(latency=r["returned"] - sent, status=r["status"])


def noisy_default_run() -> dict:
    proc = subprocess.run(_child(None, NOISY), capture_output=True, text=True, env=_env(), cwd=REPO, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {proc.stderr[-3000:]}")
    return _result(proc.stdout)


def tiny_lambda_runs(lambdas) -> list[dict]:
    proc = subprocess.run(_child(None, TINY_LAMBDA, LAMBDAS=list(lambdas)), capture_output=True, text=True,
                          env=_env(), cwd=REPO, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {proc.stderr[-3000:]}")
    return _result(proc.stdout)["rows"]


def tiny_lambda(repeats: int) -> bool:
    """OSDT on 60 x 4 random data at lambda 1e-6 ... 1e-12 (and 1e-20, 1e-300), both searches, CART or no initial
    tree, default limits: each solve must end OPTIMAL in < 2 s with peak RSS growth < 100 MB.  Returns success."""
    lambdas = [10.0 ** -k for k in range(6, 13)] + [1e-20, 1e-300]
    runs = [tiny_lambda_runs(lambdas) for _ in range(repeats)]
    failed = False
    print("osdt-tiny-lambda: 60 x 4 data, default memory limit; per lambda and search, over CART / no initial tree "
          f"and {repeats} fresh processes: wall median / max, peak RSS growth max, statuses")
    for lam in lambdas:
        for s in ("leaf_set", "dp", "auto"):
            rows = [row for rs in runs for row in rs if row["lam"] == lam and row["search"] == s]
            walls = [row["wall"] for row in rows]
            growth = max((row["growth"] or 0) for row in rows)
            statuses = sorted({row["status"] for row in rows})
            ok = max(walls) < 2.0 and growth < 100 * 2 ** 20 and statuses == ["OPTIMAL"]
            failed |= not ok
            print(f"  lambda {lam:<7g} {s:8s} {statistics.median(walls):6.3f} / {max(walls):6.3f} s  "
                  f"RSS growth <= {growth / 2 ** 20:5.1f} MB  leaves {sorted({row['leaves'] for row in rows})}  "
                  f"{statuses} {'ok' if ok else 'MISSED'}", flush=True)
    return not failed


def resources(repeats: int, cases=None) -> None:
    """The resource cases of the module docstring; exits with status 1 when a bound is missed."""
    failed = False
    wanted = (lambda name: cases is None or name in cases)
    if wanted("osdt-tiny-lambda"):
        failed |= not tiny_lambda(repeats)
    print("case          limit   wall (median / max)   tolerance  statuses")
    for case, limit in RESOURCE_CASES:
        if not wanted(case):
            continue
        runs = [time_limit_overshoot(case, limit) for _ in range(repeats)]
        walls = [limit + r["overshoot"] for r in runs]
        allowed = limit + max(0.05 * limit, 0.5) if case == "corels-39200" or limit < 5 else 6.0
        ok = max(walls) <= allowed
        failed |= not ok
        print(f"{case:13s} {limit:<6g}  {statistics.median(walls):6.3f} / {max(walls):6.3f} s   <= {allowed:<5g}s  "
              f"{sorted({r['status'] for r in runs})} {'ok' if ok else 'MISSED'}", flush=True)
    if not wanted("noisy-default"):
        sys.exit(1 if failed else 0)
    r = noisy_default_run()
    share = r["peak_rss"] / r["physical"] if r["peak_rss"] else float("nan")
    ok = r["peak_rss"] is not None and share <= 0.6
    failed |= not ok
    print(f"noisy-default memory {r['memory']}: {r['status']} in {r['wall']:.1f} s, objective {r['objective']:.4f}, "
          f"lower bound {r['lower_bound']:.4f}, {r['rules']} rules; peak RSS {r['peak_rss'] / 2 ** 20:.0f} MB "
          f"({100 * share:.1f} % of {r['physical'] / 2 ** 30:.1f} GB physical; {r['rss_before'] / 2 ** 20:.0f} MB "
          f"before the fit; accounted search {r['accounted'] / 2 ** 20:.0f} MB) {'ok' if ok else 'MISSED'}",
          flush=True)
    if failed:
        sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default="corels,osdt-fico,osdt-ttt,frl")
    ap.add_argument("--limits", default="0.5,2,3,10", help="time limits in seconds, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--signal-after", type=float, default=1.5)
    ap.add_argument("--resources", action="store_true", help="run the resource cases (see the module docstring)")
    ap.add_argument("--cases", default=None,
                    help="with --resources: comma-separated subset of osdt-tiny-lambda, corels-39200, corels-5000, "
                         "frl-500, frl-5000, noisy-default (default: all)")
    args = ap.parse_args(argv)
    if args.resources:
        resources(args.repeats, None if args.cases is None else set(args.cases.split(",")))
        return
    limits = [float(x) for x in args.limits.split(",")]
    print("problem    measurement          median    max       statuses")
    for problem in args.problems.split(","):
        needs = {"osdt-fico": FICO, "osdt-dp-deep": KR_VS_KP}.get(problem)
        if needs is not None and not needs.is_file():
            print(f"{problem:10s} skipped: {needs} is absent")
            continue
        for limit in limits:
            runs = [time_limit_overshoot(problem, limit) for _ in range(args.repeats)]
            o = [r["overshoot"] for r in runs]
            print(f"{problem:10s} overshoot @ {limit:<6g}  {statistics.median(o):+.3f} s  {max(o):+.3f} s  "
                  f"{sorted({r['status'] for r in runs})}  all: {' '.join(f'{x:+.3f}' for x in o)}", flush=True)
        runs = [ctrl_c_latency(problem, args.signal_after) for _ in range(args.repeats)]
        lat = [r["latency"] for r in runs]
        print(f"{problem:10s} Ctrl-C latency       {statistics.median(lat):.3f} s   {max(lat):.3f} s   "
              f"{sorted({r['status'] for r in runs})}", flush=True)


if __name__ == "__main__":
    main()
