"""``rackwise plan SCENARIO.json [--assignor NAME] [--pretty]``: the AssignmentPlan of a scenario."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from assignor.errors import AssignorError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plan", help="the AssignmentPlan JSON for a scenario (docs/architecture.md § Scenarios)"
    )
    parser.add_argument("scenario", help="scenario JSON file, or - for stdin")
    parser.add_argument(
        "--assignor",
        help="range, sticky, cooperative-sticky, rack-optimal (default: "
        "the scenario's group.assignor, else rack-optimal)",
    )
    parser.add_argument("--pretty", action="store_true", help="indented JSON")
    parser.set_defaults(func=run)


def read_scenario(path: str) -> dict[str, Any]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AssignorError(f"cannot read {path}: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AssignorError(f"{path} is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise AssignorError(f"{path}: a scenario is a JSON object")
    return doc


def run(args: argparse.Namespace) -> int:
    from assignor.scenario import plan_from_scenario

    plan = plan_from_scenario(read_scenario(args.scenario), assignor=args.assignor)
    text = plan.to_json()
    print(json.dumps(json.loads(text), indent=2) if args.pretty else text)
    return 0
