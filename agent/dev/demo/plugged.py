"""The demo's groups behind Kafka's own assignor plug-in points (plugins/README.md).

* ``demo-payments``: three classic Java consumers (``DemoConsumer.java``, one JVM each) with
  ``partition.assignment.strategy=dev.rackwise.plugins.RackwiseAssignor`` and ``client.rack``
  az1/az2/az3: the group leader's plug-in computes the rack-optimal assignment in-process;
* ``demo-views``: three confluent-kafka consumers on the KIP-848 protocol with
  ``group.remote.assignor=rackwise``: the group coordinator's ``RackwiseGroupAssignor``
  computes it on the broker.

The Java source (package data, shipped in the wheel) is compiled once with ``javac`` against
Kafka's jars (the testbed's classpath, fetched by ``make setup`` or the first ``testbed up``)
into the demo's work directory, then run with the plug-in jar on
the classpath: one compile instead of one per JVM, as Java's single-file launcher would do.

A group has formed when its clients run a plan the plug-in published (reason ``assigned``,
on the plans topic, from a background thread of the plug-in). The agent only advises them;
a member is replaced once when no published plan is followed in time (a plan the plug-in
could not name yet, e.g. before a broker has learnt the group id, is published later).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent.dev import kafkaversion, paths
from agent.dev.fetchstats import Client, JsonLineClient, RdkafkaConsumer, follows
from agent.dev.tail import PlanReader
from protocol.plan import PLUGIN_REASON, AssignmentPlan

HERE = Path(__file__).resolve().parent
JAVA_SOURCE = HERE / "DemoConsumer.java"
LOG4J = HERE / "java-log4j2.properties"
# Small heaps and the C1 compiler only: the demo may have two cores for everything.
JVM_FLAGS = ("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
# The demo's agent advises on its own topic: the classic plug-in reads that one.
JAVA_CONFIG: dict[str, Any] = {}
KIP848_MIN_LIBRDKAFKA = (2, 12)


def kafka_libs() -> Path:
    return kafkaversion.libs_dir()


def java_missing() -> str | None:
    """Why the Java group cannot run here (None: it can)."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return f"'{tool}' is not on PATH (install OpenJDK 17+)"
    if not (kafka_libs() / ".complete").exists():
        return f"Kafka's jars are not in {kafka_libs()} (run `make setup` or `rackwise testbed up`)"
    jar = paths.plugin_jar()
    if jar is None:
        return f"an installed package has no plug-in jar: {paths.PLUGIN_JAR_HINT}"
    if not jar.is_file():
        return f"no plug-in jar at {jar} (run `make setup`)"
    return None


def compile_java(out: Path) -> Path:
    """``DemoConsumer.class`` in ``out`` (compiled unless newer than its source)."""
    target = out / "DemoConsumer.class"
    if target.exists() and target.stat().st_mtime >= JAVA_SOURCE.stat().st_mtime:
        return out
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["javac", "-J-XX:TieredStopAtLevel=1", "-nowarn", "--release", "17", "-d", str(out),
         "-cp", f"{kafka_libs()}/*", str(JAVA_SOURCE)],
        capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"javac failed for {JAVA_SOURCE}:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return out


class JavaMember(JsonLineClient):
    """One ``DemoConsumer`` JVM; its log is ``log_dir``/java-<rack>.log."""

    def __init__(self, classes: Path, bootstrap: str, group: str, topic: str, rack: str,
                 topics: dict[str, str], log_dir: Path) -> None:
        config = {**JAVA_CONFIG, "rackwise.plans.topic": topics["plans"],
                  "rackwise.advice.topic": topics["advice"]}
        classpath = os.pathsep.join([str(classes), f"{kafka_libs()}/*", str(paths.plugin_jar())])
        cmd = ["java", *JVM_FLAGS, f"-Dlog4j2.configurationFile={LOG4J}", "-cp", classpath,
               "DemoConsumer", f"bootstrap={bootstrap}", f"group={group}", f"topic={topic}",
               f"rack={rack}", f"client-id=java-{rack}", "stats-ms=500",
               *(f"config={k}={v}" for k, v in config.items())]
        super().__init__(cmd, f"java-{rack}", rack, log_dir / f"java-{rack}.log")


