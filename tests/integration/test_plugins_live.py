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
import re
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from confluent_kafka import Producer

from agent.dev.tail import PlanReader, TopicTail
from agent.routing import group_partition, header_value
from agent.settings import AgentSettings
from protocol.plan import AssignmentPlan
from protocol.request import ERROR_HEADER, REQUEST_ID_HEADER
from tests.support.agent import AgentThread, MemberLoop, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import (
    JavaConsumer,
    RdkafkaConsumer,
    brokers_load_plugin,
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


def _coordinator_partition(group: str, partitions: int) -> int:
    """The __consumer_offsets partition (so the coordinator) of a group: Kafka's
    Utils.abs(groupId.hashCode()) % partitions."""
    h = 0
    for ch in group:  # String.hashCode over UTF-16 units; group names here are ASCII
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def _warm_broker_plugins(bootstrap: str, admin: Any, prefix: str) -> None:
    """One throw-away KIP-848 group per coordinator: each broker's plug-in builds its clients
    on its first assign() (and falls back, not_ready), so the tests' groups meet warm ones."""
    offsets = len(admin.list_topics("__consumer_offsets", timeout=15)
                  .topics["__consumer_offsets"].partitions)
    topic = f"{prefix}-warm"
    create_topic(admin, topic, partitions=1)
    names: dict[int, str] = {}
    for i in range(10_000):
        names.setdefault(_coordinator_partition(f"{prefix}-warm-{i}", offsets), f"{prefix}-warm-{i}")
        if len(names) == offsets:
            break
    warm = [RdkafkaConsumer(bootstrap, g, topic, "az1") for g in names.values()]
    try:
        wait_until(lambda: all(c.assignment() for c in warm), 60, "the warm-up groups are assigned")
    finally:
        for c in warm:
            c.stop()


@pytest.fixture(scope="module")
def service(bootstrap: str, admin: Any) -> Iterator[Service]:
    """The agent on the default request/plan/dead-letter topics, for the whole module. Only on
    the local testbed with the plug-in loaded: on a cluster someone else runs, an agent on the
    default names could answer for a real deployment."""
    if os.environ.get("RACKWISE_BOOTSTRAP"):
        pytest.skip("runs an agent on the default topic names: only on the local testbed")
    if not brokers_load_plugin(admin):
        pytest.skip("the brokers do not load rackwise's KIP-848 assignor: build the jar "
                    "(make plugins) before the testbed starts")
    prefix = f"t-plugins-{uuid.uuid4().hex[:6]}"
    settings = isolated_settings(bootstrap, prefix, topics={
        "requests": "rackwise.requests", "plans": "rackwise.plans",
        "deadletter": "rackwise.deadletter",
    })
    with AgentThread(settings) as agent:
        agent.wait_ready()
        _serving_all(agent, settings.topics.partitions)
        _warm_broker_plugins(bootstrap, admin, prefix)
        yield Service(settings, agent)
        assert agent.agent.health()[0], agent.agent.health()


def _produce(bootstrap: str, topic: str, records: int, partitions: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(records):
        producer.produce(topic, value=VALUE, partition=i % partitions)
    assert producer.flush(30) == 0


def _find_followed(reader: PlanReader, clients: list[Any], partitions: int,
                   newer_than: int = -1,
                   where: Callable[[AssignmentPlan], bool] = lambda p: True) -> AssignmentPlan | None:
    """The newest plan that answered a request (generation above ``newer_than``) and gives
    every partition, if every client runs it."""
    reader.poll(0.2)
    for plan in reversed(reader.plans()):
        if (plan.request_id and not plan.withheld and plan.generation > newer_than
                and sum(len(m.partitions) for m in plan.members) == partitions and where(plan)):
            return plan if follows(plan, clients) else None
    return None


def _followed_plan(reader: PlanReader, clients: list[Any], partitions: int, timeout: float,
                   newer_than: int = -1,
                   where: Callable[[AssignmentPlan], bool] = lambda p: True) -> AssignmentPlan:
    try:
        return wait_until(lambda: _find_followed(reader, clients, partitions, newer_than, where),
                          timeout, "the clients run a plan answering a request", 0.0)
    except AssertionError:
        seen = [(p.generation, p.request_id, _by_member(p)) for p in reader.plans()]
        views = [(c.member_id, sorted(q for _, q in c.assignment() or ())) for c in clients]
        raise AssertionError(f"no followed plan in {timeout:.0f}s; plans {seen}; "
                             f"clients {views}") from None


def _by_member(plan: AssignmentPlan) -> dict[str, list[int]]:
    return {m.member_id: sorted(p.partition for p in m.partitions) for m in plan.members}


def _form_group(start: Callable[[str], Any], reader: PlanReader, partitions: int,
                settle_s: float, label: str,
                racks: tuple[str, ...] = RACKS) -> tuple[list[Any], AssignmentPlan]:
    """Members in az1..az3, each started once the one before has its first assignment (so the
    classic leader's plug-in is warm, and a KIP-848 broker has learnt the group id), until
    they run a plan that answered a request. Only the set-up is retried: when the last
    rebalance fell back (the first request on a busy machine may miss its bound, and the
    plug-in then backs off), the newest member is replaced once the back-off is over, which
    asks again; the checks made on the plan are never loosened."""
    clients: list[Any] = []
    for rack in racks:
        clients.append(start(rack))
        last = clients[-1]
        wait_until(lambda c=last: c.member_id and c.assignment(), 90,
                   f"{label}: the {rack} member joins and owns partitions")
    for nudge in range(3):
        try:
            return clients, _followed_plan(reader, clients, partitions, settle_s)
        except AssertionError as exc:
            if nudge == 2:
                raise
            print(f"{label}: no plan followed yet ({exc}); replacing the {racks[-1]} member")
            clients.pop().stop()
            clients.append(start(racks[-1]))
            wait_until(lambda c=clients[-1]: c.member_id and c.assignment(), 90,
                       f"{label}: the replacement member joins and owns partitions")
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


# ---- 3. the agent stopped midway: fallback, never stuck; back: plans again ----------------

FALLBACK = re.compile(r"falls back to cooperative-sticky after (\d+) ms: (\w+): (.*?); plans_used")


def _own_topics(settings: AgentSettings) -> dict[str, Any]:
    """Client settings pointing the classic plug-in at an agent on its own topics."""
    t = settings.topics
    return {"rackwise.requests.topic": t.requests, "rackwise.plans.topic": t.plans,
            "rackwise.deadletter.topic": t.deadletter}


def _owns_everything(clients: list[Any], partitions: int) -> bool:
    """Every member owns something, and every partition has exactly one owner."""
    owned = [c.assignment() or frozenset() for c in clients]
    return (all(owned) and sum(len(o) for o in owned) == partitions
            and len(frozenset().union(*owned)) == partitions)


def test_agent_stopped_midway_the_group_falls_back_and_plans_again(
    bootstrap: str, admin: Any, unique_name: str
) -> None:
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    settings = isolated_settings(bootstrap, unique_name)
    bound_ms, backoff_ms = 6000, 10_000  # rackwise.backoff.ms: its default
    config = {**_own_topics(settings), "rackwise.timeout.ms": bound_ms}
    group = f"{unique_name}-g"
    reader = PlanReader(bootstrap, settings.topics.plans, group)
    agent: AgentThread | None = AgentThread(settings).__enter__()
    clients: list[Any] = []
    try:
        assert agent is not None
        agent.wait_ready()
        _serving_all(agent, settings.topics.partitions)
        clients, before = _form_group(
            lambda rack: JavaConsumer(bootstrap, group, topic, rack, config=config),
            reader, len(PLACEMENT), 30, "agent stop", racks=("az1", "az2"))
        leader = next(c for c in clients
                      if f"uses the agent's plan generation {before.generation} " in c.log())
        seen = len(leader.rackwise_lines())

        agent.stop()
        agent = None
        stopped = time.monotonic()
        clients.append(JavaConsumer(bootstrap, group, topic, "az3", config=config))
        wait_until(lambda: _owns_everything(clients, len(PLACEMENT)), 90,
                   "with no agent, the group falls back and every member gets partitions")
        fell_back = time.monotonic()
        lines = leader.rackwise_lines()[seen:]
        found = [FALLBACK.search(line) for line in lines]
        assert lines and all(found), lines
        waits = [(int(m[1]), m[2]) for m in found if m]
        print(f"agent stop: {len(waits)} rebalance(s) without the agent, fallbacks {waits}; the "
              f"joining member owned partitions {fell_back - stopped:.1f}s after the agent stopped")
        # Each rebalance without the agent waits out the bound at most once, or not at all
        # while the plug-in backs off.
        assert waits[0][1] == "timeout", waits
        assert all((reason == "timeout" and ms <= bound_ms + 1000)
                   or (reason == "backing_off" and ms < 1000) for ms, reason in waits), waits
        # The group keeps consuming on Kafka's own assignment.
        _produce(bootstrap, topic, 300, len(PLACEMENT))
        wait_until(lambda: sum(c.records() for c in clients) >= 300, 60,
                   "the fallen-back group consumes every record")

        agent = AgentThread(settings).__enter__()
        agent.wait_ready()
        _serving_all(agent, settings.topics.partitions)
        # The next rebalance asks the agent again once the plug-in's back-off is over.
        time.sleep(max(0.0, backoff_ms / 1000 + 0.5 - (time.monotonic() - fell_back)))
        back = time.monotonic()
        clients.pop().stop()  # a member leaves: a rebalance
        after = _followed_plan(reader, clients, len(PLACEMENT), 60, newer_than=before.generation)
        assert after.request_id != before.request_id
        assert f"uses the agent's plan generation {after.generation} " in leader.log()
        print(f"agent back: plan generation {after.generation} (request {after.request_id}) "
              f"followed {time.monotonic() - back:.1f}s after the next rebalance began")
    finally:
        _stop_all(clients)
        reader.close()
        if agent is not None:
            agent.stop()


# ---- 4. a replica move re-plans (KIP-881, KIP-1101); a bounced broker moves nothing --------

SPREAD = [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]  # every partition in two racks


def _replicas(admin: Any, topic: str) -> list[list[int]]:
    from confluent_kafka import TopicCollection

    desc = admin.describe_topics(TopicCollection([topic]))[topic].result(15)
    return [[r.id for r in p.replicas] for p in sorted(desc.partitions, key=lambda p: p.id)]


def _brokers(admin: Any) -> int:
    try:
        return len(admin.describe_cluster(request_timeout=5).result(10).nodes)
    except Exception:  # noqa: BLE001 - a broker going away; ask again
        return -1


def _stop_broker(bed: Any, node: int, grace_s: float = 20) -> None:
    """A controlled shutdown (SIGTERM: its restart needs no log recovery, which took two minutes
    after a kill), killed if it has not exited within ``grace_s`` (a shutdown once hung for
    over a minute on a busy machine)."""
    from agent.dev.testbed import _pid_alive

    pid = bed.status()[node - 1]["pid"]
    if pid:
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and _pid_alive(pid):
            time.sleep(0.2)
        if _pid_alive(pid):
            print(f"bounce: broker {node} still shutting down after {grace_s:.0f}s; killed")
            os.killpg(pid, signal.SIGKILL)
            wait_until(lambda: not _pid_alive(pid), 30, f"broker {node} exits")
    bed.stop_node(node)  # only forgets the pid file now


def _restart(bed: Any, node: int) -> None:
    """Start a stopped broker and wait until it listens (retrying, as test_agent_racks does:
    its port may be held for a moment by a client socket)."""
    for _ in range(6):
        bed.start_node(node)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status = bed.status()[node - 1]
            if status["listening"]:
                return
            if not status["pid"]:
                break
            time.sleep(0.5)
        time.sleep(2)
    raise RuntimeError(f"broker {node} did not come back; run `rackwise testbed up`")


@pytest.mark.timeout(360)  # a broker restart alone took up to 70 s on a busy two-core machine
def test_replica_move_replans_both_protocols_and_a_bounce_moves_nothing(
    bootstrap: str, admin: Any, unique_name: str, service: Service
) -> None:
    from kafka import TopicPartition as KafkaTopicPartition
    from kafka.admin import KafkaAdminClient

    topic = f"{unique_name}-data"
    create_topic(admin, topic, SPREAD)
    plans = service.settings.topics.plans
    groups = {"classic": f"{unique_name}-classic", "kip-848": f"{unique_name}-848"}
    readers = {k: PlanReader(bootstrap, plans, g) for k, g in groups.items()}
    # KIP-881: only the classic leader checks replica racks, at each metadata refresh.
    classic_config = {**CLASSIC, "metadata.max.age.ms": 3000}
    members: dict[str, list[Any]] = {"classic": [], "kip-848": []}
    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
    t0 = time.monotonic()
    try:
        # Both groups form side by side (each records its members as they start, so the
        # finally block stops them whatever happens).
        def form(kind: str, start: Callable[[str], Any], settle_s: float) -> AssignmentPlan:
            def started(rack: str) -> Any:
                client = start(rack)
                members[kind].append(client)
                return client

            clients, plan = _form_group(started, readers[kind], len(SPREAD), settle_s, kind)
            members[kind][:] = clients
            return plan

        with ThreadPoolExecutor(2) as pool:
            forming = {
                "classic": pool.submit(form, "classic", lambda rack: JavaConsumer(
                    bootstrap, groups["classic"], topic, rack, config=classic_config), 30),
                "kip-848": pool.submit(form, "kip-848", lambda rack: RdkafkaConsumer(
                    bootstrap, groups["kip-848"], topic, rack), 40),
            }
            first = {kind: f.result() for kind, f in forming.items()}
        print(f"both groups run a plan {time.monotonic() - t0:.1f}s after the first member started")
        for kind, plan in first.items():
            assert plan.summary.cross_rack_partitions == 0, (kind, _by_member(plan))

        result = kadmin.alter_partition_reassignments({KafkaTopicPartition(topic, 0): [1, 3]})
        assert all(v is None for v in result.values()), result
        wait_until(lambda: _replicas(admin, topic)[0] == [1, 3], 30, "partition 0 moves to [1, 3]")
        moved = time.monotonic()

        def new_racks(plan: AssignmentPlan) -> bool:
            return any(pp.partition == 0 and list(pp.replica_racks) == ["az1", "az3"]
                       for m in plan.members for pp in m.partitions)

        replanned: dict[str, tuple[AssignmentPlan, float]] = {}

        def both_replanned() -> bool:
            for kind in groups:
                if kind not in replanned:
                    plan = _find_followed(readers[kind], members[kind], len(SPREAD),
                                          first[kind].generation, new_racks)
                    if plan is not None:
                        replanned[kind] = (plan, time.monotonic() - moved)
            return len(replanned) == len(groups)

        try:
            wait_until(both_replanned, 90, "both groups run a new plan after the move")
        except AssertionError:
            seen = {kind: [(p.generation, p.request_id, [(q.partition, q.replica_racks)
                                                          for m in p.members for q in m.partitions])
                           for p in readers[kind].plans()] for kind in groups if kind not in replanned}
            owned = {kind: [sorted(c.assignment() or ()) for c in members[kind]] for kind in groups}
            raise AssertionError(f"no new plan followed: {seen}; clients {owned}") from None
        for kind, (plan, took) in replanned.items():
            owner = next(m.rack for m in plan.members for pp in m.partitions if pp.partition == 0)
            print(f"replica move ({kind}): plan generation {first[kind].generation} -> "
                  f"{plan.generation} (request {plan.request_id}) followed {took:.1f}s after "
                  f"the move; partition 0 now read in {owner}; cross-rack "
                  f"{plan.summary.cross_rack_partitions}, moved {plan.summary.moved_partitions}")
            assert plan.request_id != first[kind].request_id
            assert plan.summary.cross_rack_partitions == 0

        if os.environ.get("RACKWISE_BOOTSTRAP"):
            return  # the bounce restarts a broker of the local testbed
        from agent.dev.testbed import Testbed

        bed = Testbed()
        marks = {kind: len(readers[kind].plans()) for kind in groups}
        settled = {kind: _by_member(plan) for kind, (plan, _) in replanned.items()}
        bounced = time.monotonic()
        _stop_broker(bed, 3)
        try:
            try:  # fenced at once on a controlled shutdown, after its session when killed
                wait_until(lambda: _brokers(admin) == 2, 45, "broker 3 is fenced")
            except AssertionError:
                print("bounce: broker 3 still listed by describe_cluster 45 s after the kill")
            time.sleep(6)  # two of the classic leader's metadata refreshes while it is down
        finally:
            _restart(bed, 3)
        wait_until(lambda: _brokers(admin) == 3, 90, "broker 3 is back")
        print(f"bounce: broker 3 down and back in {time.monotonic() - bounced:.1f}s")
        time.sleep(8)  # a KIP-848 heartbeat (5 s) and two metadata refreshes after it is back
        for kind in groups:
            readers[kind].poll(1)
            later = readers[kind].plans()[marks[kind]:]
            print(f"bounce ({kind}): {len(later)} new plan(s) "
                  f"{[(p.generation, p.summary.moved_partitions) for p in later]}; "
                  f"assignment unchanged: {settled[kind]}")
            for plan in later:
                assert _by_member(plan) == settled[kind], (kind, plan.generation)
                assert plan.summary.moved_partitions == 0, (kind, plan.generation)
            wait_until(lambda k=kind: {c.member_id: sorted(q for _, q in c.assignment() or ())
                                       for c in members[k]} == settled[k], 30,
                       f"the {kind} clients still own what the plan gave them")
    finally:
        kadmin.close()
        for clients in members.values():
            _stop_all(list(dict.fromkeys(clients)))
        for reader in readers.values():
            reader.close()


# ---- 5. bad input, seen from the client: a clear error at once; the agent keeps running ---

def _group_in(prefix: str, partition: int | None, avoid: int | None = None) -> str:
    """The first ``prefix-N`` whose default-partitioner partition (of 3) is ``partition``
    (or anything but ``avoid``): deterministic, no randomness to seed."""
    for i in range(1000):
        name = f"{prefix}-{i}"
        p = group_partition(name, 3)
        if (partition is None or p == partition) and p != avoid:
            return name
    raise AssertionError("no such name")


def test_bad_requests_fail_fast_on_the_client_and_the_agent_keeps_running(
    bootstrap: str, admin: Any, unique_name: str
) -> None:
    settings = isolated_settings(bootstrap, unique_name)
    # Someone created the requests topic by hand with 1 partition; the agent runs with 3.
    # The plug-in picks the partition from the topic it writes to (murmur2 % 1 = 0); the
    # agent checks it against its own count.
    create_topic(admin, settings.topics.requests, partitions=1)
    topic = f"{unique_name}-data"
    create_topic(admin, topic, PLACEMENT)
    # Each client's first request also starts its plug-in's Kafka clients, inside the bound:
    # three JVMs doing so at once on a busy two-core machine took up to 10 s.
    bound_ms = 30_000
    config = {**_own_topics(settings), "rackwise.timeout.ms": bound_ms}
    wrong = _group_in(f"{unique_name}-wrong", None, avoid=0)
    conflict = _group_in(f"{unique_name}-follower", 0)
    fine = _group_in(f"{unique_name}-fine", 0)
    clients: dict[str, JavaConsumer] = {}
    with AgentThread(settings) as agent:
        agent.wait_ready()
        wait_until(lambda: 0 in agent.agent.health()[1]["serving_requests"], 60,
                   "the agent serves requests partition 0")
        # `conflict` is already planned from rackwise.subscriptions by a PlanFollower member.
        follower = MemberLoop(bootstrap, settings, conflict, "py-az1", "az1", [topic]).start()
        follower_plans = PlanReader(bootstrap, settings.topics.plans, conflict)
        deadletters = TopicTail(bootstrap, settings.topics.deadletter)
        requests = TopicTail(bootstrap, settings.topics.requests)
        try:
            follower_plans.wait_plan(lambda p: len(p.members) == 1, 60)
            for group in (wrong, conflict, fine):
                clients[group] = JavaConsumer(bootstrap, group, topic, "az1", config=config,
                                              name=f"java-{group.rsplit('-', 2)[-2]}")
            # Alone in its group, each member owns every partition: a fallback or a plan.
            wait_until(lambda: all(len(c.assignment() or ()) == len(PLACEMENT)
                                   for c in clients.values()), 90, "every member is assigned")

            expected = {wrong: "wrong-partition", conflict: "group-conflict"}
            for group, code in expected.items():
                lines = clients[group].rackwise_lines()
                found = [m for line in lines if (m := FALLBACK.search(line))]
                assert found, lines
                ms, reason, detail = int(found[0][1]), found[0][2], found[0][3]
                print(f"{code}: the client fell back after {ms} ms: {reason}: {detail}")
                assert reason == "error_reply" and detail.startswith(
                    f"the agent rejected the request: {code}: "), detail
                assert ms < bound_ms, ms  # at once: not at the end of the bound
            assert f"group {wrong} belongs to partition {group_partition(wrong, 3)} of " \
                f"{settings.topics.requests}, not 0" in clients[wrong].log()
            assert "uses the agent's plan generation" in " ".join(clients[fine].rackwise_lines())

            # The agent's side: every request answered, the bad ones with their reason.
            def answered() -> bool:
                requests.poll(0.2)
                deadletters.poll(0.2)
                asked = {header_value(m.headers(), REQUEST_ID_HEADER): m.key().decode()
                         for m in requests.records}
                dead = {header_value(m.headers(), REQUEST_ID_HEADER):
                        (m.key().decode(), header_value(m.headers(), ERROR_HEADER))
                        for m in deadletters.records}
                bad = {rid: g for rid, g in asked.items() if g in expected}
                return bool(bad) and all(dead.get(rid) == (g, expected[g])
                                         for rid, g in bad.items())

            wait_until(answered, 30, "every bad request has its dead letter with the reason")
            asked_at = {header_value(m.headers(), REQUEST_ID_HEADER): m.timestamp()[1]
                        for m in requests.records}
            for m in deadletters.records:
                rid = header_value(m.headers(), REQUEST_ID_HEADER)
                if rid in asked_at:
                    print(f"dead letter {header_value(m.headers(), ERROR_HEADER)} for "
                          f"{m.key().decode()}: {m.timestamp()[1] - asked_at[rid]} ms after "
                          "the request was written")
            assert agent.agent.health()[0], agent.agent.health()
            metrics = agent.agent.metrics.render().decode()
            for code in expected.values():
                assert f'rackwise_requests_total{{outcome="{code}"}}' in metrics
            assert 'rackwise_requests_total{outcome="planned"}' in metrics
        finally:
            for c in clients.values():
                c.stop()
            follower.stop()
            follower_plans.close()
            deadletters.close()
            requests.close()
