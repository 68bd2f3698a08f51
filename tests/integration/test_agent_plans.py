"""The agent on the real testbed: plans arrive, match the assignor, and bad input is dead-lettered."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Producer

from agent.dev.tail import PlanReader, TopicTail
from assignor.scenario import plan_from_scenario
from protocol.consumer import encode_subscription, java_subscription
from protocol.routing import KIND_HEADER, group_partition, member_key
from tests.support.agent import AgentThread, MemberLoop, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

# RF 1: four partitions live only in az1, one in az2, one in az3 -> balance forces cross-rack.
PLACEMENT = [[1], [1], [1], [1], [2], [3]]


def test_plan_arrives_every_partition_owned_once_cross_rack_as_assignor(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    settings = isolated_settings(bootstrap, unique_name, planner={"coalesce_ms": 1500})
    group = "orders-app"
    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        members = [
            MemberLoop(bootstrap, settings, group, f"m{i}", f"az{i}", [topic]).start()
            for i in (1, 2, 3)
        ]
        try:
            plan = reader.wait_plan(lambda p: len(p.members) == 3, timeout=60)
            owners: dict[int, list[str]] = {}
            for m in plan.members:
                for p in m.partitions:
                    assert p.topic == topic
                    owners.setdefault(p.partition, []).append(m.member_id)
            for w in plan.withheld:
                owners.setdefault(w.partition, []).append(w.target)
            assert sorted(owners) == list(range(len(PLACEMENT)))
            assert all(len(v) == 1 for v in owners.values()), owners

            racks = rack_of_brokers(admin)
            doc = {
                "cluster": {
                    "brokers": {str(b): r for b, r in racks.items()},
                    "topics": {topic: PLACEMENT},
                },
                "group": {
                    "id": group,
                    "members": [
                        {"id": f"m{i}", "rack": f"az{i}", "topics": [topic]} for i in (1, 2, 3)
                    ],
                },
            }
            offline = plan_from_scenario(doc, assignor="cooperative-sticky")
            by_hand = sum(
                1
                for m in plan.members
                for p in m.partitions
                if m.rack not in {racks[b] for b in PLACEMENT[p.partition]}
            )
            assert plan.assignor == "cooperative-sticky"
            assert plan.summary.cross_rack_partitions == offline.summary.cross_rack_partitions
            assert by_hand == plan.summary.cross_rack_partitions == 2  # 4 in az1, 2 per member
            # The members adopted it.
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if all(m.follower.generation >= plan.generation for m in members):
                    break
                time.sleep(0.2)
            adopted = {tp for m in members for tp in m.follower.owned}
            assert adopted == {(topic, p) for p in range(len(PLACEMENT))}
        finally:
            for m in members:
                m.stop()
            reader.close()


def test_bad_subscriptions_are_dead_lettered_and_other_groups_still_planned(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]])
    settings = isolated_settings(bootstrap, unique_name)
    n = settings.topics.partitions
    good = java_subscription([topic], rack_id="az1")
    v3 = encode_subscription(good, 3)
    bad_values = {
        "garbage": b"\x13\x37 definitely not a subscription",
        "truncated": v3[: len(v3) // 2],
        "wrong-version": b"\xff\xfe" + v3[2:],  # version -2
    }
    with AgentThread(settings) as agent:
        agent.wait_ready()
        producer = Producer({"bootstrap.servers": bootstrap})
        for name, value in bad_values.items():
            gid = f"bad-{name}"
            producer.produce(
                settings.topics.subscriptions,
                key=member_key(gid, "m1"),
                value=value,
                partition=group_partition(gid, n),
                headers=[(KIND_HEADER, b"consumer")],
            )
        producer.produce(settings.topics.subscriptions, key=b"no-slash-key", value=v3, partition=0)
        producer.produce(
            settings.topics.subscriptions,
            key=member_key("kindless", "m1"),
            value=v3,
            partition=group_partition("kindless", n),
            headers=[(KIND_HEADER, b"spaceship")],
        )
        # A healthy group published after the bad records must still get its plan.
        producer.produce(
            settings.topics.subscriptions,
            key=member_key("healthy", "m1"),
            value=v3,
            partition=group_partition("healthy", n),
            headers=[(KIND_HEADER, b"consumer")],
        )
        producer.flush(10)

        reader = PlanReader(bootstrap, settings.topics.plans, "healthy")
        dead = TopicTail(bootstrap, settings.topics.deadletter)
        try:
            plan = reader.wait_plan(lambda p: [m.member_id for m in p.members] == ["m1"], 45)
            assert sum(len(m.partitions) for m in plan.members) == 3
            deadline = time.monotonic() + 30
            while len(dead.records) < 5 and time.monotonic() < deadline:
                dead.poll(0.5)
            by_key = {msg.key(): dict(msg.headers() or []) for msg in dead.records}
            for name in bad_values:
                headers = by_key[member_key(f"bad-{name}", "m1")]
                assert headers[b"rackwise-error".decode()] == b"undecodable", (name, headers)
                assert headers["rackwise-kind"] == b"consumer"  # original headers kept
            originals = {msg.key(): msg.value() for msg in dead.records}
            assert originals[member_key("bad-garbage", "m1")] == bad_values["garbage"]
            assert by_key[b"no-slash-key"]["rackwise-error"] == b"bad-key"
            assert by_key[member_key("kindless", "m1")]["rackwise-error"] == b"bad-kind"
            ok, detail = agent.agent.health()
            assert ok, detail
            assert "bad-garbage" not in {g for g in agent.agent.table.groups}
            metrics = agent.agent.metrics.render().decode()
            assert 'rackwise_dead_letters_total{reason="undecodable"} 3.0' in metrics
        finally:
            reader.close()
            dead.close()
