"""Auditing a Kafka Streams application: tasks, processes and topology from its assignment.

Classic protocol: members (stream threads) are grouped by process; each active task is
matched to the source partitions it was given, and the app's topology is derived from that
(or taken from the configured one). KIP-1071 ``streams`` groups: the coordinator's
StreamsGroupDescribe gives the topology and each member's tasks directly; a task
``<subtopology>_<p>`` reads partition p of each of its subtopology's source topics.
The recommendation is the HA assignor with ``min_traffic`` over those tasks.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent.audit.consumer import advice_for
from agent.audit.model import RACK_UNKNOWN, AuditOptions, Decoded, Describe, GroupAudit, check_known
from assignor.api import annotate, read_cost, streams_bytes_bound
from assignor.errors import AssignorError
from assignor.inputs import TopicPartition
from protocol.groupdescribe import DescribedStreamsGroup
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary


@dataclass
class _Process:
    pid: str
    rack: str | None = None
    threads: int = 0
    members: list[str] = field(default_factory=list)
    partitions: list[TopicPartition] = field(default_factory=list)
    active: set[tuple[int, int]] = field(default_factory=set)
    standby: set[tuple[int, int]] = field(default_factory=set)
    tags: dict[str, str] = field(default_factory=dict)
    host: str = ""


def _streams_processes(
    decoded: list[Decoded],
) -> tuple[dict[str, _Process], dict[tuple[int, int], set[TopicPartition]]]:
    """Group members (stream threads) by process; map each task to its source partitions."""
    procs: dict[str, _Process] = {}
    sources: dict[tuple[int, int], set[TopicPartition]] = {}
    for d in decoded:
        assert d.sub_info is not None and d.asg_info is not None
        if d.asg_info.error_code:
            raise AssignorError(
                f"member {d.member_id}: Streams assignment error code {d.asg_info.error_code}"
            )
        pid = str(d.sub_info.process_id or uuid.UUID(int=0))
        proc = procs.setdefault(pid, _Process(pid, d.sub.rack))
        proc.threads += 1
        proc.members.append(d.member_id)
        proc.tags.update(d.sub_info.tags())
        parts = d.assigned  # Streams zips its sorted partitions with the active task list
        tasks = [t.task() for t in d.asg_info.active_tasks]
        if len(tasks) != len(parts):
            raise AssignorError(
                f"member {d.member_id}: {len(parts)} partitions but {len(tasks)} active task"
                " entries in its AssignmentInfo"
            )
        for tp, task in zip(parts, tasks, strict=True):
            if task.topology:
                raise AssignorError("named topologies are not audited")
            key = (task.subtopology, task.partition)
            proc.active.add(key)
            sources.setdefault(key, set()).add(tp)
        proc.partitions.extend(parts)
        for task, tps in d.asg_info.standby_task_map().items():
            key = (task.subtopology, task.partition)
            proc.standby.add(key)
            sources.setdefault(key, set()).update(TopicPartition(t, p) for t, p in tps)
    return procs, sources


def _derived_topology(
    app: str,
    sources: Mapping[tuple[int, int], set[TopicPartition]],
    stateful: set[int],
    topic_names: Iterable[str],
    describe: Describe,
) -> dict[str, Any]:
    """A docs/architecture.md § Scenarios topology from what the app's assignment shows.

    Source topics per subtopology come from its tasks' partitions. Changelogs are the app's
    ``<application.id>-*-changelog`` topics; one is given to a stateful subtopology whose task
    count equals its partition count (the store-to-subtopology map is not visible outside).
    """
    by_sub: dict[int, set[str]] = {}
    for (sub, _p), tps in sources.items():
        by_sub.setdefault(sub, set()).update(tp.topic for tp in tps)
    changelogs = sorted(
        t for t in topic_names if t.startswith(f"{app}-") and t.endswith("-changelog")
    )
    view = describe(sorted({t for ts in by_sub.values() for t in ts} | set(changelogs)))
    subs = []
    for sub in sorted(by_sub):
        tasks = max(view.partition_count(t) for t in by_sub[sub]) if by_sub[sub] else 0
        logs = [c for c in changelogs if sub in stateful and view.partition_count(c) == tasks]
        subs.append(
            {"id": sub, "source_topics": sorted(by_sub[sub]), "changelog_topics": logs,
             "stateful": bool(logs)}
        )
    return {"subtopologies": subs}


def audit_streams(
    base: GroupAudit,
    decoded: list[Decoded],
    describe: Describe,
    topic_names: Callable[[], Iterable[str]],
    configured: Callable[[str], Mapping[str, Any] | None],
    overrides: Mapping[str, Any],
    options: AuditOptions | None = None,
    hosts: Mapping[str, str] | None = None,
) -> GroupAudit:
    """A classic-protocol Streams app, from its members' decoded user data."""
    procs, sources = _streams_processes(decoded)
    for proc in procs.values():
        proc.host = next((hosts or {}).get(m, "") for m in sorted(proc.members))
    stateful_subs = {s for p in procs.values() for (s, _p) in p.standby}
    for d in decoded:
        assert d.sub_info is not None
        stateful_subs.update(t.subtopology for t in d.sub_info.offset_sums())
    topo_doc = configured(base.group) or _derived_topology(
        base.group, sources, stateful_subs, topic_names(), describe
    )
    return _measure(replace(base, members=len(decoded)), procs, topo_doc, describe, overrides,
                    options or AuditOptions())


