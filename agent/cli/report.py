"""``rackwise report``: PNG charts and one HTML page from the metrics job's Parquet (metrics/report.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("report", help="charts and an HTML page from the CRT metrics")
    parser.add_argument("--input", type=Path, default=Path("out/crt"),
                        help="the metrics job's --output (default: out/crt)")
    parser.add_argument("--out", type=Path, default=Path("out/report"),
                        help="where the PNGs and index.html go (default: out/report)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.report import render

    page = render(args.input, args.out)
    print(page, flush=True)
    return 0
