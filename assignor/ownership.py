"""Who owned what before this round: Kafka's generation rules for claimed partitions.

Mirrors step 0 of Java's AbstractStickyAssignor (KAFKA-12984, KAFKA-14639): members are
visited in Java HashMap order; a partition claimed by two members keeps the claim of the
higher generation; two claims in the *same* generation are both dropped and the partition
is remembered as having multiple previous owners (it must be revoked everywhere). Claims on
topics the group does not assign (unknown or unsubscribed by all) are ignored.

Example: c1 (gen 3) and c2 (gen 2) both claim t-0 -> c1 keeps it; c1 and c3 (gen 3) both
claim t-1 -> nobody keeps it and t-1 is in ``multiple``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from assignor.cluster import TopicPartition
from assignor.javaorder import hashmap_order
from assignor.model import Member


@dataclass(frozen=True)
class Ownership:
    """Resolved previous ownership."""

    owned: dict[str, list[TopicPartition]]
    multiple: frozenset[TopicPartition]
    max_generation: int

    def owner_of(self) -> dict[TopicPartition, str]:
        return {tp: m for m, tps in self.owned.items() for tp in tps}


Claims = tuple[tuple[TopicPartition, ...], int | None]


def claims_of_cooperative(member: Member) -> Claims:
    """CooperativeStickyAssignor.memberData: owned partitions and the protocol generation."""
    return member.owned, member.generation


def claims_of_sticky(member: Member) -> Claims:
    """Eager sticky keeps its previous assignment in user data; fall back to owned."""
    if member.previous is not None:
        return member.previous, member.previous_generation
    return member.owned, member.generation


def resolve(
    members: Sequence[Member],
    counts: Mapping[str, int],
    claims: Callable[[Member], Claims] = claims_of_cooperative,
) -> Ownership:
    """Apply the generation rules; the result is independent of the input order.

    ``counts`` maps each assigned topic to its partition count. Claims on other topics are
    ignored (as in Java), and so are claims beyond the partition count (Java would keep them).
    """
    by_id = {m.member_id: m for m in members}
    owned: dict[str, list[TopicPartition]] = {}
    owner: dict[TopicPartition, str] = {}
    multiple: set[TopicPartition] = set()
    max_gen = -1
    for member_id in hashmap_order(by_id):
        member = by_id[member_id]
        partitions, maybe_gen = claims(member)
        gen = -1 if maybe_gen is None else maybe_gen
        max_gen = max(max_gen, gen)
        mine: list[TopicPartition] = []
        owned[member_id] = mine
        for tp in partitions:
            if tp.partition >= counts.get(tp.topic, 0):
                continue
            other = owner.get(tp)
            if other is None:
                mine.append(tp)
                owner[tp] = member_id
                continue
            # Java compares with the other member's *subscription* generation.
            other_gen = by_id[other].generation_or_default
            if gen == other_gen:
                multiple.add(tp)
                if tp in owned[other]:
                    owned[other].remove(tp)
                owner[tp] = member_id
            elif gen > other_gen:
                mine.append(tp)
                if tp in owned[other]:
                    owned[other].remove(tp)
                owner[tp] = member_id
    return Ownership(owned=owned, multiple=frozenset(multiple), max_generation=max_gen)


def previous_owners(
    members: Sequence[Member], counts: Mapping[str, int]
) -> dict[TopicPartition, str]:
    """The previous owner of each partition that has exactly one, after the generation rules."""
    return resolve(members, counts).owner_of()
