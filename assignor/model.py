"""Typed, immutable inputs of the consumer assignors: members and the group they form.

A :class:`Member` is what a consumer tells the group leader in its JoinGroup subscription
(KIP-429 owned partitions, KAFKA-13715 generation, KIP-881 rack) plus, for the eager
``sticky`` assignor, the previous assignment it keeps in its user data.

Example::

    Member.of("c1", rack="az1", topics=["orders"], owned={"orders": [0]}, generation=3)
    # Member(member_id='c1', rack='az1', topics=('orders',),
    #        owned=(TopicPartition('orders', 0),), generation=3, ...)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError


@dataclass(frozen=True)
class Member:
    """One group member. ``rack`` None means no ``client.rack`` (Java treats "" the same).

    ``location`` is the rack the member's host is in when it is known some other way than
    ``client.rack`` (the audit's host map): such a member still reads from leaders only, but
    what that costs is known (assignor.cost).
    """

    member_id: str
    rack: str | None = None
    topics: tuple[str, ...] = ()
    owned: tuple[TopicPartition, ...] = ()
    generation: int | None = None
    instance_id: str | None = None
    previous: tuple[TopicPartition, ...] | None = None
    previous_generation: int | None = None
    location: str | None = None

    @classmethod
    def of(
        cls,
        member_id: str,
        *,
        rack: str | None = None,
        topics: Iterable[str] = (),
        owned: Mapping[str, Iterable[int]] | Iterable[TopicPartition] = (),
        generation: int | None = None,
        instance_id: str | None = None,
        previous: Mapping[str, Iterable[int]] | Iterable[TopicPartition] | None = None,
        previous_generation: int | None = None,
        location: str | None = None,
    ) -> Member:
        """Normalise like Java's ConsumerProtocol: sorted topics, owned sorted by (topic, partition)."""
        return cls(
            member_id=str(member_id),
            rack=rack or None,
            topics=tuple(sorted(set(topics))),
            owned=_partitions(owned),
            generation=None if generation is None or generation < 0 else int(generation),
            instance_id=instance_id or None,
            previous=None if previous is None else _partitions(previous),
            previous_generation=(
                None
                if previous_generation is None or previous_generation < 0
                else previous_generation
            ),
            location=location or None,
        )

    @property
    def generation_or_default(self) -> int:
        """The generation as Java's assignors compare it: -1 when absent."""
        return -1 if self.generation is None else self.generation


def _partitions(
    raw: Mapping[str, Iterable[int]] | Iterable[TopicPartition],
) -> tuple[TopicPartition, ...]:
    # Duplicates are kept on purpose: Java keeps them too, and treats a partition listed twice
    # by the same member as claimed by two owners of the same generation (it is revoked).
    if isinstance(raw, Mapping):
        out = [TopicPartition(str(t), int(p)) for t, ps in raw.items() for p in ps]
    else:
        out = [TopicPartition(tp.topic, int(tp.partition)) for tp in raw]
    if any(tp.partition < 0 for tp in out):
        raise AssignorError("owned partition numbers must be >= 0")
    return tuple(sorted(out))


@dataclass(frozen=True)
class Group:
    """A consumer group to plan: members (kept sorted by id) over a cluster view."""

    group_id: str
    members: tuple[Member, ...]
    cluster: ClusterView
    generation: int | None = None
    reason: str = "initial"
    config: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [m.member_id for m in self.members]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise AssignorError(f"member ids must be unique; repeated: {', '.join(dup)}")
        object.__setattr__(self, "members", tuple(sorted(self.members, key=lambda m: m.member_id)))

    @property
    def member_ids(self) -> list[str]:
        return [m.member_id for m in self.members]

    def racks(self) -> dict[str, str | None]:
        return {m.member_id: m.rack for m in self.members}

    def subscribed_topics(self) -> list[str]:
        """Sorted topics someone subscribes to that exist with at least one partition.

        Like Java's AbstractPartitionAssignor, topics without metadata are skipped.
        """
        topics = {t for m in self.members for t in m.topics}
        return sorted(t for t in topics if self.cluster.partition_count(t) > 0)

    def next_generation(self) -> int:
        if self.generation is not None:
            return self.generation
        return max((m.generation_or_default for m in self.members), default=-1) + 1

