"""Kafka's plug-ins decide in-process, on the real testbed, with no agent anywhere.

Real brokers (they load ``RackwiseGroupAssignor``, agent/dev/testbed.py) and real clients:
confluent-kafka and Java consumers on the KIP-848 protocol (``group.remote.assignor=rackwise``)
and Java consumers on the classic protocol (``RackwiseAssignor``). No agent process runs, so
nothing but the plug-in can make the assignment rack-optimal.

For every group: the assignment the clients run is the optimum of the Python reference
(assignor.optimal, the same problem: docs/rack-optimal.md), the brokers never fell back, and
the wire agrees: each partition the assignment calls local is fetched from a broker in the
member's rack (the clients' own figures), and the cross-rack bytes measured there are exactly
those of the partitions it calls cross-rack.

A neighbour group on the same coordinator shard (a ``uniform`` group committing synchronously)
keeps its commits fast while a rackwise group churns: assign() holds the shard only for its
own computation, never for a network round trip.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.brokers.placement import describe
from assignor.cluster import TopicPartition
from assignor.model import Group, Member
from assignor.optimal import lower_bound
from assignor.summary import member_plans, summarize
from protocol.plan import AssignmentPlan
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import (
    JavaConsumer,
    RdkafkaConsumer,
    brokers_load_plugin,
    wait_until,
    wire_figures,
)

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(300)]

# Replicas in az1 and az2 only (brokers 1 and 2): the az3 member reads its share across racks,
# so the optimum for members in az1..az3 is 2 of 6 partitions cross-rack.
PLACEMENT = [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1]]
RACKS = ("az1", "az2", "az3")
VALUE = b"v" * 200
RECORDS = 300


@pytest.fixture(scope="module")
def plugin_brokers(admin: Any) -> None:
    if not brokers_load_plugin(admin):
        pytest.skip("the brokers do not load rackwise's KIP-848 assignor: build the jar "
                    "(make plugins) before the testbed starts")


def _stable(clients: list[Any], partitions: int, hold_s: float = 3.0) -> dict[str, frozenset[Any]]:
    """The clients' assignments, by rack (a second client in a rack as "az1#2"), once they
    cover every partition and hold still for hold_s."""
    def label(i: int) -> str:
        same = [c for c in clients[:i] if c.rack == clients[i].rack]
        return clients[i].rack if not same else f"{clients[i].rack}#{len(same) + 1}"

    def snapshot() -> tuple[tuple[str, frozenset[Any]], ...] | None:
        views = tuple((label(i), frozenset(c.assignment() or ())) for i, c in enumerate(clients))
        if sum(len(a) for _, a in views) != partitions:
            return None
        return views

    first = wait_until(snapshot, 120, "every partition is assigned")
    while True:
        time.sleep(hold_s)
        now = snapshot()
        if now == first:
            return dict(first)
        first = wait_until(snapshot, 120, "every partition is assigned")


def _observed_plan(admin: Any, group: str, topic: str, clients: list[Any]) -> tuple[AssignmentPlan, float]:
    """The assignment the clients run as a plan (cross-rack by the spec's rules), and the
    Python reference's optimum for the same members."""
    view = describe(admin, [topic], read_selectors=True).view
    actual = {c.member_id: [TopicPartition(t, p) for t, p in sorted(c.assignment() or ())]
              for c in clients}
    racks = {c.member_id: c.rack for c in clients}
    members = tuple(Member.of(c.member_id, rack=c.rack, topics=[topic]) for c in clients)
    best = lower_bound(Group(group, members, view))
    plan = AssignmentPlan(
        group_id=group, kind="consumer", generation=0, reason="observed", assignor="rackwise",
        members=member_plans(view, actual, racks, {}),
        summary=summarize(view, actual, racks, lower_bound=best),
    )
    return plan, best


def _produce(bootstrap: str, topic: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(RECORDS):
        producer.produce(topic, value=VALUE, partition=i % len(PLACEMENT))
    assert producer.flush(30) == 0


def _check(bootstrap: str, admin: Any, group: str, topic: str, clients: list[Any], label: str) -> None:
    _stable(clients, len(PLACEMENT))
    plan, best = _observed_plan(admin, group, topic, clients)
    assert best == 2.0  # the az3 member's two: the reference agrees with the placement
    assert plan.summary.cross_rack_partitions == 2, plan.model_dump_json()
    _produce(bootstrap, topic)
    wait_until(lambda: sum(c.records() for c in clients) >= RECORDS, 90,
               f"{label}: the clients receive all {RECORDS} records")
    time.sleep(1.2)  # two more statistics rounds (every 500 ms)
    figures = wire_figures(plan, [c.view() for c in clients], rack_of_brokers(admin))
    for line in figures.lines:
        print(f"  {label}: {line}")
    print(f"{label}: no agent; {figures.cross_rack_partitions} of {figures.partitions} partitions "
          f"cross-rack (optimum {best:.0f}); cross-rack bytes {figures.measured_cross_bytes} "
          f"measured on the wire, {figures.planned_cross_bytes} by the assignment, of "
          f"{figures.total_bytes} received")
    assert not figures.local_fetched_elsewhere, figures.local_fetched_elsewhere
    assert figures.measured_cross_bytes == figures.planned_cross_bytes > 0


def _form(start: Callable[[str], Any]) -> list[Any]:
    clients: list[Any] = []
    for rack in RACKS:
        clients.append(start(rack))
        last = clients[-1]
        wait_until(lambda c=last: c.member_id and c.assignment(), 120,
                   f"the {rack} member joins and owns partitions")
    return clients


def _broker_fallbacks() -> list[str]:
    from agent.dev.testbed import Testbed

    out = []
    for log in sorted((Testbed().dir / "logs").glob("n*/server.log")):
        out += [line for line in log.read_text(errors="replace").splitlines()
                if "rackwise: group" in line and "falls back" in line]
    return out


KINDS: dict[str, Callable[[str, str, str, str], Any]] = {
    "KIP-848 confluent-kafka": lambda b, g, t, rack: RdkafkaConsumer(b, g, t, rack),
    "KIP-848 Java": lambda b, g, t, rack: JavaConsumer(b, g, t, rack, protocol="consumer",
                                                      assignor="rackwise", name=f"java848-{rack}"),
    "classic Java": lambda b, g, t, rack: JavaConsumer(b, g, t, rack, protocol="classic",
                                                      name=f"classic-{rack}"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_group_is_rack_optimal_without_an_agent(
        bootstrap: str, admin: Any, plugin_brokers: None, kind: str) -> None:
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-inproc-{tag}", f"g-inproc-{tag}"
    create_topic(admin, topic, PLACEMENT)
    before = len(_broker_fallbacks())
    clients = _form(lambda rack: KINDS[kind](bootstrap, group, topic, rack))
    try:
        _check(bootstrap, admin, group, topic, clients, kind)
        if kind == "classic Java":  # the leader's plug-in logs in the client
            logs = "\n".join(c.log() for c in clients)
            assert "falls back" not in logs, logs[-3000:]
    finally:
        for c in clients:
            c.stop()
    assert _broker_fallbacks()[before:] == []


def _coordinator_partition(group: str, partitions: int) -> int:
    """The __consumer_offsets partition of a group: Utils.abs(groupId.hashCode()) % partitions."""
    h = 0
    for ch in group:  # String.hashCode over UTF-16 units; names here are ASCII
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def _offsets_partitions(admin: Any) -> int:
    """How many __consumer_offsets partitions (coordinator shards) the brokers make: the
    topic itself may not exist yet on a fresh cluster."""
    from confluent_kafka.admin import ConfigResource, ResourceType

    broker = min(admin.describe_cluster(request_timeout=15).result(30).nodes, key=lambda n: n.id)
    res = ConfigResource(ResourceType.BROKER, str(broker.id))
    configs = admin.describe_configs([res], request_timeout=15)[res].result(30)
    return int(configs["offsets.topic.num.partitions"].value)


def _churn_phase(bootstrap: str, group: str, topic: str, assignor: str,
                 latencies: list[float]) -> list[float]:
    """Members of ``group`` come and go (every change recomputes its target on the shard);
    the neighbour's commit latencies meanwhile."""
    before = len(latencies)
    members: list[RdkafkaConsumer] = []
    try:
        for round_ in range(12):
            members.append(RdkafkaConsumer(bootstrap, group, topic, RACKS[round_ % 3],
                                           assignor=assignor))
            time.sleep(1.0)
            if len(members) > 4:
                members.pop(0).stop()
                time.sleep(0.5)
        time.sleep(2)
    finally:
        for m in members:
            m.stop()
    return latencies[before:]


def _summary(xs: list[float]) -> str:
    p99 = statistics.quantiles(xs, n=100)[98]
    return (f"{len(xs)} commits, p50 {statistics.median(xs):.1f} ms, p99 {p99:.1f} ms, "
            f"max {max(xs):.1f} ms")


def test_a_neighbour_on_the_same_coordinator_commits_fast_while_a_rackwise_group_churns(
        bootstrap: str, admin: Any, plugin_brokers: None) -> None:
    """The same churn twice on one shard, first by a ``uniform`` group (the control: what this
    machine and Kafka cost anyway), then by a ``rackwise`` group."""
    tag = uuid.uuid4().hex[:6]
    offsets = _offsets_partitions(admin)

    def on_shard(prefix: str, shard: int) -> str:
        return next(f"{prefix}-{i}" for i in range(10_000)
                    if _coordinator_partition(f"{prefix}-{i}", offsets) == shard)

    churn = f"g-churn-{tag}"
    shard = _coordinator_partition(churn, offsets)
    control = on_shard(f"g-control-{tag}", shard)
    neighbour = on_shard(f"g-neighbour-{tag}", shard)
    topic, ntopic = f"t-churn-{tag}", f"t-neighbour-{tag}"
    create_topic(admin, topic, [[1, 2], [2, 3], [3, 1]] * 8)
    create_topic(admin, ntopic, partitions=1)
    latencies: list[float] = []
    stop = threading.Event()

    def commit_loop() -> None:
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": neighbour,
                      "group.protocol": "consumer", "group.remote.assignor": "uniform",
                      "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        c.subscribe([ntopic])
        try:
            wait_until(lambda: c.consume(1, 0.2) is not None and c.assignment(), 60,
                       "the neighbour is assigned")
            offset = 0
            while not stop.is_set():
                offset += 1
                t0 = time.perf_counter()
                c.commit(offsets=[KTopicPartition(ntopic, 0, offset)], asynchronous=False)
                latencies.append((time.perf_counter() - t0) * 1000)
                c.consume(1, 0.02)
        finally:
            c.close()

    neighbour_thread = threading.Thread(target=commit_loop, daemon=True)
    neighbour_thread.start()
    try:
        wait_until(lambda: len(latencies) > 20, 60, "the neighbour commits")
        with_uniform = _churn_phase(bootstrap, control, topic, "uniform", latencies)
        with_rackwise = _churn_phase(bootstrap, churn, topic, "rackwise", latencies)
    finally:
        stop.set()
        neighbour_thread.join(30)
    print(f"neighbour commits while a uniform group churned (control): {_summary(with_uniform)}")
    print(f"neighbour commits while a rackwise group churned: {_summary(with_rackwise)}")
    assert len(with_rackwise) > 50 and len(with_uniform) > 50
    assert statistics.quantiles(with_rackwise, n=100)[98] < 100, sorted(with_rackwise)[-10:]
    # Under 100 ms at most, unless the control itself was slower than that on this machine:
    # then no slower than twice the control's worst.
    assert max(with_rackwise) < max(100.0, 2 * max(with_uniform)), sorted(with_rackwise)[-10:]


# ---- with the agent advising -------------------------------------------------------------------

def _latest_plans(bootstrap: str, group: str, since_ms: int) -> list[AssignmentPlan]:
    """The plug-ins' plans for ``group`` on rackwise.plans (reason assigned), newest last."""
    from agent.dev.tail import TopicTail

    tail = TopicTail(bootstrap, "rackwise.plans")
    try:
        tail.poll(3.0)
        out = []
        for msg in tail.records:
            if (msg.key() or b"").decode() != group or msg.value() is None:
                continue
            plan = AssignmentPlan.from_json(msg.value())
            if plan.created_at.timestamp() * 1000 >= since_ms:
                out.append(plan)
        return sorted(out, key=lambda p: p.generation)
    finally:
        tail.consumer.close()


def test_a_partition_made_hot_is_placed_local_at_the_next_epoch_bump(
        bootstrap: str, admin: Any, plugin_brokers: None) -> None:
    """KIP-848, confluent-kafka members in az1..az3: the az3 member must read two partitions
    across racks. One of them turns 50x hotter; the agent measures it and advises; when a
    member joins (an epoch bump) the broker's plug-in moves the hot one to a local member."""
    from tests.support.agent import AgentThread, isolated_settings
    from tests.support.trafficclients import SteadyProducer

    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-inproc-hot-{tag}", f"g-inproc-hot-{tag}"
    create_topic(admin, topic, PLACEMENT)
    settings = isolated_settings(bootstrap, f"t-hot-{tag}", topics={
        "advice": "rackwise.advice", "plans": "rackwise.plans", "partitions": 6},
        advice={"topics": [topic], "interval_s": 0})
    start_ms = int(time.time() * 1000)
    clients: list[Any] = []
    # The agent first: it creates rackwise.advice, so the brokers' advice readers (started on
    # their first assign()) find it at once instead of backing off.
    with AgentThread(settings) as agent:
        agent.wait_ready()
        clients += _form(lambda rack: RdkafkaConsumer(bootstrap, group, topic, rack))
        first = _stable(clients, len(PLACEMENT))
        hot = min(p for _, p in first["az3"])  # one of the two the az3 member reads across racks
        rates = {p: (50.0 if p == hot else 1.0) for p in range(len(PLACEMENT))}
        producer = SteadyProducer(bootstrap, topic, rates, size=1000)
        producer.__enter__()
        try:
            from protocol.advice import TopicAdvice, decode

            def hot_advised() -> bool:
                from agent.dev.tail import TopicTail

                tail = TopicTail(bootstrap, "rackwise.advice")
                try:
                    tail.poll(2.0)
                    got = [decode(m.key().decode(), m.value()) for m in tail.records
                           if m.key() == f"topic/{topic}".encode() and m.value()]
                finally:
                    tail.consumer.close()
                latest = got[-1] if got else None
                return (isinstance(latest, TopicAdvice)
                        and (latest.partitions[hot].bytes_per_s or 0)
                        > 10 * max(p.bytes_per_s or 0 for p in latest.partitions if p.partition != hot))

            wait_until(hot_advised, 120, f"the agent advises partition {hot} as hot", step=2.0)
            time.sleep(3)  # the brokers' advice readers poll every second
            joiner = RdkafkaConsumer(bootstrap, group, topic, "az1")
            clients.append(joiner)
            # 6 partitions over 4 members: the joiner owns some once the group has reconciled
            # (members learn the new target at their next heartbeat, up to 5 s after it)
            wait_until(lambda: joiner.assignment(), 120, "the joining member owns partitions")
            after = _stable(clients, len(PLACEMENT))
            print(f"hot partition {topic}-{hot}: az3 read {sorted(p for _, p in first['az3'])} "
                  f"before the advice, {sorted(p for _, p in after['az3'])} after a member joined")
            assert (topic, hot) not in after["az3"], after
            plans = _latest_plans(bootstrap, group, start_ms)
            assert plans, "the brokers' plug-in published no plan for the group"
            last = plans[-1]
            assert last.reason == "assigned" and last.summary.bytes_per_s, last.model_dump_json()
            local = {(p.topic, p.partition) for m in last.members for p in m.partitions
                     if not p.cross_rack and m.rack}
            assert (topic, hot) in local
        finally:
            producer.__exit__(None, None, None)
            for c in clients:
                c.stop()


def test_garbage_on_the_advice_topic_changes_nothing_and_is_counted(
        bootstrap: str, admin: Any, plugin_brokers: None) -> None:
    """Malformed and unknown-version records on rackwise.advice: the plug-ins log and count
    them, and a group's assignment stays the optimum. (An oversized record cannot pass this
    testbed's brokers; the reader's size limit is unit-tested: AdviceReaderTest.)"""
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-inproc-garbage-{tag}", f"g-inproc-garbage-{tag}"
    create_topic(admin, topic, PLACEMENT)
    names = admin.list_topics(timeout=10).topics
    if "rackwise.advice" not in names:
        create_topic(admin, "rackwise.advice", partitions=1)
    # the brokers' advice readers are running: they may log the garbage within milliseconds
    # of the flush, so the lines already there are read before it is written
    before = "\n".join(_broker_lines("advice"))
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce("rackwise.advice", key=f"topic/{topic}".encode(), value=b"{not json")
    producer.produce("rackwise.advice", key=f"topic/{topic}".encode(),
                     value=b'{"schema_version": 99, "kind": "topic"}')
    assert producer.flush(30) == 0
    clients = _form(lambda rack: RdkafkaConsumer(bootstrap, group, topic, rack))
    try:
        _check(bootstrap, admin, group, topic, clients, "garbage advice")
    finally:
        for c in clients:
            c.stop()
    counted = [line for line in _broker_lines("advice") if line not in before
               and ("malformed so far" in line or "so far" in line)]
    print("broker lines:", *counted[:6], sep="\n  ")
    assert any("malformed" in line for line in counted), counted


def _broker_lines(word: str) -> list[str]:
    from agent.dev.testbed import Testbed

    out = []
    for log in sorted((Testbed().dir / "logs").glob("n*/server.log")):
        out += [line for line in log.read_text(errors="replace").splitlines()
                if "rackwise" in line.lower() and word in line]
    return out
