"""RELIABILITY.md part 2: two agents; one is paused (SIGSTOP) past its session timeout, then resumed.

While agent A is stopped, the broker expires its consumer, agent B is given A's subscriptions
partitions, B's ``init_transactions`` fences A's producers, and B plans A's groups (a member
joins one of them during the pause). After SIGCONT, A must not commit anything for those
groups until it has been given (and has re-opened) a partition again: committed generations
keep increasing, and no committed event of A lies between B's takeover and A's re-open.
"""

from __future__ import annotations

import json
import signal
import time
from datetime import datetime

import pytest

from agent.dev.tail import TopicTail
from protocol.plan import AssignmentPlan
from protocol.routing import group_partition
from tests.chaos.harness import (
    FULL,
    AgentProcess,
    ChaosMember,
    Figures,
    Ownership,
    agent_config,
    generation_problems,
    settings_of,
    wait_until,
)
from tests.support.kafkautil import create_topic

# a paused agent fenced (~45 s): under `make chaos` only (make test within 30 minutes).
pytestmark = [pytest.mark.chaos, pytest.mark.timeout(420),
              pytest.mark.skipif(not FULL, reason="long: runs under make chaos")]

GROUPS = [f"pg{i}" for i in range(6)]


def _at(doc: dict[str, object]) -> float:
    return datetime.fromisoformat(str(doc["timestamp"]).replace("Z", "+00:00")).timestamp()


