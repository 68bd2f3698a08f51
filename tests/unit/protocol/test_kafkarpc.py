"""The RPCs rackwise speaks itself (protocol.kafkarpc, protocol.groupdescribe), byte for byte.

GOLDEN was written by kafka-clients' own generated message classes (4.3.1, and 4.4.0 for
StreamsGroupDescribe v1, whose older versions 4.4.0 writes byte for byte as 4.3.1 did;
tests/java/rpc-golden/RpcGolden.java; the command is in its header). Each response decodes
to what Java put in, re-encodes to the same bytes, and no truncation or corruption of them
gets anything but a ProtocolError out of the decoders.
"""

from __future__ import annotations

import contextlib
import random
import uuid
from typing import Any

import pytest

from protocol import kafkarpc as rpc
from protocol.errors import ProtocolError
from protocol.flexible import read_uvarint, write_uvarint
from protocol.groupdescribe import (
    CONSUMER_GROUP_DESCRIBE_RESPONSE,
    DESCRIBE_GROUPS_REQUEST,
    LIST_GROUPS_REQUEST,
    LIST_GROUPS_RESPONSE,
    STREAMS_GROUP_DESCRIBE_REQUEST,
    STREAMS_GROUP_DESCRIBE_RESPONSE,
    DescribeGroupsRequest,
    ListGroupsRequest,
    StreamsGroupDescribeRequest,
)
from protocol.schema import StructType
from protocol.wire import Reader

pytestmark = pytest.mark.unit

SEED = random.Random().randrange(1 << 30)
print(f"seed={SEED}")

GOLDEN: dict[tuple[str, int], bytes] = {
    ("ConsumerGroupDescribeResponse", 0): bytes.fromhex(
        "000000050300000003673107537461626c65000000070000000708756e69666f726d03046d2d310004617a32000000070363310a2f31302e302e322e3702076f726465727300020123456789abcdef0fedcba987654321076f72646572730300000000000000020000020123456789abcdef0fedcba987654321076f7264657273030000000000000002000000046d2d320000000000070363320a2f31302e302e312e3901066f72642e2a0100010000800000000000451447726f7570206732206e6f7420666f756e642e0367320100000000000000000101800000000000"),
    ("ConsumerGroupDescribeResponse", 1): bytes.fromhex(
        "000000050300000003673107537461626c65000000070000000708756e69666f726d03046d2d310004617a32000000070363310a2f31302e302e322e3702076f726465727300020123456789abcdef0fedcba987654321076f72646572730300000000000000020000020123456789abcdef0fedcba987654321076f726465727303000000000000000200000000046d2d320000000000070363320a2f31302e302e312e3901066f72642e2a010001000100800000000000451447726f7570206732206e6f7420666f756e642e0367320100000000000000000101800000000000"),
    ("StreamsGroupDescribeResponse", 0): bytes.fromhex(
        "00000000030000000461707007537461626c65000000030000000301000000000202300203696e0102146170702d73746f72652d6368616e67656c6f67000000000003020f636c65616e75702e706f6c69637908636f6d7061637400000100000204732d31000000030004617a33066170702d310a2f31302e302e332e330000000004702d31010268fde80002057a6f6e65037a330002023000000001000000000000002a00010202300300000001000000020002023102000000000001000202300300000001000000020002023102000000000001000000800000000000000006667265736806456d7074790000000000000000ff01800000000000"),
    ("StreamsGroupDescribeResponse", 1): bytes.fromhex(
        "00000000030000000461707007537461626c65000000030000000301000000000202300203696e0102146170"
        "702d73746f72652d6368616e67656c6f67000000000003020f636c65616e75702e706f6c69637908636f6d70"
        "61637400000100000204732d31000000030004617a33066170702d310a2f31302e302e332e33000000000470"
        "2d31010268fde80002057a6f6e65037a330002023000000001000000000000002a0001020230030000000100"
        "0000020002023102000000000001000202300300000001000000020002023102000000000001000000800000"
        "0001020230031a4b53545245414d2d534f555243452d30303030303030303030010203696e0001021d4b5354"
        "5245414d2d4147475245474154452d3030303030303030303100184b53545245414d2d53494e4b2d30303030"
        "3030303030320301046f75740202730100000206672d737263010203677400010207672d70726f630007672d"
        "70726f63020100020367730100000003097261636b776973650000000006667265736806456d707479000000"
        "0000000000ff0180000000ff00000000"),
    ("StreamsGroupDescribeRequest", 1): bytes.fromhex("0304617070066672657368000000"),
    ("DescribeLogDirsResponse", 2): bytes.fromhex(
        "00000000020000092f646174612f6e3102076f726465727303000000000000001cbe991a140000000000000000000000000002000000000000000700000000000000000100000000"),
    ("DescribeLogDirsResponse", 3): bytes.fromhex(
        "000000000000020000092f646174612f6e3102076f726465727303000000000000001cbe991a140000000000000000000000000002000000000000000700000000000000000100000000"),
    ("DescribeLogDirsResponse", 4): bytes.fromhex(
        "000000000000020000092f646174612f6e3102076f726465727303000000000000001cbe991a1400000000000000000000000000020000000000000007000000000000000001000000000000000f4240000000000007a1200000"),
    ("DescribeLogDirsResponse", 5): bytes.fromhex(
        "000000000000020000092f646174612f6e3102076f726465727303000000000000001cbe991a1400000000000000000000000000020000000000000007000000000000000001000000000000000f4240000000000007a120000000"),
    ("FindCoordinatorResponse", 4): bytes.fromhex(
        "0000000003036731000000020a3132372e302e302e3100004af800000100036732ffffffff01ffffffff000f0e6e6f7420617661696c61626c650000"),
    ("GroupDescribeRequest", 1): bytes.fromhex(
        "030367310367320000"),
    ("FindCoordinatorRequest", 4): bytes.fromhex(
        "000303673103673200"),
    ("DescribeLogDirsRequest", 4): bytes.fromhex(
        "02076f72646572730300000000000000020000"),
    ("ListGroupsResponse", 5): bytes.fromhex(
        "00000000000003046170700107537461626c650853747265616d730003673109636f6e73756d6572"
        "06456d70747908436c61737369630000"),
    ("ListGroupsRequest", 5): bytes.fromhex("010100"),
}

