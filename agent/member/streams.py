"""Follow rackwise streams plans: a PlanFollower whose subscription is a Kafka Streams member's.

Its user data is Kafka Streams' ``SubscriptionInfo`` (process id, and its running active
tasks with offset sum -2, as a Streams client reports them after a rebalance), published
with ``rackwise-kind: streams``. One thread per process, so the member id is the process id:
that is the id a streams plan lists its members by.

Example::

    follower = StreamsFollower(consumer, {**conf, "client.rack": "az1"}, group_id="app",
                               topics=["in"], rack="az1",
                               process=process_id("app/p1"), endpoint="p1:8080")
"""

from __future__ import annotations

import uuid
from typing import Any

from agent.member.follower import PlanFollower
from protocol.consumer import encode_subscription, java_subscription
from protocol.streams import (
    LATEST_OFFSET,
    TaskId,
    build_subscription_info,
    encode_subscription_info,
)

# Process ids are derived from the member name so a run is reproducible (no uuid4).
_PROCESS_NAMESPACE = uuid.UUID("5a1e0000-0000-4000-8000-00000000d3e0")


def process_id(name: str) -> uuid.UUID:
    return uuid.uuid5(_PROCESS_NAMESPACE, name)


def parse_task(text: str) -> TaskId:
    """``"0_3"`` -> TaskId(0, 3) (the plan's task ids, docs/architecture.md § The plan)."""
    subtopology, _, partition = text.rpartition("_")
    return TaskId(int(subtopology), int(partition))


class StreamsFollower(PlanFollower):
    """A PlanFollower whose subscription is a Streams member's: SubscriptionInfo user data."""

    kind = "streams"

    def __init__(self, *args: Any, process: uuid.UUID, endpoint: str, **kwargs: Any) -> None:
        super().__init__(*args, member_id=str(process), **kwargs)
        self.process = process
        self.endpoint = endpoint

    def active_tasks(self) -> list[TaskId]:
        if self.plan is None:
            return []
        for m in self.plan.members:
            if m.member_id == self.member_id:
                return sorted((parse_task(t) for t in m.active_tasks), key=TaskId.sort_key)
        return []

    def subscription_bytes(self) -> bytes:
        info = build_subscription_info(
            11,
            self.process,
            {task: LATEST_OFFSET for task in self.active_tasks()},
            endpoint=self.endpoint,
            client_tags={"zone": self.rack or ""},
        )
        sub = java_subscription(
            self.topics,
            self.owned,
            user_data=encode_subscription_info(info),
            generation_id=self.generation,
            rack_id=self.rack,
        )
        return encode_subscription(sub, 3)
