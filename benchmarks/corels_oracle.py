"""optbb's CORELS against independent oracles at the hard end: the C++ CORELS and brute force.

Usage::

    python benchmarks/corels_oracle.py [--cases PATTERNS] [--timeout 120] [--out benchmarks/results/corels_oracle]
    python benchmarks/corels_oracle.py --list

Each row of the result is one (case, solver setting) run.  Objectives are ``misclassified / N + lambda * rules``
(weighted: misclassified weight / total weight), *recomputed here* from the returned rule list on the data (the
rules' own predictions, first matching rule wins), never taken from a solver's report alone; a certified run's
reported objective must equal its recomputed one within 1e-9.

Cases (ids for ``--cases``, a comma list of ``fnmatch`` patterns such as ``"cv0*,rand*"``):

* ``cv<f>@<lambda>``: the ProPublica 10-fold training folds (``shared/data/corels/CrossValidation``, M = 121-123
  antecedents, N = 6,216/6,217).  The C++ gets the authors' own ``.out/.label/.minor`` files.
* ``cv<f>-card1@<lambda>``: the same fold restricted to its 17 single-feature antecedents (the cardinality-1
  variant of the same antecedent file); ``cv<f>-a<K>s<seed>@<lambda>``: the 17 singles plus ``K - 17`` pairs drawn
  with ``numpy.random.default_rng(seed)``.  Both solvers read the same derived files (the ``.minor`` recomputed
  over the kept columns).
* ``kdd<f>@<lambda>``: the KDD-2017 folds (``kdd2017_cv``, M = 155 antecedents, N = 6,489), the authors' files;
  ``kdd<f>-card1@<lambda>`` their 19 single-feature antecedents.
* ``<osdt-set>-c<card>@<lambda>``: antecedents mined by optbb (``mine_antecedents``, negations, support >= 1 %,
  cardinality ``card``) from the OSDT binary sets, written in the CORELS format for both solvers.
* ``rbig<seed>@<lambda>``: a random binary unweighted problem beyond brute force (12-20 antecedents, 300-1,500
  samples, labels from a hidden rule list with noise, duplicated rows), written in the CORELS format for both.
* ``rand<seed>``: a small random problem (5-7 antecedents, 20-200 samples, 2 or 3 classes, optionally real or
  integer sample weights with zeros, duplicated rows with conflicting labels, lambda in {0, 0.001, 0.0025, 0.005,
  0.01}).  The oracle is brute force over every ordered prefix (``tests/twins/corels.py``); the C++ also runs on the
  binary unweighted ones with lambda > 0 (it supports neither classes beyond two nor weights).

Solver settings: ``optbb`` is ``optbb.corels.solve`` with the default options (best-first by lower bound, prefix
permutation map, every bound), ``optbb:<key>=<value>`` varies one option (``policy``, ``map_type``, ``ablation``
as a ``+`` list; several as a comma list).  ``cxx`` is the C++ CORELS ``-c 2 -p 1`` with the ``.minor`` file (the
paper's setting); ``cxx:<flags>`` another flag set (``-b`` BFS, ``-c 1..4``, ``-p 0..2``, ``-a 1|2``, ``nominor``
drops the equivalent points bound).  The C++ has no time limit and no rule-list length limit of its own.

The optbb settings of a case run in one subprocess (this script with ``--worker``: loading the compiled kernels
costs about 9 CPU seconds per process, which would dominate the small cases), one after the other, each with
``time_limit`` = ``--timeout``; the subprocess is killed after ``settings * (timeout + 30) + 120`` s.  Each C++ run
is its own subprocess, killed after ``--timeout`` (``benchmarks/anchors.py``); the optbb worker and the C++ runs of
a case go side by side.  A random case runs brute force and every optbb setting in one worker (killed after
``--timeout``).  Every process is ``nice``-d.

Verdict per row: ``MATCH`` when this run and the case's oracle both certify and their recomputed objectives agree
within 1e-9; ``MISMATCH`` when they certify and disagree, or when a run certifies an objective above a list the
other found (a certified claim refuted), or when optbb's lower bound exceeds a list found by the oracle (a bound
that pruned the optimum); ``CONSISTENT`` when one side did not certify and nothing is refuted; ``NO-ORACLE`` when
no oracle certified and no list contradicts.  The oracle of a case is brute force when present, else the C++
setting ``cxx`` (else any certified C++ setting); the C++ rows are judged against optbb's default run, or against
brute force.  A C++ run killed at the time limit prints no list: its objective is the best one in its log, which
has 6 decimals, so it is compared with a tolerance of 1e-6.

Results: ``<out>.csv`` (one row per run) and ``<out>.md`` (header with the command, date, commit and load, the
table, a summary).  ``--cases`` reruns some cases: rows of other cases already in ``<out>.csv`` are kept.
``--merge a.csv,b.csv`` runs nothing and writes one table from the CSVs (and the headers of the ``.md`` files beside
them) of several runs, judging every case again; a (case, setting) found in several of them is taken from the last
one listed.
``--solvers 'optbb|cxx:-c 1 -p 2'`` runs only those settings of the selected data-file cases (e.g. again with a
longer ``--timeout``), for merging into an earlier run.
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from corels_oracle_report import fmt, read_rows, write_results

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import anchors  # noqa: E402

DATA = anchors.DATA_DIR
CV_DIR = DATA / "corels" / "CrossValidation"
KDD_DIR = DATA / "corels" / "kdd2017_cv"
OSDT_DIR = DATA / "osdt"
TOL = 1e-9

OPTBB_VARIANTS = (["optbb"] + [f"optbb:policy={p}" for p in ("bfs", "curiosity", "objective", "dfs")]
                  + [f"optbb:map_type={m}" for m in ("none", "captured")]
                  + [f"optbb:ablation={a}" for a in ("support", "accurate_support", "lookahead", "prefix_length")]
                  + ["optbb:ablation=support+accurate_support+lookahead+prefix_length"])
CXX_VARIANTS = ["cxx", "cxx:-b -p 1", "cxx:-c 1 -p 2", "cxx:-c 3 -p 0", "cxx:-c 4 -p 1", "cxx:-c 2 -p 1 -a 1",
                "cxx:-c 2 -p 2 -a 2", "cxx:-c 2 -p 1 nominor"]


# --------------------------------------------------------------------------------------------- cases


def case_list():
    """Every case id of the default sweep, with the solver settings each one runs."""
    cases = []
    for lam, folds in ((0.0025, (0, 3, 6, 9)), (0.001, (0, 5))):  # full folds: optbb default, the paper's C++
        for f in folds:
            cases.append((f"cv{f}@{lam}", ["optbb", "cxx"]))
    cases += [("kdd0@0.0025", ["optbb", "cxx"]), ("kdd1@0.001", ["optbb", "cxx"])]
    for lam in (0.0025, 0.001, 0.0005):  # reduced antecedent sets: both certify, every setting
        for f in (0, 3, 6):
            cases.append((f"cv{f}-card1@{lam}", OPTBB_VARIANTS + CXX_VARIANTS))
        cases.append((f"kdd0-card1@{lam}", OPTBB_VARIANTS + CXX_VARIANTS))
    for lam in (0.0025, 0.001):
        for f, seed in ((0, 1), (5, 2), (9, 3)):
            cases.append((f"cv{f}-a30s{seed}@{lam}", OPTBB_VARIANTS + CXX_VARIANTS))
        cases.append((f"cv2-a40s4@{lam}", ["optbb", "optbb:map_type=captured", "optbb:policy=curiosity", "cxx"]))
    for name, card in (("monk1", 1), ("monk2", 1), ("monk3", 1), ("car", 1), ("tic-tac-toe", 1), ("compas", 1),
                       ("monk1", 2), ("monk3", 2)):
        for lam in (0.0025, 0.001):
            cases.append((f"{name}-c{card}@{lam}", ["optbb", "optbb:policy=curiosity", "optbb:map_type=captured",
                                                    "optbb:policy=curiosity,map_type=captured", "cxx",
                                                    "cxx:-c 1 -p 2"]))
    for seed in range(24):  # random binary problems beyond brute force: the C++ is the oracle
        lam = (0.0025, 0.005, 0.01)[seed % 3] if seed < 12 else 0.001
        cases.append((f"rbig{seed}@{lam}", ["optbb", "optbb:policy=curiosity", "optbb:map_type=captured",
                                            "optbb:ablation=lookahead", "cxx", "cxx:-c 1 -p 2"]))
    for seed in range(80):
        cases.append((f"rand{seed}", None))  # settings decided by the problem (see random_problem)
    return cases


_OSDT_FILES = {"monk1": "monk1-train.csv", "monk2": "monk2-train.csv", "monk3": "monk3-train.csv",
               "car": "car-evaluation.csv", "tic-tac-toe": "tic-tac-toe.csv", "compas": "compas-binary.csv"}


def parse_case(case: str) -> dict:
    """Split a data-file case id into its parts: ``{"kind", "fold"/"name", "variant", "lam"}``."""
    body, lam = case.rsplit("@", 1)
    m = re.fullmatch(r"rbig(\d+)", body)
    if m:
        return {"kind": "rbig", "seed": int(m.group(1)), "lam": float(lam)}
    m = re.fullmatch(r"(cv|kdd)(\d)(?:-(card1|a(\d+)s(\d+)))?", body)
    if m:
        return {"kind": m.group(1), "fold": int(m.group(2)), "variant": m.group(3), "k": m.group(4),
                "seed": m.group(5), "lam": float(lam)}
    name, card = body.rsplit("-c", 1)
    return {"kind": "osdt", "name": name, "card": int(card), "lam": float(lam)}


def source_files(spec: dict):
    """The authors' (out, label, minor) files of a cv/kdd fold."""
    if spec["kind"] == "cv":
        base = CV_DIR / f"compas_{spec['fold']}_train"
    else:
        base = KDD_DIR / f"compas_{spec['fold']}_train"
    out = base.with_name(base.name + ".out.gz")
    return out, base.with_name(base.name + ".label"), base.with_name(base.name + ".minor")


