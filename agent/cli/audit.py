"""``rackwise audit --bootstrap B [--group PATTERN] [--json]``: observe mode, one shot
(docs/architecture.md § Command line).

Reads the live classic groups matching PATTERN (fnmatch, default ``*``), and prints per
group its members, partitions, the cross-rack partitions of the assignment it runs and of
the best plan under the same balance (agent.audit). Nothing is written to the cluster.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any

from protocol.errors import RackwiseError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit", help="cross-rack partitions of live groups: actual vs the best plan"
    )
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or RACKWISE_BOOTSTRAP)")
    parser.add_argument("--group", default="*", metavar="PATTERN",
                        help="group ids to audit, fnmatch pattern (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object per group, as a list")
    parser.add_argument("--plans", action="store_true",
                        help="with --json: add the observed and recommended AssignmentPlans")
    parser.add_argument("--config", help="agent settings file (Kafka client properties, "
                                         "planner.streams_topologies / streams_config)")
    parser.add_argument("--timeout", type=float, default=15.0, help="per request, seconds")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from confluent_kafka.admin import AdminClient

    from agent.audit import render_table, run_audit
    from agent.daemon.planning import streams_setup
    from agent.settings import load_settings

    if not (args.bootstrap or os.environ.get("RACKWISE_BOOTSTRAP") or args.config):
        raise RackwiseError("no cluster given: pass --bootstrap B or set RACKWISE_BOOTSTRAP")
    settings = load_settings(args.config, bootstrap=args.bootstrap)
    admin = AdminClient(settings.client_config())
    planner = settings.planner

    def topology(group_id: str) -> Mapping[str, Any] | None:
        found = streams_setup(group_id, planner).get("topology")
        return found if isinstance(found, Mapping) else None

    audits = run_audit(admin, args.group, args.timeout, topology, planner.streams_config)
    if args.json:
        rows = []
        for a in audits:
            row = a.to_json()
            if args.plans:
                row["actual_plan"] = json.loads(a.actual.to_json()) if a.actual else None
                row["best_plan"] = json.loads(a.best.to_json()) if a.best else None
            rows.append(row)
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        print(render_table(audits))
    return 0
