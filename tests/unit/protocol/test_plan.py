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
    for bad in ({**doc, "reason": ""}, {**doc, "reason": 7}, {**doc, "generation": -1},
                {k: v for k, v in doc.items() if k != "summary"}):
        with pytest.raises(PlanError):
            AssignmentPlan.from_json(json.dumps(bad))
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, plan_json_schema())


def test_fields_of_a_newer_plan_are_ignored_by_readers() -> None:
    """docs/architecture.md § The plan lets plans grow: a member running older code must keep
    following them."""
    plan = _plan()
    doc = json.loads(plan.to_json())
    doc["from_the_future"] = {"x": 1}
    doc["members"][0]["new_member_field"] = 2
    doc["members"][0]["partitions"][0]["new_partition_field"] = [3]
    doc["summary"]["new_summary_field"] = None
    back = AssignmentPlan.from_json(json.dumps(doc))
    assert back.without_timestamp() == plan.without_timestamp()
    # what this version writes stays strict: the schema still names every field
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, plan_json_schema())


def test_plans_without_traffic_are_written_as_before() -> None:
    """Fields added for measured traffic are left out while null, so a plan that does not use
    them is byte for byte what the previous version wrote (and older readers accept it)."""
    doc = json.loads(_plan().to_json())
    assert set(doc["summary"]) == {"partitions", "cross_rack_partitions", "traffic_cost",
                                   "lower_bound", "max_load", "min_load", "moved_partitions",
                                   "standby_rack_diversity"}
    assert set(doc["members"][0]) == {"member_id", "rack", "partitions", "process_id",
                                      "active_tasks", "standby_tasks", "warmup_tasks"}
    assert set(doc["members"][0]["partitions"][0]) == {"topic", "partition", "replica_racks",
                                                      "cross_rack", "weight"}


def test_old_plans_parse_and_new_fields_round_trip() -> None:
    plan = _plan()
    measured = plan.model_copy(update={
        "members": [plan.members[0].model_copy(update={
            "location": "az1", "rack_source": "client.rack", "reads_from": "nearest-replica",
            "partitions": [plan.members[0].partitions[0].model_copy(update={
                "bytes_per_s": 1000.0, "source_rack": "az1", "cross_rack_bytes_per_s": 0.0})]})],
        "summary": plan.summary.model_copy(update={
            "bytes_per_s": 1000.0, "cross_rack_bytes_per_s": 0.0,
            "cross_rack_bytes_per_s_worst": 0.0, "rack_unknown_members": 0,
            "follower_fetching": True})})
    text = measured.to_json()
    jsonschema.validate(json.loads(text), plan_json_schema())
    assert AssignmentPlan.from_json(text).without_timestamp() == measured.without_timestamp()
    old = AssignmentPlan.from_json(plan.to_json())  # a plan of the previous version
    assert old.summary.bytes_per_s is None and old.members[0].location is None
