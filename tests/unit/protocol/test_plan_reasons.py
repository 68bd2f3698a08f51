"""Every Python reader of plans accepts a reason it does not know and carries it as-is.

A new writer (Kafka's plug-ins publishing ``assigned`` plans, or a newer agent) must never make
an older reader drop plans: a member that stops following plans is a silent outage
(docs/architecture.md § The plan).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest

from agent.member.follower import newest_plan
from protocol.errors import PlanError
from protocol.plan import (
    KNOWN_REASONS,
    PLAN_REASONS,
    PLUGIN_REASON,
    AssignmentPlan,
    MemberPlan,
    PartitionPlan,
    PlanSummary,
)

pytestmark = pytest.mark.unit

NEW_REASONS = ("assigned", "some-reason-of-2030")


def _plan(reason: str, generation: int = 5, group: str = "g1") -> AssignmentPlan:
    return AssignmentPlan(
        group_id=group, generation=generation, reason=reason, assignor="rack-optimal",
        members=[MemberPlan(member_id="c1", rack="az1", partitions=[PartitionPlan(
            topic="orders", partition=0, replica_racks=["az1"], cross_rack=False)])],
        summary=PlanSummary(partitions=1, cross_rack_partitions=0, traffic_cost=0.0,
                            max_load=1, min_load=1))


def test_known_reasons_are_the_agents_and_the_plugins() -> None:
    assert PLUGIN_REASON == "assigned"
    assert PLUGIN_REASON not in PLAN_REASONS  # the agent's planner never picks it
    assert set(KNOWN_REASONS) == {*PLAN_REASONS, PLUGIN_REASON}


@pytest.mark.parametrize("reason", NEW_REASONS)
def test_a_plan_with_an_unknown_reason_round_trips(reason: str) -> None:
    text = _plan(reason).to_json()
    assert json.loads(text)["reason"] == reason
    back = AssignmentPlan.from_json(text)
    assert back.reason == reason
    assert back.to_json() == text


@pytest.mark.parametrize("bad", ["", None, 3, ["member-joined"]])
def test_a_missing_empty_or_non_string_reason_is_refused(bad: object) -> None:
    doc = json.loads(_plan("initial").to_json())
    doc["reason"] = bad
    with pytest.raises(PlanError, match="reason"):
        AssignmentPlan.from_json(json.dumps(doc))


@dataclass
class _Msg:
    """The three methods of a confluent-kafka Message the follower reads."""

    k: bytes
    v: bytes

    def error(self) -> None:
        return None

    def key(self) -> bytes:
        return self.k

    def value(self) -> bytes:
        return self.v


def test_the_follower_follows_a_plan_with_an_unknown_reason() -> None:
    messages = [_Msg(b"g1", _plan("member-joined", 3).to_json().encode()),
                _Msg(b"g1", _plan("some-reason-of-2030", 9).to_json().encode()),
                _Msg(b"g2", _plan("assigned", 12, group="g2").to_json().encode())]
    best = newest_plan(messages, "g1", generation=2)
    assert best is not None and (best.generation, best.reason) == (9, "some-reason-of-2030")
    # observe mode's plans stay unfollowed; a generation at or below the member's is old
    observed = [_Msg(b"g1", _plan("observed", 20).to_json().encode())]
    assert newest_plan(observed, "g1", generation=2) is None
    assert newest_plan(messages, "g1", generation=9) is None


def test_the_report_shows_a_plan_with_an_unknown_reason(tmp_path: Path) -> None:
    from metrics.report import load

    t0 = datetime(2026, 3, 1, 12, 0)
    rows = [{"group_id": "g1", "generation": gen, "kind": "consumer", "reason": reason,
             "assignor": "rack-optimal", "event_time": t0, "published_at": t0,
             "source_partition": 0, "source_offset": gen, "members": 1, "partitions": 1,
             "cross_rack_partitions": 0, "traffic_cost": 0.0, "lower_bound": 0.0,
             "max_load": 1, "min_load": 1, "moved_partitions": 0, "withheld_partitions": 0}
            for gen, reason in ((1, "assigned"), (2, "some-reason-of-2030"))]
    folder = tmp_path / "plan_metrics" / "batch_id=0"
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(folder / "part-0.parquet")
    data = load(tmp_path)
    assert list(data.plans.reason) == ["assigned", "some-reason-of-2030"]
