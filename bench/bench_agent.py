"""Agent benchmark: one agent, 1,000 groups x 10 members heartbeating every 3 s, on the testbed.

The agent runs as a real ``rackwise agent run`` subprocess with its own topics. Members are
simulated by one producer that writes exactly what agent.member.follower.PlanFollower writes (v3
subscriptions keyed ``<group>/<member>``, routed by group id), re-published every 3 s.
During the measured phase a random group changes every ``--change-every`` seconds (a member
joins, or the newest one leaves); latency is from just before that record is produced to
the moment a plan of a newer generation for the group is read from the plans topic.
CPU (user+system of the agent process) and RSS (VmRSS now, VmHWM peak) come from /proc.

    .venv/bin/python bench/bench_agent.py                    # 1,000 x 10, 60 s measured
    .venv/bin/python bench/bench_agent.py --groups 100 --seconds 20   # quick
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from agent.dev.isolated import isolated_agent_config  # noqa: E402
from protocol.consumer import encode_subscription, java_subscription  # noqa: E402
from protocol.plan import AssignmentPlan  # noqa: E402
from protocol.routing import KIND_HEADER, group_partition, member_key  # noqa: E402

BOOTSTRAP = "127.0.0.1:19092,127.0.0.1:29092,127.0.0.1:39092"
TOPICS = 10
PARTITIONS = 12
RACKS = ("az1", "az2", "az3")


def proc_stats(pid: int) -> tuple[float, int, int]:
    """(cpu seconds user+system, VmRSS bytes, VmHWM bytes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    status = Path(f"/proc/{pid}/status").read_text()
    mem = {
        line.split(":")[0]: int(line.split()[1]) * 1024
        for line in status.splitlines()
        if line.startswith(("VmRSS", "VmHWM"))
    }
    return cpu, mem.get("VmRSS", 0), mem.get("VmHWM", 0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", default=os.environ.get("RACKWISE_BOOTSTRAP", BOOTSTRAP))
    ap.add_argument("--groups", type=int, default=1000)
    ap.add_argument("--members", type=int, default=10)
    ap.add_argument("--heartbeat", type=float, default=3.0)
    ap.add_argument("--seconds", type=float, default=60.0, help="measured phase")
    ap.add_argument("--change-every", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"seed={seed}", flush=True)
    rng = random.Random(seed)
    prefix = f"bench-agent-{uuid.uuid4().hex[:6]}"

    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    data_topics = [f"{prefix}-t{i}" for i in range(TOPICS)]
    new = [
        NewTopic(
            t,
            num_partitions=PARTITIONS,
            replica_assignment=[
                [1 + (p % 3), 1 + ((p + 1 + (i % 2)) % 3)] for p in range(PARTITIONS)
            ],
        )
        for i, t in enumerate(data_topics)
    ]
    for f in admin.create_topics(new, operation_timeout=30).values():
        f.result(40)

    cfg = isolated_agent_config(
        args.bootstrap, prefix, partitions=6,
        instance_id=prefix,
        transactional_id_prefix=prefix,
        advice={"topics": ["*"]},  # the agent's default: measure and advise every topic
        input={"session_timeout_ms": 30000},
        metadata={"interval_s": 30, "debounce_s": 60},
        ops={"port": 0},
        log={"level": "WARNING", "format": "json"},
    )
    tmp = Path(tempfile.mkdtemp(prefix="bench-agent-"))
    (tmp / "agent.json").write_text(json.dumps(cfg))
    log = open(tmp / "agent.log", "wb")  # noqa: SIM115
    agent = subprocess.Popen(
        [str(ROOT / ".venv/bin/rackwise"), "agent", "run", "--config", str(tmp / "agent.json")],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    try:
        return run(args, rng, seed, prefix, cfg, agent, data_topics, tmp)
    finally:
        agent.terminate()
        try:
            agent.wait(60)
        except subprocess.TimeoutExpired:
            agent.kill()
        log.close()


def run(
    args: argparse.Namespace,
    rng: random.Random,
    seed: int,
    prefix: str,
    cfg: dict,
    agent: subprocess.Popen,
    data_topics: list[str],
    tmp: Path,
) -> int:
    subs, plans_topic = cfg["topics"]["subscriptions"], cfg["topics"]["plans"]
    nparts = cfg["topics"]["partitions"]
    # Wait until the agent created its topics.
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    deadline = time.monotonic() + 60
    while plans_topic not in admin.list_topics(timeout=10).topics:
        if time.monotonic() > deadline or agent.poll() is not None:
            raise SystemExit(f"agent did not start; see {tmp / 'agent.log'}")
        time.sleep(0.5)
    time.sleep(3)
    producer = Producer(
        {
            "bootstrap.servers": args.bootstrap,
            "linger.ms": 20,
            "queue.buffering.max.messages": 1_000_000,
        }
    )
    reader = Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": f"{prefix}-reader",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    reader.subscribe([plans_topic])

    groups = [f"g{i:04d}" for i in range(args.groups)]
    members: dict[str, list[str]] = {g: [f"m{j}" for j in range(args.members)] for g in groups}
    topic_of = {g: data_topics[i % len(data_topics)] for i, g in enumerate(groups)}
    values: dict[tuple[str, str], bytes] = {}
    next_member = {g: args.members for g in groups}

    def value(g: str, m: str) -> bytes:
        key = (g, m)
        if key not in values:
            rack = RACKS[int(m[1:]) % 3]
            values[key] = encode_subscription(java_subscription([topic_of[g]], rack_id=rack), 3)
        return values[key]

    def publish(g: str, m: str, tombstone: bool = False) -> None:
        while True:
            try:
                producer.produce(
                    subs,
                    key=member_key(g, m),
                    value=None if tombstone else value(g, m),
                    partition=group_partition(g, nparts),
                    headers=[(KIND_HEADER, b"consumer")],
                )
                return
            except BufferError:
                producer.poll(0.05)

    latest: dict[str, int] = {}

    def drain(timeout: float) -> list[tuple[str, int, float]]:
        out = []
        for msg in reader.consume(1000, timeout):
            if msg.error():
                continue
            plan = AssignmentPlan.from_json(msg.value())
            latest[plan.group_id] = max(latest.get(plan.group_id, 0), plan.generation)
            out.append((plan.group_id, plan.generation, time.monotonic()))
        return out

    # Phase 1: every member joins; wait for a plan of every group.
    t0 = time.monotonic()
    for g in groups:
        for m in members[g]:
            publish(g, m)
    producer.flush(60)
    while len(latest) < len(groups) and time.monotonic() - t0 < 180:
        drain(0.5)
    print(
        f"initial plans for {len(latest)}/{len(groups)} groups in {time.monotonic() - t0:.1f} s",
        flush=True,
    )

    # Phase 2: heartbeats for everyone, plus a change every --change-every seconds.
    cpu0, _, _ = proc_stats(agent.pid)
    start = time.monotonic()
    pending: dict[str, tuple[int, float]] = {}
    latencies: list[float] = []
    rss_samples: list[int] = []
    hb_order = [(g, m) for g in groups for m in members[g]]
    hb_rate = len(hb_order) / args.heartbeat
    sent_hb = 0
    next_change = start
    while time.monotonic() - start < args.seconds:
        now = time.monotonic()
        due = int((now - start) * hb_rate)
        while sent_hb < due:
            g, m = hb_order[sent_hb % len(hb_order)]
            if m in members[g]:
                publish(g, m)
            sent_hb += 1
        if now >= next_change:
            next_change += args.change_every
            g = rng.choice([x for x in groups if x not in pending] or groups)
            if g not in pending:
                if len(members[g]) > args.members or rng.random() < 0.5 and len(members[g]) > 1:
                    m = members[g].pop()
                    tomb = True
                else:
                    m = f"m{next_member[g]}"
                    next_member[g] += 1
                    members[g].append(m)
                    hb_order.append((g, m))
                    tomb = False
                pending[g] = (latest.get(g, 0), time.monotonic())
                publish(g, m, tombstone=tomb)
                producer.poll(0)
        for gid, gen, seen in drain(0.02):
            if gid in pending and gen > pending[gid][0]:
                latencies.append(seen - pending.pop(gid)[1])
        producer.poll(0)
        if int(now - start) > len(rss_samples):
            rss_samples.append(proc_stats(agent.pid)[1])
    elapsed = time.monotonic() - start
    cpu1, rss, hwm = proc_stats(agent.pid)
    producer.flush(30)
    reader.close()
    lat = sorted(latencies)
    q = (
        statistics.quantiles(lat, n=100, method="inclusive")
        if len(lat) >= 2
        else [float("nan")] * 99
    )
    result = {
        "groups": args.groups,
        "members_per_group": args.members,
        "heartbeat_s": args.heartbeat,
        "heartbeats_per_s": round(sent_hb / elapsed, 1),
        "measured_s": round(elapsed, 1),
        "changes": len(lat) + len(pending),
        "plans_measured": len(lat),
        "unanswered": len(pending),
        "agent_cpu_cores": round((cpu1 - cpu0) / elapsed, 3),
        "agent_rss_mib": round(rss / 2**20, 1),
        "agent_peak_rss_mib": round(hwm / 2**20, 1),
        "latency_p50_ms": round(q[49] * 1000, 1),
        "latency_p99_ms": round(q[98] * 1000, 1),
        "latency_max_ms": round(max(lat) * 1000, 1) if lat else None,
        "seed": seed,
    }
    print(json.dumps(result, indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
