"""Works where users run Kafka (issue 22): short live checks on real processes, one cell per
client kind and Kafka release, each on a 3-rack testbed of the broker release (cells.py).

For a consumer-group cell (the broker plug-in with KIP-848 clients, the classic plug-in with
Java classic clients of a given release), with no agent running anywhere:
1. the group forms: three members in az1..az3 own every partition between them;
2. the assignment is rack-optimal: its cross-rack count equals the optimum computed by
   ``assignor.optimal.lower_bound`` for the same members and replica racks;
3. a replica move re-plans: every partition's only replica moves to another rack (the old
   assignment becomes all cross-rack), and the group settles again on the new optimum
   (KIP-1101 on the brokers, KIP-881's leader re-join for classic groups);
4. no agent ran, so the group forming at all is the "agent stopped" check for these cells.
A ``streams`` cell runs three Kafka Streams processes of its release (tests/java/streams-app
built against it) on rackwise's KIP-924 task assignor with a real agent: they run the agent's
plan with every task active once and no active source partition read across racks (the
optimum: every partition has replicas in two racks); then, with the agent stopped and one
process gone, the leader falls back to Kafka's StickyTaskAssignor and every task is still
active exactly once. (The replica-move re-plan is checked for Streams by
tests/integration/test_streams_task_assignor.py on the default release only.)
An ``audit`` cell runs ``run_audit`` (what ``rackwise audit`` prints) on a librdkafka classic
group and holds its cross_rack_actual to the members' own view. The ``refused`` cell starts a
4.0 testbed with the broker plug-in and expects it to stop with the plug-in's message.

Marker ``compat``: ``make compat`` runs every cell and writes docs/compat.md; ``make test``
runs only the cells marked ``smoke`` (conftest.py beside this file).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent.clusterinfo import describe
from agent.dev import kafkaversion
from agent.dev.testbed import Testbed, TestbedError
from assignor.cluster import TopicPartition
from assignor.model import Group, Member
from assignor.optimal import lower_bound
from assignor.summary import summarize
from tests.compat.cells import Cell, cells
from tests.support.pluginclients import JavaConsumer, RdkafkaConsumer, wait_until

pytestmark = [pytest.mark.compat, pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(600)]

RACKS = ("az1", "az2", "az3")
# RF 1, two partitions per rack; then every partition moves to the next rack.
BEFORE = [[1], [1], [2], [2], [3], [3]]
AFTER = [[3], [3], [1], [1], [2], [2]]


class Beds:
    """One running testbed at a time, of the release the current cell asks for. The default
    release's cells use the session's testbed (tests/conftest.py ``bootstrap``) instead of a
    second one; the others get theirs on ports 600 above the session's, in a directory beside
    it, so they never meet the session's testbed."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request
        self.bed: Testbed | None = None

    def up(self, version: str, plugins: bool = True) -> tuple[Testbed | None, str]:
        if plugins and version == kafkaversion.kafka_version() and not os.environ.get("RACKWISE_BOOTSTRAP"):
            self.down()
            return None, str(self.request.getfixturevalue("bootstrap"))
        if self.bed is not None and self.bed.version == version and self.bed.plugins == plugins \
                and self.bed.is_running():
            return self.bed, self.bed.bootstrap
        self.down()
        session = Testbed()
        root = session.dir
        bed = Testbed(base_dir=root.with_name(root.name + f"-compat-{version}"),
                      port_base=session.nodes[0].client_port + 600,
                      log=lambda m: print(f"testbed {version}: {m}"), plugins=plugins,
                      kafka_version=version, heap_mb=384)
        self.bed = bed
        return bed, bed.up()

    def down(self) -> None:
        if self.bed is not None:
            self.bed.down()
            self.bed = None


@pytest.fixture(scope="session")
def beds(request: pytest.FixtureRequest) -> Iterator[Beds]:
    if os.environ.get("RACKWISE_BOOTSTRAP"):
        pytest.skip("compat cells start testbeds of their own releases (RACKWISE_BOOTSTRAP is set)")
    b = Beds(request)
    try:
        yield b
    finally:
        b.down()


def _admin(bootstrap: str) -> Any:
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})


def _create(admin: Any, topic: str) -> None:
    from tests.support.kafkautil import create_topic

    create_topic(admin, topic, BEFORE)


def _move(bootstrap: str, admin: Any, topic: str) -> None:
    from kafka.admin import KafkaAdminClient
    from kafka.structs import TopicPartition as KTP

    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
    try:
        result = kadmin.alter_partition_reassignments({KTP(topic, p): r for p, r in enumerate(AFTER)})
        assert all(v is None for v in result.values()), result
    finally:
        kadmin.close()

    def moved() -> bool:
        from confluent_kafka import TopicCollection

        desc = admin.describe_topics(TopicCollection([topic]))[topic].result(10)
        return [[r.id for r in p.replicas] for p in sorted(desc.partitions, key=lambda p: p.id)] == AFTER
    wait_until(moved, 60, "the replicas move")


