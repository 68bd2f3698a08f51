"""Create the agent's topics when they are missing (docs/architecture.md § Topics).

``subscriptions`` is compacted (latest subscription per member key; tombstones delete);
``plans`` gets the same partition count so group -> partition is the same number in both;
``advice`` is compacted with one partition (the latest record per key);
``control`` and ``deadletter`` are ordinary topics. Existing topics are left alone, but a
subscriptions/plans partition-count mismatch is reported (it only costs a wider recovery read).
"""

from __future__ import annotations

import time

import structlog
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from agent.config.settings import TopicSettings

log = structlog.get_logger("rackwise.topics")


def topic_specs(topics: TopicSettings) -> list[NewTopic]:
    rf = topics.replication_factor
    return [
        NewTopic(
            topics.subscriptions,
            num_partitions=topics.partitions,
            replication_factor=rf,
            config={
                "cleanup.policy": "compact",
                "min.compaction.lag.ms": "0",
                "segment.ms": "3600000",
            },
        ),
        NewTopic(topics.plans, num_partitions=topics.partitions, replication_factor=rf),
        # Advice: the latest record per key is all a plug-in needs, and it reads every
        # partition, so one partition holds it (a few records per topic and per rule).
        NewTopic(
            topics.advice,
            num_partitions=1,
            replication_factor=rf,
            config={"cleanup.policy": "compact", "min.compaction.lag.ms": "0",
                    "segment.ms": "3600000"},
        ),
        NewTopic(topics.control, num_partitions=1, replication_factor=rf),
        NewTopic(topics.deadletter, num_partitions=1, replication_factor=rf),
    ]


def ensure_topics(admin: AdminClient, topics: TopicSettings, timeout: float = 30.0) -> list[str]:
    """Create whichever of the agent's topics do not exist; returns the names created."""
    existing = set(admin.list_topics(timeout=timeout).topics)
    wanted = [t for t in topic_specs(topics) if t.topic not in existing]
    created: list[str] = []
    if wanted:
        futures = admin.create_topics(wanted, operation_timeout=timeout, request_timeout=timeout)
        for name, future in futures.items():
            try:
                future.result(timeout + 5)
                created.append(name)
            except KafkaException as exc:
                if exc.args and exc.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
                    continue  # another agent won the race
                raise
        log.info("created topics", topics=sorted(created))
        _wait_for_leaders(admin, [t.topic for t in wanted], timeout)
    return created


def _wait_for_leaders(admin: AdminClient, names: list[str], timeout: float) -> None:
    """Until every partition of the new topics has a leader in the metadata we get back.

    A consumer that subscribes before then may be given no partition of a topic that
    exists, and only notices at its next metadata refresh (minutes later)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        md = admin.list_topics(timeout=timeout)
        if all(
            name in md.topics
            and md.topics[name].error is None
            and md.topics[name].partitions
            and all(p.leader >= 0 for p in md.topics[name].partitions.values())
            for name in names
        ):
            return
        time.sleep(0.2)
    log.warning("new topics have no leader yet", topics=sorted(names))


def partition_counts(admin: AdminClient, names: list[str], timeout: float = 30.0) -> dict[str, int]:
    md = admin.list_topics(timeout=timeout)
    return {n: len(md.topics[n].partitions) for n in names if n in md.topics}
