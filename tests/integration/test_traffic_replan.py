"""Traffic-triggered re-plans on the testbed: a partition turns hot, the agent moves it local.

A rack-optimal group of three PlanFollower members (one per rack) reads a topic where the az2
member has one local partition and must read a second one from another rack. With equal
traffic the agent's plan picks one such partition X; then X turns ~50x hotter. The agent's
traffic samples show that re-planning would cut the group's cross-rack bytes by far more
than the thresholds, so it publishes a ``traffic-changed`` plan giving X to a member with a
local replica (withheld until the az2 member lets go: cooperative hand-over) and the
follow-up hands it over. What crosses racks is counted by the members' own librdkafka
statistics (tests/support/trafficclients.py), nothing of rackwise's.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from agent.daemon.retraffic import target_assignment
from agent.dev.tail import PlanReader, TopicTail
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.trafficclients import CountingFollowers, SteadyProducer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

RACKS = ["az1", "az2", "az3"]
# brokers 1/2/3 = az1/az2/az3; az2 has one local partition (p1) and two members' worth of load
REPLICAS = [[1, 3], [2, 1], [1, 3], [3, 1], [1, 3], [3, 1]]
BASE = 5.0  # records/s of 1,000 bytes on every partition
HOT = 50  # X turns this many times hotter


def _local(racks: dict[str, str], plan: Any, replicas: dict[int, set[str]]) -> dict[int, bool]:
    """Partition -> whether the plan's target member has a replica in its rack."""
    return {tp.partition: racks[m] in replicas[tp.partition]
            for m, tps in target_assignment(plan).items() for tp in tps}


def test_hot_partition_read_across_racks_is_replanned_local(
        bootstrap: str, admin: Any, unique_name: str) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, REPLICAS)
    brokers = rack_of_brokers(admin)
    replicas = {p: {brokers[b] for b in r} for p, r in enumerate(REPLICAS)}
    settings = isolated_settings(
        bootstrap, unique_name,
        metadata={"interval_s": 2.0, "debounce_s": 3.0},
        planner={"consumer_assignor": "rack-optimal"},
        # short settings for the test; the thresholds stay the documented defaults
        traffic={"replan_min_interval_s": 5.0, "replan_hold_samples": 3},
    )
    group = "hot-app"
    with AgentThread(settings) as agent, SteadyProducer(
            bootstrap, topic, {p: BASE for p in range(len(REPLICAS))}):
        agent.wait_ready()
        reader = PlanReader(bootstrap, settings.topics.plans, group)
        control = TopicTail(bootstrap, settings.topics.control)
        members = CountingFollowers(bootstrap, group, [topic], RACKS, brokers,
                                    settings.topics.subscriptions, settings.topics.plans)
        try:
            reader.wait_plan(lambda p: len(p.members) == 3 and not p.withheld, 60)
            deadline = time.monotonic() + 30
            while (sorted(len(o) for o in members.owned()) != [2, 2, 2]
                   and time.monotonic() < deadline):
                time.sleep(0.2)
            time.sleep(3)  # KIP-392: followers take over after the first fetches
            even = members.rates(3.0)
            reader.poll(0.5)
            stable = max(reader.plans(), key=lambda p: p.generation)
            assert len(stable.members) == 3 and not stable.withheld
            assert not [p for p in reader.plans() if p.reason == "traffic-changed"], \
                "equal traffic re-planned"
            racks = {m.member_id: m.rack or "" for m in stable.members}
            local = _local(racks, stable, replicas)
            (hot,) = [p for p, ok in local.items() if not ok]  # the one cross-rack partition
            with SteadyProducer(bootstrap, topic, {hot: BASE * (HOT - 1)}) as extra:
                deadline = time.monotonic() + 30
                while not sum(extra.sent.values()) and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(0.5)
                before = members.rates(2.5)
                measured_until = datetime.now(UTC)
                replanned = reader.wait_plan(lambda p: p.reason == "traffic-changed", 60)
                # the target puts X with a member that has a local replica
                assert _local(racks, replanned, replicas)[hot], replanned.model_dump_json()
                assert replanned.generation > stable.generation
                assert replanned.created_at > measured_until, "re-planned while measuring before"
                assert any(w.partition == hot for w in replanned.withheld)  # cooperative
                handed = reader.wait_plan(
                    lambda p: p.generation > replanned.generation and not p.withheld, 30)
                owner = next(m for m in handed.members if any(
                    pp.partition == hot for pp in m.partitions))
                assert owner.rack in replicas[hot]
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not any(
                        hot in o for o, r in zip(members.owned(), RACKS, strict=True)
                        if r == owner.rack):
                    time.sleep(0.2)
                time.sleep(3)  # the new owner's fetches move to its own rack's replica
                after = members.rates(4.0)
            reader.poll(1.0)
            plans = reader.plans()
            event = control.wait_for(
                lambda m: json.loads(m.value()).get("reason") == "traffic-changed", 15)
        finally:
            members.close()
            reader.close()
            control.close()
    changed = [p for p in plans if p.reason == "traffic-changed"]
    print(f"hot partition {hot}; plans: {[(p.generation, p.reason) for p in plans]}")
    print(f"even: total {even.total:.0f} B/s, cross {even.cross_rack:.0f} B/s")
    print(f"before: total {before.total:.0f} B/s, cross {before.cross_rack:.0f} B/s")
    print(f"after:  total {after.total:.0f} B/s, cross {after.cross_rack:.0f} B/s")
    (detail,) = json.loads(event.value())["changes"]
    print(f"the agent's decision: {detail}")
    assert len(changed) == 1, "one traffic re-plan, no flapping"
    # before: X (~HOT x BASE KB/s) is read across racks; after: only a cold one is
    assert before.cross_rack > 0.6 * before.total
    assert after.total == pytest.approx(before.total, rel=0.3)
    assert after.cross_rack < 0.2 * before.cross_rack
    # the agent's own figures for the decision agree with what the clients counted
    saving = detail["traffic"]["cross_rack_bytes_per_s"] - detail["traffic"][
        "expected_cross_rack_bytes_per_s"]
    assert saving == pytest.approx(before.cross_rack - after.cross_rack, rel=0.3)
