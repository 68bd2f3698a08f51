"""Kafka's RangeAssignor, including KIP-881 rack awareness and the co-partitioned pass.

Per topic, subscribers are ordered (static members by instance id first, then member id)
and each gets a floor or ceiling share of the topic; who gets the +1 is first come first
served. When some topic needs rack awareness (AbstractPartitionAssignor criteria 1-3), a rack
pass runs first: topics with the same subscribers (and racks) and partition count are
co-partitioned, so partition p of all of them goes to one member whose rack matches every
one of them; a lone topic gives each member rack-matching partitions in order. A plain range
pass then hands out whatever is left.

Example: 6 partitions of t, members a, b (no racks) -> a: t-0..2, b: t-3..5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice

from assignor.base import Result
from assignor.cluster import ClusterView, TopicPartition
from assignor.model import Group, Member


def member_sort_key(m: Member) -> tuple[int, str, str]:
    """Java MemberInfo order: static members (by instance id) before dynamic ones (by id)."""
    if m.instance_id is not None:
        return (0, m.instance_id, m.member_id)
    return (1, m.member_id, "")


def use_rack_aware(
    consumer_racks: set[str],
    partition_racks: set[str],
    racks_per_partition: Sequence[frozenset[str]],
) -> bool:
    """AbstractPartitionAssignor.useRackAwareAssignment: racks exist, overlap, and differ."""
    if not consumer_racks or not (consumer_racks & partition_racks):
        return False
    return not all(r == partition_racks for r in racks_per_partition)


class _TopicState:
    def __init__(self, topic: str, count: int, members: list[Member], cluster: ClusterView) -> None:
        self.topic = topic
        self.consumers: list[str] = [m.member_id for m in sorted(members, key=member_sort_key)]
        self.rack_of = {m.member_id: m.rack for m in members}
        self.key = tuple((c, self.rack_of[c]) for c in self.consumers)
        self.unassigned: dict[int, None] = dict.fromkeys(range(count))  # an ordered set
        self.assigned = dict.fromkeys(self.consumers, 0)
        n = len(self.consumers)
        self.per_consumer = count // n if n else 0
        self.extra = count % n if n else 0
        consumer_racks = {r for r in self.rack_of.values() if r}
        if consumer_racks:
            self.partition_racks = [frozenset(cluster.racks(topic, p)) for p in range(count)]
        else:
            self.partition_racks = []
        all_racks: set[str] = set().union(*self.partition_racks) if self.partition_racks else set()
        self.needs_rack_aware = use_rack_aware(consumer_racks, all_racks, self.partition_racks)

    def racks_match(self, consumer: str, p: int) -> bool:
        rack = self.rack_of[consumer]
        return rack is None or (p < len(self.partition_racks) and rack in self.partition_racks[p])

    def max_assignable(self, consumer: str) -> int:
        limit = self.per_consumer + (1 if self.extra > 0 else 0)
        return max(0, limit - self.assigned[consumer])

    def on_assigned(self, consumer: str, partitions: list[int]) -> None:
        self.assigned[consumer] += len(partitions)
        if self.assigned[consumer] > self.per_consumer:
            self.extra -= 1
        for p in partitions:
            del self.unassigned[p]


def _assign(
    state: _TopicState, consumer: str, parts: list[int], out: dict[str, list[TopicPartition]]
) -> None:
    out[consumer].extend(TopicPartition(state.topic, p) for p in parts)
    state.on_assigned(consumer, parts)


def _assign_ranges(
    state: _TopicState,
    may_assign: Callable[[str, int], bool] | None,
    out: dict[str, list[TopicPartition]],
) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        if limit <= 0:
            continue
        if may_assign is None:
            parts = list(islice(state.unassigned, limit))
        else:
            parts = []
            for p in state.unassigned:
                if may_assign(consumer, p):
                    parts.append(p)
                    if len(parts) == limit:
                        break
        if parts:
            _assign(state, consumer, parts, out)


def _assign_co_partitioned(
    states: list[_TopicState], count: int, out: dict[str, list[TopicPartition]]
) -> None:
    remaining = list(states[0].consumers)
    for p in range(count):
        chosen = next(
            (
                c
                for c in remaining
                if all(t.racks_match(c, p) and t.max_assignable(c) > 0 for t in states)
            ),
            None,
        )
        if chosen is None:
            continue
        for t in states:
            _assign(t, chosen, [p], out)
        if all(t.max_assignable(chosen) <= 0 for t in states):
            remaining.remove(chosen)
            if not remaining:
                break


def assign_range(group: Group) -> Result:
    cluster = group.cluster
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in group.members}
    states = [
        _TopicState(
            t, cluster.partition_count(t), [m for m in group.members if t in m.topics], cluster
        )
        for t in group.subscribed_topics()
    ]
    rack_aware = any(s.needs_rack_aware for s in states)
    if rack_aware:
        # Java groups by (subscribers with racks) then partition-rack count; the result of
        # each group is independent of the others, so any group order gives the same plan.
        groups: dict[tuple[tuple[tuple[str, str | None], ...], int], list[_TopicState]] = {}
        for s in states:
            groups.setdefault((s.key, len(s.partition_racks)), []).append(s)
        for (_, count), same in sorted(
            groups.items(), key=lambda kv: (kv[0][1], [t.topic for t in kv[1]])
        ):
            if len(same) > 1:
                _assign_co_partitioned(same, count, out)
            elif same[0].needs_rack_aware:
                _assign_ranges(same[0], same[0].racks_match, out)
    for s in states:
        _assign_ranges(s, None, out)
    return Result(assignment={m: sorted(tps) for m, tps in out.items()})
