"""Make sure the metrics topic exists before Spark's Kafka sink writes to it.

Clusters often run with auto.create.topics.enable=false (the testbed does), and Spark's sink
would then fail the query on its first batch. The plans topic is the agent's; the job only
waits for it to appear.
"""

from __future__ import annotations

import logging

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from metrics.settings import MetricsSettings
from protocol.kafkaconf import property_name

log = logging.getLogger("rackwise.metrics")


def admin_config(settings: MetricsSettings) -> dict[str, str | int | float | bool]:
    """librdkafka settings: the RACKWISE_KAFKA__* values as given (dotted), no JAAS."""
    conf: dict[str, str | int | float | bool] = {
        property_name(key): str(v) for key, v in settings.kafka.items()
    }
    conf["bootstrap.servers"] = settings.bootstrap
    return conf


def ensure_topic(settings: MetricsSettings, topic: str, partitions: int = 3,
                 timeout: float = 30.0) -> None:
    with AdminClient(admin_config(settings)) as admin:  # closed on this thread
        _ensure(admin, topic, partitions, timeout)


def _ensure(admin: AdminClient, topic: str, partitions: int, timeout: float) -> None:
    existing = admin.list_topics(timeout=timeout).topics
    if topic in existing:
        return
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions)],
                                  operation_timeout=timeout)
    try:
        futures[topic].result(timeout)
        log.info("created topic %s", topic)
    except KafkaException as exc:
        if "TOPIC_ALREADY_EXISTS" not in str(exc):
            raise