def load_case(spec: dict):
    """The ``BinaryDataset`` (antecedent columns, labels) of a data-file case, and whether the C++ may read the
    authors' files as they are."""
    from optbb.common.data import read_corels, read_osdt_csv
    from optbb.common.mining import mine_antecedents

    if spec["kind"] in ("cv", "kdd"):
        out, label, _ = source_files(spec)
        data = read_corels(out, label)
        if spec["variant"] is None:
            return data, True
        cols = [j for j, name in enumerate(data.feature_names) if "," not in name]  # single-feature antecedents
        if spec["variant"] != "card1":
            rng = np.random.default_rng(int(spec["seed"]))
            pairs = np.array([j for j in range(data.n_features) if j not in cols])
            cols += sorted(int(c) for c in rng.choice(pairs, int(spec["k"]) - len(cols), replace=False))
        return data.subset(columns=cols), False
    if spec["kind"] == "rbig":
        from optbb.common.data import from_arrays

        A, y = big_random_problem(spec["seed"])
        return from_arrays(A, y), False
    raw = read_osdt_csv(OSDT_DIR / _OSDT_FILES[spec["name"]])
    mined = mine_antecedents(raw, max_card=spec["card"], min_support=0.01, negations=True)
    return mined.data, False


def write_cxx_files(data, root: Path, minor: bool = True) -> list[Path]:
    """``root.out/.label[/.minor]`` for the C++ (binary labels only), antecedents named ``{a<j>}``."""
    from optbb.common.equivalence import minority_vector

    def line(name, bits):
        return "{%s} %s\n" % (name, " ".join(np.asarray(bits, dtype=np.uint8).astype(str)))

    paths = [root.with_suffix(".out"), root.with_suffix(".label")]
    paths[0].write_text("".join(line(f"a{j}", data.X[:, j]) for j in range(data.n_features)))
    paths[1].write_text(line("y=0", data.y == 0) + line("y=1", data.y == 1))
    if minor:
        paths.append(root.with_suffix(".minor"))
        paths[2].write_text(line("group_minority", minority_vector(data.X, data.y)))
    return paths


