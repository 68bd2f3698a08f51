"""A real Kafka Streams application on rackwise's KIP-924 task assignor, on the testbed.

Three TaskApp processes (tests/java/streams-app: a stateful count with a changelog plus a
stateless copy; 1 standby; min_traffic; client.rack az1..az3) run with
``task.assignor.class=dev.rackwise.plugins.RackwiseTaskAssignor``; a real agent answers their
leader's requests. Everything is judged from the processes' own task lists
(``KafkaStreams.metadataForLocalThreads()``), compared with the plans on the plans topic. The
tests run in order on one application (one start-up instead of four):

a. the app runs exactly the published plan (kind streams, answering a request, no cross-rack
   active source partition);
c. a replica move of a source partition re-plans it (the leader's consumer sees the replica
   racks change, KIP-881, and rebalances): the task moves to a process in a rack that holds
   a replica;
b. a fourth process with no state first gets warm-ups (shown as standbys in its own list) and
   no stateful active, with a probing follow-up due; once a probing rebalance (one interval,
   60 s, Kafka's minimum, after the plan before it) has come, a warmed-up active moves to it,
   with that rebalance or with the cooperative follow-up right after it. HA's balanced target
   for the newcomer can change between rounds (its rack optimisation protects the
   round-robin draft, not the warm-ups), so this can take one or two probing rounds, as in
   Kafka's own HighAvailabilityTaskAssignor. Its standby restore is slowed to 10 records per
   batch at 20 ms per record (TaskApp ``standby-ms-per-record``) so a warm-up outlasts the
   cooperative follow-up rebalance right after a plan, and finishes well before the probing
   one;
d. with the agent stopped, the next rebalance falls back to Kafka's StickyTaskAssignor (the
   leader logs why) and every task is still active exactly once.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.config.settings import AgentSettings
from agent.dev.tail import PlanReader
from protocol.plan import AssignmentPlan
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.streamsapp import TaskAppInstance, reported, running, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.java]

INPUT_PLACEMENT = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]
STATELESS_PLACEMENT = [[1, 2], [2, 3], [3, 1]]
STATEFUL = {f"0_{p}" for p in range(6)}
ALL_TASKS = STATEFUL | {f"1_{p}" for p in range(3)}
PROBING_MS = 60_000  # Kafka Streams' minimum probing.rebalance.interval.ms
RECOVERY_LAG = 100
RECORDS = 6000  # unique keys: ~1,000 changelog records per stateful task


@dataclass
class App:
    bootstrap: str
    app_id: str
    settings: AgentSettings
    agent: AgentThread
    reader: PlanReader
    topics: dict[str, str]
    instances: list[TaskAppInstance] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def start(self, rack: str, config: dict[str, str] | None = None, **kw: Any) -> TaskAppInstance:
        s = self.settings.topics
        inst = TaskAppInstance(
            self.bootstrap, self.app_id, rack, input=self.topics["input"],
            stateless=self.topics["stateless"], output=self.topics["output"],
            recovery_lag=RECOVERY_LAG, probing_ms=PROBING_MS,
            config={
                "rackwise.requests.topic": s.requests,
                "rackwise.plans.topic": s.plans,
                "rackwise.deadletter.topic": s.deadletter,
                "rackwise.timeout.ms": "10000",
                "rackwise.backoff.ms": "120000",  # (d): one time-out, then fall back at once
                "metadata.max.age.ms": "3000",  # the leader sees replica moves within 3 s
                **(config or {}),
            },
            **kw,
        )
        self.instances.append(inst)
        return inst

    def live(self) -> list[TaskAppInstance]:
        return [i for i in self.instances if i.alive()]

    def plans(self) -> list[AssignmentPlan]:
        self.reader.poll(0.3)
        return sorted(self.reader.plans(), key=lambda p: p.generation)

    def stderr(self) -> str:
        return "\n".join(f"--- {i.rack} ---\n{i.stderr()[-3000:]}" for i in self.instances)


def plan_tasks(plan: AssignmentPlan) -> dict[str, dict[str, list[str]]]:
    """What each process should report for a plan: warm-ups are standbys in Kafka's model."""
    return {
        m.process_id or m.member_id: {
            "active": sorted(m.active_tasks),
            "standby": sorted([*m.standby_tasks, *m.warmup_tasks]),
        }
        for m in plan.members
    }


