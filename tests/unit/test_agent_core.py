"""Pure unit tests of the agent's decisions: state, fingerprints, debounce, withholding, settings."""

from __future__ import annotations

import json
import random

import pytest

from agent.daemon.planning import take_job
from agent.daemon.racks import (
    UNKNOWN,
    Debouncer,
    diff,
    fingerprint,
    leader_fingerprint,
    merge_unknown,
)
from agent.daemon.state import GroupTable, InputRejected
from agent.logs import redact
from agent.routing import group_partition, murmur2, parse_key
from agent.settings import load_settings
from assignor.api import enforce_withholding, infer_reason, pick_reason
from assignor.cluster import TopicPartition
from protocol.consumer import encode_subscription, java_subscription
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary, WithheldPartition

pytestmark = pytest.mark.unit


def sub(
    topics: list[str],
    owned: list[tuple[str, int]] = (),
    gen: int = -1,  # type: ignore[assignment]
    rack: str | None = "az1",
) -> bytes:
    return encode_subscription(java_subscription(topics, owned, generation_id=gen, rack_id=rack), 3)


# ---- routing -------------------------------------------------------------------------------
def test_murmur2_matches_kafka_python_default_partitioner() -> None:
    from kafka.partitioner.default import murmur2 as reference

    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        assert murmur2(data) & 0x7FFFFFFF == reference(data) & 0x7FFFFFFF


def test_group_partition_is_javas_for_the_group_id() -> None:
    # Java: Utils.toPositive(Utils.murmur2("21".getBytes())) == 1 for kafka-python's test vector
    assert murmur2(b"21") & 0x7FFFFFFF == (-973932308) & 0x7FFFFFFF
    assert group_partition("orders", 1) == 0
    assert parse_key(b"g/m/with/slash") == ("g", "m/with/slash")


# ---- state ---------------------------------------------------------------------------------
def test_join_heartbeat_adopt_change_leave() -> None:
    t = GroupTable()
    assert t.apply(0, b"g/c1", sub(["a"]), "consumer", 1.0).reason == "member-joined"
    assert t.apply(0, b"g/c1", sub(["a"]), "consumer", 2.0).reason is None  # heartbeat
    assert t.groups["g"].members["c1"].last_seen == 2.0
    # Adopting a plan (owned + generation change) is not a trigger: no re-plan loop.
    assert t.apply(0, b"g/c1", sub(["a"], [("a", 0)], 3), "consumer", 3.0).reason is None
    assert (
        t.apply(0, b"g/c1", sub(["a", "b"], [("a", 0)], 3), None, 4.0).reason
        == "subscription-changed"
    )
    assert (
        t.apply(0, b"g/c1", sub(["a", "b"], [("a", 0)], 3, rack="az2"), None, 5.0).reason
        == "subscription-changed"
    )
    assert t.apply(0, b"g/c1", None, "consumer", 6.0).reason == "member-left"
    assert t.groups["g"].members == {}
    assert t.apply(0, b"g/c1", None, "consumer", 7.0).reason is None  # tombstone again


def test_expiry_after_session_timeout() -> None:
    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"]), "consumer", 10.0)
    t.apply(0, b"g/c2", sub(["a"]), "consumer", 25.0)
    assert t.expire(now=39.0, timeout_s=30.0) == []
    assert t.expire(now=41.0, timeout_s=30.0) == [("g", "c1")]
    assert list(t.groups["g"].members) == ["c2"]


@pytest.mark.parametrize(
    ("key", "value", "kind", "partition", "reason"),
    [
        (b"g/c1", b"\x00", "consumer", 0, "undecodable"),
        (b"g/c1", sub(["a"])[:7], "consumer", 0, "undecodable"),
        (b"g/c1", b"\xff\xff" + sub(["a"])[2:], "consumer", 0, "undecodable"),
        (b"nokey", sub(["a"]), "consumer", 0, "bad-key"),
        (b"\xff\xfe/x", sub(["a"]), "consumer", 0, "bad-key"),
        (b"g/c1", sub(["a"]), "martian", 0, "bad-kind"),
        (b"g/c1", sub(["a"]), "consumer", 1, "wrong-partition"),
    ],
)
def test_bad_records_are_rejected_with_a_reason(
    key: bytes, value: bytes, kind: str, partition: int, reason: str
) -> None:
    t = GroupTable()
    with pytest.raises(InputRejected) as err:
        t.apply(partition, key, value, kind, 1.0, partition_of=lambda g: 0)
    assert err.value.reason == reason
    assert t.groups == {}


