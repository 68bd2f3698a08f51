"""``rackwise scenario gen ...``: a generated, rack-skewed consumer scenario as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from assignor.errors import AssignorError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("scenario", help="generate scenarios")
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    gen = sub.add_parser(
        "gen", help="a rack-skewed consumer scenario (docs/architecture.md § Scenarios), as JSON"
    )
    gen.add_argument("--partitions", type=int, required=True)
    gen.add_argument("--members", type=int, required=True)
    gen.add_argument("--racks", type=int, default=3)
    gen.add_argument(
        "--rf", type=int, default=2, help="replicas per partition, each in its own rack"
    )
    gen.add_argument(
        "--skew", type=float, default=0.5, help="0 = data spread evenly, towards 1 = in az1"
    )
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--topics", type=int, default=1)
    gen.add_argument("--kind", choices=["consumer"], default="consumer")
    gen.add_argument("--owned", action="store_true", help="add a previous round-robin assignment")
    gen.add_argument("--assignor", default="rack-optimal")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from assignor.generate import generate

    if args.kind != "consumer":
        raise AssignorError("only consumer scenarios are generated")
    doc = generate(
        partitions=args.partitions,
        members=args.members,
        racks=args.racks,
        rf=args.rf,
        skew=args.skew,
        seed=args.seed,
        topics=args.topics,
        owned=args.owned,
        assignor=args.assignor,
    )
    print(json.dumps(doc))
    return 0