def test_paused_agent_is_fenced_and_the_other_takes_over(
    bootstrap: str, admin, unique_name: str, seed: int, rng, workdir
) -> None:  # type: ignore[no-untyped-def]
    topic = f"{unique_name}-data"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1], [1, 3]])
    config = agent_config(bootstrap, unique_name)
    settings = settings_of(config)
    consumer_session_s = int(config["kafka"]["session.timeout.ms"]) / 1000
    member_session_s = settings.input.session_timeout_ms / 1000
    figures = Figures("agent-pause", seed)
    ownership = Ownership()
    a = AgentProcess(config, workdir, "a").start()
    wait_until(lambda: len(a.health().get("ready_partitions", [])) == 3, 120, "a not ready")
    b = AgentProcess(config, workdir, "b").start()
    members: list[ChaosMember] = []
    plans = TopicTail(bootstrap, settings.topics.plans)
    control = TopicTail(bootstrap, settings.topics.control)
    try:
        # Both agents share the three subscriptions partitions.
        wait_until(lambda: a.health().get("ready_partitions") and b.health().get("ready_partitions")
                   and len(a.health()["ready_partitions"]) + len(b.health()["ready_partitions"]) == 3,
                   120, "the two agents never split the partitions")
        a_parts = set(a.health()["ready_partitions"])
        a_groups = [g for g in GROUPS if group_partition(g, 3) in a_parts]
        assert a_groups, "no test group lands on agent a's partitions; add groups"
        for g in GROUPS:
            for n in range(2):
                members.append(ChaosMember(bootstrap, settings, g, f"{g}-m{n}", f"az{n + 1}",
                                           [topic], ownership).start())

        def newest() -> dict[str, AssignmentPlan]:
            plans.poll(0.3)
            out = {}
            for msg in plans.records:
                p = AssignmentPlan.from_json(msg.value())
                out[p.group_id] = p
            return out

        def size(group: str) -> int:
            plan = newest().get(group)
            return -1 if plan is None else len(plan.members)

        wait_until(lambda: all(size(g) == 2 for g in GROUPS), 60, "no first plans")
        before = {g: p.generation for g, p in newest().items()}

        a.signal(signal.SIGSTOP)
        paused_at, paused_wall = time.monotonic(), time.time()
        target = rng.choice(a_groups)
        members.append(ChaosMember(bootstrap, settings, target, f"{target}-late", "az3", [topic],
                                   ownership).start())
        # B takes over and plans the new member of A's group.
        wait_until(lambda: size(target) == 3, 90,
                   "the other agent never planned the paused agent's group")
        takeover = time.monotonic() - paused_at
        # Past the members' session timeout too: on resume the stale agent sees every member
        # silent for longer than that, so it tries to expire them all, and must be fenced.
        pause_s = max(member_session_s + 4, takeover + 2)
        time.sleep(max(0.0, pause_s - (time.monotonic() - paused_at)))
        b_parts = set(b.health().get("ready_partitions", []))
        a.signal(signal.SIGCONT)
        resumed_wall = time.time()
        assert b_parts == {0, 1, 2}, f"b owns {b_parts} while a is paused"
        # After the resume: the agents settle; every group still planned with its members.
        wait_until(lambda: len(a.health().get("ready_partitions", []))
                   + len(b.health().get("ready_partitions", [])) == 3
                   and not a.health().get("loading_partitions")
                   and not b.health().get("loading_partitions"), 120, "agents never settled")
        late = ChaosMember(bootstrap, settings, target, f"{target}-later", "az1", [topic],
                           ownership).start()
        members.append(late)
        wait_until(lambda: size(target) == 4, 60,
                   "no plan for a change after the resume")
        time.sleep(3)
        final = newest()
        live = {}
        for m in members:
            live.setdefault(m.key[0], set()).add(m.key[1])
        wrong = {g: sorted(x.member_id for x in final[g].members) for g in GROUPS
                 if {x.member_id for x in final[g].members} != live[g]}
    finally:
        for m in members:
            m.stop()
        rc_a, rc_b = a.stop(), b.stop()

    plans.poll(1)
    committed = [AssignmentPlan.from_json(m.value()) for m in plans.records]
    plans.close()
    control.poll(2)
    events = [(json.loads(m.value()), m.offset()) for m in control.records]
    control.close()
    a_opens = [_at(d) for d in a.events("partition open") if _at(d) >= resumed_wall]
    reopen = min(a_opens) if a_opens else float("inf")
    a_name, b_name = a.instance, b.instance
    first_b = min((off for ev, off in events if ev["agent"] == b_name and ev["group"] in a_groups),
                  default=None)
    assert first_b is not None, "b never published for a's groups"
    stale = [ev for ev, off in events if ev["agent"] == a_name and off > first_b
             and ev["group"] in a_groups and _at_event(ev) < reopen]
    fenced_logs = [d for d in a.log_lines() if d.get("event") == "plan transaction failed"]
    lost_logs = a.events("subscriptions partitions revoked")

    figures["consumer_session_timeout_s"] = consumer_session_s
    figures["pause_s"] = round(pause_s, 1)
    figures["takeover_plan_after_pause_s"] = round(takeover, 2)
    figures["a_groups"] = len(a_groups)
    figures["member_session_timeout_s"] = member_session_s
    figures["a_expiries_after_resume"] = len(a.events("member expired"))
    figures["generations_before"] = before
    figures["a_failed_transactions_after_resume"] = len(fenced_logs)
    figures["a_fenced_transactions"] = sum(1 for d in fenced_logs if d.get("fenced"))
    figures["a_revocations"] = len(lost_logs)
    figures["a_reopened_after_resume_s"] = (round(reopen - resumed_wall, 2)
                                            if a_opens else None)
    figures["stale_events_from_a"] = len(stale)
    figures["double_ownership"] = len(ownership.conflicts)
    figures["exit_codes"] = [rc_a, rc_b]
    figures["paused_at"] = paused_wall
    figures.write()

    assert not wrong, f"the stale agent's expiries got through: {wrong}"
    assert not generation_problems(committed), generation_problems(committed)
    assert not stale, f"the paused agent committed after it was fenced: {stale[:3]}"
    assert not ownership.conflicts, ownership.conflicts[:5]
    assert takeover <= consumer_session_s + 20, takeover
    assert rc_a == 0 and rc_b == 0, (rc_a, rc_b)


def _at_event(ev: dict[str, object]) -> float:
    return datetime.fromisoformat(str(ev["at"]).replace("Z", "+00:00")).timestamp()
