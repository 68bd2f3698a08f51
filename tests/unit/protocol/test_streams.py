"""Kafka Streams SubscriptionInfo / AssignmentInfo and the decode JSON: bytes built by hand."""

from __future__ import annotations

import base64
import uuid

import pytest

from protocol.consumer import Subscription, encode_subscription
from protocol.describe import describe_assignment, describe_subscription
from protocol.errors import ProtocolError
from protocol.streams import (
    LATEST_SUPPORTED_VERSION,
    TaskId,
    build_subscription_info,
    decode_subscription_info,
    encode_subscription_info,
)
from protocol.streams_assignment import (
    build_assignment_info,
    decode_assignment_info,
    encode_assignment_info,
)
from protocol.wire import decode_modified_utf8, encode_modified_utf8

pytestmark = pytest.mark.unit

PID = uuid.UUID("01234567-89ab-cdef-fedc-ba9876543210")

V11 = bytes.fromhex(
    "0000000b"                          # version 11
    "0000000b"                          # latest supported version 11
    "0123456789abcdeffedcba9876543210"  # process id
    "00000003" "683a31"                 # user end point "h:1" (bytes)
    "00000002"                          # task offset sums: 2
    "00000000" "00000001"               #   subtopology 0, partition 1
    "fffffffffffffffe" "ffff"           #   offset sum -2 (active), named topology null
    "00000001" "00000000"               #   subtopology 1, partition 0
    "0000000000000064" "ffff"           #   offset sum 100, named topology null
    "07"                                # unique field 7
    "00000000"                          # error code 0
    "00000001"                          # client tags: 1
    "00000002" "617a" "00000003" "617a31"  # "az" -> "az1"
)


def test_v11_bytes_by_hand() -> None:
    info = decode_subscription_info(V11)
    assert info.version == 11 and info.process_id == PID
    assert info.offset_sums() == {TaskId(0, 1): -2, TaskId(1, 0): 100}
    assert info.active_tasks() == [TaskId(0, 1)] and info.standby_task_ids() == [TaskId(1, 0)]
    assert info.endpoint == "h:1" and info.tags() == {"az": "az1"} and info.unique_field == 7
    assert encode_subscription_info(info) == V11
    built = build_subscription_info(11, PID, {TaskId(1, 0): 100, TaskId(0, 1): -2}, "h:1", 7,
                                    client_tags={"az": "az1"})
    assert encode_subscription_info(built) == V11


def test_v1_and_v7_layouts() -> None:
    v1 = bytes.fromhex(
        "00000001" "0123456789abcdeffedcba9876543210"
        "00000001" "00000000" "00000002"  # prev tasks: [0_2]
        "00000001" "00000003" "00000004"  # standby tasks: [3_4]
    )
    info = decode_subscription_info(v1)
    assert info.latest_supported_version == -1
    assert info.offset_sums() == {TaskId(0, 2): -2, TaskId(3, 4): -3}
    assert encode_subscription_info(info) == v1
    v7 = bytes.fromhex(
        "00000007" "00000007" "0123456789abcdeffedcba9876543210"
        "00000000"                      # user end point: empty
        "00000001" "00000002"           # 1 subtopology: 2
        "00000001" "00000005" "0000000000000009"  # its partitions: 5 -> 9
    )
    info7 = decode_subscription_info(v7)
    assert info7.offset_sums() == {TaskId(2, 5): 9} and info7.endpoint is None
    assert encode_subscription_info(info7) == v7


@pytest.mark.parametrize("version", range(1, LATEST_SUPPORTED_VERSION + 1))
def test_subscription_info_round_trip_every_version(version: int) -> None:
    sums = {TaskId(0, 0): -2, TaskId(0, 1): 5, TaskId(2, 3): -3}
    if version >= 10:
        sums[TaskId(1, 1, "topo")] = 8
    info = build_subscription_info(version, PID, sums, "hôst:1", 3, 4, {"k": "v"})
    back = decode_subscription_info(encode_subscription_info(info))
    assert back == info
    expected = dict(sums) if version >= 7 else {t: (-2 if s == -2 else -3) for t, s in sums.items()}
    assert back.offset_sums() == expected


def test_subscription_info_future_and_invalid_versions() -> None:
    future = decode_subscription_info(bytes.fromhex("0000000c" "0000000c" "deadbeef"))
    assert future.is_future_version and future.latest_supported_version == 12
    for bad in ("00000000", "ffffffff",
                "0000000c" "0000000b",  # v12 but latest supported 11: Java rejects
                "00000003" "ffffffff" + "00" * 16 + "00000000" * 3):  # v3 with latest -1
        with pytest.raises(ProtocolError):
            decode_subscription_info(bytes.fromhex(bad))


