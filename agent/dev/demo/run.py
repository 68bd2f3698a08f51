"""The end-to-end demo (``make demo``, ``rackwise demo``): real Kafka, agent, members, Spark.

1. the local testbed: 3 KRaft brokers in racks az1, az2, az3 (state under .testbed);
2. two topics of 6 partitions whose replicas are skewed: every partition lives in az1 and
   az2 only, so a member in az3 can read nothing from its own rack;
3. ``rackwise agent run`` as a subprocess (its log under <testbed>/demo/agent.log);
4. a consumer group ``demo-orders`` (rack-optimal assignor) and a Streams-style group
   ``demo-clicks`` (high-availability assignor, min_traffic) of one member per rack, each
   a real confluent-kafka consumer following its plans;
5. beside them, groups behind Kafka's own plug-in points (agent/dev/demo/plugged.py), each
   on its own skewed topic: ``demo-payments``, three classic Java consumers with
   ``RackwiseAssignor``, and ``demo-views``, three librdkafka consumers on the KIP-848
   protocol with ``group.remote.assignor=rackwise`` (skipped, with the reason, where the
   brokers do not load rackwise's assignor);
6. plan vs wire (agent/dev/demo/fetchwindow.py): records written to every group's topic, and the
   cross-rack bytes the plan predicts set against those the clients measured themselves;
   then the plug-in groups stop;
7. the Spark metrics job (available-now) over the published plans: the "before" figures;
8. a replica move: one replica of partitions 0 and 1 of demo.orders and demo.clicks goes to
   az3's broker; the agent sees the racks change and re-plans both groups
   (replica-racks-changed); plan vs wire again for them;
9. the metrics job again: the "after" figures, then the HTML report;
10. everything stopped again, on success, error or Ctrl-C alike.

The plan figures printed come from the metrics job's Parquet tables (metrics.report.load),
which the job computed from the plans in the plans topic; the wire figures from the clients'
own statistics. ``summary.json`` next to the report holds both for scripts and tests.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.dev import paths, testbed
from agent.dev.demo import fetchwindow, plugged
from agent.dev.demo.figures import figure_lines, latest_figures, plan_line, write_summary
from agent.dev.demo.layout import PARTITIONS, Layout, Names, agent_settings, settled
from agent.dev.demo.util import output_to, rel, sigterm_as_interrupt, tail
from agent.dev.fetchstats import follows
from protocol.errors import RackwiseError

RECORDS_PER_TOPIC = 600
# What the demo imports beyond the base package: Spark and the report (the spark extra), and
# kafka-python for the replica move; pip install 'rackwise[demo]' brings them all.
NEEDS = ("pyspark", "pyarrow", "matplotlib", "kafka")


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
        self.racks: dict[int, str | None] = {}

    def say(self, msg: str) -> None:
        self._say(f"[{time.monotonic() - self.started:5.0f}s] {msg}")

    # ---- the run -------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self._say("rackwise demo: Kafka in 3 racks, 4 groups of members (Python, Java, KIP-848), "
                  "plan vs wire, one replica move, the Spark metrics job (a few minutes)")
        with contextlib.ExitStack() as stack:
            self._prepare_dirs()
            self._cluster(stack)
            layout = self._layout()
            skip = self._plugged_skip()
            self._create_topics(layout, skip)
            agent = self._start_agent(stack)
            readers = self._readers(stack)
            members = self._start_members(stack, layout)
            groups = self._start_plugged(stack, layout, skip)
            before_plans = self._wait_stable(readers, after=None)
            self._show_plans(before_plans)
            self.say(f"  {layout.racks[2]} holds no replica, so its members must read across "
                     "racks: the plans above are the best possible (cross-rack = lower bound)")
            wire = {"before": self._wire("before the move", self._followers(members, before_plans)
                                         + self._plugged(groups))}
            groups.stop()  # they have shown their plans on the wire
            spark = self._spark(stack)
            before = self._metrics(spark, "before the move")
            self._move(layout)
            after_plans = self._wait_stable(readers, after=before_plans)
            self._show_plans(after_plans)
            wire["after"] = self._wire("after the move", self._followers(members, after_plans))
            after = self._metrics(spark, "after the move")
            report = self._report()
            summary = write_summary(self.names, self.bootstrap, self.out, before, after, report,
                                    agent.pid, members, wire, groups.outcome)
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

        with AdminClient(self._conf()) as admin:  # every client is closed on its own thread
            nodes = admin.describe_cluster(request_timeout=15).result(30).nodes
        by_rack: dict[str, int] = {}
        for node in sorted(nodes, key=lambda n: n.id):
            if node.rack and node.rack not in by_rack:
                by_rack[node.rack] = node.id
        if len(by_rack) < 3:
            raise DemoError(f"the demo needs brokers in 3 racks; {self.bootstrap} has "
                            f"{sorted(by_rack) or 'no racks'}")
        racks = sorted(by_rack)[:3]
        self.racks = {node.id: node.rack for node in nodes}
        return Layout((by_rack[racks[0]], by_rack[racks[1]], by_rack[racks[2]]),
                      (racks[0], racks[1], racks[2]))

    def _plugged_skip(self) -> dict[str, str | None]:
        """Which plug-in group cannot run here, and why (said in one line each)."""
        from confluent_kafka.admin import AdminClient

        with AdminClient(self._conf()) as admin:
            skip = {"java": plugged.java_missing(),
                    "kip848": plugged.kip848_skip_reason(admin, self.names.tag, self.names.plans)}
        for kind, group in (("java", self.names.java_group), ("kip848", self.names.kip848_group)):
            if skip[kind]:
                self.say(f"skipping {group} ({plugged.PluggedGroups.KINDS[kind]}): {skip[kind]}")
        return skip

    def _create_topics(self, layout: Layout, skip: dict[str, str | None]) -> None:
        from confluent_kafka import Producer
        from confluent_kafka.admin import AdminClient, NewTopic

        topics = [self.names.orders, self.names.clicks]
        topics += [t for kind, t in (("java", self.names.payments), ("kip848", self.names.views))
                   if not skip[kind]]
        new = [NewTopic(t, num_partitions=PARTITIONS, replica_assignment=layout.skewed())
               for t in topics]
        with AdminClient(self._conf()) as admin:
            for future in admin.create_topics(new, operation_timeout=30).values():
                future.result(60)
        self.say(f"created topics {', '.join(topics)}: 6 partitions each, replicas only in "
                 f"{layout.racks[0]} and {layout.racks[1]} (none in {layout.racks[2]})")
        producer = Producer(self._conf(**{"linger.ms": 20}))
        for topic in topics[:2]:
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
            # In a checkout it starts from the root, so `-m agent` is this code, not an install.
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=paths.checkout() or self.work,
                                    start_new_session=True,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
        stack.callback(self._stop_agent, proc)
        self.say(f"started `rackwise agent run` (pid {proc.pid}, log {rel(log_path)})")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise DemoError(f"the agent exited with code {proc.returncode}:\n"
                                f"{tail(log_path)}")
            if log_path.read_text(errors="replace").count('"partition ready"') >= 3:
                self.say("agent ready: it owns the subscriptions topic and plans every group")
                return proc
            time.sleep(0.3)
        raise DemoError(f"the agent was not ready within 120 s:\n{tail(log_path)}")

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

    def _start_plugged(self, stack: contextlib.ExitStack, layout: Layout,
                       skip: dict[str, str | None]) -> plugged.PluggedGroups:
        groups = plugged.PluggedGroups(self.bootstrap, self.names, layout.racks, PARTITIONS,
                                       self.work, self.say, skip, self.logger)
        stack.callback(groups.stop)
        groups.start()
        running = [f"{self.names.java_group} (3 Java consumers, RackwiseAssignor)"
                   if not skip["java"] else "",
                   f"{self.names.kip848_group} (3 KIP-848 consumers, "
                   "group.remote.assignor=rackwise)" if not skip["kip848"] else ""]
        if any(running):
            self.say(f"forming {' and '.join(r for r in running if r)} in the background, one "
                     f"member per rack; Java logs in {rel(self.work)}/java-<rack>.log")
        return groups

    def _plugged(self, groups: plugged.PluggedGroups) -> list[fetchwindow.WireGroup]:
        out = []
        for kind, group, topic, clients, plan in groups.wait():
            self.say(f"{group} runs the plan its plug-in computed in-process (published as "
                     f"generation {plan.generation}), {time.monotonic() - groups.began:.0f}s after "
                     f"its first member started: {plan_line(group, plan).split(': ', 1)[1]}")
            out.append(fetchwindow.WireGroup(group, groups.KINDS[kind], topic, clients, plan))
        for group, o in groups.outcome.items():
            if o["status"] == "failed":
                self.say(f"{group} ({o['kind']}) is left out: {o['reason']}")
        return out

    def _followers(self, members: list[Any], plans: dict[str, Any]) -> list[fetchwindow.WireGroup]:
        """The PlanFollower groups with their settled plans, once their members run them."""
        out = []
        for group, plan in plans.items():
            clients = [m for m in members if m.follower.group_id == group]
            deadline = time.monotonic() + 30
            while not follows(plan, clients) and time.monotonic() < deadline:
                time.sleep(0.3)
            kind = ("consumer group, PlanFollower" if group == self.names.consumer_group
                    else "Streams-style, PlanFollower")
            topic = self.names.orders if group == self.names.consumer_group else self.names.clicks
            out.append(fetchwindow.WireGroup(group, kind, topic, clients, plan))
        return out

    def _wire(self, when: str, groups: list[fetchwindow.WireGroup]) -> dict[str, Any]:
        self.say(f"plan vs wire ({when}): writing {fetchwindow.WIRE_RECORDS} records of "
                 f"{fetchwindow.VALUE_BYTES} B to each partition of {len(groups)} groups' topics; "
                 "the clients count what they receive, and from which broker")
        figures = fetchwindow.measure(groups, self._conf(), self.racks, self.say)
        for group, f in figures.items():
            self.say("  " + fetchwindow.wire_line(group, when, f))
            for line in f["partition_lines"]:
                self.logger.info("wire %s %s: %s", when, group, line)
        return figures

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
        deadline = time.monotonic() + 60
        with AdminClient(self._conf()) as admin:
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
        with output_to(self.work / "spark.log"):
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
        with output_to(self.work / "spark.log"):  # librdkafka and Spark chatter
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
        self.say(f"report written: {rel(page)}")
        return page

    # ---- output --------------------------------------------------------------------------
    def _print_figures(self, summary: dict[str, Any]) -> None:
        self.say("cross-rack figures per group, from the metrics job (Parquet under "
                 f"{rel(Path(summary['parquet']))}):")
        for line in figure_lines(summary, RECORDS_PER_TOPIC, self.out / "summary.json"):
            self._say(line)


def run_demo(bootstrap: str | None = None, keep: bool = False, out: str | Path | None = None,
             say: Callable[[str], None] | None = None) -> int:
    """``rackwise demo``: 0 on success, 1 on failure, 2 when an extra is missing (said in one
    line), 130 when interrupted."""
    printer = say or (lambda msg: print(msg, flush=True))
    missing = [m for m in NEEDS if importlib.util.find_spec(m) is None]
    if missing:
        printer(f"demo needs {', '.join(missing)}, which come with the 'demo' extra: "
                "pip install 'rackwise[demo]'")
        return 2
    demo = Demo(bootstrap or os.environ.get("RACKWISE_BOOTSTRAP"), keep,
                Path(out) if out else paths.demo_out_dir(), printer)
    try:
        with sigterm_as_interrupt():
            demo.run()
    except KeyboardInterrupt:
        printer("demo interrupted; everything it started has been stopped")
        return 130
    except Exception as exc:  # noqa: BLE001 - one clear line, logs named in the message
        printer(f"demo failed: {exc}")
        printer(f"logs: {rel(demo.work)}/agent.log, members.log, spark.log")
        return 1
    return 0
