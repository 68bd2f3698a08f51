"""The end-to-end demo (``make demo``, ``rackwise demo``): real Kafka, agent, members, Spark.

1. the local testbed: 3 KRaft brokers in racks az1, az2, az3 (state under .testbed);
2. two topics of 6 partitions whose replicas are skewed: every partition lives in az1 and
   az2 only, so a member in az3 can read nothing from its own rack;
3. ``rackwise agent run`` as a subprocess (its log under <testbed>/demo/agent.log);
4. a consumer group ``demo-orders`` (rack-optimal assignor) and a Streams-style group
   ``demo-clicks`` (high-availability assignor, min_traffic) of one member per rack, each
   a real confluent-kafka consumer following its plans;
5. the Spark metrics job (available-now) over the published plans: the "before" figures;
6. a replica move: one replica of partitions 0 and 1 of both topics goes to az3's broker;
   the agent sees the racks change and re-plans both groups (replica-racks-changed);
7. the metrics job again: the "after" figures, then the HTML report;
8. everything stopped again, on success, error or Ctrl-C alike.

The figures printed come from the metrics job's Parquet tables (metrics.report.load), which
the job computed from the plans in the plans topic; ``summary.json`` next to the report
holds them for scripts and tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent.dev import testbed
from agent.dev.demo.figures import figure_lines, latest_figures, plan_line, write_summary
from agent.dev.demo.layout import PARTITIONS, Layout, Names, agent_settings, settled
from protocol.errors import RackwiseError

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_OUT = ROOT / "out" / "demo"
RECORDS_PER_TOPIC = 600


class DemoError(RackwiseError):
    """The demo cannot go on; the message says what failed and where its log is."""


class Demo:
    """One run; :meth:`run` returns the summary dict (also written to summary.json)."""

    def __init__(self, bootstrap: str | None, keep: bool, out: Path,
                 say: Callable[[str], None]) -> None:
        self.given_bootstrap = bootstrap
        self.keep = keep
        self.out = out
        self._say = say
        self.started = time.monotonic()
        self.bed = testbed.Testbed(log=lambda m: self.say(f"  testbed: {m}"))
        self.work = self.bed.dir / "demo"
        self.names = Names()
        self.bootstrap = ""
        self.started_testbed = False
        self.logger: Any = None

    def say(self, msg: str) -> None:
        self._say(f"[{time.monotonic() - self.started:5.0f}s] {msg}")

    # ---- the run -------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self._say("rackwise demo: Kafka in 3 racks, 2 groups of members, one replica move, the "
                  "Spark metrics job (a few minutes)")
        with contextlib.ExitStack() as stack:
            self._prepare_dirs()
            self._cluster(stack)
            layout = self._layout()
            self._create_topics(layout)
            agent = self._start_agent(stack)
            readers = self._readers(stack)
            members = self._start_members(stack, layout)
            before_plans = self._wait_stable(readers, after=None)
            self._show_plans(before_plans)
            self.say(f"  {layout.racks[2]} holds no replica, so its members must read across "
                     "racks: the plans above are the best possible (cross-rack = lower bound)")
            spark = self._spark(stack)
            before = self._metrics(spark, "before the move")
            self._move(layout)
            after_plans = self._wait_stable(readers, after=before_plans)
            self._show_plans(after_plans)
            after = self._metrics(spark, "after the move")
            report = self._report()
            summary = write_summary(self.names, self.bootstrap, self.out, before, after, report,
                                    agent.pid, members)
            self._print_figures(summary)
        took = f"demo finished in {time.monotonic() - self.started:.0f}s"
        if self.started_testbed and not self.keep:
            self.say(f"{took}; everything it started is stopped")
        elif self.started_testbed:
            self.say(f"{took}; the testbed is still running: `rackwise testbed down` stops it")
        else:
            self.say(f"{took}; the cluster it found running is left as it was")
        return summary

    def _prepare_dirs(self) -> None:
        for sub in ("crt", "report"):
            shutil.rmtree(self.out / sub, ignore_errors=True)
        self.out.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        import logging

        # Client and member chatter goes to a file; the console keeps the progress lines.
        self.logger = logging.getLogger("rackwise.demo.clients")
        self.logger.propagate = False
        handler = logging.FileHandler(self.work / "members.log", mode="w")
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
        self.logger.handlers[:] = [handler]
        self.logger.setLevel(logging.INFO)
        import structlog

        structlog.configure(
            processors=[structlog.processors.add_log_level,
                        structlog.processors.TimeStamper(fmt="iso", utc=True),
                        structlog.processors.JSONRenderer()],
            logger_factory=structlog.WriteLoggerFactory(file=handler.stream),
        )

    def _cluster(self, stack: contextlib.ExitStack) -> None:
        if self.given_bootstrap:
            self.bootstrap = self.given_bootstrap
            self.names = Names(f"-{uuid.uuid4().hex[:6]}")
            self.say(f"using the cluster at {self.bootstrap}; names end in {self.names.tag}")
            return
        if self.bed.is_running():
            self.bootstrap = self.bed.up()
            self.names = Names(f"-{uuid.uuid4().hex[:6]}")
            self.say(f"reusing the running testbed; names end in {self.names.tag}")
            return
        self.say("starting the testbed: 3 Kafka brokers (KRaft) in racks az1, az2, az3")
        self.started_testbed = True
        if not self.keep:
            stack.callback(self._stop_testbed)
        self.bootstrap = self.bed.up()
        self.say(f"testbed up: {self.bootstrap}  (state in {self.bed.dir})")

    def _stop_testbed(self) -> None:
        self.say("stopping the testbed")
        self.bed.down()

    def _conf(self, **extra: Any) -> dict[str, Any]:
        return {"bootstrap.servers": self.bootstrap, "logger": self.logger, **extra}

    def _layout(self) -> Layout:
        from confluent_kafka.admin import AdminClient

        admin = AdminClient(self._conf())
        nodes = admin.describe_cluster(request_timeout=15).result(30).nodes
        by_rack: dict[str, int] = {}
        for node in sorted(nodes, key=lambda n: n.id):
            if node.rack and node.rack not in by_rack:
                by_rack[node.rack] = node.id
        if len(by_rack) < 3:
            raise DemoError(f"the demo needs brokers in 3 racks; {self.bootstrap} has "
                            f"{sorted(by_rack) or 'no racks'}")
        racks = sorted(by_rack)[:3]
        return Layout((by_rack[racks[0]], by_rack[racks[1]], by_rack[racks[2]]),
                      (racks[0], racks[1], racks[2]))

    def _create_topics(self, layout: Layout) -> None:
        from confluent_kafka import Producer
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient(self._conf())
        topics = [self.names.orders, self.names.clicks]
        new = [NewTopic(t, num_partitions=PARTITIONS, replica_assignment=layout.skewed())
               for t in topics]
        for name, future in admin.create_topics(new, operation_timeout=30).items():
            future.result(60)
            self.say(f"created topic {name}: 6 partitions, replicas only in "
                     f"{layout.racks[0]} and {layout.racks[1]} (none in {layout.racks[2]})")
        producer = Producer(self._conf(**{"linger.ms": 20}))
        for topic in topics:
            for i in range(RECORDS_PER_TOPIC):
                producer.produce(topic, key=f"k{i}".encode(), value=f"event {i}".encode(),
                                 partition=i % PARTITIONS)
        if producer.flush(30):
            raise DemoError("could not write the demo records within 30 s")

    # ---- the agent -----------------------------------------------------------------------
    def _agent_config(self) -> Path:
        path = self.work / "agent.json"
        path.write_text(json.dumps(agent_settings(self.names), indent=2) + "\n")
        return path

    def _start_agent(self, stack: contextlib.ExitStack) -> subprocess.Popen[bytes]:
        config = self._agent_config()
        log_path = self.work / "agent.log"
        cmd = [sys.executable, "-m", "agent", "agent", "run", "--config", str(config),
               "--bootstrap", self.bootstrap, "--ops-port", "-1", "--log-format", "json"]
        with open(log_path, "wb") as log:
            # Its own session: Ctrl-C reaches the demo, which then stops the agent in order.
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=ROOT, start_new_session=True,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
        stack.callback(self._stop_agent, proc)
        self.say(f"started `rackwise agent run` (pid {proc.pid}, log {_rel(log_path)})")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise DemoError(f"the agent exited with code {proc.returncode}:\n"
                                f"{_tail(log_path)}")
            if log_path.read_text(errors="replace").count('"partition ready"') >= 3:
                self.say("agent ready: it owns the subscriptions topic and plans every group")
                return proc
            time.sleep(0.3)
        raise DemoError(f"the agent was not ready within 120 s:\n{_tail(log_path)}")

    def _stop_agent(self, proc: subprocess.Popen[bytes]) -> None:
        if proc.poll() is not None:
            return
        self.say("stopping the agent")
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(45)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)

    # ---- members and plans ---------------------------------------------------------------
    def _readers(self, stack: contextlib.ExitStack) -> dict[str, Any]:
        from agent.dev.tail import PlanReader

        readers = {}
        for group in (self.names.consumer_group, self.names.streams_group):
            reader = PlanReader(self.bootstrap, self.names.plans, group)
            stack.callback(reader.close)
            readers[group] = reader
        return readers

    def _start_members(self, stack: contextlib.ExitStack, layout: Layout) -> list[Any]:
        from agent.dev.demo.members import DemoMember

        topics = {"subscriptions": self.names.subscriptions, "plans": self.names.plans}
        members = []
        for rack in layout.racks:
            members.append(DemoMember.consumer(
                self._conf(), topics, self.names.consumer_group, f"orders-{rack}", rack,
                self.names.orders))
            members.append(DemoMember.streams(
                self._conf(), topics, self.names.streams_group, f"clicks-{rack}", rack,
                self.names.clicks))
        stack.callback(self._stop_members, members)
        for m in members:
            m.start()
        self.say(f"started 6 members: {self.names.consumer_group} (consumer group) and "
                 f"{self.names.streams_group} (Streams-style), one of each in "
                 f"{', '.join(layout.racks)}")
        return members

    def _stop_members(self, members: list[Any]) -> None:
        self.say("stopping the members")
        errors = []
        for m in members:
            try:
                m.stop()
            except Exception as exc:  # noqa: BLE001 - stop the others anyway
                errors.append(f"{m.name}: {exc}")
            if m.error is not None:
                errors.append(f"{m.name}: {m.error!r}")
        if errors:
            self.say("member errors: " + "; ".join(errors))

    def _wait_stable(self, readers: dict[str, Any], after: dict[str, Any] | None,
                     timeout: float = 120) -> dict[str, Any]:
        """Each group's settled plan: all members, all partitions, nothing withheld; after
        the move, one that follows a replica-racks-changed plan."""
        plans = {}
        for group, reader in readers.items():
            floor = 0
            if after is not None:
                changed = reader.wait_plan(
                    lambda p, g=after[group].generation: p.generation > g
                    and p.reason == "replica-racks-changed", timeout)
                floor = changed.generation - 1
                self.say(f"agent re-planned {group}: generation {changed.generation}, "
                         "reason replica-racks-changed")
            plans[group] = reader.wait_plan(
                lambda p, f=floor: p.generation > f and settled(p), timeout)
        return plans

    def _show_plans(self, plans: dict[str, Any]) -> None:
        for group, plan in plans.items():
            self.say(plan_line(group, plan))

    # ---- the replica move ----------------------------------------------------------------
    def _move(self, layout: Layout) -> None:
        from confluent_kafka import TopicCollection
        from confluent_kafka.admin import AdminClient
        from kafka import TopicPartition
        from kafka.admin import KafkaAdminClient

        target = layout.moved()
        topics = [self.names.orders, self.names.clicks]
        moves = {TopicPartition(t, p): r for t in topics for p, r in target.items()}
        self.say(f"moving replicas: partitions {', '.join(map(str, target))} of both topics get "
                 f"a replica on broker {layout.brokers[2]} ({layout.racks[2]})")
        kadmin = KafkaAdminClient(bootstrap_servers=self.bootstrap.split(","),
                                  client_id="rackwise-demo")
        try:
            result = kadmin.alter_partition_reassignments(moves)
        finally:
            kadmin.close()
        failed = {str(k): str(v) for k, v in result.items() if v is not None}
        if failed:
            raise DemoError(f"the reassignment was refused: {failed}")
        admin = AdminClient(self._conf())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            futures = admin.describe_topics(TopicCollection(topics), request_timeout=10)
            done = True
            for t in topics:
                parts = {p.id: [r.id for r in p.replicas] for p in futures[t].result(15).partitions}
                done &= all(parts[p] == r for p, r in target.items())
            if done:
                self.say("replica move complete; waiting for the agent to notice")
                return
            time.sleep(0.5)
        raise DemoError("the replica move did not complete within 60 s")

    # ---- metrics and the report ----------------------------------------------------------
    def _spark(self, stack: contextlib.ExitStack) -> Any:
        from metrics.session import build_session

        self.say("starting Spark (local[2]) for the metrics job: the slowest step")
        # The JVM inherits stdout/stderr when it starts: they go to spark.log for good.
        with _output_to(self.work / "spark.log"):
            spark = build_session("local[2]", app_name="rackwise-demo")
        stack.callback(self._stop_spark, spark)
        return spark

    def _stop_spark(self, spark: Any) -> None:
        self.say("stopping Spark")
        spark.stop()

    def _metrics(self, spark: Any, when: str) -> dict[str, dict[str, Any]]:
        from metrics.job import run_available_now
        from metrics.report import load

        began = time.monotonic()
        with _output_to(self.work / "spark.log"):  # librdkafka and Spark chatter
            counters = run_available_now(
                self.bootstrap, self.out / "crt", plans_topic=self.names.plans,
                metrics_topic=self.names.metrics, spark=spark, timeout=300)
        self.say(f"metrics job ({when}): {counters['plans']} new plans read in "
                 f"{time.monotonic() - began:.0f}s, {counters['rejected']} rejected")
        rows = load(self.out / "crt").plans
        figures = {}
        for group in (self.names.consumer_group, self.names.streams_group):
            latest = latest_figures(rows, group)
            if latest is None:
                raise DemoError(f"the metrics job wrote no rows for {group}")
            figures[group] = latest
        return figures

    def _report(self) -> Path:
        from metrics.report import render

        page = Path(render(self.out / "crt", self.out / "report"))
        self.say(f"report written: {_rel(page)}")
        return page

    # ---- output --------------------------------------------------------------------------
    def _print_figures(self, summary: dict[str, Any]) -> None:
        self.say("cross-rack figures per group, from the metrics job (Parquet under "
                 f"{_rel(Path(summary['parquet']))}):")
        for line in figure_lines(summary, RECORDS_PER_TOPIC, self.out / "summary.json"):
            self._say(line)


def _rel(path: Path) -> str:
    with contextlib.suppress(ValueError):
        return str(path.resolve().relative_to(Path.cwd()))
    return str(path)


def _tail(path: Path, lines: int = 20) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return "(no log)"


@contextlib.contextmanager
def _output_to(path: Path) -> Iterator[None]:
    """Point file descriptors 1 and 2 at ``path`` meanwhile: child processes started inside
    (Spark's JVM) and C libraries (librdkafka) write there; Python exceptions still raise."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(path, "ab") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                yield
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM cleans up like Ctrl-C (only the main thread may set handlers)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_demo(bootstrap: str | None = None, keep: bool = False, out: str | Path | None = None,
             say: Callable[[str], None] | None = None) -> int:
    """``rackwise demo``: 0 on success, 1 on failure, 130 when interrupted."""
    printer = say or (lambda msg: print(msg, flush=True))
    demo = Demo(bootstrap or os.environ.get("RACKWISE_BOOTSTRAP"), keep,
                Path(out) if out else DEFAULT_OUT, printer)
    try:
        with _sigterm_as_interrupt():
            demo.run()
    except KeyboardInterrupt:
        printer("demo interrupted; everything it started has been stopped")
        return 130
    except Exception as exc:  # noqa: BLE001 - one clear line, logs named in the message
        printer(f"demo failed: {exc}")
        printer(f"logs: {_rel(demo.work)}/agent.log, members.log, spark.log")
        return 1
    return 0
