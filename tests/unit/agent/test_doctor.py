"""``rackwise doctor``'s checks over hand-made snapshots (agent.doctor.checks is pure).

Every finding id has a case that makes it and a case that does not; the follower-fetching
figures are checked against the test's own arithmetic, and against a seeded random fleet
(reading the nearest replica never costs more than reading the leader when every broker has
a rack). Gathering is covered by tests/integration/test_doctor.py.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.audit import RawGroup, RawMember
from agent.doctor import (
    FINDING_IDS,
    AgentState,
    BrokerState,
    GroupReads,
    GroupState,
    MemberState,
    Snapshot,
    follower_fetching_saving,
    rack_mapping,
    render_json,
    render_table,
    run_checks,
    status_of,
)
from agent.doctor.gather import group_state
from agent.doctor.model import GROUP_ASSIGNOR_CLASS, RACK_AWARE_SELECTOR
from assignor.cluster import ClusterView, TopicPartition
from protocol.consumer import Subscription, encode_subscription
from protocol.groupdescribe import ConsumerGroupMember, DescribedConsumerGroup
from protocol.pricing import Price

pytestmark = pytest.mark.unit

PLUGGED = ("uniform", "range", GROUP_ASSIGNOR_CLASS)
NOW = 1_800_000_000_000


def broker(bid: int, rack: str | None = None, *, selector: str | None = RACK_AWARE_SELECTOR,
           assignors: tuple[str, ...] | None = PLUGGED, error: str | None = None) -> BrokerState:
    return BrokerState(bid, rack if rack is not None else f"az{bid}", f"h:{9000 + bid}",
                       selector=selector, assignors=assignors, config_error=error)


def healthy_brokers() -> tuple[BrokerState, ...]:
    return tuple(broker(b) for b in (1, 2, 3))


def healthy_agent(**changes: object) -> AgentState:
    topics = {"subscriptions": "rackwise.subscriptions", "plans": "rackwise.plans",
              "advice": "rackwise.advice"}
    base: dict[str, object] = dict(topics=topics, existing=frozenset(topics.values()),
                                   group_id="rackwise-agent", members=1,
                                   advice_newest_ms=NOW - 60_000, advice_max_age_s=900.0)
    base.update(changes)
    return AgentState(**base)  # type: ignore[arg-type]


def group(gid: str, *racks: str | None, gtype: str = "consumer", assignor: str = "uniform") -> GroupState:
    return GroupState(gid, gtype, "Stable", assignor,
                      tuple(MemberState(f"{gid}-m{i}", r, f"client-{i}", "/10.0.0.1")
                            for i, r in enumerate(racks)))


def snap(brokers: tuple[BrokerState, ...] | None = None, groups: tuple[GroupState, ...] = (),
         agent: AgentState | None = None, reads: tuple[GroupReads, ...] = (),
         window_s: float = 0.0) -> Snapshot:
    return Snapshot("b:9092", brokers if brokers is not None else healthy_brokers(), groups,
                    agent if agent is not None else healthy_agent(), reads, Price(), NOW,
                    window_s)


def ids(findings: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(f.id, f.subject) for f in findings]


def test_a_healthy_cluster_has_no_findings() -> None:
    s = snap(groups=(group("g1", "az1", "az2", "az3"),))
    assert run_checks(s) == []
    assert status_of([]) == "ok"
    assert "(no findings)" in render_table(s, [])


def test_broker_rack_missing_names_the_broker_and_the_others_naming() -> None:
    s = snap(brokers=(broker(1), broker(2), broker(3, rack="")))
    found = run_checks(s)
    assert ids(found) == [("broker-rack-missing", "broker 3")]
    assert found[0].severity == "error"
    assert "broker.rack=<its zone> on broker 3" in found[0].fix
    assert "restart" in found[0].fix and "(az1, az2)" in found[0].fix


def test_unreadable_broker_configs_are_a_finding_not_a_guess() -> None:
    s = snap(brokers=(broker(1), broker(2), broker(3, selector=None, assignors=None,
                                                    error="CLUSTER_AUTHORIZATION_FAILED")))
    assert ids(run_checks(s)) == [("broker-config-unreadable", "broker 3")]


def test_replica_selector_missing_per_broker_and_mismatch_for_the_cluster() -> None:
    s = snap(brokers=(broker(1), broker(2, selector=""), broker(3)))
    found = run_checks(s)
    assert ids(found) == [("replica-selector-mismatch", "cluster"),
                          ("replica-selector-missing", "broker 2")]
    assert found[1].fix.startswith(f"set replica.selector.class={RACK_AWARE_SELECTOR} on broker 2")
    assert "read-only" in found[1].fix
    # the same (wrong) value everywhere: each broker, but no mismatch
    s = snap(brokers=tuple(broker(b, selector="") for b in (1, 2, 3)))
    assert [i for i, _ in ids(run_checks(s))] == ["replica-selector-missing"] * 3


def test_a_dynamic_setting_gets_an_alter_command_instead_of_a_restart() -> None:
    b2 = BrokerState(2, "az2", selector="", assignors=PLUGGED, read_only=frozenset())
    found = run_checks(snap(brokers=(broker(1), b2, broker(3))))
    missing = next(f for f in found if f.id == "replica-selector-missing")
    assert "kafka-configs --alter" in missing.fix and "restart" not in missing.fix


def test_rackwise_assignor_on_all_or_none_is_fine_mixed_is_an_error() -> None:
    assert run_checks(snap(brokers=tuple(broker(b, assignors=("uniform",)) for b in (1, 2, 3)))) == []
    s = snap(brokers=(broker(1), broker(2), broker(3, assignors=("uniform", "range"))))
    found = run_checks(s)
    assert ids(found) == [("rackwise-assignor-partial", "cluster")]
    assert found[0].details == {"loading": [1, 2], "missing": [3]}
    assert "broker 3 does not" in found[0].problem


def test_a_group_on_rackwise_that_some_broker_cannot_serve() -> None:
    mixed = (broker(1), broker(2), broker(3, assignors=("uniform",)))
    rw = group("orders", "az1", "az2", assignor="rackwise")
    classic = group("legacy", "az1", gtype="classic", assignor="rackwise")  # client-side
    found = run_checks(snap(brokers=mixed, groups=(rw, classic)))
    assert ids(found) == [("rackwise-assignor-partial", "cluster"),
                          ("rackwise-group-unserved", "group orders")]
    assert "broker 3 cannot serve it" in found[1].problem
    nowhere = tuple(broker(b, assignors=("uniform",)) for b in (1, 2, 3))
    found = run_checks(snap(brokers=nowhere, groups=(rw,)))
    assert ids(found) == [("rackwise-group-unserved", "group orders")]
    assert "no broker loads it" in found[0].problem
    assert run_checks(snap(groups=(rw,))) == []


def test_members_without_client_rack() -> None:
    found = run_checks(snap(groups=(group("g", "az1", None, None),)))
    assert ids(found) == [("client-rack-missing", "group g")]
    assert found[0].problem.startswith("2 of 3 members of group g set no client.rack")
    assert found[0].details["members"] == ["g-m1", "g-m2"]


def test_a_zone_name_is_mapped_only_when_unambiguous() -> None:
    # az1 and az2 have members; us-east-1c is the one unmatched name, az3 the one free rack
    found = run_checks(snap(groups=(group("g", "az1", "az2", "us-east-1c"),)))
    assert ids(found) == [("client-rack-unknown", "group g")]
    assert found[0].details["suggested"] == {"us-east-1c": "az3"}
    assert "client.rack=az3 instead of us-east-1c (likely" in found[0].fix
    # two unmatched names for one free rack: ambiguous
    found = run_checks(snap(groups=(group("g", "az1", "az2", "us-east-1c"),
                                    group("h", "us-east-1b"))))
    assert [f.details["suggested"] for f in found] == [{"us-east-1c": None}, {"us-east-1b": None}]
    assert all("ambiguous" in f.fix for f in found)
    # one unmatched name, two free racks: ambiguous too
    found = run_checks(snap(groups=(group("g", "az1", "use1-x"),)))
    assert found[0].details["suggested"] == {"use1-x": None}


def test_rack_mapping() -> None:
    racks = ("use1-az1", "use1-az2", "use1-az4")
    assert rack_mapping([group("g", "use1-az1", "use1-az2", "us-east-1d")], racks) == {
        "us-east-1d": "use1-az4"}
    assert rack_mapping([group("g", "us-east-1a", "us-east-1b")], racks) == {
        "us-east-1a": None, "us-east-1b": None}
    assert rack_mapping([group("g", "use1-az1", None)], racks) == {}


def test_agent_topics_missing_says_the_plan_reports_fail() -> None:
    agent = healthy_agent(existing=frozenset({"rackwise.subscriptions"}), members=0,
                          advice_newest_ms=None)
    found = run_checks(snap(agent=agent))
    assert ids(found) == [("agent-not-running", "agent"), ("agent-topics-missing", "agent")]
    assert "cannot publish plan reports (rackwise.plans does not exist)" in found[1].problem
    assert "RackwiseGroupAssignor" in found[1].problem  # the brokers load it
    assert found[1].details["missing"] == {"advice": "rackwise.advice", "plans": "rackwise.plans"}


def test_advice_stale_empty_and_fresh() -> None:
    stale = healthy_agent(advice_newest_ms=NOW - 901_000)
    found = run_checks(snap(agent=stale))
    assert ids(found) == [("advice-stale", "topic rackwise.advice")]
    assert found[0].details["age_s"] == 901.0
    empty = run_checks(snap(agent=healthy_agent(advice_newest_ms=None)))
    assert ids(empty) == [("advice-empty", "topic rackwise.advice")]
    assert empty[0].severity == "info" and status_of(empty) == "ok"
    assert run_checks(snap(agent=healthy_agent(advice_newest_ms=NOW - 899_000))) == []


# ---- follower fetching -----------------------------------------------------------------------

BROKER_RACKS = {1: "az1", 2: "az2", 3: "az3"}


def reads(gid: str, placement: list[tuple[int, ...]], rates: list[float],
          owners: dict[str, tuple[str | None, list[int]]]) -> GroupReads:
    topic = f"{gid}-t"
    view = ClusterView(brokers=BROKER_RACKS, topics={topic: tuple(placement)},
                       bytes_per_s={TopicPartition(topic, p): r for p, r in enumerate(rates)},
                       follower_fetching=False)
    return GroupReads(gid, view,
                      {m: tuple(TopicPartition(topic, p) for p in parts)
                       for m, (_, parts) in owners.items()},
                      {m: rack for m, (rack, _) in owners.items()})


def test_follower_fetching_saving_by_the_cost_model() -> None:
    # p0 led from az1 with a follower in az2, read by the az2 member: cross now, local then;
    # p1 led from az2, read by az2: local both ways; p2 on az3 only, read by az1: cross both.
    r = reads("g", [(1, 2), (2, 1), (3,)], [1000.0, 2000.0, 4000.0],
              {"a": ("az2", [0, 1]), "b": ("az1", [2])})
    [row] = follower_fetching_saving(snap(reads=(r,)))
    assert (row.cross_rack_partitions_leader, row.cross_rack_partitions_nearest) == (2, 1)
    assert (row.cross_rack_bytes_per_s_leader, row.cross_rack_bytes_per_s_nearest) == (5000.0, 4000.0)
    assert row.usd_per_month_leader == Price().per_month(5000.0)
    brokers = (broker(1, selector=""), broker(2, selector=""), broker(3, selector=""))
    s = snap(brokers=brokers, groups=(group("g", "az2", "az1"),), reads=(r,), window_s=5)
    found = next(f for f in run_checks(s) if f.id == "follower-fetching-off")
    assert found.details["saving_bytes_per_s"] == 1000.0
    assert found.details["saving_usd_per_month"] == Price().per_month(1000.0)
    assert "saves 1000 B/s" in found.problem and "brokers 1, 2, 3 do not use" in found.problem
    assert found.fix.endswith("rackwise's first advice here is a broker setting")


def test_follower_fetching_is_only_a_finding_when_members_set_racks() -> None:
    off = (broker(1, selector=""), broker(2), broker(3))
    assert "follower-fetching-off" not in [f.id for f in run_checks(
        snap(brokers=off, groups=(group("g", None, None),)))]
    found = run_checks(snap(brokers=off, groups=(group("g", "az1"),)))
    ff = next(f for f in found if f.id == "follower-fetching-off")
    assert ff.details["groups"] == []  # nothing measured: no figures are made up
    assert "no group's assignment could be measured" in ff.problem
    r = reads("g", [(1, 2)], [], {"a": ("az2", [0])})  # measured in partitions, not bytes
    ff = next(f for f in run_checks(snap(brokers=off, groups=(group("g", "az2"),), reads=(r,)))
              if f.id == "follower-fetching-off")
    assert "1 cross-rack partitions now, 0 with follower fetching; bytes not measured" in ff.problem
    assert "groups_not_priced" not in ff.details


def test_follower_fetching_names_the_groups_it_could_not_price() -> None:
    # g measured; h (racked members, rebalancing: no reads) and x (no racks) not measured
    off = (broker(1, selector=""), broker(2), broker(3))
    r = reads("g", [(1, 2)], [100.0], {"a": ("az2", [0])})
    groups = (group("g", "az2"), group("h", "az1", None), group("x", None))
    ff = next(f for f in run_checks(snap(brokers=off, groups=groups, reads=(r,), window_s=2))
              if f.id == "follower-fetching-off")
    assert [row["group"] for row in ff.details["groups"]] == ["g"]
    assert ff.details["groups_not_priced"] == ["h"]
    assert "not priced: h, whose assignment could not be measured now" in ff.problem
    many = tuple(group(f"h{i}", "az1") for i in range(7))
    ff = next(f for f in run_checks(snap(brokers=off, groups=many))
              if f.id == "follower-fetching-off")
    assert len(ff.details["groups_not_priced"]) == 7 and "h0, h1, h2, h3, h4 and 2 more" in ff.problem


def test_reading_the_nearest_replica_never_costs_more_seeded() -> None:
    seed = random.Random().randrange(1 << 30)
    print(f"seed={seed}")
    rng = random.Random(seed)
    for case in range(50):
        n = rng.randint(1, 12)
        placement = [tuple(rng.sample([1, 2, 3], rng.randint(1, 3))) for _ in range(n)]
        rates = [float(rng.randint(0, 10_000)) for _ in range(n)]
        owners: dict[str, tuple[str | None, list[int]]] = {
            f"m{i}": (rng.choice(["az1", "az2", "az3", None]), []) for i in range(rng.randint(1, 4))}
        for p in range(n):
            owners[rng.choice(sorted(owners))][1].append(p)
        [row] = follower_fetching_saving(snap(reads=(reads(f"g{case}", placement, rates, owners),)))
        assert row.cross_rack_bytes_per_s_nearest is not None
        assert row.cross_rack_bytes_per_s_leader is not None
        assert row.cross_rack_bytes_per_s_nearest <= row.cross_rack_bytes_per_s_leader, (seed, case)
        assert row.cross_rack_partitions_nearest <= row.cross_rack_partitions_leader, (seed, case)


# ---- output ----------------------------------------------------------------------------------

def test_findings_are_ordered_and_the_json_schema_is_stable() -> None:
    s = snap(brokers=(broker(1), broker(2, selector=""), broker(3, rack="")),
             groups=(group("g", None),), agent=healthy_agent(members=0))
    found = run_checks(s)
    assert found == run_checks(s)
    severities = [f.severity for f in found]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert {f.id for f in found} <= set(FINDING_IDS)
    doc = json.loads(render_json(s, found))
    assert set(doc) == {"status", "findings", "checked", "notes", "error"}
    assert doc["status"] == "findings"
    assert set(doc["findings"][0]) == {"id", "severity", "subject", "problem", "fix", "details"}
    assert doc["checked"]["brokers"] == [1, 2, 3] and doc["checked"]["members"] == 1
    table = render_table(s, found)
    assert table.splitlines()[0].split()[:4] == ["ID", "SEVERITY", "SUBJECT", "PROBLEM"]
    assert table.splitlines()[-1].startswith("rackwise doctor: 3 brokers, 1 group (1 members)")
    assert RACK_AWARE_SELECTOR in table  # never split across lines


def test_every_finding_id_has_a_unit_case() -> None:
    here = Path(__file__).read_text()
    assert [i for i in FINDING_IDS if f'"{i}"' not in here] == []


def test_group_unreadable_and_member_racks_from_each_protocol() -> None:
    sub = Subscription(topics=["t"], rack_id="az2")
    classic = RawGroup("c", state="Stable", protocol_type="consumer", protocol="range",
                       members=(RawMember("m1", "cl", "/10.0.0.9", encode_subscription(sub)),
                                RawMember("m2", metadata=encode_subscription(
                                    Subscription(topics=["t"])))))
    assert group_state(classic).members == (MemberState("m1", "az2", "cl", "/10.0.0.9"),
                                            MemberState("m2", None))
    kip848 = RawGroup("k", group_type="consumer", described=DescribedConsumerGroup(
        group_id="k", group_state="Stable", assignor_name="rackwise",
        members=[ConsumerGroupMember(member_id="x", rack_id="az1", client_id="c")]))
    state = group_state(kip848)
    assert (state.assignor, state.members[0].rack) == ("rackwise", "az1")
    bad = group_state(RawGroup("b", state="Stable", protocol_type="consumer",
                               members=(RawMember("m", metadata=b"\x00"),)))
    assert bad.error and "undecodable" in bad.error
    found = run_checks(snap(groups=(bad,)))
    assert ids(found) == [("group-unreadable", "group b")] and status_of(found) == "ok"


def test_testbed_overrides_touch_only_the_named_node() -> None:
    from agent.dev.testbed import Testbed

    bed = Testbed(base_dir=Path("/nonexistent"), port_base=23900, plugins=False,
                  overrides={3: {"broker.rack": None, "replica.selector.class": "x"}})
    defaults = {"broker.rack": "az3", "replica.selector.class": RACK_AWARE_SELECTOR, "a": "1"}
    assert bed.broker_properties(bed.nodes[2], defaults) == {"replica.selector.class": "x", "a": "1"}
    assert bed.broker_properties(bed.nodes[0], defaults) == defaults
    assert Testbed(base_dir=Path("/nonexistent"), port_base=23900, plugins=False).overrides == {}


def test_the_uniform_drop_in_on_some_brokers_only() -> None:
    drop_in = ("dev.rackwise.plugins.RackwiseUniformAssignor", "range",
               "dev.rackwise.plugins.RackwiseGroupAssignor")
    kafkas = ("uniform", "range", "dev.rackwise.plugins.RackwiseGroupAssignor")
    everywhere = tuple(broker(b, assignors=drop_in) for b in (1, 2, 3))
    assert run_checks(snap(brokers=everywhere)) == []
    mixed = (broker(1, assignors=drop_in), broker(2, assignors=drop_in), broker(3, assignors=kafkas))
    found = run_checks(snap(brokers=mixed))
    assert ids(found) == [("uniform-drop-in-partial", "cluster")]
    assert found[0].details == {"serving": [1, 2], "missing": [3]}
    assert "broker 3 does not" in found[0].problem
    unread = (broker(1, assignors=drop_in), broker(2, assignors=None), broker(3, assignors=drop_in))
    assert "uniform-drop-in-partial" not in [f.id for f in run_checks(snap(brokers=unread))]


def test_a_streams_group_naming_an_assignor_some_broker_does_not_serve() -> None:
    from dataclasses import replace

    from agent.doctor.model import STREAMS_ASSIGNOR_CLASS

    served = ("sticky", STREAMS_ASSIGNOR_CLASS)
    brokers = (replace(broker(1), streams_assignors=served), replace(broker(2), streams_assignors=served),
               replace(broker(3), streams_assignors=("sticky",)))
    s = replace(snap(brokers=brokers), streams_assignors={"app": "rackwise", "other": "sticky"})
    found = run_checks(s)
    assert ids(found) == [("streams-assignor-unserved", "group app")]
    assert "broker 3 does not serve it" in found[0].problem
    assert found[0].details == {"group": "app", "assignor": "rackwise", "missing": [3]}
    everywhere = tuple(replace(broker(b), streams_assignors=served) for b in (1, 2, 3))
    assert run_checks(replace(snap(brokers=everywhere), streams_assignors={"app": "rackwise"})) == []
    # a broker before 4.4 (no group.streams.assignors) or listing a class doctor cannot name: not judged
    unknown = (replace(broker(1), streams_assignors=None),
               replace(broker(2), streams_assignors=("sticky", "com.example.Other")))
    assert run_checks(replace(snap(brokers=unknown), streams_assignors={"app": "rackwise"})) == []


def test_a_streams_group_whose_coordinator_runs_another_assignor_is_named() -> None:
    """StreamsGroupDescription.assignorName (StreamsGroupDescribe v1, Kafka 4.4): the group
    asks for rackwise, its coordinator says it runs sticky. Named from that answer, even where
    the brokers' configs cannot be read, and with the brokers that lack it where they can."""
    from dataclasses import replace

    from agent.audit import RawGroup
    from agent.doctor.model import STREAMS_ASSIGNOR_CLASS
    from protocol.groupdescribe import DescribedStreamsGroup, StreamsGroupMember

    def described(name: str | None) -> GroupState:
        desc = DescribedStreamsGroup(
            group_id="app", group_state="Stable", assignor_name=name,
            members=[StreamsGroupMember(member_id="s1", rack_id="az1", process_id="p1")])
        return group_state(RawGroup("app", group_type="streams", state="Stable", described=desc))
    assert described("sticky").assignor == "sticky" and described(None).assignor == "streams"
    unreadable = tuple(broker(b, error="authorization failed") for b in (1, 2, 3))
    s = replace(snap(brokers=unreadable, groups=(described("sticky"),)),
                streams_assignors={"app": "rackwise"})
    found = [f for f in run_checks(s) if f.id == "streams-assignor-unserved"]
    assert ids(found) == [("streams-assignor-unserved", "group app")]
    assert "its coordinator runs sticky (StreamsGroupDescription.assignorName)" in found[0].problem
    assert found[0].details == {"group": "app", "assignor": "rackwise", "coordinator_runs": "sticky",
                                "missing": []}
    # readable brokers: the one lacking it is named too
    served = ("sticky", STREAMS_ASSIGNOR_CLASS)
    mixed = (replace(broker(1), streams_assignors=served), replace(broker(2), streams_assignors=served),
             replace(broker(3), streams_assignors=("sticky",)))
    (f,) = run_checks(replace(snap(brokers=mixed, groups=(described("sticky"),)),
                              streams_assignors={"app": "rackwise"}))
    assert "runs sticky" in f.problem and "broker 3 does not serve it" in f.problem
    assert f.details["missing"] == [3]
    # the coordinator runs what the group asks for: nothing to say, even with broker 3 lacking it
    # (the config check still warns about broker 3: the group moves there with its coordinator)
    assert [f.details.get("coordinator_runs") for f in run_checks(replace(
        snap(brokers=mixed, groups=(described("rackwise"),)), streams_assignors={"app": "rackwise"}))
        if f.id == "streams-assignor-unserved"] == [None]
    everywhere = tuple(replace(broker(b), streams_assignors=served) for b in (1, 2, 3))
    assert run_checks(replace(snap(brokers=everywhere, groups=(described("rackwise"),)),
                              streams_assignors={"app": "rackwise"})) == []
    # v0 (4.2/4.3) names none: only the config check speaks
    assert run_checks(replace(snap(brokers=everywhere, groups=(described(None),)),
                              streams_assignors={"app": "rackwise"})) == []
