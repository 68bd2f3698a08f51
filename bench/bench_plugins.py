"""Kafka's plug-in points live: a KIP-848 group with rackwise, uniform and range side by side.

A live KIP-848 group of confluent-kafka consumers (``group.protocol=consumer``) over a
rack-skewed topic on the testbed (brokers with the plug-in jar: ``rackwise testbed up`` once
``plugins/target/rackwise-plugins.jar`` is built), run once per broker assignor
(``group.remote.assignor`` = ``rackwise``, ``uniform``, ``range``), all in one run, on the same
topic, with the same members spread over az1..az3 (``client.rack``). Each group runs until its
coordinator says it is settled (bench/live_views.py: STABLE, every member's current assignment
equal to its target, every partition owned once and read to the end by the member the
coordinator names), never on a timer. A group in which nothing changes for ``--stall``
seconds with every member present (members holding partitions whose revocation they never
acknowledge) is reported stalled, with those members and partitions, and the bench goes on;
``--timeout`` bounds a group in any case. For each assignor:

- the cross-rack partitions of the coordinator's assignment, and the bytes the members fetched
  (librdkafka statistics: the broker each partition is fetched from, ``rxbytes``), cross-rack
  and in total, with the bytes read by a member the coordinator does not name ("stray");
- the members' own view (librdkafka ``assignment()``) beside the coordinator's: partitions the
  clients list once, twice, or otherwise than the coordinator (not waited on: a KIP-848
  librdkafka member can keep listing partitions it gave up);
- the brokers' CPU seconds (user + system of the testbed's broker JVMs, from /proc) while the
  group formed and consumed, and again including the members' leaving and a settle pause,
  with the load average at the start and end;
- the group coordinator's own "Computed a new target assignment for epoch N with 'X' assignor
  in M ms" lines for that group, from the brokers' server.log (count, median, max);
- the plug-in's fallbacks ("rackwise: group ... falls back"), from the same logs.

``--rounds N`` runs all the groups N times on the same brokers (new groups each round): on a
new testbed the first round is on fresh brokers (``assignments_before`` = 0), the others on
warm ones. Two things keep "warm" honest:

- ``--coordinator N`` names every group so that broker N coordinates it (its
  ``__consumer_offsets`` partition is led by N). Otherwise each new group id lands on any of
  the three brokers, and a "warm" round can be the first the assignor ever runs on its broker.
- ``--alternate`` reverses the assignors' order in every other round. The first group of a
  round pays for JIT-compiling Kafka's own paths that the groups share, whoever it is.

Besides the brokers' CPU in all, each group gives its coordinator's CPU alone
(``coordinator_broker_cpu_s``, the broker whose log computed its target assignments).

``RackwiseGroupAssignor`` decides in-process on the brokers (plugins/README.md §3), so this is a
cold start by default: no agent runs, and the group is rack-optimal from its first target
assignment. ``--agent`` starts ``rackwise agent run`` as its own process (as in production) and
lets it advise (``rackwise.advice``) before the groups form.

The request -> plan latency mode is gone with the consumer request/reply path it
measured (``protocol/request.py``): consumer groups send no requests any more.

Usage (a testbed of one's own: the CPU figures read its broker pids and logs)::

    export RACKWISE_TESTBED_PORT_BASE=25092 RACKWISE_TESTBED_DIR=/tmp/tb-livebench
    mvn -B -q -f plugins/pom.xml package && .venv/bin/rackwise testbed up
    .venv/bin/python bench/bench_plugins.py live --members 30 --partitions 600 --seed 11 \
        --assignors uniform,rackwise --rounds 2 --out bench/results/live-30x600-seed11.json
    .venv/bin/rackwise testbed down
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from confluent_kafka import Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec  # noqa: E402

from agent.dev.fetchstats import RdkafkaConsumer  # noqa: E402
from agent.dev.testbed import Testbed  # noqa: E402
from bench.live_views import ClientsView, CoordinatorView, read_to_end, wire  # noqa: E402

RACKS = ("az1", "az2", "az3")
ASSIGNORS = ("rackwise", "uniform", "range")
# GroupMetadataManager (Kafka 4.3.1), INFO:
# "[GroupId g] Computed a new target assignment for epoch 5 with 'uniform' assignor in 3ms."
TARGET_LINE = re.compile(
    r"\[GroupId (?P<group>\S+)\] Computed a new target assignment for epoch (?P<epoch>\d+) "
    r"with '(?P<assignor>[^']+)' assignor in (?P<ms>\d+)ms"
)


@dataclass(frozen=True)
class BrokerFiles:
    """The testbed's broker pids (for CPU) and server logs (for the coordinator's lines)."""

    pids: tuple[int, ...]
    logs: tuple[Path, ...]

    @classmethod
    def of(cls, testbed_dir: Path) -> BrokerFiles:
        pids = []
        for f in sorted((testbed_dir / "pids").glob("n*")):
            try:
                pids.append(int(f.read_text().strip()))
            except (OSError, ValueError):
                continue
        logs = tuple(sorted((testbed_dir / "logs").glob("n*")))
        if len(pids) != 3 or len(logs) != 3:
            raise SystemExit(f"no running testbed in {testbed_dir} (pids {pids}): "
                             "rackwise testbed up, with the same RACKWISE_TESTBED_DIR")
        return cls(tuple(pids), logs)

    def cpu(self) -> float:
        """CPU seconds (utime + stime) of the testbed's broker JVMs."""
        return sum(self.cpu_by_node().values())

    def cpu_by_node(self) -> dict[int, float]:
        """CPU seconds of each broker JVM, by node id (n1, n2, n3 in the testbed's layout)."""
        tick = os.sysconf("SC_CLK_TCK")
        out: dict[int, float] = {}
        for node, pid in enumerate(self.pids, start=1):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out[node] = (int(fields[11]) + int(fields[12])) / tick
        return out

    def threads(self) -> dict[str, float]:
        """CPU seconds of the brokers' threads by name, digits dropped (``C2 CompilerThre``,
        ``group-coordinat``, ``data-plane-kafk``...: Linux keeps 15 characters)."""
        tick = os.sysconf("SC_CLK_TCK")
        out: dict[str, float] = {}
        for pid in self.pids:
            for task in Path(f"/proc/{pid}/task").iterdir():
                try:
                    name = re.sub(r"[-#]?\d+", "", (task / "comm").read_text().strip())
                    fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:  # the thread ended
                    continue
                out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
        return out

    def lines(self, needle: str) -> list[str]:
        """Every server.log line (rolled files too) holding ``needle``."""
        return [line for _node, line in self.node_lines(needle)]

    def node_lines(self, needle: str) -> list[tuple[int, str]]:
        """(node id, line) for every server.log line holding ``needle``."""
        out: list[tuple[int, str]] = []
        for node, d in enumerate(self.logs, start=1):
            for log in sorted(d.glob("server.log*")):
                with open(log, encoding="utf-8", errors="replace") as fh:
                    out.extend((node, line) for line in fh if needle in line)
        return out


