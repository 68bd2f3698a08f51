"""Loading an owned subscriptions partition, and when its members may be expired.

On assignment a partition is read from the beginning while the plan worker recovers its
last plans; once both are done the partition is *ready*. These helpers hold the pieces of
that bookkeeping that need no agent state: the agent's poll loop calls them and keeps
owning ``_loading`` and ``_ready`` itself (dirty groups are agent.daemon.schedule's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import structlog
from confluent_kafka import Consumer, KafkaException
from confluent_kafka import TopicPartition as KTopicPartition

from agent.daemon.state import GroupState, GroupTable, may_hold
from protocol.plan import AssignmentPlan
from protocol.routing import group_partition

log = structlog.get_logger("rackwise.agent")

# Members are only expired where the agent has read everything fetched so far: any unread
# record may be a member's newest heartbeat (a tail of a few dozen records can span a whole
# session timeout after a flood). Nor within STALL_GRACE_S of the loop itself stalling (a
# pause, a long GC). A caught-up agent reaches zero lag between fetches many times a second.
EXPIRY_LAG_LIMIT = 0
STALL_S = 2.0
STALL_GRACE_S = 10.0


@dataclass
class LoadingState:
    """One partition being loaded: read to its end yet? Its plans recovered yet?"""

    eof: bool
    end: int | None
    opened: bool = False
    plans: dict[str, AssignmentPlan] = field(default_factory=dict)


def loading_state(consumer: Consumer, tp: KTopicPartition) -> LoadingState:
    """The load bookkeeping of a partition just assigned: where its log ends right now."""
    try:
        low, high = consumer.get_watermark_offsets(tp, timeout=15, cached=False)
        return LoadingState(eof=high <= low, end=high)
    except Exception as exc:  # a new topic without a leader yet: wait for the EOF event
        log.info("watermarks unavailable", partition=tp.partition, error=str(exc))
        return LoadingState(eof=False, end=None)


def restore_recovered(
    table: GroupTable,
    p: int,
    recovered: Mapping[str, AssignmentPlan],
    subs_partitions: int,
    now: float,
) -> tuple[list[str], int]:
    """Put the recovered plans of partition ``p`` back on its groups and mark those that
    need a new plan. Returns (the groups marked, how many of the live ones were)."""
    dirty: list[str] = []
    planned = 0
    for gid in sorted(table.groups):
        group = table.groups[gid]
        if group.partition != p:
            continue
        plan = recovered.get(gid)
        if plan is not None:
            group.last_plan = plan
            group.last_generation = max(group.last_generation, plan.generation)
        reason = reason_after_load(group)
        if reason:
            group.mark(reason, now, {"reason": reason, "after": "partition-assigned"})
            dirty.append(gid)
            planned += 1
    for gid, plan in recovered.items():
        if gid not in table.groups and group_partition(gid, subs_partitions) == p:
            ghost = table.groups[gid] = GroupState(gid, p, plan.kind)
            ghost.last_plan, ghost.last_generation = plan, plan.generation
            if plan.members:
                ghost.mark("member-left", now, {"reason": "member-left", "after": "restart"})
                dirty.append(gid)
    return dirty, planned


def behind(consumer: Consumer, topic: str, ready: set[int]) -> set[int]:
    """Ready partitions with unread records beyond EXPIRY_LAG_LIMIT (local figures:
    the position and the high watermark of the last fetch, no broker round trip)."""
    late = set()
    for p in sorted(ready):
        tp = KTopicPartition(topic, p)
        try:
            _, high = consumer.get_watermark_offsets(tp, cached=True)
            position = consumer.position([tp])[0].offset
        except KafkaException:
            continue
        if high >= 0 and position >= 0 and high - position > EXPIRY_LAG_LIMIT:
            late.add(p)
    return late


def reason_after_load(group: GroupState) -> str | None:
    """Does a group rebuilt from the topic need a plan beyond what was last published?"""
    plan = group.last_plan
    if plan is None:
        return "initial" if group.members else None
    planned = {m.member_id for m in plan.members}
    live = set(group.members)
    if live - planned:
        return "member-joined"
    if planned - live:
        return "member-left"
    for w in plan.withheld:
        owner = group.members.get(w.owner)
        if owner is None or (w.topic, w.partition) not in may_hold(owner, plan):
            return "followup"
    return None
