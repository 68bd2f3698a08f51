"""Kafka's plug-in points in front of the agent: request latency and a live KIP-848 group.

Two measurements on the testbed (brokers with the plug-in jar, see `rackwise testbed up`):

1. ``latency``: request -> plan through the real topics. A producer writes the request the
   plug-ins write (protocol.request, the Java encoder's format) for a group of N members
   (two partitions per member, 3 racks, RF 2), and a read_committed consumer waits for the
   plan with that request id on ``rackwise.plans``. p50/p99 over ``--requests`` requests per
   size; the agent runs in its own process, as in production.
2. ``live``: a live KIP-848 group of confluent-kafka consumers (``group.protocol=consumer``)
   over a rack-skewed topic, run once per broker assignor (``group.remote.assignor`` =
   ``rackwise``, ``uniform``, ``range``), all three in one run. For each: the cross-rack
   partitions of the assignment the members report, and the cross-rack bytes they fetched
   (librdkafka statistics: the broker each partition is fetched from, ``rxbytes``), plus the
   brokers' CPU seconds while the group formed and consumed.

Usage::

    .venv/bin/rackwise testbed up
    .venv/bin/python bench/bench_plugins.py latency --sizes 10,100,1000
    .venv/bin/python bench/bench_plugins.py live --members 30 --partitions 600
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from agent.routing import KIND_HEADER, group_partition, header_value  # noqa: E402
from protocol.consumer import java_subscription  # noqa: E402
from protocol.request import (  # noqa: E402
    REQUEST_ID_HEADER,
    AssignRequest,
    RequestMember,
    RequestTopic,
    encode_request,
)

BOOTSTRAP = "127.0.0.1:19092,127.0.0.1:19192,127.0.0.1:19292"
RACKS = ("az1", "az2", "az3")


def _placement(partitions: int, skew: bool) -> list[list[int]]:
    if skew:  # two thirds of the partitions live in az1+az2 only: az3 members read remote
        return [[1, 2] if p % 3 else [2 + (p % 2), 3 - (p % 2)] for p in range(partitions)]
    return [[1 + p % 3, 1 + (p + 1) % 3] for p in range(partitions)]


def _create(admin: AdminClient, topic: str, placement: list[list[int]]) -> None:
    new = NewTopic(topic, num_partitions=len(placement), replica_assignment=placement)
    admin.create_topics([new], operation_timeout=60)[topic].result(90)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        md = admin.list_topics(topic, timeout=10).topics.get(topic)
        if md and md.error is None and len(md.partitions) == len(placement) and all(
            p.leader >= 0 for p in md.partitions.values()
        ):
            return
        time.sleep(0.2)
    raise SystemExit(f"topic {topic} did not get leaders")


def _start_agent(bootstrap: str, prefix: str) -> tuple[subprocess.Popen[bytes], Path]:
    cfg = {
        "bootstrap": bootstrap,
        "instance_id": prefix,
        "transactional_id_prefix": prefix,
        "input": {"group_id": f"{prefix}-agents"},
        "topics": {"partitions": 3},
        "ops": {"port": 0},
        "log": {"level": "INFO", "format": "json"},
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench-plugins-"))
    (tmp / "agent.json").write_text(json.dumps(cfg))
    log = open(tmp / "agent.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent", "agent", "run", "--config", str(tmp / "agent.json")],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )
    return proc, tmp


def _wait_ready(proc: subprocess.Popen[bytes], log: Path, partitions: int, timeout: float = 180) -> None:
    """Until the agent serves every request partition: it first reads back the plans of the
    groups it owns, which takes longer the more plans the plans topic holds."""
    deadline = time.monotonic() + timeout
    while log.read_text(errors="replace").count('"partition ready"') < partitions:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the agent did not become ready; see {log}")
        time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()


def latency(args: argparse.Namespace) -> dict[str, Any]:
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    prefix = f"bench-req-{uuid.uuid4().hex[:6]}"
    agent, tmp = _start_agent(args.bootstrap, prefix)
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 0})
    replies = Consumer({
        "bootstrap.servers": args.bootstrap, "group.id": f"{prefix}-replies",
        "auto.offset.reset": "latest", "enable.auto.commit": False,
        "isolation.level": "read_committed",
    })
    out: dict[str, Any] = {}
    try:
        replies.subscribe(["rackwise.plans", "rackwise.deadletter"])
        deadline = time.monotonic() + 60
        while not replies.assignment() and time.monotonic() < deadline:
            replies.poll(0.2)
        _wait_ready(agent, tmp / "agent.log", 3)
        for n in args.sizes:
            topic = f"{prefix}-n{n}"
            _create(admin, topic, _placement(2 * n, skew=False))
            time.sleep(args.settle)  # brokers start 2N partitions' leaders and fetchers first
            members = tuple(
                RequestMember(f"m{i:04d}", None, java_subscription([topic], rack_id=RACKS[i % 3]))
                for i in range(n)
            )
            value = encode_request(AssignRequest("consumer", (RequestTopic(topic, 2 * n),), members))
            group = f"{prefix}-g{n}"
            times: list[float] = []
            for _ in range(args.requests + 1):
                rid = str(uuid.uuid4())
                began = time.perf_counter()
                producer.produce("rackwise.requests", key=group.encode(), value=value,
                                 partition=group_partition(group, 3),
                                 headers=[(REQUEST_ID_HEADER, rid.encode()), (KIND_HEADER, b"consumer")])
                producer.flush(10)
                answered = False
                limit = time.monotonic() + 30
                while not answered and time.monotonic() < limit:
                    for msg in replies.consume(100, 0.05):
                        if msg.error() is None and header_value(msg.headers(), REQUEST_ID_HEADER) == rid:
                            if msg.topic() != "rackwise.plans":
                                raise SystemExit(f"request rejected: {msg.headers()}")
                            answered = True
                if not answered:
                    raise SystemExit(f"no answer for {n} members; see {tmp / 'agent.log'}")
                times.append(time.perf_counter() - began)
            times = times[1:]  # the first request of a size also describes the new topic
            times.sort()
            out[f"{n}_members"] = {
                "partitions": 2 * n,
                "requests": len(times),
                "p50_ms": round(1000 * statistics.median(times), 1),
                "p99_ms": round(1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 1),
                "max_ms": round(1000 * times[-1], 1),
            }
            print(json.dumps({f"{n}_members": out[f"{n}_members"]}), flush=True)
    finally:
        replies.close()
        _stop(agent)
    return out


def _broker_cpu() -> float:
    """CPU seconds of every kafka.Kafka process on this machine (utime + stime)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"kafka.Kafka" not in cmd:
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return total


