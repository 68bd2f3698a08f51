"""From a group's live state to the seam's typed inputs: jobs for the plan worker.

The poll loop copies what one round needs out of the group (:func:`take_job`); the worker
turns the job plus the current replica placement (and, for Streams, the changelogs' end
offsets) into an assignor.api input and calls ``assignor.api.plan``. Generation, reason and
withholding are the seam's: the job only carries the triggers, the generation the seam gave
it and the members' owned partitions (widened by ``may_hold`` to what a member may hold from
a plan it has not confirmed yet).

Example::

    job = take_job(group, settings.planner, ("orders",))
    plan = compute_plan(job, view, end_offsets={})
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent.config.settings import PlannerSettings
from agent.daemon.state import GroupState, MemberState, may_hold
from assignor.api import (
    ConsumerGroup,
    Round,
    StreamsApp,
    StreamsClient,
    next_generation,
    pick_reason,
    plan,
)
from assignor.errors import AssignorError
from assignor.inputs import AssignmentConfig, ClusterView, Member, TopicPartition, Topology
from protocol.plan import AssignmentPlan
from protocol.streams import TaskId


@dataclass(frozen=True)
class StreamsSetup:
    """A Streams group's configured topology and assignment config, parsed once."""

    topology: Topology
    config: AssignmentConfig

    def changelogs(self) -> tuple[str, ...]:
        return tuple(sorted({t for s in self.topology.subtopologies for t in s.changelog_topics}))

    def topics(self) -> tuple[str, ...]:
        """Source and changelog topics: every topic the plan's tasks read."""
        return tuple(sorted(
            {t for s in self.topology.subtopologies for t in (*s.source_topics, *s.changelog_topics)}
        ))


@dataclass(frozen=True)
class PlanJob:
    """Everything the worker needs to plan one group, copied out of the live state."""

    group_id: str
    partition: int
    kind: str
    generation: int
    triggers: tuple[str, ...]
    assignor: str
    members: tuple[MemberState, ...]
    topics: tuple[str, ...]
    changes: tuple[Mapping[str, object], ...] = ()
    expired: tuple[str, ...] = ()
    dirty_since: float = 0.0
    previous: AssignmentPlan | None = None
    streams: StreamsSetup | None = None
    streams_error: str | None = None

    @property
    def reason(self) -> str:
        return pick_reason(self.triggers) or "initial"

    def changelog_partitions(self, view: ClusterView) -> list[TopicPartition]:
        """The changelog partitions whose end offsets a Streams plan needs."""
        if self.streams is None:
            return []
        return [tp for t in self.streams.changelogs() for tp in view.partitions(t)]


def assignor_for(group_id: str, kind: str, settings: PlannerSettings) -> str:
    for rule in settings.rules:
        if fnmatch.fnmatchcase(group_id, rule.pattern):
            return rule.assignor
    return settings.streams_assignor if kind == "streams" else settings.consumer_assignor


def streams_setup(group_id: str, settings: PlannerSettings) -> dict[str, object]:
    """The configured topology and config of a Streams group as written in the settings."""
    for pattern in sorted(settings.streams_topologies):
        if fnmatch.fnmatchcase(group_id, pattern):
            return {
                "topology": settings.streams_topologies[pattern],
                "config": dict(settings.streams_config),
            }
    return {}


def parsed_streams_setup(group_id: str, settings: PlannerSettings) -> StreamsSetup | None:
    raw = streams_setup(group_id, settings)
    topology, config = raw.get("topology"), raw.get("config")
    if not isinstance(topology, Mapping):
        return None
    return StreamsSetup(
        Topology.from_dict(topology),
        AssignmentConfig.from_dict(config if isinstance(config, Mapping) else {}),
    )


def planned_topics(group_id: str, kind: str, subscribed: Iterable[str],
                   settings: PlannerSettings) -> tuple[str, ...]:
    """Every topic whose replica racks a group's plan depends on.

    For a consumer group these are its subscribed topics. A Streams group's standbys and
    warm-ups read changelog topics, so the configured topology's source and changelog topics
    are watched and described too: without their racks the HA assignor must turn rack
    awareness off.
    """
    topics = set(subscribed)
    if kind == "streams":
        try:
            setup = parsed_streams_setup(group_id, settings)
        except AssignorError:
            setup = None  # reported when the group is planned
        if setup is not None:
            topics.update(setup.topics())
    return tuple(sorted(topics))


