"""The sticky assignors' UserData (inside a subscription's ``user_data`` bytes).

* ``sticky`` (Java ``StickyAssignor``): V1 is ``previous_assignment: [{topic, [int32]}]`` then
  ``generation: int32``; V0 has no generation. Java's reader tries V1, then V0.
* ``cooperative-sticky`` (Java): a single int32 ``generation``. librdkafka's cooperative-sticky
  writes the *sticky V1* format instead; Java only reads the int32 when the subscription has
  no GenerationId field, so the mismatch is harmless there.

Example: previous ``t1:[0,1]``, generation 5 →
``00000001 00027431 00000002 00000000 00000001 00000005``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from protocol.consumer import TOPIC_PARTITION, TopicPartitions
from protocol.errors import ProtocolError, decode_guard
from protocol.schema import INT32, ArrayOf, Field, StructType
from protocol.wire import Reader


@dataclass(slots=True)
class StickyUserData:
    """Previous assignment and, in V1, the generation it was made in (None in V0)."""

    previous_assignment: list[TopicPartitions] = field(default_factory=list)
    generation: int | None = None


@dataclass(slots=True)
class CooperativeStickyUserData:
    generation: int = -1


# Versions here are the schema names V0/V1: they are not written on the wire.
STICKY_USER_DATA = StructType("StickyAssignorUserData", StickyUserData, [
    Field("previous_assignment", ArrayOf(TOPIC_PARTITION), "0+", "partitions owned before"),
    Field("generation", INT32, "1+", "generation of that assignment"),
])

COOPERATIVE_STICKY_USER_DATA = StructType(
    "CooperativeStickyAssignorUserData", CooperativeStickyUserData,
    [Field("generation", INT32, "0+", "last generation seen in onAssignment, -1 initially")],
)


@decode_guard("sticky user data")
def decode_sticky_user_data(data: bytes) -> StickyUserData:
    """V1 if it parses, else V0 (as Java); ProtocolError if neither does."""
    try:
        return STICKY_USER_DATA.decode_body(Reader(data), 1)
    except ProtocolError:
        pass
    try:
        return STICKY_USER_DATA.decode_body(Reader(data), 0)
    except ProtocolError as exc:
        raise ProtocolError(f"sticky user data: neither V1 nor V0 ({exc})") from None


def encode_sticky_user_data(data: StickyUserData) -> bytes:
    """V1 when a generation is set, V0 otherwise."""
    out = bytearray()
    try:
        STICKY_USER_DATA.encode_body(out, data, 0 if data.generation is None else 1)
    except struct.error as exc:
        raise ProtocolError(f"sticky user data: value out of range ({exc})") from None
    return bytes(out)


@decode_guard("cooperative-sticky user data")
def decode_cooperative_sticky_user_data(data: bytes) -> CooperativeStickyUserData:
    return COOPERATIVE_STICKY_USER_DATA.decode_body(Reader(data), 0)


def encode_cooperative_sticky_user_data(data: CooperativeStickyUserData) -> bytes:
    out = bytearray()
    try:
        COOPERATIVE_STICKY_USER_DATA.encode_body(out, data, 0)
    except struct.error as exc:
        raise ProtocolError(f"cooperative-sticky user data: out of range ({exc})") from None
    return bytes(out)
