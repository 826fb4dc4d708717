"""optbb's OSDT solvers against independent oracles (GOSDT, STreeD) at small lambdas, deep trees, many features,
three classes and sample weights: is every certified optimum the oracles' optimum?

Usage::

    python benchmarks/osdt_oracle.py [--groups osdt,dl,three,weights] [--cases PATTERNS] [--timeout 60]
                                     [--solvers optbb-dp,optbb-ls,gosdt,streed,streed-nolb]
                                     [--out benchmarks/results/osdt_oracle]
    python benchmarks/osdt_oracle.py --list
    python benchmarks/osdt_oracle.py --merge run1.csv,run2.csv [--out benchmarks/results/osdt_oracle]

Objective (every solver, every case): ``errors / N + lambda * leaves``, recomputed here from the tree each solver
returns (its predictions on the training rows and its number of leaves), never taken from the solver's own report;
with sample weights ``errors / N`` is the weight of the misclassified rows over the total weight.  optbb's reported
objective is checked against the recomputed one as well, and every tree's depth against the limit.

Case groups (ids ``<data>@<lambda>@d<depth>``, ``dinf`` = no depth limit; ``--cases`` takes a comma list of
``fnmatch`` patterns):

* ``osdt``: the OSDT sets of ``shared/data/osdt`` (compas, fico, monk1-3, car, tic-tac-toe; two classes) at lambda
  0.01, 0.005, 0.002, 0.001 and depth 3, 4, 5 and unlimited.
* ``dl``: the 15 DL8.5 / MurTree sets of ``shared/data/dl`` (27 to 445 features) at lambda 0.01 and 0.001, depth 3
  and 4.
* ``three``: three classes made from a DL / OSDT set: the most balanced feature ``f`` is removed from ``X`` and the
  negative rows with ``x_f = 1`` become class 2.  STreeD only (GOSDT takes two classes).
* ``weights``: seeded sample weights, integer (1..4, ``w-int``) or halves (0.5..2, ``w-half``: the 52-bit fixed
  point path of the weighted search).  Both come from the same seeded draw, so the ``w-half`` weights are the
  ``w-int`` ones halved and each ``w-half`` optimum must equal its ``w-int`` one (the objective does not change
  when every weight is scaled).  optbb's dynamic-programming search gets the weights
  (``OSDTClassifier(search="dp").fit(X, y, sample_weight=w)``); the oracles and optbb's leaf-set search (which takes
  no weights) get the repeated-rows data set (each row ``w`` times, or ``2 w`` times for halves), whose objective
  is the weighted one exactly.

Solvers:

* ``optbb-dp``: ``optbb.osdt.solve(data, lambda, search="dp", max_depth=d)`` (three classes:
  ``OSDTClassifier(search="dp")``; weights: the same with ``sample_weight``).
* ``optbb-ls``: ``solve(..., search="leaf_set")`` (two classes, unweighted data or the repeated rows), not on the
  DL sets, and at lambda < 0.005 only on compas and monk1-3 (with 100+ features or at smaller lambdas on the other
  sets it rarely certifies within a minute).
* ``gosdt``: ``GOSDTClassifier(regularization=lambda, allow_small_reg=True, depth_budget=d)``; the gosdt 1.0
  wrapper adds one to ``depth_budget`` internally, so ``depth_budget=d`` gives at most ``d`` splits per path (checked
  on every returned tree); two classes only; on the DL sets at depth 3 only.
* ``streed``: ``STreeDClassifier(optimization_task="cost-complex-accuracy", cost_complexity=lambda, max_depth=d)``,
  errors / N + lambda per branch node, i.e. optbb's objective minus the constant lambda.  Without a depth limit
  (OSDT sets only, at most 18 features) ``max_depth`` is the number of features: no path splits twice on a feature,
  so that is no limit.
* ``streed-nolb``: the same with ``use_lower_bound=False``.  STreeD 1.4.0 with its lower bound certifies suboptimal
  trees of this objective now and then (a random problem with 33 rows, 27 features, depth 4, lambda 0.02: a tree of
  1 error and 5 leaves, objective 0.1303, where one of 0 errors and 6 leaves, 0.12, exists; without the lower
  bound it finds the latter), so this second STreeD serves as the oracle where the first is beaten.  Not run by
  default (``--solvers`` names it).

Each solver runs in its own process (this script with ``--worker``) over the cases of one data set, one after the
other, each fit with the solver's own time limit ``--timeout``; the parent kills the process group when a fit
overruns ``timeout + 60 s`` (a hang), records that case as killed and starts a new process for the rest, so a hang
or crash only blanks its own cell.  Each worker first does an untimed warm-up fit on 60 rows (loads JIT caches).

Verdict per case (objectives compared within 1e-9).  Since every objective is recomputed from a tree, a certified
objective above a tree any other solver returned is a wrong certificate.  ``MISMATCH``: an optbb certificate is
wrong that way (its search pruned the optimum; this covers optbb's two searches disagreeing and optbb certifying
above an oracle's certified optimum), or a tree breaks the depth limit, or optbb's reported objective is not its
tree's.  ``MATCH``: optbb certified the objective an oracle certified.  ``oracle inexact``: optbb certified, and
the oracles that certified have a worse tree than optbb's (their certificate is wrong; STreeD 1.4.0 treats very
close costs as ties: with ``N = 415`` it keeps a leaf rather than a split that removes one error for a branch
cost of 0.99 errors).  ``no oracle``: optbb certified and no oracle did (optbb's objective is still checked to be
<= every tree the oracles returned).  ``optbb open``: optbb did not certify, an oracle did.  ``none certified``.

``--merge a.csv,b.csv`` runs nothing: it rebuilds the verdicts and tables (``--out``) from the CSVs of earlier runs
(e.g. groups run side by side), a (case, solver) in several taken from the last listed.

Results: ``<out>.md`` (summary, then one row per case: each solver's objective, status and seconds) and ``<out>.csv``
(one row per case and solver).  Both are rewritten after every case, so an interrupted sweep leaves its results.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import math
import os
import platform
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import anchors  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("OPTBB_SHARED", REPO.parent / "shared"))
OUT = REPO / "benchmarks" / "results" / "osdt_oracle"
SOLVERS = ("optbb-dp", "optbb-ls", "gosdt", "streed", "streed-nolb")
TOL = 1e-9
HANG_SLACK = 60.0  # a fit running this much past its own time limit is a hang
STARTUP_SLACK = 300.0  # imports, data loading, JIT cache

OSDT_SETS = {"compas": "compas-binary.csv", "fico": "fico_binary.csv.gz", "monk1": "monk1-train.csv",
             "monk2": "monk2-train.csv", "monk3": "monk3-train.csv", "car": "car-evaluation.csv",
             "tic-tac-toe": "tic-tac-toe.csv"}
DL_SETS = ("anneal", "australian-credit", "breast-wisconsin", "diabetes", "heart-cleveland", "hypothyroid",
           "ionosphere", "kr-vs-kp", "mushroom", "pendigits", "segment", "splice-1", "tic-tac-toe", "vehicle", "vote")
THREE_SETS = ("dl:vote", "dl:heart-cleveland", "dl:breast-wisconsin", "dl:australian-credit", "dl:hypothyroid",
              "osdt:monk2", "osdt:car")
WEIGHT_SETS = ("osdt:monk1", "osdt:monk2", "osdt:monk3", "osdt:tic-tac-toe", "osdt:car", "dl:vote",
               "dl:heart-cleveland")
GROUPS = ("osdt", "dl", "three", "weights")
VERDICTS = ("MATCH", "MISMATCH", "oracle inexact", "no oracle", "optbb open", "none certified")


@dataclass(frozen=True)
class Case:
    """One problem: a data variant (``osdt:<set>``, ``dl:<set>``, ``three:<osdt|dl>:<set>``,
    ``w-int:<...>``, ``w-half:<...>``), lambda and depth limit (None: unlimited)."""

    group: str
    data: str
    lam: float
    depth: int | None

    @property
    def id(self) -> str:
        return f"{self.data}@{self.lam:g}@d{'inf' if self.depth is None else self.depth}"

    @property
    def two_classes(self) -> bool:
        return not self.data.startswith("three:")

    def solvers(self) -> tuple[str, ...]:
        out = ["optbb-dp"]
        small = self.data in ("osdt:compas", "osdt:monk1", "osdt:monk2", "osdt:monk3")
        if self.two_classes and (self.lam >= 0.005 or small) and self.group != "dl":
            out.append("optbb-ls")
        if self.two_classes and (self.group != "dl" or self.depth == 3):
            out.append("gosdt")
        if self.depth is not None or "osdt:" in self.data:  # unlimited: the OSDT sets have at most 18 features
            out += ["streed", "streed-nolb"]
        return tuple(out)


def all_cases() -> list[Case]:
    cases = []
    for name in OSDT_SETS:
        for lam in (0.01, 0.005, 0.002, 0.001):
            for depth in (3, 4, 5, None):
                cases.append(Case("osdt", f"osdt:{name}", lam, depth))
    for name in DL_SETS:
        for lam in (0.01, 0.001):
            for depth in (3, 4):
                cases.append(Case("dl", f"dl:{name}", lam, depth))
    for base in THREE_SETS:
        for lam in (0.005, 0.001):
            for depth in (3, 4):
                cases.append(Case("three", f"three:{base}", lam, depth))
    for base in WEIGHT_SETS:
        for kind in ("w-int", "w-half"):
            for lam in (0.01, 0.005):
                for depth in (3, None):
                    cases.append(Case("weights", f"{kind}:{base}", lam, depth))
    return cases


def select_cases(cases: list[Case], groups: str | None, patterns: str | None) -> list[Case]:
    if groups:
        wanted = {g.strip() for g in groups.split(",") if g.strip()}
        bad = wanted - set(GROUPS)
        if bad:
            raise SystemExit(f"--groups: unknown {sorted(bad)}; choose among {list(GROUPS)}")
        cases = [c for c in cases if c.group in wanted]
    if patterns:
        pats = [p.strip() for p in patterns.split(",") if p.strip()]
        cases = [c for c in cases if any(fnmatch.fnmatch(c.id, p) for p in pats)]
    return cases


# ---------------------------------------------------------------------------------------------------------------
# data variants
# ---------------------------------------------------------------------------------------------------------------

def load_variant(key: str):
    """``(X uint8, y int64, w float64 or None, names)`` of a data variant key."""
    import numpy as np

    sys.path.insert(0, str(REPO))
    kind, _, rest = key.partition(":")
    if kind == "osdt":
        from optbb.common.data import read_osdt_csv

        d = read_osdt_csv(SHARED / "data" / "osdt" / OSDT_SETS[rest])
        return d.X.astype(np.uint8), d.y.astype(np.int64), None, list(d.feature_names)
    if kind == "dl":
        from optbb.datasets.dl import load_dl

        d = load_dl(rest, shared_dir=SHARED)
        return d.X.astype(np.uint8), d.y.astype(np.int64), None, list(d.feature_names)
    X, y, _, names = load_variant(rest)
    if kind == "three":
        f = int(np.argmin(np.abs(X.mean(axis=0) - 0.5)))
        y3 = np.where((y == 0) & (X[:, f] == 1), 2, y).astype(np.int64)
        keep = [j for j in range(X.shape[1]) if j != f]
        return np.ascontiguousarray(X[:, keep]), y3, None, [names[j] for j in keep]
    rng = np.random.default_rng(20261123)
    if kind == "w-int":
        w = rng.integers(1, 5, X.shape[0]).astype(np.float64)
    elif kind == "w-half":
        w = rng.choice([0.5, 1.0, 1.5, 2.0], X.shape[0])
    else:
        raise ValueError(f"unknown data variant {key!r}")
    return X, y, w, names


def repeated_rows(X, y, w):
    """The unweighted data set of integer (or half-integer) weights: row ``i`` repeated ``w_i`` (``2 w_i``) times."""
    import numpy as np

    reps = w if np.all(w == np.round(w)) else 2 * w
    reps = np.round(reps).astype(np.int64)
    idx = np.repeat(np.arange(len(y)), reps)
    return np.ascontiguousarray(X[idx]), y[idx]


def weighted_objective(pred, y, w, lam, leaves):
    import numpy as np

    wrong = pred != y
    if w is None:
        return float(np.count_nonzero(wrong)) / len(y) + lam * leaves
    return float(w[wrong].sum()) / float(w.sum()) + lam * leaves


# ---------------------------------------------------------------------------------------------------------------
# worker side
# ---------------------------------------------------------------------------------------------------------------

def _optbb_fit(search):
    import numpy as np

    from optbb.common.data import from_arrays
    from optbb.osdt import OSDTClassifier, solve

    def fit(X, y, w, names, lam, depth, limit):
        if w is None and y.max() <= 1:
            res = solve(from_arrays(X, y, names), lam, search=search, max_depth=depth, time_limit=limit)
            tree = res.model
            pred = np.asarray(tree.predict(X)).astype(np.int64)
        else:
            clf = OSDTClassifier(regularization=lam, search=search, max_depth=depth, time_limit=limit)
            clf.fit(X, y, sample_weight=w)
            res, tree = clf.result_, clf.tree_
            pred = np.asarray(clf.predict(X)).astype(np.int64)
        return {"certified": res.status.value == "optimal", "status": res.status.value, "pred": pred,
                "leaves": int(tree.n_leaves), "depth": int(tree.depth), "reported": float(res.objective),
                "lower_bound": float(res.lower_bound)}

    return fit


def _walk(node, leaf_test, children):
    """``(leaves, depth)`` of a binary tree given how to tell a leaf and get the children."""
    if leaf_test(node):
        return 1, 0
    out = [_walk(c, leaf_test, children) for c in children(node)]
    return sum(o[0] for o in out), 1 + max(o[1] for o in out)


def _gosdt_fit():
    import numpy as np
    import pandas as pd
    import sklearn.utils.validation as validation

    check_array = validation.check_array

    def compat_check_array(*args, force_all_finite=None, **kw):  # gosdt 1.0.4 against scikit-learn >= 1.8
        if force_all_finite is not None:
            kw["ensure_all_finite"] = force_all_finite
        return check_array(*args, **kw)

    import gosdt._classifier as gc
    from gosdt import GOSDTClassifier
    from gosdt._tree import Leaf

    gc.check_array = compat_check_array

    def fit(X, y, w, names, lam, depth, limit):
        frame = pd.DataFrame(X.astype(bool), columns=[f"x{j}" for j in range(X.shape[1])])
        clf = GOSDTClassifier(regularization=lam, allow_small_reg=True, depth_budget=depth,
                              time_limit=int(math.ceil(limit)))
        clf.fit(frame, y)
        pred = np.asarray(clf.predict(frame)).astype(np.int64)
        leaves, d = _walk(clf.trees_[0].tree, lambda n: isinstance(n, Leaf), lambda n: (n.left_child, n.right_child))
        status = str(clf.result_.status).rsplit(".", 1)[-1]
        return {"certified": status == "CONVERGED", "status": status.lower(), "pred": pred, "leaves": leaves,
                "depth": d}

    return fit


def _streed_fit(**options):
    import numpy as np
    from pystreed import STreeDClassifier

    def fit(X, y, w, names, lam, depth, limit):
        clf = STreeDClassifier(optimization_task="cost-complex-accuracy", cost_complexity=lam, max_depth=depth,
                               time_limit=limit, **options)
        clf.fit(X, y)
        pred = np.asarray(clf.predict(X)).astype(np.int64)
        leaves, d = _walk(clf.tree_, lambda n: n.is_leaf_node(), lambda n: (n.left_child, n.right_child))
        ok = bool(clf.fit_result.is_optimal())
        return {"certified": ok, "status": "optimal" if ok else "not_optimal", "pred": pred, "leaves": leaves,
                "depth": d}

    return fit


def worker(solver: str, data_key: str, case_ids: list[str], timeout: float) -> None:
    """Fit ``solver`` on every case of one data variant; one ``START`` and one ``RESULT`` JSON line per case."""
    import numpy as np

    X, y, w, names = load_variant(data_key)
    Xs, ys, ws = X, y, w  # what the solver sees
    if w is not None and solver != "optbb-dp":
        Xs, ys = repeated_rows(X, y, w)
        ws = None
    fit = {"optbb-dp": lambda: _optbb_fit("dp"), "optbb-ls": lambda: _optbb_fit("leaf_set"), "gosdt": _gosdt_fit,
           "streed": _streed_fit, "streed-nolb": lambda: _streed_fit(use_lower_bound=False)}[solver]()
    cases = {c.id: c for c in all_cases()}
    rows = np.sort(np.random.default_rng(0).permutation(len(ys))[: min(60, len(ys))])
    if len(np.unique(ys[rows])) > 1:  # untimed warm-up: JIT caches, libraries
        first = cases[case_ids[0]]
        fit(Xs[rows], ys[rows], None if ws is None else ws[rows], names, max(first.lam, 0.02), first.depth or 3,
            min(timeout, 10.0))
    for cid in case_ids:
        c = cases[cid]
        print("START " + cid, flush=True)
        # STreeD needs a depth limit: a path never splits twice on a feature, so depth = features is no limit
        depth = Xs.shape[1] if c.depth is None and solver.startswith("streed") else c.depth
        t0 = time.perf_counter()
        try:
            out = fit(Xs, ys, ws, names, c.lam, depth, timeout)
        except Exception as exc:  # noqa: BLE001 - a solver's failure is a result
            print("RESULT " + json.dumps({"case": cid, "error": f"{type(exc).__name__}: {exc}"[:200]}), flush=True)
            continue
        seconds = time.perf_counter() - t0
        pred = out.pop("pred")
        out["objective"] = weighted_objective(pred, ys, ws, c.lam, out["leaves"])
        out.update(case=cid, seconds=seconds, n=int(len(ys)))
        print("RESULT " + json.dumps(out), flush=True)


# ---------------------------------------------------------------------------------------------------------------
# parent side
# ---------------------------------------------------------------------------------------------------------------

def run_group(solver: str, data_key: str, cases: list[Case], timeout: float, on_result) -> None:
    """Run one worker over ``cases``; a fit overrunning ``timeout + HANG_SLACK`` is killed and the rest rerun."""
    todo = [c.id for c in cases]
    while todo:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", solver, data_key, ",".join(todo),
               "--timeout", str(timeout)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO),
                                start_new_session=True, bufsize=1)
        current, deadline = None, time.monotonic() + STARTUP_SLACK
        buf = ""
        finished = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                victim = current if current is not None else todo[0]
                on_result(solver, {"case": victim, "error": f"killed after {timeout + HANG_SLACK:.0f} s"
                                   if current else "killed at start-up"})
                todo.remove(victim)
                break
            ready, _, _ = select.select([proc.stdout], [], [], min(left, 5.0))
            if not ready:
                continue
            line = proc.stdout.readline()
            if line == "":
                finished = True
                break
            buf = line.rstrip("\n")
            if buf.startswith("START "):
                current = buf[6:]
                deadline = time.monotonic() + timeout + HANG_SLACK
            elif buf.startswith("RESULT "):
                res = json.loads(buf[7:])
                todo.remove(res["case"])
                on_result(solver, res)
                current, deadline = None, time.monotonic() + STARTUP_SLACK
        if finished:
            stderr = proc.stderr.read()
            rc = proc.wait()
            if todo:  # the worker died: blame the case in progress (or the first), rerun the rest
                victim = current if current is not None else todo[0]
                tail = stderr.strip().splitlines()[-1] if stderr.strip() else ""
                on_result(solver, {"case": victim, "error": f"exit code {rc}: {tail[:150]}"})
                todo.remove(victim)


def verdict(case: Case, res: dict) -> tuple[str, str]:
    """``(verdict, note)`` of one case from its solvers' results (see the module docstring)."""
    notes = []
    bad = False
    for s, r in res.items():
        if "objective" not in r:
            continue
        if case.depth is not None and r["depth"] > case.depth:
            bad = True
            notes.append(f"{s} tree of depth {r['depth']} > {case.depth}")
        if "reported" in r and abs(r["reported"] - r["objective"]) > TOL:
            bad = True
            notes.append(f"{s} reports {r['reported']:.12g}, its tree gives {r['objective']:.12g}")
    cert = {s: r["objective"] for s, r in res.items() if r.get("certified")}
    trees = {s: r["objective"] for s, r in res.items() if "objective" in r}
    for s, r in res.items():  # a stopped search's lower bound must not exceed any tree's objective
        low = {t: o for t, o in trees.items() if "lower_bound" in r and r["lower_bound"] > o + TOL}
        if low:
            bad = True
            notes.append(f"{s} lower bound {r['lower_bound']:.12g} above " +
                         ", ".join(f"{t}'s tree {o:.12g}" for t, o in low.items()))
    oracles = {s: v for s, v in cert.items() if not s.startswith("optbb")}
    mine = {s: v for s, v in cert.items() if s.startswith("optbb")}
    inexact = []  # oracles whose certified optimum another solver's tree beats
    for s, v in cert.items():
        better = {t: o for t, o in trees.items() if o < v - TOL}
        if not better:
            continue
        note = f"{s} certifies {v:.12g} but " + ", ".join(f"{t} has a tree of {o:.12g}" for t, o in better.items())
        if s.startswith("optbb"):
            bad = True
            notes.append(note)
        else:
            inexact.append(s)
            notes.append(note)
    if bad:
        return "MISMATCH", "; ".join(notes)
    exact = {s: v for s, v in oracles.items() if s not in inexact}
    if mine and exact:
        missing = [s for s in case.solvers() if s.startswith("optbb") and s not in mine]
        return "MATCH", "; ".join([f"{s} open" for s in missing] + notes)
    if mine and oracles:
        return "oracle inexact", "; ".join(notes)
    if mine:
        return "no oracle", "optbb's optimum <= every oracle tree"
    if oracles:
        return "optbb open", "; ".join(notes)
    return "none certified", ""