# --------------------------------------------------------------------------------------------- objectives


def recompute(A: np.ndarray, y: np.ndarray, w: np.ndarray | None, rules, default: int, lam: float) -> float:
    """``misclassified (weight) / total + lam * len(rules)`` of the list ``rules`` = [(column, predicted class)]
    followed by ``default``, first matching rule wins."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    open_ = np.ones(len(y), dtype=bool)
    wrong = 0.0
    for col, pred in rules:
        hit = open_ & (A[:, col] == 1)
        wrong += float(w[hit & (y != pred)].sum())
        open_ &= ~hit
    wrong += float(w[open_ & (y != default)].sum())
    return wrong / float(w.sum()) + lam * len(rules)


def _bare(name: str) -> str:
    return name[1:-1] if name.startswith("{") and name.endswith("}") else name


def cxx_rules(text: str, names: list[str], labels: tuple[str, ...]):
    """The C++ rule list text as [(column, class)] and the default class; names/labels without braces."""
    index = {_bare(n): j for j, n in enumerate(names)}
    label_index = {_bare(n): j for j, n in enumerate(labels)}
    rules, default = [], None
    for line in text.splitlines():
        m = re.match(r"^(?:else )?if \(\{(.*)\}\) then \(\{(.*)\}\)$", line.strip())
        if m:
            rules.append((index[m.group(1)], label_index[m.group(2)]))
            continue
        m = re.match(r"^else \(\{(.*)\}\)$", line.strip()) or re.match(r"^if \(1\) then \(\{(.*)\}\)$",
                                                                      line.strip())  # the default alone
        if m:
            default = label_index[m.group(1)]
    if default is None:
        raise ValueError(f"cannot parse the C++ rule list:\n{text}")
    return rules, default


# --------------------------------------------------------------------------------------------- runs


def optbb_options(setting: str) -> dict:
    if setting == "optbb":
        return {}
    options = {}
    for part in setting.split(":", 1)[1].split(","):
        key, value = part.split("=", 1)
        options[key] = tuple(value.split("+")) if key == "ablation" else value
    return options


def optbb_row(result, A, y, w, lam, elapsed) -> dict:
    model = result.model
    rules = [(r.antecedent, r.prediction) for r in model.rules]
    return {"status": result.status.name, "certified": result.status.name == "OPTIMAL",
            "objective": recompute(A, y, w, rules, model.default_prediction, lam),
            "reported_objective": result.objective, "lower_bound": result.lower_bound, "length": len(rules),
            "time_s": round(elapsed, 3), "nodes": result.counters.get("nodes_evaluated")}


def worker(job: dict) -> None:
    """Child process: one optbb run of a data-file case, or a random case (brute force + every optbb setting);
    prints one JSON line per run."""
    from optbb.corels import solve

    if job["case"].startswith("rand"):
        return random_worker(job)
    spec = parse_case(job["case"])
    data, _ = load_case(spec)
    for setting in job.get("solvers") or [job["solver"]]:
        start = time.perf_counter()
        result = solve(data, spec["lam"], time_limit=job["timeout"], **optbb_options(setting))
        row = optbb_row(result, data.X, data.y, None, spec["lam"], time.perf_counter() - start)
        print(json.dumps({"solver": setting, **row}), flush=True)


def random_problem(seed: int):
    """``(A, y, w, lam, k)``: a small random problem with structure (labels follow a hidden rule list with noise)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(5, 8))
    n = int(rng.integers(20, 201))
    k = 3 if rng.random() < 0.35 else 2
    dens = rng.uniform(0.1, 0.6, m)
    A = (rng.random((n, m)) < dens).astype(np.uint8)
    if rng.random() < 0.5:  # duplicated rows with (maybe) conflicting labels: equivalent points
        d = n // 3
        A[n - d:] = A[:d]
    y = rng.integers(0, k, n)
    for col in rng.permutation(m)[: int(rng.integers(1, 4))][::-1]:  # a hidden rule list, then noise
        y = np.where(A[:, col] == 1, rng.integers(0, k), y)
    flip = rng.random(n) < rng.uniform(0.05, 0.3)
    y = np.where(flip, rng.integers(0, k, n), y).astype(np.uint8)
    kind = rng.choice(["none", "none", "integer", "real"])
    w = None
    if kind == "integer":
        w = rng.integers(0, 4, n).astype(np.float64)
    elif kind == "real":
        w = rng.lognormal(0.0, 1.0, n)
        w[rng.random(n) < 0.1] = 0.0
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    lam = float(rng.choice([0.0, 0.001, 0.0025, 0.005, 0.01]))
    return A, y, w, lam, k


