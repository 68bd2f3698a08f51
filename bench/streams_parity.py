"""Run Kafka's own HighAvailabilityTaskAssignor (kafka-streams 4.3.1) on our streams inputs.

``run_kafka`` exports validated :class:`StreamsInputs` to the JSON the Java harness in
bench/java/streams-harness reads, runs it, and maps the answer back to process ids.
``evaluate`` scores any assignment (ours or Kafka's) with one function, so both sides are
judged on exactly the same objective:

* active_traffic: source partitions of actives with no replica in the client's rack
  (KIP-925's active cost with traffic_cost 1, non-overlap 0);
* standby_traffic: changelog partitions of standbys with no replica in the client's rack;
* balance: max - min active tasks per thread, and the worst per-subtopology spread.

Process ids map to UUIDs 00000000-0000-0000-0000-<index> in our client order, so Java's
``UUID.compareTo`` orders clients exactly as we do.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from assignor.streams.model import TaskId
from assignor.streams.scenario import StreamsInputs
from assignor.streams.state import ClientState
from tests import javaharness

PROJECT = "bench/java/streams-harness"
MAIN = "dev.rackwise.bench.StreamsHarness"


@dataclass(frozen=True)
class KafkaRun:
    active: dict[str, set[TaskId]]
    standby: dict[str, set[TaskId]]
    probing: bool
    rack_enabled: bool
    millis: list[float]
    wall_s: float


def harness_input(inputs: StreamsInputs, repeat: int = 1) -> tuple[dict[str, Any], dict[str, str]]:
    order = sorted((c.process_id for c in inputs.clients), key=lambda p: ClientState(p, 1).key)
    uuid_of = {pid: str(uuid.UUID(int=i + 1)) for i, pid in enumerate(order)}
    changelog_names = {tp.topic for parts in inputs.tasks.changelog.values() for tp in parts}
    view = inputs.view
    topics = {
        t: [list(r) for r in view.topics[t]]
        for t in sorted(view.topics)
        if t not in changelog_names
    }
    changelogs = {
        t: [list(r) for r in view.topics[t]] for t in sorted(view.topics) if t in changelog_names
    }
    cfg = inputs.config
    doc = {
        "config": {
            "acceptable_recovery_lag": cfg.acceptable_recovery_lag,
            "max_warmup_replicas": cfg.max_warmup_replicas,
            "num_standby_replicas": cfg.num_standby_replicas,
            "probing_rebalance_interval_ms": cfg.probing_rebalance_interval_ms,
            "tags": list(cfg.rack_aware_assignment_tags),
            "traffic_cost": cfg.rack_aware_assignment_traffic_cost,
            "non_overlap_cost": cfg.rack_aware_assignment_non_overlap_cost,
            "strategy": cfg.rack_aware_assignment_strategy,
        },
        "brokers": {str(b): view.brokers[b] for b in sorted(view.brokers)},
        "topics": topics,
        "changelog_topics": changelogs,
        "tasks": [
            {
                "id": str(t),
                "stateful": t in inputs.tasks.stateful,
                "source": [[tp.topic, tp.partition] for tp in inputs.tasks.source[t]],
                "changelog": [[tp.topic, tp.partition] for tp in inputs.tasks.changelog[t]],
            }
            for t in inputs.tasks.all
        ],
        "clients": [
            {
                "uuid": uuid_of[c.process_id],
                "rack": c.rack,
                "threads": c.threads,
                "tags": dict(c.tags),
                "lags": {str(t): v for t, v in sorted(c.lags.items())},
                "prev_active": [str(t) for t in sorted(c.prev_active)],
                "prev_standby": [str(t) for t in sorted(c.prev_standby)],
            }
            for c in inputs.clients
        ],
        "repeat": repeat,
    }
    return doc, uuid_of


def run_kafka(
    inputs: StreamsInputs, repeat: int = 1, heap: str = "-Xmx2g", timeout: float = 1800
) -> KafkaRun:
    doc, uuid_of = harness_input(inputs, repeat)
    pid_of = {u: p for p, u in uuid_of.items()}
    start = time.perf_counter()
    proc = javaharness.run(PROJECT, MAIN, stdin=json.dumps(doc), heap=heap, timeout=timeout)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout)
    active = {pid_of[c["uuid"]]: {TaskId.parse(t) for t in c["active"]} for c in out["clients"]}
    standby = {pid_of[c["uuid"]]: {TaskId.parse(t) for t in c["standby"]} for c in out["clients"]}
    return KafkaRun(
        active,
        standby,
        bool(out["probing"]),
        bool(out["rack_enabled"]),
        [float(m) for m in out["millis"]],
        wall,
    )


def evaluate(
    inputs: StreamsInputs, active: dict[str, set[TaskId]], standby: dict[str, set[TaskId]]
) -> dict[str, Any]:
    """Score an assignment: traffic (actives, standbys) and balance, identically for both sides."""
    view = inputs.view
    rack = {c.process_id: c.rack for c in inputs.clients}
    threads = {c.process_id: c.threads for c in inputs.clients}

    def cross(pid: str, parts: Any) -> int:
        return sum(
            1
            for tp in parts
            if tp.topic in view.topics
            and tp.partition < view.partition_count(tp.topic)
            and view.is_cross_rack(tp.topic, tp.partition, rack[pid])
        )

    active_traffic = sum(cross(p, inputs.tasks.source[t]) for p in active for t in active[p])
    standby_traffic = sum(cross(p, inputs.tasks.changelog[t]) for p in standby for t in standby[p])
    per_thread = [len(active[p]) / threads[p] for p in active]
    subs: dict[int, dict[str, int]] = {}
    for p in active:
        for t in active[p]:
            subs.setdefault(t.subtopology, dict.fromkeys(active, 0))[p] += 1
    skew = max((max(v.values()) - min(v.values()) for v in subs.values()), default=0)
    return {
        "active_traffic": active_traffic,
        "standby_traffic": standby_traffic,
        "total_traffic": active_traffic + standby_traffic,
        "active_spread": round(max(per_thread) - min(per_thread), 6),
        "subtopology_skew": skew,
        "standbys": sum(len(s) for s in standby.values()),
    }
