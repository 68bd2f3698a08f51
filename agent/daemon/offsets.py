"""End offsets of changelog partitions: what a Streams plan's lags are measured against.

Kafka Streams' leader lists the changelogs' end offsets before it assigns tasks
(``ClientState.computeTaskLags`` then subtracts each client's reported offset sums); the
agent does the same with AdminClient ``list_offsets`` so a live group's lags, caught-up
clients, warm-ups and probing follow-ups are what Kafka Streams would compute.

A partition whose end offset cannot be read is left out: its task then lags by what the
other partitions say (0 when none is known), the same as an empty changelog, and the read
error is logged.
"""

from __future__ import annotations

from collections.abc import Iterable

import structlog
from confluent_kafka import TopicPartition as KTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from assignor.inputs import TopicPartition

log = structlog.get_logger("rackwise.offsets")


def end_offsets(
    admin: AdminClient, partitions: Iterable[TopicPartition], timeout_s: float = 10.0
) -> dict[TopicPartition, int]:
    wanted = sorted(set(partitions))
    if not wanted:
        return {}
    latest = OffsetSpec.latest()  # type: ignore[no-untyped-call]
    request = {KTopicPartition(tp.topic, tp.partition): latest for tp in wanted}
    out: dict[TopicPartition, int] = {}
    futures = admin.list_offsets(request, request_timeout=timeout_s)
    for ktp, future in futures.items():
        try:
            info = future.result(timeout_s + 5)
        except Exception as exc:  # KafkaException, or a bare KafkaError
            log.warning("end offset not read", topic=ktp.topic, partition=ktp.partition,
                        error=str(exc))
            continue
        out[TopicPartition(ktp.topic, ktp.partition)] = max(int(info.offset), 0)
    return out
