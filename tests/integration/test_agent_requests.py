"""The agent as an assignment service through Kafka (issue 14, item 2), on the real testbed.

A request is what the JVM plug-ins write (protocol.request, checked against the Java
encoder's golden bytes in tests/unit/test_request_codec.py); here a Python producer writes it
so every failure path can be driven on purpose. The answer is a plan on the plans topic with
the request's id, or a dead letter with the id and a reason; the agent keeps running.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.routing import KIND_HEADER, group_partition, header_value
from protocol.consumer import java_subscription
from protocol.plan import AssignmentPlan
from protocol.request import (
    ERROR_HEADER,
    REQUEST_ID_HEADER,
    AssignRequest,
    RequestMember,
    RequestTopic,
    encode_request,
)
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

# Every partition has replicas in exactly two racks: a rack-optimal plan has no cross-rack one.
PLACEMENT = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]


class Replies:
    """Tails the plans and dead-letter topics for answers carrying a request id."""

    def __init__(self, bootstrap: str, topics: list[str]) -> None:
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": f"replies-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "isolation.level": "read_committed",
        })
        self.consumer.subscribe(topics)
        self.seen: dict[str, Any] = {}

    def wait(self, request_id: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and request_id not in self.seen:
            for msg in self.consumer.consume(200, 0.3):
                if msg.error() is None:
                    rid = header_value(msg.headers(), REQUEST_ID_HEADER)
                    if rid:
                        self.seen[rid] = msg
        if request_id not in self.seen:
            raise TimeoutError(f"no answer to request {request_id} within {timeout}s")
        return self.seen[request_id]

    def close(self) -> None:
        self.consumer.close()


def _request(topic: str, protocol: str, owned: dict[str, list[int]] | None = None) -> bytes:
    members = tuple(
        RequestMember(
            f"m-az{i}",
            None,
            java_subscription(
                [topic], [(topic, p) for p in (owned or {}).get(f"m-az{i}", [])],
                generation_id=4 if owned else -1, rack_id=f"az{i}",
            ),
        )
        for i in (1, 2, 3)
    )
    return encode_request(AssignRequest(protocol, (RequestTopic(topic, len(PLACEMENT)),), members))


def test_requests_are_planned_and_bad_ones_answered_with_a_reason(
    bootstrap: str, admin: Any, unique_name: str
) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    settings = isolated_settings(bootstrap, unique_name)
    parts = settings.topics.partitions
    producer = Producer({"bootstrap.servers": bootstrap})
    replies = Replies(bootstrap, [settings.topics.plans, settings.topics.deadletter])

    def send(group: str, value: bytes, partition: int | None = None,
             headers: bool = True) -> str:
        rid = str(uuid.uuid4())
        producer.produce(
            settings.topics.requests, key=group.encode(), value=value,
            partition=group_partition(group, parts) if partition is None else partition,
            headers=[(REQUEST_ID_HEADER, rid.encode()), (KIND_HEADER, b"consumer")]
            if headers else [],
        )
        producer.flush(10)
        return rid

    with AgentThread(settings) as agent:
        agent.wait_ready()
        deadline = time.monotonic() + 60
        while len(agent.agent.health()[1]["serving_requests"]) < parts:
            assert time.monotonic() < deadline, agent.agent.health()
            time.sleep(0.2)
        try:
            # KIP-848: the broker reconciles, nothing is withheld; rack-optimal by default.
            rid = send("kip848-app", _request(topic, "consumer"))
            msg = replies.wait(rid)
            assert msg.topic() == settings.topics.plans
            assert msg.partition() == group_partition("kip848-app", parts)
            plan = AssignmentPlan.from_json(msg.value())
            assert plan.request_id == rid and plan.assignor == "rack-optimal"
            assert plan.summary.cross_rack_partitions == 0 and not plan.withheld
            assert sorted(p.partition for m in plan.members for p in m.partitions) == list(
                range(len(PLACEMENT))
            )

            # KIP-848 members report their current target as owned: the broker revokes before
            # it assigns, so nothing is withheld even where partitions move.
            rid = send("kip848-moving", _request(topic, "consumer", {"m-az1": list(range(6))}))
            plan = AssignmentPlan.from_json(replies.wait(rid).value())
            assert not plan.withheld and plan.summary.cross_rack_partitions == 0
            assert sum(len(m.partitions) for m in plan.members) == len(PLACEMENT)

            # Classic cooperative: partitions another member still owns are withheld.
            owned = {"m-az1": [0, 1, 2, 3, 4, 5]}
            rid = send("classic-app", _request(topic, "classic-cooperative", owned))
            plan = AssignmentPlan.from_json(replies.wait(rid).value())
            assert plan.withheld and all(w.owner == "m-az1" for w in plan.withheld)
            given = {p.partition for m in plan.members for p in m.partitions}
            assert given.isdisjoint({w.partition for w in plan.withheld})
            assert plan.generation > 4  # above the members' own generation

            # A second request for the same group: a higher generation, moves counted.
            rid = send("classic-app", _request(topic, "classic-cooperative", owned))
            again = AssignmentPlan.from_json(replies.wait(rid).value())
            assert again.generation > plan.generation

            # Bad input: answered on the dead-letter topic with the request id and a reason.
            bad = {
                "undecodable": send("bad-bytes", b"\x00\x00\x07garbage"),
                "wrong-partition": send(
                    "elsewhere", _request(topic, "consumer"),
                    partition=(group_partition("elsewhere", parts) + 1) % parts,
                ),
                "plan-failed": send(
                    "no-topic",
                    encode_request(AssignRequest("consumer", (RequestTopic("nope-" + topic, 3),), (
                        RequestMember("m1", None, java_subscription(["nope-" + topic])),
                    ))),
                ),
            }
            for reason, rid in bad.items():
                msg = replies.wait(rid)
                assert msg.topic() == settings.topics.deadletter, reason
                assert header_value(msg.headers(), ERROR_HEADER) == reason
                print(reason, "->", header_value(msg.headers(), "rackwise-error-detail"))

            # Still serving after all of it.
            rid = send("kip848-app", _request(topic, "consumer"))
            assert replies.wait(rid).topic() == settings.topics.plans
            assert agent.agent.health()[0]
            metrics = agent.agent.metrics.render().decode()
            assert 'rackwise_requests_total{outcome="planned"} 5.0' in metrics
            assert 'rackwise_requests_total{outcome="undecodable"} 1.0' in metrics
        finally:
            replies.close()


def test_requests_go_only_to_the_partition_owner(bootstrap: str, admin: Any,
                                                 unique_name: str) -> None:
    """The reader serves exactly the request partitions whose subscriptions partitions the
    agent owns; nothing else is read."""
    settings = isolated_settings(bootstrap, unique_name)
    with AgentThread(settings) as agent:
        agent.wait_ready()
        deadline = time.monotonic() + 60
        while agent.agent.health()[1]["serving_requests"] != agent.agent.health()[1][
            "ready_partitions"
        ]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        serving = agent.agent.health()[1]["serving_requests"]
        assert serving and set(serving) <= set(range(settings.topics.partitions))
        probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
        try:
            md = probe.list_topics(settings.topics.requests, timeout=10)
            assert len(md.topics[settings.topics.requests].partitions) == settings.topics.partitions
            assert probe.get_watermark_offsets(KTopicPartition(settings.topics.requests, 0),
                                               timeout=10) == (0, 0)
        finally:
            probe.close()


def test_a_request_is_planned_on_the_replica_racks_of_now(
    bootstrap: str, admin: Any, unique_name: str
) -> None:
    """A plug-in asks when replica racks have just changed (KIP-881, KIP-1101): the answer must
    use the placement of now, not the agent's last metadata round (interval_s, 60 s here)."""
    from kafka import TopicPartition as KafkaTopicPartition
    from kafka.admin import KafkaAdminClient

    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    settings = isolated_settings(bootstrap, unique_name, metadata={"interval_s": 60.0})
    parts = settings.topics.partitions
    producer = Producer({"bootstrap.servers": bootstrap})
    replies = Replies(bootstrap, [settings.topics.plans, settings.topics.deadletter])
    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))

    def racks_of_p0() -> list[str]:
        rid = str(uuid.uuid4())
        producer.produce(settings.topics.requests, key=b"app", value=_request(topic, "consumer"),
                         partition=group_partition("app", parts),
                         headers=[(REQUEST_ID_HEADER, rid.encode()), (KIND_HEADER, b"consumer")])
        producer.flush(10)
        plan = AssignmentPlan.from_json(replies.wait(rid).value())
        return next(list(p.replica_racks) for m in plan.members for p in m.partitions
                    if p.partition == 0)

    with AgentThread(settings) as agent:
        agent.wait_ready()
        deadline = time.monotonic() + 60
        while len(agent.agent.health()[1]["serving_requests"]) < parts:
            assert time.monotonic() < deadline, agent.agent.health()
            time.sleep(0.2)
        try:
            assert racks_of_p0() == ["az1", "az2"]
            result = kadmin.alter_partition_reassignments({KafkaTopicPartition(topic, 0): [1, 3]})
            assert all(v is None for v in result.values()), result
            deadline = time.monotonic() + 30
            while True:
                from confluent_kafka import TopicCollection

                desc = admin.describe_topics(TopicCollection([topic]))[topic].result(15)
                if [r.id for r in sorted(desc.partitions, key=lambda p: p.id)[0].replicas] == [1, 3]:
                    break
                assert time.monotonic() < deadline, "the move did not finish"
                time.sleep(0.2)
            assert racks_of_p0() == ["az1", "az3"]
        finally:
            kadmin.close()
            replies.close()
