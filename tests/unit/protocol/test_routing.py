"""Where a group's records live (protocol.routing): Kafka's murmur2 and the group's partition."""

from __future__ import annotations

import random

import pytest

from protocol.routing import group_partition, murmur2, parse_key

pytestmark = pytest.mark.unit


def test_murmur2_matches_kafka_python_default_partitioner() -> None:
    from kafka.partitioner.default import murmur2 as reference

    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        assert murmur2(data) & 0x7FFFFFFF == reference(data) & 0x7FFFFFFF


def test_group_partition_is_javas_for_the_group_id() -> None:
    # Java: Utils.toPositive(Utils.murmur2("21".getBytes())) == 1 for kafka-python's test vector
    assert murmur2(b"21") & 0x7FFFFFFF == (-973932308) & 0x7FFFFFFF
    assert group_partition("orders", 1) == 0
    assert parse_key(b"g/m/with/slash") == ("g", "m/with/slash")
