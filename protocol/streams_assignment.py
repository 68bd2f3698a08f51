"""Kafka Streams' AssignmentInfo: the consumer-protocol assignment UserData of a Streams member.

Hand-written in Java with ``DataOutputStream`` (``AssignmentInfo.encode``), not a generated
message, so strings are ``writeUTF`` (modified UTF-8) and named topologies ``writeChars``.
The per-version switch of ``encode``/``decode`` is written here as one field table:

==========================  ========  ==============================================
field                       versions  wire
==========================  ========  ==============================================
version                     1+        int32
commonly_supported_version  3+        int32 (-1 before v3)
active_tasks                1+        [TaskId]
standby_tasks               1+        [{TaskId, [{topic utf, partition int32}]}]
partitions_by_host          2-4       [{host utf, port int32, [{topic utf, partition}]}]
topic_dictionary            5+        [{index int32, topic utf}]
host_partitions             5+        [{host utf, port int32, [{topic index, partition}]}]
standby_host_partitions     6+        same as host_partitions
error_code                  4+        int32
next_rebalance_ms           7+        int64 (Long.MAX_VALUE = none)
==========================  ========  ==============================================

TaskId is ``subtopology int32, partition int32`` and from v10 ``int32 n, n UTF-16 chars`` of the
named topology (0 = none). The Java collections are HashMaps/HashSets, so the order on the
wire is arbitrary: decoding keeps it, so re-encoding gives the same bytes;
:meth:`AssignmentInfo.partitions_by_host_map` gives the resolved, sorted view.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from protocol.errors import ProtocolError, decode_guard
from protocol.schema import INT32, INT64, JAVA_UTF, UTF16_CHARS, ArrayOf, Field, StructType
from protocol.streams import LATEST_SUPPORTED_VERSION, UNKNOWN, TaskId
from protocol.wire import Reader

NO_NEXT_REBALANCE = (1 << 63) - 1  # Long.MAX_VALUE


@dataclass(slots=True)
class TaskIdWire:
    subtopology: int = 0
    partition: int = 0
    named_topology: str = ""

    def task(self) -> TaskId:
        return TaskId(self.subtopology, self.partition, self.named_topology or None)


@dataclass(slots=True)
class NamedPartition:
    topic: str = ""
    partition: int = 0


@dataclass(slots=True)
class StandbyTask:
    task: TaskIdWire = field(default_factory=TaskIdWire)
    partitions: list[NamedPartition] = field(default_factory=list)


@dataclass(slots=True)
class HostPartitions:
    """v2-4: a host's partitions with topic names written out."""

    host: str = ""
    port: int = 0
    partitions: list[NamedPartition] = field(default_factory=list)


@dataclass(slots=True)
class TopicIndex:
    index: int = 0
    topic: str = ""


@dataclass(slots=True)
class IndexedPartition:
    topic_index: int = 0
    partition: int = 0


@dataclass(slots=True)
class HostIndexedPartitions:
    """v5+: a host's partitions with topics as indices into the topic dictionary."""

    host: str = ""
    port: int = 0
    partitions: list[IndexedPartition] = field(default_factory=list)


HostKey = tuple[str, int]
PartitionsByHost = dict[HostKey, list[tuple[str, int]]]


@dataclass(slots=True)
class AssignmentInfo:
    """AssignmentInfo as on the wire; see the module table for which field is in which version."""

    version: int = LATEST_SUPPORTED_VERSION
    commonly_supported_version: int = UNKNOWN
    active_tasks: list[TaskIdWire] = field(default_factory=list)
    standby_tasks: list[StandbyTask] = field(default_factory=list)
    partitions_by_host: list[HostPartitions] = field(default_factory=list)
    topic_dictionary: list[TopicIndex] = field(default_factory=list)
    host_partitions: list[HostIndexedPartitions] = field(default_factory=list)
    standby_host_partitions: list[HostIndexedPartitions] = field(default_factory=list)
    error_code: int = 0
    next_rebalance_ms: int = NO_NEXT_REBALANCE

    def _resolve(self, hosts: list[HostIndexedPartitions]) -> PartitionsByHost:
        names = {t.index: t.topic for t in self.topic_dictionary}
        out: PartitionsByHost = {}
        for h in hosts:
            try:
                parts = [(names[p.topic_index], p.partition) for p in h.partitions]
            except KeyError as exc:
                raise ProtocolError(f"AssignmentInfo: topic index {exc} not in the dictionary") \
                    from None
            out.setdefault((h.host, h.port), []).extend(parts)
        return {k: sorted(set(v)) for k, v in sorted(out.items())}

    def partitions_by_host_map(self) -> PartitionsByHost:
        """(host, port) -> sorted active (topic, partition) pairs, whatever the version."""
        if self.version >= 5:
            return self._resolve(self.host_partitions)
        out: PartitionsByHost = {}
        for h in self.partitions_by_host:
            out.setdefault((h.host, h.port), []).extend((p.topic, p.partition)
                                                        for p in h.partitions)
        return {k: sorted(set(v)) for k, v in sorted(out.items())}

    def standby_partitions_by_host_map(self) -> PartitionsByHost:
        return self._resolve(self.standby_host_partitions) if self.version >= 6 else {}

    def standby_task_map(self) -> dict[TaskId, list[tuple[str, int]]]:
        return {s.task.task(): sorted({(p.topic, p.partition) for p in s.partitions})
                for s in sorted(self.standby_tasks, key=lambda s: s.task.task().sort_key())}


