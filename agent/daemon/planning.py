"""From a group's state to a plan: pick the assignor, build a DESIGN §4 scenario, enforce hand-over.

The agent plans exactly as ``rackwise plan`` does (``assignor.scenario.plan_from_scenario``),
then applies the cooperative rule of DESIGN §5 whatever the assignor: a partition is never
given to a member while another live member still reports it in OwnedPartitions; it goes to
``withheld`` (owner, target) and a follow-up plan hands it over once the owner re-publishes
without it.

Example: c1 owns t-0, the assignor gives t-0 to c2 ->
``withheld=[{topic: t, partition: 0, owner: c1, target: c2}]`` and c2's partitions omit t-0.
"""

from __future__ import annotations

import fnmatch
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from agent.daemon.state import GroupState, MemberState, Partition, may_hold, pick_reason
from agent.settings import PlannerSettings
from assignor.cluster import ClusterView
from assignor.errors import AssignorError
from assignor.scenario import plan_from_scenario
from protocol.plan import AssignmentPlan, WithheldPartition


@dataclass(frozen=True)
class PlanJob:
    """Everything the worker needs to plan one group, copied out of the live state."""

    group_id: str
    partition: int
    kind: str
    generation: int
    reason: str
    assignor: str
    members: tuple[MemberState, ...]
    topics: tuple[str, ...]
    changes: tuple[dict[str, object], ...] = ()
    expired: tuple[str, ...] = ()
    dirty_since: float = 0.0
    previous: AssignmentPlan | None = None
    streams: Mapping[str, Any] = field(default_factory=dict)


def assignor_for(group_id: str, kind: str, settings: PlannerSettings) -> str:
    for rule in settings.rules:
        if fnmatch.fnmatchcase(group_id, rule.pattern):
            return rule.assignor
    return settings.streams_assignor if kind == "streams" else settings.consumer_assignor


def streams_setup(group_id: str, settings: PlannerSettings) -> dict[str, Any]:
    for pattern in sorted(settings.streams_topologies):
        if fnmatch.fnmatchcase(group_id, pattern):
            return {
                "topology": settings.streams_topologies[pattern],
                "config": dict(settings.streams_config),
            }
    return {}


def planned_topics(group_id: str, kind: str, subscribed: Iterable[str],
                   settings: PlannerSettings) -> tuple[str, ...]:
    """Every topic whose replica racks a group's plan depends on.

    For a consumer group these are its subscribed topics. A Streams group's standbys and
    warm-ups read changelog topics, so the configured topology's changelogs are watched
    and described too: without their racks the HA assignor must turn rack awareness off.
    """
    topics = set(subscribed)
    if kind == "streams":
        topology = streams_setup(group_id, settings).get("topology") or {}
        for sub in topology.get("subtopologies") or []:
            if isinstance(sub, Mapping):
                topics.update(str(t) for t in sub.get("changelog_topics") or [])
    return tuple(sorted(topics))


def take_job(group: GroupState, settings: PlannerSettings, topics: tuple[str, ...]) -> PlanJob:
    """The next job for ``group``: copies what the worker needs and resets the group's dirty
    bookkeeping (the caller owns ``group``: the agent's poll loop)."""
    generation = group.next_generation()
    job = PlanJob(
        group_id=group.group_id,
        partition=group.partition,
        kind=group.kind,
        generation=generation,
        reason=pick_reason(group.dirty),
        assignor=assignor_for(group.group_id, group.kind, settings),
        # Withhold what a member may hold from a plan it has not confirmed yet, too.
        members=tuple(
            replace(group.members[m], owned=may_hold(group.members[m], group.last_plan))
            for m in sorted(group.members)
        ),
        topics=topics,
        changes=tuple(group.changes),
        expired=tuple(group.expired),
        dirty_since=group.dirty_since or time.monotonic(),
        previous=group.last_plan,
        streams=streams_setup(group.group_id, settings) if group.kind == "streams" else {},
    )
    group.in_flight = generation
    group.dirty.clear()
    group.changes = []
    group.expired = []
    group.dirty_since = None
    return job


def scenario_document(job: PlanJob, view: ClusterView) -> dict[str, Any]:
    """The DESIGN §4 scenario for the job's group over the given placement."""
    group: dict[str, Any] = {
        "id": job.group_id,
        "kind": job.kind,
        "assignor": job.assignor,
        "generation": job.generation,
        "reason": job.reason,
    }
    if job.kind == "streams":
        group.update(_streams_group(job))
    else:
        group["members"] = [
            m.scenario_member() for m in sorted(job.members, key=lambda m: m.member_id)
        ]
    return {"cluster": view.to_dict(), "group": group}


def _streams_group(job: PlanJob) -> dict[str, Any]:
    from protocol.streams import decode_subscription_info

    if "topology" not in job.streams:
        raise AssignorError(
            f"streams group {job.group_id}: no topology configured (planner.streams_topologies)"
        )
    clients: dict[str, dict[str, Any]] = {}
    for m in sorted(job.members, key=lambda m: m.member_id):
        info = decode_subscription_info(m.user_data or b"")
        pid = str(info.process_id or uuid.UUID(int=0))
        entry = clients.setdefault(
            pid,
            {
                "process_id": pid,
                "rack": m.rack,
                "threads": 0,
                "task_offset_sums": {},
                "client_tags": {},
            },
        )
        entry["threads"] += 1
        for task, offset in info.offset_sums().items():
            entry["task_offset_sums"][str(task)] = offset
        entry["client_tags"].update(info.tags())
    return {
        "topology": job.streams["topology"],
        "config": job.streams.get("config") or {},
        "clients": [clients[p] for p in sorted(clients)],
    }


def enforce_withholding(
    plan: AssignmentPlan, owned: Mapping[str, frozenset[Partition]]
) -> AssignmentPlan:
    """Move every partition still owned by another live member into ``withheld``."""
    owners: dict[Partition, list[str]] = {}
    for member_id, parts in owned.items():
        for tp in parts:
            owners.setdefault(tp, []).append(member_id)
    withheld = {(w.topic, w.partition): w for w in plan.withheld}
    members = []
    for mp in plan.members:
        keep = []
        for pp in mp.partitions:
            others = sorted(
                o for o in owners.get((pp.topic, pp.partition), ()) if o != mp.member_id
            )
            if others:
                withheld[(pp.topic, pp.partition)] = WithheldPartition(
                    topic=pp.topic, partition=pp.partition, owner=others[0], target=mp.member_id
                )
            else:
                keep.append(pp)
        members.append(
            mp if len(keep) == len(mp.partitions) else mp.model_copy(update={"partitions": keep})
        )
    if len(withheld) == len(plan.withheld) and members == plan.members:
        return plan
    return plan.model_copy(
        update={"members": members, "withheld": [withheld[k] for k in sorted(withheld)]}
    )


def compute_plan(job: PlanJob, view: ClusterView) -> AssignmentPlan:
    """The plan for one job (raises AssignorError on input the assignor rejects)."""
    doc = scenario_document(job, view)
    plan = plan_from_scenario(doc, assignor=job.assignor)
    plan = plan.model_copy(
        update={"generation": job.generation, "reason": job.reason, "created_at": datetime.now(UTC)}
    )
    if job.kind != "streams":
        plan = enforce_withholding(plan, {m.member_id: m.owned for m in job.members})
    return plan


def cross_rack_count(plan: AssignmentPlan) -> int:
    return sum(1 for m in plan.members for p in m.partitions if p.cross_rack)
