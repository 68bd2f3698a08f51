"""Real clients behind Kafka's own plug-in points, for the plug-in tests (plugins/README.md).

``JavaConsumer`` runs ``dev.rackwise.clients.PluginConsumer`` (tests/java/plugin-clients) as a
process: classic with ``RackwiseAssignor`` or KIP-848 with ``group.remote.assignor``; it
records the JSON lines the client prints (assignments, per-partition fetch figures with the
broker each partition is fetched from) and keeps Kafka's log (stderr) in a file.
``RdkafkaConsumer`` is a confluent-kafka KIP-848 consumer recording librdkafka's own
per-partition statistics (``broker`` it fetches from, ``rxbytes``).

:func:`wire_figures` sets a plan against what the clients measured themselves.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer

from protocol.plan import AssignmentPlan
from tests.support import javaharness

PROJECT = "tests/java/plugin-clients"
MAIN = "dev.rackwise.clients.PluginConsumer"
PLUGIN_JAR = javaharness.ROOT / "plugins" / "target" / "rackwise-plugins.jar"
# Small heaps and the C1 compiler only: the test machine may have two cores for everything.
JVM_FLAGS = ("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Dorg.slf4j.simpleLogger.showDateTime=true",
             "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS")

TP = tuple[str, int]


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


def brokers_load_plugin(admin: Any, cls: str = "dev.rackwise.plugins.RackwiseGroupAssignor") -> bool:
    """Whether every broker lists rackwise's KIP-848 assignor in group.consumer.assignors."""
    from confluent_kafka.admin import ConfigResource, ResourceType

    for node in admin.describe_cluster(request_timeout=15).result(20).nodes:
        resource = ConfigResource(ResourceType.BROKER, str(node.id))
        for future in admin.describe_configs([resource], request_timeout=15).values():
            entry = future.result(20).get("group.consumer.assignors")
            if entry is None or cls not in (entry.value or ""):
                return False
    return True


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


@dataclass
class PartitionFetch:
    """What one client received of one partition, and the broker it fetches it from."""

    records: int
    bytes: int
    fetched_from: int | None


@dataclass
class ClientView:
    """One member as a client sees itself: id, rack, owned partitions, fetch figures."""

    member_id: str | None
    rack: str
    assignment: frozenset[TP]
    fetches: dict[TP, PartitionFetch] = field(default_factory=dict)


class JavaConsumer:
    """``PluginConsumer`` in its own JVM; thread-safe views of what it printed."""

    def __init__(self, bootstrap: str, group: str, topic: str, rack: str | None, *,
                 protocol: str = "classic", assignor: str | None = None,
                 config: Mapping[str, Any] | None = None, stats_ms: int = 500,
                 name: str | None = None) -> None:
        self.rack = rack
        self.name = name or f"java-{rack}"
        args = [f"bootstrap={bootstrap}", f"group={group}", f"topic={topic}",
                f"protocol={protocol}", f"stats-ms={stats_ms}", f"client-id={self.name}",
                f"plugin-jar={PLUGIN_JAR}"]
        if rack:
            args.append(f"rack={rack}")
        if assignor:
            args.append(f"assignor={assignor}")
        args += [f"config={k}={v}" for k, v in (config or {}).items()]
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open for the process
            prefix=f"rackwise-{self.name}-", suffix=".log", delete=False)
        self.log_path = self._log.name
        ensure_plugin_jar()
        self.proc = subprocess.Popen(
            ["java", *JVM_FLAGS, "-cp", javaharness.classpath(PROJECT), MAIN, *args],
            stdout=subprocess.PIPE, stderr=self._log, text=True, bufsize=1,
        )
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name=f"{self.name}-out", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    with self._lock:
                        self.events.append(event)

    def _last(self, kind: str) -> dict[str, Any] | None:
        with self._lock:
            for event in reversed(self.events):
                if event["event"] == kind:
                    return event
        return None

    @property
    def member_id(self) -> str | None:
        last = self._last("assignment")
        return last["member_id"] if last else None

    def assignment(self) -> frozenset[TP] | None:
        """What it owns after its last rebalance callback (None before the first)."""
        last = self._last("assignment")
        if last is None:
            return None
        gone = {tuple(p) for p in last["revoked"] + last["lost"]}
        return frozenset(tp for p in last["partitions"] if (tp := (p[0], p[1])) not in gone)

    def assignments(self) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e["event"] == "assignment"]

    def fetches(self) -> dict[TP, PartitionFetch]:
        last = self._last("fetch")
        if last is None:
            return {}
        return {(p["topic"], p["partition"]): PartitionFetch(p["records"], p["bytes"], p["fetched_from"])
                for p in last["partitions"]}

    def fetch_count(self) -> int:
        with self._lock:
            return sum(1 for e in self.events if e["event"] == "fetch")

    def records(self) -> int:
        return sum(f.records for f in self.fetches().values())

    def view(self) -> ClientView:
        return ClientView(self.member_id, self.rack or "", self.assignment() or frozenset(),
                          self.fetches())

    def log(self) -> str:
        """Kafka's and the plug-in's log (stderr); removed by stop() unless
        RACKWISE_KEEP_CLIENT_LOGS is set."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except FileNotFoundError:
            return ""

    def rackwise_lines(self) -> list[str]:
        """The plug-in's own log lines (one per assign() on this member, if it led)."""
        return [line for line in self.log().splitlines() if "rackwise: group" in line]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM: the client wakes up, closes (leaving the group) and exits."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._reader.join(5)
        self._log.close()
        if not os.environ.get("RACKWISE_KEEP_CLIENT_LOGS"):  # set it to keep Kafka's logs
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)