def _subtopology(sid: str) -> int:
    if not sid.isdigit():
        raise AssignorError(f"subtopology id {sid!r} is not a number (named topologies are "
                            "not audited)")
    return int(sid)


def audit_streams_group(
    base: GroupAudit,
    desc: DescribedStreamsGroup,
    describe: Describe,
    configured: Callable[[str], Mapping[str, Any] | None],
    overrides: Mapping[str, Any],
    options: AuditOptions,
) -> GroupAudit:
    """A KIP-1071 streams group, from its coordinator's StreamsGroupDescribe."""
    subs = (desc.topology.subtopologies if desc.topology is not None else None) or []
    if not subs:
        raise AssignorError("the streams group has no initialised topology yet")
    sources = {
        _subtopology(s.subtopology_id): sorted({*s.source_topics,
                                                *(t.name for t in s.repartition_source_topics)})
        for s in subs
    }
    topo_doc = configured(base.group) or {"subtopologies": [
        {"id": _subtopology(s.subtopology_id), "source_topics": sources[_subtopology(s.subtopology_id)],
         "changelog_topics": sorted(t.name for t in s.state_changelog_topics),
         "stateful": bool(s.state_changelog_topics)}
        for s in sorted(subs, key=lambda s: _subtopology(s.subtopology_id))
    ]}
    view = describe(sorted({t for ts in sources.values() for t in ts}))
    procs: dict[str, _Process] = {}
    for m in sorted(desc.members, key=lambda m: m.member_id):
        proc = procs.setdefault(m.process_id, _Process(m.process_id, m.rack_id or None))
        proc.threads += 1
        proc.members.append(m.member_id)
        proc.host = proc.host or m.client_host
        proc.tags.update({kv.key: kv.value for kv in m.client_tags})
        for task in m.assignment.active_tasks:
            sub = _subtopology(task.subtopology_id)
            for p in task.partitions:
                proc.active.add((sub, p))
                proc.partitions.extend(TopicPartition(t, p) for t in sources.get(sub, ())
                                       if p < view.partition_count(t))
        for task in m.assignment.standby_tasks:
            sub = _subtopology(task.subtopology_id)
            proc.standby.update((sub, p) for p in task.partitions)
    return _measure(base, procs, topo_doc, describe, overrides, options)


