"""Small helpers for integration tests that talk to the real testbed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(admin: AdminClient, name: str, placement: Sequence[Sequence[int]] | None = None,
                 partitions: int = 3, config: dict[str, str] | None = None, timeout: float = 30) -> None:
    """Create a topic, with an explicit replica placement (list of broker ids per partition) if given.

    librdkafka insists on the partition count matching the placement (-1 is refused).
    """
    if placement is not None:
        topic = NewTopic(name, num_partitions=len(placement),
                         replica_assignment=[list(r) for r in placement], config=config or {})
    else:
        topic = NewTopic(name, num_partitions=partitions, replication_factor=3, config=config or {})
    admin.create_topics([topic], operation_timeout=timeout)[name].result(timeout)


def rack_of_brokers(admin: AdminClient) -> dict[int, Any]:
    return {n.id: n.rack for n in admin.describe_cluster(request_timeout=15).result().nodes}