def _placement(partitions: int) -> list[list[int]]:
    """Rack-skewed RF 2: two thirds of the partitions live in az1+az2 only (az3's members
    read them remotely whoever owns them), the rest in az2+az3 or az3+az2."""
    return [[1, 2] if p % 3 else [2 + (p % 2), 3 - (p % 2)] for p in range(partitions)]


def _create(admin: AdminClient, topic: str, placement: list[list[int]]) -> None:
    new = NewTopic(topic, num_partitions=len(placement), replica_assignment=placement)
    admin.create_topics([new], operation_timeout=60)[topic].result(90)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        md = admin.list_topics(topic, timeout=10).topics.get(topic)
        if md and md.error is None and len(md.partitions) == len(placement) and all(
            p.leader >= 0 for p in md.partitions.values()
        ):
            return
        time.sleep(0.2)
    raise SystemExit(f"topic {topic} did not get leaders")


def _write(args: argparse.Namespace, admin: AdminClient, topic: str) -> None:
    """Exactly ``--records-per-partition`` records in every partition, all acknowledged, before
    any group starts: on a loaded machine one flush() can return with records still in flight,
    and the first group would then wait for them (and its window pay for writing them)."""
    rng = random.Random(args.seed)
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 20,
                         "enable.idempotence": True})
    failed: list[str] = []

    def delivered(err: Any, _msg: Any) -> None:
        if err is not None:
            failed.append(str(err))

    for i in range(args.partitions * args.records_per_partition):
        producer.produce(topic, value=rng.randbytes(100), partition=i % args.partitions,
                         on_delivery=delivered)
        if i % 10000 == 0:
            producer.poll(0)
    deadline = time.monotonic() + 600
    while producer.flush(10) > 0:
        if time.monotonic() > deadline:
            raise SystemExit("records still unacknowledged after 600 s")
    if failed:
        raise SystemExit(f"{len(failed)} records failed: {failed[0]}")
    tps = [TopicPartition(topic, p) for p in range(args.partitions)]
    latest = OffsetSpec.latest()  # type: ignore[no-untyped-call]
    ends = admin.list_offsets({tp: latest for tp in tps}, request_timeout=60)
    short = [tp.partition for tp, f in ends.items()
             if f.result(90).offset != args.records_per_partition]
    if short:
        raise SystemExit(f"partitions {short[:10]} do not hold {args.records_per_partition} records")


