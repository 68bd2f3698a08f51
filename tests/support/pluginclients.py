"""Real clients behind Kafka's own plug-in points, for the plug-in tests (plugins/README.md).

``JavaConsumer`` runs ``dev.rackwise.clients.PluginConsumer`` (tests/java/plugin-clients) as a
process: classic with ``RackwiseAssignor`` or KIP-848 with ``group.remote.assignor``; it
records the JSON lines the client prints (assignments, per-partition fetch figures with the
broker each partition is fetched from) and keeps Kafka's log (stderr) in a file.
``RdkafkaConsumer`` is a confluent-kafka KIP-848 consumer recording librdkafka's own
per-partition statistics (``broker`` it fetches from, ``rxbytes``).

:func:`wire_figures` sets a plan against what the clients measured themselves. The
measuring parts live in the package (agent/dev/fetchstats.py, which the demo uses too) and are
re-exported here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any

from agent.dev.fetchstats import (
    ClientView,
    JsonLineClient,
    PartitionFetch,
    RdkafkaConsumer,
    WireFigures,
    brokers_load_plugin,
    follows,
    wire_figures,
)
from tests.support import javaharness

__all__ = ["ClientView", "JavaConsumer", "PartitionFetch", "RdkafkaConsumer", "WireFigures",
           "brokers_load_plugin", "ensure_plugin_jar", "follows", "wait_until", "wire_figures"]

PROJECT = "tests/java/plugin-clients"
MAIN = "dev.rackwise.clients.PluginConsumer"
PLUGIN_JAR = javaharness.ROOT / "plugins" / "target" / "rackwise-plugins.jar"
# Small heaps and the C1 compiler only: the test machine may have two cores for everything.
JVM_FLAGS = ("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Dorg.slf4j.simpleLogger.showDateTime=true",
             "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS")


def ensure_plugin_jar() -> None:
    """Build plugins/target/rackwise-plugins.jar if it is missing (``make plugins`` does it up
    front), so a test never depends on a step someone forgot."""
    if PLUGIN_JAR.is_file():
        return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise javaharness.JavaBuildError("mvn is not on PATH: cannot build the plug-in jar")
    proc = subprocess.run([mvn, "-B", "-q", "-f", str(javaharness.ROOT / "plugins" / "pom.xml"),
                           "package"], capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0 or not PLUGIN_JAR.is_file():
        raise javaharness.JavaBuildError(f"mvn package failed for plugins/:\n{proc.stdout[-4000:]}"
                                         f"\n{proc.stderr[-4000:]}")


def wait_until(cond: Callable[[], Any], timeout: float, what: str, step: float = 0.2) -> Any:
    """Poll ``cond`` until it returns something truthy; fail saying ``what`` did not happen."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"within {timeout:.0f}s: {what}")
        time.sleep(step)


class JavaConsumer(JsonLineClient):
    """``PluginConsumer`` in its own JVM; thread-safe views of what it printed. Kafka's and the
    plug-in's log (stderr) is removed by stop() unless RACKWISE_KEEP_CLIENT_LOGS is set."""

    def __init__(self, bootstrap: str, group: str, topic: str, rack: str | None, *,
                 protocol: str = "classic", assignor: str | None = None,
                 config: Mapping[str, Any] | None = None, stats_ms: int = 500,
                 name: str | None = None, kafka_version: str | None = None) -> None:
        """``kafka_version``: the kafka-clients release to run (javaharness builds the client
        against it); None: RACKWISE_KAFKA_VERSION, else the pom's."""
        name = name or f"java-{rack}"
        args = [f"bootstrap={bootstrap}", f"group={group}", f"topic={topic}",
                f"protocol={protocol}", f"stats-ms={stats_ms}", f"client-id={name}",
                f"plugin-jar={PLUGIN_JAR}"]
        if rack:
            args.append(f"rack={rack}")
        if assignor:
            args.append(f"assignor={assignor}")
        args += [f"config={k}={v}" for k, v in (config or {}).items()]
        with tempfile.NamedTemporaryFile(prefix=f"rackwise-{name}-", suffix=".log",
                                         delete=False) as log:
            log_path = log.name
        ensure_plugin_jar()
        super().__init__(
            ["java", *JVM_FLAGS, "-cp", javaharness.classpath(PROJECT, kafka_version), MAIN, *args],
            name, rack, log_path, remove_log=not os.environ.get("RACKWISE_KEEP_CLIENT_LOGS"),
            new_session=False,
        )
