"""How closely the solvers honour ``time_limit``, and how fast they answer Ctrl-C, on problems made to be hard.

Each measurement runs in a fresh subprocess whose kernels are compiled (or loaded) before the clock starts:

* time limit: wall time of ``solve`` (result building included) minus the limit, ``--repeats`` runs per limit;
* Ctrl-C: SIGINT sent ``--signal-after`` seconds into the search; time from the signal to ``solve`` returning.

Problems: ``corels`` = ProPublica fold 0, lambda 0.005, no equivalent-points bound; ``osdt-fico`` = FICO at lambda
0.0005 (needs ``../shared/data/osdt/fico_binary.csv.gz``); ``osdt-ttt`` = tic-tac-toe at lambda 0.001; ``frl`` =
FRL on random 3,000 x 16 data.  Run it on an idle machine::

    python benchmarks/limits.py --problems corels,osdt-fico,osdt-ttt,frl --limits 0.5,2,3,10 --repeats 3
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
    "frl": """
        import numpy as np
        from optbb.frl import FRLClassifier
        rng = np.random.default_rng(1)
        X = (rng.random((3000, 16)) < 0.35).astype(np.uint8)
        y = (rng.random(3000) < 0.3).astype(np.uint8)
        warm = lambda: FRLClassifier(n_iter=20, random_state=0, min_support=0.05).fit(X, y)
        run = lambda **kw: FRLClassifier(n_iter=10 ** 8, random_state=0, min_support=0.05, **kw).fit(X, y).result_
    """,
}

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


def _child(problem: str, body: str, **values) -> list[str]:
    head = f"import json, time\nREPO = {str(REPO)!r}\nFICO = {str(FICO)!r}\n"
    for k, v in values.items():
        head += f"{k} = {v!r}\n"
    code = head + textwrap.dedent(LOAD[problem]) + textwrap.dedent(body)
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default="corels,osdt-fico,osdt-ttt,frl")
    ap.add_argument("--limits", default="0.5,2,3,10", help="time limits in seconds, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--signal-after", type=float, default=1.5)
    args = ap.parse_args(argv)
    limits = [float(x) for x in args.limits.split(",")]
    print("problem    measurement          median    max       statuses")
    for problem in args.problems.split(","):
        if problem == "osdt-fico" and not FICO.is_file():
            print(f"{problem:10s} skipped: {FICO} is absent")
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
