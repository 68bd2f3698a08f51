"""Truthful cost on the testbed: bytes, money, rack-unknown members, Kafka 4.x groups.

Every figure is checked against the clients' own counts: librdkafka statistics give each
consumer's bytes per partition and the broker it fetches from (tests/trafficclients.py), the
racks of those brokers come from ``describe_cluster``; KIP-848 and streams members report
what they own. The testbed's brokers set RackAwareReplicaSelector (agent/testbed.py), so
members with client.rack read from a replica in their rack when there is one.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from confluent_kafka import Consumer

from agent.audit import OK, RACK_UNKNOWN, run_audit
from agent.brokers.traffic import TrafficSettings
from agent.config.cost import CostSettings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.liveclients import StreamsApps, make_topic, own_cross_rack, replica_racks
from tests.support.trafficclients import CountingConsumers, Rates, SteadyProducer

pytestmark = pytest.mark.integration
RACKS = ["az1", "az2", "az3"]
TOLERANCE = 0.15  # bytes on disk carry batch headers, the clients count payload only


def _audit(admin: Any, bootstrap: str, group: str, window: float = 4.0,
           cost: CostSettings | None = None) -> Any:
    audits = run_audit(admin, group, client_config={"bootstrap.servers": bootstrap},
                       traffic=TrafficSettings(window_s=window), cost=cost)
    return next(a for a in audits if a.group == group)


def _together(clients: Callable[[], Rates], audit: Callable[[], Any]) -> tuple[Rates, Any]:
    """The clients' own count over a window that covers the audit's sampling window."""
    with ThreadPoolExecutor(1) as pool:
        counted = pool.submit(clients)
        measured = audit()
        return counted.result(), measured


def _wait(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what} not reached in {timeout:.0f}s")


def test_hot_partition_is_planned_local_and_cross_rack_bytes_fall(
        bootstrap: str, admin: Any, unique_name: str) -> None:
    """p0 carries 50x the bytes of each other partition. The group (roundrobin, static
    members sorted so) reads p0 in az2 from its leader in az1; every other partition has a
    replica in its reader's rack. The best plan reads p0 locally: what crosses racks drops
    from ~p0's bytes to ~0, by the audit and by the consumers that then follow the plan."""
    topic = unique_name
    # replicas (brokers 1/2/3 = az1/az2/az3): p0 has none in az2
    create_topic(admin, topic, [[1, 3], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]])
    brokers = rack_of_brokers(admin)
    members = [("a", "az2"), ("b", "az3"), ("c", "az1")]
    rates = {0: 100.0, **{p: 2.0 for p in range(1, 6)}}  # records/s of 1,000 bytes
    with SteadyProducer(bootstrap, topic, rates) as producer:
        group = CountingConsumers(
            bootstrap, unique_name, [topic], [r for _, r in members], brokers,
            extra=[{"group.instance.id": f"{m}-{unique_name}", "session.timeout.ms": 10000,
                    "partition.assignment.strategy": "roundrobin"} for m, _ in members])
        try:
            _wait(lambda: group.owned() == [[0, 3], [1, 4], [2, 5]], 60, "roundrobin assignment")
            time.sleep(3)  # KIP-392: followers take over after the first fetches
            # Long windows: on a loaded machine the producer catches up in bursts.
            clients, audit = _together(lambda: group.rates(12.0),
                                       lambda: _audit(admin, bootstrap, unique_name, window=6.0))
        finally:
            group.close()
        assert audit.status == OK and audit.read_model == "nearest-replica"
        actual, best = audit.actual, audit.best
        print(f"clients: total {clients.total:.0f} B/s, cross {clients.cross_rack:.0f} B/s; "
              f"audit: total {actual.summary.bytes_per_s:.0f}, cross "
              f"{audit.cross_rack_bytes_actual:.0f}, best {audit.cross_rack_bytes_best:.0f}")
        assert actual.summary.bytes_per_s == pytest.approx(clients.total, rel=TOLERANCE)
        assert audit.cross_rack_bytes_actual == pytest.approx(clients.cross_rack, rel=TOLERANCE)
        hot = {m.rack: [p.partition for p in m.partitions] for m in best.members}
        assert 0 in hot["az1"] or 0 in hot["az3"], f"hot partition not local: {hot}"
        assert audit.cross_rack_bytes_best < 0.05 * audit.cross_rack_bytes_actual
        assert audit.money()["actual"] > audit.money()["best"]
        weights = {p.partition: p.weight for m in actual.members for p in m.partitions}
        assert weights[0] > 20 * max(w for p, w in weights.items() if p)  # the hot one weighs more

        # follow the best plan: the same racks, each reading what the plan gives it
        plan = [(m.rack, [(p.topic, p.partition) for p in m.partitions]) for m in best.members]
        following = CountingConsumers(bootstrap, None, [topic], [r for r, _ in plan], brokers,
                                      assign=[tps for _, tps in plan])
        try:
            time.sleep(4)
            after = following.rates(5.0)
        finally:
            following.close()
        print(f"following the plan: total {after.total:.0f} B/s, cross {after.cross_rack:.0f}")
        assert after.total == pytest.approx(clients.total, rel=TOLERANCE)
        assert after.cross_rack == pytest.approx(audit.cross_rack_bytes_best,
                                                 abs=0.05 * clients.total)
        assert after.cross_rack < 0.1 * clients.cross_rack
        assert sum(producer.sent.values()) > 0


