"""Kafka Streams' SubscriptionInfo: the consumer-protocol UserData of a Streams member.

A generated Kafka message (``streams/src/main/resources/common/message/SubscriptionInfoData.json``,
versions 1-11 in kafka-streams 4.3.1, non-flexible) *without* the int16 header: its first
field is an int32 ``version``. The table below is that JSON file, field for field.

Java's ``SubscriptionInfo.decode``: a version above the newest it knows (11) is read as just
``version`` and ``latest_supported_version``; the rest is not parsed. Then it rejects
(``validateVersions``) a latest-supported of -1 except in v1/v2, and a version above the
latest supported one. We do the same, raising ProtocolError.

Offset sums (v7+): -2 marks a running active task, -3 an unknown one, >= 0 the checkpointed
changelog offsets summed. Before v7 there are just ``prev_tasks`` and ``standby_tasks``.

Example: v11, process 00..01, endpoint "h:1", one active task 0_0, no tags::

    SubscriptionInfo(version=11, latest_supported_version=11, process_id=UUID(int=1),
                     user_end_point=b"h:1", task_offset_sums=[TaskOffsetSum(0, 0, -2)])
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field
from typing import NamedTuple

from protocol.errors import ProtocolError, decode_guard
from protocol.schema import (
    BYTES,
    INT8,
    INT32,
    INT64,
    NULLABLE_STRING,
    UUID,
    ArrayOf,
    Field,
    StructType,
)
from protocol.wire import Reader

LATEST_SUPPORTED_VERSION = 11
MIN_OFFSET_SUM_VERSION = 7
MIN_NAMED_TOPOLOGY_VERSION = 10
UNKNOWN = -1
LATEST_OFFSET = -2  # Task.LATEST_OFFSET: the task runs as an active
UNKNOWN_OFFSET_SUM = -3


class TaskId(NamedTuple):
    """A Streams task: subtopology and partition (and the named topology, if any)."""

    subtopology: int
    partition: int
    topology: str | None = None

    def __str__(self) -> str:
        base = f"{self.subtopology}_{self.partition}"
        return f"{self.topology}__{base}" if self.topology else base

    def sort_key(self) -> tuple[str, int, int]:
        """Order by named topology (none first), subtopology, partition; None-safe."""
        return (self.topology or "", self.subtopology, self.partition)

    @classmethod
    def parse(cls, text: str) -> TaskId:
        """``"0_3"`` -> TaskId(0, 3); ``"name__0_3"`` names a topology (as ``str`` prints it)."""
        topology, sep, rest = str(text).rpartition("__")
        head, underscore, tail = rest.partition("_")
        try:
            if not underscore:
                raise ValueError(text)
            return cls(int(head), int(tail), topology if sep else None)
        except ValueError:
            raise ProtocolError(f"task id {text!r} is not '<subtopology>_<partition>'") from None


@dataclass(slots=True)
class TaskIdData:
    topic_group_id: int = 0
    partition: int = 0


@dataclass(slots=True)
class PartitionToOffsetSum:
    partition: int = 0
    offset_sum: int = 0


@dataclass(slots=True)
class TaskOffsetSum:
    """v10+: one task per entry; v7-9: a subtopology with its partitions' sums nested."""

    topic_group_id: int = 0
    partition: int = 0
    offset_sum: int = 0
    named_topology: str | None = ""  # Java's generated default when absent; null on the wire
    partition_to_offset_sum: list[PartitionToOffsetSum] = field(default_factory=list)


@dataclass(slots=True)
class ClientTag:
    key: bytes = b""
    value: bytes = b""