def _coordinator(files: BrokerFiles, group: str) -> dict[str, Any]:
    """The coordinator's target-assignment computations for ``group``: count, ms median/max,
    and the node(s) whose log holds them."""
    ms = []
    names = set()
    nodes = set()
    for node, line in files.node_lines(f"[GroupId {group}] Computed a new target assignment"):
        m = TARGET_LINE.search(line)
        if m and m["group"] == group:
            ms.append(int(m["ms"]))
            names.add(m["assignor"])
            nodes.add(node)
    return {"computed": len(ms), "assign_ms_median": statistics.median(ms) if ms else None,
            "assign_ms_max": max(ms) if ms else None, "assignor_names": sorted(names),
            "nodes": sorted(nodes)}


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (UTF-16 code units, 32-bit wrap-around), signed."""
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def offsets_partition(group: str, partitions: int) -> int:
    """The ``__consumer_offsets`` partition of ``group``, as Kafka's group coordinator picks
    it: ``Utils.abs(groupId.hashCode()) % partitions`` (``Utils.abs(MIN_VALUE)`` is 0)."""
    h = java_string_hash(group)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def _offsets_leaders(admin: AdminClient) -> dict[int, int]:
    """``__consumer_offsets`` partition -> leader. The topic is created on the first
    FindCoordinator: a describe of a group nobody uses makes one, then its leaders are awaited."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        md = admin.list_topics("__consumer_offsets", timeout=10).topics.get("__consumer_offsets")
        if md is not None and md.error is None and md.partitions and all(
                p.leader >= 0 for p in md.partitions.values()):
            return {p: m.leader for p, m in md.partitions.items()}
        with contextlib.suppress(Exception):  # KafkaException while the topic is created
            admin.describe_consumer_groups(["bench-live-find-coordinator"])[
                "bench-live-find-coordinator"].result(10)
        time.sleep(0.5)
    raise SystemExit("__consumer_offsets has no leaders after 120 s")


def _group_on(name: str, broker: int | None, leaders: dict[int, int]) -> str:
    """``name``, or the first ``name-cK`` that broker ``broker`` coordinates."""
    if broker is None:
        return name
    if broker not in leaders.values():
        raise SystemExit(f"broker {broker} leads no __consumer_offsets partition: {leaders}")
    for k in itertools.count():
        group = name if k == 0 else f"{name}-c{k}"
        if leaders[offsets_partition(group, len(leaders))] == broker:
            return group
    raise AssertionError("unreachable")


def _fallbacks(files: BrokerFiles, group: str) -> int:
    return len(files.lines(f"rackwise: group {group} falls back"))