def test_rackless_group_costs_money_and_says_what_to_set(
        bootstrap: str, admin: Any, unique_name: str) -> None:
    """Three consumers without client.rack on a topic led from az1: they read from the
    leader (their own statistics say so); the audit reports rack-unknown, 2/3 of the bytes
    expected across racks and all of them at worst; a host map places them."""
    topic = unique_name
    create_topic(admin, topic, [[1], [1], [1]])
    brokers = rack_of_brokers(admin)
    with SteadyProducer(bootstrap, topic, {0: 20.0, 1: 20.0, 2: 20.0}):
        group = CountingConsumers(bootstrap, unique_name, [topic], [None, None, None], brokers,
                                  extra=[{"partition.assignment.strategy": "range",
                                          "session.timeout.ms": 10000}] * 3)
        try:
            _wait(lambda: sorted(map(len, group.owned())) == [1, 1, 1], 60, "3 members")
            time.sleep(2)
            clients, audit = _together(lambda: group.rates(10.0),
                                       lambda: _audit(admin, bootstrap, unique_name, window=6.0))
            placed = _audit(admin, bootstrap, unique_name, window=2.0,
                            cost=CostSettings(host_racks={"127.0.0.0/8": "az2"}))
        finally:
            group.close()
    assert set(clients.brokers.values()) == {1}, "rackless members read from the leader"
    total = audit.bytes_per_s
    print(f"clients {clients.total:.0f} B/s; audit {total:.0f} B/s, expected cross "
          f"{audit.cross_rack_bytes_actual:.0f}, worst {audit.cross_rack_bytes_worst:.0f}")
    assert audit.status == RACK_UNKNOWN and len(audit.rack_unknown_members) == 3
    assert "client.rack" in audit.advice and "--rack-map" in audit.advice
    assert audit.cross_rack_actual == 0 and audit.rack_unknown_partitions == 3
    assert total == pytest.approx(clients.total, rel=TOLERANCE)
    assert audit.cross_rack_bytes_actual == pytest.approx(total * 2 / 3, rel=0.01)
    assert audit.cross_rack_bytes_worst == pytest.approx(total, rel=0.01)
    assert audit.money()["actual"] > 0
    # hosts mapped to az2: every byte comes from az1, as the clients' own counts say
    assert placed.status == OK and len(placed.host_mapped_members) == 3
    assert placed.cross_rack_actual == 3
    assert placed.cross_rack_bytes_actual == pytest.approx(clients.total, rel=TOLERANCE)


def test_kip848_consumer_group_is_audited(bootstrap: str, admin: Any, unique_name: str) -> None:
    """librdkafka consumers on the KIP-848 protocol: racks come from ConsumerGroupDescribe."""
    topic = unique_name
    make_topic(admin, topic, [[1], [1], [2], [3], [1], [2]])
    consumers = [Consumer({"bootstrap.servers": bootstrap, "group.id": unique_name,
                           "group.protocol": "consumer", "client.rack": rack})
                 for rack in RACKS]
    for c in consumers:
        c.subscribe([topic])
    found: dict[str, Any] = {}
    try:
        def settled() -> bool:
            for c in consumers:
                c.poll(0.1)
            if sorted(p.partition for c in consumers for p in c.assignment()) != list(range(6)):
                return False
            owned = {c.memberid(): (rack, sorted(p.partition for p in c.assignment()))
                     for c, rack in zip(consumers, RACKS, strict=True)}
            audit = _audit(admin, bootstrap, unique_name, window=0.0)
            found.update(owned=owned, audit=audit)
            # the coordinator reports Stable once every member has confirmed its assignment
            return audit.status == OK and audit.actual is not None and {
                m.member_id: (m.rack, [p.partition for p in m.partitions])
                for m in audit.actual.members} == owned

        _wait(settled, 90, "KIP-848 group stable and audited as its members see it")
    finally:
        for c in consumers:
            c.close()
    owned, audit = found["owned"], found["audit"]
    assert (audit.status, audit.kind, audit.group_type) == (OK, "consumer", "consumer")
    assert audit.members == 3 and audit.partitions == 6 and audit.protocol == "uniform"
    assert audit.cross_rack_actual == own_cross_rack(owned, replica_racks(admin, topic))
    assert audit.cross_rack_best is not None and audit.cross_rack_best <= audit.cross_rack_actual