@dataclass(slots=True)
class SubscriptionInfo:
    """SubscriptionInfoData, field for field (absent fields keep Java's defaults)."""

    version: int = LATEST_SUPPORTED_VERSION
    latest_supported_version: int = UNKNOWN
    process_id: uuid.UUID = uuid.UUID(int=0)
    prev_tasks: list[TaskIdData] = field(default_factory=list)
    standby_tasks: list[TaskIdData] = field(default_factory=list)
    user_end_point: bytes = b""
    task_offset_sums: list[TaskOffsetSum] = field(default_factory=list)
    unique_field: int = 0
    error_code: int = 0
    client_tags: list[ClientTag] = field(default_factory=list)

    @property
    def is_future_version(self) -> bool:
        """Sent by a newer Streams: only version and latest_supported_version were read."""
        return self.version > LATEST_SUPPORTED_VERSION

    def offset_sums(self) -> dict[TaskId, int]:
        """Task -> offset sum as Java's ``taskOffsetSums()`` (v<7: actives -2, standbys -3)."""
        sums: dict[TaskId, int] = {}
        if self.version >= MIN_OFFSET_SUM_VERSION:
            for t in self.task_offset_sums:
                if self.version >= MIN_NAMED_TOPOLOGY_VERSION:
                    sums[TaskId(t.topic_group_id, t.partition, t.named_topology or None)] = (
                        t.offset_sum)
                else:
                    for p in t.partition_to_offset_sum:
                        sums[TaskId(t.topic_group_id, p.partition)] = p.offset_sum
        else:
            for s in self.prev_tasks:
                sums[TaskId(s.topic_group_id, s.partition)] = LATEST_OFFSET
            for s in self.standby_tasks:
                sums.setdefault(TaskId(s.topic_group_id, s.partition), UNKNOWN_OFFSET_SUM)
        return sums

    def active_tasks(self) -> list[TaskId]:
        """Tasks the client ran as active (sorted)."""
        return sorted((t for t, s in self.offset_sums().items() if s == LATEST_OFFSET),
                      key=TaskId.sort_key)

    def standby_task_ids(self) -> list[TaskId]:
        """Tasks with local state that are not running as active (sorted)."""
        return sorted((t for t, s in self.offset_sums().items() if s != LATEST_OFFSET),
                      key=TaskId.sort_key)

    @property
    def endpoint(self) -> str | None:
        """``host:port`` of the interactive-query endpoint; empty means none (as Java)."""
        return self.user_end_point.decode("utf-8", "replace") if self.user_end_point else None

    def tags(self) -> dict[str, str]:
        return {t.key.decode("utf-8", "replace"): t.value.decode("utf-8", "replace")
                for t in self.client_tags}


TASK_ID = StructType("TaskId", TaskIdData, [
    Field("topic_group_id", INT32, "1-6", "subtopology"),
    Field("partition", INT32, "1-6"),
])
PARTITION_TO_OFFSET_SUM = StructType("PartitionToOffsetSum", PartitionToOffsetSum, [
    Field("partition", INT32, "7-9"),
    Field("offset_sum", INT64, "7-9"),
])
TASK_OFFSET_SUM = StructType("TaskOffsetSum", TaskOffsetSum, [
    Field("topic_group_id", INT32, "7+", "subtopology"),
    Field("partition", INT32, "10+"),
    Field("offset_sum", INT64, "10+"),
    Field("named_topology", NULLABLE_STRING, "10+"),
    Field("partition_to_offset_sum", ArrayOf(PARTITION_TO_OFFSET_SUM), "7-9"),
])
CLIENT_TAG = StructType("ClientTag", ClientTag, [
    Field("key", BYTES, "11+"),
    Field("value", BYTES, "11+"),
])
SUBSCRIPTION_INFO = StructType("SubscriptionInfo", SubscriptionInfo, [
    Field("version", INT32, "1+", "the version of this message"),
    Field("latest_supported_version", INT32, "3+", "version probing (KIP-268)"),
    Field("process_id", UUID, "1+", "the Streams instance"),
    Field("prev_tasks", ArrayOf(TASK_ID), "1-6", "active tasks last generation"),
    Field("standby_tasks", ArrayOf(TASK_ID), "1-6", "tasks with local state"),
    Field("user_end_point", BYTES, "2+", "application.server host:port, empty if unset"),
    Field("task_offset_sums", ArrayOf(TASK_OFFSET_SUM), "7+", "KIP-441 lags"),
    Field("unique_field", INT8, "8+", "changes each probing rebalance"),
    Field("error_code", INT32, "9+", "KIP-671: 4 = shutdown requested"),
    Field("client_tags", ArrayOf(CLIENT_TAG), "11+", "KIP-708 client.tag.*"),
])