def _loadavg() -> str:
    """The 1-, 5- and 15-minute load averages (the machine is shared)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _live_group(args: argparse.Namespace, admin: AdminClient, files: BrokerFiles, topic: str,
                group: str, assignor: str, racks: dict[int, str | None]) -> dict[str, Any]:
    """One group until it is settled by its coordinator (bench/live_views.py: STABLE, every
    member at its target, every partition owned once and read to the end by that owner), then
    its members leave."""
    placement = _placement(args.partitions)
    members: list[RdkafkaConsumer] = []
    load_start = _loadavg()
    cpu0, threads0 = files.cpu_by_node(), files.threads()
    own0 = time.process_time()  # the bench's own CPU: librdkafka and its statistics' JSON
    began = time.monotonic()
    try:
        for i in range(args.members):
            members.append(RdkafkaConsumer(args.bootstrap, group, topic, RACKS[i % 3],
                                           assignor=assignor, stats_ms=args.stats_ms))
            time.sleep(args.join_gap)  # members join a little apart, as a deployment rolls out
        joined = time.monotonic() - began
        deadline = time.monotonic() + args.timeout
        settled = False
        # Seconds from the first member's start to the last time each state was reached.
        marks: dict[str, float] = {}
        was: dict[str, bool] = {}
        done_at: dict[int, tuple[str, float]] = {}  # partition -> (owner, when it read it all)
        view: CoordinatorView | None = None
        read: dict[int, str] = {}
        undescribed = 0  # polls at which describe_consumer_groups failed (the last view kept)
        last_print = 0.0
        stalled = False
        progress: tuple[Any, ...] = ()
        moved_at = 0.0  # when the views last changed
        while not settled and not stalled and time.monotonic() < deadline:
            time.sleep(0.5)  # the poll interval; the statistics come every 500 ms
            now = time.monotonic() - began
            described = CoordinatorView.of(admin, group, topic)
            undescribed += described is None
            view = described or view
            if view is None:
                continue
            by_id = {m.member_id: m for m in members if m.member_id}
            read = read_to_end(view, by_id, topic, args.records_per_partition)
            for p, owner in read.items():
                if done_at.get(p, ("", 0.0))[0] != owner:
                    done_at[p] = (owner, now)
            clients = ClientsView.of(members, view)
            complete = view.complete(args.members, args.partitions)
            settled = complete and len(read) == args.partitions
            now_progress = (view.progress(), len(read), clients)
            if now_progress != progress:
                progress, moved_at = now_progress, now
            # Nothing moves (members holding revoked partitions they never give back): report
            # it instead of waiting out the timeout.
            stalled = not settled and len(view.member_ids) == args.members and now - moved_at >= args.stall
            for name, reached in (("coordinator_owned_s", len(view.owner()) == args.partitions),
                                  ("reconciled_s", complete),
                                  ("all_read_s", len(read) == args.partitions),
                                  ("clients_owned_once_s", clients.owned_once == args.partitions)):
                if reached and not was.get(name):
                    marks[name] = round(now, 1)
                was[name] = reached
            if now - last_print >= 10 or settled:
                last_print = now
                print(f"  {assignor} {now:.0f}s: coordinator {view.state}, "
                      f"{len(view.owner())} owned once, reconciled={view.reconciled}, "
                      f"{len(read)} read to the end by their owner; clients: "
                      f"{clients.owned_once} owned once, {clients.owned_twice} owned twice; "
                      f"{undescribed} failed describes",
                      file=sys.stderr, flush=True)
        cpu_nodes = files.cpu_by_node()
        cpu = sum(cpu_nodes.values()) - sum(cpu0.values())
        own_cpu = time.process_time() - own0
        marks["settled_s" if settled else "stalled_s" if stalled else "gave_up_s"] = round(
            time.monotonic() - began, 1)
        if stalled and view is not None:
            print(f"  {assignor}: stalled for {args.stall:.0f}s; members holding revoked partitions: "
                  f"{dict(sorted(view.pending.items()))}", file=sys.stderr, flush=True)
        views = [m.view() for m in members]  # the owners' statistics hold every record already
        clients = ClientsView.of(members, view)
        # The members stop consuming (still in the group): with 60 members their statistics
        # callbacks keep the GIL so busy that reading /proc below took minutes.
        for m in members:
            m.halt()
        spent = {k: v - threads0.get(k, 0.0) for k, v in files.threads().items()}
        threads = {k: round(v, 1) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])[:8]}
        elapsed = time.monotonic() - began
        load_end = _loadavg()
        coordinator = _coordinator(files, group)  # the computations while it formed and consumed
    finally:
        # All at once, as a deployment stops: one by one, each close waits for its leave
        # heartbeat while the others are reassigned its partitions (minutes for 30 members).
        leaving = time.monotonic()
        unclosed = _close_all(members, args.close_timeout)
        left = time.monotonic() - leaving
    time.sleep(args.pause)  # the leaving members' epochs, the plug-in's background reports
    cpu_total = files.cpu() - sum(cpu0.values())
    final = view or CoordinatorView("UNDESCRIBED", (), False, {})
    # When partitions were read to the end by their owner, by where it fetched them from.
    by_source: dict[str, list[float]] = {"leader": [], "follower": []}
    fetches = {v.member_id: v.fetches for v in views}
    for p, (owner, at) in done_at.items():
        f = fetches.get(owner, {}).get((topic, p))
        if f is not None and f.fetched_from is not None and read.get(p) == owner:
            by_source["leader" if f.fetched_from == placement[p][0] else "follower"].append(at)
    read_at = {k: {"partitions": len(ts), "median_s": round(statistics.median(ts), 1),
                   "max_s": round(max(ts), 1)} for k, ts in by_source.items() if ts}
    return {
        "assignor": assignor, "group": group, "settled": settled,
        **wire(final, views, racks, placement),
        "broker_cpu_s": round(cpu, 1), "elapsed_s": round(elapsed, 1),
        # the coordinator's JVM alone: the assignor runs there and nowhere else
        "coordinator_broker_cpu_s": (round(cpu_nodes[coordinator["nodes"][0]]
                                           - cpu0[coordinator["nodes"][0]], 1)
                                     if len(coordinator["nodes"]) == 1 else None),
        "load_avg_start": load_start, "load_avg_end": load_end,
        "bench_cpu_s": round(own_cpu, 1), "failed_describes": undescribed,
        "joined_s": round(joined, 1), **marks, "read_to_end_at": read_at,
        "coordinator_view": {**final.summary(), "read_to_end": len(read)},
        # The members' own view (librdkafka assignment()) at the end: not waited on.
        "clients_view": {"owned_once": clients.owned_once, "owned_twice": clients.owned_twice,
                         "disagree_with_coordinator": clients.disagree},
        "broker_threads": threads,
        "broker_cpu_with_leave_s": round(cpu_total, 1), "leave_s": round(left, 1),
        "unclosed_members": unclosed,
        "coordinator": coordinator,
        "coordinator_with_leave": _coordinator(files, group),
        "fallbacks": _fallbacks(files, group),
    }


def _close_all(members: list[RdkafkaConsumer], timeout: float) -> int:
    """Closes every member at once, as a deployment stops; returns how many had not closed
    within ``timeout`` seconds (a member stuck in a revocation can block its close: it is left
    to a daemon thread, so the bench goes on and can exit)."""
    threads = [threading.Thread(target=m.stop, name=f"close-{i}", daemon=True)
               for i, m in enumerate(members)]
    for t in threads:
        t.start()
    end = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    return sum(t.is_alive() for t in threads)


def _start_agent(bootstrap: str, prefix: str) -> tuple[subprocess.Popen[bytes], Path]:
    """``rackwise agent run`` as its own process; it advises every topic (advice.topics)."""
    cfg = {
        "bootstrap": bootstrap, "instance_id": prefix, "transactional_id_prefix": prefix,
        "input": {"group_id": f"{prefix}-agents"}, "topics": {"partitions": 3},
        "ops": {"port": 0}, "log": {"level": "INFO", "format": "json"},
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench-plugins-"))
    (tmp / "agent.json").write_text(json.dumps(cfg))
    log = open(tmp / "agent.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent", "agent", "run", "--config", str(tmp / "agent.json")],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )
    return proc, tmp


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _idle_cpu(files: BrokerFiles, seconds: float) -> float:
    """The brokers' CPU seconds per second with no group of ours running (the floor)."""
    cpu0, t0 = files.cpu(), time.monotonic()
    time.sleep(seconds)
    return (files.cpu() - cpu0) / (time.monotonic() - t0)


