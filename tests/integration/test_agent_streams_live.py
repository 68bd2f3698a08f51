"""A live Streams-style group planned by the agent with real lags.

The agent reads the changelogs' end offsets itself, so a client that joins with no state lags
by the whole changelog: it gets warm-up replicas, not actives, and the plan asks for a probing
follow-up. Once the newcomer reports caught-up offsets, the follow-up the agent schedules
moves actives to it, and ``moved_partitions`` counts exactly the source partitions whose
active task changed process between the two plans.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from agent.dev.tail import PlanReader
from protocol.consumer import encode_subscription, java_subscription
from protocol.plan import AssignmentPlan
from protocol.routing import KIND_HEADER, group_partition, member_key
from protocol.streams import TaskId, build_subscription_info, encode_subscription_info
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PARTITIONS = 6
PROBING_MS = 60_000  # Kafka Streams' minimum probing interval
RECORDS_PER_PARTITION = 300
PLACEMENT = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]


def _subscription(process: uuid.UUID, topic: str, rack: str, sums: dict[TaskId, int]) -> bytes:
    info = build_subscription_info(11, process, sums, endpoint=f"{process.hex[:6]}:8080",
                                   client_tags={"zone": rack})
    sub = java_subscription([topic], [], user_data=encode_subscription_info(info), rack_id=rack)
    return encode_subscription(sub, 3)


def _actives(plan: AssignmentPlan) -> dict[str, str]:
    return {t: m.member_id for m in plan.members for t in m.active_tasks}


def test_new_stateless_client_warms_up_then_takes_actives(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    source, changelog = f"{unique_name}-in", f"{unique_name}-store-changelog"
    create_topic(admin, source, PLACEMENT)
    create_topic(admin, changelog, PLACEMENT)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for p in range(PARTITIONS):
        for i in range(RECORDS_PER_PARTITION):
            producer.produce(changelog, key=str(i).encode(), value=b"x" * 20, partition=p)
    producer.flush(30)

    group = f"app-{unique_name}"[:200]
    settings = isolated_settings(
        bootstrap,
        unique_name,
        planner={
            "coalesce_ms": 500,
            "streams_topologies": {
                "app-*": {
                    "subtopologies": [
                        {"id": 0, "source_topics": [source], "changelog_topics": [changelog],
                         "stateful": True}
                    ]
                }
            },
            "streams_config": {
                "num_standby_replicas": 1,
                "acceptable_recovery_lag": 50,
                "max_warmup_replicas": 2,
                "probing_rebalance_interval_ms": PROBING_MS,
            },
        },
    )
    tasks = [TaskId(0, p) for p in range(PARTITIONS)]
    caught_up = {t: RECORDS_PER_PARTITION for t in tasks}
    p1, p2, p3 = (uuid.UUID(int=i) for i in (1, 2, 3))

    live: dict[uuid.UUID, bytes] = {}

    def publish(process: uuid.UUID, rack: str, sums: dict[TaskId, int]) -> None:
        live[process] = _subscription(process, source, rack, sums)
        heartbeat()

    def heartbeat() -> None:
        for process, value in live.items():  # members re-publish within the session timeout
            producer.produce(
                settings.topics.subscriptions,
                key=member_key(group, str(process)),
                value=value,
                partition=group_partition(group, settings.topics.partitions),
                headers=[(KIND_HEADER, b"streams")],
            )
        producer.flush(10)

    def wait(pred: Callable[[AssignmentPlan], bool], timeout: float) -> AssignmentPlan:
        deadline = time.monotonic() + timeout
        while True:
            heartbeat()
            try:
                return reader.wait_plan(pred, timeout=3)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise

    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        try:
            publish(p1, "az1", caught_up)
            publish(p2, "az2", caught_up)
            two = wait(lambda p: len(p.members) == 2, timeout=60)
            assert not any(m.warmup_tasks for m in two.members)

            # p3 joins with no state: it lags by the whole changelog (300 > 50).
            publish(p3, "az3", {})
            joined = wait(lambda p: len(p.members) == 3 and p.generation > two.generation, 60)
            newcomer = next(m for m in joined.members if m.member_id == str(p3))
            print("joined plan:", joined.to_json())
            assert joined.reason == "member-joined"
            assert newcomer.warmup_tasks, "a stateless client must get warm-ups"
            assert not newcomer.active_tasks, "actives stay on caught-up clients"
            assert joined.followup_ms == PROBING_MS
            assert joined.summary.moved_partitions == sum(
                1 for t, m in _actives(joined).items() if _actives(two).get(t) != m
            )

            # p3 has restored its warm-ups; the probing follow-up moves actives to it.
            publish(p3, "az3", {TaskId.parse(t): RECORDS_PER_PARTITION for t in newcomer.warmup_tasks})
            follow = wait(
                lambda p: p.generation > joined.generation and p.reason == "followup",
                timeout=PROBING_MS / 1000 + 45,
            )
            print("follow-up plan:", follow.to_json())
            moved = sum(1 for t, m in _actives(follow).items() if _actives(joined).get(t) != m)
            assert moved > 0
            assert any(m.active_tasks for m in follow.members if m.member_id == str(p3))
            # One source partition per task in this topology.
            assert follow.summary.moved_partitions == moved
        finally:
            reader.close()
