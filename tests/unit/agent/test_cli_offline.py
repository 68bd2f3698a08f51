"""The offline commands a user runs first: plan, compare, scenario gen (docs/architecture.md § Scenarios
and § Command line).

They run through ``agent.cli.main`` exactly as the console script does, on the scenarios in
``examples/`` that the README shows and on generated ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from protocol.plan import AssignmentPlan

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["consumer.json", "streams.json"])
def test_plan_of_each_example_is_a_valid_complete_plan(capsys, name: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(capsys, "plan", str(EXAMPLES / name))
    assert code == 0, err
    plan = AssignmentPlan.from_json(out)
    scenario = json.loads((EXAMPLES / name).read_text())
    assert plan.group_id == scenario["group"]["id"]
    assigned = [(p.topic, p.partition) for m in plan.members for p in m.partitions]
    withheld = [(p.topic, p.partition) for p in getattr(plan, "withheld", [])]
    expected = {(t, i) for t, parts in scenario["cluster"]["topics"].items() for i in range(len(parts))}
    if scenario["group"]["kind"] == "consumer":
        # every partition exactly once, either assigned or withheld for a cooperative hand-over
        assert sorted(assigned + withheld) == sorted(expected)


def test_compare_json_rack_optimal_is_cheapest_and_meets_its_bound(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(capsys, "compare", str(EXAMPLES / "consumer.json"), "--json")
    assert code == 0, err
    rows = {row["assignor"]: row for row in json.loads(out)}
    assert set(rows) == {"range", "sticky", "cooperative-sticky", "rack-optimal"}
    best = rows["rack-optimal"]
    assert best["traffic_cost"] == best["lower_bound"]
    # same floor/ceil balance as sticky, never costlier than it
    assert best["traffic_cost"] <= rows["sticky"]["traffic_cost"]
    assert best["traffic_cost"] <= rows["cooperative-sticky"]["traffic_cost"]
    assert best["max_load"] - best["min_load"] <= 1
    # Kafka's range and sticky are eager: everything is revoked first, nothing is withheld
    assert rows["range"]["withheld"] == rows["sticky"]["withheld"] == 0
    assert rows["cooperative-sticky"]["withheld"] > 0


def test_compare_streams_shows_every_strategy(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(capsys, "compare", str(EXAMPLES / "streams.json"), "--json")
    assert code == 0, err
    rows = json.loads(out)
    by_strategy = {row["strategy"]: row for row in rows}
    assert set(by_strategy) == {"none", "min_traffic", "balance_subtopology"}
    assert by_strategy["min_traffic"]["traffic_cost"] <= by_strategy["none"]["traffic_cost"]


def test_scenario_gen_is_deterministic_and_plannable(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    args = ["scenario", "gen", "--partitions", "40", "--members", "5", "--racks", "3",
            "--rf", "2", "--skew", "0.6", "--seed", "11"]
    code, first, err = _run(capsys, *args)
    assert code == 0, err
    _, second, _ = _run(capsys, *args)
    assert first == second
    _, other, _ = _run(capsys, *args[:-1], "12")
    assert other != first
    doc = json.loads(first)
    assert sum(len(p) for p in doc["cluster"]["topics"].values()) == 40
    assert len(doc["group"]["members"]) == 5
    path = tmp_path / "s.json"
    path.write_text(first)
    code, out, err = _run(capsys, "plan", str(path))
    assert code == 0, err
    AssignmentPlan.from_json(out)


@pytest.mark.parametrize("content, needle", [
    ("{not json", "json"),
    ('{"cluster": {}}', "group"),
    ('{"cluster": {"brokers": {}, "topics": {}}, "group": {"id": "g", "kind": "nope", "members": []}}',
     "kind"),
])
def test_bad_scenarios_exit_2_with_one_line(capsys, tmp_path: Path, content: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = _run(capsys, "plan", str(path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err.lower()
    assert "Traceback" not in err


def test_missing_scenario_file_is_a_clear_error(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = _run(capsys, "compare", str(tmp_path / "absent.json"))
    assert code == 2
    assert "absent.json" in err