def big_random_problem(seed: int):
    """``(A, y)``: a binary unweighted problem too large for brute force (12-20 antecedents, 300-1500 samples), labels
    from a hidden rule list with 10-35 % noise, a third of the rows duplicated."""
    rng = np.random.default_rng(10_000 + seed)
    m = int(rng.integers(12, 21))
    n = int(rng.integers(300, 1501))
    A = (rng.random((n, m)) < rng.uniform(0.05, 0.5, m)).astype(np.uint8)
    d = n // 3
    A[n - d:] = A[:d]
    y = (rng.random(n) < 0.4).astype(np.uint8)
    for col in rng.permutation(m)[: int(rng.integers(2, 6))][::-1]:
        y = np.where(A[:, col] == 1, rng.integers(0, 2), y)
    flip = rng.random(n) < rng.uniform(0.1, 0.35)
    return A, np.where(flip, 1 - y, y).astype(np.uint8)


def random_worker(job: dict) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from twins.corels import corels_brute_force  # noqa: E402
    from optbb.common.data import from_arrays
    from optbb.corels import solve

    A, y, w, lam, k = random_problem(int(job["case"][4:]))
    start = time.perf_counter()
    best, prefix = corels_brute_force(A, y, lam, sample_weight=w)
    print(json.dumps({"solver": "brute", "status": "OPTIMAL", "certified": True, "objective": best,
                      "reported_objective": best, "lower_bound": best, "length": len(prefix),
                      "time_s": round(time.perf_counter() - start, 3), "nodes": None}), flush=True)
    data = from_arrays(A, y, label_names=tuple(str(c) for c in range(k)), sample_weight=w)
    for setting in OPTBB_VARIANTS + ["optbb:ablation=equivalent_points"]:
        start = time.perf_counter()
        result = solve(data, lam, time_limit=job["timeout"], **optbb_options(setting))
        row = optbb_row(result, A, y, w, lam, time.perf_counter() - start)
        print(json.dumps({"solver": setting, **row}), flush=True)


