"""Real Kafka Streams instances (tests/java/streams-app TaskApp) for the task assignor tests.

Each :class:`TaskAppInstance` is one JVM running one KafkaStreams client with rackwise's KIP-924
task assignor (plugins/target/rackwise-plugins.jar on its classpath) or Kafka's default. It
reports its *own* view of its tasks (``KafkaStreams.metadataForLocalThreads()``) as JSON lines;
:meth:`TaskAppInstance.latest` is the newest one. Its stderr (the plug-in's log lines: "uses the
agent's plan" / "falls back") goes to a file the tests read.

Example::

    inst = TaskAppInstance(bootstrap, "app", "az1", input="in", stateless="in2", output="out",
                           config={"main.consumer.rackwise.timeout.ms": "3000"})
    inst.latest()["active"]     # ["0_1", "1_0"]
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.support import javaharness

STREAMS_APP = "tests/java/streams-app"
TASK_APP = "dev.rackwise.testapp.TaskApp"
PLUGIN_JAR = javaharness.ROOT / "plugins" / "target" / "rackwise-plugins.jar"
PLUGIN_CLASS = "dev.rackwise.plugins.RackwiseTaskAssignor"


def build_plugin_jar() -> Path:
    """The plug-in jar, built when a source is newer (as `make plugins` does)."""
    sources = [javaharness.ROOT / "plugins" / "pom.xml",
               *(javaharness.ROOT / "plugins" / "src" / "main").rglob("*")]
    newest = max(p.stat().st_mtime for p in sources)
    if not PLUGIN_JAR.exists() or PLUGIN_JAR.stat().st_mtime < newest:
        mvn = javaharness._require("mvn")
        proc = subprocess.run([mvn, "-B", "-q", "-f", str(javaharness.ROOT / "plugins" / "pom.xml"),
                               "package"], capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            raise javaharness.JavaBuildError(f"plug-in jar build failed:\n{proc.stdout[-3000:]}")
    return PLUGIN_JAR


class TaskAppInstance:
    """One TaskApp JVM (small heap) and the newest task report it printed."""

    def __init__(self, bootstrap: str, app: str, rack: str, *, input: str, output: str,
                 stateless: str | None = None, assignor: str = "rackwise",
                 state_dir: str | None = None, recovery_lag: int = 10_000,
                 probing_ms: int = 600_000, standbys: int = 1, standby_ms_per_record: int = 0,
                 config: dict[str, str] | None = None, heap: str = "-Xmx192m",
                 hold: bool = False, kafka_version: str | None = None) -> None:
        java = javaharness._require("java")
        # kafka_version: the Kafka Streams release (None: RACKWISE_KAFKA_VERSION, else the pom's)
        cp = javaharness.classpath(STREAMS_APP, kafka_version) + ":" + str(build_plugin_jar())
        args = [f"bootstrap={bootstrap}", f"app={app}", f"rack={rack}", f"input={input}",
                f"output={output}", f"assignor={assignor}", f"recovery-lag={recovery_lag}",
                f"probing-ms={probing_ms}", f"standbys={standbys}",
                f"standby-ms-per-record={standby_ms_per_record}"]
        if stateless:
            args.append(f"stateless={stateless}")
        if hold:
            args.append("hold=true")
        if state_dir:
            args.append(f"state-dir={state_dir}")
        for key, value in (config or {}).items():
            args.append(f"config={key}={value}")
        self.rack = rack
        self.reports: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._err = tempfile.NamedTemporaryFile(  # noqa: SIM115 - open while the JVM runs
            mode="w+", prefix=f"taskapp-{rack}-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [java, heap, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
             "-cp", cp, TASK_APP, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue
            with contextlib.suppress(json.JSONDecodeError):
                doc = json.loads(line)
                with self._lock:
                    self.reports.append(doc)

    def go(self) -> None:
        """Start a client launched with ``hold=True`` (its JVM is already up)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("start\n")
        self.proc.stdin.flush()

    def fetched(self, timeout: float = 15) -> dict[int, int]:
        """Bytes this instance's main consumers received per broker id so far (TaskApp reports
        ``consumer-node-metrics incoming-byte-total`` when asked on stdin)."""
        assert self.proc.stdin is not None
        with self._lock:
            seen = len(self.reports)
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                for doc in self.reports[seen:]:
                    if isinstance(doc.get("fetched"), dict):
                        return {int(k): int(v) for k, v in doc["fetched"].items()}
            time.sleep(0.1)
        raise TimeoutError(f"instance in {self.rack}: no fetch figures within {timeout:.0f}s")

    def latest(self) -> dict[str, Any] | None:
        with self._lock:
            return self.reports[-1] if self.reports else None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr(self) -> str:
        return Path(self._err.name).read_text(errors="replace")

    def stop(self, timeout: float = 40) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def close(self) -> None:
        if self.alive():
            self.stop()
        self._err.close()
        with contextlib.suppress(OSError):
            Path(self._err.name).unlink()


def running(instances: list[TaskAppInstance]) -> bool:
    reports = [i.latest() for i in instances]
    return all(r is not None and r.get("state") == "RUNNING" for r in reports)


def reported(instances: list[TaskAppInstance]) -> dict[str, dict[str, list[str]]]:
    """process id -> {"active": [...], "standby": [...]} as the instances themselves report."""
    out = {}
    for inst in instances:
        r = inst.latest()
        if r is not None:
            out[r["process_id"]] = {"active": sorted(r["active"]), "standby": sorted(r["standby"])}
    return out


def wait_for(predicate: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"{what}: not within {timeout:.0f}s")
