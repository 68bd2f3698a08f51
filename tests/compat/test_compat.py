"""Works where users run Kafka: short live checks on real processes, one cell per
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
A ``kip848-rdkafka`` cell with a client release runs the same three steps with
confluent-kafka members of that release, each in that release's own Python
(clientvenv.py, rdkafka_driver.py); without one, in this process's confluent-kafka.
A ``follower-rdkafka`` cell runs ``PlanFollower`` members (classic protocol, the agent plans)
of a confluent-kafka release with a real agent: the group forms on the optimum, a replica
move re-plans it, and PlanFollower's documented fallback holds: with the agent stopped every
member keeps its last plan's partitions and a member joining meanwhile gets none until the
agent is back; without the agent's topics ``start()`` refuses (agentcells.py).
An ``agent`` cell runs a real agent on the broker release: it becomes ready, creates its
topics, plans a PlanFollower group on the optimum, publishes advice for its topic, re-plans
on a replica move; and it records the version of each wire API rackwise sends itself as
negotiated by ApiVersions, with what a request says where the broker lacks the API.
An ``audit`` cell runs the ``rackwise audit --json`` command on a classic librdkafka
``roundrobin`` group that reads four of six partitions across racks, and holds its actual
to the members' own view and its best to a brute force over every balanced assignment.
A ``streams`` cell runs three Kafka Streams processes of its release (tests/java/streams-app
built against it) on rackwise's KIP-924 task assignor with a real agent: they run the agent's
plan with every task active once and no active source partition read across racks (the
optimum: every partition has replicas in two racks); a replica move of a source partition out
of its active's rack re-plans that task onto a process in a rack holding a replica; then,
with the agent stopped and one process gone, the leader falls back to Kafka's
StickyTaskAssignor and every task is still active exactly once.
A ``streams-group`` cell (4.4+) runs three Kafka Streams processes of its release on
``group.protocol=streams`` (KIP-1071), one per rack, in a group that opts in to rackwise's
KIP-1357 assignor with the group config ``streams.assignor.name=rackwise`` before it forms, with
no agent: every task active once, standbys apart, no active task reading across racks (the
optimum: every source partition has replicas in two racks), the coordinator's log line
naming the racks' source ``coordinator``, StreamsGroupDescribe v1 naming ``rackwise`` and
``rackwise doctor`` silent about the group. The ``streams-group-doctor`` cell (4.4) sets
``streams.assignor.name=rackwise`` and then restarts every broker without the assignor: the
group runs Kafka's ``sticky`` with only a broker WARN, StreamsGroupDescribe v1 says so, and
``rackwise doctor`` names the group (``streams-assignor-unserved``). A ``streams-group-unserved``
cell (4.2, 4.3: streams
groups without custom assignors) establishes what those brokers do with the class: with the
plug-in jar loaded they stop at start-up with its message; without it they start, ignore the
unknown ``group.streams.assignors`` without a log line, and refuse the group config
``streams.assignor.name`` (INVALID_CONFIG), so no group can opt in; a streams group is then
served by Kafka's built-in ``sticky``, whose cross-rack count the cell records. On 4.1 (streams
groups not enabled on a cluster formatted at 4.1) the same cell finds the same refusals, and a
Kafka Streams client on ``group.protocol=streams`` stopping in ERROR.
The ``refused`` cell starts a 4.0 testbed with the broker plug-in and expects it to stop with
the plug-in's message.
A ``uniform-drop-in`` cell starts a testbed of its release whose brokers list
``dev.rackwise.plugins.RackwiseUniformAssignor`` first, instead of Kafka's ``uniform``, and
runs the consumer-group steps above with confluent-kafka members that name no assignor: the
brokers accept the class under the built-in's name, the coordinator describes the group's
assignor as ``uniform``, and the group is rack-optimal and re-planned after the move. The
``uniform-drop-in-beside-kafkas`` cell lists it beside Kafka's ``uniform`` and expects the
brokers to stop at start-up with the drop-in's message (4.1-4.3 have no check of their own).

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

from agent.dev import kafkaversion
from agent.dev.testbed import Testbed, TestbedError
from tests.compat.agentcells import DriverClient, agent_cell, audit_cell, follower_cell, versions
from tests.compat.cells import Cell, cells
from tests.compat.clientvenv import installed_version
from tests.compat.live import RACKS, admin_of, create, replanned_after_move, settled_optimal
from tests.support.pluginclients import JavaConsumer, RdkafkaConsumer, wait_until

pytestmark = [pytest.mark.compat, pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(600)]


# How far above the session testbed's ports the other releases' testbeds listen (so the two never
# meet). RACKWISE_COMPAT_PORT_OFFSET=0 keeps them on the session's own ports, for a run of cells
# of other releases only (the session testbed then never starts) on a machine whose port blocks
# are shared out.
PORT_OFFSET = int(os.environ.get("RACKWISE_COMPAT_PORT_OFFSET", "600"))


class Beds:
    """One running testbed at a time, of the release the current cell asks for. The default
    release's cells use the session's testbed (tests/conftest.py ``bootstrap``) instead of a
    second one; the others get theirs on ports PORT_OFFSET (600) above the session's, in a
    directory beside it, so they never meet the session's testbed."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request
        self.bed: Testbed | None = None
        self.assignors: tuple[tuple[str, str], ...] | None = None

    def up(self, version: str, plugins: bool = True, assignors: str | None = None,
           props: dict[str, str] | None = None) -> tuple[Testbed | None, str]:
        """``assignors``: the brokers' group.consumer.assignors when not the default; ``props``:
        more broker properties; such a testbed is never the session's."""
        if assignors:
            props = {**(props or {}), "group.consumer.assignors": assignors}
        key = tuple(sorted((props or {}).items()))
        if plugins and not props and version == kafkaversion.kafka_version() \
                and not os.environ.get("RACKWISE_BOOTSTRAP"):
            self.down()
            return None, str(self.request.getfixturevalue("bootstrap"))
        if self.bed is not None and self.bed.version == version and self.bed.plugins == plugins \
                and self.assignors == key and self.bed.is_running():
            return self.bed, self.bed.bootstrap
        self.down()
        session = Testbed()
        root = session.dir
        overrides = {n: dict(props) for n in (1, 2, 3)} if props else None
        bed = Testbed(base_dir=root.with_name(root.name + f"-compat-{version}"),
                      port_base=session.nodes[0].client_port + PORT_OFFSET,
                      log=lambda m: print(f"testbed {version}: {m}"), plugins=plugins,
                      kafka_version=version, heap_mb=384, overrides=overrides)
        self.bed, self.assignors = bed, key
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


