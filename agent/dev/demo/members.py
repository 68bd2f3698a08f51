"""The demo's group members: real confluent-kafka consumers that follow rackwise plans.

A consumer member is a :class:`agent.member.follower.PlanFollower` around a plain Consumer. A
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
from collections.abc import Mapping
from typing import Any

from confluent_kafka import Consumer

from agent.dev.fetchstats import TP, ClientView, PartitionFetch, rdkafka_fetches
from agent.member import PlanFollower, StreamsFollower, process_id

STATS_MS = 500


class _Stats:
    """The consumer's latest librdkafka statistics for its topic (the ``stats_cb``)."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self._lock = threading.Lock()
        self._fetches: dict[TP, PartitionFetch] = {}

    def __call__(self, raw: str) -> None:
        fetches = rdkafka_fetches(raw, self.topic)
        with self._lock:
            self._fetches = fetches

    def fetches(self) -> dict[TP, PartitionFetch]:
        with self._lock:
            return dict(self._fetches)


class DemoMember:
    """A consumer plus its follower, polled in a thread; counts the records it reads and
    keeps librdkafka's per-partition statistics (the broker each partition is fetched from,
    bytes received): :meth:`view`."""

    def __init__(self, name: str, consumer: Consumer, follower: PlanFollower,
                 stats: _Stats) -> None:
        self.name = name
        self.client = consumer
        self.follower = follower
        self.stats = stats
        self.records = 0
        self.error: BaseException | None = None
        self._owned: frozenset[TP] = frozenset()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"demo-{name}", daemon=True)
        self._started = False

    @classmethod
    def consumer(
        cls, conf: Mapping[str, Any], topics: Mapping[str, str], group: str, name: str, rack: str,
        topic: str,
    ) -> DemoMember:
        stats = _Stats(topic)
        consumer = _consumer(conf, group, rack, stats)
        follower = PlanFollower(
            consumer, {**conf, "client.rack": rack}, group_id=group, topics=[topic], rack=rack,
            member_id=name,
            subscriptions_topic=topics["subscriptions"], plans_topic=topics["plans"],
            heartbeat_s=1.0,
        )
        return cls(name, consumer, follower, stats)

    @classmethod
    def streams(
        cls, conf: Mapping[str, Any], topics: Mapping[str, str], group: str, name: str, rack: str,
        topic: str,
    ) -> DemoMember:
        stats = _Stats(topic)
        consumer = _consumer(conf, group, rack, stats)
        follower = StreamsFollower(
            consumer, {**conf, "client.rack": rack}, group_id=group, topics=[topic], rack=rack,
            subscriptions_topic=topics["subscriptions"], plans_topic=topics["plans"],
            heartbeat_s=1.0, process=process_id(f"{group}/{name}"), endpoint=f"{name}:8080",
        )
        return cls(name, consumer, follower, stats)

    @property
    def member_id(self) -> str:
        return self.follower.member_id

    def assignment(self) -> frozenset[TP]:
        """The partitions its follower holds (as of its last poll)."""
        return self._owned

    def view(self) -> ClientView:
        return ClientView(self.member_id, self.follower.rack or "", self._owned,
                          self.stats.fetches())

    def start(self) -> DemoMember:
        self.follower.start()
        self._started = True
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                for msg in self.client.consume(200, 0.2):
                    if msg.error() is None:
                        self.records += 1
                self.follower.poll()
                self._owned = frozenset(self.follower.owned)
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
            self.client.close()


def _consumer(conf: Mapping[str, Any], group: str, rack: str, stats: _Stats) -> Consumer:
    # client.rack = the member's rack: plan-local partitions are fetched from a local replica.
    return Consumer(
        {**PlanFollower.consumer_config(conf, group, rack), "auto.offset.reset": "earliest",
         "statistics.interval.ms": STATS_MS, "stats_cb": stats}
    )
