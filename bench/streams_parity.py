"""Run Kafka's own HighAvailabilityTaskAssignor (kafka-streams 4.3.1) on our streams inputs.

``run_kafka`` exports validated :class:`StreamsInputs` to the JSON the Java harness in
bench/java/streams-harness reads, runs it, and maps the answer back to process ids.
``evaluate`` scores any assignment (ours or Kafka's) with one function, so both sides are
judged on exactly the same objective:

* active_traffic: source partitions of actives with no replica in the client's rack
  (KIP-925's active cost with traffic_cost 1, non-overlap 0);
* standby_traffic: changelog partitions of standbys with no replica in the client's rack;
* balance: max - min active tasks per thread, and the worst per-subtopology spread.

``standby_step`` scores the rack-aware standby step on its own: it rebuilds the step's
input (the standby placement Kafka's default / KIP-708 assignor plus balancing makes for
given stateful actives) and prices any standby result against it with the step's objective
(traffic_cost x cross-rack changelog partitions + non_overlap_cost x copies moved off the
start). Feeding it Kafka's actives compares both standby optimisers on the same input, which
pipeline-level standby traffic does not do when the active step has tied optima.

``parity_case(seed, strategy)`` draws the cost-parity scenarios and ``none_case(seed, tags)``
the strategy-none identity scenarios used by the test and by ``bench/streams_parity_sweep.py``;
``active_step_objective`` and ``subtopology_caps_violated`` judge the stateful-active step
on Kafka's own objective and ``balance_subtopology`` constraints.

Process ids map to UUIDs 00000000-0000-0000-0000-<index> in our client order, so Java's
``UUID.compareTo`` orders clients exactly as we do.
"""

from __future__ import annotations

import json
import math
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any

from assignor.scenario.streams import parse_inputs
from assignor.streams.ha import place_standbys
from assignor.streams.model import StreamsInputs
from assignor.streams.rack import rack_context
from assignor.streams.rackstandby import optimize_standby
from assignor.streams.state import ClientState
from bench.streams_gen import generate
from protocol.streams import TaskId
from tests.support import javaharness

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


def parity_case(seed: int, strategy: str) -> StreamsInputs:
    """The random fresh-state scenario of the cost-parity test for ``seed``."""
    rng = random.Random(seed)
    doc = generate(
        seed,
        tasks=rng.randint(6, 40),
        clients=rng.randint(2, 8),
        racks=rng.randint(2, 3),
        standbys=rng.randint(0, 2),
        strategy=strategy,
        subtopologies=rng.randint(1, 3),
        source_partitions=rng.randint(1, 2),
    )
    return parse_inputs(doc)


def none_case(seed: int, tags: bool) -> StreamsInputs:
    """The random strategy-``none`` scenario of the identity test for ``seed`` (lags,
    warm-ups, several threads; KIP-708 client tags when ``tags``)."""
    rng = random.Random(seed)
    doc = generate(
        seed,
        tasks=rng.randint(4, 20),
        clients=rng.randint(1, 6),
        standbys=rng.randint(0, 2),
        strategy="none",
        lagged=True,
        tags=tags,
        subtopologies=rng.randint(1, 3),
    )
    return parse_inputs(doc)


def active_step_objective(
    inputs: StreamsInputs, active: dict[str, set[TaskId]], start: dict[TaskId, str]
) -> int:
    """KIP-925's objective of the stateful-active step (HA defaults: traffic 10,
    non-overlap 1) for the stateful tasks in ``start`` (task -> client before the step)."""
    view, rack = inputs.view, {c.process_id: c.rack for c in inputs.clients}
    total = 0
    for pid, tasks in active.items():
        for t in tasks & set(start):
            total += 10 * sum(
                view.is_cross_rack(tp.topic, tp.partition, rack[pid] or "")
                for tp in inputs.tasks.source[t]
            )
            total += 0 if start[t] == pid else 1
    return total