def _consumer_cell(bootstrap: str, start: Callable[[str, str, str], Any]) -> str:
    admin = admin_of(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-compat-{tag}", f"g-compat-{tag}"
    create(admin, topic)
    clients = [start(group, topic, rack) for rack in RACKS]
    try:
        wait_until(lambda: all(c.member_id for c in clients), 120, "every member joins")
        formed = settled_optimal(admin, group, topic, clients, 120)
        replanned, took = replanned_after_move(bootstrap, admin, group, topic, clients)
    finally:
        for c in clients:
            c.stop()
    return (f"formed ({formed}); after the replica move {replanned} in {took:.0f}s; no agent ran")


CLASSIC_CONFIG = {"metadata.max.age.ms": "3000"}  # KIP-881: the leader sees rack changes sooner


def _start(cell: Cell, bootstrap: str,
           hellos: list[dict[str, Any]]) -> Callable[[str, str, str], Any]:
    """How a cell starts one member; a driven client's ``hello`` goes to ``hellos``."""
    if cell.kind == "kip848-java":
        return lambda g, t, rack: JavaConsumer(bootstrap, g, t, rack, protocol="consumer",
                                               assignor="rackwise", name=f"compat848-{rack}",
                                               kafka_version=cell.client)
    if cell.kind == "kip848-rdkafka" and cell.client:
        def driven(g: str, t: str, rack: str) -> DriverClient:
            client = DriverClient(cell.client, "kip848", rack, bootstrap=bootstrap, group=g, topic=t)
            hellos.append(client.hello())
            return client
        return driven
    if cell.kind == "kip848-rdkafka":
        return lambda g, t, rack: RdkafkaConsumer(bootstrap, g, t, rack)
    if cell.kind == "classic-java":
        return lambda g, t, rack: JavaConsumer(bootstrap, g, t, rack, protocol="classic",
                                               config=CLASSIC_CONFIG, name=f"compat-classic-{rack}",
                                               kafka_version=cell.client)
    raise AssertionError(cell.kind)


STREAMS_PLACEMENT = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]