def live(args: argparse.Namespace) -> dict[str, Any]:
    files = BrokerFiles.of(args.testbed_dir)
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    racks = {int(b.id): b.rack for b in admin.describe_cluster().result(30).nodes}
    prefix = f"bench-live-{uuid.uuid4().hex[:6]}"
    topic = f"{prefix}-data"
    _create(admin, topic, _placement(args.partitions))
    _write(args, admin, topic)
    agent = None
    out: dict[str, Any] = {"topic": topic}
    try:
        if args.agent:
            agent, tmp = _start_agent(args.bootstrap, prefix)
            out["agent_log"] = str(tmp / "agent.log")
            time.sleep(args.agent_wait)  # two traffic samples, then advice on rackwise.advice
        time.sleep(args.settle)  # the brokers start the new topic's leaders and fetchers
        out["idle_cpu_per_s"] = round(_idle_cpu(files, args.idle), 2)
        print(json.dumps({"idle_cpu_per_s": out["idle_cpu_per_s"]}), flush=True)
        leaders = _offsets_leaders(admin) if args.coordinator is not None else {}
        out["coordinator_broker"] = args.coordinator
        out["alternate"] = args.alternate
        out["rounds"] = []
        for r in range(args.rounds):
            # Fresh brokers: no target assignment computed in their logs before this round.
            done_before = len(files.lines("Computed a new target assignment"))
            order = list(reversed(args.assignors)) if args.alternate and r % 2 else args.assignors
            groups: dict[str, Any] = {"round": r + 1, "assignments_before": done_before,
                                      "order": order}
            for assignor in order:
                group = _group_on(f"{topic}-{assignor}-r{r + 1}", args.coordinator, leaders)
                row = _live_group(args, admin, files, topic, group, assignor, racks)
                groups[assignor] = row
                print(json.dumps(row), flush=True)
            out["rounds"].append(groups)
    finally:
        if agent is not None:
            _stop(agent)
    return out