def _streams_describe_v1(bootstrap: str) -> bool:
    from agent.brokers.rpc import WireClient, WireSettings
    from protocol import kafkarpc as rpc

    with WireClient(WireSettings.from_config({"bootstrap.servers": bootstrap})) as client:
        conn = client.any_connection()
        return conn.version_for(rpc.STREAMS_GROUP_DESCRIBE, "StreamsGroupDescribe") == 1


@pytest.mark.java
def test_streams_group_is_audited(bootstrap: str, admin: Any, unique_name: str) -> None:
    """The Kafka Streams app on the KIP-1071 streams protocol (on by default in Kafka 4.3.1,
    no unstable flag): StreamsGroupDescribe gives its topology, racks and tasks."""
    topic, output = unique_name, f"{unique_name}-out"
    make_topic(admin, topic, [[1], [1], [2], [3], [1], [2]])
    make_topic(admin, output, [[1, 2, 3]] * 3)
    apps = StreamsApps(bootstrap, unique_name, RACKS, topic, output, group_protocol="streams")
    try:
        settled = apps.settle(6, lambda: _audit(admin, bootstrap, unique_name, window=0.0))
        reports = dict(apps.latest)
    finally:
        apps.close()
    a = settled.audit
    assert (a.status, a.kind, a.group_type, a.members, a.partitions) == (
        OK, "streams", "streams", 3, 6)
    # StreamsGroupDescribe v1 (Kafka 4.4, KIP-1357) names the group's assignor: the brokers'
    # default, Kafka's sticky (the testbed lists sticky first); v0 (4.2/4.3) names none
    assert a.protocol == ("sticky" if _streams_describe_v1(bootstrap) else "streams"), a.protocol
    assert a.cross_rack_actual == own_cross_rack(settled.owned, replica_racks(admin, topic))
    assert {m.rack: sorted(m.active_tasks) for m in a.actual.members} == {
        rack: sorted(doc["active"]) for rack, doc in reports.items()}
    assert a.cross_rack_best is not None and a.cross_rack_best <= a.cross_rack_actual


def test_observe_mode_exports_bytes_and_dollars(
        bootstrap: str, admin: Any, unique_name: str) -> None:
    """Observe mode samples traffic once per round: the second round has bytes and $."""
    from agent.daemon.observe import Observer
    from agent.daemon.ops import Metrics
    from tests.support.agent import isolated_settings

    topic = unique_name
    create_topic(admin, topic, [[2], [2]])
    settings = isolated_settings(bootstrap, unique_name,
                                 observe={"groups": unique_name, "publish": False})
    metrics = Metrics()
    observer = Observer(settings, metrics, lambda _g: False, 1, admin)
    with SteadyProducer(bootstrap, topic, {0: 20.0, 1: 20.0}):
        group = CountingConsumers(bootstrap, unique_name, [topic], ["az1"], rack_of_brokers(admin))
        try:
            _wait(lambda: group.owned() == [[0, 1]], 60, "assignment")
            observer.round()
            time.sleep(3)
            (audit,) = [a for a in observer.round() if a.group == unique_name]
        finally:
            group.close()
    text = metrics.render().decode()
    labels = f'group="{re.escape(unique_name)}",kind="consumer"'
    found = re.search(rf'rackwise_observed_cross_rack_bytes_per_second{{{labels},plan="actual"}} (\S+)',
                      text)
    dollars = re.search(
        rf'rackwise_observed_cross_rack_cost_dollars_per_month{{{labels},plan="actual"}} (\S+)', text)
    assert found and dollars, text[-2000:]
    assert float(found.group(1)) == pytest.approx(audit.cross_rack_bytes_actual)
    assert float(found.group(1)) == pytest.approx(40_000, rel=0.3)  # all of it: az1 reads az2
    assert float(dollars.group(1)) == pytest.approx(audit.money()["actual"])