def _streams_cell(bootstrap: str, version: str) -> str:
    """Kafka Streams of ``version`` with RackwiseTaskAssignor deciding in-process, no agent: the
    processes run the plan the plug-in reported, rack-optimal; a source replica move re-plans
    (KIP-881); a process leaving keeps every task active exactly once."""
    from agent.dev.tail import PlanReader
    from tests.support.kafkautil import create_topic
    from tests.support.streamsapp import TaskAppInstance, reported, running, wait_for

    admin = admin_of(bootstrap)
    name = f"t-compat-streams-{uuid.uuid4().hex[:6]}"
    topics = {"input": f"{name}-in", "stateless": f"{name}-in2", "output": f"{name}-out",
              "plans": f"{name}-plans"}
    create_topic(admin, topics["input"], STREAMS_PLACEMENT)
    create_topic(admin, topics["stateless"], STREAMS_PLACEMENT[:3])
    create_topic(admin, topics["output"], partitions=3)
    create_topic(admin, topics["plans"], partitions=3)  # no agent creates it here
    all_tasks = sorted([f"0_{p}" for p in range(6)] + [f"1_{p}" for p in range(3)])
    reader = PlanReader(bootstrap, topics["plans"], f"{name}-app")
    instances: list[Any] = []
    try:
        for rack in RACKS:
            instances.append(TaskAppInstance(
                bootstrap, f"{name}-app", rack, input=topics["input"], stateless=topics["stateless"],
                output=topics["output"], recovery_lag=100, kafka_version=version,
                config={"rackwise.plans.topic": topics["plans"],
                        "rackwise.advice.topic": f"{name}-advice",
                        "metadata.max.age.ms": "3000"}))  # the leader sees replica moves in 3 s

        def follows_plan(extra: Callable[[Any], bool] = lambda _p: True) -> Any:
            if not running(instances):
                return None
            reader.poll(0.3)
            plans = sorted(reader.plans(), key=lambda p: p.generation)
            if not plans:
                return None
            plan = plans[-1]
            want = {m.process_id or m.member_id: sorted(m.active_tasks) for m in plan.members}
            got = {pid: r["active"] for pid, r in reported(instances).items()}
            return plan if want == got and extra(plan) else None
        try:
            plan = wait_for(follows_plan, 240, "the three processes running the plug-in's newest plan")
        except TimeoutError:
            raise AssertionError("\n".join(i.stderr()[-2000:] for i in instances)) from None
        assert plan.kind == "streams" and plan.reason == "assigned", plan
        assert sorted(t for m in plan.members for t in m.active_tasks) == all_tasks
        assert plan.summary.cross_rack_partitions == 0 == plan.summary.lower_bound, plan.summary
        moved, took = _streams_move(bootstrap, admin, topics["input"], plan, follows_plan)
        instances[-1].stop()  # a member leaves: the leader assigns again
        live = instances[:2]

        def settled() -> bool:
            if not running(live):
                return False
            actives = sorted(t for r in reported(live).values() for t in r["active"])
            return actives == all_tasks
        wait_for(settled, 180, "two processes run every task once after one left")
        assert "falls back" not in "".join(i.stderr() for i in instances), \
            "\n".join(i.stderr()[-2000:] for i in instances)
    finally:
        for inst in instances:
            inst.close()
        reader.close()
    return (f"ran the plug-in's plan (generation {plan.generation}): 9 tasks, cross-rack "
            f"{plan.summary.cross_rack_partitions} (optimum {plan.summary.lower_bound:.0f}); "
            f"{moved} {took:.0f}s after the move; a process left: every task active once, "
            "no fallback")


