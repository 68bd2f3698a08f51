"""RackwiseTaskAssignor (KIP-924) in real Kafka Streams applications on the testbed, no agent.

The task assignor decides in-process with the JVM task core (plugins/README.md § 7). Four
TaskApp processes (tests/java/streams-app: a stateful count over ``input``, 1 standby, no
``rack.aware.assignment.strategy``, so rackwise's min_traffic), one thread each: az1, az2 and
two in az3. ``input`` has 8 partitions, 6 with replicas in az1 and az2 and 2 in az1 and az3,
leaders on the other rack's broker half of the time, so only follower fetching makes a
plan-local read local. Every process gets 2 of the 8 tasks, so the two az3 processes hold 4
tasks with only 2 local ones: the fewest cross-rack actives the count balance allows is 2,
worked out here by brute force over every balanced assignment.

Checked, from the processes' own reports (``metadataForLocalThreads()``):
(a) actives rack-optimal from the first stable assignment (cross-rack actives == the optimum);
(b) standbys never beside their active, and in another rack than it (a rack is always free);
(c) the wire agrees: each process's main consumer (its own ``consumer-node-metrics``) receives a
    plan-local partition's bytes from its own rack's broker;
(d) a process bounced: while it is away and after it is back, every task is active exactly once,
    and the group settles at its full size with every process holding tasks.
The plan each rebalance computed is on the plans topic (kind streams, reason assigned) and is what
the processes run. Run on the testbed release's Kafka Streams (4.4.0) in ``make test``, and on the
oldest supported (3.8.1) as a cell of ``make compat``.

``test_a_hot_partition_is_placed_local_with_the_agent_advising``: an agent advises bytes/s; one
of the two cross-rack source partitions gets 50x the traffic of the others; at the next rebalance
(a process bounced) it is read in its own rack and a lighter one crosses instead.
"""

from __future__ import annotations

import itertools
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from agent.dev.tail import PlanReader
from protocol.plan import PLUGIN_REASON, AssignmentPlan
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.streamsapp import TaskAppInstance, reported, wait_for
from tests.support.trafficclients import SteadyProducer

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(900)]

# broker ids per partition (the testbed's brokers 1, 2, 3 are in az1, az2, az3)
PLACEMENT = [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1], [1, 3], [3, 1]]
RACKS = ["az1", "az2", "az3", "az3"]
TASKS = sorted(f"0_{p}" for p in range(len(PLACEMENT)))
# The testbed's release in `make test`; the oldest supported (3.8.1) is a cell of the compat
# matrix (`make compat`), beside the tests/compat streams cells of every Streams release.
VERSIONS = ["4.4.0", pytest.param("3.8.1", id="task-assignor-inprocess-client3.8.1",
                                  marks=pytest.mark.compat)]


def _racks_of(admin: Any) -> dict[int, set[str]]:
    """Partition -> the racks of its replicas."""
    broker = rack_of_brokers(admin)
    return {p: {broker[b] for b in replicas} for p, replicas in enumerate(PLACEMENT)}


def _optimum(racks: dict[int, set[str]], process_racks: list[str]) -> int:
    """Fewest cross-rack actives over every assignment with Kafka's balanced counts
    (each process of one thread gets floor or ceil of tasks / processes)."""
    n, k = len(racks), len(process_racks)
    low, high = n // k, -(-n // k)
    best = n
    for owner in itertools.product(range(k), repeat=n):
        counts = [owner.count(i) for i in range(k)]
        if min(counts) < low or max(counts) > high:
            continue
        best = min(best, sum(process_racks[owner[p]] not in racks[p] for p in range(n)))
    return best


def _cross(actives: dict[str, list[str]], rack_of: dict[str, str], racks: dict[int, set[str]]) -> int:
    return sum(rack_of[pid] not in racks[int(t.split("_")[1])] for pid, ts in actives.items() for t in ts)


