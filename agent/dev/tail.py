"""Reading the agent's topics from the beginning: every record, or one group's plans.

Developer tooling (the demo and the tests read plans with it); members follow plans with
agent.member instead.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer

from protocol.errors import RackwiseError
from protocol.plan import AssignmentPlan


class TopicTail:
    """Reads a topic from the beginning (read_committed) and keeps every record."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"tail-{uuid.uuid4().hex[:8]}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
            }
        )
        self.consumer.subscribe([topic])
        self.records: list[Any] = []

    def poll(self, seconds: float = 0.2) -> None:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            batch = self.consumer.consume(500, max(left, 0))
            for msg in batch:
                if msg.error() is None:
                    self.records.append(msg)
            if left <= 0:
                return

    def wait_for(self, pred: Callable[[Any], bool], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            self.poll(0.3)
            for msg in self.records[seen:]:
                if pred(msg):
                    return msg
            seen = len(self.records)
        raise TimeoutError(f"no matching record within {timeout:.0f}s")

    def close(self) -> None:
        self.consumer.close()


class PlanReader(TopicTail):
    """Plans of one group."""

    def __init__(self, bootstrap: str, topic: str, group_id: str) -> None:
        super().__init__(bootstrap, topic)
        self.group_id = group_id

    def plans(self) -> list[AssignmentPlan]:
        out = []
        for msg in self.records:
            if msg.key() == self.group_id.encode():
                with contextlib.suppress(RackwiseError):
                    out.append(AssignmentPlan.from_json(msg.value()))
        return out

    def wait_plan(self, pred: Callable[[AssignmentPlan], bool], timeout: float) -> AssignmentPlan:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.poll(0.3)
            for plan in self.plans():
                if pred(plan):
                    return plan
        raise TimeoutError(
            f"no matching plan for {self.group_id} within {timeout:.0f}s; "
            f"generations seen: {[(p.generation, p.reason) for p in self.plans()]}"
        )