def _streams_move(bootstrap: str, admin: Any, source: str, before: Any,
                  follows_plan: Callable[[Callable[[Any], bool]], Any]) -> tuple[str, float]:
    """Move source partition 0's replicas out of its active's rack; wait until the processes
    run a newer plan with task 0_0 on a process in a rack that holds a replica."""
    from kafka import TopicPartition as KTP
    from kafka.admin import KafkaAdminClient

    from tests.support.kafkautil import rack_of_brokers
    from tests.support.streamsapp import wait_for

    owner = next(m for m in before.members if "0_0" in m.active_tasks)
    racks = rack_of_brokers(admin)
    target = sorted(b for b, r in racks.items() if r != owner.rack)
    new_racks = sorted(racks[b] for b in target)
    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
    try:
        result = kadmin.alter_partition_reassignments({KTP(source, 0): target})
        assert all(v is None for v in result.values()), result
    finally:
        kadmin.close()
    moved_at = time.monotonic()

    def moved(plan: Any) -> bool:
        new_owner = next(m for m in plan.members if "0_0" in m.active_tasks)
        part = next(p for p in new_owner.partitions if p.topic == source and p.partition == 0)
        return (plan.generation > before.generation and new_owner.rack in new_racks
                and sorted(part.replica_racks) == new_racks and not part.cross_rack)
    plan = wait_for(lambda: follows_plan(moved), 150,
                    f"the processes running a re-plan with 0_0 off {owner.rack}")
    assert plan.summary.cross_rack_partitions == 0, plan.summary
    new_owner = next(m for m in plan.members if "0_0" in m.active_tasks)
    return (f"replica move of {source}-0 out of {owner.rack}: re-planned (generation "
            f"{plan.generation}), 0_0 on {new_owner.rack}, cross-rack 0",
            time.monotonic() - moved_at)


def _refused_cell(beds: Beds, cell: Cell) -> str:
    beds.down()
    with pytest.raises(TestbedError) as e:
        beds.up(cell.broker, plugins=True)
    beds.down()
    text = str(e.value)
    assert f"Kafka {cell.broker}" in text and "needs Kafka 4.1 or newer" in text, text[-2000:]
    return f"refused at start-up: 'this broker runs Kafka {cell.broker} ... needs Kafka 4.1 or newer'"


STREAMS_GROUP_CLASS = "dev.rackwise.plugins.RackwiseStreamsGroupAssignor"
STREAMS_GROUP_LISTING = {"group.streams.assignors": f"sticky,{STREAMS_GROUP_CLASS}"}


def _set_group_config(admin: Any, group: str, entries: dict[str, str]) -> None:
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in entries.items()])
    for fut in admin.incremental_alter_configs([resource]).values():
        fut.result(30)


def _streams_group_app(bootstrap: str, client: str, opt_in: bool, name: str | None = None,
                       probe: Callable[[str], None] | None = None,
                       configure: bool = True) -> tuple[int, str, set[str]]:
    """Three Kafka Streams processes of ``client`` on ``group.protocol=streams``, one per rack,
    1 standby (group config), a 6-partition source whose every partition has replicas in two
    racks (STREAMS_PLACEMENT: a rack-optimal assignment reads nothing across racks); with
    ``opt_in`` the group sets streams.assignor.name=rackwise before any member joins. Waits
    until every task is active exactly once and has its standby; returns the active tasks read
    from a rack without a replica of their partition, the group id and the process ids.
    ``name``: the topics' and group's prefix; ``probe(group)`` runs while the group is settled;
    ``configure=False``: the group's configs are set already."""
    from tests.support.kafkautil import create_topic, rack_of_brokers
    from tests.support.streamsapp import TaskAppInstance, running, wait_for

    admin = admin_of(bootstrap)
    name = name or f"t-compat-sg-{uuid.uuid4().hex[:6]}"
    source, out, app = f"{name}-in", f"{name}-out", f"{name}-app"
    create_topic(admin, source, STREAMS_PLACEMENT)
    create_topic(admin, out, partitions=3)
    entries = {"streams.num.standby.replicas": "1"}
    if opt_in:
        entries["streams.assignor.name"] = "rackwise"
    if configure:
        _set_group_config(admin, app, entries)
    broker_rack = rack_of_brokers(admin)
    replica_racks = [{broker_rack[b] for b in replicas} for replicas in STREAMS_PLACEMENT]
    tasks = sorted(f"0_{p}" for p in range(len(STREAMS_PLACEMENT)))
    instances = [TaskAppInstance(bootstrap, app, rack, input=source, output=out, assignor="default",
                                 kafka_version=client,
                                 # the streams protocol sends the top-level client.rack
                                 config={"group.protocol": "streams", "client.rack": rack})
                 for rack in RACKS]

    def settled() -> dict[str, Any] | None:
        if not running(instances):
            return None
        reports = {i.rack: i.latest() for i in instances}
        actives = sorted(t for r in reports.values() for t in r["active"])  # type: ignore[index]
        standbys = sorted(t for r in reports.values() for t in r["standby"])  # type: ignore[index]
        return reports if actives == tasks and standbys == tasks else None
    try:
        try:
            reports = wait_for(settled, 240, "every task active once with its standby", interval=0.3)
        except TimeoutError:
            raise AssertionError("\n".join(f"--- {i.rack}: {i.latest()}\n{i.stderr()[-2000:]}"
                                           for i in instances)) from None
        for r in reports.values():
            assert not set(r["active"]) & set(r["standby"]), reports
        cross = sum(1 for rack, r in reports.items() for t in r["active"]
                    if rack not in replica_racks[int(t.split("_")[1])])
        assert "falls back" not in "".join(i.stderr() for i in instances)
        if probe is not None:
            probe(app)
    finally:
        for inst in instances:
            inst.close()
    return cross, app, {str(r["process_id"]) for r in reports.values()}


