"""Many live groups without many client processes: members that speak the group protocol.

A benchmark of the audit needs hundreds of groups the brokers consider live. Hundreds of
librdkafka consumers would need thousands of threads on a 2-core box, so members are
driven here over agent.brokers.rpc:

* classic groups: one static member each (JoinGroup v5, SyncGroup v3), its subscription a
  real ConsumerProtocolSubscription v3 with its rack, its assignment every partition. A
  static member with a 600 s session stays in the group without heartbeats;
* KIP-848 consumer groups: three members each (ConsumerGroupHeartbeat v1, racks az1-az3);
  the broker's own assignor assigns, members acknowledge, and :meth:`Heartbeats.start`
  keeps them alive from a background thread while the audit runs.

The brokers hold real group state; only the client side is thin.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from agent.brokers.rpc import Connection, WireClient
from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    encode_assignment,
    encode_subscription,
)
from protocol.flexible import (
    COMPACT_INT32_ARRAY,
    COMPACT_NULLABLE_STRING,
    COMPACT_STRING,
    TAGGED_FIELDS,
    CompactArrayOf,
    NullableStruct,
)
from protocol.schema import (
    BYTES,
    INT16,
    INT32,
    NULLABLE_STRING,
    STRING,
    UUID,
    ArrayOf,
    Field,
    StructType,
)

JOIN_GROUP, SYNC_GROUP, CONSUMER_GROUP_HEARTBEAT = 11, 14, 68


@dataclass
class Protocol:
    name: str = ""
    metadata: bytes = b""


@dataclass
class JoinRequest:
    group_id: str = ""
    session_timeout_ms: int = 600_000
    rebalance_timeout_ms: int = 60_000
    member_id: str = ""
    group_instance_id: str | None = None
    protocol_type: str = "consumer"
    protocols: list[Protocol] = field(default_factory=list)


@dataclass
class JoinMember:
    member_id: str = ""
    group_instance_id: str | None = None
    metadata: bytes = b""


@dataclass
class JoinResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    generation_id: int = 0
    protocol_name: str = ""
    leader: str = ""
    member_id: str = ""
    members: list[JoinMember] = field(default_factory=list)


@dataclass
class SyncAssignment:
    member_id: str = ""
    assignment: bytes = b""


@dataclass
class SyncRequest:
    group_id: str = ""
    generation_id: int = 0
    member_id: str = ""
    group_instance_id: str | None = None
    assignments: list[SyncAssignment] = field(default_factory=list)


@dataclass
class SyncResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    assignment: bytes = b""


JOIN_REQUEST = StructType("JoinGroupRequest", JoinRequest, [
    Field("group_id", STRING), Field("session_timeout_ms", INT32),
    Field("rebalance_timeout_ms", INT32), Field("member_id", STRING),
    Field("group_instance_id", NULLABLE_STRING), Field("protocol_type", STRING),
    Field("protocols", ArrayOf(StructType("Protocol", Protocol, [
        Field("name", STRING), Field("metadata", BYTES)]))),
])
JOIN_RESPONSE = StructType("JoinGroupResponse", JoinResponse, [
    Field("throttle_time_ms", INT32), Field("error_code", INT16), Field("generation_id", INT32),
    Field("protocol_name", STRING), Field("leader", STRING), Field("member_id", STRING),
    Field("members", ArrayOf(StructType("Member", JoinMember, [
        Field("member_id", STRING), Field("group_instance_id", NULLABLE_STRING),
        Field("metadata", BYTES)]))),
])
SYNC_REQUEST = StructType("SyncGroupRequest", SyncRequest, [
    Field("group_id", STRING), Field("generation_id", INT32), Field("member_id", STRING),
    Field("group_instance_id", NULLABLE_STRING),
    Field("assignments", ArrayOf(StructType("Assignment", SyncAssignment, [
        Field("member_id", STRING), Field("assignment", BYTES)]))),
])
SYNC_RESPONSE = StructType("SyncGroupResponse", SyncResponse, [
    Field("throttle_time_ms", INT32), Field("error_code", INT16), Field("assignment", BYTES),
])


@dataclass
class OwnedTopic:
    topic_id: uuid.UUID = uuid.UUID(int=0)
    partitions: list[int] = field(default_factory=list)
    tags: None = None


@dataclass
class HeartbeatAssignment:
    topic_partitions: list[OwnedTopic] = field(default_factory=list)
    tags: None = None


@dataclass
class HeartbeatRequest:
    group_id: str = ""
    member_id: str = ""
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = 60_000
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: list[OwnedTopic] | None = None
    tags: None = None


@dataclass
class HeartbeatResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: HeartbeatAssignment | None = None
    tags: None = None


_OWNED = StructType("TopicPartitions", OwnedTopic, [
    Field("topic_id", UUID, "1"), Field("partitions", COMPACT_INT32_ARRAY, "1"),
    Field("tags", TAGGED_FIELDS, "1"),
])
HEARTBEAT_REQUEST = StructType("ConsumerGroupHeartbeatRequest", HeartbeatRequest, [
    Field("group_id", COMPACT_STRING, "1"), Field("member_id", COMPACT_STRING, "1"),
    Field("member_epoch", INT32, "1"), Field("instance_id", COMPACT_NULLABLE_STRING, "1"),
    Field("rack_id", COMPACT_NULLABLE_STRING, "1"), Field("rebalance_timeout_ms", INT32, "1"),
    Field("subscribed_topic_names", CompactArrayOf(COMPACT_STRING, nullable=True), "1"),
    Field("subscribed_topic_regex", COMPACT_NULLABLE_STRING, "1"),
    Field("server_assignor", COMPACT_NULLABLE_STRING, "1"),
    Field("topic_partitions", CompactArrayOf(_OWNED, nullable=True), "1"),
    Field("tags", TAGGED_FIELDS, "1"),
])
HEARTBEAT_RESPONSE = StructType("ConsumerGroupHeartbeatResponse", HeartbeatResponse, [
    Field("throttle_time_ms", INT32, "1"), Field("error_code", INT16, "1"),
    Field("error_message", COMPACT_NULLABLE_STRING, "1"),
    Field("member_id", COMPACT_NULLABLE_STRING, "1"), Field("member_epoch", INT32, "1"),
    Field("heartbeat_interval_ms", INT32, "1"),
    Field("assignment", NullableStruct(StructType("Assignment", HeartbeatAssignment, [
        Field("topic_partitions", CompactArrayOf(_OWNED), "1"),
        Field("tags", TAGGED_FIELDS, "1")])), "1"),
    Field("tags", TAGGED_FIELDS, "1"),
])


def _raw(conn: Connection, api_key: int, version: int, req: StructType[Any], value: object,
         resp: StructType[Any]) -> object:
    return conn.request_at(api_key, version, req, value, resp)


def join_classic(client: WireClient, coordinator: tuple[str, int], group: str, topic: str,
                 partitions: int, rack: str) -> None:
    """One static member that owns every partition of ``topic``; raises on any error."""
    conn = client.connection(*coordinator)
    sub = encode_subscription(Subscription(topics=[topic], rack_id=rack), 3)
    join = _raw(conn, JOIN_GROUP, 5, JOIN_REQUEST,
                JoinRequest(group, group_instance_id=f"{group}-m", protocols=[Protocol("range", sub)]),
                JOIN_RESPONSE)
    assert isinstance(join, JoinResponse)
    if join.error_code:
        raise RuntimeError(f"JoinGroup {group}: error {join.error_code}")
    asg = encode_assignment(Assignment([TopicPartitions(topic, list(range(partitions)))]))
    sync = _raw(conn, SYNC_GROUP, 3, SYNC_REQUEST,
                SyncRequest(group, join.generation_id, join.member_id, f"{group}-m",
                            [SyncAssignment(join.member_id, asg)]), SYNC_RESPONSE)
    assert isinstance(sync, SyncResponse)
    if sync.error_code:
        raise RuntimeError(f"SyncGroup {group}: error {sync.error_code}")


@dataclass
class _Member:
    group: str
    member_id: str
    rack: str
    topic: str
    address: tuple[str, int]
    epoch: int = 0
    owned: list[OwnedTopic] = field(default_factory=list)


class Heartbeats:
    """KIP-848 members: join with one heartbeat each, then keep heartbeating."""

    def __init__(self, client: WireClient) -> None:
        self.client = client
        self.members: list[_Member] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def add_group(self, coordinator: tuple[str, int], group: str, topic: str,
                  racks: list[str]) -> None:
        for rack in racks:
            self.members.append(_Member(group, str(uuid.uuid4()), rack, topic, coordinator))

    def beat_all(self) -> None:
        """One heartbeat per member: joins, or acknowledges what it was last given. One
        thread per coordinator, each on its own connection, so a round over hundreds of
        members stays well inside the 45 s session even on a loaded machine."""
        by_address: dict[tuple[str, int], list[_Member]] = {}
        for m in self.members:
            by_address.setdefault(m.address, []).append(m)
        threads = [threading.Thread(target=self._beat, args=(address, members), daemon=True)
                   for address, members in sorted(by_address.items())]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _beat(self, address: tuple[str, int], members: list[_Member]) -> None:
        with WireClient(self.client.settings) as own:
            conn = own.connection(*address)
            for m in members:
                req = HeartbeatRequest(
                    m.group, m.member_id, m.epoch, rack_id=m.rack,
                    subscribed_topic_names=[m.topic] if m.epoch == 0 else None,
                    topic_partitions=[] if m.epoch == 0 else m.owned)
                resp = _raw(conn, CONSUMER_GROUP_HEARTBEAT, 1, HEARTBEAT_REQUEST, req,
                            HEARTBEAT_RESPONSE)
                assert isinstance(resp, HeartbeatResponse)
                if resp.error_code:
                    self.errors.append(f"{m.group}/{m.member_id}: {resp.error_code} "
                                       f"{resp.error_message}")
                    continue
                m.epoch = resp.member_epoch
                if resp.assignment is not None:
                    m.owned = resp.assignment.topic_partitions

    def start(self, interval_s: float = 3.0) -> None:
        """Keep heartbeating from a thread (its own connections) until :meth:`stop`."""
        def run() -> None:
            while not self._stop.wait(interval_s):
                self.beat_all()

        self._thread = threading.Thread(target=run, name="kip848-heartbeats", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