def kip848_skip_reason(admin: Any, tag: str, plans_topic: str) -> str | None:
    """Why the KIP-848 group cannot run against this cluster (None: it can)."""
    import confluent_kafka

    from agent.dev.fetchstats import brokers_load_plugin

    version = tuple(int(x) for x in confluent_kafka.libversion()[0].split(".")[:2])
    if version < KIP848_MIN_LIBRDKAFKA:
        return f"librdkafka {confluent_kafka.libversion()[0]} has no KIP-848 client (2.12+ has)"
    if not brokers_load_plugin(admin):
        return ("the brokers do not list rackwise's assignor in group.consumer.assignors "
                "(plugins/README.md: the jar on the brokers' classpath)")
    if tag:
        return (f"the brokers' rackwise assignor publishes its plans on rackwise.plans, and this "
                f"run reads {plans_topic} (names get a suffix on a cluster already up)")
    return None


def kip848_member(bootstrap: str, group: str, topic: str, rack: str,
                  logger: Any = None) -> RdkafkaConsumer:
    """A confluent-kafka consumer: group.protocol=consumer, group.remote.assignor=rackwise,
    client.rack; librdkafka's log goes to ``logger`` when given."""
    return RdkafkaConsumer(bootstrap, group, topic, rack, assignor="rackwise",
                           extra={"logger": logger} if logger is not None else None)


def followed_plan(reader: PlanReader, clients: Sequence[Client],
                  partitions: int) -> AssignmentPlan | None:
    """The newest plan a plug-in published (reason ``assigned``) that gives every partition
    to every client, if the clients run it."""
    reader.poll(0.2)
    for plan in reversed(reader.plans()):
        if (plan.reason == PLUGIN_REASON and not plan.withheld and len(plan.members) == len(clients)
                and sum(len(m.partitions) for m in plan.members) == partitions):
            return plan if follows(plan, clients) else None
    return None


class Stopped(Exception):
    """The demo is stopping: a group stops forming."""


def _until(cond: Callable[[], Any], timeout: float, stop: threading.Event,
           step: float = 0.3) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        if stop.is_set():
            raise Stopped
        value = cond()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def form_group(start: Callable[[str], Any], reader: PlanReader, racks: Sequence[str],
               partitions: int, settle_s: float, say: Callable[[str], None],
               clients: list[Any], stop: threading.Event) -> AssignmentPlan | None:
    """Start a member per rack, each once the one before owns partitions, until they run a
    plan the plug-in published; replace the last member up to twice when none is followed
    within ``settle_s``. ``clients`` holds the running members (the caller stops them);
    ``stop`` ends it early (:class:`Stopped`)."""
    def owns(client: Any) -> Callable[[], Any]:
        def check() -> Any:
            if isinstance(client, JsonLineClient) and not client.alive():
                log = client.log().strip().splitlines()[-5:]
                raise RuntimeError(f"{client.name} exited with code {client.proc.returncode} "
                                   f"({client.log_path}): " + " | ".join(log))
            return client.member_id and client.assignment()
        return check

    for rack in racks:
        clients.append(start(rack))
        if not _until(owns(clients[-1]), 90, stop):
            say(f"  {reader.group_id}: the {rack} member owns nothing after 90 s")
    for attempt in range(3):
        plan = _until(lambda: followed_plan(reader, clients, partitions), settle_s, stop)
        if plan is not None or attempt == 2:
            return plan  # type: ignore[no-any-return]
        say(f"  {reader.group_id}: no published plan followed within {settle_s:.0f}s; "
            f"replacing the {racks[-1]} member (a new rebalance)")
        clients.pop().stop()
        clients.append(start(racks[-1]))
        _until(owns(clients[-1]), 90, stop)
    return None


