"""The demo's group members: real confluent-kafka consumers that follow rackwise plans.

A consumer member is a :class:`agent.member.PlanFollower` around a plain Consumer. A
Streams-style member is the same, except that its subscription carries Kafka Streams'
``SubscriptionInfo`` as user data (process id, and its running active tasks with offset sum
-2, as a Streams client reports them after a rebalance) and is published with
``rackwise-kind: streams``. One thread per process, so the member id is the process id:
that is the id a streams plan lists its members by.

Example::

    member = DemoMember.consumer(conf, names, "orders-az1", "az1").start()
    ...
    member.stop()          # commit, give every partition up, publish the tombstone
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from typing import Any

from confluent_kafka import Consumer

from agent.member import PlanFollower
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
    """``"0_3"`` -> TaskId(0, 3) (the plan's task ids, DESIGN §3)."""
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


class DemoMember:
    """A consumer plus its follower, polled in a thread; counts the records it reads."""

    def __init__(self, name: str, consumer: Consumer, follower: PlanFollower) -> None:
        self.name = name
        self.consumer = consumer
        self.follower = follower
        self.records = 0
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"demo-{name}", daemon=True)
        self._started = False

    @classmethod
    def consumer(
        cls, conf: Mapping[str, Any], topics: Mapping[str, str], group: str, name: str, rack: str,
        topic: str,
    ) -> DemoMember:
        consumer = _consumer(conf, group)
        follower = PlanFollower(
            consumer, conf, group_id=group, topics=[topic], rack=rack, member_id=name,
            subscriptions_topic=topics["subscriptions"], plans_topic=topics["plans"],
            heartbeat_s=1.0,
        )
        return cls(name, consumer, follower)

    @classmethod
    def streams(
        cls, conf: Mapping[str, Any], topics: Mapping[str, str], group: str, name: str, rack: str,
        topic: str,
    ) -> DemoMember:
        consumer = _consumer(conf, group)
        follower = StreamsFollower(
            consumer, conf, group_id=group, topics=[topic], rack=rack,
            subscriptions_topic=topics["subscriptions"], plans_topic=topics["plans"],
            heartbeat_s=1.0, process=process_id(f"{group}/{name}"), endpoint=f"{name}:8080",
        )
        return cls(name, consumer, follower)

    def start(self) -> DemoMember:
        self.follower.start()
        self._started = True
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                for msg in self.consumer.consume(200, 0.2):
                    if msg.error() is None:
                        self.records += 1
                self.follower.poll()
        except BaseException as exc:  # reported by stop(); the demo goes on cleaning up
            self.error = exc

    def stop(self) -> None:
        """Stop polling, hand everything back (tombstone), close the clients."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(15)
        try:
            if self._started:
                self.follower.close(leave=True)
        finally:
            self.consumer.close()


def _consumer(conf: Mapping[str, Any], group: str) -> Consumer:
    return Consumer(
        {**conf, "group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest"}
    )