def _live_group(args: argparse.Namespace, topic: str, assignor: str, racks: dict[int, str],
                records: int) -> dict[str, Any]:
    group = f"{topic}-{assignor}"
    stats: dict[int, dict[int, tuple[int, int]]] = {}
    consumers = []
    cpu0 = _broker_cpu()
    began = time.monotonic()
    for i in range(args.members):
        def on_stats(raw: str, i: int = i) -> None:
            parts = json.loads(raw).get("topics", {}).get(topic, {}).get("partitions", {})
            stats[i] = {int(p): (int(s["broker"]), int(s["rxbytes"]))
                        for p, s in parts.items() if int(p) >= 0}
        c = Consumer({
            "bootstrap.servers": args.bootstrap, "group.id": group, "group.protocol": "consumer",
            "group.remote.assignor": assignor, "client.rack": RACKS[i % 3],
            "auto.offset.reset": "earliest", "statistics.interval.ms": 1000,
            "stats_cb": on_stats, "enable.auto.commit": False,
        })
        c.subscribe([topic])
        consumers.append(c)
        # Members join a little apart, as a deployment rolls out; the broker plug-in learns a
        # new group's id from its first members.
        until = time.monotonic() + args.join_gap
        while time.monotonic() < until:
            for cc in consumers:
                cc.poll(0)
            time.sleep(0.02)
    consumed = 0
    deadline = time.monotonic() + args.timeout
    while consumed < records and time.monotonic() < deadline:
        for c in consumers:
            for msg in c.consume(500, 0.01):
                if msg.error() is None:
                    consumed += 1
    until = time.monotonic() + 2.5  # one more statistics round
    while time.monotonic() < until:
        for c in consumers:
            c.poll(0.01)
    owned = {i: sorted(tp.partition for tp in c.assignment()) for i, c in enumerate(consumers)}
    cpu = _broker_cpu() - cpu0
    elapsed = time.monotonic() - began
    for c in consumers:
        c.close()
    placement = _placement(args.partitions, skew=True)
    cross_parts = sum(
        1 for i, ps in owned.items() for p in ps
        if RACKS[i % 3] not in {racks[b] for b in placement[p]}
    )
    total_bytes = cross_bytes = 0
    for i, per in stats.items():
        for p, (broker, rx) in per.items():
            if p in owned.get(i, []):
                total_bytes += rx
                cross_bytes += rx if racks.get(broker) != RACKS[i % 3] else 0
    loads = [len(ps) for ps in owned.values()]
    return {
        "assignor": assignor, "consumed": consumed, "assigned": sum(loads),
        "max_load": max(loads), "min_load": min(loads),
        "cross_rack_partitions": cross_parts,
        "cross_rack_bytes": cross_bytes, "fetched_bytes": total_bytes,
        "cross_rack_bytes_pct": round(100 * cross_bytes / total_bytes, 1) if total_bytes else None,
        "broker_cpu_s": round(cpu, 1), "elapsed_s": round(elapsed, 1),
    }


