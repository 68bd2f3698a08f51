"""Dead letters: a rejected subscriptions record, copied to the dead-letter topic with why.

The copy keeps the original key, value and headers and adds ``rackwise-error``,
``rackwise-error-detail``, ``rackwise-source`` (topic/partition/offset) and
``rackwise-agent``. Called from the agent's poll loop only, like the producer's other uses.
"""

from __future__ import annotations

from typing import Any

import structlog
from confluent_kafka import KafkaException, Producer

log = structlog.get_logger("rackwise.agent")

# Dead letters keep at most this much of the original value (librdkafka's default
# message.max.bytes is 1,000,000 and the key and headers must fit beside it).
DEAD_LETTER_MAX_VALUE = 512 * 1024


def write_dead_letter(
    dlq: Producer, topic: str, instance_id: str, msg: Any, reason: str, detail: str
) -> None:
    """Produce ``msg`` to ``topic`` with the rejection headers; never drops on a full queue."""
    headers = list(msg.headers() or [])
    headers += [
        ("rackwise-error", reason.encode()),
        ("rackwise-error-detail", detail.encode()),
        ("rackwise-source", f"{msg.topic()}/{msg.partition()}/{msg.offset()}".encode()),
        ("rackwise-agent", instance_id.encode()),
    ]
    value = msg.value()
    if value is not None and len(value) > DEAD_LETTER_MAX_VALUE:
        # A record at the broker's size limit no longer fits once our headers are added.
        headers.append(("rackwise-truncated-from", str(len(value)).encode()))
        value = value[:DEAD_LETTER_MAX_VALUE]
    for _ in range(100):
        try:
            dlq.produce(topic, key=msg.key(), value=value, headers=headers)
            break
        except BufferError:  # the producer's queue is full: let it drain, do not drop
            dlq.poll(0.1)
        except KafkaException as exc:
            log.error("dead letter not written", error=str(exc))
            break
    else:
        log.error("dead letter not written", error="producer queue stayed full")
