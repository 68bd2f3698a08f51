"""The drop-in for Kafka's ``uniform`` on real brokers: groups that name no assignor
are rack-optimal, with no client change.

A private testbed (its own directory beside the session's and its own ports,
RACKWISE_TESTBED_PORT_BASE + 1300, or RACKWISE_UNIFORM_TEST_PORT_BASE) whose brokers run
``group.consumer.assignors=dev.rackwise.plugins.RackwiseUniformAssignor,range,
dev.rackwise.plugins.RackwiseGroupAssignor``: the drop-in first, so it is the default, and
Kafka's own ``uniform`` not listed. The session testbed is not touched. No agent runs.

For each group (three members, one per rack az1..az3): confluent-kafka consumers and Java
KIP-848 consumers, neither setting ``group.remote.assignor``, and confluent-kafka consumers
naming ``uniform``:
1. the group settles: the coordinator describes three members, each holding its target and
   some partitions, the targets covering every partition once, and the clients agree (a
   confluent-kafka member also fetching exactly those: librdkafka's ``fetch_state``);
2. its cross-rack partitions are the fewest the balance allows, computed twice without the
   jar: a matching of partitions to the members' equal slots in their own rack, and the Python
   reference (``assignor.optimal.lower_bound``);
3. the coordinator names the group's assignor ``uniform``, and the drop-in counted the
   assignments (its MBean through the brokers' JMX exporter, when the testbed runs one); it
   read the topic's replica racks through Kafka's describer, and its second call took them from
   those kept (the broker's metadata image changes, the topic's replicas do not), with no log
   line saying the image could not be reached;
4. the wire agrees: after every record is received, the bytes each client fetched from a
   broker outside its rack (its own statistics: librdkafka's ``broker``/``rxbytes``, the Java
   client's fetch figures) are exactly the bytes of the partitions the assignment calls
   cross-rack, and every partition it calls local was fetched in the member's own rack.

The topic: 12 single-replica partitions, 6 in az1 and 3 each in az2 and az3. Four partitions a
member, so the az1 member reads four of az1's six and two must cross: the optimum is 2, where
Kafka's rack-blind ``uniform`` averages 8.
"""

from __future__ import annotations

import os
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient

from agent.brokers.placement import describe
from agent.dev import paths
from agent.dev.brokerassignors import GROUP_ASSIGNOR, UNIFORM_DROP_IN
from agent.dev.testbed import HOST, Testbed
from assignor.cluster import TopicPartition
from assignor.model import Group, Member
from assignor.optimal import lower_bound
from assignor.summary import member_plans, summarize
from protocol.plan import AssignmentPlan
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import (
    JavaConsumer,
    RdkafkaConsumer,
    ensure_plugin_jar,
    wait_until,
    wire_figures,
)

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(600)]

ASSIGNORS = f"{UNIFORM_DROP_IN},range,{GROUP_ASSIGNOR}"
RACKS = ("az1", "az2", "az3")
PLACEMENT = [[1], [2], [1], [3], [1], [2], [1], [3], [1], [2], [1], [3]]
VALUE = b"v" * 200
RECORDS = 600


@pytest.fixture(scope="module")
def drop_in_bed() -> Iterator[Testbed]:
    ensure_plugin_jar()
    base = int(os.environ.get("RACKWISE_UNIFORM_TEST_PORT_BASE")
               or int(os.environ.get("RACKWISE_TESTBED_PORT_BASE", "19092")) + 1300)
    home = str(paths.testbed_dir())
    bed = Testbed(base_dir=Path(f"{home.rstrip('/')}-uniform"), port_base=base, heap_mb=384,
                  plugins=True, overrides={n: {"group.consumer.assignors": ASSIGNORS} for n in (1, 2, 3)},
                  log=lambda m: print(f"drop-in testbed: {m}"))
    bed.up()
    try:
        yield bed
    finally:
        bed.down()


