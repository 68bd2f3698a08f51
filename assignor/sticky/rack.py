"""Shared state of the sticky builders: partitions as integers and Kafka's ``RackInfo``.

Partitions are numbered 0..P-1 over the sorted subscribed topics (topic order, then
partition), so "sorted by (topic, partition)" is integer order. Racks become bit masks.
``RackInfo`` follows AbstractStickyAssignor: rack logic is on only when the whole group
passes ``useRackAwareAssignment``; the per-partition count of rack-local consumers is computed
whenever any consumer has a rack, and (as in Java) orders the unassigned partitions even
when rack logic is off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assignor.cluster import ClusterView, TopicPartition
from assignor.model import Member
from assignor.range import use_rack_aware


class Universe:
    """The partitions being assigned, indexed."""

    def __init__(self, cluster: ClusterView, topics: Sequence[str]) -> None:
        self.topics = list(topics)
        self.offset: dict[str, int] = {}
        self.count: dict[str, int] = {}
        total = 0
        for t in self.topics:
            self.offset[t] = total
            self.count[t] = cluster.partition_count(t)
            total += self.count[t]
        self.size = total
        self.topic_index = np.repeat(
            np.arange(len(self.topics)), [self.count[t] for t in self.topics]
        )
        self.part_no = np.concatenate(
            [np.arange(self.count[t]) for t in self.topics] or [np.zeros(0, dtype=np.int64)]
        )

    def index(self, tp: TopicPartition) -> int | None:
        off = self.offset.get(tp.topic)
        if off is None or tp.partition >= self.count[tp.topic]:
            return None
        return off + tp.partition

    def tp(self, g: int) -> TopicPartition:
        return TopicPartition(self.topics[int(self.topic_index[g])], int(self.part_no[g]))


class RackInfo:
    """Consumer racks and partition racks, switched on only when rack-aware assignment helps."""

    def __init__(self, cluster: ClusterView, uni: Universe, members: Sequence[Member]) -> None:
        consumer_racks = {m.member_id: m.rack for m in members if m.rack}
        self.enabled = False
        self.consumer_bit: dict[str, int] = {}
        self.partition_mask = np.zeros(uni.size, dtype=np.int64)
        self.num_consumers: np.ndarray | None = None
        if not consumer_racks or uni.size == 0:
            return
        all_racks = sorted(set(consumer_racks.values()) | set(cluster.all_racks()))
        bit = {r: 1 << i for i, r in enumerate(all_racks)}
        per_partition: list[frozenset[str]] = []
        mask = self.partition_mask
        for t in uni.topics:
            off = uni.offset[t]
            for p in range(uni.count[t]):
                racks = frozenset(cluster.racks(t, p))
                per_partition.append(racks)
                m = 0
                for r in racks:
                    m |= bit[r]
                mask[off + p] = m
        partition_racks: set[str] = set().union(*per_partition)
        by_rack: dict[str, int] = {}
        for r in consumer_racks.values():
            by_rack[r] = by_rack.get(r, 0) + 1
        rack_count = np.zeros(len(all_racks), dtype=np.int64)
        for r, n in by_rack.items():
            rack_count[all_racks.index(r)] = n
        counts = np.zeros(uni.size, dtype=np.int64)
        for i in range(len(all_racks)):
            counts += ((mask >> i) & 1) * rack_count[i]
        self.num_consumers = counts
        if use_rack_aware(set(consumer_racks.values()), partition_racks, per_partition):
            self.enabled = True
            self.consumer_bit = {m: bit[r] for m, r in consumer_racks.items()}
        else:
            self.partition_mask = np.zeros(uni.size, dtype=np.int64)

    def mismatch(self, member: str, g: int) -> bool:
        """racksMismatch: the member has a rack and no replica of the partition is there."""
        b = self.consumer_bit.get(member, 0)
        return b != 0 and not (int(self.partition_mask[g]) & b)

    def sort_by_rack_consumers(self, partitions: list[int]) -> list[int]:
        if self.num_consumers is None or not partitions:
            return partitions
        arr = np.asarray(partitions, dtype=np.int64)
        order = np.argsort(self.num_consumers[arr], kind="stable")
        return [int(x) for x in arr[order]]
