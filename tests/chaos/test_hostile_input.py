"""RELIABILITY.md part 4: a flood of malformed and hostile subscription records.

100,000 records (``make chaos``; 5,000 in the bounded form) of fuzzed bytes, truncated
subscriptions, array and string lengths claiming 2^31-1 entries, records near the 1 MiB
limit, unknown kinds, bad keys, records in the wrong partition and negative partitions, a
fifth of them keyed as members of a real, planned group. Every one must reach the
dead-letter topic exactly once with a reason, the agent's RSS must stay bounded, and the real
group must keep its plan (no new generation from the flood) and still be planned promptly
after it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from confluent_kafka import Consumer, Producer

from agent.dev.tail import TopicTail
from protocol.plan import AssignmentPlan
from tests.chaos.harness import (
    AgentProcess,
    ChaosMember,
    Figures,
    Ownership,
    agent_config,
    scale,
    settings_of,
    wait_until,
)
from tests.chaos.hostile import make_records
from tests.support.kafkautil import create_topic

RECORDS = scale(5_000, 100_000)
OVERSIZED = scale(3, 20)
RSS_GROWTH_LIMIT_MB = 300
pytestmark = [pytest.mark.chaos, pytest.mark.timeout(300 + RECORDS // 100)]


def test_hostile_records_are_dead_lettered(bootstrap: str, admin, unique_name: str, rng,
                                           seed: int, workdir) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]])
    config = agent_config(bootstrap, unique_name)
    settings = settings_of(config)
    figures = Figures("hostile-input", seed)
    group = "good-app"
    records, info = make_records(rng, RECORDS, settings.topics.partitions, group, OVERSIZED)
    agent = AgentProcess(config, workdir, "agent").start()
    ownership = Ownership()
    members: list[ChaosMember] = []
    plans = TopicTail(bootstrap, settings.topics.plans)
    rss: list[float] = []
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.5):
            if agent.alive():
                rss.append(agent.rss_mb())

    def good_plans() -> list[AssignmentPlan]:
        plans.poll(0.3)
        return [p for p in (AssignmentPlan.from_json(m.value()) for m in plans.records)
                if p.group_id == group]

    try:
        wait_until(lambda: len(agent.health().get("ready_partitions", [])) == 3, 120,
                   "agent not ready")
        for i in (1, 2):
            members.append(ChaosMember(bootstrap, settings, group, f"g{i}", f"az{i}", [topic],
                                       ownership).start())
        wait_until(lambda: (good_plans() or [None])[-1] is not None
                   and len(good_plans()[-1].members) == 2
                   and all(m.follower.generation == good_plans()[-1].generation for m in members),
                   60, "the good group was never planned")
        time.sleep(2)
        before = good_plans()[-1].generation
        owned_before = {m.key: set(m.follower.owned) for m in members}
        baseline = agent.rss_mb()
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        dead_before = agent.metric("rackwise_dead_letters_total")
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20,
                             "message.max.bytes": 1_048_576})
        failed: list[str] = []

        def delivered(err, msg) -> None:  # type: ignore[no-untyped-def]
            if err is not None:
                failed.append(str(err))

        began = time.monotonic()
        give_up = began + 120 + RECORDS / 200
        for p, key, value, headers, _ in records:
            while time.monotonic() < give_up:
                try:
                    producer.produce(settings.topics.subscriptions, key=key, value=value,
                                     partition=p, headers=headers, on_delivery=delivered)
                    break
                except BufferError:
                    producer.poll(0.1)
            producer.poll(0)
        assert producer.flush(60) == 0, "hostile records not all produced"
        assert not failed, f"{len(failed)} hostile records refused by the broker: {failed[:3]}"
        produced_s = time.monotonic() - began

        def dead_lettered() -> float:
            return agent.metric("rackwise_dead_letters_total") - dead_before

        wait_until(lambda: dead_lettered() >= RECORDS, 60 + RECORDS / 50,
                   f"not everything was rejected: {dead_lettered()} of {RECORDS}", step=1.0)
        flood_s = time.monotonic() - began
        time.sleep(2)
        after_flood = good_plans()[-1].generation
        owned_after = {m.key: set(m.follower.owned) for m in members}
        # Still planning: a third member joins the good group.
        joined = time.monotonic()
        members.append(ChaosMember(bootstrap, settings, group, "g3", "az3", [topic],
                                   ownership).start())
        wait_until(lambda: len(good_plans()[-1].members) == 3, 60, "no plan after the flood")
        replan_s = time.monotonic() - joined
        sampling.set()
        sampler.join(5)
        final_rss = agent.rss_mb()
        health = agent.health()
    finally:
        sampling.set()
        for m in members:
            m.stop()
        rc = agent.stop()
        plans.close()

    # Every hostile record is in the dead-letter topic once, with a reason.
    dlq = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{unique_name}-dlq",
                    "auto.offset.reset": "earliest", "enable.partition.eof": True})
    dlq.subscribe([settings.topics.deadletter])
    sources: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    missing_reason = 0
    truncated = 0
    deadline = time.monotonic() + 120
    eof = False
    while not eof and time.monotonic() < deadline:
        for msg in dlq.consume(1000, 1.0):
            if msg.error():
                eof = sources.total() >= RECORDS
                continue
            headers = dict(msg.headers() or [])
            reason = headers.get("rackwise-error")
            if not reason or not headers.get("rackwise-error-detail"):
                missing_reason += 1
            reasons[(reason or b"").decode()] += 1
            truncated += "rackwise-truncated-from" in headers
            sources[(headers.get("rackwise-source") or b"").decode()] += 1
    dlq.close()
    twice = [s for s, n in sources.items() if n > 1]

    figures["records"] = RECORDS
    figures["attacks"] = info
    figures["produce_s"] = round(produced_s, 1)
    figures["all_rejected_after_s"] = round(flood_s, 1)
    figures["rejected_per_s"] = round(RECORDS / flood_s)
    figures["dead_letters"] = sources.total()
    figures["dead_letter_reasons"] = dict(reasons)
    figures["dead_letters_without_reason"] = missing_reason
    figures["dead_letters_twice"] = len(twice)
    figures["dead_letters_truncated"] = truncated
    figures["rss_mb"] = {"baseline": round(baseline, 1), "peak": round(max(rss or [0]), 1),
                         "final": round(final_rss, 1), "samples": len(rss)}
    figures["good_group_generation"] = {"before": before, "after_flood": after_flood}
    figures["replan_after_flood_s"] = round(replan_s, 2)
    figures["groups_in_agent"] = health.get("groups")
    figures["agent_exit_code"] = rc
    figures.write()

    assert sources.total() == RECORDS, f"{sources.total()} dead letters for {RECORDS} records"
    assert not twice, twice[:5]
    assert missing_reason == 0
    assert truncated >= 1, "the record at the size limit should be dead-lettered truncated"
    assert after_flood == before, "the flood re-planned the good group"
    assert owned_after == owned_before
    assert max(rss) - baseline < RSS_GROWTH_LIMIT_MB, (baseline, max(rss))
    assert not ownership.conflicts, ownership.conflicts[:5]
    assert rc == 0
