"""The agent's advice on the testbed: records land on a compacted topic and decode.

A topic with skewed traffic is measured (the agent plans no group on it: advice covers the
topics Kafka's plug-ins need, which the agent never sees in subscriptions), and a planner rule
becomes a group record. Everything is read back with protocol.advice, as the contract says.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka.admin import ConfigResource

from agent.dev.tail import TopicTail
from protocol.advice import GroupAdvice, TopicAdvice, decode
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.trafficclients import SteadyProducer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

REPLICAS = [[1, 2], [2, 3], [3, 1]]


def test_advice_records_land_and_decode(bootstrap: str, admin: Any, unique_name: str) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, REPLICAS)
    racks = rack_of_brokers(admin)
    settings = isolated_settings(
        bootstrap, unique_name,
        advice={"topics": [f"{unique_name}-*"], "interval_s": 0},
        planner={"rules": [{"pattern": f"{unique_name}-g*", "assignor": "rack-optimal",
                            "config": {"traffic_cost": 10, "non_overlap_cost": 1}}]},
    )
    tail: TopicTail | None = None
    latest: dict[str, TopicAdvice | GroupAdvice] = {}
    # partition 0 ~20x hotter than the others
    with AgentThread(settings), SteadyProducer(bootstrap, topic, {0: 40.0, 1: 2.0, 2: 2.0}):
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if tail is None:
                names = admin.list_topics(timeout=10).topics
                if settings.topics.advice in names:
                    tail = TopicTail(bootstrap, settings.topics.advice)
                else:
                    time.sleep(0.5)
                    continue
            tail.poll(0.5)
            for msg in tail.records:
                key = msg.key().decode()
                latest[key] = decode(key, msg.value())
            t = latest.get(f"topic/{topic}")
            if (isinstance(t, TopicAdvice) and all(p.bytes_per_s is not None for p in t.partitions)
                    and (t.partitions[0].bytes_per_s or 0) > 0
                    and f"group/{unique_name}-g*" in latest):
                break
        if tail is not None:
            tail.consumer.close()

    advice = latest.get(f"topic/{topic}")
    assert isinstance(advice, TopicAdvice), sorted(latest)
    print("advice:", advice.to_json())
    assert [p.partition for p in advice.partitions] == [0, 1, 2]
    for p in advice.partitions:
        assert p.leader in {r[0] for r in REPLICAS} and p.leader_rack == racks[p.leader]
        assert p.bytes_per_s is not None
    hot, cold = advice.partitions[0].bytes_per_s or 0, advice.partitions[1].bytes_per_s or 0
    assert hot > 0 and hot > 3 * cold, (hot, cold)
    assert abs(advice.measured_at_ms / 1000 - time.time()) < 120
    group = latest.get(f"group/{unique_name}-g*")
    assert isinstance(group, GroupAdvice)
    assert (group.priority, group.assignor, group.config) == \
        (0, "rack-optimal", {"non_overlap_cost": 1, "traffic_cost": 10})
    # only the advised topics: not the agent's own, not the internal ones
    assert {k.split("/", 1)[1] for k in latest if k.startswith("topic/")} == {topic}
    configs = admin.describe_configs([ConfigResource("topic", settings.topics.advice)])
    entries = next(iter(configs.values())).result(30)
    assert entries["cleanup.policy"].value == "compact"