def test_followup_when_owner_releases_a_withheld_partition() -> None:
    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"], [("a", 0), ("a", 1)], 1), "consumer", 1.0)
    g = t.groups["g"]
    g.last_plan = _plan([("c1", [1]), ("c2", [])], withheld=[("a", 0, "c1", "c2")])
    # Not before c1 reports the plan's generation (3): until then it may still take a-0 up
    # from an older plan it is applying.
    early = t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 2), "consumer", 2.0)
    assert early.reason is None
    change = t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 3), "consumer", 2.0)
    assert change.reason == "followup"
    assert change.detail["released"] == ["a-0"]


def test_generation_strictly_above_everything_seen() -> None:
    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"], gen=7), "consumer", 1.0)
    g = t.groups["g"]
    g.last_generation = 5
    settings = load_settings(bootstrap="x:1")
    assert take_job(g, settings.planner, ("a",)).generation == 8
    assert g.in_flight == 8
    g.in_flight = 9
    assert take_job(g, settings.planner, ("a",)).generation == 10


def test_reason_priority() -> None:
    assert pick_reason({"followup", "replica-racks-changed"}) == "replica-racks-changed"
    assert pick_reason({"followup", "member-joined"}) == "member-joined"
    assert pick_reason(set()) is None
    assert infer_reason(None, ["c1"]) == "initial"


# ---- fingerprints and debounce --------------------------------------------------------------
RACKS = {1: "az1", 2: "az2", 3: "az3"}


def test_fingerprint_sets_and_unknown() -> None:
    assert fingerprint([[1, 2], [2, 1]], RACKS) == (("az1", "az2"), ("az1", "az2"))
    assert fingerprint([[1, 9]], RACKS) == (UNKNOWN,)
    assert fingerprint([[1, 3]], {1: "az1", 3: None}) == (UNKNOWN,)


def test_diff_ignores_unknown_reorder_and_same_rack_moves() -> None:
    a = fingerprint([[1, 2], [2, 3]], RACKS)
    assert diff(a, fingerprint([[2, 1], [3, 2]], RACKS)) is None
    assert diff(a, merge_unknown(a, fingerprint([[1, 9], [2, 3]], RACKS))) is None
    change = diff(a, fingerprint([[1, 3], [2, 3]], RACKS))
    assert change == {
        "kind": "replica-racks-changed",
        "partitions": [{"partition": 0, "from": ["az1", "az2"], "to": ["az1", "az3"]}],
    }
    assert diff(a, fingerprint([[1, 2], [2, 3], [3, 1]], RACKS))["kind"] == "partitions-changed"


def test_debounce_requires_the_change_to_hold() -> None:
    d = Debouncer(window_s=5)
    base = fingerprint([[1, 2]], RACKS)
    moved = fingerprint([[1, 3]], RACKS)
    assert d.observe("t", base, 0) is None
    assert d.observe("t", moved, 1) is None
    assert d.observe("t", base, 2) is None  # flapped back: pending cleared
    assert d.observe("t", moved, 3) is None  # pending again from t=3
    assert d.observe("t", moved, 7.9) is None
    change = d.observe("t", moved, 8.0)
    assert change is not None and change.topic == "t" and change.kind == "replica-racks-changed"
    assert d.observe("t", moved, 20) is None  # accepted: no repeat


def test_bouncing_broker_is_not_a_change() -> None:
    d = Debouncer(window_s=0)
    d.observe("t", fingerprint([[1, 2], [2, 3]], RACKS), 0)
    down = {1: "az1", 3: "az3"}  # broker 2 gone and never remembered: unknown
    for now in (1, 2, 3):
        assert d.observe("t", fingerprint([[1, 2], [2, 3]], down), now) is None
    assert d.observe("t", fingerprint([[1, 2], [2, 3]], RACKS), 4) is None