def run_worker(job: dict, kill_after: float) -> list[dict]:
    cmd = ["nice", sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(job)]
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=kill_after)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err, code = f"killed after {kill_after:.0f} s", None
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if code is None:
        rows.append({"status": "KILLED", "certified": False, "note": err})
    elif code != 0:
        rows.append({"status": "ERROR", "certified": False,
                     "note": err.strip().splitlines()[-1][:200] if err.strip() else f"exit {code}"})
    return rows


def run_cxx(setting: str, paths: list[Path], names, labels, A, y, lam, timeout) -> dict:
    flags = "-c 2 -p 1" if setting == "cxx" else setting.split(":", 1)[1]
    use_minor = "nominor" not in flags
    res = anchors.run_corels(paths[0], paths[1], paths[2] if use_minor and len(paths) > 2 else None,
                             regularization=lam, policy_flag=flags.replace("nominor", ""), map_flag="",
                             timeout=timeout, binary=_nice_wrapper(["nice", str(anchors.corels_binary())]))
    row = {"status": res["status"], "certified": res["certified"], "time_s": round(res["wall_time"], 3),
           "nodes": res.get("nodes_expanded"), "reported_objective": res.get("objective")}
    if res.get("rule_list"):
        rules, default = cxx_rules(res["rule_list"], names, labels)
        row.update(objective=recompute(A, y, None, rules, default, lam), length=len(rules))
    elif res.get("best_objective_logged") is not None:
        row.update(objective=res["best_objective_logged"],
                   note="killed: objective is the best logged (list not printed)")
    if res["status"] == "timeout":
        row["status"] = "TIME_LIMIT"
    if res.get("minor_used") is False and use_minor:
        row["note"] = "the C++ skipped the .minor file"
    return row


_WRAPPER = {}


def _nice_wrapper(cmd) -> Path:
    key = tuple(cmd)
    if key not in _WRAPPER:
        fd, path = tempfile.mkstemp(prefix="corels-nice-", suffix=".sh")
        os.write(fd, f"#!/bin/sh\nexec {' '.join(cmd)} \"$@\"\n".encode())
        os.close(fd)
        os.chmod(path, 0o755)
        _WRAPPER[key] = Path(path)
    return _WRAPPER[key]


# --------------------------------------------------------------------------------------------- verdicts


def _tol(row: dict) -> float:
    """Tolerance of a row's objective: 1e-9 when recomputed from a list, 1e-6 for the C++ log's 6 decimals."""
    return 1e-6 if "logged" in (row.get("note") or "") else TOL


