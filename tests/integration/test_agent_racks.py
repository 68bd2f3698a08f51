"""Replica racks on the real testbed: a rack change re-plans, a bounced broker does not.

confluent-kafka has no AlterPartitionReassignments, so replicas are moved with kafka-python's
admin client (``alter_partition_reassignments``).
"""

from __future__ import annotations

import json
import os
import time

import pytest

from agent.dev.tail import PlanReader, TopicTail
from tests.support.agent import AgentThread, MemberLoop, isolated_settings
from tests.support.kafkautil import create_topic

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

INTERVAL_S = 2.0
DEBOUNCE_S = 3.0


def _replicas(admin, topic: str) -> list[list[int]]:  # type: ignore[no-untyped-def]
    from confluent_kafka import TopicCollection

    desc = admin.describe_topics(TopicCollection([topic]))[topic].result(15)
    return [[r.id for r in p.replicas] for p in sorted(desc.partitions, key=lambda p: p.id)]


def _restart(bed, node: int) -> None:  # type: ignore[no-untyped-def]
    """Start a stopped broker and wait until it listens; retry, since its port can be taken
    for a moment by a client socket's ephemeral port (the testbed ports lie in that range)."""
    for _ in range(6):
        bed.start_node(node)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status = bed.status()[node - 1]
            if status["listening"]:
                return
            if not status["pid"]:
                break  # it exited (port in use): try again
            time.sleep(0.5)
        time.sleep(2)
    raise RuntimeError(f"broker {node} did not come back; run `rackwise testbed up`")


def _start_members(bootstrap: str, settings, group: str, topic: str) -> list[MemberLoop]:  # type: ignore[no-untyped-def]
    return [
        MemberLoop(bootstrap, settings, group, f"m{i}", f"az{i}", [topic]).start()
        for i in (1, 2, 3)
    ]


def test_replica_move_changes_racks_and_triggers_a_new_generation(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    from kafka import TopicPartition
    from kafka.admin import KafkaAdminClient

    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]])
    settings = isolated_settings(
        bootstrap, unique_name, metadata={"interval_s": INTERVAL_S, "debounce_s": DEBOUNCE_S}
    )
    group = "racks-app"
    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        control = TopicTail(bootstrap, settings.topics.control)
        members = _start_members(bootstrap, settings, group, topic)
        kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
        try:
            stable = reader.wait_plan(lambda p: len(p.members) == 3 and not p.withheld, 60)
            time.sleep(INTERVAL_S * 2)  # let the agent see (and accept) the initial placement
            before = max(p.generation for p in reader.plans())
            result = kadmin.alter_partition_reassignments({TopicPartition(topic, 0): [1, 3]})
            assert all(v is None for v in result.values()), result
            deadline = time.monotonic() + 30
            while _replicas(admin, topic)[0] != [1, 3] and time.monotonic() < deadline:
                time.sleep(0.2)
            moved_at = time.monotonic()
            assert _replicas(admin, topic)[0] == [1, 3]
            plan = reader.wait_plan(
                lambda p: p.generation > before and p.reason == "replica-racks-changed", 30
            )
            took = time.monotonic() - moved_at
            assert took <= 2 * INTERVAL_S + DEBOUNCE_S + 2.0, took  # +2 s: plan, commit, read
            assert plan.generation > stable.generation
            p0 = [pp for m in plan.members for pp in m.partitions if pp.partition == 0]
            w0 = [w for w in plan.withheld if w.partition == 0]
            assert p0 or w0
            if p0:
                assert p0[0].replica_racks == ["az1", "az3"]
            event = control.wait_for(
                lambda m: json.loads(m.value()).get("reason") == "replica-racks-changed", 15
            )
            doc = json.loads(event.value())
            assert doc["type"] == "rebalance-triggered" and doc["group"] == group
            change = doc["changes"][0]
            assert change["topic"] == topic
            assert change["partitions"] == [
                {"partition": 0, "from": ["az1", "az2"], "to": ["az1", "az3"]}
            ]
        finally:
            kadmin.close()
            for m in members:
                m.stop()
            reader.close()
            control.close()


@pytest.mark.skipif(
    bool(os.environ.get("RACKWISE_BOOTSTRAP")), reason="restarts a broker of the local testbed"
)
def test_broker_restarted_with_same_rack_triggers_nothing(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    from agent.dev.testbed import Testbed

    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]])
    settings = isolated_settings(
        bootstrap,
        unique_name,
        metadata={"interval_s": INTERVAL_S, "debounce_s": DEBOUNCE_S},
        input={"session_timeout_ms": 30_000},
    )
    group = "bounce-app"
    bed = Testbed()
    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        members = _start_members(bootstrap, settings, group, topic)
        try:
            reader.wait_plan(lambda p: len(p.members) == 3 and not p.withheld, 60)
            time.sleep(INTERVAL_S * 2)
            triggers_before = agent.agent.metrics.triggers.labels(
                "replica-racks-changed"
            )._value.get()
            bed.stop_node(3)
            try:
                time.sleep(2 * INTERVAL_S + DEBOUNCE_S + 2)  # long enough for a debounced change
                assert agent.agent.watch.broker_racks.get(3) == "az3"  # remembered while down
            finally:
                _restart(bed, 3)
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                nodes = admin.describe_cluster(request_timeout=10).result(15).nodes
                if len(nodes) == 3:
                    break
                time.sleep(1)
            time.sleep(2 * INTERVAL_S + DEBOUNCE_S + 2)
            reader.poll(1)
            racks_plans = [
                p
                for p in reader.plans()
                if p.reason in ("replica-racks-changed", "partitions-changed")
            ]
            assert racks_plans == []
            after = agent.agent.metrics.triggers.labels("replica-racks-changed")._value.get()
            assert after == triggers_before
        finally:
            for m in members:
                m.stop()
            reader.close()