def test_leader_moves_are_debounced_into_leaders_changed() -> None:
    d = Debouncer(window_s=5, kind="leaders-changed")
    before = leader_fingerprint(3, {0: 1, 1: 2, 2: 3}, RACKS)
    assert before == (("az1",), ("az2",), ("az3",))
    after = leader_fingerprint(3, {0: 2, 1: 2, 2: 3}, RACKS)  # p0's leader moved az1 -> az2
    assert d.observe("t", before, 0) is None
    assert d.observe("t", after, 1) is None
    change = d.observe("t", after, 6)
    assert change is not None and change.kind == "leaders-changed"
    assert change.detail["partitions"] == [{"partition": 0, "from": ["az1"], "to": ["az2"]}]
    # no leader (an election under way) or a broker of unknown rack is never a move
    assert leader_fingerprint(3, {1: 2, 2: 9}, RACKS) == (UNKNOWN, ("az2",), UNKNOWN)
    assert d.observe("t", leader_fingerprint(3, {1: 2, 2: 9}, RACKS), 20) is None
    # a partition-count change is the replica debouncer's to report, not a leader move
    assert d.observe("t", leader_fingerprint(4, {0: 2, 1: 2, 2: 3, 3: 1}, RACKS), 30) is None
    assert d.observe("t", leader_fingerprint(4, {0: 2, 1: 2, 2: 3, 3: 1}, RACKS), 40) is None


# ---- withholding ------------------------------------------------------------------------------
def _plan(
    members: list[tuple[str, list[int]]], withheld: list[tuple[str, int, str, str]] = ()
) -> AssignmentPlan:  # type: ignore[assignment]
    return AssignmentPlan(
        group_id="g",
        generation=3,
        reason="member-joined",
        assignor="x",
        members=[
            MemberPlan(
                member_id=m,
                rack=None,
                partitions=[PartitionPlan(topic="a", partition=p, cross_rack=False) for p in ps],
            )
            for m, ps in members
        ],
        withheld=[
            WithheldPartition(topic=t, partition=p, owner=o, target=g) for t, p, o, g in withheld
        ],
        summary=PlanSummary(
            partitions=0, cross_rack_partitions=0, traffic_cost=0, max_load=0, min_load=0
        ),
    )


def _tps(owned: dict[str, frozenset[tuple[str, int]]]) -> dict[str, list[TopicPartition]]:
    return {m: [TopicPartition(t, p) for t, p in sorted(s)] for m, s in owned.items()}


def test_withholding_keeps_partitions_from_new_owner_while_old_owner_reports_them() -> None:
    plan = _plan([("c1", [0]), ("c2", [1, 2])])
    owned = {"c1": frozenset({("a", 0), ("a", 1)}), "c2": frozenset()}
    out = enforce_withholding(plan, _tps(owned))
    assert [(m.member_id, [p.partition for p in m.partitions]) for m in out.members] == [
        ("c1", [0]),
        ("c2", [2]),
    ]
    assert [(w.partition, w.owner, w.target) for w in out.withheld] == [(1, "c1", "c2")]
    # Once c1 re-publishes without a-1, the follow-up plan may give it to c2.
    released = enforce_withholding(plan, _tps({"c1": frozenset({("a", 0)}), "c2": frozenset()}))
    assert released == plan


def test_withholding_fuzz_never_gives_an_owned_partition_to_someone_else() -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(200):
        ids = [f"c{i}" for i in range(rng.randint(1, 4))]
        parts = list(range(rng.randint(1, 8)))
        target = {m: [] for m in ids}
        for p in parts:
            target[rng.choice(ids)].append(p)
        owned = {m: frozenset(("a", p) for p in parts if rng.random() < 0.3) for m in ids}
        out = enforce_withholding(_plan(sorted(target.items())), _tps(owned))
        for m in out.members:
            for p in m.partitions:
                assert all(("a", p.partition) not in owned[o] for o in ids if o != m.member_id)
        given = sorted(
            [p.partition for m in out.members for p in m.partitions]
            + [w.partition for w in out.withheld]
        )
        assert given == parts


