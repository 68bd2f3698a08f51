"""The core-parity harness itself: answers in order, one per line, errors as answers.

The parity suite proper (docs/rack-optimal.md § 6) compares these answers with the Python
reference; this only checks that the pipe to the Java core is sound.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.coreparity import run_core

pytestmark = pytest.mark.java  # needs mvn, java and plugins/target/rackwise-plugins.jar


def _problem(pid: str, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": pid,
        "racks": ["az1", "az2"],
        "traffic_cost": 10.0,
        "non_overlap_cost": 1.0,
        "members": [
            {"id": "m1", "rack": "az1", "reads_followers": True, "topics": ["t"]},
            {"id": "m2", "rack": "az2", "reads_followers": True, "topics": ["t"]},
        ],
        "topics": {"t": [{"replica_racks": ["az2"], "leader_rack": "az2", "weight": 1.0},
                         {"replica_racks": ["az1"], "leader_rack": "az1", "weight": 1.0}]},
        "previous_owners": {"t": {"0": "m1"}},
    }
    doc.update(extra)
    return doc


def test_answers_in_order_with_errors_in_place() -> None:
    unknown_rack = _problem("c")
    unknown_rack["members"][1]["rack"] = None  # (R-1)/R = 1/2 of t-0's weight, led from az2
    answers = run_core([_problem("a"), {"id": "b", "members": "nope"}, unknown_rack,
                        _problem("d", topics={"t": [{"weight": -1}]})])
    assert [a["id"] for a in answers] == ["a", "b", "c", "d"]
    a, b, c, d = answers
    # Each member takes its local partition; t-0 leaves m1 for m2: one move.
    assert a["assignment"] == {"m1": [["t", 1]], "m2": [["t", 0]]}
    assert (a["cost"], a["objective"], a["moved"]) == (1.0, 2000, 1)
    assert a["nanos"] > 0
    assert "members must be a list" in b["error"]
    assert c["assignment"] == {"m1": [["t", 1]], "m2": [["t", 0]]}
    assert c["cost"] == pytest.approx(10.0 * 0.5 + 1.0)
    assert "weight" in d["error"]
