"""The compat cells that need the agent or its commands, and librdkafka clients of a chosen
confluent-kafka release (tests/compat/test_compat.py says what each cell checks).

* ``follower_cell``: three ``PlanFollower`` members (classic protocol, docs/plug-in-points.md § Python
  consumers) in a confluent-kafka release's own Python (clientvenv, rdkafka_driver), a real
  agent, and PlanFollower's documented fallback when the agent is away;
* ``agent_cell``: a real agent on a broker release: ready, its topics, a planned group,
  advice, a re-plan on a replica move, and the describe APIs negotiated with the brokers;
* ``audit_cell``: the ``rackwise audit --json`` command on a classic group whose assignment
  is not rack-optimal, held to the clients' own view and to a brute force of the optimum.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.dev.fetchstats import JsonLineClient
from tests.compat.clientvenv import python_for
from tests.compat.live import (
    BEFORE,
    RACKS,
    admin_of,
    create,
    cross_and_best,
    replanned_after_move,
    settled_optimal,
)
from tests.support.pluginclients import wait_until

CHECKOUT = Path(__file__).resolve().parents[2]


class DriverClient(JsonLineClient):
    """tests/compat/rdkafka_driver.py in the Python of confluent-kafka ``version``."""

    def __init__(self, version: str, mode: str, rack: str, **args: str) -> None:
        name = f"rdkafka{version}-{mode}-{rack}"
        with tempfile.NamedTemporaryFile(prefix=f"rackwise-{name}-", suffix=".log",
                                         delete=False) as log:
            log_path = log.name
        # this checkout first on sys.path: its agent/, protocol/, tests/, never an installed copy
        boot = (f"import sys; sys.path.insert(0, {str(CHECKOUT)!r}); "
                "from tests.compat.rdkafka_driver import main; sys.exit(main(sys.argv[1:]))")
        cmd = [python_for(version), "-c", boot, mode, f"rack={rack}",
               *(f"{k}={v}" for k, v in args.items())]
        self.version = version
        super().__init__(cmd, name, rack, log_path,
                         remove_log=not os.environ.get("RACKWISE_KEEP_CLIENT_LOGS"),
                         new_session=False)

    def hello(self, timeout: float = 60) -> dict[str, Any]:
        """What the driver really imported; fails if it is not the release asked for."""
        found = wait_until(lambda: self._last("hello") or (not self.alive() and "exited"),
                           timeout, f"{self.name} starts")
        if found == "exited":
            raise AssertionError(f"{self.name} exited: {self.log()[-2000:]}")
        assert found["confluent_kafka"] == self.version, (found, self.version)
        assert found["agent"].startswith(str(CHECKOUT) + "/"), (found, CHECKOUT)
        return dict(found)

    def error(self) -> str | None:
        last = self._last("error")
        return str(last["message"]) if last else None

    def owned(self) -> frozenset[tuple[str, int]]:
        return self.assignment() or frozenset()


def versions(hello: dict[str, Any]) -> str:
    return f"confluent-kafka {hello['confluent_kafka']}, librdkafka {hello['librdkafka']}"


# ---- PlanFollower ------------------------------------------------------------------------------

def _followers(version: str, bootstrap: str, settings: Any, group: str, topic: str,
               racks: tuple[str, ...] = RACKS, prefix: str = "m") -> list[DriverClient]:
    s = settings.topics
    return [DriverClient(version, "follower", rack, bootstrap=bootstrap, group=group, topic=topic,
                         member=f"{prefix}-{rack}", subscriptions=s.subscriptions, plans=s.plans)
            for rack in racks]


def follower_cell(bootstrap: str, version: str) -> str:
    """PlanFollower members of confluent-kafka ``version`` with a real agent:
    1. without the agent's topics, ``start()`` refuses, saying to start the agent;
    2. with the agent, the group forms on the optimum; 3. a replica move re-plans it;
    4. the agent stopped: every member keeps its last plan's partitions (10 s, nothing moves),
       and a member that joins meanwhile starts and gets nothing; 5. the agent back: it plans
       the joiner in."""
    from tests.support.agent import AgentThread, isolated_settings

    admin = admin_of(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-compat-follow-{tag}", f"g-compat-follow-{tag}"
    create(admin, topic)
    settings = isolated_settings(bootstrap, f"compat-follow-{tag}")
    # 1: no agent has run with these topics yet
    lone = DriverClient(version, "follower", "az1", bootstrap=bootstrap, group=group, topic=topic,
                        member="lone", subscriptions=settings.topics.subscriptions,
                        plans=settings.topics.plans)
    try:
        hello = lone.hello()
        refused = wait_until(lambda: lone.error() or (not lone.alive() and "exited silently"),
                             60, "start() without the agent's topics refuses")
        assert "does not exist: start the rackwise agent first" in refused, refused
    finally:
        lone.stop()
    agent = AgentThread(settings).__enter__()
    clients: list[DriverClient] = []
    try:
        agent.wait_ready()
        clients = _followers(version, bootstrap, settings, group, topic)
        wait_until(lambda: all(c.member_id for c in clients), 90, "every follower starts")
        formed = settled_optimal(admin, group, topic, clients, 120)
        replanned, took = replanned_after_move(bootstrap, admin, group, topic, clients)
        # 4: the agent away
        agent.stop()
        kept = {c.name: c.owned() for c in clients}
        joiner = _followers(version, bootstrap, settings, group, topic, ("az2",), prefix="late")[0]
        clients.append(joiner)
        wait_until(lambda: joiner.member_id, 60, "a member joining while the agent is away starts")
        time.sleep(10)
        now = {c.name: c.owned() for c in clients[:3]}
        assert now == kept, ("a member's partitions changed with no agent", kept, now)
        assert not joiner.owned(), joiner.owned()
        assert sorted(p for ps in now.values() for _, p in ps) == list(range(len(BEFORE)))
        # 5: the agent back plans the joiner in
        agent = AgentThread(settings).__enter__()
        agent.wait_ready()
        wait_until(lambda: joiner.owned() and sorted(p for c in clients for _, p in c.owned())
                   == list(range(len(BEFORE))), 120, "the agent back plans the joining member in")
        # the agent's default planner is cooperative-sticky (rack-aware, KIP-881): it keeps
        # what members own and may hand the joiner a partition of another rack, so the
        # optimum is reported here, not required (steps 2-3 hold it on every fresh plan)
        time.sleep(3)
        cross, best = cross_and_best(admin, group, topic, clients)
        back = f"cross-rack {cross}, optimum {best:.0f} (cooperative-sticky keeps owners)"
    finally:
        for c in clients:
            c.stop()
        if agent.thread.is_alive():
            agent.stop()
    return (f"formed ({formed}); after the replica move {replanned} in {took:.0f}s; agent stopped: "
            f"the 3 members kept their partitions 10s, a joiner started with none; agent back: "
            f"4 members, {back}; no agent topics: start() refused; {versions(hello)}")


# ---- the agent on a broker release ---------------------------------------------------------

def negotiated(bootstrap: str) -> tuple[dict[str, str], str]:
    """The version of each wire API rackwise sends itself (agent.brokers.rpc: the audit's
    group describes, the traffic probe's DescribeLogDirs), per ApiVersions of the first
    bootstrap broker; and what a StreamsGroupDescribe says where the broker lacks it."""
    from agent.audit.brokergroups import describe_groups
    from agent.brokers.rpc import WireClient, WireSettings
    from protocol import kafkarpc as rpc

    names = {rpc.FIND_COORDINATOR: "FindCoordinator", rpc.LIST_GROUPS: "ListGroups",
             rpc.CONSUMER_GROUP_DESCRIBE: "ConsumerGroupDescribe",
             rpc.STREAMS_GROUP_DESCRIBE: "StreamsGroupDescribe",
             rpc.DESCRIBE_LOG_DIRS: "DescribeLogDirs"}
    out: dict[str, str] = {}
    with WireClient(WireSettings.from_config({"bootstrap.servers": bootstrap})) as client:
        conn = client.any_connection()
        for key, name in names.items():
            v = conn.version_for(key, name)
            out[name] = (f"v{v}" if v is not None else
                         f"unsupported (broker offers {conn.versions.get(key, 'nothing')})")
        said = describe_groups(client, "streams", ["rackwise-compat-no-such-group"])
    return out, str(said["rackwise-compat-no-such-group"])


def agent_cell(bootstrap: str) -> str:
    """A real agent (newest confluent-kafka) on this broker release."""
    from agent.dev.tail import TopicTail
    from protocol.advice import TopicAdvice, decode
    from tests.support.agent import AgentThread, isolated_settings

    admin = admin_of(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic, group = f"t-compat-agent-{tag}", f"g-compat-agent-{tag}"
    create(admin, topic)
    settings = isolated_settings(bootstrap, f"compat-agent-{tag}",
                                 advice={"topics": [topic], "interval_s": 0})
    apis, streams_said = negotiated(bootstrap)
    # what every supported broker (4.1+) must take: the audit's KIP-848 describes, the probe's
    # log sizes; StreamsGroupDescribe only where KIP-1071 groups exist, so only recorded
    needed = {k: v for k, v in apis.items() if k != "StreamsGroupDescribe"}
    assert not [k for k, v in needed.items() if v.startswith("unsupported")], needed
    if apis["StreamsGroupDescribe"].startswith("unsupported"):
        assert "does not support StreamsGroupDescribe" in streams_said, streams_said
    newest = newest_client()
    agent = AgentThread(settings).__enter__()
    clients: list[DriverClient] = []
    tail: TopicTail | None = None
    try:
        agent.wait_ready()
        s = settings.topics
        own = [s.subscriptions, s.plans, s.control, s.deadletter]
        wait_until(lambda: set(own) <= set(admin.list_topics(timeout=10).topics), 60,
                   "the agent creates its topics")
        clients = _followers(newest, bootstrap, settings, group, topic)
        wait_until(lambda: all(c.member_id for c in clients), 90, "every follower starts")
        formed = settled_optimal(admin, group, topic, clients, 120)

        def advised() -> TopicAdvice | None:
            nonlocal tail
            if tail is None:
                if s.advice not in admin.list_topics(timeout=10).topics:
                    return None
                tail = TopicTail(bootstrap, s.advice)
            tail.poll(0.5)
            found = None
            for msg in tail.records:
                if msg.key() == f"topic/{topic}".encode():
                    found = decode(msg.key().decode(), msg.value())
            return found if isinstance(found, TopicAdvice) else None
        advice = wait_until(advised, 90, f"advice for {topic} on {s.advice}")
        assert [p.partition for p in advice.partitions] == list(range(len(BEFORE))), advice
        replanned, took = replanned_after_move(bootstrap, admin, group, topic, clients)
    finally:
        for c in clients:
            c.stop()
        if tail is not None:
            tail.consumer.close()
        agent.stop()
    wire = ", ".join(f"{k} {v}" for k, v in apis.items())
    return (f"agent ready, 5 topics + advice created; PlanFollower group formed ({formed}); "
            f"advice for 6 partitions; after the replica move {replanned} in {took:.0f}s; "
            f"ApiVersions (rackwise's own requests): {wire}; StreamsGroupDescribe of an unknown "
            f"group: {streams_said!r}; librdkafka's own admin requests: not observable here")


def newest_client() -> str:
    """The project venv's confluent-kafka release (the newest the project runs)."""
    from tests.compat.clientvenv import installed_version

    return installed_version()


# ---- rackwise audit ----------------------------------------------------------------------------

def best_by_brute_force(owned: dict[str, tuple[str, list[int]]], racks: dict[int, set[str]]) -> int:
    """The fewest cross-rack partitions over every balanced assignment (here 6 partitions, 3
    members, 2 each: 90 assignments), sharing no code with rackwise."""
    members = sorted(owned.values())
    parts = sorted(racks)
    per = len(parts) // len(members)
    best = len(parts)
    for order in itertools.permutations(parts):
        cross = sum(1 for i, p in enumerate(order) if members[i // per][0] not in racks[p])
        best = min(best, cross)
    return best


def audit_cell(bootstrap: str) -> str:
    """``rackwise audit`` (the console command: python -m agent.cli in this checkout) on a
    classic librdkafka ``roundrobin`` group, members ordered so that roundrobin puts four of
    the six partitions across racks."""
    from tests.support.liveclients import ConsumerGroup, own_cross_rack, replica_racks

    admin = admin_of(bootstrap)
    tag = uuid.uuid4().hex[:6]
    topic = group = f"t-compat-audit-{tag}"
    create(admin, topic)
    # member ids are client.id + "-" + a UUID: m0 (az1) < m1 (az2) < m2 (az3), so roundrobin
    # gives m0 p0 p3, m1 p1 p4, m2 p2 p5: p0 and p5 local, four cross-rack; the optimum is 0
    members = ConsumerGroup(bootstrap, group, topic, RACKS, strategy="roundrobin",
                            client_ids=[f"m{i}" for i in range(len(RACKS))])

    def audited() -> Any:
        return run_audit_command(bootstrap, group)
    try:
        settled = members.settle(len(BEFORE), audited)
    finally:
        members.close()
    racks = replica_racks(admin, topic)
    own = own_cross_rack(settled.owned, racks)
    best = best_by_brute_force(settled.owned, racks)
    a = settled.audit
    assert a.members == 3 and a.partitions == len(BEFORE), a
    assert a.cross_rack_actual == own and a.cross_rack_best == best, (a.cross_rack_actual, own,
                                                                      a.cross_rack_best, best)
    assert own > best, (own, best, settled.owned)
    return (f"`rackwise audit --json` on a roundrobin group: actual {a.cross_rack_actual} (= the "
            f"members' own view), best {a.cross_rack_best} (= a brute force over the 90 balanced "
            f"assignments)")


class CommandAudit:
    """One group's row of ``rackwise audit --json``, shaped as liveclients.settle reads it."""

    def __init__(self, row: dict[str, Any], plan: dict[str, Any] | None) -> None:
        from protocol.plan import AssignmentPlan

        self.row = row
        self.status = row["status"]
        self.members = row["members"]
        self.partitions = row["partitions"]
        self.cross_rack_actual = row["cross_rack_actual"]
        self.cross_rack_best = row["cross_rack_best"]
        self.actual = AssignmentPlan.from_json(json.dumps(plan).encode()) if plan else None

    def __repr__(self) -> str:
        return f"CommandAudit({self.row})"


def run_audit_command(bootstrap: str, group: str, run: Callable[..., Any] = subprocess.run) -> Any:
    """``python -m agent.cli audit --bootstrap B --group G --json --plans --window 0``, what
    the ``rackwise`` console script runs, from this checkout; None when it has no row yet."""
    proc = run([sys.executable, "-m", "agent.cli", "audit", "--bootstrap", bootstrap,
                "--group", group, "--json", "--plans", "--window", "0"],
               cwd=CHECKOUT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"rackwise audit exited {proc.returncode}: {proc.stderr[-2000:]}"
    rows = [r for r in json.loads(proc.stdout)["groups"] if r["group"] == group]
    return CommandAudit(rows[0], rows[0].get("actual_plan")) if rows else None
