"""The plan JSON Kafka's plug-ins write (plugins/.../publish/PlanJson.java) is a valid plan.

The golden files are hand-built and checked by PlanJsonTest byte for byte against what the Java
writes; here protocol.plan.AssignmentPlan (the authority) reads them. Random plans that the
JUnit test wrote to plugins/target/plugin-plans/ are read too, when present.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from protocol.plan import PLUGIN_REASON, AssignmentPlan, plan_json_schema

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "plugins" / "src" / "test" / "resources" / "publish"
RANDOM = ROOT / "plugins" / "target" / "plugin-plans"


@pytest.mark.parametrize("name", ["plugin-plan-measured.json", "plugin-plan-unmeasured.json"])
def test_golden_plugin_plans_are_plans(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8").strip()
    plan = AssignmentPlan.from_json(text)
    assert plan.reason == PLUGIN_REASON and plan.kind == "consumer"
    # strict: no field the model does not declare, every required one present
    jsonschema.validate(json.loads(text), plan_json_schema())
    # what the Java writes is what the Python would write for the same plan
    assert json.loads(plan.to_json()) == json.loads(text)


def test_the_streams_golden_plan_is_a_streams_plan() -> None:
    """What RackwiseTaskAssignor reports (StreamsPlanReports; RackwiseTaskAssignorTest writes
    and checks this file): a streams plan with tasks per process and a probing follow-up."""
    text = (GOLDEN / "plugin-plan-streams.json").read_text(encoding="utf-8").strip()
    plan = AssignmentPlan.from_json(text)
    jsonschema.validate(json.loads(text), plan_json_schema())
    assert json.loads(plan.to_json()) == json.loads(text)
    assert (plan.kind, plan.reason, plan.followup_ms) == ("streams", PLUGIN_REASON, 600_000)
    assert [m.active_tasks for m in plan.members] == [["0_0", "1_0"], ["0_1"], ["0_2"]]
    assert plan.members[2].warmup_tasks == ["0_0"] and plan.members[2].standby_tasks == ["0_1"]
    assert all(m.process_id == m.member_id for m in plan.members)
    s = plan.summary
    assert (s.partitions, s.cross_rack_partitions, s.lower_bound, s.standby_rack_diversity) == \
        (4, 0, 0.0, 2.0)


def test_measured_golden_figures() -> None:
    plan = AssignmentPlan.from_json((GOLDEN / "plugin-plan-measured.json").read_bytes())
    s = plan.summary
    assert (s.partitions, s.cross_rack_partitions, s.traffic_cost, s.max_load, s.min_load) == \
        (3, 1, 0.5, 2, 0)
    assert (s.bytes_per_s, s.cross_rack_bytes_per_s, s.rack_unknown_members) == (6000.0, 1000.0, 1)
    assert plan.members[2].member_id == 'c"3\u00e9'
    assert plan.created_at.isoformat() == "2026-11-25T00:40:00+00:00"


def test_random_plans_from_the_junit_test() -> None:
    files = sorted(RANDOM.glob("plan-*.json"))
    if not files:
        pytest.skip("run PlanJsonTest first (mvn -f plugins/pom.xml package -DskipTests=false)")
    for path in files:
        text = path.read_text(encoding="utf-8")
        plan = AssignmentPlan.from_json(text)
        jsonschema.validate(json.loads(text), plan_json_schema())
        assert plan.summary.partitions == sum(len(m.partitions) for m in plan.members), path
