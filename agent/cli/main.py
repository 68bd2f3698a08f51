"""``rackwise``: discover the subcommands of this package, parse, dispatch, and end errors in one line."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from protocol.errors import RackwiseError

EXIT_USAGE = 2
# Top-level modules of the optional extras (pyproject.toml), and the extra that brings each.
EXTRA_OF_MODULE = {"pyspark": "spark", "pyarrow": "spark", "pandas": "spark",
                   "matplotlib": "spark", "kafka": "demo"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rackwise",
        description="Keep Kafka consumers next to their data: rack-aware plans, audits, CRT metrics.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    package = importlib.import_module("agent.cli")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "main":  # __main__, and this module
            continue
        module = importlib.import_module(f"agent.cli.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except RackwiseError as exc:
        print(f"rackwise {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        extra = EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        print(f"rackwise {args.command}: error: {exc.name} is not installed; it comes with the "
              f"'{extra}' extra: pip install 'rackwise[{extra}]'", file=sys.stderr)
        return EXIT_USAGE
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
