"""Real clients' cross-rack partitions next to rackwise's best plan, on rack-skewed layouts.

For each layout (partitions, replication factor, share of leaders in az1) one topic is
created on the testbed with a seeded random placement; then, one after the other,
librdkafka consumers (3, one per rack, each listed strategy) and the Kafka Streams app
(3 processes, min_traffic, 1 standby) run on it until settled, and ``rackwise audit``
measures them. The clients' own count (tests/support/liveclients.own_cross_rack) is checked
against the audit's on every row.

    RACKWISE_TESTBED_PORT_BASE=22092 RACKWISE_TESTBED_DIR=/tmp/tb-audit \\
        .venv/bin/python -m bench.audit_layouts --bootstrap 127.0.0.1:22092 --seed 7

Prints a markdown table (and ``--json`` rows). Bounded: 4 layouts by default, ~2-4 minutes.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from typing import Any

from confluent_kafka.admin import AdminClient

from agent.audit import run_audit
from tests.support.kafkautil import rack_of_brokers
from tests.support.liveclients import (
    ConsumerGroup,
    StreamsApps,
    make_topic,
    own_cross_rack,
    replica_racks,
    skewed_placement,
)

RACKS = ["az1", "az2", "az3"]
LAYOUTS = [  # partitions, rf, share of leaders in az1
    (12, 1, 0.6),
    (12, 2, 0.9),
    (24, 1, 0.8),
    (24, 2, 0.7),
]


def _audit(admin: Any, group: str):  # type: ignore[no-untyped-def]
    def audit():  # type: ignore[no-untyped-def]
        return next((a for a in run_audit(admin, group) if a.group == group), None)
    return audit


def measure(bootstrap: str, seed: int, layouts: list[tuple[int, int, float]],
            strategies: list[str], streams: bool) -> list[dict[str, Any]]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    brokers = {rack: b for b, rack in sorted(rack_of_brokers(admin).items())}
    rows = []
    for index, (partitions, rf, skew) in enumerate(layouts):
        rng = random.Random(seed * 100 + index)
        topic = f"bench-audit-{seed}-{index}-{uuid.uuid4().hex[:6]}"
        placement = skewed_placement(rng, partitions, rf, brokers, "az1", skew)
        make_topic(admin, topic, placement)
        racks = replica_racks(admin, topic)
        layout = {"layout": index, "partitions": partitions, "rf": rf, "az1_leaders": skew,
                  "az1_replicas": sum(1 for p in racks.values() if "az1" in p)}
        runs: list[tuple[str, Any]] = []
        for strategy in strategies:
            group = ConsumerGroup(bootstrap, f"{topic}-{strategy}", topic, RACKS, strategy)
            try:
                runs.append((f"librdkafka {strategy}",
                             group.settle(partitions, _audit(admin, f"{topic}-{strategy}"))))
            finally:
                group.close()
        if streams:
            make_topic(admin, f"{topic}-out", [[1, 2, 3]] * 3)
            apps = StreamsApps(bootstrap, f"{topic}-app", RACKS, topic, f"{topic}-out")
            try:
                runs.append(("Kafka Streams min_traffic",
                             apps.settle(partitions, _audit(admin, f"{topic}-app"))))
            finally:
                apps.close()
        for client, settled in runs:
            own = own_cross_rack(settled.owned, racks)
            a = settled.audit
            if a.cross_rack_actual != own:
                raise AssertionError(f"{client}: audit {a.cross_rack_actual} != own count {own}")
            rows.append({**layout, "client": client, "actual": a.cross_rack_actual,
                         "best": a.cross_rack_best, "saving_pct": a.saving_pct,
                         "settle_s": round(settled.seconds, 1)})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| partitions | rf | az1 leaders | partitions with an az1 replica | client "
            "| actual cross-rack | rackwise best | saving |")
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        lines.append(
            f"| {r['partitions']} | {r['rf']} | {r['az1_leaders']:.0%} | {r['az1_replicas']} "
            f"| {r['client']} | {r['actual']} | {r['best']} | {r['saving_pct']:.1f}% |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--strategies", default="cooperative-sticky,range")
    parser.add_argument("--no-streams", action="store_true")
    parser.add_argument("--layouts", type=int, default=len(LAYOUTS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.Random().randrange(1 << 20)
    print(f"seed={seed}", flush=True)
    rows = measure(args.bootstrap, seed, LAYOUTS[: args.layouts],
                   [s for s in args.strategies.split(",") if s], not args.no_streams)
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
