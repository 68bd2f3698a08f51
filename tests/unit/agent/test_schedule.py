"""The agent's scheduler (agent.daemon.schedule): why and when a group is re-planned, with no
Kafka client: a group table, a fake clock and the jobs it says are due."""

from __future__ import annotations

import pytest

from agent.daemon.events import RackChange
from agent.daemon.schedule import Scheduler, rack_change_targets
from agent.daemon.state import GroupState, GroupTable, MemberState
from tests.support.groups import small_plan, sub

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def scheduler(table: GroupTable, ready: set[int], clock: Clock,
              counted: list[str] | None = None) -> Scheduler:
    return Scheduler(table, ready, 0.2, lambda g: g.topics(), clock=clock,
                     counted=(counted.append if counted is not None else lambda _r: None))


def due(s: Scheduler, now: float) -> list[tuple[str, tuple[str, ...]]]:
    """What is due, as (group, reasons), resetting each group's marks as take_job does."""
    def take(group: GroupState) -> tuple[str, tuple[str, ...]]:
        reasons = tuple(sorted(group.dirty))
        group.dirty.clear()
        group.dirty_since = None
        group.in_flight = 1
        return group.group_id, reasons
    return s.due(now, take)


def test_a_trigger_waits_for_the_coalesce_window_and_a_free_group() -> None:
    table, clock, counted = GroupTable(), Clock(), []
    table.apply(0, b"g/c1", sub(["a"]), "consumer", 1.0)
    s = scheduler(table, {0}, clock, counted)
    s.trigger("g", "member-joined")
    s.trigger("g", "subscription-changed")
    s.trigger("nobody", "member-joined")  # a group this agent does not hold: nothing
    assert counted == ["member-joined", "subscription-changed"]
    assert due(s, 100.1) == []  # still coalescing
    assert due(s, 100.3) == [("g", ("member-joined", "subscription-changed"))]
    s.trigger("g", "member-left")
    assert due(s, 101.0) == []  # a plan of g is in flight
    table.groups["g"].in_flight = None
    assert due(s, 101.0) == [("g", ("member-left",))]


def test_groups_of_partitions_not_ready_are_dropped() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(1, b"g/c1", sub(["a"]), "consumer", 1.0, partition_of=lambda _g: 1)
    s = scheduler(table, {0}, clock)
    s.trigger("g", "member-joined")
    assert due(s, 200.0) == [] and s.dirty == set()


def test_a_probing_plan_schedules_its_followup() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(0, b"g/c1", sub(["a"], [("a", 0)], 3), "consumer", 1.0)
    s = scheduler(table, {0}, clock)
    plan = small_plan([("c1", [0])]).model_copy(update={"followup_ms": 5000})
    s.published("g", plan)
    assert table.groups["g"].last_plan == plan and s.followups == {"g": 105.0}
    assert due(s, 104.0) == []
    clock.now = 105.0
    assert due(s, 105.0) == [] and s.followups == {}  # triggered now, coalescing
    assert due(s, 105.3) == [("g", ("followup",))]


def test_a_released_withheld_partition_triggers_the_followup_at_once() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(0, b"g/c1", sub(["a"], [("a", 1)], 3), "consumer", 1.0)
    s = scheduler(table, {0}, clock)
    # c1 no longer reports a-0, which the plan withheld from c2 because of it
    s.published("g", small_plan([("c1", [1]), ("c2", [])], withheld=[("a", 0, "c1", "c2")]))
    assert table.groups["g"].changes[-1] == {"reason": "followup", "released": ["a-0"]}
    assert due(s, 100.3) == [("g", ("followup",))]


def test_a_failed_plan_never_reuses_its_generation_and_retries() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(0, b"g/c1", sub(["a"]), "consumer", 1.0)
    s = scheduler(table, {0}, clock)
    table.groups["g"].in_flight = 7
    s.failed("g", 7, ("member-joined", "followup"), [{"reason": "member-joined"}], ["c0"],
             retry=True)
    g = table.groups["g"]
    assert g.in_flight is None and g.last_generation == 7 and g.expired == ["c0"]
    assert due(s, 100.3) == [("g", ("followup", "member-joined"))]
    s.failed("g", 8, ("member-joined",), [], [], retry=False)
    assert g.last_generation == 8 and due(s, 200.0) == []


def test_expiry_re_plans_ready_groups_only() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(0, b"g/c1", sub(["a"]), "consumer", 10.0)
    table.apply(0, b"g/c2", sub(["a"]), "consumer", 25.0)
    s = scheduler(table, {0}, clock)
    assert s.expire(41.0, 30.0, skip=()) == [("g", "c1")]
    assert table.groups["g"].expired == ["c1"]
    assert due(s, 100.3) == [("g", ("member-expired",))]
    assert s.expire(90.0, 30.0, skip={0}) == []  # a partition behind or loading: left alone


def test_traffic_replans_are_triggered_with_their_detail() -> None:
    table, clock = GroupTable(), Clock()
    table.apply(0, b"g/c1", sub(["a"]), "consumer", 1.0)
    calls = []

    def replans(now, groups, ready, followups):  # type: ignore[no-untyped-def]
        calls.append(now)
        return [("g", {"saving": 0.5})] if len(calls) == 1 else []

    s = Scheduler(table, {0}, 0.2, lambda g: g.topics(), traffic_replans=replans, clock=clock)
    assert due(s, 100.0) == []
    assert table.groups["g"].changes[-1] == {"reason": "traffic-changed", "saving": 0.5}
    assert due(s, 100.3) == [("g", ("traffic-changed",))]


def test_a_leader_move_replans_only_groups_that_read_from_leaders() -> None:
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
    table = GroupTable()
    table.groups.update(groups)
    s = scheduler(table, {0}, Clock())
    assert s.rack_change(moved, True) == ["rackless"] and s.dirty == {"rackless"}
