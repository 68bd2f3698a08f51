"""``rackwise audit --bootstrap B [--group PATTERN] [--json]``: observe mode, one shot
(docs/architecture.md § Command line).

Reads the live groups matching PATTERN (fnmatch, default ``*``: classic, KIP-848 consumer and
KIP-1071 streams groups), samples their partitions' traffic over ``--window`` seconds, and
prints per group its members, partitions, the cross-rack partitions and bytes/s of the
assignment it runs and of the best plan under the same balance, and what that costs per
month (agent.audit), then the fleet's totals (agent.audit.summary). Nothing is written to
the cluster.

``--json`` prints ``{"groups": [one object per group], "summary": {totals}}``.
``--fail-above USD`` is for cron or CI: exit 1, with one line saying so, when the fleet's
possible saving exceeds USD $/month.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from protocol.errors import RackwiseError

if TYPE_CHECKING:
    from agent.audit.model import GroupAudit
    from agent.audit.summary import FleetSummary


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit", help="cross-rack partitions of live groups: actual vs the best plan"
    )
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or RACKWISE_BOOTSTRAP)")
    parser.add_argument("--group", default="*", metavar="PATTERN",
                        help="group ids to audit, fnmatch pattern (default: all)")
    parser.add_argument("--json", action="store_true",
                        help='{"groups": [one object per group], "summary": {fleet totals}}')
    parser.add_argument("--plans", action="store_true",
                        help="with --json: add the observed and recommended AssignmentPlans")
    parser.add_argument("--config", help="agent settings file (Kafka client properties, "
                                         "planner.streams_topologies / streams_config)")
    parser.add_argument("--timeout", type=float, default=15.0, help="per request, seconds")
    parser.add_argument("--window", type=float, metavar="S",
                        help="seconds between the two traffic samples (default: traffic.window_s, "
                             "10); 0: do not measure bytes")
    parser.add_argument("--price-per-gb", type=float, metavar="USD",
                        help="$ per GB crossing racks, per billed direction (default 0.01)")
    parser.add_argument("--billed-directions", type=int, choices=(1, 2),
                        help="2: both zones pay, as on AWS (default); 1: only one, as on GCP")
    parser.add_argument("--rack-map", action="append", default=[], metavar="CIDR=RACK",
                        help="rack of client hosts without client.rack (repeatable), "
                             "e.g. --rack-map 10.0.1.0/24=az1")
    parser.add_argument("--fail-above", type=float, metavar="USD",
                        help="exit 1 when the fleet's possible saving exceeds USD $/month "
                             "(for cron or CI); needs measured bytes")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from confluent_kafka.admin import AdminClient

    from agent.audit import render_table, run_audit
    from agent.audit.summary import summarize
    from agent.config.cost import HostRacks
    from agent.config.settings import load_settings
    from agent.daemon.planning import streams_setup

    if not (args.bootstrap or os.environ.get("RACKWISE_BOOTSTRAP") or args.config):
        raise RackwiseError("no cluster given: pass --bootstrap B or set RACKWISE_BOOTSTRAP")
    if args.window is not None and args.window < 0:
        raise RackwiseError("--window must be >= 0 seconds")
    if args.price_per_gb is not None and args.price_per_gb < 0:
        raise RackwiseError("--price-per-gb must be >= 0")
    if args.fail_above is not None and (not math.isfinite(args.fail_above) or args.fail_above < 0):
        raise RackwiseError("--fail-above must be a number of $/month >= 0")
    if args.fail_above is not None and args.window == 0:
        raise RackwiseError("--fail-above needs measured bytes: drop --window 0")
    settings = load_settings(args.config, bootstrap=args.bootstrap)
    traffic = settings.traffic
    if args.window is not None:
        traffic = traffic.model_copy(update={"window_s": args.window})
    cost = settings.cost.model_copy(update={
        k: v for k, v in (("price_per_gb", args.price_per_gb),
                          ("billed_directions", args.billed_directions)) if v is not None
    })
    if args.rack_map:
        cost = cost.model_copy(update={
            "host_racks": {**cost.host_racks, **HostRacks.from_args(args.rack_map)}})
    planner = settings.planner

    def topology(group_id: str) -> Mapping[str, Any] | None:
        found = streams_setup(group_id, planner).get("topology")
        return found if isinstance(found, Mapping) else None

    with AdminClient(settings.client_config()) as admin:  # closed on this thread
        audits = run_audit(admin, args.group, args.timeout, topology, planner.streams_config,
                           client_config=settings.client_config(), traffic=traffic, cost=cost)
    print(render_json(audits, args.plans) if args.json else render_table(audits))
    return exit_code(summarize(audits), args.fail_above)


def render_json(audits: Sequence[GroupAudit], plans: bool = False) -> str:
    """``--json``: the groups' rows (with both plans when ``plans``) and the fleet summary."""
    from agent.audit.summary import summarize

    rows = []
    for a in audits:
        row = a.to_json()
        if plans:
            row["actual_plan"] = json.loads(a.actual.to_json()) if a.actual else None
            row["best_plan"] = json.loads(a.best.to_json()) if a.best else None
        rows.append(row)
    doc = {"groups": rows, "summary": summarize(audits).to_json()}
    return json.dumps(doc, indent=2, ensure_ascii=False)


def exit_code(summary: FleetSummary, limit_usd: float | None) -> int:
    """0, or 1 with one line on stderr when the saving exceeds ``--fail-above``; an unknown
    saving under ``--fail-above`` is an error (agent.audit.summary.SavingUnknown, exit 2)."""
    from agent.audit.summary import fail_above

    if limit_usd is None:
        return 0
    exceeded, message = fail_above(summary, limit_usd)
    print(message, file=sys.stderr)
    return 1 if exceeded else 0
