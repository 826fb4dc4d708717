"""Command line: ``python -m experiments <study> [--quick] [--jobs N] [--out DIR] [--dask tcp://...]``.

``--list`` names every study; ``all`` runs them all (each into ``<out>/<study>/``).  Also reachable as
``optbb reproduce <study> ...``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from optbb.common.limits import forget_caught_interrupts

from . import registry

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments",
                                description="Regenerate a table or figure of the CORELS, FRL and OSDT papers.")
    p.add_argument("study", nargs="?", help="study name (see --list), 'all', or 'list'")
    p.add_argument("--list", action="store_true", help="name every study and exit")
    p.add_argument("--quick", action="store_true", help="reduced version (few folds, larger lambda; ~1-2 min)")
    p.add_argument("--smoke", action="store_true",
                   help="an even smaller version of --quick for tests (also OPTBB_EXPERIMENTS_SMOKE=1)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="parallel worker processes (joblib)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output folder (default results/<study>/; with 'all', DIR/<study>/)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run the sweep on a Dask cluster (scheduler address, e.g. tcp://host:8786)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    studies = registry.load_all()
    if args.list or args.study == "list":  # "list" also works through ``optbb reproduce list``
        width = max((len(n) for n in studies), default=0)
        for name, st in studies.items():
            print(f"{name:<{width}}  {st.description}")
        return EXIT_OK
    if not args.study:
        parser.print_usage(sys.stderr)
        print("python -m experiments: error: name a study (see --list) or 'all'", file=sys.stderr)
        return EXIT_USAGE
    if args.jobs < 1:
        print(f"python -m experiments: error: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return EXIT_USAGE
    if args.dask:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            print("python -m experiments: error: --dask needs the 'dask[distributed]' package, which is not "
                  "installed (pip install 'dask[distributed]')", file=sys.stderr)
            return EXIT_USAGE
    names = list(studies) if args.study == "all" else [args.study]
    unknown = [n for n in names if n not in studies]
    if unknown:
        print(f"python -m experiments: error: unknown study {unknown[0]!r}; known studies: {', '.join(studies)}",
              file=sys.stderr)
        return EXIT_USAGE
    smoke = args.smoke or registry.smoke_from_env()
    status = EXIT_OK
    for name in names:
        if args.out is None:
            out = Path("results") / name
        else:
            out = Path(args.out) / name if args.study == "all" else Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        config = registry.RunConfig(study=name, out=out, quick=args.quick or smoke, smoke=smoke, jobs=args.jobs,
                                    dask=args.dask, verbose=0 if args.quiet else 1)
        t0 = time.perf_counter()
        config.log(f"{config.mode} run into {out}")
        try:
            rc = int(studies[name].run(config) or 0)
        except KeyboardInterrupt:
            print(f"[{name}] interrupted; finished configurations are cached in {out / 'cache'}", file=sys.stderr)
            return 130
        except Exception as exc:  # noqa: BLE001 - one failed study must not stop 'all'
            if len(names) == 1:
                raise
            print(f"[{name}] failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            rc = EXIT_FAILED
        config.log(f"done in {time.perf_counter() - t0:.1f} s (exit {rc})")
        status = max(status, rc)
    return status


if __name__ == "__main__":
    code = main()
    forget_caught_interrupts()  # exit 130 after a Ctrl-C, not -2
    sys.exit(code)
