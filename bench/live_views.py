"""A live KIP-848 group as its coordinator sees it, and as its own members see themselves.

``bench_plugins.py live`` judges a group by its coordinator (:class:`CoordinatorView`,
``describe_consumer_groups``): the group is settled when the coordinator reports it STABLE,
every member's current assignment equal to its target assignment, every partition of the topic
assigned to exactly one member, and each partition's records read to the end by the member the
coordinator says owns it (that member's librdkafka fetch statistics: :func:`read_to_end`).

The members' own view (librdkafka's ``assignment()``) is reported beside it
(:class:`ClientsView`) but not waited on. Earlier runs saw members keep listing partitions they
had given up, long after the group settled; that was while the bench parsed every librdkafka
statistics document inside ``consume()`` and fell behind (agent/dev/fetchstats.py), and it has
not been seen since, but the coordinator stays the judge.

The wire figures (:func:`wire`) are the coordinator's assignment (who owns what, so which
partitions are read across racks) plus what the clients actually fetched (per partition, the
bytes received and the broker fetched from): never the clients' ``assignment()`` lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka.admin import AdminClient

from agent.dev.fetchstats import ClientView, RdkafkaConsumer


@dataclass(frozen=True)
class CoordinatorView:
    """``describe_consumer_groups`` at one instant: the group's state, its member ids, whether
    every member's current assignment equals its target, and per partition of the topic the
    members whose current assignment holds it."""

    state: str
    member_ids: tuple[str, ...]
    reconciled: bool
    owners: Mapping[int, tuple[str, ...]]
    #: per member still holding partitions of the topic its target no longer gives it (a
    #: revocation it has not acknowledged), those partitions
    pending: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, admin: AdminClient, group: str, topic: str) -> CoordinatorView | None:
        """None while the group cannot be described (not created yet, coordinator moving)."""
        try:
            desc = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
        except Exception:  # noqa: BLE001 - ask again at the next poll
            return None
        owners: dict[int, list[str]] = {}
        pending: dict[str, tuple[int, ...]] = {}
        reconciled = True
        for m in desc.members:
            current = _tps(m.assignment)
            target = _tps(m.target_assignment) if m.target_assignment is not None else None
            reconciled = reconciled and current == target
            for t, p in current:
                if t == topic:
                    owners.setdefault(p, []).append(m.member_id)
            if target is not None:
                held = sorted(p for t, p in current - target if t == topic)
                if held:
                    pending[m.member_id] = tuple(held)
        # confluent-kafka 2.16.1 names a KIP-848 group that is assigning or reconciling UNKNOWN
        state = desc.state.name if desc.state is not None else "UNKNOWN"
        return cls(state, tuple(m.member_id for m in desc.members), reconciled,
                   {p: tuple(ms) for p, ms in owners.items()}, pending)

    def owner(self) -> dict[int, str]:
        """Partition -> its owner, for the partitions exactly one member's assignment holds."""
        return {p: ms[0] for p, ms in self.owners.items() if len(ms) == 1}

    def complete(self, members: int, partitions: int) -> bool:
        """STABLE, ``members`` members all at their target, all ``partitions`` owned once."""
        return (self.state == "STABLE" and len(self.member_ids) == members and self.reconciled
                and len(self.owner()) == len(self.owners) == partitions)

    def summary(self) -> dict[str, Any]:
        return {"state": self.state, "members": len(self.member_ids),
                "reconciled": self.reconciled, "owned_once": len(self.owner()),
                "owned_more_than_once": len(self.owners) - len(self.owner()),
                "pending_revocation": {m: list(ps) for m, ps in sorted(self.pending.items())}}

    def progress(self) -> tuple[Any, ...]:
        """What changes while the group moves towards settled: equal twice, nothing moved."""
        return (self.state, self.member_ids, self.reconciled,
                tuple(sorted(self.owners.items())), tuple(sorted(self.pending.items())))


def _tps(assignment: Any) -> set[tuple[str, int]]:
    parts = assignment.topic_partitions if assignment is not None else []
    return {(tp.topic, tp.partition) for tp in parts}


def read_to_end(view: CoordinatorView, clients: Mapping[str, RdkafkaConsumer], topic: str,
                per_partition: int) -> dict[int, str]:
    """Partition -> owner, for the partitions whose coordinator-named owner has received all
    ``per_partition`` records of it (its librdkafka statistics, ``rxmsgs``)."""
    fetched = {member: c.fetches() for member, c in clients.items()}
    done = {}
    for p, member in view.owner().items():
        f = fetched.get(member, {}).get((topic, p))
        if f is not None and f.records >= per_partition:
            done[p] = member
    return done


@dataclass(frozen=True)
class ClientsView:
    """The members' own view (librdkafka ``assignment()``), set against the coordinator's.

    ``owned_once``: partitions exactly one client lists; ``owned_twice``: partitions two or
    more clients list (a member still listing what it gave up); ``disagree``: partitions whose
    listing clients are not exactly the coordinator's single owner."""

    owned_once: int
    owned_twice: int
    disagree: int

    @classmethod
    def of(cls, clients: Sequence[RdkafkaConsumer], view: CoordinatorView | None) -> ClientsView:
        listed: dict[int, list[str | None]] = {}
        for c in clients:
            for _, p in c.assignment():
                listed.setdefault(p, []).append(c.member_id)
        owner = view.owner() if view is not None else {}
        partitions = set(listed) | set(view.owners if view is not None else ())
        disagree = sum(1 for p in partitions if listed.get(p) != ([owner[p]] if p in owner else None))
        return cls(sum(1 for ms in listed.values() if len(ms) == 1),
                   sum(1 for ms in listed.values() if len(ms) > 1), disagree)


def wire(view: CoordinatorView, views: Iterable[ClientView], racks: Mapping[int, str | None],
         placement: Sequence[Sequence[int]]) -> dict[str, Any]:
    """Cross-rack partitions by the coordinator's assignment (the owner's rack holds no replica
    of it), and every byte the clients received by the broker they fetched it from: cross-rack
    when that broker's rack is not the client's. ``stray``: bytes a client received of a
    partition the coordinator now gives another member (read before the partition moved, as
    the first members own everything until the others join, or after giving it up);
    ``unknown_source``: bytes whose client names no broker for the partition any more."""
    views = list(views)
    rack_of = {v.member_id: v.rack for v in views}
    owner = view.owner()
    cross_parts = sum(1 for p, m in owner.items()
                      if rack_of.get(m) not in {racks.get(b) for b in placement[p]})
    total = cross = stray = stray_cross = unknown = 0
    for v in views:
        for (_, p), f in v.fetches.items():
            total += f.bytes
            source = racks.get(f.fetched_from) if f.fetched_from is not None else None
            is_cross = source is not None and source != v.rack
            unknown += f.bytes if source is None else 0
            cross += f.bytes if is_cross else 0
            if owner.get(p) != v.member_id:
                stray += f.bytes
                stray_cross += f.bytes if is_cross else 0
    loads = [sum(1 for m in owner.values() if m == member) for member in view.member_ids]
    return {
        "assigned": len(owner), "max_load": max(loads, default=0), "min_load": min(loads, default=0),
        "cross_rack_partitions": cross_parts,
        "cross_rack_bytes": cross, "fetched_bytes": total,
        "cross_rack_bytes_pct": round(100 * cross / total, 1) if total else None,
        "stray_bytes": stray, "stray_cross_rack_bytes": stray_cross,
        "unknown_source_bytes": unknown,
    }
