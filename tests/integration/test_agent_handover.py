"""Hand-overs on the real testbed: members come and go while records flow; agents restart.

Every record produced during the hand-overs must be consumed and committed, and no record
may be consumed by two members (the cooperative withholding of docs/architecture.md § Agent behaviour plus the
commit-before-revoke of agent.member.follower is what guarantees it).
"""

from __future__ import annotations

import threading
import time

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.dev.tail import PlanReader
from tests.support.agent import AgentThread, MemberLoop, isolated_settings
from tests.support.kafkautil import create_topic

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

PARTITIONS = 6


def _wait(pred, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.2)
    raise TimeoutError(what)


def test_records_during_handovers_consumed_once_and_committed(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, partitions=PARTITIONS)
    settings = isolated_settings(bootstrap, unique_name)
    group = f"{unique_name}-app"
    stop = threading.Event()
    produced: list[tuple[int, int]] = []

    def produce() -> None:
        # Idempotent: a retried send under load must not write a record twice.
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                             "enable.idempotence": True})
        i = 0

        def ack(err, msg) -> None:  # type: ignore[no-untyped-def]
            if err is None:
                produced.append((msg.partition(), msg.offset()))

        while not stop.is_set():
            producer.produce(
                topic, value=str(i).encode(), partition=i % PARTITIONS, on_delivery=ack
            )
            producer.poll(0)
            i += 1
            time.sleep(0.004)
        assert producer.flush(60) == 0, "records still unacknowledged after 60 s"

    with AgentThread(settings) as agent:
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        feeder = threading.Thread(target=produce, daemon=True)
        feeder.start()
        m1 = MemberLoop(bootstrap, settings, group, "m1", "az1", [topic]).start()
        members = [m1]
        try:
            _wait(lambda: len(m1.follower.owned) == PARTITIONS, 30, "m1 never owned everything")
            time.sleep(1)
            for i in (2, 3):
                members.append(
                    MemberLoop(bootstrap, settings, group, f"m{i}", f"az{i}", [topic]).start()
                )
                time.sleep(1.5)
            _wait(
                lambda: all(len(m.follower.owned) == 2 for m in members),
                30,
                "no balanced hand-over",
            )
            time.sleep(1)
            m1.stop()  # leaves: its partitions move to m2 and m3
            _wait(
                lambda: sum(len(m.follower.owned) for m in members[1:]) == PARTITIONS,
                30,
                "m1's partitions were not taken over",
            )
            time.sleep(1)
            stop.set()
            feeder.join(75)
            assert not feeder.is_alive(), "the producer did not finish"
            # Let the survivors drain what was produced.
            ends = {p: 0 for p in range(PARTITIONS)}
            for p, off in produced:
                ends[p] = max(ends[p], off + 1)

            def drained() -> bool:
                seen = {(p, o) for m in members for (_, p, o, _) in m.consumed}
                return all((p, ends[p] - 1) in seen for p in ends if ends[p])

            _wait(drained, 30, "records left unconsumed")
            reader.poll(2)
            plans = reader.plans()
            assert any(p.withheld for p in plans), "hand-overs should have withheld partitions"
            assert any(p.reason == "followup" for p in plans)
        finally:
            stop.set()
            for m in members:
                if m.thread.is_alive():
                    m.stop()
            reader.close()

    consumed: dict[tuple[int, int], list[str]] = {}
    for m in members:
        for _, p, o, _ in m.consumed:
            consumed.setdefault((p, o), []).append(m.follower.member_id)
    twice = {k: v for k, v in consumed.items() if len(v) > 1}
    assert not twice, (
        f"{len(twice)} records consumed more than once, e.g. {list(twice.items())[:5]}"
    )
    missing = [k for k in produced if k not in consumed]
    assert not missing, f"{len(missing)} records never consumed, e.g. {missing[:5]}"
    check = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    committed = check.committed([KTopicPartition(topic, p) for p in range(PARTITIONS)], timeout=15)
    check.close()
    for tp in committed:
        assert tp.offset == ends[tp.partition], (tp.partition, tp.offset, ends[tp.partition])
        # and the log holds nothing past what the producer had acknowledged
        check = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
        _, high = check.get_watermark_offsets(KTopicPartition(topic, tp.partition), timeout=15)
        check.close()
        assert high == ends[tp.partition], (tp.partition, high, ends[tp.partition])


def test_generations_keep_increasing_across_agent_restart(
    bootstrap: str, admin, unique_name: str
) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]])
    settings = isolated_settings(bootstrap, unique_name)
    group = "restart-app"
    reader = PlanReader(bootstrap, settings.topics.plans, group)
    m1 = m2 = None
    try:
        with AgentThread(settings) as first:
            first.wait_ready()
            m1 = MemberLoop(bootstrap, settings, group, "m1", "az1", [topic]).start()
            plan = reader.wait_plan(lambda p: [m.member_id for m in p.members] == ["m1"], 30)
            last = plan.generation
        # A second agent (new instance) takes over the same partitions.
        second_settings = settings.model_copy(update={"instance_id": settings.instance_id + "-b"})
        with AgentThread(second_settings) as second:
            second.wait_ready()
            m2 = MemberLoop(bootstrap, settings, group, "m2", "az2", [topic]).start()
            plan2 = reader.wait_plan(lambda p: len(p.members) == 2, 45)
            assert plan2.generation > last
            reader.poll(1)
            gens = [p.generation for p in reader.plans()]
            assert gens == sorted(gens) and len(set(gens)) == len(gens), gens
    finally:
        for m in (m1, m2):
            if m is not None:
                m.stop()
        reader.close()