def _warm_up(bootstrap: str, topic: str, timeout: float = 60) -> None:
    """A steady state, not a cold start: three members of a throwaway rackwise group until
    they are assigned, so the agent knows the topic and every broker's plug-in has started
    its clients; then longer than rackwise.backoff.ms (10 s), so a slow first answer leaves
    no back-off behind. (A cold start is measured separately: see bench/README.md.)"""
    group = f"{topic}-warm"
    members = [Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "group.protocol": "consumer", "group.remote.assignor": "rackwise",
                         "client.rack": RACKS[i]}) for i in range(3)]
    for m in members:
        m.subscribe([topic])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(m.assignment() for m in members):
        for m in members:
            m.poll(0.05)
    for m in members:
        m.close()
    time.sleep(11)


def _broker_verdicts(group: str) -> dict[str, Any]:
    """How often the brokers' plug-in used the agent's plan for ``group``, and how often it
    fell back, from the local testbed's broker logs (absent on another cluster)."""
    logs = list((ROOT / ".testbed" / "logs").glob("*/server.log"))
    if not logs:
        return {}
    used = fallbacks = 0
    last = ""
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if f"rackwise: group {group} " not in line:
                continue
            if "uses the agent's plan" in line:
                used += 1
                last = max(last, line[:25] + " plan")
            elif "falls back" in line:
                fallbacks += 1
                last = max(last, line[:25] + " fallback")
    return {"plans_used": used, "fallbacks": fallbacks,
            "last_verdict": last.rsplit(" ", 1)[-1] if last else None}


def live(args: argparse.Namespace) -> dict[str, Any]:
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    racks = {int(b.id): b.rack for b in admin.describe_cluster().result(30).nodes}
    prefix = f"bench-live-{uuid.uuid4().hex[:6]}"
    topic = f"{prefix}-data"
    _create(admin, topic, _placement(args.partitions, skew=True))
    rng = random.Random(args.seed)
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 20})
    records = args.partitions * args.records_per_partition
    for i in range(records):
        producer.produce(topic, value=rng.randbytes(100), partition=i % args.partitions)
        if i % 10000 == 0:
            producer.poll(0)
    producer.flush(60)
    agent, tmp = _start_agent(args.bootstrap, prefix)
    out = {}
    try:
        _wait_ready(agent, tmp / "agent.log", 3)
        _warm_up(args.bootstrap, topic)
        for assignor in ("rackwise", "uniform", "range"):
            row = _live_group(args, topic, assignor, racks, records)
            row.update(_broker_verdicts(f"{topic}-{assignor}") if assignor == "rackwise" else {})
            out[assignor] = row
            print(json.dumps(row), flush=True)
    finally:
        _stop(agent)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["latency", "live"])
    ap.add_argument("--bootstrap", default=os.environ.get("RACKWISE_BOOTSTRAP", BOOTSTRAP))
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--settle", type=float, default=20,
                    help="seconds between creating a size's topic and its first request")
    ap.add_argument("--members", type=int, default=30)
    ap.add_argument("--partitions", type=int, default=600)
    ap.add_argument("--records-per-partition", type=int, default=50)
    ap.add_argument("--join-gap", type=float, default=0.3)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    args.sizes = [int(s) for s in str(args.sizes).split(",")]
    args.seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"seed={args.seed}", flush=True)
    result = latency(args) if args.mode == "latency" else live(args)
    print(json.dumps({"mode": args.mode, "seed": args.seed, **result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
