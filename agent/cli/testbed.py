"""``rackwise testbed up|down|status``: the local 3-broker KRaft cluster (agent.dev.testbed)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from agent.dev import brokerassignors, testbed

EPILOG = f"""environment:
  RACKWISE_TESTBED_PORT_BASE  node N listens on BASE+100*(N-1) (default 19092)
  {brokerassignors.CONSUMER_ASSIGNORS_ENV}
      the brokers' group.consumer.assignors (default uniform,range,{brokerassignors.GROUP_ASSIGNOR}).
      To try the drop-in for Kafka's uniform, under which every KIP-848 group that names no
      assignor (or names uniform) is rack-optimal:
      {brokerassignors.CONSUMER_ASSIGNORS_ENV}={brokerassignors.UNIFORM_DROP_IN},range,{brokerassignors.GROUP_ASSIGNOR}
  {brokerassignors.STREAMS_ASSIGNORS_ENV}
      the brokers' group.streams.assignors (KIP-1071 streams groups; Kafka 4.4+ only)
  both are read by `up` when it starts the brokers: `down` first to change them"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "testbed", help="local 3-broker KRaft Kafka with racks az1/az2/az3",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    parser.add_argument("action", choices=["up", "down", "status"])
    parser.add_argument("--sasl", action="store_true",
                        help="also open a SASL_PLAINTEXT listener (user rackwise) on port+2 of each node")
    parser.add_argument("--json", action="store_true", help="status as JSON")
    parser.set_defaults(func=run)


def _say(msg: str) -> None:
    print(f"testbed: {msg}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    bed = testbed.Testbed(sasl=args.sasl, log=_say)
    if args.action == "up":
        started = time.monotonic()
        servers = bed.up()
        _say(f"ready in {time.monotonic() - started:.1f}s; racks: "
             + ", ".join(f"{n.address}={n.rack}" for n in bed.nodes))
        if args.sasl:
            _say(f"SASL_PLAINTEXT listeners: {bed.sasl_bootstrap} (user {testbed.SASL_USER})")
        print(servers, flush=True)
        return 0
    if args.action == "down":
        bed.down()
        _say("stopped; no node is running")
        return 0
    rows = bed.status()
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            live = "running" if row["listening"] else "starting"
            state = live if row["pid"] else "stopped"
            print(f"node {row['node']}  {row['rack']}  {row['address']}  {state}  pid={row['pid'] or '-'}")
    return 0 if all(r["pid"] and r["listening"] for r in rows) else 3
