"""Two benchmarks of measured traffic on the testbed: auditing 500 live groups, and the traffic estimator.

``--part audit``: 250 classic groups (one static member each) and 250 KIP-848 groups (three
members, az1-az3) on 25 topics of 6 partitions with steady traffic (bench/groupload.py);
then ``rackwise audit --json`` over all of them, timed end to end as a user runs it (the
traffic window included). Goal: under 60 s.

``--part estimator``: a steady producer writes known payload rates (partition i at (i+1)
units, so no two rates are equal) for several record sizes and compression codecs;
agent.brokers.traffic.TrafficEstimator measures every partition over a window. The truth it is held
to is the bytes actually appended to each partition's log in the same window, read from the
leader's segment files in the testbed's data directory (the file system, not Kafka's
protocol). Goal: within 10 %. For context the table also gives the payload the producer
wrote (key + value) and what a consumer of every partition received from the brokers
(librdkafka's per-broker ``rxbytes``: the record batches plus fetch framing): record batches
are what is fetched and billed, so small records cost more than their payload and
compressed ones less.

    RACKWISE_TESTBED_PORT_BASE=23092 RACKWISE_TESTBED_DIR=/tmp/tb-cost \\
        .venv/bin/python -m bench.bench_traffic --bootstrap 127.0.0.1:23092 [--part audit|estimator]

Prints markdown tables (``--json`` for rows).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from typing import Any

from confluent_kafka.admin import AdminClient

from agent.brokers.rpc import WireClient, WireSettings
from agent.brokers.traffic import TrafficEstimator
from bench.groupload import Heartbeats, join_classic
from tests.support.kafkautil import create_topic
from tests.support.trafficclients import SteadyProducer

RACKS = ["az1", "az2", "az3"]


def _topics(admin: Any, prefix: str, count: int, partitions: int) -> list[str]:
    names = [f"{prefix}-{i}" for i in range(count)]
    for i, name in enumerate(names):
        placement = [[1 + (i + p) % 3, 1 + (i + p + 1) % 3] for p in range(partitions)]
        create_topic(admin, name, placement)
    return names


def bench_audit(bootstrap: str, classic: int, kip848: int, window: float) -> dict[str, Any]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    run = uuid.uuid4().hex[:6]
    topics = _topics(admin, f"bench-audit500-{run}", 25, 6)
    client = WireClient(WireSettings.from_config({"bootstrap.servers": bootstrap}))
    groups = [f"bench-a500-{run}-c{i}" for i in range(classic)] + \
             [f"bench-a500-{run}-k{i}" for i in range(kip848)]
    began = time.monotonic()
    coordinators = {}
    for attempt in range(10):
        found = client.find_coordinators(groups)
        coordinators = {g: a for g, a in found.items() if not isinstance(a, str)}
        if len(coordinators) == len(groups):
            break
        time.sleep(1 + attempt)
    heartbeats = Heartbeats(client)
    for i, g in enumerate(groups):
        topic = topics[i % len(topics)]
        if g.rsplit("-", 1)[1].startswith("c"):
            join_classic(client, coordinators[g], g, topic, 6, RACKS[i % 3])
        else:
            heartbeats.add_group(coordinators[g], g, topic, RACKS)
    for _ in range(6):  # join, then acknowledge until every member holds its target
        heartbeats.beat_all()
        time.sleep(0.5)
    setup_s = time.monotonic() - began
    heartbeats.start()
    producers = [SteadyProducer(bootstrap, t, dict.fromkeys(range(6), 2.0), size=500).__enter__()
                 for t in topics[:5]]
    try:
        time.sleep(2)
        began = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-m", "agent", "audit", "--bootstrap", bootstrap, "--group",
             f"bench-a500-{run}-*", "--json", "--window", str(window)],
            capture_output=True, text=True, timeout=600, check=False)
        audit_s = time.monotonic() - began
    finally:
        heartbeats.stop()
        for p in producers:
            p.__exit__(None, None, None)
        client.close()
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    rows = json.loads(out.stdout)["groups"]
    statuses: dict[str, int] = {}
    for r in rows:
        key = f"{r['group_type']}:{r['status']}"
        statuses[key] = statuses.get(key, 0) + 1
    return {"groups": len(rows), "setup_s": round(setup_s, 1), "audit_s": round(audit_s, 1),
            "window_s": window, "statuses": statuses, "heartbeat_errors": len(heartbeats.errors),
            "measured": sum(r["bytes_per_s"] is not None for r in rows)}


CASES = [  # record bytes, compression, records/s per unit of rate
    (100, "none", 20.0),
    (1000, "none", 10.0),
    (10_000, "none", 2.0),
    (1000, "lz4", 10.0),
]


def bench_estimator(bootstrap: str, window: float, partitions: int,
                    data_dir: str) -> list[dict[str, Any]]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    rows = []
    for size, codec, unit in CASES:
        topic = f"bench-estimator-{size}-{codec}-{uuid.uuid4().hex[:6]}"
        create_topic(admin, topic, [[1 + p % 3, 1 + (p + 1) % 3] for p in range(partitions)])
        rates = {p: unit * (p + 1) for p in range(partitions)}
        with SteadyProducer(bootstrap, topic, rates, size=size, compression=codec) as steady:
            wire = _WireCounter(bootstrap, topic, partitions)
            time.sleep(3)  # past the first batches; the consumer is caught up
            logs = _LogFiles(admin, topic, data_dir)
            estimator = TrafficEstimator(admin, {"bootstrap.servers": bootstrap})
            # the files are read right after each sample, whose last step reads the sizes:
            # the two windows then cover the same records even if the producer bursts
            estimator.sample([topic])
            disk0, t0, sent0, rx0 = logs.sizes(), time.monotonic(), dict(steady.sent), wire.total()
            time.sleep(window)
            estimator.sample([topic])
            disk1, t1, sent1, rx1 = logs.sizes(), time.monotonic(), dict(steady.sent), wire.total()
            wire.close()
        took = t1 - t0
        measured = {tp.partition: r for tp, r in estimator.rates().items()}
        appended = {p: (disk1[p] - disk0[p]) / took for p in rates}
        errors = [(measured[p] - appended[p]) / appended[p] for p in rates if appended[p]]
        estimate, truth = sum(measured.values()), sum(appended.values())
        rows.append({"record_bytes": size, "compression": codec, "partitions": partitions,
                     "log_appended_Bps": round(truth), "estimated_Bps": round(estimate),
                     "total_error_pct": round(100 * (estimate - truth) / truth, 1),
                     "partition_mean_abs_error_pct": round(
                         100 * sum(map(abs, errors)) / len(errors), 1),
                     "partition_worst_error_pct": round(100 * max(errors, key=abs), 1),
                     "payload_Bps": round(sum((sent1[p] - sent0[p]) * size / took
                                              for p in rates)),
                     "consumer_received_Bps": round((rx1 - rx0) / took)})
    return rows


class _LogFiles:
    """Sizes of each partition's segment files on its leader, from the testbed's data dir."""

    def __init__(self, admin: Any, topic: str, data_dir: str) -> None:
        from confluent_kafka import TopicCollection

        desc = admin.describe_topics(TopicCollection([topic]))[topic].result(30)
        self.dirs = {p.id: os.path.join(data_dir, "data", f"n{p.leader.id}", f"{topic}-{p.id}")
                     for p in desc.partitions}
        missing = [d for d in self.dirs.values() if not os.path.isdir(d)]
        if missing:
            raise SystemExit(f"no log directory {missing[0]}: --testbed-dir must be the "
                             "testbed's RACKWISE_TESTBED_DIR (this benchmark reads its files)")

    def sizes(self) -> dict[int, int]:
        return {p: sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
                       if f.endswith(".log"))
                for p, d in self.dirs.items()}


class _WireCounter:
    """A consumer of every partition from the end; the bytes it receives from brokers."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        import threading

        from confluent_kafka import OFFSET_END, Consumer, TopicPartition

        self._rx = 0
        self._lock = threading.Lock()
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                                  "statistics.interval.ms": 200, "fetch.wait.max.ms": 500,
                                  "stats_cb": self._stats, "enable.auto.commit": False})
        self.consumer.assign([TopicPartition(topic, p, OFFSET_END) for p in range(partitions)])
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _stats(self, raw: str) -> None:
        doc = json.loads(raw)
        rx = sum(b["rxbytes"] for b in doc["brokers"].values() if b.get("nodeid", -1) >= 0)
        with self._lock:
            self._rx = rx

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.consumer.poll(0.1)

    def total(self) -> int:
        time.sleep(0.25)  # one more statistics report
        with self._lock:
            return self._rx

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.consumer.close()


def _table(rows: list[dict[str, Any]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bootstrap", default=os.environ.get("RACKWISE_BOOTSTRAP"))
    parser.add_argument("--part", choices=["audit", "estimator", "all"], default="all")
    parser.add_argument("--classic", type=int, default=250)
    parser.add_argument("--kip848", type=int, default=250)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--testbed-dir", default=os.environ.get("RACKWISE_TESTBED_DIR", ".testbed"),
                        help="the testbed's state dir: the estimator is checked against its logs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.bootstrap:
        parser.error("--bootstrap or RACKWISE_BOOTSTRAP is required")
    if args.part in ("estimator", "all"):
        rows = bench_estimator(args.bootstrap, args.window, args.partitions, args.testbed_dir)
        print(json.dumps(rows) if args.json else _table(rows), flush=True)
    if args.part in ("audit", "all"):
        row = bench_audit(args.bootstrap, args.classic, args.kip848, args.window)
        print(json.dumps(row) if args.json else _table([row]), flush=True)


if __name__ == "__main__":
    main()
