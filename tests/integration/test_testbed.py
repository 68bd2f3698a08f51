"""The testbed is real Kafka: three brokers, three racks, and explicit cross-rack placement."""

from __future__ import annotations

import pytest
from confluent_kafka import TopicCollection

from tests.support.kafkautil import create_topic

pytestmark = pytest.mark.integration


def test_three_brokers_each_with_its_rack(admin) -> None:  # type: ignore[no-untyped-def]
    cluster = admin.describe_cluster(request_timeout=15).result()
    racks = {node.id: node.rack for node in cluster.nodes}
    assert racks == {1: "az1", 2: "az2", 3: "az3"}


def test_explicit_replica_assignment_lands_on_the_named_racks(admin, unique_name) -> None:  # type: ignore[no-untyped-def]
    placement = [[1, 2], [2, 3], [3, 1], [2, 1]]  # Kafka wants one RF per topic
    create_topic(admin, unique_name, placement)
    desc = admin.describe_topics(TopicCollection([unique_name]))[unique_name].result(30)
    got = {p.id: sorted((r.id, r.rack) for r in p.replicas) for p in desc.partitions}
    rack_of = {1: "az1", 2: "az2", 3: "az3"}
    assert got == {i: sorted((b, rack_of[b]) for b in brokers) for i, brokers in enumerate(placement)}