def main() -> int:
    bed = Testbed()  # RACKWISE_TESTBED_PORT_BASE / RACKWISE_TESTBED_DIR, as `rackwise testbed`
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("mode", choices=["live"])
    ap.add_argument("--bootstrap", default=os.environ.get("RACKWISE_BOOTSTRAP", bed.bootstrap))
    ap.add_argument("--testbed-dir", type=Path, default=bed.dir,
                    help="the testbed's directory: broker pids (CPU) and server logs")
    ap.add_argument("--assignors", default=",".join(ASSIGNORS))
    ap.add_argument("--members", type=int, default=30)
    ap.add_argument("--partitions", type=int, default=600)
    ap.add_argument("--records-per-partition", type=int, default=50)
    ap.add_argument("--join-gap", type=float, default=0.3)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--stall", type=float, default=120,
                    help="seconds with every member present and nothing changing (the "
                         "coordinator's view, the reads, the clients' view) before a group is "
                         "reported stalled and the bench goes on")
    ap.add_argument("--close-timeout", type=float, default=60,
                    help="seconds to wait for the members' close(); the rest are left behind")
    ap.add_argument("--stats-ms", type=int, default=500,
                    help="librdkafka statistics.interval.ms: every member's document lists "
                         "every partition of the topic, parsed in this process (at 60 members "
                         "x 1,200 partitions, 500 ms is more JSON than one core parses)")
    ap.add_argument("--settle", type=float, default=10,
                    help="seconds between creating the topic and the first group")
    ap.add_argument("--idle", type=float, default=10,
                    help="seconds of measuring the brokers' idle CPU before the groups")
    ap.add_argument("--pause", type=float, default=5,
                    help="seconds after a group's members left, before the next group")
    ap.add_argument("--agent", action="store_true",
                    help="run `rackwise agent run` advising (not needed: cold start without)")
    ap.add_argument("--agent-wait", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of all the groups on the same brokers: the first round on a "
                         "new testbed is on fresh brokers, the later ones on warm brokers")
    ap.add_argument("--coordinator", type=int, choices=(1, 2, 3), default=None,
                    help="name every group so that this broker coordinates it (so a warm round "
                         "is warm for the assignor too)")
    ap.add_argument("--alternate", action="store_true",
                    help="reverse the assignors' order in every other round")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON result here too")
    args = ap.parse_args()
    args.assignors = [a for a in str(args.assignors).split(",") if a]
    args.seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"seed={args.seed}", flush=True)
    began = datetime.now(UTC).isoformat(timespec="seconds")
    load_start = _loadavg()
    result = live(args)
    doc = {"mode": args.mode, "seed": args.seed, "command": " ".join(sys.argv),
           "started": began, "load_avg_start": load_start, "load_avg_end": _loadavg(),
           "members": args.members, "partitions": args.partitions,
           "records_per_partition": args.records_per_partition, **result}
    text = json.dumps(doc, indent=2)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
