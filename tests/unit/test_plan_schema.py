"""AssignmentPlan: JSON round trip, canonical output, and documents checked by its JSON Schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from protocol.errors import PlanError
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary, plan_json_schema

pytestmark = pytest.mark.unit


def _plan() -> AssignmentPlan:
    return AssignmentPlan(
        group_id="g1", generation=3, reason="replica-racks-changed", assignor="rack-optimal",
        members=[MemberPlan(member_id="c1", rack="az1", partitions=[PartitionPlan(
            topic="orders", partition=0, replica_racks=["az1", "az2"], cross_rack=False)])],
        summary=PlanSummary(partitions=1, cross_rack_partitions=0, traffic_cost=0.0,
                            max_load=1, min_load=1))


def test_json_round_trip_and_schema_validation() -> None:
    plan = _plan()
    text = plan.to_json()
    back = AssignmentPlan.from_json(text)
    assert back.without_timestamp() == plan.without_timestamp()
    # to_json writes milliseconds: the time survives to the millisecond.
    assert abs((back.created_at - plan.created_at).total_seconds()) < 0.001
    assert back.to_json() == text
    jsonschema.validate(json.loads(text), plan_json_schema())
    assert json.loads(text)["created_at"].endswith("Z")


def test_invalid_plans_fail_both_pydantic_and_schema() -> None:
    doc = json.loads(_plan().to_json())
    for bad in ({**doc, "reason": "because"}, {**doc, "generation": -1},
                {**doc, "unknown": 1}, {k: v for k, v in doc.items() if k != "summary"}):
        with pytest.raises(PlanError):
            AssignmentPlan.from_json(json.dumps(bad))
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, plan_json_schema())
