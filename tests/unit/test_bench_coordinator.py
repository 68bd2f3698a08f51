"""The live bench's coordinator pinning (bench/bench_plugins.py ``--coordinator``): the group
id's ``__consumer_offsets`` partition must be the one Kafka's coordinator picks, or a "warm"
round lands on another broker. The expected hashes were printed by Java 17's
``String.hashCode`` and ``Utils.abs(h) % 50`` on this machine (``javac H.java``), not
derived from the code under test."""

from __future__ import annotations

import pytest

from bench.bench_plugins import _group_on, java_string_hash, offsets_partition


@pytest.mark.parametrize(("text", "java_hash", "partition"), [
    ("bench-live-8492b8-data-rackwise-r1", 1179073452, 2),
    ("grüße-é-c3", 1434055434, 34),  # non-ASCII: UTF-16 code units
    ("polygenelubricants", -2147483648, 0),  # Integer.MIN_VALUE: Utils.abs gives 0
    ("x", 120, 20),
])
def test_group_partition_as_kafka_picks_it(text: str, java_hash: int, partition: int) -> None:
    assert java_string_hash(text) == java_hash
    assert offsets_partition(text, 50) == partition


def test_group_on_names_a_group_the_broker_coordinates() -> None:
    leaders = {p: 1 + p % 3 for p in range(50)}
    for broker in (1, 2, 3):
        group = _group_on("bench-live-8492b8-data-rackwise-r1", broker, leaders)
        assert leaders[offsets_partition(group, 50)] == broker
    assert _group_on("g", None, leaders) == "g"
    with pytest.raises(SystemExit):
        _group_on("g", 4, leaders)