def _settled(instances: list[TaskAppInstance]) -> dict[str, dict[str, list[str]]] | None:
    """Every process RUNNING and holding an active task, every task active exactly once."""
    reports = [i.latest() for i in instances]
    if not all(r is not None and r.get("state") == "RUNNING" for r in reports):
        return None
    got = reported(instances)
    actives = sorted(t for r in got.values() for t in r["active"])
    if len(got) != len(instances) or actives != TASKS or any(not r["active"] for r in got.values()):
        return None
    return got


class App:
    """The four TaskApp processes of one test, started together (JVMs warmed up first)."""

    def __init__(self, bootstrap: str, name: str, topics: dict[str, str], version: str | None,
                 config: dict[str, str]) -> None:
        self.bootstrap, self.name, self.topics = bootstrap, name, topics
        self.version, self.config = version, config
        self.instances: list[TaskAppInstance] = []

    def start(self, rack: str) -> TaskAppInstance:
        inst = TaskAppInstance(
            self.bootstrap, self.name, rack, input=self.topics["input"], output=self.topics["output"],
            state_dir=tempfile.mkdtemp(prefix=f"taskapp-{rack}-"), kafka_version=self.version,
            strategy="unset", hold=True, config=self.config)
        self.instances.append(inst)
        return inst

    def rack_of(self) -> dict[str, str]:
        return {r["process_id"]: r["rack"] for i in self.instances if (r := i.latest())}

    def close(self) -> None:
        for inst in self.instances:
            inst.close()

    def logs(self) -> str:
        return "\n".join(f"--- {i.rack}\n{i.stderr()[-3000:]}" for i in self.instances)


@pytest.fixture
def streams_topics(admin: Any, unique_name: str) -> Iterator[dict[str, str]]:
    topics = {"input": f"{unique_name}-in", "output": f"{unique_name}-out",
              "plans": f"{unique_name}-plans", "advice": f"{unique_name}-advice"}
    create_topic(admin, topics["input"], PLACEMENT)
    create_topic(admin, topics["output"], partitions=3)
    create_topic(admin, topics["plans"], partitions=3)  # an agent would create it; none runs here
    yield topics


def _start_all(app: App) -> dict[str, dict[str, list[str]]]:
    for rack in RACKS:
        app.start(rack)
    for inst in app.instances:
        inst.go()
    try:
        return wait_for(lambda: _settled(app.instances), 300,
                        "four processes running, each holding tasks, every task active once")
    except TimeoutError:
        raise AssertionError(app.logs()) from None


def _plan_run(reader: PlanReader, got: dict[str, dict[str, list[str]]]) -> AssignmentPlan | None:
    """The newest streams plan the plug-in reported, if the processes run it."""
    reader.poll(0.3)
    plans = [p for p in reader.plans() if p.kind == "streams" and p.reason == PLUGIN_REASON]
    if not plans:
        return None
    plan = max(plans, key=lambda p: p.generation)
    want = {m.process_id: sorted(m.active_tasks) for m in plan.members}
    return plan if want == {pid: r["active"] for pid, r in got.items()} else None


