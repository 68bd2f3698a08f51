"""Group state rebuilt from the subscriptions topic: pure data and decisions, no IO.

One record is one member's latest subscription (or a tombstone). :meth:`GroupTable.apply`
turns it into a :class:`Change` saying whether the group must be re-planned and why:

* a new member -> ``member-joined``; a tombstone -> ``member-left``;
* topics, rack or kind differ -> ``subscription-changed``;
* the member stopped reporting a partition the last plan withheld from someone else because
  of it -> ``followup`` (the withheld partition can now be handed over);
* the same bytes again (a heartbeat), or only owned partitions / generation changed (the
  member adopted a plan) -> nothing to plan.

Example::

    table = GroupTable()
    table.apply(0, b"g1/c1", sub_v3_bytes, "consumer", now=10.0).reason   # "member-joined"
    table.apply(0, b"g1/c1", sub_v3_bytes, "consumer", now=13.0).reason   # None (heartbeat)
    table.expire(now=50.0, timeout_s=30.0)                                # [("g1", "c1")]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from protocol.errors import ProtocolError
from protocol.member import decode_member_metadata
from protocol.plan import AssignmentPlan
from protocol.routing import KINDS, BadKey, parse_key
from protocol.streams import SubscriptionInfo

Partition = tuple[str, int]


class InputRejected(ValueError):
    """A record that cannot be used; ``reason`` is a short machine word, ``detail`` says why."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class MemberState:
    """The latest subscription of one member, decoded."""

    member_id: str
    kind: str
    rack: str | None
    topics: tuple[str, ...]
    owned: frozenset[Partition]
    generation: int
    raw: bytes
    last_seen: float
    user_data: bytes | None = None
    streams_info: SubscriptionInfo | None = None


@dataclass
class GroupState:
    """One group: its live members and what has been decided for it."""

    group_id: str
    partition: int
    kind: str = "consumer"
    members: dict[str, MemberState] = field(default_factory=dict)
    last_plan: AssignmentPlan | None = None
    last_generation: int = 0
    dirty: set[str] = field(default_factory=set)
    dirty_since: float | None = None
    changes: list[dict[str, object]] = field(default_factory=list)
    in_flight: int | None = None
    expired: list[str] = field(default_factory=list)

    def topics(self) -> list[str]:
        return sorted({t for m in self.members.values() for t in m.topics})

    def mark(self, reason: str, now: float, change: dict[str, object] | None = None) -> None:
        self.dirty.add(reason)
        if self.dirty_since is None:
            self.dirty_since = now
        if change:
            self.changes.append(change)


@dataclass(frozen=True)
class Change:
    group_id: str
    member_id: str
    reason: str | None
    detail: dict[str, object] = field(default_factory=dict)


def decode_member(member_id: str, kind: str, value: bytes, now: float) -> MemberState:
    """Decode one subscription value; anything unusable raises InputRejected."""
    try:
        sub, info = decode_member_metadata(value, streams=kind == "streams")
    except ProtocolError as exc:
        raise InputRejected("undecodable", str(exc)) from None
    owned = frozenset((tp.topic, p) for tp in sub.owned_partitions for p in tp.partitions)
    return MemberState(
        member_id=member_id,
        kind=kind,
        rack=sub.rack,
        topics=tuple(sorted(set(sub.topics))),
        owned=owned,
        generation=max(sub.generation_id, -1),
        raw=bytes(value),
        last_seen=now,
        user_data=sub.user_data,
        streams_info=info,
    )


