"""Which groups a rack change re-plans (agent.daemon.loop.rack_change_targets)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


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
