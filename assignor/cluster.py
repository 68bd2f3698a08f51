"""ClusterView: where every partition's replicas live, the one input all assignors share.

Built from a scenario's ``cluster`` section (docs/architecture.md § Scenarios) or, by the agent, from
AdminClient ``describe_cluster``/``describe_topics``. A broker with no rack, or a replica
whose broker is not known, contributes no rack: such a replica is "unknown", never a
different rack.

Where a member reads from (KIP-392): with ``follower_fetching`` (every broker sets
``replica.selector.class`` to RackAwareReplicaSelector) a member that sets ``client.rack``
reads from a replica in its rack when there is one, otherwise from the leader; without it,
or for a member without a rack, every read goes to the leader. ``leaders`` holds each
partition's current leader (absent: the first replica, the preferred leader).
``bytes_per_s`` is measured traffic (agent.brokers.traffic); ``weights`` is what the solvers weigh.

Example::

    view = ClusterView.from_dict({"brokers": {"1": "az1", "2": "az2"},
                                  "topics": {"orders": [[1, 2], [2]]}})
    view.racks("orders", 1)   # ("az2",)
    view.partition_count("orders")   # 2
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assignor.errors import AssignorError


@dataclass(frozen=True, order=True)
class TopicPartition:
    """A (topic, partition) pair; orders by topic then partition."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class ClusterView:
    """Immutable replica placement: brokers -> rack, topic -> per-partition replica brokers."""

    brokers: Mapping[int, str | None]
    topics: Mapping[str, tuple[tuple[int, ...], ...]]
    weights: Mapping[TopicPartition, float] = field(default_factory=dict)
    leaders: Mapping[TopicPartition, int] = field(default_factory=dict)
    follower_fetching: bool = True
    bytes_per_s: Mapping[TopicPartition, float] = field(default_factory=dict)
    _racks: dict[str, tuple[tuple[str, ...], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _all_racks: list[tuple[str, ...]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for topic in sorted(self.topics):
            self._racks[topic] = tuple(
                tuple(sorted({r for b in replicas if (r := self.brokers.get(b))}))
                for replicas in self.topics[topic]
            )

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ClusterView:
        """Read a scenario ``cluster`` object; a malformed one raises AssignorError."""
        try:
            brokers_raw = doc.get("brokers", {})
            brokers = {int(k): (str(v) if v not in (None, "") else None) for k, v in brokers_raw.items()}
            topics: dict[str, tuple[tuple[int, ...], ...]] = {}
            for name, parts in doc.get("topics", {}).items():
                topics[str(name)] = tuple(tuple(int(b) for b in replicas) for replicas in parts)
            weights = _per_partition(doc.get("weights"), "weight")
            rates = _per_partition(doc.get("bytes_per_s"), "bytes_per_s")
            leaders = {
                TopicPartition(str(name), index): int(b)
                for name, per_partition in (doc.get("leaders") or {}).items()
                for index, b in enumerate(per_partition)
                if b is not None and int(b) >= 0
            }
            follower_fetching = doc.get("follower_fetching", True)
            if not isinstance(follower_fetching, bool):
                raise ValueError("follower_fetching must be true or false")
        except (AttributeError, TypeError, ValueError) as exc:
            raise AssignorError(
                "scenario 'cluster' must be {brokers: {id: rack|null}, topics: {name: [[broker,...],...]}}"
                f": {exc}"
            ) from None
        return cls(brokers=brokers, topics=topics, weights=weights, leaders=leaders,
                   follower_fetching=follower_fetching, bytes_per_s=rates)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "brokers": {str(b): self.brokers[b] for b in sorted(self.brokers)},
            "topics": {t: [list(r) for r in self.topics[t]] for t in sorted(self.topics)},
        }
        if self.weights:
            doc["weights"] = {
                t: [self.weight(TopicPartition(t, p)) for p in range(len(self.topics[t]))]
                for t in sorted({tp.topic for tp in self.weights})
                if t in self.topics
            }
        if self.bytes_per_s:
            doc["bytes_per_s"] = {
                t: [self.bytes_per_s.get(TopicPartition(t, p)) for p in range(len(self.topics[t]))]
                for t in sorted({tp.topic for tp in self.bytes_per_s})
                if t in self.topics
            }
        if self.leaders:
            doc["leaders"] = {
                t: [self.leaders.get(TopicPartition(t, p), -1) for p in range(len(self.topics[t]))]
                for t in sorted({tp.topic for tp in self.leaders})
                if t in self.topics
            }
        if not self.follower_fetching:
            doc["follower_fetching"] = False
        return doc

    def has_topic(self, topic: str) -> bool:
        return topic in self.topics

    def partition_count(self, topic: str) -> int:
        return len(self.topics.get(topic, ()))

    def partitions(self, topic: str) -> Iterator[TopicPartition]:
        for index in range(self.partition_count(topic)):
            yield TopicPartition(topic, index)

    def replicas(self, topic: str, partition: int) -> tuple[int, ...]:
        return self.topics[topic][partition]

    def racks(self, topic: str, partition: int) -> tuple[str, ...]:
        """Sorted known racks of a partition's replicas (empty when none is known)."""
        return self._racks[topic][partition]

    def weight(self, tp: TopicPartition) -> float:
        return self.weights.get(tp, 1.0)

    def all_racks(self) -> tuple[str, ...]:
        if not self._all_racks:  # computed once: the plan summary asks per partition
            self._all_racks.append(tuple(sorted({r for r in self.brokers.values() if r})))
        return self._all_racks[0]

    def leader(self, topic: str, partition: int) -> int | None:
        """The partition's leader: as described, else its preferred (first) replica."""
        found = self.leaders.get(TopicPartition(topic, partition))
        if found is not None:
            return found
        replicas = self.topics[topic][partition]
        return replicas[0] if replicas else None

    def leader_rack(self, topic: str, partition: int) -> str | None:
        leader = self.leader(topic, partition)
        return None if leader is None else self.brokers.get(leader)

    def reads_followers(self, member_rack: str | None) -> bool:
        """KIP-392: a member reads from followers only with a rack and a rack-aware selector."""
        return bool(member_rack) and self.follower_fetching

    def source_rack(self, topic: str, partition: int, member_rack: str | None) -> str | None:
        """The rack a member's fetches of the partition are served from (None: unknown).

        RackAwareReplicaSelector serves a replica in the client's rack when there is one and
        the leader otherwise; without it, or without client.rack, it is always the leader.
        """
        if self.reads_followers(member_rack) and member_rack in self.racks(topic, partition):
            return member_rack
        return self.leader_rack(topic, partition)

    def is_cross_rack(self, topic: str, partition: int, member_rack: str | None) -> bool:
        """The member (with ``client.rack`` = member_rack) does not read it in its own rack.

        With follower fetching KIP-925's rule: no replica in the member's rack. Without it:
        the leader is in another rack. Unknown racks never count as cross (a member without
        a rack is costed separately, by assignor.cost, as rack-unknown).
        """
        if not member_rack:
            return False
        if self.follower_fetching:
            racks = self.racks(topic, partition)
            return bool(racks) and member_rack not in racks
        leader_rack = self.leader_rack(topic, partition)
        return leader_rack is not None and leader_rack != member_rack

    def traffic(self, tp: TopicPartition) -> float | None:
        """Measured bytes/s of a partition, or None when it was not measured."""
        return self.bytes_per_s.get(tp)

    def restricted(self, topics: Sequence[str]) -> ClusterView:
        keep = {t: self.topics[t] for t in topics if t in self.topics}

        def mine(m: Mapping[TopicPartition, Any]) -> dict[TopicPartition, Any]:
            return {k: v for k, v in m.items() if k.topic in keep}

        return ClusterView(self.brokers, keep, mine(self.weights), mine(self.leaders),
                           self.follower_fetching, mine(self.bytes_per_s))


def _per_partition(raw: Any, what: str) -> dict[TopicPartition, float]:
    """``{topic: [value per partition]}`` (null entries skipped); negatives are refused."""
    out: dict[TopicPartition, float] = {}
    for name, per_partition in (raw or {}).items():
        for index, value in enumerate(per_partition):
            if value is None:
                continue
            if float(value) < 0:
                raise AssignorError(f"{what} of {name}-{index} is negative")
            out[TopicPartition(str(name), index)] = float(value)
    return out