def _cross_and_best(admin: Any, group: str, topic: str, clients: list[Any]) -> tuple[int, float]:
    view = describe(admin, [topic], read_selectors=True).view
    actual = {c.member_id: [TopicPartition(t, p) for t, p in sorted(c.assignment() or ())] for c in clients}
    racks = {c.member_id: c.rack for c in clients}
    members = tuple(Member.of(c.member_id, rack=c.rack, topics=[topic]) for c in clients)
    best = lower_bound(Group(group, members, view))
    return summarize(view, actual, racks, lower_bound=best).cross_rack_partitions, best


def _settled_optimal(admin: Any, group: str, topic: str, clients: list[Any], timeout: float) -> str:
    """Wait until every partition is owned and the assignment is the optimum, held for 3 s."""
    last = ["nothing yet"]

    def optimal() -> bool:
        owned = sum(len(c.assignment() or ()) for c in clients)
        if owned != len(BEFORE) or not all(c.member_id for c in clients):
            last[0] = f"{owned} of {len(BEFORE)} partitions owned"
            return False
        cross, best = _cross_and_best(admin, group, topic, clients)
        last[0] = f"cross-rack {cross}, optimum {best:.0f}"
        return cross == best
    start = time.monotonic()
    while True:
        try:
            wait_until(optimal, max(1.0, timeout - (time.monotonic() - start)), "optimal", step=0.5)
        except AssertionError as e:
            raise AssertionError(f"within {timeout:.0f}s the group did not settle on the optimum: "
                                 f"{last[0]}") from e
        time.sleep(3)
        if optimal():
            return last[0]


