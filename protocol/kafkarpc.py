"""The few Kafka RPCs the audit speaks itself: headers, ApiVersions, FindCoordinator, SASL, DescribeLogDirs.

confluent-kafka 2.16 has no ``describe_log_dirs`` and does not surface the KIP-848 / KIP-1071
describe responses in full (no member rack, no streams groups), so ``agent.brokers.rpc`` sends
these requests itself. Field tables follow Kafka 4.3.1's message specs
(``clients/src/main/resources/common/message/*.json``; checked against the generated
``*Data.SCHEMAS`` of kafka-clients 4.3.1). No IO here.

A request is ``int32 size`` + header + body; the header is v1 (non-flexible) or v2 (flexible:
a trailing tagged-field buffer, the client id still an int16 string). A response is
``int32 size`` + correlation id (+ tagged fields for flexible versions, except ApiVersions,
whose response header is always v0 so that any client can read it).

Example::

    frame_request(API_VERSIONS, 0, 7, "rackwise", b"")
    # b'\\x00\\x00\\x00\\x12\\x00\\x12\\x00\\x00\\x00\\x00\\x00\\x07\\x00\\x08rackwise'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ProtocolError
from protocol.flexible import (
    BOOL,
    COMPACT_BYTES,
    COMPACT_INT32_ARRAY,
    COMPACT_NULLABLE_STRING,
    COMPACT_STRING,
    TAGGED_FIELDS,
    CompactArrayOf,
)
from protocol.schema import (
    BYTES,
    INT8,
    INT16,
    INT32,
    INT64,
    NULLABLE_STRING,
    STRING,
    ArrayOf,
    Field,
    StructType,
)
from protocol.wire import Reader, w_int16, w_int32, w_string

API_VERSIONS = 18
FIND_COORDINATOR = 10
SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
DESCRIBE_LOG_DIRS = 35
LIST_GROUPS = 16
CONSUMER_GROUP_DESCRIBE = 69
STREAMS_GROUP_DESCRIBE = 89

# The first flexible version of each API we send (KIP-482); below it, header v1.
FIRST_FLEXIBLE = {
    API_VERSIONS: 3, FIND_COORDINATOR: 3, SASL_HANDSHAKE: 1 << 15, SASL_AUTHENTICATE: 2,
    DESCRIBE_LOG_DIRS: 2, CONSUMER_GROUP_DESCRIBE: 0, STREAMS_GROUP_DESCRIBE: 0,
    LIST_GROUPS: 3, 11: 6, 14: 4, 68: 0,  # JoinGroup, SyncGroup, ConsumerGroupHeartbeat
}

# Kafka error codes the callers act on (org.apache.kafka.common.protocol.Errors)
NONE = 0
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
GROUP_AUTHORIZATION_FAILED = 30
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
UNSUPPORTED_VERSION = 35
SASL_AUTHENTICATION_FAILED = 58
GROUP_ID_NOT_FOUND = 69
RETRIABLE_COORDINATOR = (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR)
ERROR_NAMES = {
    COORDINATOR_LOAD_IN_PROGRESS: "COORDINATOR_LOAD_IN_PROGRESS",
    COORDINATOR_NOT_AVAILABLE: "COORDINATOR_NOT_AVAILABLE",
    NOT_COORDINATOR: "NOT_COORDINATOR",
    GROUP_AUTHORIZATION_FAILED: "GROUP_AUTHORIZATION_FAILED",
    UNSUPPORTED_SASL_MECHANISM: "UNSUPPORTED_SASL_MECHANISM",
    ILLEGAL_SASL_STATE: "ILLEGAL_SASL_STATE",
    UNSUPPORTED_VERSION: "UNSUPPORTED_VERSION",
    SASL_AUTHENTICATION_FAILED: "SASL_AUTHENTICATION_FAILED",
    GROUP_ID_NOT_FOUND: "GROUP_ID_NOT_FOUND",
    29: "TOPIC_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    42: "INVALID_REQUEST",
    24: "INVALID_GROUP_ID",
    57: "LOG_DIR_NOT_FOUND",
}


def error_name(code: int) -> str:
    return ERROR_NAMES.get(code, f"error code {code}")


def is_flexible(api_key: int, version: int) -> bool:
    return version >= FIRST_FLEXIBLE[api_key]


def frame_request(api_key: int, version: int, correlation_id: int, client_id: str,
                  body: bytes) -> bytes:
    """Size-prefixed request: header v1, or v2 (tagged fields) for a flexible version."""
    out = bytearray()
    w_int16(out, api_key)
    w_int16(out, version)
    w_int32(out, correlation_id)
    w_string(out, client_id, "client_id")
    if is_flexible(api_key, version):
        out.append(0)  # no tagged fields in the header
    out += body
    size = bytearray()
    w_int32(size, len(out))
    return bytes(size + out)


def response_body(api_key: int, version: int, correlation_id: int, frame: bytes) -> Reader:
    """A Reader positioned at the body of a response frame (the size already stripped)."""
    r = Reader(frame)
    got = r.int32()
    if got != correlation_id:
        raise ProtocolError(f"response correlation id {got}, expected {correlation_id}")
    if is_flexible(api_key, version) and api_key != API_VERSIONS:
        TAGGED_FIELDS.reader(0, "response header")(r)
    return r


def encode(struct: StructType[Any], value: Any, version: int) -> bytes:
    out = bytearray()
    struct.encode_body(out, value, version)
    return bytes(out)


def decode(struct: StructType[Any], r: Reader, version: int) -> Any:
    return struct.decode_body(r, version)


# ---- ApiVersions v0 (what every broker answers, whatever it supports) ---------------------

@dataclass
class ApiVersionRange:
    api_key: int = 0
    min_version: int = 0
    max_version: int = 0


@dataclass
class ApiVersionsResponse:
    error_code: int = 0
    api_keys: list[ApiVersionRange] = field(default_factory=list)


@dataclass
class Empty:
    pass


EMPTY = StructType("Empty", Empty, [])
API_VERSIONS_RESPONSE = StructType("ApiVersionsResponse", ApiVersionsResponse, [
    Field("error_code", INT16, "0+"),
    Field("api_keys", ArrayOf(StructType("ApiVersion", ApiVersionRange, [
        Field("api_key", INT16, "0+"),
        Field("min_version", INT16, "0+"),
        Field("max_version", INT16, "0+"),
    ])), "0+"),
])


# ---- FindCoordinator v4-6 (batched keys) ----------------------------------------------------

GROUP_KEY = 0


@dataclass
class FindCoordinatorRequest:
    key_type: int = GROUP_KEY
    coordinator_keys: list[str] = field(default_factory=list)
    tags: None = None


@dataclass
class Coordinator:
    key: str = ""
    node_id: int = -1
    host: str = ""
    port: int = -1
    error_code: int = 0
    error_message: str | None = None
    tags: None = None


@dataclass
class FindCoordinatorResponse:
    throttle_time_ms: int = 0
    coordinators: list[Coordinator] = field(default_factory=list)
    tags: None = None


FIND_COORDINATOR_REQUEST = StructType("FindCoordinatorRequest", FindCoordinatorRequest, [
    Field("key_type", INT8, "4+"),
    Field("coordinator_keys", CompactArrayOf(COMPACT_STRING), "4+"),
    Field("tags", TAGGED_FIELDS, "4+"),
])
FIND_COORDINATOR_RESPONSE = StructType("FindCoordinatorResponse", FindCoordinatorResponse, [
    Field("throttle_time_ms", INT32, "4+"),
    Field("coordinators", CompactArrayOf(StructType("Coordinator", Coordinator, [
        Field("key", COMPACT_STRING, "4+"),
        Field("node_id", INT32, "4+"),
        Field("host", COMPACT_STRING, "4+"),
        Field("port", INT32, "4+"),
        Field("error_code", INT16, "4+"),
        Field("error_message", COMPACT_NULLABLE_STRING, "4+"),
        Field("tags", TAGGED_FIELDS, "4+"),
    ])), "4+"),
    Field("tags", TAGGED_FIELDS, "4+"),
])


# ---- SASL: SaslHandshake v1, SaslAuthenticate v2 ---------------------------------------------

@dataclass
class SaslHandshakeRequest:
    mechanism: str = "PLAIN"


@dataclass
class SaslHandshakeResponse:
    error_code: int = 0
    mechanisms: list[str] = field(default_factory=list)


@dataclass
class SaslAuthenticateRequest:
    auth_bytes: bytes = b""
    tags: None = None


@dataclass
class SaslAuthenticateResponse:
    error_code: int = 0
    error_message: str | None = None
    auth_bytes: bytes = b""
    session_lifetime_ms: int = 0
    tags: None = None


SASL_HANDSHAKE_REQUEST = StructType("SaslHandshakeRequest", SaslHandshakeRequest, [
    Field("mechanism", STRING, "0+"),
])
SASL_HANDSHAKE_RESPONSE = StructType("SaslHandshakeResponse", SaslHandshakeResponse, [
    Field("error_code", INT16, "0+"),
    Field("mechanisms", ArrayOf(STRING), "0+"),
])
SASL_AUTHENTICATE_REQUEST = StructType("SaslAuthenticateRequest", SaslAuthenticateRequest, [
    Field("auth_bytes", BYTES, "0-1"),
    Field("auth_bytes", COMPACT_BYTES, "2+"),
    Field("tags", TAGGED_FIELDS, "2+"),
])
SASL_AUTHENTICATE_RESPONSE = StructType("SaslAuthenticateResponse", SaslAuthenticateResponse, [
    Field("error_code", INT16, "0+"),
    Field("error_message", NULLABLE_STRING, "0-1"),
    Field("error_message", COMPACT_NULLABLE_STRING, "2+"),
    Field("auth_bytes", BYTES, "0-1"),
    Field("auth_bytes", COMPACT_BYTES, "2+"),
    Field("session_lifetime_ms", INT64, "1+"),
    Field("tags", TAGGED_FIELDS, "2+"),
])


# ---- DescribeLogDirs v2-5: every partition's size on one broker ------------------------------

@dataclass
class LogDirTopicRequest:
    topic: str = ""
    partitions: list[int] = field(default_factory=list)
    tags: None = None


@dataclass
class DescribeLogDirsRequest:
    topics: list[LogDirTopicRequest] | None = None  # None: every partition on the broker
    tags: None = None


@dataclass
class LogDirPartition:
    partition_index: int = 0
    partition_size: int = 0
    offset_lag: int = 0
    is_future_key: bool = False
    tags: None = None


@dataclass
class LogDirTopic:
    name: str = ""
    partitions: list[LogDirPartition] = field(default_factory=list)
    tags: None = None


@dataclass
class LogDir:
    error_code: int = 0
    log_dir: str = ""
    topics: list[LogDirTopic] = field(default_factory=list)
    total_bytes: int = -1
    usable_bytes: int = -1
    is_cordoned: bool = False
    tags: None = None


@dataclass
class DescribeLogDirsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    results: list[LogDir] = field(default_factory=list)
    tags: None = None


DESCRIBE_LOG_DIRS_REQUEST = StructType("DescribeLogDirsRequest", DescribeLogDirsRequest, [
    Field("topics", CompactArrayOf(StructType("DescribableLogDirTopic", LogDirTopicRequest, [
        Field("topic", COMPACT_STRING, "2+"),
        Field("partitions", COMPACT_INT32_ARRAY, "2+"),
        Field("tags", TAGGED_FIELDS, "2+"),
    ]), nullable=True), "2+"),
    Field("tags", TAGGED_FIELDS, "2+"),
])
DESCRIBE_LOG_DIRS_RESPONSE = StructType("DescribeLogDirsResponse", DescribeLogDirsResponse, [
    Field("throttle_time_ms", INT32, "2+"),
    Field("error_code", INT16, "3+"),
    Field("results", CompactArrayOf(StructType("DescribeLogDirsResult", LogDir, [
        Field("error_code", INT16, "2+"),
        Field("log_dir", COMPACT_STRING, "2+"),
        Field("topics", CompactArrayOf(StructType("DescribeLogDirsTopic", LogDirTopic, [
            Field("name", COMPACT_STRING, "2+"),
            Field("partitions", CompactArrayOf(StructType("DescribeLogDirsPartition",
                                                          LogDirPartition, [
                Field("partition_index", INT32, "2+"),
                Field("partition_size", INT64, "2+"),
                Field("offset_lag", INT64, "2+"),
                Field("is_future_key", BOOL, "2+"),
                Field("tags", TAGGED_FIELDS, "2+"),
            ])), "2+"),
            Field("tags", TAGGED_FIELDS, "2+"),
        ])), "2+"),
        Field("total_bytes", INT64, "4+"),
        Field("usable_bytes", INT64, "4+"),
        Field("is_cordoned", BOOL, "5+"),
        Field("tags", TAGGED_FIELDS, "2+"),
    ])), "2+"),
    Field("tags", TAGGED_FIELDS, "2+"),
])

# The versions this module can read and write, per API (intersected with the broker's range).
KNOWN_VERSIONS = {
    API_VERSIONS: (0, 0),
    FIND_COORDINATOR: (4, 6),
    SASL_HANDSHAKE: (1, 1),
    SASL_AUTHENTICATE: (2, 2),
    DESCRIBE_LOG_DIRS: (2, 5),
    CONSUMER_GROUP_DESCRIBE: (0, 1),
    STREAMS_GROUP_DESCRIBE: (0, 1),
    LIST_GROUPS: (5, 5),
}