def _max_local(partitions: list[set[str]], racks: list[str]) -> int:
    """Most partitions read in their member's rack when every member takes the same count:
    a maximum matching of partitions to member slots (augmenting paths), no rackwise code."""
    assert len(partitions) % len(racks) == 0
    slots = [m for m in range(len(racks)) for _ in range(len(partitions) // len(racks))]
    owner: dict[int, int] = {}  # slot -> partition

    def augment(p: int, seen: set[int]) -> bool:
        for s, m in enumerate(slots):
            if racks[m] in partitions[p] and s not in seen:
                seen.add(s)
                if s not in owner or augment(owner[s], seen):
                    owner[s] = p
                    return True
        return False
    return sum(augment(p, set()) for p in range(len(partitions)))


def _settled(admin: AdminClient, group: str, clients: list[Any]) -> dict[str, frozenset[Any]] | None:
    """The group's assignment once it is settled (module docstring, step 1), else None."""
    try:
        desc = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
    except KafkaException:  # the coordinator loading its shard, or moving: ask again
        return None
    if len(desc.members) != len(clients):
        return None
    held: dict[str, frozenset[Any]] = {}
    for m in desc.members:
        now = frozenset((tp.topic, tp.partition) for tp in m.assignment.topic_partitions)
        target = m.target_assignment
        want = frozenset((tp.topic, tp.partition) for tp in target.topic_partitions) if target else None
        if not now or now != want:
            return None
        held[m.member_id] = now
    covered = frozenset().union(*held.values())
    if sum(len(a) for a in held.values()) != len(PLACEMENT) or len(covered) != len(PLACEMENT):
        return None
    mine = {c.member_id: frozenset(c.assignment() or ()) for c in clients}
    if mine != held:
        return None
    # librdkafka may still fetch a partition it gave up (then it reads records twice): wait
    # until each confluent-kafka member fetches exactly what it holds
    if any(isinstance(c, RdkafkaConsumer) and c.fetching() != mine[c.member_id] for c in clients):
        return None
    return held


def _plan(admin: AdminClient, group: str, topic: str, clients: list[Any]) -> tuple[AssignmentPlan, float]:
    view = describe(admin, [topic], read_selectors=True).view
    actual = {c.member_id: [TopicPartition(t, p) for t, p in sorted(c.assignment() or ())] for c in clients}
    racks = {c.member_id: c.rack for c in clients}
    members = tuple(Member.of(c.member_id, rack=c.rack, topics=[topic]) for c in clients)
    best = lower_bound(Group(group, members, view))
    plan = AssignmentPlan(group_id=group, kind="consumer", generation=0, reason="observed",
                          assignor="uniform", members=member_plans(view, actual, racks, {}),
                          summary=summarize(view, actual, racks, lower_bound=best))
    return plan, best


def _drop_in_counts(bed: Testbed) -> dict[str, int] | None:
    """The drop-in's counters over every broker (the rackwise_plugin_* series for plugin
    RackwiseUniformAssignor, by name), or None when the testbed runs no JMX exporter."""
    totals: dict[str, int] = {}
    for node in bed.nodes:
        port = bed.jmx_exporter_port(node)
        if port is None:
            return None
        text = urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10).read().decode()
        for line in text.splitlines():
            if line.startswith("rackwise_plugin_") and 'plugin="RackwiseUniformAssignor"' in line:
                name = line.split("{", 1)[0]
                totals[name] = totals.get(name, 0) + int(float(line.rsplit(" ", 1)[1]))
    return totals


def _drop_in_assignments(bed: Testbed) -> int | None:
    """The drop-in's assignments over every broker, or None without a JMX exporter."""
    counts = _drop_in_counts(bed)
    return None if counts is None else counts.get("rackwise_plugin_assignments_total", 0)


def _broker_log_lines(bed: Testbed, needle: str) -> list[str]:
    return [line for log in (bed.dir / "logs").glob("n*/*.log")
            for line in log.read_text(errors="replace").splitlines() if needle in line]


KINDS: dict[str, Callable[[str, str, str, str], Any]] = {
    "confluent-kafka, no assignor named": lambda b, g, t, rack: RdkafkaConsumer(b, g, t, rack, assignor=None),
    "Java KIP-848, no assignor named": lambda b, g, t, rack: JavaConsumer(
        b, g, t, rack, protocol="consumer", assignor=None, name=f"java848-default-{rack}"),
    "confluent-kafka, naming uniform": lambda b, g, t, rack: RdkafkaConsumer(b, g, t, rack,
                                                                             assignor="uniform"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_group_naming_no_assignor_is_rack_optimal(drop_in_bed: Testbed, kind: str) -> None:
    bootstrap = drop_in_bed.bootstrap
    admin = AdminClient({"bootstrap.servers": bootstrap})
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-dropin-{tag}", f"g-dropin-{tag}"
    create_topic(admin, topic, PLACEMENT)
    counted_before = _drop_in_assignments(drop_in_bed)
    counts_before = _drop_in_counts(drop_in_bed)
    clients = [KINDS[kind](bootstrap, group, topic, rack) for rack in RACKS]
    try:
        wait_until(lambda: _settled(admin, group, clients), 180,
                   f"{kind}: the group settles with three members each holding its target")
        broker_racks = rack_of_brokers(admin)
        optimum = len(PLACEMENT) - _max_local([{broker_racks[b] for b in r} for r in PLACEMENT], list(RACKS))
        plan, reference = _plan(admin, group, topic, clients)
        assert optimum == reference == 2.0, (optimum, reference)
        assert plan.summary.cross_rack_partitions == optimum, plan.model_dump_json()
        desc = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
        assert desc.partition_assignor == "uniform", desc.partition_assignor
        counted = _drop_in_assignments(drop_in_bed)
        if counted is not None and counted_before is not None:
            assert counted > counted_before, (counted_before, counted)
        # Replica racks: read through Kafka's own describer, and kept across calls only by the
        # metadata image's own objects (TopicRacks.Cache); reaching them must work on a real broker.
        assert not _broker_log_lines(drop_in_bed, "its metadata image cannot be reached")
        counts = _drop_in_counts(drop_in_bed)
        racks_read = racks_kept = None
        if counts is not None and counts_before is not None:
            racks_read = (counts.get("rackwise_plugin_rack_topics_read_total", 0)
                          - counts_before.get("rackwise_plugin_rack_topics_read_total", 0))
            racks_kept = (counts.get("rackwise_plugin_rack_topics_kept_total", 0)
                          - counts_before.get("rackwise_plugin_rack_topics_kept_total", 0))
            assert racks_read >= 1, counts
            # the group's second call (its second member) finds the topic's racks kept: its
            # replicas have not moved, though the brokers' metadata image has changed since
            assert racks_kept >= 1, (counts_before, counts)

        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        for i in range(RECORDS):
            producer.produce(topic, value=VALUE, partition=i % len(PLACEMENT))
        assert producer.flush(30) == 0
        wait_until(lambda: sum(c.records() for c in clients) >= RECORDS, 120,
                   f"{kind}: the clients' own figures count all {RECORDS} records")
        figures = wire_figures(plan, [c.view() for c in clients], broker_racks)
        for line in figures.lines:
            print(f"  {kind}: {line}")
        for c in clients:
            view = c.view()
            cross = sum(f.bytes for f in view.fetches.values()
                        if f.fetched_from is not None and broker_racks.get(f.fetched_from) != c.rack)
            print(f"  {kind}: member in {c.rack}: {len(view.assignment)} partitions, {view.bytes} bytes "
                  f"received, {view.bytes - cross} from its own rack, {cross} across racks")
        print(f"{kind}: {plan.summary.cross_rack_partitions} of {len(PLACEMENT)} partitions cross-rack "
              f"(optimum {optimum}); cross-rack bytes {figures.measured_cross_bytes} on the wire, "
              f"{figures.planned_cross_bytes} by the assignment, of {figures.total_bytes}; drop-in "
              f"assignments {counted_before} -> {counted}; topics' racks read {racks_read}, "
              f"kept {racks_kept}")
        assert not figures.local_fetched_elsewhere, figures.local_fetched_elsewhere
        assert not figures.stray, figures.stray
        assert figures.measured_cross_bytes == figures.planned_cross_bytes > 0
        assert figures.total_bytes == RECORDS * len(VALUE)
    finally:
        for c in clients:
            c.stop()