# ---- settings and logs ----------------------------------------------------------------------------
def test_settings_env_file_and_redaction(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "agent.toml"
    cfg.write_text(
        '[rackwise]\nbootstrap = "file:9092"\n[rackwise.metadata]\ninterval_s = 7\n'
        '[rackwise.kafka]\n"ssl.key.password" = "pem-secret"\n'
    )
    monkeypatch.setenv("RACKWISE_KAFKA__SASL_PASSWORD", "hunter2")
    monkeypatch.setenv("RACKWISE_KAFKA__SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("RACKWISE_METADATA__DEBOUNCE_S", "4")
    s = load_settings(cfg)
    assert s.bootstrap == "file:9092" and s.metadata.interval_s == 7 and s.metadata.debounce_s == 4
    conf = s.client_config()
    assert conf["sasl.password"] == "hunter2" and conf["ssl.key.password"] == "pem-secret"
    assert conf["security.protocol"] == "SASL_SSL"
    shown = json.dumps(s.redacted()) + repr(s) + str(s)
    assert "hunter2" not in shown and "pem-secret" not in shown
    assert load_settings(cfg, bootstrap="cli:1").bootstrap == "cli:1"
    monkeypatch.setenv("RACKWISE_BOOTSTRAP", "env:1")
    assert load_settings(cfg).bootstrap == "env:1"


def test_log_redaction_masks_nested_secrets() -> None:
    event = {
        "event": "x",
        "conf": {"sasl.password": "p", "bootstrap.servers": "b"},
        "sasl_password": "q",
    }
    out = redact(None, "info", event)
    assert out["conf"] == {"sasl.password": "**********", "bootstrap.servers": "b"}
    assert out["sasl_password"] == "**********"


def test_may_hold_counts_what_an_unconfirmed_plan_gave_or_withheld() -> None:
    from agent.daemon.state import may_hold

    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"], [], 2), "consumer", 1.0)
    c1 = t.groups["g"].members["c1"]
    plan = _plan([("c1", [1]), ("c2", [2])], withheld=[("a", 0, "c1", "c2")])  # generation 3
    assert may_hold(c1, plan) == {("a", 0), ("a", 1)}
    t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 3), "consumer", 2.0)
    assert may_hold(t.groups["g"].members["c1"], plan) == {("a", 1)}


def test_streams_groups_watch_their_changelog_topics() -> None:
    """Standbys read changelogs: their racks must be described, or rack awareness turns off."""
    from agent.daemon.planning import planned_topics
    from agent.settings import PlannerSettings

    topology = {"subtopologies": [
        {"id": 0, "source_topics": ["clicks"], "changelog_topics": ["app-counts-changelog"],
         "stateful": True},
        {"id": 1, "source_topics": ["app-repartition"], "changelog_topics": [], "stateful": False},
    ]}
    settings = PlannerSettings(streams_topologies={"app-*": topology})
    assert planned_topics("app-1", "streams", ["clicks", "app-repartition"], settings) == (
        "app-counts-changelog", "app-repartition", "clicks")
    # consumer groups and unconfigured Streams groups: the subscribed topics only
    assert planned_topics("app-1", "consumer", ["clicks"], settings) == ("clicks",)
    assert planned_topics("other", "streams", ["clicks"], settings) == ("clicks",)


def test_a_leader_move_replans_only_groups_that_read_from_leaders() -> None:
    from agent.daemon.events import RackChange
    from agent.daemon.loop import rack_change_targets
    from agent.daemon.state import GroupState, MemberState

    def group(gid: str, racks: list[str | None]) -> GroupState:
        g = GroupState(group_id=gid, partition=0)
        for i, rack in enumerate(racks):
            g.members[f"m{i}"] = MemberState(f"m{i}", "consumer", rack, ("t",), frozenset(), 1,
                                             b"", 0.0)
        return g

    groups = {"racked": group("racked", ["az1", "az2"]),
              "rackless": group("rackless", ["az1", None]),
              "elsewhere": GroupState(group_id="elsewhere", partition=1)}
    moved = RackChange("t", "leaders-changed", {})
    racks = RackChange("t", "replica-racks-changed", {})

    def topics(g: GroupState) -> list[str]:
        return g.topics()

    assert rack_change_targets(moved, groups, {0}, topics, True) == ["rackless"]
    assert rack_change_targets(moved, groups, {0}, topics, None) == ["rackless"]
    assert rack_change_targets(moved, groups, {0}, topics, False) == ["racked", "rackless"]
    assert rack_change_targets(racks, groups, {0}, topics, True) == ["racked", "rackless"]
    assert rack_change_targets(racks, groups, set(), topics, True) == []
