"""RackwiseAssignRequest v0 (protocol/request.py): bytes built by hand, round trips, every
malformed input, and the golden request the Java plug-in writes (plugins/, RequestCodecTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.consumer import Subscription, TopicPartitions, encode_subscription, java_subscription
from protocol.errors import ProtocolError
from protocol.request import (
    AssignRequest,
    RequestMember,
    RequestTopic,
    decode_request,
    encode_request,
)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
# Written by the Java encoder (dev.rackwise.plugins.request.RequestCodec, with the member
# subscriptions from kafka-clients' ConsumerProtocol.serializeSubscription(sub, 3)); the Java
# unit test RequestCodecTest.encodesTheGoldenBytes asserts the same file.
GOLDEN = ROOT / "plugins" / "src" / "test" / "resources" / "assign-request-v0.hex"

# One member m1 with rack az1 subscribed to t (2 partitions), owning t-0 at generation 5.
SUB = bytes.fromhex(
    "0003"        # version 3
    "00000001"    # Topics: 1 entry
    "000174"      #   "t"
    "ffffffff"    # UserData: null
    "00000001"    # OwnedPartitions: 1 entry
    "000174"      #   Topic "t"
    "00000001"    #   Partitions: 1 entry
    "00000000"    #     0
    "00000005"    # GenerationId 5
    "0003617a31"  # RackId "az1"
)
HAND = (
    bytes.fromhex(
        "0000"                                  # version 0
        "0013" + b"classic-cooperative".hex() +  # protocol
        "00000001"                              # topics: 1 entry
        "000174"                                #   name "t"
        "00000002"                              #   partitions 2
        "00000001"                              # members: 1 entry
        "00026d31"                              #   member_id "m1"
        "ffff"                                  #   instance_id null
        f"{len(SUB):08x}"                       #   subscription: int32 length
    )
    + SUB                                       #   ... the v3 bytes above
)
HAND_REQUEST = AssignRequest(
    protocol="classic-cooperative",
    topics=(RequestTopic("t", 2),),
    members=(RequestMember("m1", None, Subscription(
        topics=["t"], owned_partitions=[TopicPartitions("t", [0])], generation_id=5, rack_id="az1")),),
)


def test_hand_built_bytes() -> None:
    assert encode_request(HAND_REQUEST) == HAND
    assert decode_request(HAND) == HAND_REQUEST


def test_golden_from_java() -> None:
    data = bytes.fromhex(GOLDEN.read_text().strip())
    req = decode_request(data)
    assert req.protocol == "classic-cooperative"
    assert req.cooperative
    assert req.topics == (RequestTopic("orders", 6), RequestTopic("payments", 3))
    m1, m2 = req.members
    assert (m1.member_id, m1.instance_id) == ("m1", None)
    assert m1.subscription == Subscription(
        topics=["orders", "payments"], owned_partitions=[TopicPartitions("orders", [0, 1])],
        generation_id=5, rack_id="az1")
    assert (m2.member_id, m2.instance_id) == ("m2-ü", "i-2")
    assert m2.subscription == Subscription(topics=["orders"], user_data=b"\x01\x02",
                                           generation_id=-1, rack_id=None)
    assert encode_request(req) == data


@pytest.mark.parametrize("protocol", ["classic-cooperative", "classic-eager", "consumer"])
def test_round_trip(protocol: str) -> None:
    req = AssignRequest(
        protocol=protocol,  # type: ignore[arg-type]
        topics=(RequestTopic("a", 0), RequestTopic("b", 12)),
        members=(
            RequestMember("m-1", "static-1", java_subscription(["a", "b"], [("b", 3), ("b", 1)],
                                                                generation_id=7, rack_id="az2")),
            RequestMember("m-2", None, java_subscription(["b"], user_data=b"", rack_id="")),
            RequestMember("ü-3", None, Subscription(version=1, topics=["a"])),
        ),
    )
    assert decode_request(encode_request(req)) == req


def test_empty_request() -> None:
    data = bytes.fromhex("0000" "0008" + b"consumer".hex() + "00000000" "00000000")
    assert decode_request(data) == AssignRequest(protocol="consumer")
    assert encode_request(AssignRequest(protocol="consumer")) == data


# Offsets of HAND's fields, for patching one field at a time.
TOPICS_AT, PARTITIONS_AT, MEMBERS_AT, MEMBER_ID_AT, SUB_LEN_AT = 23, 30, 34, 38, 44


def _patch(at: int, new: str) -> bytes:
    raw = bytes.fromhex(new)
    return HAND[:at] + raw + HAND[at + len(raw):]


MALFORMED = {
    "truncated": (HAND[:-1], "truncated"),
    "empty": (b"", "truncated"),
    "only a version": (b"\x00\x00", "truncated"),
    "trailing bytes": (HAND + b"\x00", "1 trailing bytes"),
    "unknown version": (_patch(0, "0001"), "unknown version 1"),
    "negative version": (_patch(0, "ffff"), "unknown version -1"),
    "bad protocol": (_patch(21, b"vo".hex()), "unknown protocol 'classic-cooperativo'"),
    "bad utf-8": (_patch(MEMBER_ID_AT + 2, "c328"), "invalid UTF-8"),
    "negative topic count": (_patch(TOPICS_AT, "ffffffff"), "negative count"),
    "topic count too large": (_patch(TOPICS_AT, "7fffffff"), "count 2147483647"),
    "negative partitions": (_patch(PARTITIONS_AT, "fffffffe"), "negative partition count -2"),
    "negative member count": (_patch(MEMBERS_AT, "ffffffff"), "negative count"),
    "null member id": (_patch(MEMBER_ID_AT, "ffff"), "invalid string length -1"),
    "null subscription": (_patch(SUB_LEN_AT, "ffffffff"), "invalid bytes length -1"),
    "subscription length too long": (_patch(SUB_LEN_AT, f"{len(SUB) + 1:08x}"), "truncated"),
    "bad subscription": (HAND[:SUB_LEN_AT] + bytes.fromhex("00000002fffe"), "negative version"),
    "truncated subscription": (_patch(SUB_LEN_AT, f"{len(SUB) - 1:08x}")[:-1],
                               "RequestMember.subscription: truncated"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_raises_protocol_error(name: str) -> None:
    data, message = MALFORMED[name]
    with pytest.raises(ProtocolError, match=message):
        decode_request(data)


def test_duplicates_are_rejected() -> None:
    sub = encode_subscription(java_subscription(["t"]))
    member = bytes.fromhex("00026d31ffff") + len(sub).to_bytes(4, "big") + sub
    twice = bytes.fromhex("0000" "0008") + b"consumer" + bytes.fromhex("00000000" "00000002") + member * 2
    with pytest.raises(ProtocolError, match="member 'm1' appears twice"):
        decode_request(twice)
    topic = bytes.fromhex("00017400000001")
    dup = bytes.fromhex("0000" "0008") + b"consumer" + bytes.fromhex("00000002") + topic * 2 + b"\0" * 4
    with pytest.raises(ProtocolError, match="topic 't' appears twice"):
        decode_request(dup)


@pytest.mark.parametrize("bad", [
    AssignRequest(protocol="rebalance"),  # type: ignore[arg-type]
    AssignRequest(protocol="consumer", topics=(RequestTopic("t", -1),)),
    AssignRequest(protocol="consumer", topics=(RequestTopic("t", 2**31),)),
    AssignRequest(protocol="consumer", version=1),
    AssignRequest(protocol="consumer", members=(RequestMember("m", None, b"raw"),)),  # type: ignore[arg-type]
    AssignRequest(protocol="consumer", members=(RequestMember("x" * 40000, None, Subscription()),)),
])
def test_encoding_refuses_invalid_requests(bad: AssignRequest) -> None:
    with pytest.raises(ProtocolError):
        encode_request(bad)


def test_models_are_frozen() -> None:
    with pytest.raises(AttributeError):
        HAND_REQUEST.protocol = "consumer"  # type: ignore[misc]
    assert isinstance(decode_request(HAND).members, tuple)
