"""Small helpers for integration tests that talk to the real testbed."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(admin: AdminClient, name: str, placement: Sequence[Sequence[int]] | None = None,
                 partitions: int = 3, config: dict[str, str] | None = None, timeout: float = 30,
                 client_config: dict[str, str] | None = None) -> None:
    """Create a topic, with an explicit replica placement (list of broker ids per partition) if given.

    ``client_config``: what a client needs besides bootstrap.servers to reach the brokers
    (SASL settings), for the per-broker readiness checks.

    librdkafka insists on the partition count matching the placement (-1 is refused).
    """
    if placement is not None:
        topic = NewTopic(name, num_partitions=len(placement),
                         replica_assignment=[list(r) for r in placement], config=config or {})
    else:
        topic = NewTopic(name, num_partitions=partitions, replication_factor=3, config=config or {})
    admin.create_topics([topic], operation_timeout=timeout)[name].result(timeout)
    wait_for_topic(admin, name, topic.num_partitions, timeout, client_config)


def wait_for_topic(admin: AdminClient, name: str, partitions: int, timeout: float = 30,
                   client_config: dict[str, str] | None = None) -> None:
    """Until every broker's metadata knows the topic with a leader for each partition.

    CreateTopics returns when the controller has it; a describe right after can still meet a
    broker that answers UNKNOWN_TOPIC_OR_PART on a loaded machine. librdkafka sends a
    describe to any broker it is connected to, so one answer proves one broker only: each
    broker is asked through a client bootstrapped on that broker alone (librdkafka connects
    to the others only when it needs them).
    """
    deadline = time.monotonic() + timeout
    _wait_known(admin, name, partitions, deadline)
    for node in admin.describe_cluster(request_timeout=10).result(timeout).nodes:
        with AdminClient({**(client_config or {}), "bootstrap.servers": f"{node.host}:{node.port}"}) as alone:
            _wait_known(alone, name, partitions, deadline)


def _wait_known(admin: AdminClient, name: str, partitions: int, deadline: float) -> None:
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            desc = admin.describe_topics(TopicCollection([name]))[name].result(10)
            if len(desc.partitions) == partitions and all(p.leader is not None for p in desc.partitions):
                return
        except KafkaException as exc:
            last = exc
        time.sleep(0.2)
    raise TimeoutError(f"topic {name} not ready before the deadline: {last}")


def rack_of_brokers(admin: AdminClient) -> dict[int, Any]:
    return {n.id: n.rack for n in admin.describe_cluster(request_timeout=15).result().nodes}
