"""ConsumerProtocolSubscription/Assignment and the sticky user data: bytes built by hand."""

from __future__ import annotations

import pytest

from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    java_assignment,
    java_subscription,
)
from protocol.errors import ProtocolError
from protocol.userdata import (
    CooperativeStickyUserData,
    StickyUserData,
    decode_cooperative_sticky_user_data,
    decode_sticky_user_data,
    encode_cooperative_sticky_user_data,
    encode_sticky_user_data,
)

pytestmark = pytest.mark.unit

# The worked example: topics [t1], no user data, owned t1:[0,1], generation 5, rack az1.
V3 = bytes.fromhex(
    "0003"        # version 3
    "00000001"    # Topics: 1 entry
    "00027431"    #   "t1"
    "ffffffff"    # UserData: null
    "00000001"    # OwnedPartitions: 1 entry
    "00027431"    #   Topic "t1"
    "00000002"    #   Partitions: 2 entries
    "00000000"    #     0
    "00000001"    #     1
    "00000005"    # GenerationId 5
    "0003617a31"  # RackId "az1"
)
EXAMPLE = Subscription(topics=["t1"], owned_partitions=[TopicPartitions("t1", [0, 1])],
                       generation_id=5, rack_id="az1")


def test_v3_example_bytes() -> None:
    assert encode_subscription(EXAMPLE) == V3
    assert len(V3) == 43
    assert decode_subscription(V3) == EXAMPLE


@pytest.mark.parametrize("version, expected", [
    (0, "0000" "00000001 00027431" "ffffffff"),
    (1, "0001" "00000001 00027431" "ffffffff" "00000001 00027431 00000002 00000000 00000001"),
    (2, "0002" "00000001 00027431" "ffffffff" "00000001 00027431 00000002 00000000 00000001"
        "00000005"),
])
def test_older_versions_drop_newer_fields(version: int, expected: str) -> None:
    data = encode_subscription(EXAMPLE, version)
    assert data == bytes.fromhex(expected.replace(" ", ""))
    back = decode_subscription(data)
    assert back.version == version and back.topics == ["t1"]
    assert back.owned_partitions == ([] if version == 0 else EXAMPLE.owned_partitions)
    assert back.generation_id == (5 if version >= 2 else -1)
    assert back.rack_id is None


def test_null_vs_empty_user_data_and_rack() -> None:
    java_like = Subscription(topics=["t1"])  # Java: null user data, no rack
    librdkafka_like = Subscription(topics=["t1"], user_data=b"")  # librdkafka: empty bytes
    empty_rack = Subscription(topics=["t1"], rack_id="")
    assert encode_subscription(java_like).hex().endswith("ffffffff" "00000000" "ffffffff" "ffff")
    assert encode_subscription(librdkafka_like).hex().endswith(
        "00000000" "00000000" "ffffffff" "ffff")
    assert encode_subscription(empty_rack).hex().endswith("ffffffff" "0000")
    assert decode_subscription(encode_subscription(java_like)).user_data is None
    assert decode_subscription(encode_subscription(librdkafka_like)).user_data == b""
    back = decode_subscription(encode_subscription(empty_rack))
    assert back.rack_id == "" and back.rack is None  # Java: "" means no rack
    assert back.generation is None


def test_future_version_uses_v3_layout_and_ignores_trailing_bytes() -> None:
    future = b"\x00\x64" + V3[2:] + b"\x00\x05extra"  # v100 plus a field we do not know
    sub = decode_subscription(future)
    assert sub.version == 100
    assert (sub.topics, sub.generation_id, sub.rack_id) == (["t1"], 5, "az1")
    with pytest.raises(ProtocolError):
        encode_subscription(sub)  # we only write versions we know


def test_v3_bytes_read_as_old_version_prefix() -> None:
    # The broker parses every subscription with the v0 schema: v0 must prefix all versions.
    v0 = decode_subscription(b"\x00\x00" + V3[2:])
    assert v0.topics == ["t1"] and v0.owned_partitions == [] and v0.version == 0


