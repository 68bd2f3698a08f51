"""Decoding and measuring one group: the assignment it runs against the best one.

:func:`audit_group` checks the group can be measured, decodes every member (consumer
protocol v0-v3, plus Kafka Streams' SubscriptionInfo/AssignmentInfo when the protocol is
``stream``; or the coordinator's ConsumerGroupDescribe / StreamsGroupDescribe for Kafka 4.x
groups) and hands it to :mod:`agent.audit.consumer` or :mod:`agent.audit.streams`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from agent.audit.consumer import MemberInput, audit_consumer, from_kip848
from agent.audit.model import (
    EMPTY,
    ERROR,
    OK,
    REBALANCING,
    STREAMS_PROTOCOL,
    UNDECODABLE,
    UNSUPPORTED,
    AuditOptions,
    Decoded,
    Describe,
    GroupAudit,
)
from agent.audit.read import RawGroup
from agent.audit.streams import audit_streams, audit_streams_group
from protocol.consumer import decode_assignment
from protocol.errors import ProtocolError, RackwiseError
from protocol.groupdescribe import DescribedConsumerGroup, DescribedStreamsGroup
from protocol.member import decode_member_metadata
from protocol.streams_assignment import decode_assignment_info


def audit_group(
    raw: RawGroup,
    describe: Describe,
    topic_names: Callable[[], Iterable[str]] = lambda: (),
    streams_topology: Callable[[str], Mapping[str, Any] | None] = lambda _g: None,
    streams_config: Mapping[str, Any] | None = None,
    options: AuditOptions | None = None,
) -> GroupAudit:
    """Decode one group, measure its assignment and the best one; never raises RackwiseError.

    ``describe`` returns the replica placement of some topics; ``topic_names`` lists the
    cluster's topics (to find a Streams app's changelogs); ``streams_topology`` may give a
    configured topology for a Streams group (planner.streams_topologies) instead of the one
    derived from its assignment. ``options``: the price and the hosts' racks.
    """
    options = options or AuditOptions()
    base = GroupAudit(
        group=raw.group_id,
        status=OK,
        group_type=raw.group_type,
        state=raw.state,
        protocol_type=raw.protocol_type,
        protocol=raw.protocol,
        members=len(raw.members),
        price=options.price,
    )
    if raw.error:
        return replace(base, status=ERROR, error=raw.error)
    if raw.described is not None:
        return _audit_broker_side(base, raw, describe, streams_topology, streams_config or {},
                                  options)
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
    hosts = {m.member_id: m.client_host for m in raw.members}
    try:
        if is_streams:
            return audit_streams(
                base, decoded, describe, topic_names, streams_topology, streams_config or {},
                options, hosts,
            )
        members = [
            MemberInput(d.member_id, d.sub.rack, tuple(d.sub.topics), tuple(d.assigned),
                        hosts.get(d.member_id, ""))
            for d in decoded
        ]
        return audit_consumer(base, members, describe, options)
    except (RackwiseError, ValueError) as exc:  # AssignorError, an inconsistent assignment
        return replace(base, status=ERROR, error=str(exc))


def _audit_broker_side(
    base: GroupAudit,
    raw: RawGroup,
    describe: Describe,
    streams_topology: Callable[[str], Mapping[str, Any] | None],
    streams_config: Mapping[str, Any],
    options: AuditOptions,
) -> GroupAudit:
    """A KIP-848 consumer group or a KIP-1071 streams group, as its coordinator describes it."""
    desc = raw.described
    assert desc is not None
    base = replace(base, members=len(desc.members), protocol_type=raw.group_type,
                   protocol=getattr(desc, "assignor_name", "") or raw.group_type)
    if not desc.members:
        return replace(base, status=EMPTY, error=f"no members (state {desc.group_state})")
    if desc.group_state != "Stable":
        # Assigning / Reconciling: members are still moving towards the target assignment
        return replace(base, status=REBALANCING,
                       error=f"state {desc.group_state}: no settled assignment to measure")
    try:
        if isinstance(desc, DescribedConsumerGroup):
            return audit_consumer(replace(base, kind="consumer"), from_kip848(desc), describe,
                                  options)
        assert isinstance(desc, DescribedStreamsGroup)
        return audit_streams_group(replace(base, kind="streams"), desc, describe,
                                   streams_topology, streams_config, options)
    except (RackwiseError, ValueError) as exc:
        return replace(base, status=ERROR, error=str(exc))