def judge(rows: list[dict]) -> None:
    """Fill ``oracle``, ``oracle_objective`` and ``verdict`` of the rows of one case (see the module docstring)."""
    for r in rows:
        r["verdict"] = None
        r["oracle"] = r["oracle_objective"] = None
        r["why"] = None
    by = {r["solver"]: r for r in rows}
    oracle = by.get("brute")
    if oracle is None:
        oracle = by.get("cxx") if by.get("cxx", {}).get("certified") else next(
            (r for r in rows if r["solver"].startswith("cxx") and r.get("certified")), None)
    for r in rows:
        if r["solver"] == "brute":
            r["verdict"] = "oracle"
            continue
        ref = oracle
        if r["solver"].startswith("cxx") and "brute" not in by:
            ref = by.get("optbb") if by.get("optbb", {}).get("certified") else None
        others = [o for o in rows if o is not r and o.get("objective") is not None
                  and (o["solver"] == "brute" or o["solver"].startswith("cxx") != r["solver"].startswith("cxx"))]
        bad = []
        if r.get("reported_objective") is not None and r.get("objective") is not None and r["certified"] \
                and abs(r["reported_objective"] - r["objective"]) > TOL:
            bad.append("reported objective differs from the list's")
        if r.get("certified") and r.get("objective") is not None:
            refuted = [o for o in others if o["objective"] < r["objective"] - _tol(o)]
            if refuted:
                bad.append(f"certified {r['objective']:.10f} but {refuted[0]['solver']} found "
                           f"{refuted[0]['objective']:.10f}")
        if r.get("lower_bound") is not None and not r["solver"].startswith("cxx"):
            beaten = [o for o in others if o["objective"] < r["lower_bound"] - _tol(o)]
            if beaten:
                bad.append(f"lower bound {r['lower_bound']:.10f} above {beaten[0]['solver']}'s "
                           f"{beaten[0]['objective']:.10f}")
        if ref is not None and ref is not r:
            r["oracle"], r["oracle_objective"] = ref["solver"], ref.get("objective")
        if bad:
            r["verdict"] = "MISMATCH"
            r["why"] = "; ".join(bad)
        elif ref is not None and ref is not r and r.get("certified"):
            r["verdict"] = "MATCH" if abs(r["objective"] - ref["objective"]) <= TOL else "MISMATCH"
        elif ref is r:
            r["verdict"] = "MATCH" if r.get("certified") and any(
                o.get("certified") and abs(o["objective"] - r["objective"]) <= TOL for o in others) else \
                "CONSISTENT"
        else:
            r["verdict"] = "CONSISTENT" if (ref is not None or r.get("certified")) else "NO-ORACLE"


# --------------------------------------------------------------------------------------------- driver


def run_data_case(case: str, settings: list[str], timeout: float) -> list[dict]:
    spec = parse_case(case)
    data, authors = load_case(spec)
    common = {"case": case, "lambda": spec["lam"], "n_samples": data.n_samples, "n_antecedents": data.n_features,
              "n_classes": data.n_classes, "weighted": False}
    rows = []
    with tempfile.TemporaryDirectory(prefix="corels-oracle-") as tmp:
        if authors:
            paths = list(source_files(spec))
            names = list(data.feature_names)
        else:
            paths = write_cxx_files(data, Path(tmp) / "case")
            names = [f"a{j}" for j in range(data.n_features)]
        labels = ("y=0", "y=1") if not authors else tuple(data.label_names)

        def optbb_lane(settings):
            if not settings:
                return []
            job = {"case": case, "solvers": settings, "timeout": timeout}
            found = {r.get("solver"): r for r in run_worker(job, len(settings) * (timeout + 30) + 120)}
            lost = next((r for r in found.values() if r.get("status") in ("KILLED", "ERROR")), None)
            return [{**common, "solver": s, **found.get(s, lost or {"status": "MISSING", "certified": False})}
                    for s in settings]

        def cxx_lane(settings):
            return [{**common, "solver": s, **run_cxx(s, paths, names, labels, data.X, data.y, spec["lam"],
                                                       timeout)} for s in settings]

        # the optbb settings in one worker (one start-up), the C++ runs one by one, the two side by side (2 cores)
        with ThreadPoolExecutor(2) as pool:
            lanes = [pool.submit(optbb_lane, [s for s in settings if not s.startswith("cxx")]),
                     pool.submit(cxx_lane, [s for s in settings if s.startswith("cxx")])]
            for lane in lanes:
                rows += lane.result()
    judge(rows)
    return rows


