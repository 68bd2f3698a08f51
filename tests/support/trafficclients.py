"""Real clients that count bytes themselves: the independent check of rackwise's traffic figures.

* :class:`SteadyProducer` writes fixed-size records to chosen partitions at fixed rates
  (uncompressed, so a record's bytes on disk are its payload plus batch overhead).
* :class:`CountingConsumers` are librdkafka consumers with ``statistics.interval.ms``; each
  statistics report gives, per partition, ``rxbytes`` (key + value bytes received) and
  ``broker`` (the broker it currently fetches from: the leader, or with KIP-392 a follower).
  :meth:`CountingConsumers.rates` turns two reports into bytes/s read in the client's own
  rack and across racks, with the racks of the brokers from ``describe_cluster``: nothing of
  rackwise is involved.

:class:`CountingFollowers` count the same way while following rackwise's plans
(agent.member.PlanFollower): the check that a plan the agent publishes changes what crosses
racks on the wire.

Shared by tests/integration/test_cost.py, test_traffic_replan.py and bench/bench_traffic.py.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import OFFSET_END, Consumer, Producer, TopicPartition


def _produce(bootstrap: str, topic: str, rates: dict[int, float], size: int, compression: str,
             sent: Any, stop: Any, keys: int = 0) -> None:
    """The producer process: records of ``size`` bytes at ``rates`` until ``stop`` is set."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20,
                         "compression.type": compression, "acks": "1"})
    # random bytes do not compress; with a codec, half of each record is zeros
    payload = os.urandom(size) if compression == "none" else (
        os.urandom(size // 2) + bytes(size - size // 2))
    parts = sorted(rates)
    done = [0] * len(parts)
    start = time.monotonic()
    while not stop.wait(0.01):
        elapsed = time.monotonic() - start
        for i, p in enumerate(parts):
            due = int(elapsed * rates[p]) - done[i]
            for n in range(max(0, due)):
                key = f"k{(done[i] + n) % keys}".encode() if keys else None
                producer.produce(topic, payload, key=key, partition=p)
            done[i] += max(0, due)
            sent[i] = done[i]
        producer.poll(0)
    producer.flush(10)


class SteadyProducer:
    """Records of ``size`` bytes to ``rates`` {partition: records/s}, until stopped.

    It runs in its own process: in the test's process an audit's CPU work would hold the
    GIL, the producer would fall behind and then burst, and two windows over the same
    traffic would disagree. ``keys`` > 0 gives the records that many keys per partition
    (a Kafka Streams aggregation drops records without a key).
    """

    def __init__(self, bootstrap: str, topic: str, rates: Mapping[int, float],
                 size: int = 1000, compression: str = "none", keys: int = 0) -> None:
        import multiprocessing

        self.topic, self.rates, self.size = topic, dict(rates), size
        ctx = multiprocessing.get_context("spawn")  # no fork of librdkafka's threads
        self._parts = sorted(self.rates)
        self._sent = ctx.Array("q", len(self._parts))
        self._stop = ctx.Event()
        self._proc = ctx.Process(target=_produce, name="steady-producer", daemon=True, args=(
            bootstrap, topic, self.rates, size, compression, self._sent, self._stop, keys))

    def __enter__(self) -> SteadyProducer:
        self._proc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._proc.join(20)
        if self._proc.is_alive():
            self._proc.kill()

    @property
    def sent(self) -> dict[int, int]:
        """Records produced so far, per partition."""
        return dict(zip(self._parts, self._sent[:], strict=True))

    def bytes_per_s(self) -> dict[int, float]:
        """The payload rate asked for, per partition."""
        return {p: rate * self.size for p, rate in self.rates.items()}


@dataclass(frozen=True)
class Rates:
    """What a set of consumers read per second, by their own statistics."""

    total: float
    cross_rack: float
    by_partition: dict[tuple[str, int], float]
    brokers: dict[tuple[str, int], int]  # partition -> broker fetched from


class CountingConsumers:
    """Consumers with librdkafka statistics; their latest per-partition counts are kept."""

    def __init__(self, bootstrap: str, group: str | None, topics: Sequence[str],
                 racks: Sequence[str | None], broker_racks: Mapping[int, str | None],
                 extra: Sequence[Mapping[str, Any]] | None = None,
                 assign: Sequence[Sequence[tuple[str, int]]] | None = None) -> None:
        """``group``: subscribe as one group; or ``assign``: a fixed list per consumer."""
        self.broker_racks = dict(broker_racks)
        self.racks = list(racks)
        self._lock = threading.Lock()
        self._stats: dict[int, dict[tuple[str, int], tuple[int, int]]] = {}
        self._owned: dict[int, list[int]] = {}
        self.consumers: list[Consumer] = []
        for i, rack in enumerate(racks):
            conf: dict[str, Any] = {
                "bootstrap.servers": bootstrap, "group.id": group or f"counting-{os.getpid()}-{i}",
                "statistics.interval.ms": 500, "auto.offset.reset": "latest",
                "enable.auto.commit": False, "fetch.wait.max.ms": 100,
                "stats_cb": self._callback(i),
            }
            if rack:
                conf["client.rack"] = rack
            conf.update((extra or [{}] * len(racks))[i])
            c = Consumer(conf)
            if assign is not None:
                c.assign([TopicPartition(t, p, OFFSET_END) for t, p in assign[i]])
            else:
                c.subscribe(list(topics))
            self.consumers.append(c)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="counting-consumers", daemon=True)
        self._thread.start()

    def _callback(self, index: int) -> Any:
        def on_stats(raw: str) -> None:
            doc = json.loads(raw)
            parts = {}
            for topic, tdoc in doc.get("topics", {}).items():
                for p, pdoc in tdoc.get("partitions", {}).items():
                    if int(p) >= 0 and pdoc.get("fetch_state") == "active":
                        parts[(topic, int(p))] = (int(pdoc["rxbytes"]), int(pdoc["broker"]))
            with self._lock:
                self._stats[index] = parts
        return on_stats

    def _poll(self) -> None:
        # Only this thread touches the consumers: assignment() from another thread can wait
        # for a poll in progress for a long time.
        while not self._stop.is_set():
            for i, c in enumerate(self.consumers):
                c.poll(0.02)  # consumes, and fires the statistics callback
                owned = sorted(tp.partition for tp in c.assignment())
                with self._lock:
                    self._owned[i] = owned

    def owned(self) -> list[list[int]]:
        with self._lock:
            return [list(self._owned.get(i, [])) for i in range(len(self.consumers))]

    def snapshot(self) -> dict[int, dict[tuple[str, int], tuple[int, int]]]:
        with self._lock:
            return {i: dict(parts) for i, parts in self._stats.items()}

    def rates(self, seconds: float) -> Rates:
        """Bytes/s over the next ``seconds``, split by whether the fetching broker is in the
        consumer's own rack (a consumer without a rack is counted as reading across racks)."""
        first, began = self.snapshot(), time.monotonic()
        time.sleep(seconds)
        last, took = self.snapshot(), time.monotonic() - began
        total = cross = 0.0
        by_partition: dict[tuple[str, int], float] = {}
        brokers: dict[tuple[str, int], int] = {}
        for i, parts in last.items():
            for tp, (rx, broker) in parts.items():
                before = first.get(i, {}).get(tp)
                if before is None:
                    continue
                rate = (rx - before[0]) / took
                total += rate
                by_partition[tp] = by_partition.get(tp, 0.0) + rate
                brokers[tp] = broker
                if self.broker_racks.get(broker) != self.racks[i]:
                    cross += rate
        return Rates(total, cross, by_partition, brokers)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for c in self.consumers:
            c.close()


class CountingFollowers(CountingConsumers):
    """One PlanFollower member per rack, each data consumer with statistics; a thread polls
    the consumers and the followers (applying plans as they come)."""

    def __init__(self, bootstrap: str, group: str, topics: Sequence[str],
                 racks: Sequence[str], broker_racks: Mapping[int, str | None],
                 subscriptions_topic: str, plans_topic: str) -> None:
        from agent.member import PlanFollower

        self.broker_racks = dict(broker_racks)
        self.racks = list(racks)
        self._lock = threading.Lock()
        self._stats = {}
        self._owned = {}
        self.consumers = []
        self.followers: list[PlanFollower] = []
        for i, rack in enumerate(racks):
            conf = PlanFollower.consumer_config({"bootstrap.servers": bootstrap}, group, rack)
            consumer = Consumer({**conf, "statistics.interval.ms": 500, "fetch.wait.max.ms": 100,
                                 "auto.offset.reset": "latest", "stats_cb": self._callback(i)})
            follower = PlanFollower(consumer, {"bootstrap.servers": bootstrap, "client.rack": rack},
                                    group_id=group, topics=topics, rack=rack, member_id=f"m-{rack}",
                                    subscriptions_topic=subscriptions_topic, plans_topic=plans_topic,
                                    heartbeat_s=1.0)
            follower.start()
            self.consumers.append(consumer)
            self.followers.append(follower)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="counting-followers", daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            for i, (c, f) in enumerate(zip(self.consumers, self.followers, strict=True)):
                c.consume(500, 0.02)  # consumes, and fires the statistics callback
                f.poll()
                with self._lock:
                    self._owned[i] = sorted(p for _t, p in f.owned)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for c, f in zip(self.consumers, self.followers, strict=True):
            f.close(leave=True)
            c.close()
