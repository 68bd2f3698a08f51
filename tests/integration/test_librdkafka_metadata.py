"""A real librdkafka consumer's JoinGroup metadata, read back from the broker and decoded.

Two confluent-kafka consumers with ``client.rack`` join one cooperative-sticky group on the
testbed; the second join makes the first rejoin with its generation and owned partitions.
AdminClient ``list_groups`` (DescribeGroups) returns each member's metadata and assignment
bytes, which must decode to the rack, topics and generation the clients hold.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest
from confluent_kafka import Consumer

from protocol.consumer import decode_assignment, decode_subscription
from protocol.describe import describe_subscription
from protocol.userdata import decode_sticky_user_data
from tests.support.kafkautil import create_topic

pytestmark = pytest.mark.integration


def _consumer(bootstrap: str, group: str, rack: str) -> Consumer:
    return Consumer({
        "bootstrap.servers": bootstrap, "group.id": group, "client.rack": rack,
        "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": 10000, "heartbeat.interval.ms": 500,
        "enable.auto.commit": False,
    })


def _members(admin: Any, group: str) -> list[Any]:
    with warnings.catch_warnings():  # deprecated, but the one API returning member bytes
        warnings.simplefilter("ignore", DeprecationWarning)
        groups = admin.list_groups(group, timeout=10)
    return list(groups[0].members) if groups else []


def test_librdkafka_member_metadata_decodes(bootstrap: str, admin: Any, unique_name: str) -> None:
    topic = unique_name
    create_topic(admin, topic, partitions=6)
    first = _consumer(bootstrap, unique_name, "az2")
    second = _consumer(bootstrap, unique_name, "az3")
    try:
        first.subscribe([topic])
        deadline = time.monotonic() + 60
        while not first.assignment() and time.monotonic() < deadline:
            first.poll(0.2)
        assert first.assignment(), "first consumer never got partitions"
        second.subscribe([topic])
        members: list[Any] = []
        while time.monotonic() < deadline:
            first.poll(0.1)
            second.poll(0.1)
            members = _members(admin, unique_name)
            subs = [decode_subscription(m.metadata) for m in members if m.metadata]
            # Cooperative: the newcomer's first metadata owns nothing; the first member's
            # rejoin carries what it owned. Settled = both hold partitions, both rejoined.
            if (len(subs) == 2 and second.assignment() and first.assignment()
                    and all(s.generation_id >= 1 for s in subs)
                    and any(s.rack_id == "az2" and s.owned_partitions for s in subs)
                    and all(m.assignment for m in members)):
                break
        else:
            pytest.fail(f"group did not settle: {len(members)} members")

        by_rack = {decode_subscription(m.metadata).rack_id: m for m in members}
        assert set(by_rack) == {"az2", "az3"}
        for rack, consumer in (("az2", first), ("az3", second)):
            m = by_rack[rack]
            sub = decode_subscription(m.metadata)
            assert sub.version == 3  # librdkafka always writes v3
            assert sub.topics == [topic]
            assert sub.generation_id >= 1  # both rejoined after a completed generation
            mine = sorted((e.topic, p) for e in sub.owned_partitions for p in e.partitions)
            held = sorted((tp.topic, tp.partition) for tp in consumer.assignment())
            asg = decode_assignment(m.assignment)
            given = sorted((e.topic, p) for e in asg.assigned_partitions for p in e.partitions)
            assert given == held
            assert set(mine) <= {(topic, p) for p in range(6)}
            if rack == "az2":
                assert mine, "the first member rejoined without its owned partitions"
            # librdkafka's cooperative-sticky user data is the sticky V1 format
            assert sub.user_data is not None
            sticky = decode_sticky_user_data(sub.user_data)
            assert sticky.generation == sub.generation_id
            out = describe_subscription(m.metadata)
            assert out["rack_id"] == rack and "streams" not in out
            print(f"{rack}: generation={sub.generation_id} owned={mine} assigned={given}")
    finally:
        first.close()
        second.close()