def _wire(app: App, racks_by_broker: dict[int, str], got: dict[str, dict[str, list[str]]],
          racks: dict[int, set[str]], producer: SteadyProducer) -> list[str]:
    """(c): per process, bytes its main consumer received from each broker over a window in
    which every input partition carried at least ~150 KB; returns one line per process."""
    def window() -> dict[str, dict[int, int]] | None:
        """Bytes per broker of each process over a window in which every input partition carried
        150 records; None (try again) when a process was still reading a backlog in it (a task's
        backlog is as old as the producer when the group formed, and would skew the split)."""
        before = {i.latest()["process_id"]: i.fetched() for i in app.instances}  # type: ignore[index]
        start = dict(producer.sent)
        wait_for(lambda: min(producer.sent[p] - start[p] for p in start) >= 150, 120,
                 "150 records on every input partition")
        sent = {p: producer.sent[p] - start[p] for p in start}
        out = {}
        for inst in app.instances:
            pid = inst.latest()["process_id"]  # type: ignore[index]
            parts = [int(t.split("_")[1]) for t in got[pid]["active"]]
            expected = sum(sent[p] for p in parts) * producer.size

            def fetched(i: TaskAppInstance = inst, e: int = expected, was: int = sum(before[pid].values()),
                        ) -> dict[int, int] | None:
                now = i.fetched()
                return now if sum(now.values()) - was >= 0.8 * e else None
            after = wait_for(fetched, 60, f"{inst.rack}: its consumer fetched its partitions' records")
            delta = {b: after.get(b, 0) - before[pid].get(b, 0) for b in after}
            if sum(delta.values()) > 1.6 * expected:
                return None
            out[pid] = delta
        return out
    deltas = wait_for(window, 300, "a window without backlog for every process", interval=0.1)
    lines = []
    for pid, delta in deltas.items():
        rack = app.rack_of()[pid]
        total = sum(delta.values())
        own = sum(v for b, v in delta.items() if racks_by_broker[b] == rack)
        parts = [int(t.split("_")[1]) for t in got[pid]["active"]]
        local = [p for p in parts if rack in racks[p]]
        share = len(local) / len(parts)
        lines.append(f"{rack} {pid[:8]}: partitions {parts} (plan-local {local}), fetched "
                     f"{total} B, {own} B from {rack} ({own / total:.0%}; plan-local share {share:.0%})")
        # every byte of a plan-local partition comes from the own rack (follower fetching), so the
        # own-rack share is at least the plan-local partitions' share, less the control traffic
        # and rate noise between partitions of equal rate
        assert own / total >= share - 0.15, lines[-1]
        if share == 0:
            assert own / total < 0.2, lines[-1]
    return lines


@pytest.mark.parametrize("version", VERSIONS)
def test_tasks_are_rack_optimal_standbys_spread_and_the_wire_agrees(
        bootstrap: str, admin: Any, streams_topics: dict[str, str], version: str) -> None:
    racks = _racks_of(admin)
    racks_by_broker = rack_of_brokers(admin)
    optimum = _optimum(racks, RACKS)
    assert optimum == 2, optimum  # the layout above: the two az3 processes hold 2 foreign tasks
    app = App(bootstrap, f"{streams_topics['input']}-app-{uuid.uuid4().hex[:4]}", streams_topics,
              version, {"rackwise.plans.topic": streams_topics["plans"],
                        "rackwise.advice.topic": streams_topics["advice"]})
    reader = PlanReader(bootstrap, streams_topics["plans"], app.name)
    rates = {p: 20.0 for p in range(len(PLACEMENT))}
    try:
        with SteadyProducer(bootstrap, streams_topics["input"], rates, keys=50) as producer:
            got = _start_all(app)
            rack_of = app.rack_of()
            actives = {pid: r["active"] for pid, r in got.items()}
            # (a) rack-optimal from the first stable assignment
            cross = _cross(actives, rack_of, racks)
            print(f"kafka-streams {version}: actives {actives}, cross-rack {cross}, optimum {optimum}")
            assert cross == optimum, (actives, app.logs())
            # the plug-in reported what the processes run
            plan = wait_for(lambda: _plan_run(reader, reported(app.instances)), 60,
                            "the plan the processes run, on the plans topic")
            assert plan.summary.cross_rack_partitions == optimum
            assert plan.summary.lower_bound == optimum
            # (b) standbys: every task has one, never beside its active, in another rack
            owner = {t: pid for pid, ts in actives.items() for t in ts}
            standby = wait_for(lambda: (s := reported(app.instances)) and all(
                sum(t in r["standby"] for r in s.values()) == 1 for t in TASKS) and s, 120,
                "one standby of every task")
            for pid, r in standby.items():
                for t in r["standby"]:
                    assert owner[t] != pid, (t, pid)
                    assert rack_of[owner[t]] != rack_of[pid], (t, rack_of[owner[t]], standby)
            # (c) the wire agrees
            for line in _wire(app, racks_by_broker, got, racks, producer):
                print(line)
            # (d) a process bounced: every task stays active exactly once
            leaving = next(i for i in app.instances if i.rack == "az3")
            leaving.stop()
            app.instances.remove(leaving)
            wait_for(lambda: _settled(app.instances), 180,
                     "three processes run every task once while one is away")
            app.start("az3").go()
            after = wait_for(lambda: _settled(app.instances), 240,
                             "four processes again, each holding tasks, every task active once")
            settled = {p: r["active"] for p, r in after.items()}
            print(f"after the bounce: {settled}, cross-rack {_cross(settled, app.rack_of(), racks)}")
            stats = [i.latest().get("rackwise") for i in app.instances]  # type: ignore[union-attr]
            print(f"plug-in counts: {stats}")
            assert "fallbacks={}" in "".join(s for s in stats if s), (stats, app.logs())
            assert "falls back" not in "".join(i.stderr() for i in app.instances), app.logs()
    finally:
        app.close()
        reader.close()


