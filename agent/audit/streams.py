"""Auditing a Kafka Streams application: tasks, processes and topology from its assignment.

Members (stream threads) are grouped by process; each active task is matched to the source
partitions it was given, and the app's topology is derived from that (or taken from the
configured one). The recommendation is the HA assignor with ``min_traffic`` over those tasks.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent.audit.model import Decoded, Describe, GroupAudit, check_known
from assignor.cluster import TopicPartition
from assignor.errors import AssignorError
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
) -> GroupAudit:
    from assignor.api import Round, StreamsApp, StreamsClient, plan
    from assignor.streams.model import AssignmentConfig, Topology, build_tasks
    from protocol.streams import TaskId

    procs, sources = _streams_processes(decoded)
    standbys_per_task: dict[tuple[int, int], int] = {}
    for proc in procs.values():
        for key in proc.standby:
            standbys_per_task[key] = standbys_per_task.get(key, 0) + 1
    stateful_subs = {s for (s, _p) in standbys_per_task}
    for d in decoded:
        assert d.sub_info is not None
        stateful_subs.update(t.subtopology for t in d.sub_info.offset_sums())
    topo_doc = configured(base.group) or _derived_topology(
        base.group, sources, stateful_subs, topic_names(), describe
    )
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
    planned = plan(
        StreamsApp(base.group, tuple(clients), topology, view, config),
        Round(triggers=("recommended",), generation=0),
    )
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
    cross = sum(p.cross_rack for m in actual_members for p in m.partitions)
    loads = [len(m.active_tasks) for m in actual_members]
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
            cross_rack_partitions=cross,
            traffic_cost=float(cross),
            lower_bound=best_plan.summary.lower_bound,
            max_load=max(loads, default=0),
            min_load=min(loads, default=0),
        ),
    )
    return replace(
        base,
        members=len(decoded),
        partitions=len(all_parts),
        cross_rack_actual=cross,
        cross_rack_best=best_plan.summary.cross_rack_partitions,
        actual=actual_plan,
        best=best_plan,
    )
