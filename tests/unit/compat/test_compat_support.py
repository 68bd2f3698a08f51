"""The compat matrix's own helpers (tests/compat/), without Kafka: the independent optimum
the audit cell holds ``rackwise audit`` to, how the cell reads the command's ``--json``, which
Python a confluent-kafka release runs in, and the cell list's invariants."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.compat.agentcells import best_by_brute_force, run_audit_command
from tests.compat.cells import RDKAFKA_CLIENTS, cells
from tests.compat.clientvenv import installed_version, python_for

pytestmark = pytest.mark.unit

RACKS = {0: {"az1"}, 1: {"az1"}, 2: {"az2"}, 3: {"az2"}, 4: {"az3"}, 5: {"az3"}}


def test_brute_force_optimum_of_the_audit_layout() -> None:
    # roundrobin's layout (m0 az1: p0 p3, m1 az2: p1 p4, m2 az3: p2 p5) is 4 across; 0 is possible
    owned = {"m0": ("az1", [0, 3]), "m1": ("az2", [1, 4]), "m2": ("az3", [2, 5])}
    assert best_by_brute_force(owned, RACKS) == 0
    # two members in az1: one of them reads two partitions of another rack at best
    owned = {"a": ("az1", [0, 1]), "b": ("az1", [2, 3]), "c": ("az3", [4, 5])}
    assert best_by_brute_force(owned, RACKS) == 2


def test_audit_command_row_is_read_as_the_settle_loop_expects() -> None:
    doc = {"groups": [{"group": "other"}, {"group": "g", "status": "ok", "members": 3,
                                            "partitions": 6, "cross_rack_actual": 4,
                                            "cross_rack_best": 0, "actual_plan": None}],
           "summary": {}}
    seen: list[list[str]] = []

    def run(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, json.dumps(doc), "")
    audit = run_audit_command("b:1", "g", run)
    assert seen[0][:4] == [sys.executable, "-m", "agent.cli", "audit"]
    assert {"--json", "--plans"} <= set(seen[0])
    assert (audit.status, audit.cross_rack_actual, audit.cross_rack_best) == ("ok", 4, 0)
    assert audit.actual is None
    assert run_audit_command("b:1", "absent", run) is None


def test_the_installed_release_runs_in_this_python() -> None:
    assert python_for(installed_version()) == sys.executable


def test_new_cells_are_not_smoke_and_ids_are_unique() -> None:
    all_cells = cells()
    ids = [c.id for c in all_cells]
    assert len(ids) == len(set(ids))
    smoke = {c.id for c in all_cells if c.smoke}
    # make test's share of the matrix: the newest broker only (its testbed starts once)
    assert smoke == {"kip848-java-broker4.4.0-client4.4.0", "classic-java-broker4.4.0-client3.5.2"}
    for kind in ("follower-rdkafka", "agent"):
        assert any(c.kind == kind for c in all_cells)
    assert {c.client for c in all_cells if c.kind == "follower-rdkafka"} == set(RDKAFKA_CLIENTS)
