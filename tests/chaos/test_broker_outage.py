"""RELIABILITY.md part 3: one broker stopped for 60 s (20 s in the bounded form), then started.

On a private testbed (the shared one is not disturbed). While the broker is down members
join and leave: the agent must keep publishing plans for them. The broker's replicas are
"unknown", not a change: no replica-racks-changed (or partitions-changed) plan during the
outage or after the broker is back, and afterwards plans arrive as fast as before.
"""

from __future__ import annotations

import time

import pytest

from agent.dev.tail import TopicTail
from protocol.plan import AssignmentPlan
from tests.chaos.harness import (
    FULL,
    AgentProcess,
    ChaosMember,
    Figures,
    Ownership,
    agent_config,
    generation_problems,
    scale,
    settings_of,
    wait_until,
)
from tests.support.kafkautil import create_topic

OUTAGE_S = scale(20, 60)
# a broker stopped for a while (~75 s): under `make chaos` only (make test within 30 minutes).
pytestmark = [pytest.mark.chaos, pytest.mark.timeout(420 + OUTAGE_S),
              pytest.mark.skipif(not FULL, reason="long: runs under make chaos")]


def _restart(bed, node: int) -> float:  # type: ignore[no-untyped-def]
    """Start the node again; returns seconds until it listens (retried: see test_agent_racks)."""
    began = time.monotonic()
    for _ in range(6):
        bed.start_node(node)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = bed.status()[node - 1]
            if status["listening"]:
                return time.monotonic() - began
            if not status["pid"]:
                break
            time.sleep(0.5)
        time.sleep(2)
    raise RuntimeError(f"broker {node} of the private testbed did not come back")


def test_broker_down_for_a_while(private_bed, unique_name: str, rng, seed: int,
                                 workdir) -> None:  # type: ignore[no-untyped-def]
    from confluent_kafka.admin import AdminClient

    bootstrap = private_bed.bootstrap
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1], [1, 3], [2, 1], [3, 2]])
    config = agent_config(bootstrap, unique_name)
    settings = settings_of(config)
    interval, debounce = settings.metadata.interval_s, settings.metadata.debounce_s
    figures = Figures("broker-outage", seed)
    ownership = Ownership()
    group = "outage-app"
    agent = AgentProcess(config, workdir, "agent").start()
    plans = TopicTail(bootstrap, settings.topics.plans)
    members: dict[str, ChaosMember] = {}
    latencies: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    victim = rng.choice([1, 2, 3])
    counter = iter(range(1000))

    def group_plans() -> list[AssignmentPlan]:
        plans.poll(0.3)
        return [p for p in (AssignmentPlan.from_json(m.value()) for m in plans.records)
                if p.group_id == group]

    def churn(phase: str) -> None:
        """A member joins (or, with three already, one leaves); time until it is planned."""
        began = time.monotonic()
        if len(members) < 3:
            mid = f"m{next(counter)}"
            members[mid] = ChaosMember(bootstrap, settings, group, mid,
                                       rng.choice(["az1", "az2", "az3"]), [topic],
                                       ownership).start()
        else:
            mid = rng.choice(sorted(members))
            members.pop(mid).stop()
        want = set(members)
        wait_until(lambda: {m.member_id for m in group_plans()[-1].members} == want
                   if group_plans() else False, 60, f"{phase}: no plan for {sorted(want)}")
        latencies[phase].append(round(time.monotonic() - began, 2))

    try:
        wait_until(lambda: len(agent.health().get("ready_partitions", [])) == 3, 120,
                   "agent not ready")
        for _ in range(2):
            churn("before")
        time.sleep(2 * interval)
        triggers_before = agent.metric("rackwise_triggers_total", 'reason="replica-racks-changed"')
        errors_before = agent.metric("rackwise_metadata_errors_total")
        private_bed.stop_node(victim)
        down_at = time.monotonic()
        healthy_during = []
        while time.monotonic() - down_at < OUTAGE_S:
            churn("during")
            healthy_during.append(agent.health().get("status") == "ok")
            time.sleep(min(rng.uniform(2, 6), max(0.0, OUTAGE_S - (time.monotonic() - down_at))))
        errors_during = agent.metric("rackwise_metadata_errors_total") - errors_before
        back_s = _restart(private_bed, victim)
        wait_until(lambda: len(admin.describe_cluster(request_timeout=10).result(15).nodes) == 3,
                   120, "the broker never rejoined the cluster")
        rejoined = time.monotonic()
        time.sleep(2 * interval + debounce + 2)
        for _ in range(2):
            churn("after")
        errors_after_1 = agent.metric("rackwise_metadata_errors_total")
        time.sleep(3 * interval)
        errors_after_2 = agent.metric("rackwise_metadata_errors_total")
        triggers_after = agent.metric("rackwise_triggers_total", 'reason="replica-racks-changed"')
        health = agent.health()
    finally:
        for m in members.values():
            m.stop()
        rc = agent.stop()

    every = [AssignmentPlan.from_json(m.value()) for m in plans.records]
    plans.close()
    storm = [p for p in every if p.reason in ("replica-racks-changed", "partitions-changed")]
    figures["outage_s"] = OUTAGE_S
    figures["stopped_broker"] = victim
    figures["plan_latency_s"] = latencies
    figures["broker_listening_after_s"] = round(back_s, 1)
    figures["rejoined_after_outage_s"] = round(rejoined - down_at, 1)
    figures["metadata_errors_during"] = errors_during
    figures["metadata_errors_after_recovery"] = errors_after_2 - errors_after_1
    figures["rack_change_triggers"] = triggers_after - triggers_before
    figures["rack_change_plans"] = len(storm)
    figures["plans_total"] = len(every)
    figures["health_ok_during"] = f"{sum(healthy_during)}/{len(healthy_during)}"
    figures["health_after"] = health.get("status")
    figures["agent_exit_code"] = rc
    figures.write()

    assert latencies["during"], "no churn happened during the outage"
    assert not storm, [(p.group_id, p.generation, p.reason) for p in storm]
    assert triggers_after == triggers_before
    assert not generation_problems(every), generation_problems(every)
    assert all(healthy_during), healthy_during
    assert health.get("status") == "ok", health
    assert errors_after_2 == errors_after_1, "metadata rounds still failing after the recovery"
    assert max(latencies["after"]) < 15, latencies
    assert not ownership.conflicts, ownership.conflicts[:5]
    assert rc == 0
