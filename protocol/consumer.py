"""Kafka's classic consumer protocol: ConsumerProtocolSubscription and ConsumerProtocolAssignment.

The bytes travel as JoinGroup ``protocols[].metadata`` and SyncGroup ``assignment``: an int16
version header, then the message body at that version (non-flexible, no tagged fields).
Field tables follow ``clients/src/main/resources/common/message/ConsumerProtocol*.json``.

Decoding follows Java's ``ConsumerProtocol``: a version above the newest known (3) is read
with the v3 layout and the trailing bytes are ignored; a negative version is an error. The
``version`` attribute keeps the header as read. Encoding writes exactly the lists it is given
(so Java's bytes re-encode to the same bytes); :func:`java_subscription` and
:func:`java_assignment` put input in the order Java's serializer would.

Example::

    sub = Subscription(topics=["t1"], owned_partitions=[TopicPartitions("t1", [0, 1])],
                       generation_id=5, rack_id="az1")
    encode_subscription(sub).hex()
    # '00030000000100027431ffffffff0000000100027431000000020000000000000001000000050003617a31'
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ProtocolError, decode_guard
from protocol.schema import (
    INT32,
    NULLABLE_BYTES,
    NULLABLE_STRING,
    STRING,
    ArrayOf,
    Field,
    StructType,
)
from protocol.wire import Reader, w_int16

HIGHEST_VERSION = 3
NO_GENERATION = -1


@dataclass(slots=True)
class TopicPartitions:
    """A topic and some of its partition ids, in the order they are on the wire."""

    topic: str = ""
    partitions: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Subscription:
    """A member's JoinGroup metadata. ``rack_id`` keeps null (None) and "" apart as on the wire."""

    topics: list[str] = field(default_factory=list)
    user_data: bytes | None = None
    owned_partitions: list[TopicPartitions] = field(default_factory=list)
    generation_id: int = NO_GENERATION
    rack_id: str | None = None
    version: int = HIGHEST_VERSION

    @property
    def rack(self) -> str | None:
        """The rack as Java's assignors see it: null and "" both mean no rack."""
        return self.rack_id or None

    @property
    def generation(self) -> int | None:
        """The generation as Java surfaces it: negative means unknown."""
        return self.generation_id if self.generation_id >= 0 else None


@dataclass(slots=True)
class Assignment:
    """What SyncGroup hands one member: its partitions and the assignor's user data."""

    assigned_partitions: list[TopicPartitions] = field(default_factory=list)
    user_data: bytes | None = None
    version: int = HIGHEST_VERSION


TOPIC_PARTITION = StructType("TopicPartition", TopicPartitions, [
    Field("topic", STRING, "0+", "the topic name"),
    Field("partitions", ArrayOf(INT32), "0+", "the partition ids"),
])

SUBSCRIPTION = StructType("ConsumerProtocolSubscription", Subscription, [
    Field("topics", ArrayOf(STRING), "0+", "topics the member wants"),
    Field("user_data", NULLABLE_BYTES, "0+", "assignor-specific; null is ff ff ff ff"),
    Field("owned_partitions", ArrayOf(TOPIC_PARTITION), "1+", "KIP-429 owned partitions"),
    Field("generation_id", INT32, "2+", "generation of the owned partitions, -1 unknown"),
    Field("rack_id", NULLABLE_STRING, "3+", "KIP-881 client.rack; null is ff ff"),
])

ASSIGNMENT = StructType("ConsumerProtocolAssignment", Assignment, [
    Field("assigned_partitions", ArrayOf(TOPIC_PARTITION), "0+", "the member's partitions"),
    Field("user_data", NULLABLE_BYTES, "0+", "assignor-specific; null is ff ff ff ff"),
])


def _read_header(r: Reader, what: str) -> int:
    version = r.int16()
    if version < 0:
        raise ProtocolError(f"{what}: negative version {version}")
    return version


@decode_guard("ConsumerProtocolSubscription")
def decode_subscription(data: bytes) -> Subscription:
    """Parse JoinGroup metadata; any malformed input raises ProtocolError."""
    r = Reader(data)
    version = _read_header(r, "ConsumerProtocolSubscription")
    return SUBSCRIPTION.decode_body(r, min(version, HIGHEST_VERSION), version=version)


@decode_guard("ConsumerProtocolAssignment")
def decode_assignment(data: bytes) -> Assignment:
    """Parse a SyncGroup assignment; any malformed input raises ProtocolError.

    Like Java (not librdkafka) an empty buffer is an error: it has no version.
    """
    r = Reader(data)
    version = _read_header(r, "ConsumerProtocolAssignment")
    return ASSIGNMENT.decode_body(r, min(version, HIGHEST_VERSION), version=version)


def _encode(schema: StructType[Any], value: object, version: int) -> bytes:
    if not 0 <= version <= HIGHEST_VERSION:
        raise ProtocolError(
            f"{schema.name}: cannot write version {version}, only 0-{HIGHEST_VERSION}")
    out = bytearray()
    w_int16(out, version)
    try:
        schema.encode_body(out, value, version)
    except struct.error as exc:
        raise ProtocolError(f"{schema.name}: value out of range ({exc})") from None
    return bytes(out)


def encode_subscription(sub: Subscription, version: int | None = None) -> bytes:
    """Bytes of ``sub`` at ``version`` (default ``sub.version``); fields newer than it are
    dropped silently, as Java does for its ignorable fields."""
    return _encode(SUBSCRIPTION, sub, sub.version if version is None else version)


def encode_assignment(asg: Assignment, version: int | None = None) -> bytes:
    """Bytes of ``asg`` at ``version`` (default ``asg.version``); the body of v0-v3 is the same."""
    return _encode(ASSIGNMENT, asg, asg.version if version is None else version)


def group_by_topic(pairs: Iterable[tuple[str, int]]) -> list[TopicPartitions]:
    """(topic, partition) pairs to per-topic entries, topics in first-seen order."""
    grouped: dict[str, list[int]] = {}
    for topic, partition in pairs:
        grouped.setdefault(topic, []).append(partition)
    return [TopicPartitions(t, ps) for t, ps in grouped.items()]


def java_subscription(topics: Iterable[str], owned: Iterable[tuple[str, int]] = (),
                      user_data: bytes | None = None, generation_id: int = NO_GENERATION,
                      rack_id: str | None = None) -> Subscription:
    """A subscription in the order Java's ConsumerProtocol.serializeSubscription writes it:
    topics sorted, owned partitions sorted by (topic, partition) and grouped by topic."""
    return Subscription(topics=sorted(topics), user_data=user_data,
                        owned_partitions=group_by_topic(sorted(owned)),
                        generation_id=generation_id, rack_id=rack_id)


def java_assignment(partitions: Iterable[tuple[str, int]],
                    user_data: bytes | None = None) -> Assignment:
    """An assignment as Java's serializeAssignment writes it: grouped by topic in first-seen
    order, partitions in the order given (no sorting)."""
    return Assignment(assigned_partitions=group_by_topic(partitions), user_data=user_data)