def subtopology_caps_violated(inputs: StreamsInputs, active: dict[str, set[TaskId]]) -> str:
    """Why ``active`` lies outside Kafka's ``balance_subtopology`` graph ('' if inside).

    ``BalanceSubtopologyGraphConstructor``: each optimisation step (stateful actives, then
    stateless actives) keeps every client's count n_c of the step's T tasks and allows at
    most ceil(n_c * 1.0 / T * T_s) tasks of subtopology s on client c. This is the only
    balance in Kafka's objective (no cost term). With fresh state nothing moves after the
    steps, so n_c is also the count in the final assignment.
    """
    for stateful in (True, False):
        step = {
            p: {t for t in tasks if (t in inputs.tasks.stateful) == stateful}
            for p, tasks in active.items()
        }
        total = sum(len(tasks) for tasks in step.values())
        per_sub: dict[int, int] = {}
        for tasks in step.values():
            for t in tasks:
                per_sub[t.subtopology] = per_sub.get(t.subtopology, 0) + 1
        for p, tasks in step.items():
            for sub, size in sorted(per_sub.items()):
                held = sum(1 for t in tasks if t.subtopology == sub)
                cap = math.ceil(len(tasks) * 1.0 / total * size)
                if held > cap:
                    return f"{p}: {held} tasks of subtopology {sub}, Kafka's cap {cap}"
    return ""


@dataclass(frozen=True)
class StandbyStep:
    """The rack-aware standby step for given stateful actives: its start and our optimum."""

    start: dict[str, set[TaskId]]
    ours: dict[str, set[TaskId]]
    misses: dict[TaskId, dict[str, int]]
    rack: dict[str, str]
    traffic: int
    non_overlap: int

    def cost(self, standby: dict[str, set[TaskId]]) -> int:
        """The step objective of a standby placement (relative to ``start``)."""
        return sum(
            self.traffic * self.misses[t][self.rack[p]]
            + (0 if t in self.start.get(p, set()) else self.non_overlap)
            for p, tasks in standby.items()
            for t in tasks
        )

    def feasible(self, active: dict[str, set[TaskId]], standby: dict[str, set[TaskId]]) -> str:
        """Why ``standby`` is outside the step's feasible set ('' if it is inside)."""
        for p, tasks in self.start.items():
            if len(standby.get(p, set())) != len(tasks):
                return f"{p} holds {len(standby.get(p, set()))} standbys, start has {len(tasks)}"
            if both := standby.get(p, set()) & active.get(p, set()):
                return f"{p} holds active and standby of {sorted(map(str, both))}"
        return ""


def standby_step(inputs: StreamsInputs, active: dict[str, set[TaskId]]) -> StandbyStep:
    """Replay our standby placement + rack optimisation from ``active``'s stateful tasks
    (fresh state, rack awareness enabled, standbys configured)."""
    states = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
    order = sorted(states, key=lambda p: states[p].key)
    cfg = inputs.config
    ctx = rack_context(inputs.view, inputs.tasks, list(states.values()), cfg)
    if not ctx.enabled or cfg.num_standby_replicas == 0:
        raise ValueError("standby_step needs rack awareness on and standbys configured")
    for pid, tasks in active.items():
        for task in sorted(tasks & inputs.tasks.stateful):
            states[pid].assign_active(task)
    stateful = sorted(inputs.tasks.stateful)
    place_standbys(states, order, stateful, cfg)
    start = {p: set(states[p].standby) for p in order}
    optimize_standby(
        states,
        order,
        ctx,
        cfg.traffic_cost,
        cfg.non_overlap_cost,
        bool(cfg.rack_aware_assignment_tags),
    )
    return StandbyStep(
        start,
        {p: set(states[p].standby) for p in order},
        {t: dict(m) for t, m in ctx.standby_misses.items()},
        {p: states[p].rack or "" for p in order},
        cfg.traffic_cost,
        cfg.non_overlap_cost,
    )