class PluggedGroups:
    """Forms the Java and the KIP-848 group in the background (threads), so they settle while
    the demo's other groups do; :meth:`wait` returns those that run a plan, :meth:`stop`
    stops every client. ``skip``: group -> why it does not run (None: it runs)."""

    KINDS = {"java": "classic Java, RackwiseAssignor",
             "kip848": "KIP-848 librdkafka, group.remote.assignor=rackwise"}

    def __init__(self, bootstrap: str, names: Any, racks: Sequence[str], partitions: int,
                 work: Path, say: Callable[[str], None], skip: dict[str, str | None],
                 logger: Any = None) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.bootstrap = bootstrap
        self.names = names
        self.racks = tuple(racks)
        self.partitions = partitions
        self.work = work
        self.say = say
        self.skip = skip
        self.logger = logger
        self.clients: dict[str, list[Any]] = {"java": [], "kip848": []}
        self.readers: dict[str, PlanReader] = {}
        self.outcome: dict[str, dict[str, Any]] = {}
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="demo-plugged")
        self._stop = threading.Event()
        self._futures: dict[str, Any] = {}
        self.began = time.monotonic()

    def group(self, kind: str) -> str:
        return str(self.names.java_group if kind == "java" else self.names.kip848_group)

    def topic(self, kind: str) -> str:
        return str(self.names.payments if kind == "java" else self.names.views)

    def start(self) -> None:
        for old in self.work.glob("java-*.log"):
            old.unlink()
        for kind in ("java", "kip848"):
            if self.skip.get(kind):
                self.outcome[self.group(kind)] = {"kind": self.KINDS[kind], "status": "skipped",
                                                  "reason": self.skip[kind]}
                continue
            self.readers[kind] = PlanReader(self.bootstrap, self.names.plans, self.group(kind))
            self._futures[kind] = self._pool.submit(self._form, kind)

    def _form(self, kind: str) -> AssignmentPlan | None:
        topics = {"plans": self.names.plans, "advice": self.names.advice}
        group, topic = self.group(kind), self.topic(kind)
        if kind == "java":
            classes = compile_java(self.work / "java")

            def start(rack: str) -> Any:
                return JavaMember(classes, self.bootstrap, group, topic, rack, topics, self.work)
            settle = 30.0
        else:
            def start(rack: str) -> Any:
                return kip848_member(self.bootstrap, group, topic, rack, self.logger)
            settle = 40.0
        return form_group(start, self.readers[kind], self.racks, self.partitions, settle,
                          self.say, self.clients[kind], self._stop)

    def wait(self, timeout: float = 420) -> list[tuple[str, str, str, list[Any], AssignmentPlan]]:
        """(kind, group, topic, clients, plan) of each group whose clients run a plan the
        plug-in published; the others get a status and a reason in :attr:`outcome`."""
        formed = []
        for kind, future in self._futures.items():
            group = self.group(kind)
            try:
                plan = future.result(max(1.0, timeout - (time.monotonic() - self.began)))
            except Exception as exc:  # noqa: BLE001 - said in one line, the demo goes on
                plan, why = None, f"{type(exc).__name__}: {exc}"
            else:
                why = "its clients ran no plan the plug-in published within the wait"
            if plan is None:
                self.outcome[group] = {"kind": self.KINDS[kind], "status": "failed", "reason": why}
                continue
            self.outcome[group] = {"kind": self.KINDS[kind], "status": "measured"}
            formed.append((kind, group, self.topic(kind), self.clients[kind], plan))
        return formed

    def stop(self) -> None:
        """Ends any forming first (so no client starts after), then stops every client."""
        from concurrent.futures import wait

        self._stop.set()
        wait(list(self._futures.values()), timeout=60)
        self._pool.shutdown(wait=False, cancel_futures=True)
        if any(self.clients.values()):
            self.say("stopping " + " and ".join(self.group(k) for k, c in self.clients.items() if c))
        for clients in self.clients.values():
            for c in clients:
                with contextlib.suppress(Exception):  # stop the others anyway
                    c.stop()
            clients.clear()
        for reader in self.readers.values():
            reader.close()
        self.readers.clear()