def test_a_hot_partition_is_placed_local_with_the_agent_advising(
        bootstrap: str, admin: Any, streams_topics: dict[str, str], unique_name: str) -> None:
    from tests.support.agent import AgentThread, isolated_settings

    racks = _racks_of(admin)
    settings = isolated_settings(bootstrap, unique_name, advice={"topics": [streams_topics["input"]],
                                                                 "interval_s": 0})
    app = App(bootstrap, f"{streams_topics['input']}-app", streams_topics, None,
              {"rackwise.plans.topic": settings.topics.plans,
               "rackwise.advice.topic": settings.topics.advice})
    reader = PlanReader(bootstrap, settings.topics.plans, app.name)
    try:
        with SteadyProducer(bootstrap, streams_topics["input"], dict.fromkeys(range(8), 2.0), keys=50):
            got = _start_all(app)
            rack_of = app.rack_of()
            foreign = sorted(int(t.split("_")[1]) for pid, r in got.items() for t in r["active"]
                             if rack_of[pid] not in racks[int(t.split("_")[1])])
            assert len(foreign) == 2, got
        hot = foreign[0]
        rates = {p: (100.0 if p == hot else 2.0) for p in range(8)}
        print(f"cross-rack before advice: partitions {foreign}; {hot} gets 50x the traffic")
        with AgentThread(settings), SteadyProducer(bootstrap, streams_topics["input"], rates, keys=50):

            def advised_and_local() -> AssignmentPlan | None:
                """A rebalance (bounce the az2 process) until a plan weighted by advice runs."""
                current = _settled(app.instances)
                if current is None:
                    return None
                plan = _plan_run(reader, current)
                if plan is not None and plan.config.get("weights_from_advice"):
                    return plan
                bounce = next(i for i in app.instances if i.rack == "az2")
                bounce.stop()
                app.instances.remove(bounce)
                app.start("az2").go()
                wait_for(lambda: _settled(app.instances), 240, "the group settled after a bounce")
                return None
            plan = wait_for(advised_and_local, 600, "a plan weighted by the agent's advice", interval=5)
        owner = next(m for m in plan.members if f"0_{hot}" in m.active_tasks)
        crossing = sorted(p.partition for m in plan.members for p in m.partitions if p.cross_rack)
        print(f"advised plan generation {plan.generation}: 0_{hot} on {owner.rack}, cross-rack now "
              f"{crossing}, bytes/s {plan.summary.bytes_per_s}, cross {plan.summary.cross_rack_bytes_per_s}")
        assert owner.rack in racks[hot] and hot not in crossing, (hot, owner.rack, crossing)
        # what still crosses is lighter than the hot partition alone (50x the others' 2 kB/s):
        # the weighted objective may keep a third light partition across racks rather than
        # move two tasks for it (non_overlap_cost per move against traffic_cost per weight)
        hot_bytes = 100.0 * 1000
        assert plan.summary.cross_rack_bytes_per_s is not None
        assert plan.summary.cross_rack_bytes_per_s < 0.2 * hot_bytes, plan.summary
    finally:
        app.close()
        reader.close()

