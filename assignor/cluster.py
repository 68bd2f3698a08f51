"""ClusterView: where every partition's replicas live, the one input all assignors share.

Built from a scenario's ``cluster`` section (docs/architecture.md § Scenarios) or, by the agent, from
AdminClient ``describe_cluster``/``describe_topics``. A broker with no rack, or a replica
whose broker is not known, contributes no rack: such a replica is "unknown", never a
different rack.

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
    _racks: dict[str, tuple[tuple[str, ...], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
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
            weights: dict[TopicPartition, float] = {}
            for name, per_partition in (doc.get("weights") or {}).items():
                for index, weight in enumerate(per_partition):
                    if float(weight) < 0:
                        raise AssignorError(f"weight of {name}-{index} is negative")
                    weights[TopicPartition(str(name), index)] = float(weight)
        except (AttributeError, TypeError, ValueError) as exc:
            raise AssignorError(
                "scenario 'cluster' must be {brokers: {id: rack|null}, topics: {name: [[broker,...],...]}}"
                f": {exc}"
            ) from None
        return cls(brokers=brokers, topics=topics, weights=weights)

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
        return tuple(sorted({r for r in self.brokers.values() if r}))

    def is_cross_rack(self, topic: str, partition: int, member_rack: str | None) -> bool:
        """KIP-925: no replica in the member's rack; unknown racks never count as cross."""
        racks = self.racks(topic, partition)
        return bool(member_rack) and bool(racks) and member_rack not in racks

    def restricted(self, topics: Sequence[str]) -> ClusterView:
        keep = {t: self.topics[t] for t in topics if t in self.topics}
        return ClusterView(self.brokers, keep, {k: v for k, v in self.weights.items() if k.topic in keep})
