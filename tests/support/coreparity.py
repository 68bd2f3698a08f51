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

import json
import os
import shutil
import subprocess
from typing import Any

from tests.support.javaharness import ROOT, JavaBuildError, classpath

PROJECT = "tests/java/core-parity"
MAIN = "dev.rackwise.tests.CoreParity"
PLUGIN_JAR = ROOT / "plugins" / "target" / "rackwise-plugins.jar"


def run_core(problems: list[dict[str, Any]], *, timeout: float = 600,
             heap: str = "-Xmx2g") -> list[dict[str, Any]]:
    """One answer per problem, in order: ``assignment``, ``cost``, ``objective``, ``moved`` and
    ``nanos``, or ``error`` for a problem the core rejected. All problems run in one JVM."""
    if not PLUGIN_JAR.exists():
        raise JavaBuildError(f"{PLUGIN_JAR} is missing: `make plugins` builds it")
    java = shutil.which("java")
    if java is None:
        raise JavaBuildError("'java' is not on PATH: install OpenJDK 17 "
                             "(apt-get install openjdk-17-jdk-headless)")
    cp = os.pathsep.join([classpath(PROJECT), str(PLUGIN_JAR)])
    data = "".join(json.dumps(p, separators=(",", ":")) + "\n" for p in problems).encode()
    proc = subprocess.run([java, heap, "-cp", cp, MAIN], input=data, capture_output=True,
                          timeout=timeout)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace")[-4000:]
        raise JavaBuildError(f"{MAIN} exited {proc.returncode}:\n{err}")
    answers: list[dict[str, Any]] = [json.loads(line) for line in proc.stdout.decode().splitlines()
                                     if line.strip()]
    if len(answers) != len(problems):
        raise JavaBuildError(f"{MAIN} answered {len(answers)} of {len(problems)} problems:\n"
                             f"{proc.stderr.decode(errors='replace')[-4000:]}")
    return answers
