"""``rackwise demo``: what ``make demo`` runs (see agent/demo.py)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="end-to-end demo on the local testbed")
    parser.add_argument("--bootstrap", help="use this cluster instead of starting the local testbed")
    parser.add_argument("--keep", action="store_true", help="leave the testbed running afterwards")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent.demo import run_demo

    return run_demo(bootstrap=args.bootstrap, keep=args.keep)
