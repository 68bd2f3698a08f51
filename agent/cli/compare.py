"""``rackwise compare SCENARIO.json [--json]``: every applicable assignor's cost side by side."""

from __future__ import annotations

import argparse
import json
from typing import Any

from agent.cli.plan import read_scenario

COLUMNS = (
    "assignor",
    "traffic_cost",
    "cross_rack_partitions",
    "lower_bound",
    "max_load",
    "min_load",
    "moved_partitions",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare", help="a table of every assignor's traffic cost for a scenario"
    )
    parser.add_argument("scenario", help="scenario JSON file, or - for stdin")
    parser.add_argument("--json", action="store_true", help="rows as a JSON array")
    parser.set_defaults(func=run)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def run(args: argparse.Namespace) -> int:
    from assignor.scenario import compare_scenario

    rows = compare_scenario(read_scenario(args.scenario))
    if args.json:
        print(json.dumps(rows))
        return 0
    cols = [c for c in COLUMNS if any(c in r for r in rows)]
    for r in rows:
        cols += [c for c in r if c not in cols]
    table = [[_cell(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    for row in table:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    return 0