TASK_ID = StructType("TaskId", TaskIdWire, [
    Field("subtopology", INT32, "1+"),
    Field("partition", INT32, "1+"),
    Field("named_topology", UTF16_CHARS, "10+", "0 chars = no named topology"),
])
NAMED_PARTITION = StructType("TopicPartition", NamedPartition, [
    Field("topic", JAVA_UTF, "1+"),
    Field("partition", INT32, "1+"),
])
STANDBY_TASK = StructType("StandbyTask", StandbyTask, [
    Field("task", TASK_ID, "1+"),
    Field("partitions", ArrayOf(NAMED_PARTITION), "1+", "its changelog/source partitions"),
])
HOST_PARTITIONS = StructType("HostPartitions", HostPartitions, [
    Field("host", JAVA_UTF, "1+"),
    Field("port", INT32, "1+"),
    Field("partitions", ArrayOf(NAMED_PARTITION), "1+"),
])
TOPIC_INDEX = StructType("TopicIndex", TopicIndex, [
    Field("index", INT32, "5+"),
    Field("topic", JAVA_UTF, "5+"),
])
INDEXED_PARTITION = StructType("IndexedPartition", IndexedPartition, [
    Field("topic_index", INT32, "5+"),
    Field("partition", INT32, "5+"),
])
HOST_INDEXED_PARTITIONS = StructType("HostIndexedPartitions", HostIndexedPartitions, [
    Field("host", JAVA_UTF, "5+"),
    Field("port", INT32, "5+"),
    Field("partitions", ArrayOf(INDEXED_PARTITION), "5+"),
])
ASSIGNMENT_INFO = StructType("AssignmentInfo", AssignmentInfo, [
    Field("version", INT32, "1+"),
    Field("commonly_supported_version", INT32, "3+"),
    Field("active_tasks", ArrayOf(TASK_ID), "1+"),
    Field("standby_tasks", ArrayOf(STANDBY_TASK), "1+"),
    Field("partitions_by_host", ArrayOf(HOST_PARTITIONS), "2-4", "for interactive queries"),
    Field("topic_dictionary", ArrayOf(TOPIC_INDEX), "5+", "topic names written once"),
    Field("host_partitions", ArrayOf(HOST_INDEXED_PARTITIONS), "5+"),
    Field("standby_host_partitions", ArrayOf(HOST_INDEXED_PARTITIONS), "6+"),
    Field("error_code", INT32, "4+", "AssignorError code, 0 = none"),
    Field("next_rebalance_ms", INT64, "7+", "KIP-441 probing rebalance time"),
])


@decode_guard("AssignmentInfo")
def decode_assignment_info(data: bytes, exact: bool = False) -> AssignmentInfo:
    """Parse Streams' AssignmentInfo (versions 1-11; others are an error, as in Java).

    Topic indices must be in the dictionary (Java would make a null-topic partition)."""
    r = Reader(data)
    version = r.int32()
    if not 1 <= version <= LATEST_SUPPORTED_VERSION:
        raise ProtocolError(f"AssignmentInfo: unknown version {version}")
    r.pos = 0
    info: AssignmentInfo = ASSIGNMENT_INFO.decode_body(r, version)
    info.partitions_by_host_map()
    info.standby_partitions_by_host_map()
    if exact and r.remaining:
        raise ProtocolError(f"AssignmentInfo: {r.remaining} bytes after the message")
    return info


def encode_assignment_info(info: AssignmentInfo) -> bytes:
    if not 1 <= info.version <= LATEST_SUPPORTED_VERSION:
        raise ProtocolError(f"AssignmentInfo: cannot write version {info.version}")
    out = bytearray()
    try:
        ASSIGNMENT_INFO.encode_body(out, info, info.version)
    except struct.error as exc:
        raise ProtocolError(f"AssignmentInfo: value out of range ({exc})") from None
    return bytes(out)


def build_assignment_info(version: int, active: list[TaskId],
                          standby: dict[TaskId, list[tuple[str, int]]],
                          partitions_by_host: PartitionsByHost,
                          standby_partitions_by_host: PartitionsByHost | None = None,
                          error_code: int = 0, next_rebalance_ms: int = NO_NEXT_REBALANCE,
                          commonly_supported_version: int = LATEST_SUPPORTED_VERSION
                          ) -> AssignmentInfo:
    """An AssignmentInfo from the semantic view, in sorted order, with a topic dictionary."""

    def wire_task(t: TaskId) -> TaskIdWire:
        return TaskIdWire(t.subtopology, t.partition, t.topology or "")

    info = AssignmentInfo(
        version=version,
        commonly_supported_version=commonly_supported_version if version >= 3 else UNKNOWN,
        active_tasks=[wire_task(t) for t in active],
        standby_tasks=[StandbyTask(wire_task(t), [NamedPartition(tp, p) for tp, p in sorted(ps)])
                       for t, ps in sorted(standby.items(), key=lambda kv: kv[0].sort_key())],
        error_code=error_code if version >= 4 else 0,
        next_rebalance_ms=next_rebalance_ms if version >= 7 else NO_NEXT_REBALANCE,
    )
    if 2 <= version <= 4:
        info.partitions_by_host = [HostPartitions(h, port, [NamedPartition(t, p) for t, p in ps])
                                   for (h, port), ps in sorted(partitions_by_host.items())]
    elif version >= 5:
        standby_hosts = (standby_partitions_by_host or {}) if version >= 6 else {}
        topics = sorted({t for m in (partitions_by_host, standby_hosts)
                         for ps in m.values() for t, _ in ps})
        index = {t: i for i, t in enumerate(topics)}
        info.topic_dictionary = [TopicIndex(i, t) for t, i in index.items()]

        def indexed(m: PartitionsByHost) -> list[HostIndexedPartitions]:
            return [HostIndexedPartitions(h, port, [IndexedPartition(index[t], p) for t, p in ps])
                    for (h, port), ps in sorted(m.items())]

        info.host_partitions = indexed(partitions_by_host)
        info.standby_host_partitions = indexed(standby_hosts)
    return info
