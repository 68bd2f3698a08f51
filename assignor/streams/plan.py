"""Turn an HA result into an AssignmentPlan (docs/architecture.md § The plan) and its comparison metrics.

Members are Streams processes in Kafka's client order; each lists its active, standby and
warm-up tasks, and as ``partitions`` the source partitions of its actives (so the CRT
metrics see what the client actually reads). Summary figures:

* traffic_cost / cross_rack_partitions: active source partitions with no replica in the
  client's rack (unknown racks never count);
* lower_bound: the least such count reachable with the same active count per client
  (min-cost flow), or null when some rack is unknown;
* max_load / min_load: active tasks per client; moved_partitions: source partitions of
  actives whose process changed since the previous plan;
* standby_rack_diversity: mean distinct racks over each stateful task's copies.

When the cluster view carries measured traffic, the plan also carries the bytes figures of
assignor.cost (assignor.summary.annotate) and ``lower_bound_bytes_per_s``: the least
cross-rack bytes/s of active tasks with the same per-client counts
(assignor.streams.bytesbound).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from assignor.cost import place_of
from assignor.streams.bytesbound import active_bytes_bound
from assignor.streams.ha import HAResult
from assignor.streams.model import StreamsInputs
from assignor.streams.rack import rack_context, solve_active
from assignor.streams.state import ClientState
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanReason, PlanSummary
from protocol.streams import TaskId


def build_plan(
    inputs: StreamsInputs, result: HAResult, reason: PlanReason, assignor: str
) -> AssignmentPlan:
    """The plan of one HA result (generation and reason were decided by assignor.api)."""
    view, tasks = inputs.view, inputs.tasks
    members = []
    prev_owner = {t: c.process_id for c in inputs.clients for t in c.prev_active}
    moved = cross = parts = 0
    for pid in result.order:
        state = result.clients[pid]
        warm = result.warmups.get(pid, set())
        partitions = []
        for task in sorted(state.active):
            for tp in tasks.source[task]:
                is_cross = view.is_cross_rack(tp.topic, tp.partition, state.rack)
                partitions.append(
                    PartitionPlan(
                        topic=tp.topic,
                        partition=tp.partition,
                        replica_racks=list(view.racks(tp.topic, tp.partition)),
                        cross_rack=is_cross,
                    )
                )
                cross += is_cross
                parts += 1
            if task in prev_owner and prev_owner[task] != pid:
                moved += len(tasks.source[task])
        members.append(
            MemberPlan(
                member_id=pid,
                rack=state.rack,
                process_id=pid,
                partitions=sorted(partitions, key=lambda p: (p.topic, p.partition)),
                active_tasks=[str(t) for t in sorted(state.active)],
                standby_tasks=[str(t) for t in sorted(state.standby - warm)],
                warmup_tasks=[str(t) for t in sorted(warm & state.standby)],
            )
        )
    counts = [len(result.clients[p].active) for p in result.order]
    config: dict[str, Any] = inputs.config.to_dict()
    config["rack_aware_enabled"] = result.rack_enabled
    config["rack_aware_reason"] = result.rack_reason
    if inputs.ignored_lags:
        config["ignored_task_lags"] = list(inputs.ignored_lags)
    summary = PlanSummary(
        partitions=parts,
        cross_rack_partitions=cross,
        traffic_cost=float(cross),
        lower_bound=_lower_bound(inputs, result),
        max_load=max(counts),
        min_load=min(counts),
        moved_partitions=moved,
        standby_rack_diversity=_diversity(inputs, result),
    )
    plan = AssignmentPlan(
        group_id=inputs.group_id,
        kind="streams",
        generation=inputs.generation,
        reason=reason,
        assignor=assignor,
        config=config,
        members=members,
        followup_ms=inputs.config.probing_rebalance_interval_ms if result.probing_needed else None,
        summary=summary,
    )
    bound = bytes_bound(inputs, result)
    if bound is None:
        return plan
    from assignor.summary import annotate

    return annotate(plan, view, lower_bound_bytes=bound)


def bytes_bound(inputs: StreamsInputs, result: HAResult,
                locations: Mapping[str, str | None] | None = None) -> float | None:
    """The least cross-rack bytes/s of the actives with this result's per-client counts
    (assignor.streams.bytesbound), or None when traffic is not measured."""
    places = {pid: place_of(inputs.view, c.rack, (locations or {}).get(pid))
              for pid, c in result.clients.items()}
    counts = {pid: len(c.active) for pid, c in result.clients.items()}
    return active_bytes_bound(inputs.view, inputs.tasks, counts, places)


def _lower_bound(inputs: StreamsInputs, result: HAResult) -> float | None:
    """Min cross-rack source partitions over placements with the same per-client counts."""
    states = list(result.clients.values())
    probe = replace(
        inputs.config, rack_aware_assignment_strategy="min_traffic", num_standby_replicas=0
    )
    ctx = rack_context(inputs.view, inputs.tasks, states, probe)
    if not ctx.enabled:
        return None
    solved = solve_active(
        result.clients, result.order, sorted(inputs.tasks.all), ctx, "min_traffic", 1, 0
    )
    return float(solved.cost)


def _diversity(inputs: StreamsInputs, result: HAResult) -> float | None:
    if inputs.config.num_standby_replicas == 0 or not inputs.tasks.stateful:
        return None
    states = result.clients.values()
    if any(not c.rack for c in states):
        return None
    racks: dict[TaskId, set[str]] = {t: set() for t in inputs.tasks.stateful}
    for c in states:
        warm = result.warmups.get(c.process_id, set())
        for t in c.active | (c.standby - warm):
            if t in racks:
                racks[t].add(c.rack or "")
    return round(sum(len(r) for r in racks.values()) / len(racks), 6)


def _standby_cross(inputs: StreamsInputs, result: HAResult) -> int:
    view = inputs.view
    total = 0
    for c in result.clients.values():
        for task in c.standby - result.warmups.get(c.process_id, set()):
            for tp in inputs.tasks.changelog[task]:
                if view.has_topic(tp.topic) and tp.partition < view.partition_count(tp.topic):
                    total += view.is_cross_rack(tp.topic, tp.partition, c.rack)
    return total


def _subtopology_skew(clients: dict[str, ClientState]) -> int:
    per: dict[int, dict[str, int]] = {}
    for pid, c in clients.items():
        for t in c.active:
            per.setdefault(t.subtopology, {p: 0 for p in clients})[pid] += 1
    return max((max(v.values()) - min(v.values()) for v in per.values()), default=0)


def metrics(
    inputs: StreamsInputs, plan: AssignmentPlan, result: HAResult | None = None
) -> dict[str, Any]:
    """The comparison row of one plan (compare's columns plus streams-specific ones)."""
    s = plan.summary
    row: dict[str, Any] = {
        "traffic_cost": s.traffic_cost,
        "cross_rack_partitions": s.cross_rack_partitions,
        "lower_bound": s.lower_bound,
        "max_load": s.max_load,
        "min_load": s.min_load,
        "moved_partitions": s.moved_partitions,
        "standby_rack_diversity": s.standby_rack_diversity,
        "rack_aware_enabled": plan.config.get("rack_aware_enabled"),
        "warmups": sum(len(m.warmup_tasks) for m in plan.members),
        "followup_ms": plan.followup_ms,
    }
    if result is not None:
        row["standby_cross_rack_partitions"] = _standby_cross(inputs, result)
        row["max_subtopology_skew"] = _subtopology_skew(result.clients)
    return row
