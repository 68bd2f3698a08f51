"""What a plan promises holds on the wire: librdkafka's own statistics.

Three PlanFollower members in az1, az2, az3 on a topic whose replicas sit in az1 and az2
only. The members are built with ``PlanFollower.create`` (``client.rack`` = the member's
rack), so with the testbed's RackAwareReplicaSelector every partition the plan calls local is
fetched from a broker in the member's rack, and the cross-rack bytes measured from the
clients' per-partition statistics (the broker each partition is fetched from, ``rxbytes``)
equal what the plan's cross-rack partitions carry. A follower refuses a consumer config whose
``client.rack`` is not its rack.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from confluent_kafka import Producer

from agent.dev.tail import PlanReader
from agent.member import PlanFollower
from protocol.errors import RackwiseError
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

PLACEMENT = [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1]]  # az1 and az2 only
RECORDS = 300
VALUE = b"v" * 200


class StatsMember:
    """A PlanFollower member recording librdkafka's per-partition fetch statistics."""

    def __init__(self, bootstrap: str, settings: Any, group: str, rack: str, topic: str) -> None:
        self.rack = rack
        self.stats: dict[int, dict[str, int]] = {}
        self.records = 0
        self.follower = PlanFollower.create(
            {"bootstrap.servers": bootstrap},
            group_id=group,
            topics=[topic],
            rack=rack,
            member_id=f"m-{rack}",
            consumer_config={"statistics.interval.ms": 500, "stats_cb": self._on_stats},
            subscriptions_topic=settings.topics.subscriptions,
            plans_topic=settings.topics.plans,
            heartbeat_s=1.0,
        )
        self.topic = topic
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _on_stats(self, raw: str) -> None:
        parts = json.loads(raw).get("topics", {}).get(self.topic, {}).get("partitions", {})
        self.stats = {
            int(p): {"broker": int(s["broker"]), "leader": int(s["leader"]),
                     "rxbytes": int(s["rxbytes"]), "rxmsgs": int(s["rxmsgs"])}
            for p, s in parts.items() if int(p) >= 0
        }

    def start(self) -> StatsMember:
        self.follower.start()
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            for msg in self.follower.consumer.consume(100, 0.1):
                if msg.error() is None:
                    self.records += 1
            self.follower.poll()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.follower.close(leave=True)
        self.follower.consumer.close()


def test_follower_refuses_a_consumer_without_its_rack() -> None:
    with pytest.raises(RackwiseError, match="client.rack"):
        PlanFollower(None, {"bootstrap.servers": "x:1"}, group_id="g",  # type: ignore[arg-type]
                     topics=["t"], rack="az1")
    with pytest.raises(RackwiseError, match="client.rack"):
        PlanFollower.consumer_config({"client.rack": "az2"}, "g", "az1")
    assert PlanFollower.consumer_config({}, "g", "az1")["client.rack"] == "az1"


def test_plan_local_partitions_are_fetched_locally(
    bootstrap: str, admin: Any, unique_name: str
) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    racks = rack_of_brokers(admin)
    settings = isolated_settings(bootstrap, unique_name, planner={"coalesce_ms": 1000})
    group = "wire-app"
    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        members = [StatsMember(bootstrap, settings, group, r, topic).start()
                   for r in ("az1", "az2", "az3")]
        try:
            plan = reader.wait_plan(
                lambda p: len(p.members) == 3 and not p.withheld
                and sum(len(m.partitions) for m in p.members) == len(PLACEMENT),
                timeout=90,
            )
            deadline = time.monotonic() + 60
            by_member = {m.follower.member_id: m for m in members}
            while not all(
                {q for _, q in by_member[pm.member_id].follower.owned}
                == {p.partition for p in pm.partitions}
                for pm in plan.members
            ):
                assert time.monotonic() < deadline, "members did not adopt the plan"
                time.sleep(0.2)
            time.sleep(3)  # let every partition settle on its preferred read replica
            producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
            for i in range(RECORDS):
                producer.produce(topic, value=VALUE, partition=i % len(PLACEMENT))
            producer.flush(30)
            deadline = time.monotonic() + 60
            while sum(m.records for m in members) < RECORDS:
                assert time.monotonic() < deadline, [m.records for m in members]
                time.sleep(0.2)
            time.sleep(1.5)  # one more statistics round after the last record

            planned_cross = measured_cross = total = 0
            for pm in plan.members:
                member = by_member[pm.member_id]
                for pp in pm.partitions:
                    s = member.stats[pp.partition]
                    fetched_rack = racks[s["broker"]]
                    print(f"{pm.member_id} p{pp.partition}: plan cross={pp.cross_rack} "
                          f"fetched from broker {s['broker']} ({fetched_rack}), "
                          f"leader {s['leader']}, {s['rxbytes']} bytes")
                    assert s["rxmsgs"] > 0
                    assert (fetched_rack != member.rack) == pp.cross_rack, (pm.member_id, pp)
                    total += s["rxbytes"]
                    measured_cross += s["rxbytes"] if fetched_rack != member.rack else 0
                    planned_cross += s["rxbytes"] if pp.cross_rack else 0
            print(f"cross-rack bytes: planned {planned_cross}, measured {measured_cross} "
                  f"of {total} ({plan.summary.cross_rack_partitions} of {len(PLACEMENT)} "
                  "partitions cross-rack in the plan)")
            assert measured_cross == planned_cross
        finally:
            for m in members:
                m.stop()
            reader.close()