@pytest.mark.parametrize("version", range(4))
def test_round_trip_every_version(version: int) -> None:
    sub = Subscription(topics=["a", "zürich", "日本語"], user_data=bytes(range(7)),
                       owned_partitions=[TopicPartitions("a", [3, 1]), TopicPartitions("b", [])],
                       generation_id=2**31 - 1, rack_id="ラック", version=version)
    back = decode_subscription(encode_subscription(sub))
    assert back.version == version and back.topics == sub.topics
    assert back.user_data == sub.user_data
    if version >= 1:
        assert back.owned_partitions == sub.owned_partitions
    if version >= 3:
        assert back == sub
    asg = Assignment([TopicPartitions("t", [2, 0, 1])], b"", version)
    assert decode_assignment(encode_assignment(asg)) == asg


def test_assignment_bytes_same_body_every_version() -> None:
    body = "00000001" "00027431" "00000002" "00000000" "00000001" "ffffffff"
    asg = Assignment([TopicPartitions("t1", [0, 1])])
    for v in range(4):
        assert encode_assignment(asg, v).hex() == f"{v:04x}" + body
    assert decode_assignment(bytes.fromhex("0064" + body + "0001")).assigned_partitions == \
        asg.assigned_partitions


def test_java_ordering_helpers() -> None:
    sub = java_subscription(["b", "a"], [("b", 2), ("a", 1), ("b", 0)])
    assert sub.topics == ["a", "b"]
    assert sub.owned_partitions == [TopicPartitions("a", [1]), TopicPartitions("b", [0, 2])]
    asg = java_assignment([("b", 2), ("a", 1), ("b", 0)])
    assert asg.assigned_partitions == [TopicPartitions("b", [2, 0]), TopicPartitions("a", [1])]


@pytest.mark.parametrize("hexdata, why", [
    ("", "no version"),
    ("00", "half a version"),
    ("ffff00000000ffffffff", "negative version"),
    ("000000000001", "topic count cut short"),
    ("0000ffffffff", "negative topic count"),
    ("00007fffffff", "topic count larger than the bytes left"),
    ("000000000001ffff", "null topic name"),
    ("0000000000010005747431", "topic name shorter than its length"),
    ("000000000001" "0002c328" "ffffffff", "invalid UTF-8 topic"),
    ("000000000000fffffffe", "user data length -2"),
    ("00000000000000000010abcd", "user data cut short"),
    ("000100000000ffffffff", "v1 without owned partitions"),
    ("000300000000ffffffff00000000ffffffff", "v3 without rack"),
    ("000300000000ffffffff00000000ffffffff0005617a", "rack cut short"),
])
def test_malformed_subscriptions_raise_protocol_error(hexdata: str, why: str) -> None:
    with pytest.raises(ProtocolError):
        decode_subscription(bytes.fromhex(hexdata))


def test_huge_count_is_rejected_before_allocating() -> None:
    # 2**31-1 owned entries claimed, 4 bytes present: must fail fast, not build a list.
    data = bytes.fromhex("0001" "00000000" "ffffffff" "7fffffff" "00000000")
    with pytest.raises(ProtocolError, match="count"):
        decode_subscription(data)


def test_encode_rejects_what_the_wire_cannot_hold() -> None:
    with pytest.raises(ProtocolError):
        encode_subscription(Subscription(topics=["x" * 40000]))
    with pytest.raises(ProtocolError):
        encode_subscription(Subscription(generation_id=2**31))
    with pytest.raises(ProtocolError):
        encode_subscription(EXAMPLE, 4)


def test_sticky_user_data_v1_v0_and_cooperative() -> None:
    v1 = bytes.fromhex(
        "00000001"  # previous_assignment: 1 topic
        "00027431"  #   "t1"
        "00000002"  #   2 partitions
        "00000000"  #     0
        "00000001"  #     1
        "00000005"  # generation 5
    )
    data = decode_sticky_user_data(v1)
    assert data == StickyUserData([TopicPartitions("t1", [0, 1])], 5)
    assert encode_sticky_user_data(data) == v1
    v0 = decode_sticky_user_data(v1[:-4])  # V1 fails (no generation): read as V0
    assert v0.generation is None and encode_sticky_user_data(v0) == v1[:-4]
    with pytest.raises(ProtocolError):
        decode_sticky_user_data(b"\x00\x00\x00\x01\x00")
    coop = decode_cooperative_sticky_user_data(bytes.fromhex("00000005"))
    assert coop == CooperativeStickyUserData(5)
    assert encode_cooperative_sticky_user_data(CooperativeStickyUserData(-1)) == b"\xff" * 4
    with pytest.raises(ProtocolError):
        decode_cooperative_sticky_user_data(b"\x00\x01")
