"""Decoding and measuring one group: the assignment it runs against the best one.

:func:`audit_group` checks the group can be measured, decodes every member (consumer
protocol v0-v3, plus Kafka Streams' SubscriptionInfo/AssignmentInfo when the protocol is
``stream``) and hands it to the consumer measure here or to :mod:`agent.audit.streams`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from agent.audit.model import (
    EMPTY,
    ERROR,
    OK,
    REBALANCING,
    STREAMS_PROTOCOL,
    UNDECODABLE,
    UNSUPPORTED,
    Decoded,
    Describe,
    GroupAudit,
    check_known,
)
from agent.audit.read import RawGroup
from agent.audit.streams import audit_streams
from assignor.api import ConsumerGroup, Round, plan
from assignor.model import Group, Member
from assignor.optimal import lower_bound
from assignor.summary import member_plans, summarize
from protocol.consumer import decode_assignment
from protocol.errors import ProtocolError, RackwiseError
from protocol.member import decode_member_metadata
from protocol.plan import AssignmentPlan
from protocol.streams_assignment import decode_assignment_info


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
    decoded: list[Decoded] = []
    bad: list[str] = []
    reasons: list[str] = []
    for m in sorted(raw.members, key=lambda m: m.member_id):
        try:
            sub, sub_info = decode_member_metadata(m.metadata or b"", streams=is_streams)
            asg = decode_assignment(m.assignment or b"")
            asg_info = decode_assignment_info(asg.user_data or b"") if is_streams else None
            decoded.append(Decoded(m.member_id, sub, asg, sub_info, asg_info))
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
            return audit_streams(
                base, decoded, describe, topic_names, streams_topology, streams_config or {}
            )
        return _audit_consumer(base, decoded, describe)
    except (RackwiseError, ValueError) as exc:  # AssignorError, an inconsistent assignment
        return replace(base, status=ERROR, error=str(exc))


def _audit_consumer(base: GroupAudit, decoded: list[Decoded], describe: Describe) -> GroupAudit:
    actual = {d.member_id: d.assigned for d in decoded}
    topics = sorted({t for d in decoded for t in d.sub.topics} | {tp.topic for a in actual.values()
                                                                  for tp in a})
    view = describe(topics)
    check_known(view, [tp for a in actual.values() for tp in a])
    racks = {d.member_id: d.sub.rack for d in decoded}
    members = tuple(
        Member.of(d.member_id, rack=d.sub.rack, topics=d.sub.topics, owned=actual[d.member_id])
        for d in decoded
    )
    group = Group(base.group, members, view, reason="observed")
    total = sum(view.partition_count(t) for t in group.subscribed_topics())
    # Traffic outweighs every possible move: the fewest cross-rack partitions first, then the
    # fewest moves away from what the group runs now.
    best_cfg = {"traffic_cost": float(total + 1), "non_overlap_cost": 1.0, "cooperative": False}
    recommended = plan(
        ConsumerGroup(base.group, members, view, "rack-optimal", "eager", best_cfg),
        Round(triggers=("recommended",), generation=0),
    )
    actual_plan = AssignmentPlan(
        group_id=base.group,
        kind="consumer",
        generation=0,
        reason="observed",
        assignor=base.protocol or "unknown",
        config={"observed": "actual", "state": base.state},
        members=member_plans(view, actual, racks),
        summary=summarize(view, actual, racks, lower_bound=lower_bound(group)),
    )
    best_plan = recommended.model_copy(
        update={"config": {"observed": "recommended", **recommended.config}}
    )
    return replace(
        base,
        partitions=actual_plan.summary.partitions,
        cross_rack_actual=actual_plan.summary.cross_rack_partitions,
        cross_rack_best=best_plan.summary.cross_rack_partitions,
        actual=actual_plan,
        best=best_plan,
    )