def run_random_case(case: str, timeout: float) -> list[dict]:
    A, y, w, lam, k = random_problem(int(case[4:]))
    common = {"case": case, "lambda": lam, "n_samples": len(y), "n_antecedents": A.shape[1], "n_classes": k,
              "weighted": w is not None}
    rows = [{**common, **r} for r in run_worker({"case": case, "timeout": timeout}, timeout)]
    if k == 2 and w is None and lam > 0:
        from optbb.common.data import from_arrays

        data = from_arrays(A, y)
        with tempfile.TemporaryDirectory(prefix="corels-oracle-") as tmp:
            paths = write_cxx_files(data, Path(tmp) / "case")
            names = [f"a{j}" for j in range(A.shape[1])]
            for setting in CXX_VARIANTS:
                rows.append({**common, "solver": setting,
                             **run_cxx(setting, paths, names, ("y=0", "y=1"), A, y, lam, timeout)})
    for r in rows:
        r.setdefault("solver", "worker")
    judge(rows)
    return rows


def commit_id() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="*", help="comma list of fnmatch patterns of case ids")
    parser.add_argument("--solvers", help="'|'-separated settings: run only these of the data-file cases")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "corels_oracle")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--merge", help="comma list of earlier CSVs: write one table from them, run nothing")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    if args.merge:
        paths = [Path(p) for p in args.merge.split(",")]
        rows, header = [], [f"Merged from {len(paths)} runs (`--merge`, taking each (case, setting) from the last "
                            f"run that has it); each run's header:"]
        for path in paths:  # a (case, setting) measured in several runs is taken from the last CSV listed
            new = read_rows(path)
            runs = {(r["case"], r["solver"]) for r in new}
            rows = [r for r in rows if (r["case"], r["solver"]) not in runs] + new
            md = path.with_suffix(".md")
            if md.is_file():
                header += ["- " + line for line in md.read_text().splitlines()
                           if line.startswith(("Command:", "Run "))]
        order = {case: i for i, case in enumerate(dict.fromkeys(r["case"] for r in rows))}
        rows.sort(key=lambda r: order[r["case"]])  # stable: a case's rows together, in run order
        for case in dict.fromkeys(r["case"] for r in rows):
            judge([r for r in rows if r["case"] == case])
        write_results(rows, args.out, header)
        return 0
    patterns = args.cases.split(",")
    selected = [(c, s) for c, s in case_list() if any(fnmatch.fnmatch(c, p) for p in patterns)]
    if args.solvers:
        only = args.solvers.split("|")
        selected = [(c, [x for x in s if x in only]) for c, s in selected if s and set(s) & set(only)]
    if args.list:
        for c, s in selected:
            print(c, " ".join(s) if s else "brute optbb(all settings) [cxx settings]")
        return 0
    if anchors.corels_binary() is None or not CV_DIR.is_dir():
        print("C++ CORELS or ../shared/data is not available; nothing run")
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {c for c, _ in selected}
    kept = [r for r in read_rows(args.out.with_suffix(".csv")) if r["case"] not in done]
    solvers = f" --solvers '{args.solvers}'" if args.solvers else ""
    header = [f"Command: `python benchmarks/corels_oracle.py --cases '{args.cases}'{solvers} --timeout "
              f"{args.timeout:g}` (rows of other cases kept from the earlier file)",
              f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at commit {commit_id()}, "
              f"nproc={os.cpu_count()}, 1-min load at start {os.getloadavg()[0]:.2f}; optbb and the C++ run side "
              f"by side (nice), time limit {args.timeout:g} s per run.",
              "Objectives recomputed from each returned list on the data; tolerance 1e-9. "
              "See the docstring of benchmarks/corels_oracle.py for the cases and the verdicts."]
    new = []
    for case, settings in selected:
        t0 = time.perf_counter()
        rows = run_random_case(case, args.timeout) if settings is None else run_data_case(case, settings,
                                                                                        args.timeout)
        new += rows
        print(f"{case}: " + "; ".join(f"{r['solver']} {r.get('status')} {fmt(r.get('objective'))} "
                                      f"{r.get('verdict')}" for r in rows) + f" [{time.perf_counter() - t0:.1f} s]",
              flush=True)
        write_results(kept + new, args.out, header)
    return 0 if not any(r.get("verdict") == "MISMATCH" for r in new) else 2


if __name__ == "__main__":
    sys.exit(main())