def _streams_group_cell(bed: Testbed | None, bootstrap: str, client: str) -> str:
    """4.4+: a streams group that names rackwise's KIP-1357 assignor runs rack-optimal actives
    from its first stable assignment, with no agent."""
    said: dict[str, Any] = {}
    cross, app, pids = _streams_group_app(bootstrap, client, opt_in=True,
                                          probe=lambda g: said.update(_described_and_doctor(bootstrap, g)))
    assert cross == 0, f"{cross} of 6 active tasks read across racks (optimum 0)"
    # StreamsGroupDescribe v1 from the real brokers names the plug-in; doctor has nothing to say
    assert said["assignor"] == "rackwise" and said["findings"] == [], said
    # the brokers' own word that the plug-in served the group (not a lucky sticky)
    logs = sorted(((bed.dir if bed else Testbed().dir) / "logs").glob("n*/server.log"))
    said = [line for log in logs for line in log.read_text(errors="replace").splitlines()
            if "rackwise streams assignor: group " in line
            and any(f"(process {pid} ...)" in line for pid in pids)]
    assert said and "racks from coordinator (rack-aware)" in said[-1], said[-3:]
    return ("streams.assignor.name=rackwise: 6 tasks active once, standbys apart, cross-rack "
            "actives 0 (optimum 0) from the first stable assignment; the coordinator logged "
            "'racks from coordinator (rack-aware)'; StreamsGroupDescribe v1 names 'rackwise', "
            "doctor finds nothing; no agent ran")


def _described_and_doctor(bootstrap: str, group: str) -> dict[str, Any]:
    """The group's assignor as its coordinator names it (rackwise's own StreamsGroupDescribe),
    and doctor's streams-assignor-unserved findings for it."""
    from agent.audit.brokergroups import describe_groups
    from agent.brokers.rpc import WireClient, WireSettings
    from agent.config.settings import load_settings
    from agent.doctor import gather, run_checks

    with WireClient(WireSettings.from_config({"bootstrap.servers": bootstrap})) as client:
        desc = describe_groups(client, "streams", [group])[group]
    assert not isinstance(desc, str), desc
    snap = gather(load_settings(None, bootstrap=bootstrap), pattern=group, timeout=10, window_s=0)
    return {"assignor": desc.assignor_name,
            "findings": [f for f in run_checks(snap) if f.id == "streams-assignor-unserved"]}