def take_job(group: GroupState, settings: PlannerSettings, topics: tuple[str, ...]) -> PlanJob:
    """The next job for ``group``: copies what the worker needs and resets the group's dirty
    bookkeeping (the caller owns ``group``: the agent's poll loop)."""
    job = job_for(group, settings, topics, tuple(sorted(group.dirty)))
    group.in_flight = job.generation
    group.dirty.clear()
    group.changes = []
    group.expired = []
    group.dirty_since = None
    return job


def job_for(group: GroupState, settings: PlannerSettings, topics: tuple[str, ...],
            triggers: tuple[str, ...]) -> PlanJob:
    """A job for ``group`` woken by ``triggers``, leaving the group as it is (a traffic
    probe plans a copy it never publishes: agent.daemon.trafficprobe)."""
    generation = next_generation(
        Round(
            previous=group.last_plan,
            generation_floor=max(group.last_generation, group.in_flight or 0),
        ),
        (m.generation for m in group.members.values()),
    )
    setup, setup_error = None, None
    try:
        setup = parsed_streams_setup(group.group_id, settings) if group.kind == "streams" else None
    except AssignorError as exc:
        setup_error = f"streams group {group.group_id}: configured topology or config: {exc}"
    return PlanJob(
        group_id=group.group_id,
        partition=group.partition,
        kind=group.kind,
        generation=generation,
        triggers=triggers,
        assignor=assignor_for(group.group_id, group.kind, settings),
        # Withhold what a member may hold from a plan it has not confirmed yet, too.
        members=tuple(
            _with_owned(group.members[m], may_hold(group.members[m], group.last_plan))
            for m in sorted(group.members)
        ),
        topics=topics,
        changes=tuple(group.changes),
        expired=tuple(group.expired),
        dirty_since=group.dirty_since or time.monotonic(),
        previous=group.last_plan,
        streams=setup,
        streams_error=setup_error,
    )


def _with_owned(member: MemberState, owned: frozenset[tuple[str, int]]) -> MemberState:
    if owned == member.owned:
        return member
    return MemberState(
        member.member_id, member.kind, member.rack, member.topics, owned, member.generation,
        member.raw, member.last_seen, member.user_data, member.streams_info,
    )


def consumer_group(job: PlanJob, view: ClusterView) -> ConsumerGroup:
    members = tuple(
        Member.of(
            m.member_id,
            rack=m.rack,
            topics=m.topics,
            owned=[TopicPartition(t, p) for t, p in sorted(m.owned)],
            generation=m.generation,
        )
        for m in job.members
    )
    return ConsumerGroup(job.group_id, members, view, job.assignor, "cooperative")


def streams_app(
    job: PlanJob, view: ClusterView, end_offsets: Mapping[TopicPartition, int]
) -> StreamsApp:
    """Members are stream threads: one client per process, threads counted, offsets merged."""
    if job.streams_error is not None:
        raise AssignorError(job.streams_error)
    if job.streams is None:
        raise AssignorError(
            f"streams group {job.group_id}: no topology configured (planner.streams_topologies)"
        )
    processes: dict[str, list[MemberState]] = {}
    for m in job.members:
        if m.streams_info is None:
            raise AssignorError(f"streams member {m.member_id} has no SubscriptionInfo")
        processes.setdefault(str(m.streams_info.process_id), []).append(m)
    clients = []
    for pid in sorted(processes):
        threads = processes[pid]
        sums: dict[TaskId, int] = {}
        tags: dict[str, str] = {}
        for m in threads:
            assert m.streams_info is not None
            for task, offset in m.streams_info.offset_sums().items():
                sums[TaskId(task.subtopology, task.partition)] = offset
            tags.update(m.streams_info.tags())
        clients.append(
            StreamsClient(
                process_id=pid,
                rack=threads[0].rack,
                threads=len(threads),
                client_tags=tags,
                task_offset_sums=sums,
            )
        )
    return StreamsApp(
        job.group_id, tuple(clients), job.streams.topology, view, job.streams.config,
        dict(end_offsets), job.assignor,
    )


def compute_plan(
    job: PlanJob, view: ClusterView, end_offsets: Mapping[TopicPartition, int] | None = None
) -> AssignmentPlan:
    """The plan for one job (raises AssignorError on input the assignor rejects)."""
    round_ = Round(previous=job.previous, triggers=job.triggers, generation=job.generation)
    if job.kind == "streams":
        return plan(streams_app(job, view, end_offsets or {}), round_)
    return plan(consumer_group(job, view), round_)


def cross_rack_count(plan: AssignmentPlan) -> int:
    return sum(1 for m in plan.members for p in m.partitions if p.cross_rack)
