"""``rackwise schema plan``: the JSON Schema of the AssignmentPlan contract (docs/architecture.md § The
plan)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("schema", help="print the JSON Schema of a document")
    parser.add_argument("document", choices=["plan"], help="which document")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from protocol.plan import plan_json_schema

    print(json.dumps(plan_json_schema(), indent=2, sort_keys=True))
    return 0