class GroupTable:
    """All groups of the subscriptions partitions this agent owns."""

    def __init__(self, partitions: int | None = None) -> None:
        self.groups: dict[str, GroupState] = {}
        self.partitions = partitions

    def apply(
        self,
        partition: int,
        key: bytes | None,
        value: bytes | None,
        kind: str | None,
        now: float,
        *,
        partition_of: Callable[[str], int] | None = None,
    ) -> Change:
        """Fold one subscriptions record into the table."""
        try:
            group_id, member_id = parse_key(key)
        except BadKey as exc:
            raise InputRejected("bad-key", str(exc)) from None
        expected = partition if partition_of is None else partition_of(group_id)
        if expected != partition:
            raise InputRejected(
                "wrong-partition",
                f"group {group_id} belongs in partition {expected}, not {partition}",
            )
        kind = kind or "consumer"
        if kind not in KINDS:
            raise InputRejected("bad-kind", f"header rackwise-kind={kind!r}; use consumer|streams")
        group = self.groups.get(group_id)
        if value is None:
            if group is None or member_id not in group.members:
                return Change(group_id, member_id, None)
            del group.members[member_id]
            return Change(group_id, member_id, "member-left", {"member": member_id})
        member = decode_member(member_id, kind, value, now)
        if group is not None and group.members and group.kind != kind:
            raise InputRejected(
                "inconsistent",
                f"group {group_id} is a {group.kind} group; member {member_id} says {kind}",
            )
        if group is None:
            group = self.groups[group_id] = GroupState(group_id, partition, kind)
        group.kind = kind
        old = group.members.get(member_id)
        group.members[member_id] = member
        return Change(group_id, member_id, *classify(old, member, group.last_plan))

    def expire(
        self, now: float, timeout_s: float, skip: Iterable[int] = ()
    ) -> list[tuple[str, str]]:
        """Remove members not heard from within the timeout; returns (group, member) pairs.
        Groups in the partitions ``skip`` are left alone (their heartbeats may be unread)."""
        gone: list[tuple[str, str]] = []
        paused = set(skip)
        for gid in sorted(self.groups):
            group = self.groups[gid]
            if group.partition in paused:
                continue
            for mid in sorted(group.members):
                if now - group.members[mid].last_seen > timeout_s:
                    del group.members[mid]
                    gone.append((gid, mid))
        return gone

    def drop_partition(self, partition: int) -> None:
        for gid in [g for g, s in self.groups.items() if s.partition == partition]:
            del self.groups[gid]

    def member_count(self) -> int:
        return sum(len(g.members) for g in self.groups.values())


def classify(
    old: MemberState | None, new: MemberState, last_plan: AssignmentPlan | None
) -> tuple[str | None, dict[str, object]]:
    """Why (if at all) a new subscription from a known or new member needs a new plan."""
    if old is None:
        return "member-joined", {
            "member": new.member_id,
            "rack": new.rack,
            "topics": list(new.topics),
        }
    if old.raw == new.raw:
        return None, {}
    what: dict[str, object] = {}
    if old.topics != new.topics:
        what["topics"] = {"from": list(old.topics), "to": list(new.topics)}
    if old.rack != new.rack:
        what["rack"] = {"from": old.rack, "to": new.rack}
    if old.kind != new.kind:
        what["kind"] = {"from": old.kind, "to": new.kind}
    if what:
        what["member"] = new.member_id
        return "subscription-changed", what
    released = released_withheld(new, last_plan)
    if released:
        return "followup", {
            "member": new.member_id,
            "released": [f"{t}-{p}" for t, p in sorted(released)],
        }
    return None, {}


def may_hold(member: MemberState, plan: AssignmentPlan | None) -> frozenset[Partition]:
    """What the member may hold right now, as far as the agent can tell.

    Plans reach members asynchronously: until a member reports the generation of the last
    plan it may already hold what that plan gave it, and may still hold what the plan
    withheld because of it. Giving any of those to someone else would let two members read
    one partition at once (the chaos suite caught it: a second member joining right after
    the first plan). Example: plan 5 gives t-0 to c1, c1 still reports generation 4 and no
    partitions -> may_hold(c1, plan5) == {("t", 0)}.
    """
    if plan is None or member.generation >= plan.generation:
        return member.owned
    extra = {(p.topic, p.partition) for m in plan.members if m.member_id == member.member_id
             for p in m.partitions}
    extra |= {(w.topic, w.partition) for w in plan.withheld if w.owner == member.member_id}
    return member.owned | frozenset(extra)


def awaiting_release(group: GroupState) -> bool:
    """Whether a live owner of a partition the last plan withheld has not reported that plan's
    generation yet (it is still letting go). A follow-up made now would plan with what that
    owner *may* hold (``may_hold``), so it could withhold again what was just released, and
    each release would trigger the next such plan (seen on the testbed after a re-plan that
    swapped partitions between members). The follow-up waits for it instead: one heartbeat,
    or until the owner expires."""
    plan = group.last_plan
    if plan is None:
        return False
    return any(w.owner in group.members and group.members[w.owner].generation < plan.generation
               for w in plan.withheld)


def released_withheld(member: MemberState, plan: AssignmentPlan | None) -> set[Partition]:
    """Partitions the plan withheld because of this member that it no longer reports (once
    it reports the plan's generation: before that it may not have let go yet)."""
    if plan is None or member.generation < plan.generation:
        return set()
    return {
        (w.topic, w.partition)
        for w in plan.withheld
        if w.owner == member.member_id and (w.topic, w.partition) not in member.owned
    }
