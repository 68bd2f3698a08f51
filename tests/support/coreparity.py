"""Run the Java rack-optimal core (``dev.rackwise.core`` in the plug-in jar) on many problems.

The parity suite (docs/rack-optimal.md § 6) hands every generated problem to one JVM running
``tests/java/core-parity``: one JSON line per problem in, one per answer out, in order. The
harness compiles against ``plugins/target/rackwise-plugins.jar`` and this module appends that
jar to the class path, so the jar under test is the one ``make plugins`` built.

Example::

    run_core([{"id": "g", "racks": ["az1"], "members": [{"id": "m", "rack": "az1",
               "reads_followers": True, "topics": ["t"]}],
               "topics": {"t": [{"replica_racks": ["az1"], "leader_rack": "az1"}]}}])
    # [{"id": "g", "assignment": {"m": [["t", 0]]}, "cost": 0.0, "objective": 0, ...}]
"""

from __future__ import annotations

from typing import Any

from tests.support.javaharness import run_json_lines

PROJECT = "tests/java/core-parity"
MAIN = "dev.rackwise.tests.CoreParity"


def run_core(problems: list[dict[str, Any]], *, timeout: float = 600,
             heap: str = "-Xmx2g") -> list[dict[str, Any]]:
    """One answer per problem, in order: ``assignment``, ``cost``, ``objective``, ``moved`` and
    ``nanos``, or ``error`` for a problem the core rejected. All problems run in one JVM."""
    return run_json_lines(PROJECT, MAIN, problems, timeout=timeout, heap=heap)