RESPONSES: dict[str, StructType[Any]] = {
    "ConsumerGroupDescribeResponse": CONSUMER_GROUP_DESCRIBE_RESPONSE,
    "StreamsGroupDescribeResponse": STREAMS_GROUP_DESCRIBE_RESPONSE,
    "DescribeLogDirsResponse": rpc.DESCRIBE_LOG_DIRS_RESPONSE,
    "FindCoordinatorResponse": rpc.FIND_COORDINATOR_RESPONSE,
    "ListGroupsResponse": LIST_GROUPS_RESPONSE,
}


def _decode(name: str, version: int) -> Any:
    r = Reader(GOLDEN[(name, version)])
    out = RESPONSES[name].decode_body(r, version)
    assert r.remaining == 0, f"{name} v{version}: {r.remaining} bytes left over"
    return out


def test_consumer_group_describe_v0_v1() -> None:
    for version in (0, 1):
        resp = _decode("ConsumerGroupDescribeResponse", version)
        assert resp.throttle_time_ms == 5
        g1, g2 = resp.groups
        assert (g1.group_id, g1.group_state, g1.group_epoch, g1.assignor_name) == (
            "g1", "Stable", 7, "uniform")
        m1, m2 = g1.members
        assert (m1.member_id, m1.rack_id, m1.client_host, m1.subscribed_topic_names) == (
            "m-1", "az2", "/10.0.2.7", ["orders"])
        tp = m1.assignment.topic_partitions[0]
        assert (tp.topic_name, tp.partitions) == ("orders", [0, 2])
        assert tp.topic_id == uuid.UUID("0123456789abcdef0fedcba987654321")
        assert m2.rack_id is None and m2.subscribed_topic_regex == "ord.*"
        assert m2.assignment.topic_partitions == []
        assert (m1.member_type, m2.member_type) == ((0, 1) if version == 1 else (-1, -1))
        assert (g2.error_code, g2.error_message, g2.group_id) == (69, "Group g2 not found.", "g2")