def follows(app: App, extra: Any = None) -> AssignmentPlan | None:
    """The newest plan, when every live process runs exactly it (and ``extra(plan)`` holds)."""
    live = app.live()
    if not running(live):
        return None
    plans = app.plans()
    if not plans:
        return None
    plan = plans[-1]
    if reported(live) != plan_tasks(plan):
        return None
    return plan if extra is None or extra(plan) else None


@pytest.fixture(scope="module")
def app(bootstrap: str, admin: Any) -> Iterator[App]:
    name = f"t-kip924-{uuid.uuid4().hex[:6]}"
    topics = {"input": f"{name}-in", "stateless": f"{name}-in2", "output": f"{name}-out"}
    create_topic(admin, topics["input"], INPUT_PLACEMENT)
    create_topic(admin, topics["stateless"], STATELESS_PLACEMENT)
    create_topic(admin, topics["output"], partitions=3)
    settings = isolated_settings(bootstrap, name)
    agent = AgentThread(settings).__enter__()
    reader = PlanReader(bootstrap, settings.topics.plans, f"{name}-app")
    state = App(bootstrap, f"{name}-app", settings, agent, reader, topics)
    try:
        agent.wait_ready()
        wait_for(lambda: len(agent.agent.health()[1]["serving_requests"]) == 3, 60,
                 "agent serving every requests partition")
        state.started = time.monotonic()
        for rack in ("az1", "az2", "az3"):
            state.start(rack)
        yield state
    finally:
        for inst in state.instances:
            inst.close()
        reader.close()
        if agent.thread.is_alive():
            agent.stop()


@pytest.mark.timeout(300)
def test_a_the_app_runs_the_published_plan(app: App) -> None:
    try:
        plan = wait_for(lambda: follows(app), 240, "the three processes running the newest plan")
    except TimeoutError:
        pytest.fail(f"plans {[(p.generation, plan_tasks(p)) for p in app.plans()[-2:]]}\n"
                    f"reported {reported(app.live())}\n{app.stderr()}")
    print(f"(a) settled {time.monotonic() - app.started:.0f}s after start, generation {plan.generation}")
    assert plan.kind == "streams" and plan.request_id and plan.assignor == "high-availability"
    assert plan.config["rack_aware_assignment_strategy"] == "min_traffic"
    assert plan.config["rack_aware_enabled"] is True
    assert sorted(t for m in plan.members for t in m.active_tasks) == sorted(ALL_TASKS)
    assert sorted(t for m in plan.members for t in m.standby_tasks) == sorted(STATEFUL)
    assert {m.rack for m in plan.members} == {"az1", "az2", "az3"}
    assert plan.summary.cross_rack_partitions == 0  # every source partition has 2 of 3 racks
    # The leader (the process that ran assign()) used every plan and never fell back.
    stats = [i.latest()["rackwise"] for i in app.instances if i.latest()["rackwise"]]  # type: ignore[index]
    assert stats and all("fallbacks={}" in s and "plans_used=0 " not in s for s in stats), stats