def _validate(info: SubscriptionInfo) -> None:
    v, latest = info.version, info.latest_supported_version
    if latest == UNKNOWN and not 1 <= v <= 2:
        raise ProtocolError(f"SubscriptionInfo: version {v} must carry a latest supported version")
    if latest != UNKNOWN and not 1 <= v <= latest:
        raise ProtocolError(
            f"SubscriptionInfo: version {v} not within 1..{latest} (latest supported)")


@decode_guard("SubscriptionInfo")
def decode_subscription_info(data: bytes, exact: bool = False) -> SubscriptionInfo:
    """Parse Streams' SubscriptionInfo; ``exact`` also rejects trailing bytes (Java ignores
    them; used to tell Streams user data from other assignors')."""
    r = Reader(data)
    version = r.int32()
    if version < 1:
        raise ProtocolError(f"SubscriptionInfo: unknown version {version}")
    if version > LATEST_SUPPORTED_VERSION:
        info = SubscriptionInfo(version=version, latest_supported_version=r.int32())
    else:
        r.pos = 0
        info = SUBSCRIPTION_INFO.decode_body(r, version)
    _validate(info)
    if exact and r.remaining:
        raise ProtocolError(f"SubscriptionInfo: {r.remaining} bytes after the message")
    return info


def encode_subscription_info(info: SubscriptionInfo) -> bytes:
    """The bytes Java's ``SubscriptionInfo.encode`` writes for the same data."""
    if not 1 <= info.version <= LATEST_SUPPORTED_VERSION:
        raise ProtocolError(f"SubscriptionInfo: cannot write version {info.version}")
    _validate(info)
    out = bytearray()
    try:
        SUBSCRIPTION_INFO.encode_body(out, info, info.version)
    except struct.error as exc:
        raise ProtocolError(f"SubscriptionInfo: value out of range ({exc})") from None
    return bytes(out)


def build_subscription_info(version: int, process_id: uuid.UUID, offset_sums: dict[TaskId, int],
                            endpoint: str | None = None, unique_field: int = 0,
                            error_code: int = 0, client_tags: dict[str, str] | None = None,
                            latest_supported_version: int = LATEST_SUPPORTED_VERSION
                            ) -> SubscriptionInfo:
    """What Java's ``new SubscriptionInfo(version, latest, ...)`` holds, tasks in sorted order."""
    items = sorted(offset_sums.items(), key=lambda kv: kv[0].sort_key())
    info = SubscriptionInfo(version=version, process_id=process_id,
                            latest_supported_version=latest_supported_version if version >= 3
                            else UNKNOWN,
                            user_end_point=(endpoint or "").encode() if version >= 2 else b"")
    if version >= MIN_NAMED_TOPOLOGY_VERSION:
        info.task_offset_sums = [TaskOffsetSum(t.subtopology, t.partition, s, t.topology)
                                 for t, s in items]
    elif version >= MIN_OFFSET_SUM_VERSION:
        grouped: dict[int, list[PartitionToOffsetSum]] = {}
        for t, s in items:
            grouped.setdefault(t.subtopology, []).append(PartitionToOffsetSum(t.partition, s))
        info.task_offset_sums = [TaskOffsetSum(g, partition_to_offset_sum=ps)
                                 for g, ps in grouped.items()]
    else:
        info.prev_tasks = [TaskIdData(t.subtopology, t.partition)
                           for t, s in items if s == LATEST_OFFSET]
        info.standby_tasks = [TaskIdData(t.subtopology, t.partition)
                              for t, s in items if s != LATEST_OFFSET]
    if version >= 8:
        info.unique_field = unique_field
    if version >= 9:
        info.error_code = error_code
    if version >= 11:
        info.client_tags = [ClientTag(k.encode(), v.encode())
                            for k, v in sorted((client_tags or {}).items())]
    return info