def _consumer_cell(bootstrap: str, start: Callable[[str, str, str], Any]) -> str:
    admin = _admin(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-compat-{tag}", f"g-compat-{tag}"
    _create(admin, topic)
    clients = [start(group, topic, rack) for rack in RACKS]
    try:
        wait_until(lambda: all(c.member_id for c in clients), 120, "every member joins")
        formed = _settled_optimal(admin, group, topic, clients, 120)
        moved_at = time.monotonic()
        _move(bootstrap, admin, topic)
        replanned = _settled_optimal(admin, group, topic, clients, 150)
        took = time.monotonic() - moved_at
    finally:
        for c in clients:
            c.stop()
    return (f"formed ({formed}); after the replica move {replanned} in {took:.0f}s; no agent ran")


CLASSIC_CONFIG = {"metadata.max.age.ms": "3000"}  # KIP-881: the leader sees rack changes sooner


def _start(cell: Cell, bootstrap: str) -> Callable[[str, str, str], Any]:
    if cell.kind == "kip848-java":
        return lambda g, t, rack: JavaConsumer(bootstrap, g, t, rack, protocol="consumer",
                                               assignor="rackwise", name=f"compat848-{rack}",
                                               kafka_version=cell.client)
    if cell.kind == "kip848-rdkafka":
        return lambda g, t, rack: RdkafkaConsumer(bootstrap, g, t, rack)
    if cell.kind == "classic-java":
        return lambda g, t, rack: JavaConsumer(bootstrap, g, t, rack, protocol="classic",
                                               config=CLASSIC_CONFIG, name=f"compat-classic-{rack}",
                                               kafka_version=cell.client)
    raise AssertionError(cell.kind)


def _audit_cell(bootstrap: str) -> str:
    from agent.audit import run_audit
    from tests.support.liveclients import ConsumerGroup, own_cross_rack, replica_racks

    admin = _admin(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic = group = f"t-compat-audit-{tag}"
    _create(admin, topic)
    members = ConsumerGroup(bootstrap, group, topic, RACKS)
    try:
        settled = members.settle(len(BEFORE), lambda: next(
            (a for a in run_audit(admin, group) if a.group == group), None))
    finally:
        members.close()
    own = own_cross_rack(settled.owned, replica_racks(admin, topic))
    a = settled.audit
    assert a.members == 3 and a.partitions == len(BEFORE), a
    assert a.cross_rack_actual == own, (a.cross_rack_actual, own)
    assert a.cross_rack_best is not None and a.cross_rack_best <= own
    return f"audit: actual {a.cross_rack_actual} (= the members' own view), best {a.cross_rack_best}"


STREAMS_PLACEMENT = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]


def _streams_cell(bootstrap: str, version: str) -> str:
    from agent.dev.tail import PlanReader
    from tests.support.agent import AgentThread, isolated_settings
    from tests.support.kafkautil import create_topic
    from tests.support.streamsapp import TaskAppInstance, reported, running, wait_for

    admin = _admin(bootstrap)
    name = f"t-compat-streams-{uuid.uuid4().hex[:6]}"
    topics = {"input": f"{name}-in", "stateless": f"{name}-in2", "output": f"{name}-out"}
    create_topic(admin, topics["input"], STREAMS_PLACEMENT)
    create_topic(admin, topics["stateless"], STREAMS_PLACEMENT[:3])
    create_topic(admin, topics["output"], partitions=3)
    all_tasks = sorted([f"0_{p}" for p in range(6)] + [f"1_{p}" for p in range(3)])
    settings = isolated_settings(bootstrap, name)
    agent = AgentThread(settings).__enter__()
    reader = PlanReader(bootstrap, settings.topics.plans, f"{name}-app")
    instances: list[Any] = []
    try:
        agent.wait_ready()
        wait_for(lambda: len(agent.agent.health()[1]["serving_requests"]) == 3, 60,
                 "agent serving every requests partition")
        s = settings.topics
        for rack in RACKS:
            instances.append(TaskAppInstance(
                bootstrap, f"{name}-app", rack, input=topics["input"], stateless=topics["stateless"],
                output=topics["output"], recovery_lag=100, kafka_version=version,
                config={"rackwise.requests.topic": s.requests, "rackwise.plans.topic": s.plans,
                        "rackwise.deadletter.topic": s.deadletter, "rackwise.timeout.ms": "10000",
                        "rackwise.backoff.ms": "120000"}))

        def follows_plan() -> Any:
            if not running(instances):
                return None
            reader.poll(0.3)
            plans = sorted(reader.plans(), key=lambda p: p.generation)
            if not plans:
                return None
            plan = plans[-1]
            want = {m.process_id or m.member_id: sorted(m.active_tasks) for m in plan.members}
            got = {pid: r["active"] for pid, r in reported(instances).items()}
            return plan if want == got else None
        try:
            plan = wait_for(follows_plan, 240, "the three processes running the agent's newest plan")
        except TimeoutError:
            raise AssertionError("\n".join(i.stderr()[-2000:] for i in instances)) from None
        assert sorted(t for m in plan.members for t in m.active_tasks) == all_tasks
        assert plan.summary.cross_rack_partitions == 0 == plan.summary.lower_bound, plan.summary
        agent.stop()
        instances[-1].stop()  # a member leaves: the leader assigns again, without the agent
        live = instances[:2]

        def fell_back() -> bool:
            if not running(live):
                return False
            actives = sorted(t for r in reported(live).values() for t in r["active"])
            return actives == all_tasks and "falls back to Kafka's StickyTaskAssignor" in \
                "".join(i.stderr() for i in live)
        wait_for(fell_back, 180, "with the agent stopped, two processes run every task once (fallback)")
    finally:
        for inst in instances:
            inst.close()
        reader.close()
        if agent.thread.is_alive():
            agent.stop()
    return (f"ran the agent's plan generation {plan.generation}: 9 tasks, cross-rack "
            f"{plan.summary.cross_rack_partitions} (optimum {plan.summary.lower_bound:.0f}); agent stopped: "
            "StickyTaskAssignor fallback, every task active once")


def _refused_cell(beds: Beds, cell: Cell) -> str:
    beds.down()
    with pytest.raises(TestbedError) as e:
        beds.up(cell.broker, plugins=True)
    beds.down()
    text = str(e.value)
    assert f"Kafka {cell.broker}" in text and "needs Kafka 4.1 or newer" in text, text[-2000:]
    return f"refused at start-up: 'this broker runs Kafka {cell.broker} ... needs Kafka 4.1 or newer'"


CELLS = cells()


@pytest.mark.parametrize("cell", [
    pytest.param(c, id=c.id, marks=[pytest.mark.compat_smoke] if c.smoke else []) for c in CELLS])
def test_cell(beds: Beds, cell: Cell, record_property: Callable[[str, object], None]) -> None:
    started = time.monotonic()
    if cell.kind == "refused":
        reason = _refused_cell(beds, cell)
    else:
        _, bootstrap = beds.up(cell.broker)
        if cell.kind == "audit":
            reason = _audit_cell(bootstrap)
        elif cell.kind == "streams":
            reason = _streams_cell(bootstrap, cell.client)
        else:
            reason = _consumer_cell(bootstrap, _start(cell, bootstrap))
            if cell.kind == "kip848-rdkafka":
                import confluent_kafka

                reason += (f"; confluent-kafka {confluent_kafka.version()[0]}, "
                           f"librdkafka {confluent_kafka.libversion()[0]}")
    reason += f" ({time.monotonic() - started:.0f}s)"
    print(f"{cell.id}: {reason}")
    record_property("compat_reason", reason)