def _measure(
    base: GroupAudit,
    procs: dict[str, _Process],
    topo_doc: Mapping[str, Any],
    describe: Describe,
    overrides: Mapping[str, Any],
    options: AuditOptions,
) -> GroupAudit:
    """The assignment the processes run against the HA assignor's best with min_traffic."""
    from assignor.api import Round, plan
    from assignor.inputs import AssignmentConfig, StreamsApp, StreamsClient, TaskId, Topology, build_tasks

    standbys_per_task: dict[tuple[int, int], int] = {}
    for proc in procs.values():
        for key in proc.standby:
            standbys_per_task[key] = standbys_per_task.get(key, 0) + 1
    topology = Topology.from_dict(topo_doc)
    topics = sorted(
        {t for s in topology.subtopologies for t in (*s.source_topics, *s.changelog_topics)}
        | {tp.topic for p in procs.values() for tp in p.partitions}
    )
    view = describe(topics)
    all_parts = [tp for p in procs.values() for tp in p.partitions]
    check_known(view, all_parts)
    tasks = build_tasks(topology, view)
    cfg: dict[str, Any] = {
        "num_standby_replicas": max(standbys_per_task.values(), default=0),
        "rack_aware_assignment_strategy": "min_traffic",
    }
    cfg.update(overrides)
    cfg["rack_aware_assignment_strategy"] = "min_traffic"  # the recommendation's strategy
    config = AssignmentConfig.from_dict(cfg)
    known = set(tasks.all)
    clients = []
    for pid in sorted(procs):
        proc = procs[pid]
        active = frozenset(t for t in (TaskId(*k) for k in proc.active) if t in known)
        standby = frozenset(t for t in (TaskId(*k) for k in proc.standby) if t in known)
        # Every stateful task counts as caught up everywhere: the recommendation is where the
        # app would converge (after warm-ups), not the first probing step.
        lags = {t: (-2 if t in active else 0) for t in sorted(tasks.stateful)}
        clients.append(
            StreamsClient(pid, proc.rack, proc.threads, dict(proc.tags), None, lags, active, standby)
        )
    app = StreamsApp(base.group, tuple(clients), topology, view, config)
    planned = plan(app, Round(triggers=("recommended",), generation=0))
    best_plan = planned.model_copy(
        update={"config": {"observed": "recommended", **planned.config}}
    )
    actual_members = []
    for pid in sorted(procs):
        proc = procs[pid]
        actual_members.append(
            MemberPlan(
                member_id=pid,
                rack=proc.rack,
                process_id=pid,
                partitions=[
                    PartitionPlan(
                        topic=tp.topic,
                        partition=tp.partition,
                        replica_racks=list(view.racks(tp.topic, tp.partition)),
                        cross_rack=view.is_cross_rack(tp.topic, tp.partition, proc.rack),
                    )
                    for tp in sorted(proc.partitions)
                ],
                active_tasks=[f"{s}_{p}" for s, p in sorted(proc.active)],
                standby_tasks=[f"{s}_{p}" for s, p in sorted(proc.standby)],
            )
        )
    loads = [len(m.active_tasks) for m in actual_members]
    locations = {pid: options.hosts.rack_of(p.host) for pid, p in procs.items() if not p.rack}
    actual_cost = read_cost(view, {pid: p.partitions for pid, p in procs.items()},
                            {pid: p.rack for pid, p in procs.items()}, locations)
    actual_plan = AssignmentPlan(
        group_id=base.group,
        kind="streams",
        generation=0,
        reason="observed",
        assignor=base.protocol,
        config={"observed": "actual", "state": base.state, "topology": topo_doc,
                "num_standby_replicas": config.num_standby_replicas},
        members=actual_members,
        summary=PlanSummary(
            partitions=len(all_parts),
            cross_rack_partitions=actual_cost.cross_rack_partitions,
            traffic_cost=actual_cost.traffic_cost,
            lower_bound=best_plan.summary.lower_bound,
            max_load=max(loads, default=0),
            min_load=min(loads, default=0),
        ),
    )
    # the least cross-rack bytes/s under the recommendation's balance (active tasks per
    # process), each process placed as the cost model places it (host map included)
    bound_bytes = streams_bytes_bound(
        app, {m.member_id: len(m.active_tasks) for m in best_plan.members}, locations)
    actual_plan = annotate(actual_plan, view, locations, bound_bytes)
    best_plan = annotate(best_plan, view, locations, bound_bytes)
    # the HA assignor reports its own (KIP-925) traffic cost; the audit compares both plans
    # on one cost model, which also prices rack-unknown members
    best_assignment = {m.member_id: [TopicPartition(p.topic, p.partition) for p in m.partitions]
                       for m in best_plan.members}
    best_cost = read_cost(view, best_assignment, {m.member_id: m.rack for m in best_plan.members},
                          locations).traffic_cost
    best_plan = best_plan.model_copy(update={
        "summary": best_plan.summary.model_copy(update={"traffic_cost": best_cost})})
    unknown = sorted(pid for pid, p in procs.items() if not p.rack and not locations.get(pid))
    mapped = sorted(pid for pid, loc in locations.items() if loc)
    return replace(
        base,
        status=RACK_UNKNOWN if unknown else base.status,
        partitions=len(all_parts),
        cross_rack_actual=actual_plan.summary.cross_rack_partitions,
        cross_rack_best=best_plan.summary.cross_rack_partitions,
        actual=actual_plan,
        best=best_plan,
        read_model="nearest-replica" if view.follower_fetching else "leader",
        rack_unknown_members=tuple(unknown),
        rack_unknown_partitions=sum(len(procs[pid].partitions) for pid in unknown),
        host_mapped_members=tuple(mapped),
        advice=advice_for(view, unknown, mapped, actual_plan.summary.cross_rack_bytes_per_s_worst),
    )
