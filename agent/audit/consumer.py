"""Measuring a consumer group: what it reads across racks now, and with rackwise's best plan.

The same for a classic group (members decoded from DescribeGroups) and a KIP-848 group (the
coordinator's ConsumerGroupDescribe): each member is a :class:`MemberInput`. Members are
placed by assignor.cost: by ``client.rack``, else by the host map, else rack-unknown (then
the figures for them are expected values, the group's status ``rack-unknown`` and the
advice says what to set). The best plan is rack-optimal under the same balance, minimising
cross-rack bytes first (weights are measured bytes/s when traffic was sampled) and moves
second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.audit.model import RACK_UNKNOWN, AuditOptions, Describe, GroupAudit, check_known
from assignor.api import Round, evaluate, lower_bound, plan
from assignor.errors import SolverError
from assignor.inputs import ClusterView, ConsumerGroup, Member, TopicPartition
from protocol.groupdescribe import DescribedConsumerGroup


@dataclass(frozen=True)
class MemberInput:
    """One consumer as the audit sees it, whichever protocol it speaks."""

    member_id: str
    rack: str | None
    topics: tuple[str, ...]
    assigned: tuple[TopicPartition, ...]
    host: str = ""


def from_kip848(desc: DescribedConsumerGroup) -> list[MemberInput]:
    """Members of a KIP-848 group; a regex subscription counts the topics it was given."""
    out = []
    for m in sorted(desc.members, key=lambda m: m.member_id):
        assigned = tuple(sorted(
            TopicPartition(t.topic_name, p) for t in m.assignment.topic_partitions
            for p in t.partitions
        ))
        topics = tuple(sorted(set(m.subscribed_topic_names) | {tp.topic for tp in assigned}))
        out.append(MemberInput(m.member_id, m.rack_id or None, topics, assigned, m.client_host))
    return out


def best_config(view: ClusterView, topics: Sequence[str]) -> dict[str, object]:
    """Cross-rack bytes first, moves second: one unit of the smallest possible traffic
    difference (the lightest partition x 1/R, R racks) outweighs moving every partition."""
    total = sum(view.partition_count(t) for t in topics)
    weights = [view.weight(tp) for t in topics for tp in view.partitions(t)]
    lightest = min((w for w in weights if w > 0), default=1.0)
    racks = max(1, len(view.all_racks()))
    return {"traffic_cost": float(total + 1) * racks / min(lightest, 1.0),
            "non_overlap_cost": 1.0, "cooperative": False}


def advice_for(view: ClusterView, unknown: Sequence[str], mapped: Sequence[str],
               worst: float | None) -> str | None:
    """What to set, in one line (None when nothing is worth changing)."""
    notes = []
    if unknown:
        racks = len(view.all_racks())
        worst_text = "" if worst is None else f", worst case {worst:,.0f} B/s"
        notes.append(
            f"{len(unknown)} of the members set no client.rack (first: {unknown[0]}); figures "
            f"assume hosts spread evenly over {racks} racks{worst_text}. Set client.rack to "
            "each host's zone, or pass --rack-map CIDR=RACK"
        )
    if mapped:
        notes.append(f"{len(mapped)} member(s) placed by the host map read from the leader: "
                     "set client.rack on them to let them fetch from a local replica")
    if not view.follower_fetching:
        notes.append("brokers do not set replica.selector.class=org.apache.kafka.common.replica."
                     "RackAwareReplicaSelector, so every member reads from the leader")
    return "; ".join(notes) or None


def audit_consumer(base: GroupAudit, members: Sequence[MemberInput], describe: Describe,
                   options: AuditOptions) -> GroupAudit:
    actual = {m.member_id: list(m.assigned) for m in members}
    topics = sorted({t for m in members for t in m.topics}
                    | {tp.topic for tps in actual.values() for tp in tps})
    view = describe(topics)
    check_known(view, [tp for tps in actual.values() for tp in tps])
    locations = {m.member_id: options.hosts.rack_of(m.host) for m in members if not m.rack}
    group = ConsumerGroup(base.group, tuple(
        Member.of(m.member_id, rack=m.rack, topics=m.topics, owned=actual[m.member_id],
                  location=locations.get(m.member_id))
        for m in members
    ), view)
    subscribed = sorted({t for m in members for t in m.topics if view.partition_count(t) > 0})
    best_cfg = best_config(view, subscribed)
    try:
        best = _recommend(group, best_cfg)
    except SolverError:  # weights too far apart to rank moves below bytes exactly
        best_cfg = {"traffic_cost": 1.0, "non_overlap_cost": 0.0, "cooperative": False}
        best = _recommend(group, best_cfg)
    bound = lower_bound(group)
    owners = {tp: m for m, tps in actual.items() for tp in tps}
    actual_plan = evaluate(
        group, actual, reason="observed", assignor=base.protocol or "unknown",
        config={"observed": "actual", "state": base.state, "group_type": base.group_type},
        bound=bound)
    best_plan = evaluate(
        group, best, reason="recommended", assignor="rack-optimal",
        config={"observed": "recommended", **best_cfg}, previous_owner=owners, bound=bound)
    unknown = sorted(m.member_id for m in members if not m.rack and not locations.get(m.member_id))
    mapped = sorted(m for m, loc in locations.items() if loc)
    return replace(
        base,
        status=RACK_UNKNOWN if unknown else base.status,
        partitions=actual_plan.summary.partitions,
        cross_rack_actual=actual_plan.summary.cross_rack_partitions,
        cross_rack_best=best_plan.summary.cross_rack_partitions,
        actual=actual_plan,
        best=best_plan,
        read_model="nearest-replica" if view.follower_fetching else "leader",
        rack_unknown_members=tuple(unknown),
        rack_unknown_partitions=sum(len(actual[m]) for m in unknown),
        host_mapped_members=tuple(mapped),
        advice=advice_for(view, unknown, mapped, actual_plan.summary.cross_rack_bytes_per_s_worst),
    )


def _recommend(group: ConsumerGroup, cfg: dict[str, object]) -> dict[str, list[TopicPartition]]:
    """rackwise's best assignment for the group, through the planning seam (assignor.api)."""
    recommended = plan(
        ConsumerGroup(group.group_id, group.members, group.cluster, "rack-optimal", "eager", cfg),
        Round(triggers=("recommended",), generation=0),
    )
    return {
        m.member_id: [TopicPartition(p.topic, p.partition) for p in m.partitions]
        for m in recommended.members
    }