def cell(r: dict | None) -> str:
    if r is None:
        return ""
    if "objective" not in r:
        return r.get("error", "?")[:60]
    mark = "" if r["certified"] else f" ({r['status']})"
    return f"{r['objective']:.9f}{mark} {r['seconds']:.2f}s"


def write_outputs(out: Path, cases: list[Case], table: dict, header: list[str]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["case", "group", "data", "lambda", "depth", "solver", "status", "certified", "objective",
                     "leaves", "tree_depth", "seconds", "reported", "lower_bound", "verdict", "note"])
        for c in cases:
            res = table.get(c.id, {})
            if not res:
                continue
            v, note = verdict(c, res)
            for s in c.solvers():
                r = res.get(s)
                if r is None:
                    continue
                wr.writerow([c.id, c.group, c.data, c.lam, "inf" if c.depth is None else c.depth, s,
                             r.get("status", r.get("error", "")), r.get("certified", False),
                             "" if "objective" not in r else f"{r['objective']:.12f}", r.get("leaves", ""),
                             r.get("depth", ""), "" if "seconds" not in r else f"{r['seconds']:.3f}",
                             "" if "reported" not in r else repr(r["reported"]),
                             "" if "lower_bound" not in r else repr(r["lower_bound"]), v, note])
    done = [c for c in cases if table.get(c.id)]
    verdicts = {c.id: verdict(c, table[c.id]) for c in done}
    lines = ["# OSDT against oracles: optbb vs GOSDT and STreeD (and optbb's two searches)", ""] + header + [""]
    lines += ["## Summary", "", "| group | cases | " + " | ".join(VERDICTS) + " |",
              "|---|---|" + "---|" * len(VERDICTS)]
    for g in GROUPS + ("all",):
        sel = [c for c in done if g in ("all", c.group)]
        if not sel:
            continue
        cnt = {k: sum(verdicts[c.id][0] == k for c in sel) for k in VERDICTS}
        lines.append(f"| {g} | {len(sel)} | " + " | ".join(str(cnt[k]) for k in cnt) + " |")
    lines.append("")
    per_solver = []
    for s in SOLVERS:
        ran = [table[c.id][s] for c in done if s in table[c.id]]
        if ran:
            ok = sum(bool(r.get("certified")) for r in ran)
            per_solver.append(f"{s}: {ok} of {len(ran)} certified")
    lines += ["Certified within the limit: " + "; ".join(per_solver) + ".", ""]
    pairs = [(c, table.get(c.id.replace("w-half:", "w-int:"), {}).get("optbb-dp"), table[c.id].get("optbb-dp"))
             for c in done if c.data.startswith("w-half:")]
    pairs = [(c, a, b) for c, a, b in pairs if a and b and a.get("certified") and b.get("certified")]
    if pairs:
        differ = [c.id for c, a, b in pairs if abs(a["objective"] - b["objective"]) > TOL]
        lines += [f"Halved weights (w-half) against the same integer weights (w-int), optbb-dp, both certified: "
                  f"{len(pairs)} pairs, {len(differ)} differ" + (f" ({', '.join(differ)})" if differ else "") + ".",
                  ""]
    mism = [c for c in done if verdicts[c.id][0] == "MISMATCH"]
    if mism:
        lines += ["MISMATCHES:", ""] + [f"* {c.id}: {verdicts[c.id][1]}" for c in mism] + [""]
    lines += ["## Cases", "", "Cells: objective recomputed from the solver's tree (status if not certified) and "
              "seconds of the fit call.", "",
              "| case | leaves | optbb-dp | optbb-ls | GOSDT | STreeD | STreeD, no lower bound | verdict | note |",
              "|---|---|---|---|---|---|---|---|---|"]
    for c in done:
        res = table[c.id]
        v, note = verdicts[c.id]
        leaves = next((r["leaves"] for r in res.values() if r.get("certified")), "")
        lines.append(f"| {c.id} | {leaves} | " + " | ".join(cell(res.get(s)) if s in c.solvers() else "-"
                                                               for s in SOLVERS) + f" | {v} | {note} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def read_csv(path: Path) -> dict:
    """The results table of an earlier run's CSV (for ``--merge``)."""
    table: dict = {}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["objective"]:
                r = {"status": row["status"], "certified": row["certified"] == "True",
                     "objective": float(row["objective"]), "leaves": int(row["leaves"]),
                     "depth": int(row["tree_depth"]), "seconds": float(row["seconds"])}
                for key in ("reported", "lower_bound"):
                    if row.get(key):
                        r[key] = float(row[key])
            else:
                r = {"error": row["status"]}
            table.setdefault(row["case"], {})[row["solver"]] = r
    return table


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", help=f"comma list among {', '.join(GROUPS)} (default: all)")
    p.add_argument("--cases", help="comma list of case ids or fnmatch patterns (see --list)")
    p.add_argument("--solvers", default=",".join(SOLVERS[:4]), help="comma list among " + ", ".join(SOLVERS)
                   + " (default: the first four)")
    p.add_argument("--timeout", type=float, default=60.0, help="time limit per fit, seconds (default 60)")
    p.add_argument("--out", type=Path, default=OUT, help="output path without suffix (.md and .csv are written)")
    p.add_argument("--list", action="store_true", help="print the case ids and exit")
    p.add_argument("--merge", metavar="A.csv,B.csv", help="run nothing: one table (--out) from earlier runs' CSVs "
                   "(a case in several is taken from the last listed), with their .md headers")
    p.add_argument("--worker", nargs=3, metavar=("SOLVER", "DATA", "CASES"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        solver, key, ids = args.worker
        worker(solver, key, ids.split(","), args.timeout)
        return
    cases = select_cases(all_cases(), args.groups, args.cases)
    if args.merge:
        table, head = {}, []
        for path in [Path(x.strip()) for x in args.merge.split(",") if x.strip()]:
            for cid, rows in read_csv(path).items():
                table.setdefault(cid, {}).update(rows)
            md = path.with_suffix(".md")
            head += [f"Run `{path.name}`: " + line for line in md.read_text().splitlines()
                     if line.startswith("Generated by")] if md.is_file() else []
        head.append("Objective: errors / N + lambda * leaves (weighted: weight of the errors / total weight), "
                    "recomputed from each solver's tree; tolerance 1e-9.  See the script's docstring for the cases "
                    "and verdicts.")
        write_outputs(args.out, cases, table, head)
        print(f"wrote {args.out.with_suffix('.md')} and {args.out.with_suffix('.csv')}")
        return
    if args.list:
        for c in cases:
            print(c.id, ",".join(c.solvers()))
        return
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    bad = [s for s in solvers if s not in SOLVERS]
    if bad:
        p.error(f"--solvers: unknown {bad}; choose among {list(SOLVERS)}")
    argv_s = " ".join(sys.argv[1:] if argv is None else argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load0 = " ".join(f"{x:.1f}" for x in os.getloadavg())
    commit = anchors.git_commit(REPO)  # the checkout measured: taken at the start (the header is rewritten later)
    versions = f"gosdt {anchors.dist_version('gosdt')}, pystreed {anchors.dist_version('pystreed')}"

    def header(end: str) -> list[str]:
        return [f"Generated by `python benchmarks/osdt_oracle.py {argv_s}` from {started} to {end} (optbb commit "
                f"{commit}, {platform.machine()}, {os.cpu_count()} cores; {versions}); time limit per fit "
                f"{args.timeout:g} s; load average at start {load0}.",
                "Objective: errors / N + lambda * leaves (weighted: weight of the errors / total weight), recomputed "
                "from each solver's tree; tolerance 1e-9.  See the script's docstring for the cases and verdicts."]

    table: dict = {}
    by_id = {c.id: c for c in cases}

    def on_result(solver: str, res: dict) -> None:
        table.setdefault(res["case"], {})[solver] = res
        c = by_id[res["case"]]
        print(f"{c.id:44s} {solver:9s} {cell(res)}", flush=True)
        if all(s in table[c.id] for s in c.solvers() if s in solvers):
            v, note = verdict(c, table[c.id])
            print(f"{'':44s} => {v} {note}", flush=True)
        write_outputs(args.out, cases, table, header("(running)"))

    # one worker per (data variant, solver), data variants in the order of the case list
    keys = list(dict.fromkeys(c.data for c in cases))
    for key in keys:
        for s in solvers:
            mine = [c for c in cases if c.data == key and s in c.solvers()]
            if mine:
                run_group(s, key, mine, args.timeout, on_result)
    write_outputs(args.out, cases, table, header(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print(f"wrote {args.out.with_suffix('.md')} and {args.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()
