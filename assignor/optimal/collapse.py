"""Types, kinds, supplies and pools: docs/rack-optimal.md § 4.1.

The flow does not see partitions or members one by one. Partitions that differ only in name
and previous owner are one *type*; members with the same signature (the classes they
subscribe), place and owned profile are one *kind*; a *supply* is the partitions of one type
owned by one kind (or by no one who could keep them); a *pool* is a (class, place) pair. Every
list here is in the order the page states, because the network's arc order (§ 4.2), and so
the perturbation, follows it.

Example: members a, b (az1) and c (az2) all subscribe t (4 partitions, replicas in az1, weight
1); a owned t-0 and t-1, b and c nothing -> one type, kinds [a], [b] (a owns, b does not:
different profiles) and [c] (another place), supplies (type 0, none) = t-2, t-3 and
(type 0, kind [a]) = t-0, t-1, pools (t's class, az1) and (t's class, az2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place
from assignor.model import Member


def place_key(place: Place) -> tuple[str, bool, str]:
    """§ 4.1: places sort by (location or "", reads_followers, source or "")."""
    return (place.location or "", place.reads_followers, place.source or "")


@dataclass(frozen=True)
class PartType:
    """A partition type (§ 4.1): what decides every cost of placing one of its partitions."""

    cls: int
    racks: tuple[str, ...]
    leader: str | None
    weight: float


@dataclass(frozen=True)
class Kind:
    """Members (id order) with one signature, place and owned profile (type -> count)."""

    members: tuple[str, ...]
    signature: frozenset[int]
    place: Place
    profile: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Supply:
    """Partitions of one type, owned by one kind (``owner``) or by no one who keeps them."""

    type: int
    owner: int | None
    partitions: tuple[TopicPartition, ...]  # (topic, partition) order


@dataclass(frozen=True)
class Pool:
    """A (class, place) node: it feeds every kind at its place that subscribes the class."""

    cls: int
    place: Place


@dataclass(frozen=True)
class Collapsed:
    """The instance of § 4.1, every list in its stated order."""

    members: tuple[str, ...]  # id order
    place: Mapping[str, Place]
    classes: tuple[tuple[str, ...], ...]  # subscribers of each class, class order
    class_topics: tuple[tuple[str, ...], ...]
    sizes: tuple[int, ...]  # partitions per class
    types: tuple[PartType, ...]
    type_of: Mapping[TopicPartition, int]
    owner: Mapping[TopicPartition, str]  # owned partitions only: owners who could keep them
    kinds: tuple[Kind, ...]
    supplies: tuple[Supply, ...]
    pools: tuple[Pool, ...]


def collapse(
    cluster: ClusterView,
    members: Sequence[Member],
    topics: Sequence[str],
    place: Mapping[str, Place],
    prev: Mapping[TopicPartition, str],
    by_leader: bool,
) -> Collapsed:
    """Build § 4.1's types, kinds, supplies and pools (members in any order)."""
    ids = tuple(sorted(m.member_id for m in members))
    topics_of = {m.member_id: frozenset(m.topics) for m in members}
    classes, class_topics = _classes(ids, sorted(topics), topics_of)
    sizes = tuple(sum(cluster.partition_count(t) for t in ts) for ts in class_topics)
    types, type_of = _types(cluster, class_topics, by_leader)
    owner = {tp: m for tp, m in prev.items()
             if tp in type_of and tp.topic in topics_of.get(m, frozenset())}
    kinds = _kinds(ids, classes, place, owner, type_of)
    return Collapsed(
        members=ids,
        place=place,
        classes=classes,
        class_topics=class_topics,
        sizes=sizes,
        types=types,
        type_of=type_of,
        owner=owner,
        kinds=kinds,
        supplies=_supplies(type_of, owner, kinds),
        pools=_pools(classes, place),
    )


def _classes(
    ids: Sequence[str], topics: Sequence[str], topics_of: Mapping[str, frozenset[str]]
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """Topics with the same subscribers (§ 3), ordered by their first topic."""
    by_subs: dict[tuple[str, ...], list[str]] = {}
    for t in topics:  # sorted, so each class's first topic decides its position
        subs = tuple(m for m in ids if t in topics_of[m])
        if subs:
            by_subs.setdefault(subs, []).append(t)
    return tuple(by_subs), tuple(tuple(ts) for ts in by_subs.values())


def _types(
    cluster: ClusterView, class_topics: Sequence[Sequence[str]], by_leader: bool
) -> tuple[tuple[PartType, ...], dict[TopicPartition, int]]:
    """Types indexed by their first (topic, partition)."""
    cls_of = {t: ci for ci, ts in enumerate(class_topics) for t in ts}
    index: dict[PartType, int] = {}
    type_of: dict[TopicPartition, int] = {}
    for t in sorted(cls_of):
        for p in range(cluster.partition_count(t)):
            tp = TopicPartition(t, p)
            key = PartType(cls_of[t], cluster.racks(t, p),
                           cluster.leader_rack(t, p) if by_leader else None, cluster.weight(tp))
            type_of[tp] = index.setdefault(key, len(index))
    return tuple(index), type_of


def _kinds(
    ids: Sequence[str],
    classes: Sequence[Sequence[str]],
    place: Mapping[str, Place],
    owner: Mapping[TopicPartition, str],
    type_of: Mapping[TopicPartition, int],
) -> tuple[Kind, ...]:
    """Members merged by (signature, place, profile), kinds ordered by their first member."""
    owns: dict[str, dict[int, int]] = {m: {} for m in ids}
    for tp, m in owner.items():
        counts = owns[m]
        counts[type_of[tp]] = counts.get(type_of[tp], 0) + 1
    sig: dict[str, set[int]] = {m: set() for m in ids}
    for ci, subs in enumerate(classes):
        for m in subs:
            sig[m].add(ci)
    signature = {m: frozenset(cs) for m, cs in sig.items()}
    merged: dict[tuple[frozenset[int], Place, tuple[tuple[int, int], ...]], list[str]] = {}
    for m in ids:  # id order: dict order is then the order of each kind's first member
        profile = tuple(sorted(owns[m].items()))
        merged.setdefault((signature[m], place[m], profile), []).append(m)
    return tuple(Kind(tuple(ms), sig, pl, prof) for (sig, pl, prof), ms in merged.items())


def _supplies(
    type_of: Mapping[TopicPartition, int],
    owner: Mapping[TopicPartition, str],
    kinds: Sequence[Kind],
) -> tuple[Supply, ...]:
    """Supplies ordered by (type, owner kind), the unowned one of a type first."""
    kind_of = {m: k for k, kind in enumerate(kinds) for m in kind.members}
    parts: dict[tuple[int, int], list[TopicPartition]] = {}
    for tp in sorted(type_of):
        who = owner.get(tp)
        parts.setdefault((type_of[tp], -1 if who is None else kind_of[who]), []).append(tp)
    return tuple(Supply(t, None if k < 0 else k, tuple(parts[(t, k)])) for t, k in sorted(parts))


def _pools(classes: Sequence[Sequence[str]], place: Mapping[str, Place]) -> tuple[Pool, ...]:
    """(class, place) for every place where some member subscribes the class."""
    return tuple(Pool(ci, pl) for ci, subs in enumerate(classes)
                 for pl in sorted({place[m] for m in subs}, key=place_key))