class RdkafkaConsumer:
    """A confluent-kafka consumer on the KIP-848 protocol, with librdkafka's statistics."""

    def __init__(self, bootstrap: str, group: str, topic: str, rack: str, *,
                 assignor: str = "rackwise", stats_ms: int = 500) -> None:
        self.rack = rack
        self.topic = topic
        self._stats: dict[int, dict[str, int]] = {}
        self._lock = threading.Lock()
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group,
            "group.protocol": "consumer", "group.remote.assignor": assignor,
            "client.rack": rack, "client.id": f"rdkafka-{rack}",
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "statistics.interval.ms": stats_ms, "stats_cb": self._on_stats,
        })
        self.consumer.subscribe([topic])
        self.member_id: str | None = None
        self._assignment: frozenset[TP] = frozenset()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rdkafka-{rack}", daemon=True)
        self._thread.start()

    def _on_stats(self, raw: str) -> None:
        parts = json.loads(raw).get("topics", {}).get(self.topic, {}).get("partitions", {})
        stats = {int(p): {"broker": int(s["broker"]), "rxbytes": int(s["rxbytes"]),
                          "rxmsgs": int(s["rxmsgs"])}
                 for p, s in parts.items() if int(p) >= 0}
        with self._lock:
            self._stats = stats

    def _run(self) -> None:
        while not self._stop.is_set():
            self.consumer.consume(100, 0.2)  # records are counted by librdkafka's statistics
            with contextlib.suppress(Exception):
                self.member_id = self.consumer.memberid()
                self._assignment = frozenset((tp.topic, tp.partition)
                                             for tp in self.consumer.assignment())

    def assignment(self) -> frozenset[TP]:
        return self._assignment

    def fetches(self) -> dict[TP, PartitionFetch]:
        with self._lock:
            return {(self.topic, p): PartitionFetch(s["rxmsgs"], s["rxbytes"], s["broker"])
                    for p, s in self._stats.items()}

    def records(self) -> int:
        return sum(f.records for f in self.fetches().values())

    def view(self) -> ClientView:
        return ClientView(self.member_id, self.rack, self.assignment(), self.fetches())

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(10)
        self.consumer.close()


def follows(plan: AssignmentPlan, clients: Iterable[Any]) -> bool:
    """Every client owns exactly what the plan gives its member id, and the plan has no other."""
    by_id = {c.member_id: c.assignment() for c in clients}
    return set(by_id) == {m.member_id for m in plan.members} and all(
        by_id[m.member_id] == frozenset((p.topic, p.partition) for p in m.partitions)
        for m in plan.members
    )


@dataclass(frozen=True)
class WireFigures:
    planned_cross_bytes: int
    measured_cross_bytes: int
    total_bytes: int
    cross_rack_partitions: int
    partitions: int
    local_fetched_elsewhere: tuple[str, ...]
    lines: tuple[str, ...]


def wire_figures(plan: AssignmentPlan, views: Iterable[ClientView],
                 racks: Mapping[int, str | None]) -> WireFigures:
    """Each plan partition's bytes as its member's client received them; cross-rack as the plan
    says (planned) and as the broker it was fetched from says (measured)."""
    by_id = {v.member_id: v for v in views}
    planned = measured = total = 0
    wrong: list[str] = []
    lines: list[str] = []
    for pm in plan.members:
        view = by_id[pm.member_id]
        for pp in pm.partitions:
            f = view.fetches[(pp.topic, pp.partition)]
            fetched_rack = racks.get(f.fetched_from) if f.fetched_from is not None else None
            remote = fetched_rack != view.rack
            lines.append(f"{view.rack} {pp.topic}-{pp.partition}: plan cross={pp.cross_rack} "
                         f"fetched from broker {f.fetched_from} ({fetched_rack}), "
                         f"{f.records} records, {f.bytes} bytes")
            total += f.bytes
            planned += f.bytes if pp.cross_rack else 0
            measured += f.bytes if remote else 0
            if remote and not pp.cross_rack:
                wrong.append(f"{pp.topic}-{pp.partition}@{view.rack}")
    return WireFigures(planned, measured, total, plan.summary.cross_rack_partitions,
                       plan.summary.partitions, tuple(wrong), tuple(lines))
