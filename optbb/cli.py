"""The ``optbb`` command: demo, one subcommand per solver, bundled data sets.

Exit codes: 0 = certified optimal (or, for FRL, the Monte-Carlo run completed), 2 = bad usage or bad input (one
line naming the file or option and the problem; also an output that cannot be written, such as a full disk), 3 =
stopped at a limit (the printed model is the best found, not certified), 130 = interrupted by Ctrl-C (SIGINT), 141 =
output pipe closed early (``optbb datasets | head -1``), 143 = terminated by SIGTERM.  On SIGINT or SIGTERM during a
search the best model so far is printed with its lower bound and gap before the exit.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from . import datasets
from .common.data import from_arrays, read_corels, read_csv_frame
from .common.limits import InterruptGuard, forget_caught_interrupts

EXIT_OK, EXIT_INPUT, EXIT_LIMIT, EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED = 0, 2, 3, 130, 141, 143


class InputError(Exception):
    """Bad data or option given on the command line (exit code 2)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM outside a search (exit code 143); inside a search it stops the search like Ctrl-C."""


def _exit_code(result) -> int:
    name = result.status.name
    if name in ("OPTIMAL", "ITERATION_LIMIT"):
        return EXIT_OK
    if name == "INTERRUPTED":
        return EXIT_TERMINATED if InterruptGuard.last_signal == signal.SIGTERM else EXIT_INTERRUPTED
    return EXIT_LIMIT


@contextlib.contextmanager
def _reading(spec) -> Iterator[None]:
    """Turn any failure to read an input file into an InputError naming the file and the problem."""
    try:
        yield
    except InputError:
        raise
    except IsADirectoryError as exc:
        raise InputError(f"{exc.filename or spec}: is a directory, not a data file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{spec}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (OSError, EOFError, zlib.error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        if isinstance(exc, (EOFError, zlib.error)) or "gzip" in reason.lower():
            reason = f"corrupt or truncated gzip data ({reason})"
        raise InputError(f"{getattr(exc, 'filename', None) or spec}: cannot read: {reason}") from None
    except ValueError as exc:
        raise InputError(f"{spec}: {exc}") from None


def _print_result(title: str, result, model_text: str) -> None:
    print(f"== {title}")
    print(result.summary())
    c = result.counters
    extra = {k: c[k] for k in ("nodes_evaluated", "lower_bound_evaluations", "queue_insertions", "trees_evaluated",
                               "memory_bytes") if k in c}
    if extra:
        print("  " + "  ".join(f"{k}={v}" for k, v in extra.items()))
    print(model_text)
    print()


def _load_binary(spec: str, label: str | None = None, command: str = "corels"):
    """``(BinaryDataset, is_antecedents, classes)`` from a bundled name, a CORELS .out (+ .label), or a binary CSV;
    ``classes``: the label values of a CSV (class index ``j`` is ``classes[j]``), else None."""
    with _reading(spec):
        if spec in datasets.list_datasets():
            if spec.startswith("corels-"):
                return datasets.load_compas_corels(spec.split("-")[-1]), True, None
            if spec.startswith("osdt-"):
                return datasets.load_osdt(spec[len("osdt-"):]), False, None
            other = " or `optbb frl frl-bank-full`" if command == "frl" else ""
            raise InputError(f"data set {spec!r} has raw (non-binary) columns, which `optbb {command}` cannot read: "
                             f"use a binary data set (`optbb datasets`: corels-*, osdt-*){other}, or binarize it in "
                             "Python (optbb.Binarizer) and pass the result as a binary CSV")
        path = Path(spec)
        if not path.exists():
            raise InputError(f"{spec}: no such file and not a bundled data set (see `optbb datasets`)")
        if path.name.endswith((".out", ".out.gz")):
            stem = path.name[: path.name.rindex(".out")]
            label_path = Path(label) if label else _sibling(path, stem, ".label")
            return read_corels(path, label_path, _sibling(path, stem, ".minor", required=False)), True, None
        data, classes = _read_csv_table(path)
        return data, False, classes


def _read_csv_table(path: Path):
    """``(BinaryDataset, classes)`` of a CSV with a header, 0/1 feature columns and the label last (``,`` or ``;``
    sniffed): the label may hold any ``k >= 2`` values, ``classes`` (sorted), encoded as class indices."""
    df = read_csv_frame(path)
    if df.shape[1] < 2:
        raise ValueError("the table needs at least one feature column and one label column (the last)")
    if df.shape[0] == 0:
        raise ValueError("X is empty: it has 0 samples")
    label = df.iloc[:, -1]
    if label.isna().any():
        raise ValueError(f"the label column {df.columns[-1]!r} is empty (NaN) in row {int(label.isna().argmax())}")
    try:
        classes, y = np.unique(label.to_numpy(), return_inverse=True)
    except TypeError:  # labels of mixed types (numbers and text) cannot be sorted
        classes, y = np.unique(label.astype(str).to_numpy(), return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"the label has a single class ({classes[0]} for all {len(label)} samples); a classifier "
                         "needs two classes")
    X = df.iloc[:, :-1]
    return from_arrays(X, y, [str(c) for c in X.columns], label_names=[str(c) for c in classes]), classes


def _sibling(path: Path, stem: str, ext: str, required: bool = True):
    for cand in (path.with_name(stem + ext), path.with_name(stem + ext + ".gz")):
        if cand.exists():
            return cand
    if required:
        raise InputError(f"{path}: the matching {ext} file ({stem}{ext}) was not found; pass --label")
    return None


def cmd_corels(args) -> int:
    from .corels import solve
    from .corels.search import mine_and_solve

    _check_outputs(args)
    data, is_antecedents, classes = _load_binary(args.data, args.label)
    options = dict(policy=args.policy, map_type=args.map_type, ablation=tuple(args.ablation or ()),
                   time_limit=args.time_limit, node_limit=args.node_limit, memory_limit=args.memory_limit)
    if is_antecedents:
        result = solve(data, args.regularization, **options, verbose=args.verbose)
    else:  # mining runs under the same limits as the search
        mined, result = mine_and_solve(data, args.regularization, max_card=args.max_card,
                                       min_support=args.min_support, negations=not args.no_negations, **options,
                                       verbose=args.verbose)
        result.model.attach_literals(mined.antecedents, data.feature_names)  # predicts on the CSV's columns
    if classes is not None:
        result.model.classes = list(classes)
    return _report(f"CORELS lambda={args.regularization} ({data.n_samples} samples, "
                   f"{result.counters['n_antecedents']} antecedents)", result, result.model, args)


def cmd_osdt(args) -> int:
    from .osdt import solve

    _check_outputs(args)
    data, _, classes = _load_binary(args.data, args.label, "osdt")
    result = solve(data, args.regularization, policy=args.policy, ablation=tuple(args.ablation or ()),
                   initial_tree=None if args.warm_start == "none" else args.warm_start, max_depth=args.max_depth,
                   max_leaves=args.max_leaves, time_limit=args.time_limit, node_limit=args.node_limit,
                   memory_limit=args.memory_limit, verbose=args.verbose)
    if classes is not None:
        result.model.classes = list(classes)
    return _report(f"OSDT lambda={args.regularization} ({data.n_samples} samples, {data.n_features} features)",
                   result, result.model, args)


def cmd_frl(args) -> int:
    from .frl import FRLClassifier, SoftFRLClassifier

    _check_outputs(args)
    X, y = _load_frl_table(args.data)
    common = dict(positive_weight=args.positive_weight, regularization=args.regularization, p_stop=args.p_stop,
                  curiosity_weight=args.curiosity_weight, max_card=args.max_card, min_class_support=args.min_support,
                  random_state=args.seed, time_limit=args.time_limit, verbose=args.verbose)
    n_iter = args.n_iter if args.n_iter is not None else 6000 if args.soft else 3000  # -n 0 is refused by argparse
    if args.soft:
        est = SoftFRLClassifier(monotonicity_penalty=args.monotonicity_penalty, n_iter=n_iter, **common)
    else:
        est = FRLClassifier(n_iter=n_iter, **common)
    est.fit(X, y)
    return _report(f"{'softFRL' if args.soft else 'FRL'} w={args.positive_weight} C={args.regularization}",
                   est.result_, est.rule_list_, args)


def _load_frl_table(spec: str):
    if spec in ("frl-bank-full", "bank-full"):
        with _reading(spec):
            return datasets.load_bank_full_items(as_frame=True)
    data, _, classes = _load_binary(spec, command="frl")
    if len(data.label_names) != 2:
        raise InputError(f"{spec}: FRL learns two classes, but the label has {len(data.label_names)} "
                         f"({', '.join(data.label_names[:5])}{', ...' if len(data.label_names) > 5 else ''}); "
                         "use `optbb corels` or `optbb osdt` for more classes")
    y = data.y if classes is None else classes[data.y]
    return pd.DataFrame(data.X, columns=data.feature_names), y


def _report(title: str, result, model, args) -> int:
    """Print the result and the model, write ``--trace``, ``--json``, ``--latex`` and ``--dot``; the exit code."""
    from . import export

    _print_result(title, result, model.text())
    if args.trace:
        with _writing(args.trace):
            result.trace.to_csv(args.trace, index=False)
        print(f"trace written to {args.trace}")
    for flag, fn in (("json", export.to_json), ("latex", export.to_latex), ("dot", export.to_dot)):
        path = getattr(args, flag, None)
        if path:
            with _writing(path):
                Path(path).write_text(fn(model) + "\n")
            print(f"{flag} written to {path}")
    return _exit_code(result)


def _check_outputs(args) -> None:
    """An InputError naming the first output file (``--trace``, ``--json``, ``--latex``, ``--dot``) that cannot be
    written, checked before any search runs; nothing is created."""
    for flag in ("trace", "json", "latex", "dot"):
        path = getattr(args, flag, None)
        if not path:
            continue
        p = Path(path)
        folder = p.parent
        if p.is_dir():
            reason = "Is a directory"
        elif not folder.exists():
            reason = f"No such file or directory (no folder {str(folder)!r})"
        elif not folder.is_dir():
            reason = f"Not a directory ({str(folder)!r})"
        elif not os.access(p if p.exists() else folder, os.W_OK):
            reason = "Permission denied"
        else:
            continue
        raise InputError(f"{path}: cannot write: {reason} (--{flag}; nothing was run)")


@contextlib.contextmanager
def _writing(path) -> Iterator[None]:
    """Turn a failure to write an output file (a directory, no permission, a missing folder) into an InputError
    naming the file."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def cmd_datasets(args) -> int:
    for name, desc in datasets.list_datasets().items():
        print(f"{name:22s} {desc}")
    return EXIT_OK