def _streams_group_doctor_cell(beds: Beds, cell: Cell) -> str:
    """A streams group asks for rackwise, and then the brokers stop serving it (restarted with
    group.streams.assignors=sticky): the coordinator runs sticky with only a broker WARN, and
    rackwise doctor names the group from StreamsGroupDescription.assignorName."""
    bed, bootstrap = beds.up(cell.broker, props=dict(STREAMS_GROUP_LISTING))  # a testbed of its own
    assert bed is not None
    name = f"t-compat-sgd-{uuid.uuid4().hex[:6]}"
    # both configs now: with the assignor gone, the brokers refuse any change to this group's
    # configs ("streams.assignor.name 'rackwise' is not a registered task assignor")
    _set_group_config(admin_of(bootstrap), f"{name}-app", {"streams.assignor.name": "rackwise",
                                                           "streams.num.standby.replicas": "1"})
    bed.overrides = {n: {"group.streams.assignors": "sticky"} for n in (1, 2, 3)}
    for node in (1, 2, 3):
        bed.restart_node(node)
    said: dict[str, Any] = {}
    _streams_group_app(bootstrap, cell.client, opt_in=False, name=name, configure=False,
                       probe=lambda g: said.update(_described_and_doctor(bootstrap, g)))
    beds.down()
    assert said["assignor"] == "sticky", said
    (finding,) = said["findings"]
    assert finding.details["coordinator_runs"] == "sticky", finding
    assert finding.details["missing"] == [1, 2, 3], finding
    return ("streams.assignor.name=rackwise set, then every broker restarted with "
            "group.streams.assignors=sticky: the group runs, StreamsGroupDescribe v1 names "
            f"'{said['assignor']}'; rackwise doctor: {finding.id} ({finding.severity}) "
            f"'{finding.problem[:120]}...'")


def _streams_group_old_cell(beds: Beds, cell: Cell) -> str:
    """4.2/4.3 (KIP-1071 without KIP-1357): what a broker does when told to serve rackwise's
    streams assignor. With the rackwise plug-in jar loaded (group.consumer.assignors) the brokers
    refuse to start; without it they ignore the unknown group.streams.assignors, and the group
    config that would opt a group in is refused; a streams group is served by Kafka's sticky."""
    beds.down()
    with pytest.raises(TestbedError) as e:
        beds.up(cell.broker, plugins=True, props=STREAMS_GROUP_LISTING)
    beds.down()
    text = str(e.value)
    assert f"this broker runs Kafka {cell.broker}" in text and \
        "loads no custom streams-group assignors" in text, text[-2000:]
    bed, bootstrap = beds.up(cell.broker, plugins=False, props=STREAMS_GROUP_LISTING)
    assert bed is not None
    logged = [line for log in sorted((bed.dir / "logs").glob("n*/server.log"))
              for line in log.read_text(errors="replace").splitlines() if "group.streams.assignors" in line]
    assert not logged, logged[:3]  # what the cell's reason says: ignored without a log line
    from confluent_kafka import KafkaException

    admin = admin_of(bootstrap)
    with pytest.raises(KafkaException) as refused:
        _set_group_config(admin, f"g-compat-{uuid.uuid4().hex[:6]}", {"streams.assignor.name": "rackwise"})
    said = refused.value.args[0].str()
    assert "Unknown group config name: streams.assignor.name" in said, said
    if kafkaversion.version_tuple(cell.broker)[:2] < (4, 2):
        served = _streams_protocol_refused(bootstrap, cell.client or cell.broker)
    else:
        cross, _, _ = _streams_group_app(bootstrap, cell.client or cell.broker, opt_in=False)
        served = (f"a streams group on Kafka's sticky: 6 tasks active once, standbys apart, "
                  f"cross-rack actives {cross} (optimum 0)")
    beds.down()
    return (f"with the plug-in jar (group.consumer.assignors) and group.streams.assignors listing "
            f"the class: refused at start-up ('... runs Kafka {cell.broker}, which loads no custom "
            "streams-group assignors (KIP-1357 arrives in Kafka 4.4.0) ...'); without the jar: "
            "started, the unknown group.streams.assignors ignored without a log line; "
            f"streams.assignor.name=rackwise refused: '{said}'; {served}")


def _streams_protocol_refused(bootstrap: str, client: str) -> str:
    """4.1: streams groups are not enabled on a cluster formatted at 4.1, so a Kafka Streams
    client on group.protocol=streams stops with UnsupportedVersionException."""
    from tests.support.kafkautil import create_topic
    from tests.support.streamsapp import TaskAppInstance, wait_for

    admin = admin_of(bootstrap)
    name = f"t-compat-sg-{uuid.uuid4().hex[:6]}"
    create_topic(admin, f"{name}-in", STREAMS_PLACEMENT)
    create_topic(admin, f"{name}-out", partitions=3)
    inst = TaskAppInstance(bootstrap, f"{name}-app", RACKS[0], input=f"{name}-in", output=f"{name}-out",
                           assignor="default", kafka_version=client,
                           config={"group.protocol": "streams", "client.rack": RACKS[0]})
    try:
        wait_for(lambda: (inst.latest() or {}).get("state") == "ERROR", 120,
                 "the Streams client stopping in ERROR", interval=0.3)
        err = inst.stderr()
    finally:
        inst.close()
    said = "The cluster does not support the STREAMS group protocol"
    assert said in err, err[-3000:]
    return (f"a Kafka Streams {client} client on group.protocol=streams stops in state ERROR: "
            f"'UnsupportedVersionException: {said} ...' (streams groups are not enabled on a "
            "cluster formatted at 4.1)")