@pytest.mark.timeout(200)
def test_c_a_replica_move_changes_the_plan(app: App, admin: Any) -> None:
    from kafka import TopicPartition
    from kafka.admin import KafkaAdminClient

    before = wait_for(lambda: follows(app), 60, "a settled plan")
    owner = next(m for m in before.members if "0_0" in m.active_tasks)
    racks = rack_of_brokers(admin)
    target = sorted(b for b, r in racks.items() if r != owner.rack)  # the owner's rack loses it
    new_racks = sorted(racks[b] for b in target)
    kadmin = KafkaAdminClient(bootstrap_servers=app.bootstrap.split(","))
    try:
        result = kadmin.alter_partition_reassignments(
            {TopicPartition(app.topics["input"], 0): target})
        assert all(v is None for v in result.values()), result
    finally:
        kadmin.close()
    moved_at = time.monotonic()

    def moved(plan: AssignmentPlan) -> bool:
        new_owner = next(m for m in plan.members if "0_0" in m.active_tasks)
        part = next(p for p in new_owner.partitions if p.topic == app.topics["input"]
                    and p.partition == 0)
        return (plan.generation > before.generation and new_owner.rack in new_racks
                and part.replica_racks == new_racks and not part.cross_rack)

    try:
        plan = wait_for(lambda: follows(app, moved), 120, "the app running a re-plan with 0_0 moved")
    except TimeoutError:
        pytest.fail(f"after moving {app.topics['input']}-0 to racks {new_racks} (owner was in "
                    f"{owner.rack}): plans {[(p.generation, p.reason) for p in app.plans()]}\n"
                    f"reported {reported(app.live())}\n{app.stderr()}")
    print(f"(c) 0_0 moved from {owner.rack} to a process in {new_racks} "
          f"{time.monotonic() - moved_at:.0f}s after the reassignment (generation {plan.generation})")
    assert plan.summary.cross_rack_partitions == 0


def _produce(bootstrap: str, topic: str, n: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for i in range(n):
        producer.produce(topic, key=f"k{i}".encode(), value=b"v")
        if i % 1000 == 999:
            producer.poll(0)
    producer.flush(30)


def _changelog_records(bootstrap: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"probe-{uuid.uuid4().hex[:6]}"})
    try:
        return sum(consumer.get_watermark_offsets(KTopicPartition(topic, p), timeout=10)[1]
                   for p in range(len(INPUT_PLACEMENT)))
    finally:
        consumer.close()


