"""The group table (agent.daemon.state): joins, heartbeats, expiry, bad records, follow-ups."""

from __future__ import annotations

import pytest

from agent.daemon.state import GroupTable, InputRejected
from tests.support.groups import small_plan, sub

pytestmark = pytest.mark.unit


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
    g.last_plan = small_plan([("c1", [1]), ("c2", [])], withheld=[("a", 0, "c1", "c2")])
    # Not before c1 reports the plan's generation (3): until then it may still take a-0 up
    # from an older plan it is applying.
    early = t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 2), "consumer", 2.0)
    assert early.reason is None
    change = t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 3), "consumer", 2.0)
    assert change.reason == "followup"
    assert change.detail["released"] == ["a-0"]


def test_may_hold_counts_what_an_unconfirmed_plan_gave_or_withheld() -> None:
    from agent.daemon.state import may_hold

    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"], [], 2), "consumer", 1.0)
    c1 = t.groups["g"].members["c1"]
    plan = small_plan([("c1", [1]), ("c2", [2])], withheld=[("a", 0, "c1", "c2")])  # generation 3
    assert may_hold(c1, plan) == {("a", 0), ("a", 1)}
    t.apply(0, b"g/c1", sub(["a"], [("a", 1)], 3), "consumer", 2.0)
    assert may_hold(t.groups["g"].members["c1"], plan) == {("a", 1)}
