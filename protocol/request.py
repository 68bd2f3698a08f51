"""RackwiseAssignRequest: what a plug-in (plugins/, docs/architecture.md § Kafka's seams) asks
the agent to plan.

A request travels on ``rackwise.requests`` keyed by the group id, with headers
``rackwise-request-id`` (a UUID the reply repeats) and ``rackwise-kind``. Its value is a
binary envelope in Kafka's classic (non-flexible) encodings, big-endian: an int16 version
header, then the body. plugins/README.md is the full contract, request and reply.

Version 0::

    version        int16   = 0
    protocol       STRING  "classic-cooperative" | "classic-eager" | "consumer" (KIP-848)
    topics         ARRAY of { name STRING, partitions int32 }   sorted by name
    members        ARRAY of { member_id STRING, instance_id NULLABLE_STRING,
                              subscription BYTES }   ConsumerProtocolSubscription v3

Each member's subscription is decoded here (a request is decoded once, whole): any version
``protocol.consumer`` reads is accepted, though plug-ins always write v3. Only
``classic-cooperative`` needs withholding: the agent must not hand a partition to a new owner
while another member still owns it; under ``classic-eager`` members own nothing when they
join, and under ``consumer`` the broker revokes before it assigns.

Example::

    req = AssignRequest(protocol="consumer", topics=(RequestTopic("orders", 3),),
                        members=(RequestMember("m1", None, java_subscription(["orders"])),))
    decode_request(encode_request(req)) == req   # True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Literal, get_args

from protocol import wire
from protocol.consumer import Subscription, decode_subscription, encode_subscription
from protocol.errors import ProtocolError
from protocol.schema import (
    INT32,
    NULLABLE_STRING,
    STRING,
    ArrayOf,
    Field,
    ReadFn,
    StructType,
    WireType,
    WriteFn,
)
from protocol.wire import Reader, w_int16

REQUEST_VERSION = 0

RequestProtocol = Literal["classic-cooperative", "classic-eager", "consumer"]
PROTOCOLS: tuple[str, ...] = get_args(RequestProtocol)

# Record headers of the request/reply exchange (plugins/README.md). ``rackwise-kind`` is
# agent.routing.KIND_HEADER.
REQUEST_ID_HEADER = "rackwise-request-id"
ERROR_HEADER = "rackwise-error"
ERROR_DETAIL_HEADER = "rackwise-error-detail"


@dataclass(frozen=True, slots=True)
class RequestTopic:
    """A subscribed topic and its partition count as the caller sees it."""

    name: str
    partitions: int


@dataclass(frozen=True, slots=True)
class RequestMember:
    """One member: id, static instance id (None when dynamic) and its decoded subscription."""

    member_id: str
    instance_id: str | None
    subscription: Subscription


@dataclass(frozen=True, slots=True)
class AssignRequest:
    """A whole group as the plug-in sees it at one rebalance."""

    protocol: RequestProtocol
    topics: tuple[RequestTopic, ...] = ()
    members: tuple[RequestMember, ...] = ()
    version: int = REQUEST_VERSION

    def __post_init__(self) -> None:
        # The generic decoder hands over lists; the model keeps tuples (frozen all the way).
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "members", tuple(self.members))

    @property
    def cooperative(self) -> bool:
        """True when a partition must be revoked from its owner before anyone else gets it."""
        return self.protocol == "classic-cooperative"


class _SubscriptionBytes(WireType):
    """BYTES holding a ConsumerProtocolSubscription: decoded on read, encoded on write."""

    name = "subscription bytes"

    def min_size(self, version: int) -> int:
        return 4

    def reader(self, version: int, what: str) -> ReadFn:
        def read(r: Reader) -> Subscription:
            data = r.bytes_(what)
            assert data is not None  # non-nullable: bytes_ raised on -1
            try:
                return decode_subscription(data)
            except ProtocolError as exc:
                raise ProtocolError(f"{what}: {exc}") from None

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        def write(out: bytearray, value: Any) -> None:
            if not isinstance(value, Subscription):
                raise ProtocolError(f"{what}: expected a Subscription, got {type(value).__name__}")
            wire.w_bytes(out, encode_subscription(value))

        return write


REQUEST_TOPIC = StructType("RequestTopic", RequestTopic, [
    Field("name", STRING, "0+", "topic name"),
    Field("partitions", INT32, "0+", "partition count the caller sees"),
])

REQUEST_MEMBER = StructType("RequestMember", RequestMember, [
    Field("member_id", STRING, "0+", "the group member id"),
    Field("instance_id", NULLABLE_STRING, "0+", "group.instance.id; null is ff ff"),
    Field("subscription", _SubscriptionBytes(), "0+", "ConsumerProtocolSubscription, int32 length"),
])

ASSIGN_REQUEST = StructType("RackwiseAssignRequest", AssignRequest, [
    Field("protocol", STRING, "0+", "classic-cooperative | classic-eager | consumer"),
    Field("topics", ArrayOf(REQUEST_TOPIC), "0+", "subscribed topics, sorted by name"),
    Field("members", ArrayOf(REQUEST_MEMBER), "0+", "the group's members"),
])

# Anything a bug in a reader could raise on hostile input is still reported as ProtocolError.
_UNEXPECTED = (struct.error, UnicodeError, ValueError, IndexError, KeyError, TypeError,
               OverflowError, MemoryError, RecursionError)


def _check(req: AssignRequest) -> AssignRequest:
    """What the field table cannot say: known protocol, counts >= 0, no duplicates."""
    if req.protocol not in PROTOCOLS:
        raise ProtocolError(f"RackwiseAssignRequest.protocol: unknown protocol {req.protocol!r}, "
                            f"expected one of {', '.join(PROTOCOLS)}")
    names: set[str] = set()
    for t in req.topics:
        if t.partitions < 0:
            raise ProtocolError(f"RackwiseAssignRequest.topics: topic {t.name!r} has a negative "
                                f"partition count {t.partitions}")
        if t.name in names:
            raise ProtocolError(f"RackwiseAssignRequest.topics: topic {t.name!r} appears twice")
        names.add(t.name)
    ids: set[str] = set()
    for m in req.members:
        if m.member_id in ids:
            raise ProtocolError(f"RackwiseAssignRequest.members: member {m.member_id!r} appears twice")
        ids.add(m.member_id)
    return req


def decode_request(data: bytes) -> AssignRequest:
    """Parse a request value; any malformed input raises ProtocolError saying what is wrong."""
    try:
        r = Reader(data)
        version = r.int16()
        if version != REQUEST_VERSION:
            raise ProtocolError(f"RackwiseAssignRequest: unknown version {version} "
                                f"(this agent reads version {REQUEST_VERSION})")
        req: AssignRequest = ASSIGN_REQUEST.decode_body(r, version, version=version)
        if r.remaining:
            raise ProtocolError(f"RackwiseAssignRequest: {r.remaining} trailing bytes "
                                f"at offset {r.pos}")
        return _check(req)
    except ProtocolError:
        raise
    except _UNEXPECTED as exc:
        raise ProtocolError(f"RackwiseAssignRequest: malformed input ({exc})") from None


def encode_request(req: AssignRequest) -> bytes:
    """The bytes of ``req``; what the Java plug-in writes for the same request."""
    if req.version != REQUEST_VERSION:
        raise ProtocolError(f"RackwiseAssignRequest: cannot write version {req.version}, "
                            f"only {REQUEST_VERSION}")
    _check(req)
    out = bytearray()
    w_int16(out, req.version)
    try:
        ASSIGN_REQUEST.encode_body(out, req, req.version)
    except struct.error as exc:
        raise ProtocolError(f"RackwiseAssignRequest: value out of range ({exc})") from None
    return bytes(out)
