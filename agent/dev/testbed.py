"""The local testbed: three real Apache Kafka KRaft nodes on 127.0.0.1 with racks az1/az2/az3.

No Docker: the broker classpath comes from Maven Central (agent/dev/resources/kafka/pom.xml,
package data, copied into the jar cache by ``mvn dependency:copy-dependencies``) and each node
runs as a plain ``java`` process. Each node is a combined broker+controller with a static
voter set, so the three start together and elect a leader among themselves.

The brokers' assignors: agent/dev/brokerassignors.py (RACKWISE_TESTBED_CONSUMER_ASSIGNORS and
RACKWISE_TESTBED_STREAMS_ASSIGNORS try the drop-in for ``uniform`` and streams-group assignors).

State lives in one directory (``.testbed/`` in a checkout, ``~/.local/state/rackwise/testbed``
in an installed package, or RACKWISE_TESTBED_DIR: agent/dev/paths.py):
``nodeN.properties``, ``data/nN``, ``logs/nN`` and ``pids/nN``. ``up`` is idempotent (a
running healthy testbed is reused), ``down`` stops every node, waits for its ports to close
and wipes the data, so the next ``up`` starts a fresh cluster.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.dev import brokerassignors, kafkaversion, paths, procs
from agent.dev.errors import TestbedError as TestbedError  # its callers catch it from here

RACKS = ("az1", "az2", "az3")
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Node:
    node_id: int
    rack: str
    client_port: int
    controller_port: int
    sasl_port: int | None = None

    @property
    def address(self) -> str:
        return f"{HOST}:{self.client_port}"


def cache_dir() -> Path:
    """Where Maven-copied jars live (shared by testbed, Spark job and Java harnesses)."""
    return paths.cache_dir()


JMX_EXPORTER_CONFIG = paths.PACKAGE_ROOT / "deploy" / "prometheus" / "jmx-exporter.yml"
# A node's JMX exporter listens on the last port of its block (client port + 9), leaving
# +3..+8 free for more listeners.
JMX_EXPORTER_OFFSET = 9


def jmx_exporter_jar() -> Path:
    """The Prometheus JMX exporter agent, fetched by `make jars`
    (agent/dev/resources/jmx-exporter/pom.xml)."""
    return cache_dir() / "jmx-exporter" / "jmx_prometheus_javaagent.jar"


class Testbed:
    """Drive the three-node cluster: up, down, status."""

    __test__ = False

    def __init__(self, base_dir: Path | None = None, port_base: int | None = None,
                 heap_mb: int = 512, sasl: bool = False,
                 log: Callable[[str], None] | None = None, plugins: bool | None = None,
                 overrides: Mapping[int, Mapping[str, str | None]] | None = None,
                 kafka_version: str | None = None) -> None:
        self.dir = base_dir or paths.testbed_dir()
        base = port_base or int(os.environ.get("RACKWISE_TESTBED_PORT_BASE", "19092"))
        # node N listens on base+100*(N-1) for clients, +1 for the controller, +2 for SASL.
        # Every port stays below Linux's ephemeral range (32768+): a client socket that
        # happened to bind a broker's port there would stop that broker from restarting.
        if not 1024 <= base <= 32768 - 300:
            raise TestbedError(f"RACKWISE_TESTBED_PORT_BASE={base} must lie in 1024..32468 "
                               "(below the ephemeral port range)")
        self.nodes = tuple(
            Node(n, RACKS[n - 1], base + 100 * (n - 1), base + 100 * (n - 1) + 1,
                 (base + 100 * (n - 1) + 2) if sasl else None)
            for n in (1, 2, 3)
        )
        self.heap_mb = heap_mb
        self.sasl = sasl
        self._log = log or (lambda msg: None)
        # The brokers load rackwise's KIP-848 assignor when its jar is built (make setup, or
        # RACKWISE_PLUGIN_JAR for an installed package), unless RACKWISE_TESTBED_PLUGINS=0.
        self.plugin_jar = paths.plugin_jar()
        if plugins is None:
            plugins = (self.plugin_jar is not None and self.plugin_jar.is_file()
                       and os.environ.get("RACKWISE_TESTBED_PLUGINS") != "0")
        self.plugins = plugins
        # Per-node broker properties on top of the defaults, for misconfigured clusters
        # (rackwise doctor's tests): {node id: {property: value, or None to leave it out}}.
        # Read whenever a node's config is written (up, restart_node).
        self.overrides: dict[int, dict[str, str | None]] = {
            n: dict(props) for n, props in (overrides or {}).items()}
        # The Kafka release: kafka_version, else RACKWISE_KAFKA_VERSION, else the broker POM's.
        self.version = kafka_version or kafkaversion.kafka_version()

    # ---- paths -------------------------------------------------------------------------
    @property
    def libs(self) -> Path:
        return kafkaversion.libs_dir(self.version)

    @property
    def classpath(self) -> str:
        """Kafka's jars, plus the plug-in jar when the brokers load it. ``kafka-storage format``
        needs it too: Kafka builds the group coordinator's config (and so instantiates the
        assignor) for every KafkaConfig, the format step's included."""
        if not self.plugins:
            return f"{self.libs}/*"
        if self.plugin_jar is None:
            raise TestbedError(f"no plug-in jar in an installed package: {paths.PLUGIN_JAR_HINT}")
        if not self.plugin_jar.is_file():
            raise TestbedError(f"no plug-in jar at {self.plugin_jar}: build it with `make plugins`")
        # the brokers' own copy, taken at up(): a rebuilt jar never changes classes under them
        copy = self.dir / "plugins" / self.plugin_jar.name
        return f"{self.libs}/*{os.pathsep}{copy if copy.is_file() else self.plugin_jar}"

    def _props(self, node: Node) -> Path:
        return self.dir / f"node{node.node_id}.properties"

    def _data(self, node: Node) -> Path:
        return self.dir / "data" / f"n{node.node_id}"

    def _logs(self, node: Node) -> Path:
        return self.dir / "logs" / f"n{node.node_id}"

    def _pidfile(self, node: Node) -> Path:
        return self.dir / "pids" / f"n{node.node_id}"

    @property
    def bootstrap(self) -> str:
        return ",".join(n.address for n in self.nodes)

    @property
    def sasl_bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.sasl_port}" for n in self.nodes if n.sasl_port)

    # ---- prerequisites -----------------------------------------------------------------
    def ensure_jars(self) -> None:
        """This release's broker classpath, fetched from Maven Central into its own cache
        directory on first use (agent/dev/kafkaversion.py)."""
        try:
            kafkaversion.ensure_libs(self.version, self._log)
        except kafkaversion.KafkaVersionError as e:
            raise TestbedError(str(e)) from e

    def jmx_exporter_port(self, node: Node) -> int | None:
        """Where ``node`` serves its MBeans as Prometheus metrics (kafka.rackwise's included,
        deploy/prometheus/jmx-exporter.yml), or None: no exporter jar in the cache (`make
        jars`), no exporter config (an installed package: it lives in the checkout's deploy/),
        or RACKWISE_TESTBED_JMX_EXPORTER=0."""
        if (os.environ.get("RACKWISE_TESTBED_JMX_EXPORTER") == "0"
                or not jmx_exporter_jar().is_file() or not JMX_EXPORTER_CONFIG.is_file()):
            return None
        return node.client_port + JMX_EXPORTER_OFFSET

    def _jmx_exporter_args(self, node: Node) -> list[str]:
        """The broker JVM's extra arguments for the JMX exporter agent (none when it is off):
        ``-javaagent:<jar>=<host>:<port>:<config>`` serves /metrics on the loopback only."""
        port = self.jmx_exporter_port(node)
        if port is None:
            return []
        return [f"-javaagent:{jmx_exporter_jar()}={HOST}:{port}:{JMX_EXPORTER_CONFIG}"]

    def _java_cmd(self, node: Node) -> list[str]:
        java = shutil.which("java")
        if java is None:
            raise TestbedError("'java' not found: install OpenJDK 17+")
        return [
            java, f"-Xms{self.heap_mb // 2}m", f"-Xmx{self.heap_mb}m", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={paths.resource('kafka', 'log4j2.properties')}",
            f"-Dkafka.logs.dir={self._logs(node)}", *self._jmx_exporter_args(node),
            "-cp", self.classpath, "kafka.Kafka", str(self._props(node)),
        ]

    # ---- configuration -----------------------------------------------------------------
    def _write_config(self, node: Node) -> None:
        voters = ",".join(f"{n.node_id}@{HOST}:{n.controller_port}" for n in self.nodes)
        listeners = [f"PLAINTEXT://{HOST}:{node.client_port}", f"CONTROLLER://{HOST}:{node.controller_port}"]
        advertised = [f"PLAINTEXT://{HOST}:{node.client_port}"]
        protocol_map = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
        extra: list[str] = []
        if node.sasl_port:
            listeners.append(f"SASL_PLAINTEXT://{HOST}:{node.sasl_port}")
            advertised.append(f"SASL_PLAINTEXT://{HOST}:{node.sasl_port}")
            protocol_map += ",SASL_PLAINTEXT:SASL_PLAINTEXT"
            extra += [
                "sasl.enabled.mechanisms=PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config="
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                f'user_{SASL_USER}="{SASL_PASSWORD}";',
            ]
        props = {
            "process.roles": "broker,controller",
            "node.id": str(node.node_id),
            "broker.rack": node.rack,
            "controller.quorum.voters": voters,
            "listeners": ",".join(listeners),
            "advertised.listeners": ",".join(advertised),
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": protocol_map,
            "log.dirs": str(self._data(node)),
            "num.partitions": "3",
            "default.replication.factor": "3",
            "min.insync.replicas": "1",
            "offsets.topic.replication.factor": "3",
            "offsets.topic.num.partitions": "3",
            "transaction.state.log.replication.factor": "3",
            "transaction.state.log.min.isr": "1",
            "transaction.state.log.num.partitions": "3",
            "share.coordinator.state.topic.replication.factor": "3",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "false",
            "num.network.threads": "2",
            "num.io.threads": "2",
            "log.cleaner.dedupe.buffer.size": "16777216",
            "log.segment.bytes": "16777216",
            "replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector",
            "group.min.session.timeout.ms": "1000",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "5000",
            "transaction.remove.expired.transaction.cleanup.interval.ms": "10000",
        }
        if self.plugins:
            props.update(brokerassignors.broker_plugin_settings(version=self.version))
        props.update(self.assignor_settings())
        lines = [f"{k}={v}" for k, v in self.broker_properties(node, props).items()] + extra
        self._props(node).write_text("\n".join(lines) + "\n")

    def assignor_settings(self) -> dict[str, str]:
        """The brokers' assignor lists from the environment (agent.dev.brokerassignors)."""
        return brokerassignors.from_environment(self.version, self.plugins)

    def broker_properties(self, node: Node, defaults: Mapping[str, str]) -> dict[str, str]:
        """``defaults`` with this node's overrides applied (None removes a property)."""
        props = dict(defaults)
        for key, value in self.overrides.get(node.node_id, {}).items():
            if value is None:
                props.pop(key, None)
            else:
                props[key] = value
        return props

    def _expects_rack(self, node: Node) -> bool:
        """Whether the node runs with a broker.rack: its config as written (a node not yet
        restarted after ``overrides`` changed still runs the old one)."""
        try:
            written = self._props(node).read_text().splitlines()
        except OSError:
            return self.overrides.get(node.node_id, {}).get("broker.rack", node.rack) is not None
        return any(line.startswith("broker.rack=") for line in written)

    def _cluster_id(self) -> str:
        path = self.dir / "cluster.id"
        if path.exists():
            return path.read_text().strip()
        # A base64url id may start with '-', which argparse in StorageTool would take for a
        # flag; it is passed as --cluster-id=ID, and ids starting with '-' are avoided anyway.
        cid = "-"
        while cid.startswith("-"):
            cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        path.write_text(cid)
        return cid

    def _format(self, nodes: Sequence[Node], cluster_id: str) -> None:
        """Format every node's data directory that is not already this cluster's: one
        ``kafka-storage format`` JVM per node, all at once (each is mostly JVM start-up)."""
        java = shutil.which("java") or "java"
        running: list[tuple[Node, subprocess.Popen[str]]] = []
        for node in nodes:
            meta = self._data(node) / "meta.properties"
            if meta.exists():
                if f"cluster.id={cluster_id}" in meta.read_text():
                    continue
                # Stale data from another cluster: the testbed owns this directory, start afresh.
                self._log(f"node {node.node_id}: stale data dir from another cluster, wiping it")
                shutil.rmtree(self._data(node))
            self._data(node).mkdir(parents=True, exist_ok=True)
            running.append((node, subprocess.Popen(
                [java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", self.classpath,
                 "kafka.tools.StorageTool", "format",
                 f"--cluster-id={cluster_id}", "-c", str(self._props(node)), "-g"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        failed = []
        for node, proc in running:
            try:
                output, _ = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                output, _ = proc.communicate()
                output += "\n(killed after 120 s)"
            if proc.returncode != 0:
                failed.append(f"formatting node {node.node_id} failed:\n{output[-2000:]}")
        if failed:
            raise TestbedError("\n".join(failed))

    # ---- lifecycle ---------------------------------------------------------------------
    def _pid(self, node: Node) -> int | None:
        try:
            pid = int(self._pidfile(node).read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if procs.pid_alive(pid) else None

    def is_running(self) -> bool:
        return all(self._pid(n) is not None for n in self.nodes) and all(
            procs.port_open(n.client_port) for n in self.nodes)

    def up(self, timeout: float = 180.0) -> str:
        """Start the cluster (or reuse a running one); return the bootstrap servers."""
        if self.is_running() and self._wait_ready(timeout=30, quiet=True):
            running = self.running_version()
            if running not in (None, self.version):
                raise TestbedError(f"the testbed in {self.dir} runs Kafka {running}, not {self.version} "
                                   "(RACKWISE_KAFKA_VERSION): `rackwise testbed down` first")
            self._log(f"testbed already running (Kafka {running or '?'})")
            return self.bootstrap
        # Half-started or crashed: stop what is left, then start clean.
        if any(self._pid(n) for n in self.nodes):
            self._log("found a half-started testbed; stopping it first")
            self.down()
        self.ensure_jars()
        busy = [p for n in self.nodes
                for p in (n.client_port, n.controller_port, n.sasl_port, self.jmx_exporter_port(n))
                if p and procs.port_open(p)]
        if busy:
            raise TestbedError(
                f"port(s) {', '.join(map(str, busy))} on {HOST} are in use by another program: stop it, "
                "or choose other ports with RACKWISE_TESTBED_PORT_BASE "
                f"(e.g. {self.nodes[0].client_port + 1000})")
        for sub in ("data", "logs", "pids", "plugins"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        if self.plugins and self.plugin_jar is not None and self.plugin_jar.is_file():
            shutil.copyfile(self.plugin_jar, self.dir / "plugins" / self.plugin_jar.name)
        cid = self._cluster_id()
        (self.dir / "kafka.version").write_text(self.version + "\n")
        self._log(f"Apache Kafka {self.version} from {self.libs}")
        chosen = self.assignor_settings()
        overridden = sorted({v for o in self.overrides.values()
                             if (v := o.get("group.consumer.assignors")) is not None})
        if self.plugins and "group.consumer.assignors" not in chosen and not overridden:
            listed = f"uniform,range,{brokerassignors.GROUP_ASSIGNOR}"
            self._log(f"brokers load rackwise's KIP-848 assignor from {self.plugin_jar} "
                      f"(group.consumer.assignors={listed}): groups opt in "
                      "with group.protocol=consumer, group.remote.assignor=rackwise; "
                      "the others keep Kafka's default (uniform)")
        elif self.plugin_jar is None and os.environ.get("RACKWISE_TESTBED_PLUGINS") != "0":
            self._log("brokers start without rackwise's KIP-848 assignor (no plug-in jar in an "
                      f"installed package): to load it, {paths.PLUGIN_JAR_HINT}")
        for key, value in chosen.items():
            env = (brokerassignors.CONSUMER_ASSIGNORS_ENV if key.startswith("group.consumer")
                   else brokerassignors.STREAMS_ASSIGNORS_ENV)
            self._log(f"brokers run {key}={value} (from {env})")
        for value in overridden:
            self._log(f"brokers run group.consumer.assignors={value} (per-node overrides)")
        for node in self.nodes:
            self._write_config(node)
            self._logs(node).mkdir(parents=True, exist_ok=True)
        self._format(self.nodes, cid)
        for node in self.nodes:
            pid = procs.spawn(self._java_cmd(node), self._logs(node) / "stdout.log", cwd=self.dir)
            self._pidfile(node).write_text(str(pid))
        if not self._wait_ready(timeout):
            tail = self._log_tail()
            self.down()
            raise TestbedError(
                f"the brokers did not become ready within {timeout:.0f}s; last log lines:\n{tail}")
        return self.bootstrap

    def _wait_ready(self, timeout: float, quiet: bool = False) -> bool:
        from confluent_kafka.admin import AdminClient

        deadline = time.monotonic() + timeout
        # closed on this thread: see "Close librdkafka clients" in docs/development.md
        with AdminClient({"bootstrap.servers": self.bootstrap, "socket.connection.setup.timeout.ms": 3000,
                          "logger": _SilentLogger()}) as admin:  # type: ignore[dict-item]
            while time.monotonic() < deadline:
                dead = [n.node_id for n in self.nodes if self._pid(n) is None]
                if dead:
                    if not quiet:
                        self._log(f"node(s) {dead} exited during start-up")
                    return False
                try:
                    cluster = admin.describe_cluster(request_timeout=5).result(timeout=10)
                    racks = {node.id: node.rack for node in cluster.nodes}
                    if len(racks) == 3 and all(racks[n.node_id] for n in self.nodes
                                               if self._expects_rack(n) and n.node_id in racks):
                        # The group coordinator needs a leader for __consumer_offsets; the first
                        # consumer creates it, which is fast with 3 partitions.
                        return True
                except Exception:  # noqa: BLE001 - not up yet; keep polling until the deadline
                    pass
                time.sleep(1.0)
        return False

    def _log_tail(self, lines: int = 15) -> str:
        out = []
        for node in self.nodes:
            path = self._logs(node) / "stdout.log"
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- node {node.node_id} ({path})\n" + "\n".join(text))
        return "\n".join(out)

    def down(self, timeout: float = 2.0) -> None:
        """Stop every node (TERM, then KILL after timeout), wait for ports to close, wipe data.

        The data is wiped, so a slow shutdown is not waited out: with all three stopping at
        once, the last KRaft controller spends about 5 s trying to hand over leadership to
        controllers that are already gone (measured: 6.6 s a ``down`` before this limit; the
        brokers close their listeners in under 1 s)."""
        pids = {n.node_id: self._pid(n) for n in self.nodes}
        for pid in pids.values():
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(p and procs.pid_alive(p) for p in pids.values()):
            time.sleep(0.3)
        for pid in pids.values():
            if pid and procs.pid_alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
        for node in self.nodes:
            self._pidfile(node).unlink(missing_ok=True)
        # A broker closes its Kafka listeners early in a controlled shutdown, but the JMX
        # exporter's port lives until the JVM is gone, and a killed JVM takes a moment to go:
        # wait for the processes and for every port `up` checks.
        ports = [p for n in self.nodes
                 for p in (n.client_port, n.controller_port, n.sasl_port, self.jmx_exporter_port(n)) if p]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (any(p and procs.pid_alive(p) for p in pids.values())
                                               or any(procs.port_open(p) for p in ports)):
            time.sleep(0.2)
        shutil.rmtree(self.dir / "data", ignore_errors=True)
        (self.dir / "cluster.id").unlink(missing_ok=True)

    def stop_node(self, node_id: int, hard: bool = False) -> None:
        """Stop one node (for failure tests); its data stays so it can come back."""
        node = self.nodes[node_id - 1]
        pid = self._pid(node)
        if pid:
            os.killpg(pid, signal.SIGKILL if hard else signal.SIGTERM)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and procs.pid_alive(pid):
                time.sleep(0.2)
        self._pidfile(node).unlink(missing_ok=True)

    def start_node(self, node_id: int) -> None:
        node = self.nodes[node_id - 1]
        if self._pid(node):
            return
        pid = procs.spawn(self._java_cmd(node), self._logs(node) / "stdout.log", cwd=self.dir)
        self._pidfile(node).write_text(str(pid))

    def restart_node(self, node_id: int, timeout: float = 120.0, hard: bool = False) -> None:
        """Stop one node (``hard``: SIGKILL, skipping the controlled shutdown), write its
        config again (with the current ``overrides``), start it and wait until the cluster is
        ready: a broker setting that Kafka cannot change at run time (read-only configs) is
        fixed this way."""
        node = self.nodes[node_id - 1]
        self.stop_node(node_id, hard=hard)
        self._write_config(node)
        self.start_node(node_id)
        # the cluster may still list the node's previous registration: wait for the new
        # process to listen before asking the cluster
        deadline = time.monotonic() + timeout
        while not procs.port_open(node.client_port) and time.monotonic() < deadline:
            if self._pid(node) is None:
                break
            time.sleep(0.3)
        if not self._wait_ready(max(1.0, deadline - time.monotonic())):
            raise TestbedError(f"node {node_id} did not come back within {timeout:.0f}s:\n"
                               f"{self._log_tail()}")

    def running_version(self) -> str | None:
        """The Kafka release the testbed in this directory was started with, if recorded."""
        try:
            return (self.dir / "kafka.version").read_text().strip() or None
        except OSError:
            return None

    def status(self) -> list[dict[str, object]]:
        return [
            {"node": n.node_id, "rack": n.rack, "address": n.address, "pid": self._pid(n),
             "listening": procs.port_open(n.client_port)}
            for n in self.nodes
        ]


SASL_USER = "rackwise"
SASL_PASSWORD = "rackwise-secret"


class _SilentLogger:
    """A logger for librdkafka that drops the connection-refused noise of a starting cluster."""

    def log(self, *args: object, **kwargs: object) -> None:
        pass

    def debug(self, *args: object, **kwargs: object) -> None:
        pass

    info = warning = error = critical = exception = debug
