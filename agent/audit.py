"""Observe mode: measure the cross-rack traffic of groups people already run (DESIGN §5, §6).

Three steps, IO only in the first:

1. :func:`read_groups` lists groups (AdminClient ``list_consumer_groups`` for each group's
   type) and describes the classic ones matching a pattern (``list_groups``: DescribeGroups,
   the one call that returns every member's metadata and assignment bytes).
2. :func:`audit_group` decodes one group (consumer protocol v0-v3; Kafka Streams'
   SubscriptionInfo/AssignmentInfo when the protocol is ``stream``) and joins it with replica
   racks: the assignment the group runs becomes an ``observed`` plan, the best plan under the
   same balance a ``recommended`` one (rack-optimal for consumer groups; the HA assignor with
   ``min_traffic`` for Streams applications, over the tasks derived from the app's own
   assignment and topics).
3. :func:`render_table` / :meth:`GroupAudit.to_json` for ``rackwise audit``.

A group that cannot be measured (another protocol type, empty, rebalancing, undecodable
member bytes) is reported with a ``status`` and an ``error``, never raised.

Example: two cooperative-sticky members in az1 and az2 reading t-0 (replica az2) and t-1
(replica az1) the wrong way round -> ``cross_rack_actual=2, cross_rack_best=0``.
"""

from __future__ import annotations

import fnmatch
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.model import Group, Member
from assignor.optimal import OptimalConfig, assign_rack_optimal, lower_bound
from assignor.summary import member_plans, summarize
from protocol.consumer import Assignment, Subscription, decode_assignment, decode_subscription
from protocol.errors import ProtocolError, RackwiseError
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary
from protocol.streams import SubscriptionInfo, decode_subscription_info
from protocol.streams_assignment import AssignmentInfo, decode_assignment_info

STREAMS_PROTOCOL = "stream"  # the assignor name Kafka Streams registers in JoinGroup

# status values (``--json`` key ``status``)
OK = "ok"
EMPTY = "empty"
REBALANCING = "rebalancing"
UNSUPPORTED = "unsupported"
UNDECODABLE = "undecodable"
ERROR = "error"


class AuditError(RackwiseError):
    """The cluster could not be read at all (no group listing): check --bootstrap."""


@dataclass(frozen=True)
class RawMember:
    """One member as DescribeGroups returns it."""

    member_id: str
    client_id: str = ""
    client_host: str = ""
    metadata: bytes | None = None
    assignment: bytes | None = None