def test_streams_group_describe_v0() -> None:
    resp = _decode("StreamsGroupDescribeResponse", 0)
    app, fresh = resp.groups
    assert app.topology is not None and app.topology.subtopologies is not None
    sub = app.topology.subtopologies[0]
    assert (sub.subtopology_id, sub.source_topics) == ("0", ["in"])
    assert sub.state_changelog_topics[0].name == "app-store-changelog"
    assert sub.state_changelog_topics[0].topic_configs[0].value == "compact"
    m = app.members[0]
    assert (m.member_id, m.rack_id, m.process_id, m.client_host) == ("s-1", "az3", "p-1", "/10.0.3.3")
    assert m.user_endpoint is not None and (m.user_endpoint.host, m.user_endpoint.port) == ("h", 65000)
    assert [(t.subtopology_id, t.partitions) for t in m.assignment.active_tasks] == [("0", [1, 2])]
    assert [(t.subtopology_id, t.partitions) for t in m.assignment.standby_tasks] == [("1", [0])]
    assert m.task_offsets[0].offset == 42 and m.is_classic is False
    assert fresh.topology is None and fresh.group_state == "Empty"
    assert (app.assignor_name, app.topology_description_status, app.topology_description) == (
        None, 0, None)  # v0 has none of v1's fields


def test_streams_group_describe_v1_names_the_assignor() -> None:
    resp = _decode("StreamsGroupDescribeResponse", 1)
    app, fresh = resp.groups
    assert app.assignor_name == "rackwise"  # KIP-1357
    assert fresh.assignor_name is None  # "null in case of a describe error", and by default
    # everything v0 had reads the same
    assert app.members[0].process_id == "p-1" and app.topology is not None
    # KIP-1331's topology description, never asked for by rackwise, still read in full
    assert app.topology_description_status == 3 and app.topology_description is not None
    nodes = app.topology_description.subtopologies[0].nodes
    assert [(n.name, n.node_type, n.sink_topic) for n in nodes] == [
        ("KSTREAM-SOURCE-0000000000", 1, None), ("KSTREAM-SINK-0000000002", 3, "out")]
    store = app.topology_description.global_stores[0]
    assert (store.source.source_topics, store.processor.stores) == (["gt"], ["gs"])
    assert rpc.KNOWN_VERSIONS[rpc.STREAMS_GROUP_DESCRIBE] == (0, 1)


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_describe_log_dirs(version: int) -> None:
    resp = _decode("DescribeLogDirsResponse", version)
    d = resp.results[0]
    assert d.log_dir == "/data/n1"
    parts = d.topics[0].partitions
    assert (parts[0].partition_index, parts[0].partition_size) == (0, 123456789012)
    assert parts[1].is_future_key is True
    assert (d.total_bytes, d.usable_bytes) == ((1000000, 500000) if version >= 4 else (-1, -1))


def test_find_coordinator_v4() -> None:
    resp = _decode("FindCoordinatorResponse", 4)
    ok, bad = resp.coordinators
    assert (ok.key, ok.node_id, ok.host, ok.port) == ("g1", 2, "127.0.0.1", 19192)
    assert (bad.error_code, bad.error_message) == (15, "not available")


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_responses_re_encode_to_javas_bytes(key: tuple[str, int]) -> None:
    name, version = key
    if name not in RESPONSES:
        return
    out = bytearray()
    RESPONSES[name].encode_body(out, _decode(name, version), version)
    assert bytes(out) == GOLDEN[key]


def test_list_groups_v5_gives_each_groups_type() -> None:
    resp = _decode("ListGroupsResponse", 5)
    assert [(g.group_id, g.group_type, g.group_state) for g in resp.groups] == [
        ("app", "Streams", "Stable"), ("g1", "Classic", "Empty")]
    assert rpc.encode(LIST_GROUPS_REQUEST, ListGroupsRequest(), 5) == GOLDEN[
        ("ListGroupsRequest", 5)]


