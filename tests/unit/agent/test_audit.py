"""Observe mode's audit on hand-built groups: bad input is reported, never raised.

Member bytes are encoded with the project's own codecs (their Java parity is tested in
test_golden_vectors); replica placement comes from a fake ``describe``. The AdminClient is a
fake only here: the real one is exercised in tests/integration/test_audit.py.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from agent.audit import (
    EMPTY,
    ERROR,
    OK,
    RACK_UNKNOWN,
    REBALANCING,
    UNDECODABLE,
    UNSUPPORTED,
    RawGroup,
    RawMember,
    audit_group,
    read_groups,
    render_table,
)
from agent.daemon.observe import observed_generation
from assignor.cluster import ClusterView
from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    encode_assignment,
    encode_subscription,
)
from protocol.streams import TaskId, build_subscription_info, encode_subscription_info
from protocol.streams_assignment import build_assignment_info, encode_assignment_info

pytestmark = pytest.mark.unit

BROKERS = {1: "az1", 2: "az2", 3: "az3"}


def _describe(topics: dict[str, list[list[int]]]):  # type: ignore[no-untyped-def]
    def describe(names):  # type: ignore[no-untyped-def]
        keep = {t: tuple(tuple(r) for r in topics[t]) for t in sorted(set(names)) if t in topics}
        return ClusterView(brokers=BROKERS, topics=keep)

    return describe


def _member(mid: str, rack: str | None, topics: list[str], parts: list[tuple[str, int]],
            version: int = 3) -> RawMember:
    sub = Subscription(topics=topics, rack_id=rack, version=version)
    by_topic: dict[str, list[int]] = {}
    for t, p in parts:
        by_topic.setdefault(t, []).append(p)
    asg = Assignment([TopicPartitions(t, ps) for t, ps in sorted(by_topic.items())])
    return RawMember(mid, metadata=encode_subscription(sub, version),
                     assignment=encode_assignment(asg))


def _group(members: tuple[RawMember, ...], **kw: Any) -> RawGroup:
    base: dict[str, Any] = {"state": "Stable", "protocol_type": "consumer",
                            "protocol": "cooperative-sticky"}
    base.update(kw)
    return RawGroup("g", members=members, **base)


def _cross(parts: dict[str, list[tuple[str, int]]], racks: dict[str, str],
           placement: dict[str, list[list[int]]]) -> int:
    """The test's own count: no replica broker of the partition in the member's rack."""
    return sum(
        1 for m, tps in parts.items() for t, p in tps
        if racks[m] not in {BROKERS[b] for b in placement[t][p]}
    )


def test_swapped_members_measure_actual_and_best() -> None:
    placement = {"t": [[2], [1]]}
    g = _group((_member("a", "az1", ["t"], [("t", 0)]), _member("b", "az2", ["t"], [("t", 1)])))
    out = audit_group(g, _describe(placement))
    assert out.status == OK and out.kind == "consumer"
    assert (out.members, out.partitions, out.cross_rack_actual, out.cross_rack_best) == (2, 2, 2, 0)
    assert out.saving_pct == 100.0
    assert out.actual is not None and out.actual.reason == "observed"
    assert out.best is not None and out.best.reason == "recommended"
    assert {m.member_id: [p.partition for p in m.partitions] for m in out.best.members} == {
        "a": [1], "b": [0]}


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_random_groups_count_like_an_independent_count(version: int) -> None:
    seed = random.Random().randrange(1 << 30)
    print(f"seed={seed}")
    rng = random.Random(seed)
    n = rng.randint(6, 18)
    placement = {"t": [rng.sample([1, 2, 3], rng.randint(1, 2)) for _ in range(n)]}
    ids = [f"m{i}" for i in range(rng.randint(1, 4))]
    racks = {m: rng.choice(["az1", "az2", "az3"]) for m in ids}
    parts: dict[str, list[tuple[str, int]]] = {m: [] for m in ids}
    for p in range(n):
        parts[rng.choice(ids)].append(("t", p))
    members = tuple(_member(m, racks[m], ["t"], parts[m], version) for m in ids)
    out = audit_group(_group(members), _describe(placement))
    assert out.actual is not None and out.best is not None
    if version < 3:
        # v0-v2 carry no rack: never free. Every member reads from the leader from a host
        # somewhere: expected 2/3 of each partition crosses racks (3 racks), worst all of it.
        assert out.status == RACK_UNKNOWN and out.advice and "client.rack" in out.advice
        assert out.cross_rack_actual == 0 and out.rack_unknown_partitions == n
        assert out.rack_unknown_members == tuple(sorted(ids))
        assert out.actual.summary.traffic_cost == pytest.approx(n * 2 / 3)
        assert out.best.summary.lower_bound == pytest.approx(n * 2 / 3)
        return
    assert out.status == OK
    expected = _cross(parts, racks, placement)
    assert out.cross_rack_actual == expected
    assert out.cross_rack_best is not None and out.cross_rack_best <= expected
    assert out.best.summary.lower_bound == out.cross_rack_best


def test_other_protocol_types_empty_and_rebalancing_groups_are_reported() -> None:
    m = _member("a", "az1", ["t"], [("t", 0)])
    cases = {
        "connect": _group((RawMember("w1", metadata=b"\x00\x01junk", assignment=b"x"),),
                          protocol_type="connect", protocol="sessioned"),
        "kip848": RawGroup("g", group_type="consumer"),
        "share": RawGroup("g", group_type="share"),
        "empty": _group((), state="Empty"),
        "rebalancing": _group((RawMember("a", metadata=m.metadata, assignment=None),),
                              state="CompletingRebalance"),
        "broker-error": RawGroup("g", error="COORDINATOR_NOT_AVAILABLE"),
    }
    expect = {"connect": UNSUPPORTED, "kip848": UNSUPPORTED, "share": UNSUPPORTED,
              "empty": EMPTY, "rebalancing": REBALANCING, "broker-error": ERROR}
    for name, group in cases.items():
        out = audit_group(group, _describe({"t": [[1]]}))
        assert out.status == expect[name], (name, out)
        assert out.cross_rack_actual is None and out.error
    table = render_table([audit_group(g, _describe({})) for g in cases.values()])
    assert "unsupported: protocol type 'connect'" in table


@pytest.mark.parametrize("metadata, assignment", [
    (b"", b""),
    (b"\x00\x03\x00\x00\x00\x05", b"\x00\x03\x00\x00\x00\x00"),  # 5 topics announced, none there
    (b"\xff\xff", b"\x00\x00"),  # negative version
    (bytes(range(40)), bytes(range(40))),
])
def test_garbage_member_metadata_is_undecodable(metadata: bytes, assignment: bytes) -> None:
    good = _member("a", "az1", ["t"], [("t", 0)])
    bad = RawMember("z-bad", metadata=metadata, assignment=assignment)
    out = audit_group(_group((good, bad)), _describe({"t": [[1]]}))
    assert out.status == UNDECODABLE
    assert out.undecodable_members == ("z-bad",)
    assert "z-bad" in (out.error or "")


def test_streams_member_with_consumer_user_data_is_undecodable() -> None:
    plain = _member("a", "az1", ["in"], [("in", 0)])
    out = audit_group(_group((plain,), protocol="stream"), _describe({"in": [[1]]}))
    assert out.status == UNDECODABLE and out.kind == "streams"


def _streams_member(mid: str, pid: uuid.UUID, rack: str, active: list[int],
                    standby: list[int]) -> RawMember:
    info = build_subscription_info(11, pid, {TaskId(0, p): -2 for p in active})
    sub = Subscription(topics=["in"], user_data=encode_subscription_info(info), rack_id=rack)
    ainfo = build_assignment_info(
        10, [TaskId(0, p) for p in active], {TaskId(0, p): [("in", p)] for p in standby}, {})
    asg = Assignment([TopicPartitions("in", active)], user_data=encode_assignment_info(ainfo))
    return RawMember(mid, metadata=encode_subscription(sub), assignment=encode_assignment(asg))


def test_streams_app_decoded_from_its_own_bytes() -> None:
    # 4 partitions of "in": 0,1 only in az1, 2,3 only in az2; the app runs them crossed.
    placement = {"in": [[1], [1], [2], [2]], "app-store-changelog": [[1, 2, 3]] * 4}
    p1, p2 = uuid.UUID(int=1), uuid.UUID(int=2)
    g = _group((_streams_member("x", p1, "az1", [2, 3], [0, 1]),
                _streams_member("y", p2, "az2", [0, 1], [2, 3])), protocol="stream")
    g = RawGroup("app", g.group_type, g.state, g.protocol_type, g.protocol, g.members)
    out = audit_group(g, _describe(placement), lambda: sorted(placement))
    assert out.status == OK, out.error
    assert (out.kind, out.partitions, out.cross_rack_actual, out.cross_rack_best) == (
        "streams", 4, 4, 0)
    assert out.actual is not None
    assert {m.rack: m.active_tasks for m in out.actual.members} == {
        "az1": ["0_2", "0_3"], "az2": ["0_0", "0_1"]}
    assert out.best is not None
    assert {m.rack: m.active_tasks for m in out.best.members} == {
        "az1": ["0_0", "0_1"], "az2": ["0_2", "0_3"]}
    assert out.best.config["num_standby_replicas"] == 1


def test_read_groups_with_a_fake_admin() -> None:
    class Future:
        def __init__(self, value: Any) -> None:
            self.value = value

        def result(self, timeout: float | None = None) -> Any:
            return self.value

    member = SimpleNamespace(id="m1", client_id="c", client_host="/h", metadata=b"\x00",
                             assignment=b"")
    described = [
        SimpleNamespace(id="classic-g", state="Stable", protocol_type="consumer",
                        protocol="range", members=[member], error=None),
        # not in ListConsumerGroups' answer, but DescribeGroups knows it
        SimpleNamespace(id="connect-g", state="Stable", protocol_type="connect",
                        protocol="sessioned", members=[member], error=None),
        SimpleNamespace(id="new-g", state="Dead", protocol_type="", protocol="", members=[],
                        error=None),
    ]

    class Admin:
        def list_consumer_groups(self, **_: Any) -> Future:
            listing = [SimpleNamespace(group_id=g, type=SimpleNamespace(name=t))
                       for g, t in [("new-g", "CONSUMER"), ("classic-g", "CLASSIC"),
                                    ("gone-g", "CLASSIC"), ("other", "CLASSIC")]]
            return Future(SimpleNamespace(valid=listing, errors=[]))

        def list_groups(self, timeout: float) -> list[Any]:
            return described

    groups = read_groups(Admin(), "*-g")
    assert [(g.group_id, g.group_type, g.state, g.protocol_type) for g in groups] == [
        ("classic-g", "classic", "Stable", "consumer"),
        ("connect-g", "classic", "Stable", "connect"),
        ("gone-g", "classic", "Dead", ""),
        ("new-g", "consumer", "", "")]
    assert audit_group(groups[1], _describe({})).status == UNSUPPORTED
    assert groups[0].members[0].metadata == b"\x00" and groups[0].members[0].assignment is None


def test_observed_generations_rise_even_when_the_clock_does_not() -> None:
    first = observed_generation(-1, 1000)
    assert first % 2 == 0
    second = observed_generation(first + 1, 1000)
    assert second > first + 1 and second % 2 == 0


def test_audit_without_a_cluster_is_a_one_line_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import main

    monkeypatch.delenv("RACKWISE_BOOTSTRAP", raising=False)
    assert main(["audit"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--bootstrap" in err


def _kip848(members: list[tuple[str, str | None, list[int]]], state: str = "Stable") -> RawGroup:
    from protocol.groupdescribe import (
        AssignedTopic,
        ConsumerGroupMember,
        DescribedConsumerGroup,
        MemberAssignment,
    )

    desc = DescribedConsumerGroup(group_id="g848", group_state=state, assignor_name="uniform",
                                  members=[
        ConsumerGroupMember(member_id=mid, rack_id=rack, client_host=f"/10.0.{i}.1",
                            subscribed_topic_names=["t"],
                            assignment=MemberAssignment([AssignedTopic(topic_name="t",
                                                                       partitions=parts)]))
        for i, (mid, rack, parts) in enumerate(members)])
    return RawGroup("g848", group_type="consumer", state=state, protocol_type="consumer",
                    described=desc)


def test_kip848_group_is_measured_from_consumer_group_describe() -> None:
    placement = {"t": [[2], [1]]}
    out = audit_group(_kip848([("a", "az1", [0]), ("b", "az2", [1])]), _describe(placement))
    assert (out.status, out.kind, out.group_type, out.protocol) == (OK, "consumer", "consumer",
                                                                   "uniform")
    assert (out.members, out.partitions, out.cross_rack_actual, out.cross_rack_best) == (2, 2, 2, 0)
    assert out.read_model == "nearest-replica"


def test_kip848_reconciling_group_is_rebalancing() -> None:
    out = audit_group(_kip848([("a", "az1", [0])], state="Reconciling"), _describe({"t": [[1]]}))
    assert out.status == REBALANCING and "Reconciling" in (out.error or "")


def test_rackless_members_placed_by_the_host_map() -> None:
    from agent.audit import AuditOptions
    from agent.config.cost import HostRacks

    # member a (host 10.0.0.1) has no rack; the map puts it in az2; t-0 is led from az1
    placement = {"t": [[1, 2], [2]]}
    raw = _kip848([("a", None, [0]), ("b", "az2", [1])])
    unknown = audit_group(raw, _describe(placement))
    assert unknown.status == RACK_UNKNOWN and unknown.rack_unknown_members == ("a",)
    hosts = HostRacks.parse({"10.0.0.0/24": "az2"})
    out = audit_group(raw, _describe(placement), options=AuditOptions(hosts=hosts))
    assert out.status == OK and out.host_mapped_members == ("a",)
    # a reads from the leader (az1), although a follower sits in its own rack
    assert out.cross_rack_actual == 1 and out.advice and "client.rack" in out.advice
    assert out.actual is not None
    assert {m.member_id: m.rack_source for m in out.actual.members} == {
        "a": "host-map", "b": "client.rack"}


def test_kip1071_streams_group_is_measured_from_streams_group_describe() -> None:
    from protocol.groupdescribe import (
        DescribedStreamsGroup,
        StreamsGroupMember,
        StreamsTopology,
        Subtopology,
        TaskIds,
        TasksAssignment,
        TopicInfo,
    )

    placement = {"in": [[1], [1], [2], [2]], "app-store-changelog": [[1, 2, 3]] * 4}

    def member(mid: str, rack: str, active: list[int]) -> StreamsGroupMember:
        return StreamsGroupMember(member_id=mid, rack_id=rack, process_id=f"p-{mid}",
                                  assignment=TasksAssignment(active_tasks=[TaskIds("0", active)]))

    desc = DescribedStreamsGroup(group_id="app", group_state="Stable", topology=StreamsTopology(
        subtopologies=[Subtopology("0", ["in"], state_changelog_topics=[
            TopicInfo("app-store-changelog")])]),
        members=[member("x", "az1", [2, 3]), member("y", "az2", [0, 1])])
    raw = RawGroup("app", group_type="streams", state="Stable", protocol_type="streams",
                   described=desc)
    out = audit_group(raw, _describe(placement))
    assert out.status == OK, out.error
    assert (out.kind, out.members, out.partitions, out.cross_rack_actual, out.cross_rack_best) == (
        "streams", 2, 4, 4, 0)
    assert out.actual is not None
    assert {m.rack: m.active_tasks for m in out.actual.members} == {
        "az1": ["0_2", "0_3"], "az2": ["0_0", "0_1"]}
    # StreamsGroupDescribe v0 (Kafka 4.2/4.3) names no assignor: the table says "-"
    assert out.protocol == "streams"
    assert render_table([out]).splitlines()[1].split()[:3] == ["app", "streams", "-"]
    # v1 (Kafka 4.4, KIP-1357) does: the audit, its plan and the table carry it
    named = audit_group(replace(raw, described=replace(desc, assignor_name="rackwise")),
                        _describe(placement))
    assert named.protocol == "rackwise" and named.actual is not None
    assert named.actual.assignor == "rackwise" and named.to_json()["protocol"] == "rackwise"
    header, row = render_table([named]).splitlines()[:2]
    assert header.split()[:3] == ["GROUP", "KIND", "ASSIGNOR"]
    assert row.split()[:6] == ["app", "streams", "rackwise", "2", "4", "4"]


def test_measured_traffic_in_the_table_and_json() -> None:
    from assignor.cluster import TopicPartition

    def describe(names):  # type: ignore[no-untyped-def]
        return ClusterView(brokers=BROKERS, topics={"t": ((2,), (1,))},
                           bytes_per_s={TopicPartition("t", 0): 3 * 2**20,
                                        TopicPartition("t", 1): 2**20})

    g = _group((_member("a", "az1", ["t"], [("t", 0)]), _member("b", "az2", ["t"], [("t", 1)])))
    out = audit_group(g, describe)
    row = out.to_json()
    assert row["bytes_per_s"] == 4 * 2**20 and row["cross_rack_bytes_per_s_actual"] == 4 * 2**20
    assert row["cross_rack_bytes_per_s_best"] == 0.0
    assert row["usd_per_month_actual"] == pytest.approx(4 / 1024 * 730 * 3600 * 0.02, abs=0.01)
    table = render_table([out])
    assert "4.0 MiB/s" in table and "$205.31" in table