@pytest.mark.parametrize("version", range(1, LATEST_SUPPORTED_VERSION + 1))
def test_assignment_info_round_trip_every_version(version: int) -> None:
    active = [TaskId(0, 0), TaskId(1, 2)] + ([TaskId(0, 1, "topo-ü")] if version >= 10 else [])
    info = build_assignment_info(
        version, active, {TaskId(0, 1): [("changelog", 1), ("src", 1)]},
        {("host1", 8080): [("t", 0), ("t", 1)], ("hôst2", 9090): [("emoji-\U0001F680", 3)]},
        {("host1", 8080): [("u", 0)]}, error_code=2, next_rebalance_ms=123)
    back = decode_assignment_info(encode_assignment_info(info))
    assert back == info
    hosts = back.partitions_by_host_map()
    assert hosts == ({} if version == 1 else
                     {("host1", 8080): [("t", 0), ("t", 1)],
                      ("hôst2", 9090): [("emoji-\U0001F680", 3)]})
    assert back.standby_partitions_by_host_map() == (
        {("host1", 8080): [("u", 0)]} if version >= 6 else {})
    assert [t.task() for t in back.active_tasks] == active
    assert back.error_code == (2 if version >= 4 else 0)
    assert back.next_rebalance_ms == (123 if version >= 7 else 2**63 - 1)


def test_assignment_info_v10_named_topology_bytes() -> None:
    data = bytes.fromhex(
        "0000000a" "0000000b"           # version 10, commonly supported 11
        "00000001"                      # active tasks: 1
        "00000000" "00000001"           #   0_1
        "00000002" "00740031"           #   named topology: 2 UTF-16 chars "t1"
        "00000000"                      # standby tasks: 0
        "00000000"                      # topic dictionary: 0
        "00000000" "00000000"           # hosts, standby hosts: 0
        "00000000"                      # error code
        "7fffffffffffffff"              # next rebalance: none
    )
    info = decode_assignment_info(data)
    assert [str(t.task()) for t in info.active_tasks] == ["t1__0_1"]
    assert encode_assignment_info(info) == data


def test_assignment_info_rejects_bad_input() -> None:
    for bad in ("", "00000000", "0000000c", "00000005" "0000000b" "00000000" "00000000"
                "00000000" "00000001" "0001" "68" "00000001" "00000001" "00000007" "00000000"
                "00000000"):  # v5: a partition's topic index 7 is not in the dictionary
        with pytest.raises(ProtocolError):
            decode_assignment_info(bytes.fromhex(bad))


@pytest.mark.parametrize("text, wire", [
    ("abc", "616263"),
    ("nul\x00", "6e756cc080"),                 # NUL is c0 80
    ("ü", "c3bc"),
    ("\U0001F680", "eda0bdedba80"),            # a surrogate pair, 3 bytes each
])
def test_modified_utf8(text: str, wire: str) -> None:
    assert encode_modified_utf8(text).hex() == wire
    assert decode_modified_utf8(bytes.fromhex(wire), "x") == text


def test_modified_utf8_rejects_malformed() -> None:
    for bad in ("f09f9a80", "eda0bd", "c3"):  # 4-byte UTF-8, lone surrogate, cut short
        with pytest.raises(ProtocolError):
            decode_modified_utf8(bytes.fromhex(bad), "x")


def test_describe_detects_streams_user_data_and_falls_back() -> None:
    streams_sub = encode_subscription(Subscription(topics=["in"], user_data=V11, rack_id="az1"))
    out = describe_subscription(streams_sub)
    assert out["rack_id"] == "az1" and out["streams"]["active_tasks"] == ["0_1"]
    assert base64.b64decode(out["user_data"]) == V11
    # Not Streams: cooperative-sticky int32, sticky V1, random bytes, null, a truncated V11.
    for user_data in (b"\x00\x00\x00\x01", bytes.fromhex("000000010002743100000000ffffffff"),
                      b"\x00\x00\x00\x05hello", None, V11[:-1], V11 + b"\x00"):
        out = describe_subscription(encode_subscription(Subscription(["t"], user_data)))
        assert "streams" not in out, user_data
    with pytest.raises(ProtocolError):
        describe_subscription(encode_subscription(Subscription(["t"], b"\x00\x00\x00\x01")),
                              streams=True)
    asg_info = build_assignment_info(7, [TaskId(0, 0)], {}, {("h", 1): [("t", 0)]})
    from protocol.consumer import Assignment, encode_assignment

    out = describe_assignment(encode_assignment(Assignment([], encode_assignment_info(asg_info))))
    assert out["streams"]["active_tasks"] == ["0_0"]
    assert out["streams"]["partitions_by_host"] == [
        {"host": "h", "port": 1, "partitions": [{"topic": "t", "partition": 0}]}]