@pytest.mark.timeout(400)
def test_b_a_new_instance_warms_up_then_takes_actives_on_probing(app: App) -> None:
    wait_for(lambda: follows(app), 60, "a settled plan")
    # A fresh state directory: no state. Its JVM starts while the data is produced; it joins after.
    # Its warm-ups restore 10 records per batch at 20 ms a record: ~18 s to come within
    # RECOVERY_LAG of a ~1,000-record changelog. That outlasts the cooperative follow-up right
    # after a plan (about 1 s) and ends well before the probing rebalance (60 s). (Kafka
    # advances a standby's offsets before the listener sleeps, so with the default restore
    # batch of 1,000 a warm-up is caught up at once, whatever the sleep.)
    newcomer = app.start("az1", standby_ms_per_record=20, hold=True,
                         config={"restore.consumer.max.poll.records": "10"})
    _produce(app.bootstrap, app.topics["input"], RECORDS)
    changelog = f"{app.app_id}-counts-changelog"
    wait_for(lambda: _changelog_records(app.bootstrap, changelog) >= RECORDS, 120,
             f"{RECORDS} records in {changelog}")
    last = app.plans()[-1].generation
    newcomer.go()
    joined = time.monotonic()
    pid = wait_for(lambda: (newcomer.latest() or {}).get("process_id"), 90, "the new process id")

    def mine(plan: AssignmentPlan) -> Any:
        return next((m for m in plan.members if m.process_id == pid), None)

    def warming(plan: AssignmentPlan) -> bool:
        me = mine(plan)
        return (plan.generation > last and me is not None and bool(me.warmup_tasks)
                and not STATEFUL & set(me.active_tasks))

    def history() -> str:
        return str([(p.generation, p.reason, p.followup_ms, plan_tasks(p).get(pid)) for p in app.plans()])

    try:
        warm = wait_for(lambda: next((p for p in app.plans() if warming(p)), None), 120,
                        "a plan with warm-ups on the new process")
    except TimeoutError:
        pytest.fail(f"plans {history()}\n{app.stderr()}")
    assert warm.followup_ms == PROBING_MS, warm.followup_ms

    def reports_warmups() -> dict[str, Any] | None:
        # The process itself holds the newest plan's warm-ups as standbys, no stateful active.
        plan = [p for p in app.plans() if warming(p)][-1]
        r = newcomer.latest()
        if r and set(mine(plan).warmup_tasks) <= set(r["standby"]) and not STATEFUL & set(r["active"]):
            return r
        return None

    seen = wait_for(reports_warmups, 60, "the new process reporting its warm-ups as standbys")
    print(f"(b) warm-ups {mine(warm).warmup_tasks} planned for the new process "
          f"{time.monotonic() - joined:.0f}s after it started; it reports active={seen['active']} "
          f"standby={seen['standby']}")

    def warmed_before(generation: int) -> set[str]:
        return {t for p in app.plans() if p.generation < generation and mine(p) is not None
                for t in mine(p).warmup_tasks}

    def took_over(plan: AssignmentPlan) -> bool:
        me = mine(plan)
        return (plan.generation > warm.generation and me is not None
                and bool(warmed_before(plan.generation) & set(me.active_tasks)))

    try:
        wait_for(lambda: follows(app, took_over), 2 * PROBING_MS / 1000 + 120,
                 "the new process running warmed-up actives")
    except TimeoutError:
        pytest.fail(f"plans {history()}\nreported {reported(app.live())}\n{app.stderr()}")
    plans = app.plans()
    first = next(p for p in plans if took_over(p))
    previous = max((p for p in plans if p.generation < first.generation), key=lambda p: p.generation)
    gap = (first.created_at - previous.created_at).total_seconds()
    taken = sorted(warmed_before(first.generation) & set(mine(first).active_tasks))
    print(f"(b) warmed-up actives {taken} moved to the new process by generation {first.generation} "
          f"({first.reason}), {gap:.0f}s after the plan before it, "
          f"{time.monotonic() - joined:.0f}s after the new process started")
    print(f"(b) plans (generation, reason, followup_ms, the new process's tasks): {history()}")
    # Actives moved on a follow-up, and not before a probing rebalance (a plan one probing
    # interval after the plan before it) had come since the warm-ups were planned. The move
    # itself may come with the probing rebalance or with the cooperative follow-up right after
    # it (Kafka Streams rebalances again at once when that plan moved an active elsewhere).
    assert first.reason == "followup", history()
    assert previous.followup_ms == PROBING_MS, history()
    created = {p.generation: p.created_at for p in plans}
    probing = [g for g in range(warm.generation + 1, first.generation + 1)
               if g in created and g - 1 in created
               and (created[g] - created[g - 1]).total_seconds() >= PROBING_MS / 1000 - 5]
    assert probing, history()
    print(f"(b) probing rebalance(s) at generation {probing}; "
          f"the move came {gap:.0f}s after the plan before it")


@pytest.mark.timeout(240)
def test_d_with_the_agent_stopped_the_app_falls_back_to_kafkas_assignor(app: App) -> None:
    generation = app.plans()[-1].generation
    app.agent.stop()
    marks = {i.rack + str(n): i.stderr().count("falls back") for n, i in enumerate(app.instances)}
    app.instances[-1].stop()  # a member leaves: the leader must assign again, without the agent
    stopped = time.monotonic()

    def fell_back() -> bool:
        live = app.live()
        if not running(live):
            return False
        tasks = [t for r in reported(live).values() for t in r["active"]]
        return sorted(tasks) == sorted(ALL_TASKS) and any(
            i.stderr().count("falls back") > marks[i.rack + str(n)]
            for n, i in enumerate(app.instances))

    try:
        wait_for(fell_back, 150, "the remaining processes running Kafka's own assignment")
    except TimeoutError:
        pytest.fail(f"reported {reported(app.live())}\n{app.stderr()}")
    lines = [line for i in app.instances for line in i.stderr().splitlines() if "falls back" in line]
    print(f"(d) {time.monotonic() - stopped:.0f}s after the member left: {lines[-1]}")
    assert any("StickyTaskAssignor" in line and ("timeout" in line or "backing_off" in line)
               for line in lines), lines
    assert app.plans()[-1].generation == generation  # nothing planned without the agent
