"""rackwise behind Kafka's own plug-in points, on the real testbed (issue 14, item 5).

Real clients, real brokers, the real agent; no fakes. Java consumers (tests/java/plugin-clients)
run ``RackwiseAssignor`` on the classic protocol or ``group.remote.assignor=rackwise`` on the
KIP-848 protocol (the brokers load ``RackwiseGroupAssignor``, agent/dev/testbed.py); a
confluent-kafka group does the same from librdkafka. For every group: the clients run the plan
that answered a request (it carries the request id on the plans topic), and the plan holds on
the wire: every partition the plan calls local is fetched from a broker in the member's own
rack (the clients' own fetch figures: the broker each partition is fetched from, per KIP-392),
and the cross-rack bytes measured there are exactly the bytes of the partitions the plan calls
cross-rack.

The brokers' plug-in asks on the default topic names (rackwise.requests/plans/deadletter), so
this module runs one agent on those names for every test in it (``service``); classic clients
use the defaults too, exactly as a user configures them. Tests that stop an agent or give it a
misfit topic run their own agent on their own topics (``rackwise.*.topic`` on the clients).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from confluent_kafka import Producer

from agent.dev.tail import PlanReader
from agent.settings import AgentSettings
from protocol.plan import AssignmentPlan
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import (
    JavaConsumer,
    RdkafkaConsumer,
    follows,
    wait_until,
    wire_figures,
)

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(240)]

# Replicas in az1 and az2 only: whoever reads in az3 reads across racks, so a balanced plan for
# members in az1..az3 has exactly 2 of 6 partitions cross-rack (the az3 member's two).
PLACEMENT = [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1]]
RACKS = ("az1", "az2", "az3")
VALUE = b"v" * 200


@dataclass
class Service:
    settings: AgentSettings
    agent: AgentThread


def _serving_all(agent: AgentThread, partitions: int, timeout: float = 60) -> None:
    wait_until(lambda: len(agent.agent.health()[1]["serving_requests"]) == partitions,
               timeout, "the agent serves every request partition")


@pytest.fixture(scope="module")
def service(bootstrap: str) -> Iterator[Service]:
    """The agent on the default request/plan/dead-letter topics, for the whole module."""
    prefix = f"t-plugins-{uuid.uuid4().hex[:6]}"
    settings = isolated_settings(bootstrap, prefix, topics={
        "requests": "rackwise.requests", "plans": "rackwise.plans",
        "deadletter": "rackwise.deadletter",
    })
    with AgentThread(settings) as agent:
        agent.wait_ready()
        _serving_all(agent, settings.topics.partitions)
        yield Service(settings, agent)
        assert agent.agent.health()[0], agent.agent.health()


def _produce(bootstrap: str, topic: str, records: int, partitions: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(records):
        producer.produce(topic, value=VALUE, partition=i % partitions)
    assert producer.flush(30) == 0


def _followed_plan(reader: PlanReader, clients: list[Any], partitions: int, timeout: float,
                   newer_than: int = -1) -> AssignmentPlan:
    """The newest plan that answered a request (generation above ``newer_than``), gives every
    partition, and every client runs."""
    def found() -> AssignmentPlan | None:
        reader.poll(0.2)
        for plan in reversed(reader.plans()):
            if (plan.request_id and not plan.withheld and plan.generation > newer_than
                    and sum(len(m.partitions) for m in plan.members) == partitions):
                return plan if follows(plan, clients) else None
        return None

    try:
        return wait_until(found, timeout, "the clients run a plan answering a request", 0.0)
    except AssertionError:
        seen = [(p.generation, p.request_id, {m.member_id: [q.partition for q in m.partitions]
                                             for m in p.members}) for p in reader.plans()]
        views = [(c.member_id, sorted(q for _, q in c.assignment() or ())) for c in clients]
        raise AssertionError(f"no followed plan in {timeout:.0f}s; plans {seen}; "
                             f"clients {views}") from None


def _form_group(start: Callable[[str], Any], reader: PlanReader, partitions: int,
                settle_s: float, label: str) -> tuple[list[Any], AssignmentPlan]:
    """Members in az1..az3, each started once the one before has its first assignment (so the
    classic leader's plug-in is warm, and a KIP-848 broker has learnt the group id), until
    they run a plan that answered a request. Only the set-up is retried: when the last
    rebalance fell back (the first request on a busy machine may miss its bound, and the
    plug-in then backs off), the newest member is replaced once the back-off is over, which
    asks again; the checks made on the plan are never loosened."""
    clients: list[Any] = []
    for rack in RACKS:
        clients.append(start(rack))
        last = clients[-1]
        wait_until(lambda c=last: c.member_id and c.assignment() is not None, 90,
                   f"{label}: the {rack} member joins")
    for nudge in range(3):
        try:
            return clients, _followed_plan(reader, clients, partitions, settle_s)
        except AssertionError as exc:
            if nudge == 2:
                raise
            print(f"{label}: no plan followed yet ({exc}); replacing the {RACKS[-1]} member")
            clients.pop().stop()
            clients.append(start(RACKS[-1]))
            wait_until(lambda c=clients[-1]: c.member_id and c.assignment() is not None, 90,
                       f"{label}: the replacement member joins")
    raise AssertionError("unreachable")


def _broker_lines(group: str) -> list[str]:
    """The brokers' own rackwise lines for a group (the local testbed's server.log)."""
    if os.environ.get("RACKWISE_BOOTSTRAP"):
        return []
    from agent.dev.testbed import Testbed

    out = []
    for log in sorted((Testbed().dir / "logs").glob("n*/server.log")):
        out += [line for line in log.read_text(errors="replace").splitlines()
                if f"rackwise: group {group} " in line]
    return sorted(out)


def _check_wire(bootstrap: str, admin: Any, topic: str, plan: AssignmentPlan,
                clients: list[Any], records: int, label: str) -> None:
    """Produce, wait until the clients received it all, then set the plan against their fetches."""
    _produce(bootstrap, topic, records, len(PLACEMENT))
    wait_until(lambda: sum(c.records() for c in clients) >= records, 60,
               f"the clients receive all {records} records")
    time.sleep(1.2)  # two more statistics rounds after the last record (stats every 500 ms)
    assert sum(c.records() for c in clients) == records  # nothing read twice: one owner each
    racks = rack_of_brokers(admin)
    figures = wire_figures(plan, [c.view() for c in clients], racks)
    for line in figures.lines:
        print(f"  {label}: {line}")
    print(f"{label}: cross-rack bytes planned {figures.planned_cross_bytes}, measured on the wire "
          f"{figures.measured_cross_bytes} of {figures.total_bytes} "
          f"({figures.cross_rack_partitions} of {figures.partitions} partitions cross-rack in "
          f"plan generation {plan.generation}, request {plan.request_id})")
    assert not figures.local_fetched_elsewhere, figures.local_fetched_elsewhere
    assert figures.measured_cross_bytes == figures.planned_cross_bytes
    assert figures.cross_rack_partitions == 2  # the az3 member's two: no rack of its own
    assert figures.planned_cross_bytes > 0
    for c in clients:
        for tp in c.assignment() or ():
            assert c.fetches()[tp].records > 0, (c.rack, tp)


def _stop_all(clients: list[Any]) -> None:
    for c in clients:
        c.stop()


# ---- 1. classic Java consumers, cooperative, RackwiseAssignor -------------------------------

# The plug-in's first request builds its Kafka clients inside the bound: on a busy two-core
# machine that alone took up to 5 s (the default bound), so the wire tests give it 10 s.
CLASSIC = {"rackwise.timeout.ms": 10_000}


def test_classic_java_group_runs_the_agents_plan_on_the_wire(
    bootstrap: str, admin: Any, unique_name: str, service: Service
) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    group = f"{unique_name}-classic"
    reader = PlanReader(bootstrap, service.settings.topics.plans, group)
    started = time.monotonic()
    clients: list[Any] = []
    try:
        # What a user sets: the assignor class and client.rack; the agent's default topics.
        clients, plan = _form_group(
            lambda rack: JavaConsumer(bootstrap, group, topic, rack, config=CLASSIC),
            reader, len(PLACEMENT), 30, "classic java")
        print(f"classic java: plan generation {plan.generation} followed after "
              f"{time.monotonic() - started:.1f}s")
        leader = [c for c in clients
                  if f"uses the agent's plan generation {plan.generation} " in c.log()]
        assert len(leader) == 1, [c.rackwise_lines() for c in clients]
        _check_wire(bootstrap, admin, topic, plan, clients, 300, "classic java")
    finally:
        _stop_all(clients)
        reader.close()


# ---- 2. KIP-848 groups: Java and librdkafka, group.remote.assignor=rackwise ---------------

@pytest.mark.parametrize("client", ["java", "librdkafka"])
def test_kip848_group_runs_the_agents_plan_on_the_wire(
    bootstrap: str, admin: Any, unique_name: str, service: Service, client: str
) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    group = f"{unique_name}-848"
    reader = PlanReader(bootstrap, service.settings.topics.plans, group)

    def start(rack: str) -> Any:
        if client == "java":
            return JavaConsumer(bootstrap, group, topic, rack, protocol="consumer",
                                assignor="rackwise")
        return RdkafkaConsumer(bootstrap, group, topic, rack)

    started = time.monotonic()
    clients: list[Any] = []
    try:
        clients, plan = _form_group(start, reader, len(PLACEMENT), 40, f"kip-848 {client}")
        print(f"kip-848 {client}: plan generation {plan.generation} followed after "
              f"{time.monotonic() - started:.1f}s")
        lines = _broker_lines(group)
        for line in lines:
            print(f"  broker: {line[:260]}")
        if not os.environ.get("RACKWISE_BOOTSTRAP"):
            assert any(f"uses the agent's plan generation {plan.generation} " in line
                       for line in lines), lines
        _check_wire(bootstrap, admin, topic, plan, clients, 300, f"kip-848 {client}")
    finally:
        _stop_all(clients)
        reader.close()