DROP_IN = "dev.rackwise.plugins.RackwiseUniformAssignor"
DROP_IN_ASSIGNORS = f"{DROP_IN},range,dev.rackwise.plugins.RackwiseGroupAssignor"


def _drop_in_cell(beds: Beds, cell: Cell) -> str:
    """Brokers of the cell's release with the drop-in instead of Kafka's uniform; members that
    name no assignor."""
    _, bootstrap = beds.up(cell.broker, assignors=DROP_IN_ASSIGNORS)
    groups: list[str] = []

    def start(g: str, t: str, rack: str) -> RdkafkaConsumer:
        groups.append(g)
        return RdkafkaConsumer(bootstrap, g, t, rack, assignor=None)
    reason = _consumer_cell(bootstrap, start)
    admin = admin_of(bootstrap)
    desc = admin.describe_consumer_groups([groups[0]], request_timeout=10)[groups[0]].result(15)
    assert desc.partition_assignor == "uniform", desc.partition_assignor
    return (f"group.consumer.assignors={DROP_IN},range,...: accepted; members naming no assignor: "
            f"{reason}; the coordinator names its assignor '{desc.partition_assignor}'")


def _drop_in_beside_kafkas_cell(beds: Beds, cell: Cell) -> str:
    beds.down()
    with pytest.raises(TestbedError) as e:
        beds.up(cell.broker, assignors=f"uniform,range,{DROP_IN}")
    beds.down()
    text = str(e.value)
    assert "List the drop-in instead of it" in text, text[-2000:]
    return ("group.consumer.assignors=uniform,range,RackwiseUniformAssignor refused at start-up: "
            "'... answers to the name 'uniform', and this list also names Kafka's built-in 'uniform'. "
            "List the drop-in instead of it ...'")


CELLS = cells()


@pytest.mark.parametrize("cell", [
    pytest.param(c, id=c.id, marks=[pytest.mark.compat_smoke] if c.smoke else []) for c in CELLS])
def test_cell(beds: Beds, cell: Cell, record_property: Callable[[str, object], None]) -> None:
    started = time.monotonic()
    if cell.kind == "refused":
        reason = _refused_cell(beds, cell)
    elif cell.kind == "uniform-drop-in":
        reason = _drop_in_cell(beds, cell)
    elif cell.kind == "uniform-drop-in-beside-kafkas":
        reason = _drop_in_beside_kafkas_cell(beds, cell)
    elif cell.kind == "streams-group-unserved":
        reason = _streams_group_old_cell(beds, cell)
    elif cell.kind == "streams-group-doctor":
        reason = _streams_group_doctor_cell(beds, cell)
    else:
        bed, bootstrap = beds.up(cell.broker)
        if cell.kind == "audit":
            reason = audit_cell(bootstrap)
        elif cell.kind == "agent":
            reason = agent_cell(bootstrap)
        elif cell.kind == "follower-rdkafka":
            reason = follower_cell(bootstrap, cell.client)
        elif cell.kind == "streams":
            reason = _streams_cell(bootstrap, cell.client)
        elif cell.kind == "streams-group":
            reason = _streams_group_cell(bed, bootstrap, cell.client)
        else:
            hellos: list[dict[str, Any]] = []
            reason = _consumer_cell(bootstrap, _start(cell, bootstrap, hellos))
            if cell.kind == "kip848-rdkafka":
                import confluent_kafka

                # (confluent_kafka.version() is a str in 2.12-2.16: its [0] was only "2")
                reason += "; " + versions(hellos[0] if hellos else {
                    "confluent_kafka": installed_version(),
                    "librdkafka": confluent_kafka.libversion()[0]})
    reason += f" ({time.monotonic() - started:.0f}s)"
    print(f"{cell.id}: {reason}")
    record_property("compat_reason", reason)