@dataclass(frozen=True)
class RawGroup:
    """One group as listed and (for classic groups) described by the broker."""

    group_id: str
    group_type: str = "classic"  # classic | consumer | share | streams | unknown
    state: str = ""
    protocol_type: str = ""
    protocol: str = ""
    members: tuple[RawMember, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class GroupAudit:
    """What the audit found for one group."""

    group: str
    status: str
    kind: str | None = None
    group_type: str = "classic"
    state: str = ""
    protocol_type: str = ""
    protocol: str = ""
    members: int = 0
    partitions: int = 0
    cross_rack_actual: int | None = None
    cross_rack_best: int | None = None
    error: str | None = None
    undecodable_members: tuple[str, ...] = ()
    actual: AssignmentPlan | None = field(default=None, compare=False)
    best: AssignmentPlan | None = field(default=None, compare=False)

    @property
    def saving_pct(self) -> float | None:
        if self.cross_rack_actual is None or self.cross_rack_best is None:
            return None
        if self.cross_rack_actual == 0:
            return 0.0
        saved = self.cross_rack_actual - self.cross_rack_best
        return round(100.0 * saved / self.cross_rack_actual, 1)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` row: the DESIGN §6 keys first, then what explains them."""
        return {
            "group": self.group,
            "members": self.members,
            "partitions": self.partitions,
            "cross_rack_actual": self.cross_rack_actual,
            "cross_rack_best": self.cross_rack_best,
            "saving_pct": self.saving_pct,
            "kind": self.kind,
            "status": self.status,
            "state": self.state,
            "group_type": self.group_type,
            "protocol_type": self.protocol_type,
            "protocol": self.protocol,
            "error": self.error,
            "undecodable_members": list(self.undecodable_members),
        }


# ---- 1. reading groups ---------------------------------------------------------------------------
def _type_name(raw: Any) -> str:
    name = getattr(raw, "name", None) or str(raw or "unknown")
    return name.rsplit(".", 1)[-1].lower()


def read_groups(admin: Any, pattern: str = "*", timeout: float = 15.0) -> list[RawGroup]:
    """Every group whose id matches ``pattern`` (fnmatch), sorted by id.

    One ``list_consumer_groups`` gives each group's type; one ``list_groups`` sweep
    (ListGroups + DescribeGroups on every broker) gives every classic group with its members'
    bytes, including protocol types ListConsumerGroups may leave out (e.g. ``connect``).
    Groups of another type (KIP-848 ``consumer``, ``share``, ``streams``) come back with that
    type and no members: DescribeGroups cannot describe them.
    """
    try:
        listing = admin.list_consumer_groups(request_timeout=timeout).result(timeout + 5)
    except Exception as exc:  # KafkaException or a bare KafkaError
        raise AuditError(f"cannot list groups: {exc}") from None
    types = {g.group_id: _type_name(g.type) for g in listing.valid}
    try:
        with warnings.catch_warnings():  # deprecated, but the one API with member bytes
            warnings.simplefilter("ignore", DeprecationWarning)
            described = {m.id: m for m in admin.list_groups(timeout=timeout) or []}
    except Exception as exc:
        raise AuditError(f"cannot describe groups: {exc}") from None
    names = sorted(g for g in set(types) | set(described) if fnmatch.fnmatchcase(g, pattern))
    out = []
    for gid in names:
        kind = types.get(gid, "classic")
        meta = described.get(gid)
        if kind not in ("classic", "unknown"):
            out.append(RawGroup(gid, group_type=kind))
        elif meta is None:
            out.append(RawGroup(gid, group_type=kind, state="Dead"))
        else:
            out.append(RawGroup(
                gid,
                group_type=kind,
                state=str(meta.state or ""),
                protocol_type=str(meta.protocol_type or ""),
                protocol=str(meta.protocol or ""),
                members=tuple(
                    RawMember(
                        str(m.id),
                        str(m.client_id or ""),
                        str(m.client_host or ""),
                        bytes(m.metadata) if m.metadata else None,
                        bytes(m.assignment) if m.assignment else None,
                    )
                    for m in meta.members
                ),
                error=str(meta.error) if meta.error else None,
            ))
    return out


# ---- 2. one group --------------------------------------------------------------------------------
Describe = Callable[[Iterable[str]], ClusterView]


@dataclass(frozen=True)
class _Decoded:
    member_id: str
    sub: Subscription
    asg: Assignment
    sub_info: SubscriptionInfo | None = None
    asg_info: AssignmentInfo | None = None

    @property
    def assigned(self) -> list[TopicPartition]:
        return sorted(
            TopicPartition(e.topic, p) for e in self.asg.assigned_partitions for p in e.partitions
        )


def audit_group(
    raw: RawGroup,
    describe: Describe,
    topic_names: Callable[[], Iterable[str]] = lambda: (),
    streams_topology: Callable[[str], Mapping[str, Any] | None] = lambda _g: None,
    streams_config: Mapping[str, Any] | None = None,
) -> GroupAudit:
    """Decode one group, measure its assignment and the best one; never raises RackwiseError.

    ``describe`` returns the replica placement of some topics; ``topic_names`` lists the
    cluster's topics (to find a Streams app's changelogs); ``streams_topology`` may give a
    configured topology for a Streams group (planner.streams_topologies) instead of the one
    derived from its assignment.
    """
    base = GroupAudit(
        group=raw.group_id,
        status=OK,
        group_type=raw.group_type,
        state=raw.state,
        protocol_type=raw.protocol_type,
        protocol=raw.protocol,
        members=len(raw.members),
    )
    if raw.error:
        return replace(base, status=ERROR, error=raw.error)
    if raw.group_type not in ("classic", "unknown"):
        return replace(
            base,
            status=UNSUPPORTED,
            error=f"{raw.group_type} group: DescribeGroups has no member metadata for it",
        )
    if not raw.members:
        return replace(base, status=EMPTY, error=f"no members (state {raw.state or 'unknown'})")
    if raw.protocol_type != "consumer":
        return replace(
            base,
            status=UNSUPPORTED,
            error=f"protocol type {raw.protocol_type or 'none'!r} is not the consumer protocol",
        )
    if raw.state != "Stable" or any(m.assignment is None for m in raw.members):
        return replace(
            base, status=REBALANCING, error=f"state {raw.state}: no complete assignment to measure"
        )
    is_streams = raw.protocol == STREAMS_PROTOCOL
    decoded: list[_Decoded] = []
    bad: list[str] = []
    reasons: list[str] = []
    for m in sorted(raw.members, key=lambda m: m.member_id):
        try:
            sub = decode_subscription(m.metadata or b"")
            asg = decode_assignment(m.assignment or b"")
            sub_info = asg_info = None
            if is_streams:
                sub_info = decode_subscription_info(sub.user_data or b"")
                asg_info = decode_assignment_info(asg.user_data or b"")
            decoded.append(_Decoded(m.member_id, sub, asg, sub_info, asg_info))
        except ProtocolError as exc:
            bad.append(m.member_id)
            reasons.append(f"{m.member_id}: {exc}")
    base = replace(base, kind="streams" if is_streams else "consumer")
    if bad:
        return replace(
            base,
            status=UNDECODABLE,
            undecodable_members=tuple(bad),
            error=f"{len(bad)} member(s) with undecodable metadata; first: {reasons[0]}",
        )
    try:
        if is_streams:
            return _audit_streams(
                base, decoded, describe, topic_names, streams_topology, streams_config or {}
            )
        return _audit_consumer(base, decoded, describe)
    except (RackwiseError, ValueError) as exc:  # AssignorError, an inconsistent assignment
        return replace(base, status=ERROR, error=str(exc))


def _check_known(view: ClusterView, parts: Iterable[TopicPartition]) -> None:
    missing = sorted({tp for tp in parts if tp.partition >= view.partition_count(tp.topic)})
    if missing:
        raise AssignorError(
            "assigned partitions missing from the cluster metadata: "
            + ", ".join(map(str, missing[:5]))
        )


def _audit_consumer(base: GroupAudit, decoded: list[_Decoded], describe: Describe) -> GroupAudit:
    actual = {d.member_id: d.assigned for d in decoded}
    topics = sorted({t for d in decoded for t in d.sub.topics} | {tp.topic for a in actual.values()
                                                                  for tp in a})
    view = describe(topics)
    _check_known(view, [tp for a in actual.values() for tp in a])
    racks = {d.member_id: d.sub.rack for d in decoded}
    members = tuple(
        Member.of(d.member_id, rack=d.sub.rack, topics=d.sub.topics, owned=actual[d.member_id])
        for d in decoded
    )
    group = Group(base.group, members, view, reason="observed")
    total = sum(view.partition_count(t) for t in group.subscribed_topics())
    # Traffic outweighs every possible move: the fewest cross-rack partitions first, then the
    # fewest moves away from what the group runs now.
    best_cfg = OptimalConfig(traffic_cost=float(total + 1), non_overlap_cost=1.0, cooperative=False)
    best = assign_rack_optimal(group, best_cfg).target()
    bound = lower_bound(group)
    owners = {tp: m for m, tps in actual.items() for tp in tps}
    actual_plan = AssignmentPlan(
        group_id=base.group,
        kind="consumer",
        generation=0,
        reason="observed",
        assignor=base.protocol or "unknown",
        config={"observed": "actual", "state": base.state},
        members=member_plans(view, actual, racks),
        summary=summarize(view, actual, racks, lower_bound=bound),
    )
    best_plan = AssignmentPlan(
        group_id=base.group,
        kind="consumer",
        generation=0,
        reason="recommended",
        assignor="rack-optimal",
        config={"observed": "recommended", "traffic_cost": best_cfg.traffic_cost,
                "non_overlap_cost": best_cfg.non_overlap_cost, "cooperative": False},
        members=member_plans(view, best, racks),
        summary=summarize(view, best, racks, previous_owner=owners, lower_bound=bound),
    )
    return replace(
        base,
        partitions=actual_plan.summary.partitions,
        cross_rack_actual=actual_plan.summary.cross_rack_partitions,
        cross_rack_best=best_plan.summary.cross_rack_partitions,
        actual=actual_plan,
        best=best_plan,
    )


# ---- Streams ------------------------------------------------------------------------------------
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
    decoded: list[_Decoded],
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
    """A DESIGN §4 topology from what the app's assignment shows.

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


def _audit_streams(
    base: GroupAudit,
    decoded: list[_Decoded],
    describe: Describe,
    topic_names: Callable[[], Iterable[str]],
    configured: Callable[[str], Mapping[str, Any] | None],
    overrides: Mapping[str, Any],
) -> GroupAudit:
    from assignor.streams.model import AssignmentConfig, ClientInput, Topology, build_tasks
    from assignor.streams.model import TaskId as STaskId
    from assignor.streams.plan import build_plan
    from assignor.streams.scenario import ASSIGNOR_NAME, StreamsInputs, run

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
    _check_known(view, all_parts)
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
        active = frozenset(t for t in (STaskId(*k) for k in proc.active) if t in known)
        standby = frozenset(t for t in (STaskId(*k) for k in proc.standby) if t in known)
        # Every stateful task counts as caught up everywhere: the recommendation is where the
        # app would converge (after warm-ups), not the first probing step.
        lags = {t: (-2 if t in active else 0) for t in sorted(tasks.stateful)}
        clients.append(
            ClientInput(pid, proc.threads, proc.rack, lags, dict(proc.tags), active, standby)
        )
    inputs = StreamsInputs(base.group, 0, view, tasks, tuple(clients), config)
    result = run(inputs)
    planned = build_plan(inputs, result, None, ASSIGNOR_NAME)
    best_plan = planned.model_copy(
        update={"reason": "recommended", "config": {"observed": "recommended", **planned.config}}
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


# ---- the whole audit -----------------------------------------------------------------------------
def run_audit(
    admin: Any,
    pattern: str = "*",
    timeout: float = 15.0,
    streams_topology: Callable[[str], Mapping[str, Any] | None] = lambda _g: None,
    streams_config: Mapping[str, Any] | None = None,
) -> list[GroupAudit]:
    """Read, decode and measure every matching group (sorted by group id)."""
    from agent.clusterinfo import describe as describe_cluster

    cache: dict[str, list[str]] = {}

    def names() -> list[str]:
        if "all" not in cache:
            meta = admin.list_topics(timeout=timeout)
            cache["all"] = sorted(meta.topics)
        return cache["all"]

    def describe(topics: Iterable[str]) -> ClusterView:
        return describe_cluster(admin, topics, timeout).view

    return [
        audit_group(raw, describe, names, streams_topology, streams_config)
        for raw in read_groups(admin, pattern, timeout)
    ]


# ---- 3. output -----------------------------------------------------------------------------------
_COLUMNS = ("GROUP", "KIND", "MEMBERS", "PARTITIONS", "CROSS-RACK", "BEST", "SAVING", "STATUS")


def render_table(audits: Sequence[GroupAudit]) -> str:
    """A fixed-width table, one row per group; the reason follows unmeasured rows."""
    rows = []
    for a in audits:
        saving = a.saving_pct
        status = a.status if a.error is None or a.status == OK else f"{a.status}: {a.error}"
        rows.append((
            a.group,
            a.kind or f"({a.group_type})",
            str(a.members),
            str(a.partitions),
            "-" if a.cross_rack_actual is None else str(a.cross_rack_actual),
            "-" if a.cross_rack_best is None else str(a.cross_rack_best),
            "-" if saving is None else f"{saving:.1f}%",
            status,
        ))
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(_COLUMNS)]
    lines = []
    for row in [_COLUMNS, *rows]:
        cells = [
            cell.rjust(widths[i]) if 2 <= i <= 6 and row is not _COLUMNS else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells[:-1] + [row[-1]]).rstrip())
    if not rows:
        lines.append("(no matching groups)")
    return "\n".join(lines)