def cmd_demo(args) -> int:
    """Solve bundled data with all three solvers and print the certified models."""
    from .corels import solve as corels_solve
    from .frl import FRLClassifier
    from .osdt import solve as osdt_solve

    lam = 0.005 if args.full else 0.01
    data = datasets.load_compas_corels("train")
    r = corels_solve(data, lam)
    _print_result(f"CORELS on ProPublica COMPAS ({data.n_samples} samples, {data.n_features} antecedents), "
                  f"lambda={lam}", r, r.model.text())
    data = datasets.load_osdt("compas")
    r2 = osdt_solve(data, 0.005)
    _print_result(f"OSDT on COMPAS ({data.n_samples} samples, {data.n_features} features), lambda=0.005", r2,
                  str(r2.model))
    X, y = datasets.load_bank_full_items(as_frame=True)
    est = FRLClassifier(n_iter=3000, random_state=0).fit(X, y)
    _print_result(f"FRL on UCI bank-full ({len(y)} samples, {est.n_antecedents_} antecedents), w=7, C=1e-6, "
                  "3000 iterations (Monte-Carlo search: best list found, not certified)", est.result_,
                  str(est.rule_list_))
    return max(_exit_code(r), _exit_code(r2), _exit_code(est.result_))


def cmd_reproduce(args) -> int:
    """Run ``python -m experiments`` of the source checkout this package lives in: the paper studies are not part of
    the installed package (they need the repository's ``experiments/`` folder and ``../shared`` data)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "experiments" / "__main__.py").is_file():
        raise InputError("the paper studies run from a source checkout of optbb: clone the repository and run "
                         "`optbb reproduce` or `python -m experiments` there (no experiments/ folder beside "
                         f"{root / 'optbb'})")
    if args.list or not args.study:
        argv = ["--list"] if args.list else []
    else:
        argv = [args.study, *args.rest]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    sys.stdout.flush()
    return subprocess.call([sys.executable, "-m", "experiments", *argv], env=env)


def _positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer (at least 1), got {n}")
    return n


def _memory_arg(value: str) -> str | None:
    return None if value.strip().lower() == "none" else value


def _add_limits(p: argparse.ArgumentParser, search_limits: bool = True) -> None:
    """Limits, ``--trace``, exports and ``-v``; ``search_limits=False`` leaves out the node and memory limits."""
    p.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds")
    if search_limits:
        p.add_argument("--node-limit", type=int, default=None, metavar="N", help="stop after N nodes")
        p.add_argument("--memory-limit", default="auto", type=_memory_arg, metavar="SIZE", help="cap search memory, "
                       "e.g. 2G; 'auto' (default) = half of the physical memory; 'none' = no cap")
    p.add_argument("--trace", default=None, metavar="FILE", help="write the search trace as CSV")
    p.add_argument("--json", default=None, metavar="FILE", help="write the model as JSON (optbb.export.from_json)")
    p.add_argument("--latex", default=None, metavar="FILE", help="write the model as a LaTeX algorithmic block")
    p.add_argument("--dot", default=None, metavar="FILE", help="write the model as Graphviz DOT")
    p.add_argument("-v", "--verbose", action="count", default=0, help="show progress")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="optbb", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="solve bundled data with CORELS, OSDT and FRL")
    p.add_argument("--full", action="store_true", help="CORELS at lambda 0.005 (about 20 s) instead of 0.01")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("corels", help="certifiably optimal rule list")
    p.add_argument("data", help="bundled data set, CORELS .out file (with .label beside it) or binary CSV")
    p.add_argument("--label", help="CORELS .label file (default: beside the .out)")
    p.add_argument("-r", "--regularization", type=float, default=0.01, metavar="LAMBDA")
    p.add_argument("-c", "--policy", default="lower_bound",
                   choices=["bfs", "curiosity", "lower_bound", "objective", "dfs"])
    p.add_argument("-p", "--map-type", default="prefix", choices=["none", "prefix", "captured"])
    p.add_argument("-a", "--ablation", action="append",
                   choices=["support", "accurate_support", "lookahead", "equivalent_points", "prefix_length"])
    p.add_argument("--max-card", type=int, default=2, help="mining: literals per antecedent (CSV input)")
    p.add_argument("--min-support", type=float, default=0.01, help="mining: minimum support (CSV input)")
    p.add_argument("--no-negations", action="store_true", help="mining: no negated literals (CSV input)")
    _add_limits(p)
    p.set_defaults(func=cmd_corels)

    p = sub.add_parser("osdt", help="certifiably optimal sparse decision tree")
    p.add_argument("data", help="bundled data set or binary CSV (label last)")
    p.add_argument("--label", help=argparse.SUPPRESS)
    p.add_argument("-r", "--regularization", type=float, default=0.05, metavar="LAMBDA")
    p.add_argument("-c", "--policy", default="curiosity",
                   choices=["curiosity", "lower_bound", "objective", "entropy", "gini", "fifo"])
    p.add_argument("-a", "--ablation", action="append",
                   choices=["support", "incremental_accuracy", "accurate_support", "lookahead",
                            "equivalent_points", "leaf_bound"])
    p.add_argument("--initial-tree", "--warm-start", dest="warm_start", default="cart", choices=["cart", "none"],
                   help="initial incumbent: a CART tree with lambda-tied settings (default) or none")
    p.add_argument("--max-depth", type=int, default=None)
    p.add_argument("--max-leaves", type=int, default=None)
    _add_limits(p)
    p.set_defaults(func=cmd_osdt)

    p = sub.add_parser("frl", help="falling rule list (Monte-Carlo search with pruning)")
    p.add_argument("data", help="frl-bank-full or a binary CSV (label last)")
    p.add_argument("--soft", action="store_true", help="softly falling rule list")
    p.add_argument("-w", "--positive-weight", type=float, default=7.0)
    p.add_argument("-r", "--regularization", type=float, default=1e-6, metavar="C")
    p.add_argument("--monotonicity-penalty", type=float, default=0.5, metavar="C1")
    p.add_argument("-n", "--n-iter", type=_positive_int, default=None, metavar="N",
                   help="Monte-Carlo iterations (default 3000; 6000 with --soft)")
    p.add_argument("--p-stop", type=float, default=0.01)
    p.add_argument("--curiosity-weight", type=float, default=0.8)
    p.add_argument("--max-card", type=int, default=2)
    p.add_argument("--min-support", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    _add_limits(p, search_limits=False)
    p.set_defaults(func=cmd_frl)

    p = sub.add_parser("datasets", help="list the bundled data sets")
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("reproduce", help="regenerate a table or figure of the papers (see --list)")
    p.add_argument("--list", action="store_true", help="name every study and exit")
    p.add_argument("study", nargs="?", help="study name (see --list) or 'all'")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="options for the study (--quick, --jobs N, --out DIR)")
    p.set_defaults(func=cmd_reproduce)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (InputError, ValueError, TypeError, FileNotFoundError) as exc:
        print(f"optbb {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except (KeyboardInterrupt, RuntimeError) as exc:  # Ctrl-C, or SIGTERM raised as Terminated
        exc = _signal_of(exc)
        terminated = isinstance(exc, Terminated)
        print(f"optbb {args.command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def _signal_of(exc: BaseException) -> KeyboardInterrupt:
    """The KeyboardInterrupt (Ctrl-C, or SIGTERM as :class:`Terminated`) that ``exc`` is or wraps, else ``exc``
    raised again: a signal that arrives while a lazily imported module creates a class comes out of Python 3.11 as
    a RuntimeError ("Error calling __set_name__") caused by it."""
    if isinstance(exc, KeyboardInterrupt):
        return exc
    if isinstance(exc.__cause__, KeyboardInterrupt):
        return exc.__cause__
    raise exc


def _terminate(signum, frame):
    raise Terminated


def run() -> None:
    """The ``optbb`` program: :func:`main`, then exit with its code.  SIGTERM outside a search exits 143; inside a
    search it ends the search like Ctrl-C (best model, bound and gap printed).  Once the outcome is known, SIGINT
    and SIGTERM are ignored: a second signal arriving while the interpreter shuts down would otherwise replace the
    exit code with a death by signal."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = main()
        _ignore_signals()  # here, so that a signal arriving as main returns is still caught below
    except (KeyboardInterrupt, RuntimeError) as exc:  # a second Ctrl-C (or SIGTERM) during main's own handling
        code = EXIT_TERMINATED if isinstance(_signal_of(exc), Terminated) else EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of our output went away: no traceback, nothing more to write
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_PIPE
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"optbb: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        code = EXIT_INPUT
    _ignore_signals()
    forget_caught_interrupts()
    sys.exit(code)


def _ignore_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


if __name__ == "__main__":
    run()
