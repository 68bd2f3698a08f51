"""RELIABILITY.md part 1: SIGKILL the agent at random moments while members churn and replicas move.

Each round: a real ``rackwise agent run`` process starts, members join, leave, crash and
replicas move in a background thread, and at a random moment (seeded) the agent gets
SIGKILL; a fresh process takes over. After each restart, within the member session timeout,
every live group must have a valid newest plan (every live member, every partition exactly
once) that the members have adopted. Over the whole run: committed generations strictly
increase per group, no control event of a killed instance is committed after its successor's
first one, and no partition is ever held by two members at once.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from agent.dev.tail import TopicTail
from protocol.plan import AssignmentPlan
from tests.chaos.harness import (
    AgentProcess,
    ChaosMember,
    Chatter,
    Figures,
    Ownership,
    agent_config,
    generation_problems,
    plan_problems,
    scale,
    settings_of,
    wait_until,
)
from tests.support.kafkautil import create_topic

ROUNDS = scale(3, 20)
pytestmark = [pytest.mark.chaos, pytest.mark.timeout(300 + 60 * ROUNDS)]

TOPICS = {"a": 6, "b": 3}
GROUPS = {"ka": ["a"], "kb": ["a", "b"], "kc": ["b"]}
RACKS = ["az1", "az2", "az3"]
# Heartbeats per second on every subscriptions partition besides the test members' own.
CHATTER_PER_S = 10.0


class Cluster:
    """Members of the three groups and the moves the churn thread makes."""

    def __init__(self, bootstrap: str, settings: Any, rng: Any, topics: dict[str, str],
                 ownership: Ownership) -> None:
        self.bootstrap = bootstrap
        self.settings = settings
        self.rng = rng
        self.topics = topics
        self.ownership = ownership
        self.members: dict[str, dict[str, ChaosMember]] = {g: {} for g in GROUPS}
        self.crashed: dict[str, dict[str, float]] = {g: {} for g in GROUPS}
        self.actions: list[str] = []
        self._next = 0

    def join(self, group: str) -> None:
        self._next += 1
        mid = f"m{self._next}"
        member = ChaosMember(self.bootstrap, self.settings, group, mid, self.rng.choice(RACKS),
                             [self.topics[t] for t in GROUPS[group]], self.ownership)
        member.start()
        self.members[group][mid] = member
        self.actions.append(f"join {group}/{mid}")

    def leave(self, group: str, crash: bool) -> None:
        if len(self.members[group]) <= 1:
            return
        mid = self.rng.choice(sorted(self.members[group]))
        member = self.members[group].pop(mid)
        member.stop(leave=not crash)
        if crash:
            self.crashed[group][mid] = time.monotonic()
        self.actions.append(f"{'crash' if crash else 'leave'} {group}/{mid}")

    def move(self, kadmin: Any) -> None:
        from kafka import TopicPartition

        short = self.rng.choice(sorted(TOPICS))
        partition = self.rng.randrange(TOPICS[short])
        replicas = self.rng.sample([1, 2, 3], 2)
        try:
            result = kadmin.alter_partition_reassignments(
                {TopicPartition(self.topics[short], partition): replicas})
            ok = all(v is None for v in result.values())
        except Exception as exc:  # noqa: BLE001 - e.g. a reassignment still in progress
            ok = False
            self.actions.append(f"move {short}-{partition} refused: {exc}")
        if ok:
            self.actions.append(f"move {short}-{partition} -> {replicas}")

    def live(self, group: str) -> set[str]:
        return set(self.members[group])

    def lingering(self, group: str, session_s: float) -> set[str]:
        now = time.monotonic()
        return {m for m, at in self.crashed[group].items() if now - at < session_s + 2}

    def everyone(self) -> list[ChaosMember]:
        return [m for ms in self.members.values() for m in ms.values()]


def _newest(plans: list[AssignmentPlan]) -> dict[str, AssignmentPlan]:
    out: dict[str, AssignmentPlan] = {}
    for p in plans:
        out[p.group_id] = p
    return out


def test_agent_killed_at_random_moments(bootstrap: str, admin, unique_name: str, rng, seed: int,
                                        workdir) -> None:  # type: ignore[no-untyped-def]
    from kafka.admin import KafkaAdminClient

    topics = {short: f"{unique_name}-{short}" for short in TOPICS}
    for short, n in TOPICS.items():
        create_topic(admin, topics[short], [[1 + (p % 3), 1 + ((p + 1) % 3)] for p in range(n)])
    config = agent_config(bootstrap, unique_name)
    settings = settings_of(config)
    session_s = settings.input.session_timeout_ms / 1000
    figures = Figures("agent-kill", seed)
    ownership = Ownership()
    cluster = Cluster(bootstrap, settings, rng, topics, ownership)
    plans = TopicTail(bootstrap, settings.topics.plans)
    control = TopicTail(bootstrap, settings.topics.control)
    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
    chatter = Chatter(bootstrap, settings, topics["b"], CHATTER_PER_S)
    agent = AgentProcess(config, workdir, "agent").start()
    restart_to_valid: list[float] = []
    restart_to_ready: list[float] = []
    rounds: list[dict[str, Any]] = []

    def all_plans() -> list[AssignmentPlan]:
        plans.poll(0.3)
        out = []
        for msg in plans.records:
            try:
                out.append(AssignmentPlan.from_json(msg.value()))
            except Exception:  # noqa: BLE001 - the agent never writes anything else
                raise AssertionError(f"unparseable plan at offset {msg.offset()}") from None
        return out

    def valid_now() -> bool:
        newest = _newest(all_plans())
        for group in GROUPS:
            live = cluster.live(group)
            plan = newest.get(group)
            if plan is None:
                return False
            sizes = {topics[t]: TOPICS[t] for t in GROUPS[group]}
            if plan_problems(plan, live, cluster.lingering(group, session_s), sizes):
                return False
            gens = {m.follower.generation for m in cluster.members[group].values()}
            if gens != {plan.generation}:
                return False
        return True

    try:
        wait_until(lambda: len(agent.health().get("ready_partitions", [])) == 3, 120,
                   "the first agent never became ready")
        chatter.start()
        for group in GROUPS:
            cluster.join(group)
            cluster.join(group)
        for i in range(ROUNDS):
            began = agent.started_at
            wait_until(lambda: len(agent.health().get("ready_partitions", [])) == 3
                       and not agent.health().get("loading_partitions"),
                       90, f"round {i}: agent never loaded its partitions")
            ready = time.monotonic() - began
            wait_until(valid_now, 90, f"round {i}: no valid adopted plan for every live group; "
                       f"actions {cluster.actions[-8:]}", step=0.3)
            valid = time.monotonic() - began
            restart_to_ready.append(round(ready, 2))
            restart_to_valid.append(round(valid, 2))
            if i == ROUNDS - 1:
                break
            # Churn in the background; SIGKILL at a random moment in the middle of it.
            kill_after = rng.uniform(0.2, 5.0)
            stop_churn = threading.Event()
            mark = len(cluster.actions)

            def churn(stop: threading.Event = stop_churn) -> None:
                while not stop.is_set():
                    what = rng.random()
                    group = rng.choice(sorted(GROUPS))
                    if what < 0.35 and len(cluster.members[group]) < 3:
                        cluster.join(group)
                    elif what < 0.55:
                        cluster.leave(group, crash=False)
                    elif what < 0.65:
                        cluster.leave(group, crash=True)
                    else:
                        cluster.move(kadmin)
                    stop.wait(rng.uniform(0.2, 1.5))

            worker = threading.Thread(target=churn, daemon=True)
            worker.start()
            time.sleep(kill_after)
            agent.kill9()
            stop_churn.set()
            worker.join(60)
            rounds.append({"round": i, "kill_after_s": round(kill_after, 2),
                           "actions": cluster.actions[mark:]})
            agent.start()
        # The crashed members must be expired in the end: wait a session timeout, then check.
        time.sleep(session_s + 3)
        wait_until(valid_now, 60, "final plans not valid")
        assert not [m for g in GROUPS for m in _newest(all_plans())[g].members
                    if m.member_id not in cluster.live(g)], "crashed members never expired"
    finally:
        chatter.stop()
        for member in cluster.everyone():
            member.stop()
        rc = agent.stop()
        kadmin.close()

    committed = all_plans()
    plans.close()
    control.poll(2)
    events = [json.loads(m.value()) for m in control.records]
    control.close()
    # Aborted plan records (open transactions of killed agents), read without isolation.
    from confluent_kafka import Consumer

    raw = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{unique_name}-raw",
                    "auto.offset.reset": "earliest", "isolation.level": "read_uncommitted",
                    "enable.partition.eof": True})
    raw.subscribe([settings.topics.plans])
    seen_raw, eofs = 0, set()
    deadline = time.monotonic() + 30
    while len(eofs) < 3 and time.monotonic() < deadline:
        msg = raw.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            eofs.add(msg.partition())
        else:
            seen_raw += 1
    raw.close()

    # Fencing: once instance k+1 committed anything, instance k never commits again.
    order = {iid: n for n, iid in enumerate(agent.instance_ids)}
    newest_seen = -1
    stale = []
    for ev in events:
        n = order.get(ev.get("agent"), -1)
        if n < newest_seen:
            stale.append(ev)
        newest_seen = max(newest_seen, n)

    figures["chatter_records_per_partition_per_s"] = CHATTER_PER_S
    figures["rounds"] = ROUNDS
    figures["kills"] = ROUNDS - 1
    figures["restart_to_ready_s"] = restart_to_ready
    figures["restart_to_valid_adopted_plan_s"] = restart_to_valid
    figures["max_restart_to_valid_s"] = max(restart_to_valid)
    figures["session_timeout_s"] = session_s
    figures["committed_plans"] = len(committed)
    figures["plan_records_incl_aborted"] = seen_raw
    figures["control_events"] = len(events)
    figures["handovers"] = ownership.handovers
    figures["double_ownership"] = len(ownership.conflicts)
    figures["stale_instance_events"] = len(stale)
    figures["agent_exit_code"] = rc
    figures["kill_rounds"] = rounds
    figures.write()

    assert not generation_problems(committed), generation_problems(committed)
    assert not stale, f"a killed agent's events were committed after its successor's: {stale[:3]}"
    assert not ownership.conflicts, ownership.conflicts[:5]
    assert max(restart_to_valid) <= session_s, restart_to_valid
    assert rc == 0, f"agent did not stop cleanly on SIGTERM: {rc}"