def test_requests_match_javas_bytes() -> None:
    assert rpc.encode(DESCRIBE_GROUPS_REQUEST, DescribeGroupsRequest(["g1", "g2"]), 1) == GOLDEN[
        ("GroupDescribeRequest", 1)]
    assert rpc.encode(STREAMS_GROUP_DESCRIBE_REQUEST, StreamsGroupDescribeRequest(["app", "fresh"]),
                      1) == GOLDEN[("StreamsGroupDescribeRequest", 1)]
    # v0 is the consumer layout: no IncludeTopologyDescription
    assert rpc.encode(STREAMS_GROUP_DESCRIBE_REQUEST, StreamsGroupDescribeRequest(["g1", "g2"]),
                      0) == GOLDEN[("GroupDescribeRequest", 1)]
    assert rpc.encode(rpc.FIND_COORDINATOR_REQUEST, rpc.FindCoordinatorRequest(0, ["g1", "g2"]),
                      4) == GOLDEN[("FindCoordinatorRequest", 4)]
    req = rpc.DescribeLogDirsRequest([rpc.LogDirTopicRequest("orders", [0, 2])])
    assert rpc.encode(rpc.DESCRIBE_LOG_DIRS_REQUEST, req, 4) == GOLDEN[("DescribeLogDirsRequest", 4)]


def test_frames_and_headers() -> None:
    # ApiVersions v0: header v1 (no tagged fields), body empty
    assert rpc.frame_request(rpc.API_VERSIONS, 0, 7, "rackwise", b"") == bytes.fromhex(
        "00000012" "0012" "0000" "00000007" "0008" + b"rackwise".hex())
    # a flexible request: header v2 ends with an empty tagged-field buffer
    framed = rpc.frame_request(rpc.CONSUMER_GROUP_DESCRIBE, 1, 9, "c", b"\x01")
    assert framed == bytes.fromhex("0000000d" "0045" "0001" "00000009" "0001" "63" "00" "01")
    # a flexible response header: correlation id then tagged fields (skipped)
    r = rpc.response_body(rpc.CONSUMER_GROUP_DESCRIBE, 1, 9, bytes.fromhex("00000009" "00" "ab"))
    assert r.remaining == 1
    with pytest.raises(ProtocolError, match="correlation"):
        rpc.response_body(rpc.CONSUMER_GROUP_DESCRIBE, 1, 9, bytes.fromhex("0000000a00"))


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16383, 16384, 2**31 - 1, 2**32 - 1])
def test_uvarint_round_trip(value: int) -> None:
    out = bytearray()
    write_uvarint(out, value)
    assert read_uvarint(Reader(bytes(out)), "v") == value


def test_uvarint_longer_than_five_bytes_is_refused() -> None:
    with pytest.raises(ProtocolError, match="varint"):
        read_uvarint(Reader(b"\xff\xff\xff\xff\xff\x01"), "v")


@pytest.mark.parametrize("key", sorted(k for k in GOLDEN if k[0] in RESPONSES))
def test_truncated_and_corrupted_responses_raise_protocol_error(key: tuple[str, int]) -> None:
    rng = random.Random(f"{SEED}-{key}")
    data = GOLDEN[key]
    struct = RESPONSES[key[0]]
    for cut in range(len(data)):
        with pytest.raises(ProtocolError):
            struct.decode_body(Reader(data[:cut]), key[1])
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        with contextlib.suppress(ProtocolError):  # anything else escaping fails the test
            struct.decode_body(Reader(bytes(mutated)), key[1])


def test_wire_settings_from_librdkafka_properties() -> None:
    from agent.brokers.rpc import WireError, WireSettings

    s = WireSettings.from_config({"bootstrap.servers": "b1:9092,SASL_SSL://b2:9093",
                                  "security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN",
                                  "sasl.username": "u", "sasl.password": "p",
                                  "ssl.ca.location": "/ca.pem"})
    assert s.bootstrap == (("b1", 9092), ("b2", 9093))
    assert (s.security_protocol, s.username, s.ca_location) == ("SASL_SSL", "u", "/ca.pem")
    for conf, match in (
        ({"bootstrap.servers": ""}, "bootstrap"),
        ({"bootstrap.servers": "b1"}, "host:port"),
        ({"bootstrap.servers": "b1:1", "security.protocol": "SASL_SSL",
          "sasl.mechanism": "SCRAM-SHA-512"}, "PLAIN only"),
        ({"bootstrap.servers": "b1:1", "security.protocol": "SSL",
          "ssl.certificate.location": "/c.pem"}, "client certificates"),
        ({"bootstrap.servers": "b1:1", "security.protocol": "TLS"}, "security.protocol"),
    ):
        with pytest.raises(WireError, match=match):
            WireSettings.from_config(conf)
