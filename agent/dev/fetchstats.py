"""What a plan promises against what the clients fetched: cross-rack bytes on the wire.

A plan says, per partition, whether its member reads it across racks (``cross_rack``). On the
wire that holds when the member's client fetches each plan-local partition from a broker in
its own rack (KIP-392: ``client.rack`` plus the brokers' ``RackAwareReplicaSelector``). The
clients say themselves which broker each partition is fetched from and how many bytes they
received of it:

* librdkafka's statistics (``statistics.interval.ms``): per partition ``broker`` (the broker
  it is fetched from, the preferred read replica once the leader named one) and ``rxbytes``
  (key + value bytes of the records received); :func:`rdkafka_fetches` reads them;
* a Java client that prints JSON lines (:class:`JsonLineClient`): ``assignment`` events from
  its rebalance listener and ``fetch`` events with, per partition, ``records``, ``bytes`` (key
  + value, serialized) and ``fetched_from`` (the preferred read replica the fetch response
  named, else the leader). tests/java/plugin-clients ``PluginConsumer`` and the demo's
  ``DemoConsumer.java`` print them.

:func:`wire_figures` sets one plan against the clients' figures; :meth:`ClientView.since`
turns two readings into what was received in between (a measuring window).

Developer tooling: the demo (agent/dev/demo) and the plug-in tests use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from confluent_kafka import Consumer

from protocol.plan import AssignmentPlan

TP = tuple[str, int]
GROUP_ASSIGNOR = "dev.rackwise.plugins.RackwiseGroupAssignor"


@dataclass(frozen=True)
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

    def since(self, earlier: ClientView) -> ClientView:
        """What was received between ``earlier`` and this reading; the broker is this one's."""
        fetches = {}
        for tp, now in self.fetches.items():
            was = earlier.fetches.get(tp, PartitionFetch(0, 0, None))
            fetches[tp] = PartitionFetch(now.records - was.records, now.bytes - was.bytes,
                                         now.fetched_from)
        return ClientView(self.member_id, self.rack, self.assignment, fetches)

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.fetches.values())


class Client(Protocol):
    """Anything that reports its member id, assignment and fetch figures."""

    @property
    def member_id(self) -> str | None: ...

    def assignment(self) -> frozenset[TP] | None: ...

    def view(self) -> ClientView: ...


def rdkafka_fetches(raw: str, topic: str) -> dict[TP, PartitionFetch]:
    """One librdkafka statistics document (the ``stats_cb`` argument) as fetch figures for
    ``topic``: per partition ``rxmsgs``, ``rxbytes`` and ``broker`` (-1: none yet)."""
    return rdkafka_stats(raw, topic)[0]


def rdkafka_stats(raw: str, topic: str) -> tuple[dict[TP, PartitionFetch], frozenset[TP]]:
    """:func:`rdkafka_fetches` and :func:`rdkafka_fetching` of one document, parsed once."""
    parts = json.loads(raw).get("topics", {}).get(topic, {}).get("partitions", {})
    fetches = {}
    fetching = []
    for p, s in parts.items():
        if int(p) < 0:  # the internal unassigned partition
            continue
        broker = int(s["broker"])
        fetches[(topic, int(p))] = PartitionFetch(int(s["rxmsgs"]), int(s["rxbytes"]),
                                                  broker if broker >= 0 else None)
        if s.get("fetch_state") == "active":
            fetching.append((topic, int(p)))
    return fetches, frozenset(fetching)


def rdkafka_fetching(raw: str, topic: str) -> frozenset[TP]:
    """The partitions of ``topic`` librdkafka is fetching (``fetch_state`` active), from one
    statistics document: a partition revoked from a KIP-848 member can stay active for a
    moment after the member's assignment no longer lists it, and what it fetches then is read
    twice."""
    return rdkafka_stats(raw, topic)[1]


class JsonLineClient:
    """A client process that prints one JSON event a line (``assignment``, ``fetch``); its
    stderr (Kafka's and the plug-in's log) goes to ``log_path``, removed by :meth:`stop` when
    ``remove_log``. Its stdin is a pipe kept open: a client may exit when it closes, so none
    outlives the process that started it. ``new_session``: Ctrl-C at the terminal does not
    reach it (its starter stops it in order)."""

    def __init__(self, cmd: Sequence[str], name: str, rack: str | None, log_path: str | Path,
                 *, remove_log: bool = False, new_session: bool = True) -> None:
        self.name = name
        self.rack = rack
        self.log_path = str(log_path)
        self._remove_log = remove_log
        # Appended to: a client restarted under the same name keeps its predecessor's log.
        self._log: IO[bytes] = open(self.log_path, "ab")  # noqa: SIM115 - the process's stderr
        self.proc = subprocess.Popen(
            list(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True, bufsize=1, start_new_session=new_session,
        )
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name=f"{name}-out", daemon=True)
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
                    found: dict[str, Any] = event
                    return found
        return None

    @property
    def member_id(self) -> str | None:
        last = self._last("assignment")
        return str(last["member_id"]) if last else None

    def assignment(self) -> frozenset[TP] | None:
        """What it owns after its last rebalance callback (None before the first)."""
        last = self._last("assignment")
        if last is None:
            return None
        gone = {(p[0], p[1]) for p in last["revoked"] + last["lost"]}
        return frozenset(tp for p in last["partitions"] if (tp := (p[0], p[1])) not in gone)

    def assignments(self) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e["event"] == "assignment"]

    def fetches(self) -> dict[TP, PartitionFetch]:
        last = self._last("fetch")
        if last is None:
            return {}
        return {(p["topic"], p["partition"]): PartitionFetch(p["records"], p["bytes"],
                                                             p["fetched_from"])
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
        """SIGTERM: the client wakes up, closes (leaving the group) and exits; killed if not."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self._reader.join(5)
        self._log.close()
        if self._remove_log:
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)


class RdkafkaConsumer:
    """A confluent-kafka consumer on the KIP-848 protocol, with librdkafka's statistics.
    ``assignor``: its ``group.remote.assignor``; None leaves it unset (the brokers' default)."""

    def __init__(self, bootstrap: str, group: str, topic: str, rack: str, *,
                 assignor: str | None = "rackwise", stats_ms: int = 500,
                 extra: Mapping[str, Any] | None = None) -> None:
        self.rack = rack
        self.topic = topic
        self._stats: dict[TP, PartitionFetch] = {}
        self._fetching: frozenset[TP] = frozenset()
        self._raw = ""  # the latest statistics document, parsed when asked
        self._seq = 0  # documents received
        self._parsed_seq = 0  # the document _stats and _fetching come from
        self._lock = threading.Lock()
        config: dict[str, Any] = {
            "bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
            "client.rack": rack, "client.id": f"rdkafka-{rack}",
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "statistics.interval.ms": stats_ms, "stats_cb": self._on_stats,
        }
        if assignor is not None:
            config["group.remote.assignor"] = assignor
        self.consumer = Consumer({**config, **(extra or {})})
        self.consumer.subscribe([topic])
        self.member_id: str | None = None
        self._assignment: frozenset[TP] = frozenset()
        self._stop = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"rdkafka-{rack}", daemon=True)
        self._thread.start()

    def _on_stats(self, raw: str) -> None:
        # Kept, not parsed: the callback runs inside consume(), on the thread that also serves
        # the member's revocations. Parsing every document there (one per member every
        # stats_ms, each listing every partition of the topic) fell behind on a busy 2-core
        # machine, the documents queued up, and members left revocations unacknowledged for
        # minutes: the group never settled, whichever assignor.
        with self._lock:
            self._raw = raw
            self._seq += 1

    def _latest(self) -> tuple[dict[TP, PartitionFetch], frozenset[TP]]:
        """The latest document's figures, parsed once, by the thread that asks."""
        with self._lock:
            raw, seq = self._raw, self._seq
            if seq == self._parsed_seq:
                return self._stats, self._fetching
        stats, fetching = rdkafka_stats(raw, self.topic)
        with self._lock:
            if seq > self._parsed_seq:  # not older than what another reader parsed meanwhile
                self._stats, self._fetching, self._parsed_seq = stats, fetching, seq
            return self._stats, self._fetching

    def fetching(self) -> frozenset[TP]:
        """What librdkafka was fetching at its last statistics (every ``stats_ms``)."""
        return self._latest()[1]

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
        return dict(self._latest()[0])

    def records(self) -> int:
        return sum(f.records for f in self.fetches().values())

    def view(self) -> ClientView:
        return ClientView(self.member_id, self.rack, self.assignment(), self.fetches())

    def halt(self) -> None:
        """Stop consuming: the loop ends after its current call (and with it the statistics
        callbacks, which hold the GIL); the member stays in the group until :meth:`stop`."""
        self._stop.set()

    def stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._thread.join(10)
        self.consumer.close()


def brokers_load_plugin(admin: Any, cls: str = GROUP_ASSIGNOR) -> bool:
    """Whether every broker lists rackwise's KIP-848 assignor in group.consumer.assignors."""
    from confluent_kafka.admin import ConfigResource, ResourceType

    for node in admin.describe_cluster(request_timeout=15).result(20).nodes:
        resource = ConfigResource(ResourceType.BROKER, str(node.id))
        for future in admin.describe_configs([resource], request_timeout=15).values():
            entry = future.result(20).get("group.consumer.assignors")
            if entry is None or cls not in (entry.value or ""):
                return False
    return True


def follows(plan: AssignmentPlan, clients: Iterable[Client]) -> bool:
    """Every client owns exactly what the plan gives its member id, and the plan has no other."""
    by_id = {c.member_id: c.assignment() for c in clients}
    return set(by_id) == {m.member_id for m in plan.members} and all(
        by_id[m.member_id] == frozenset((p.topic, p.partition) for p in m.partitions)
        for m in plan.members
    )


@dataclass(frozen=True)
class WireFigures:
    """One plan against its clients' fetch figures (bytes are key + value bytes).

    ``planned_cross_bytes``: the bytes of the partitions the plan calls cross-rack, as their
    owners received them, or as written when the caller says what it wrote (``written_bytes``
    then holds the total). ``measured_cross_bytes``: every byte a client received from a
    broker outside its own rack (``total_bytes``: every byte received), whichever partition.
    ``local_fetched_elsewhere``: plan-local partitions whose owner fetches them from another
    rack; ``unfetched``: plan partitions of which the owner reports nothing (or no byte of
    what was written); ``stray``: partitions a client received bytes of though the plan does
    not give them to it (read twice, or fetched after it gave them up).
    """

    planned_cross_bytes: int
    measured_cross_bytes: int
    total_bytes: int
    cross_rack_partitions: int
    partitions: int
    local_fetched_elsewhere: tuple[str, ...]
    lines: tuple[str, ...]
    written_bytes: int | None = None
    unfetched: tuple[str, ...] = ()
    stray: tuple[str, ...] = ()  # partitions a client received that the plan gives another


def wire_figures(plan: AssignmentPlan, views: Iterable[ClientView],
                 racks: Mapping[int, str | None],
                 written: Mapping[TP, int] | None = None) -> WireFigures:
    """Each plan partition's bytes as its member's client received them; cross-rack as the plan
    says (planned) and as the broker it was fetched from says (measured)."""
    views = list(views)
    by_id = {v.member_id: v for v in views}
    planned = 0
    wrong: list[str] = []
    missing: list[str] = []
    lines: list[str] = []
    for pm in plan.members:
        view = by_id.get(pm.member_id)
        for pp in pm.partitions:
            tp = (pp.topic, pp.partition)
            f = view.fetches.get(tp) if view is not None else None
            if f is None or (written is not None and written.get(tp, 0) > 0 and not f.bytes):
                missing.append(f"{pp.topic}-{pp.partition}@{pm.rack}")
            f = f or PartitionFetch(0, 0, None)
            fetched_rack = racks.get(f.fetched_from) if f.fetched_from is not None else None
            lines.append(f"{pm.rack} {pp.topic}-{pp.partition}: plan cross={pp.cross_rack} "
                         f"fetched from broker {f.fetched_from} ({fetched_rack}), "
                         f"{f.records} records, {f.bytes} bytes")
            if pp.cross_rack:
                planned += written.get(tp, 0) if written is not None else f.bytes
            elif fetched_rack != pm.rack:
                wrong.append(f"{pp.topic}-{pp.partition}@{pm.rack}")
    measured = total = 0
    stray: list[str] = []
    planned_for: dict[str | None, set[TP]] = {
        pm.member_id: {(pp.topic, pp.partition) for pp in pm.partitions} for pm in plan.members}
    for view in views:
        mine = planned_for.get(view.member_id, set())
        for tp, f in sorted(view.fetches.items()):
            total += f.bytes
            rack = racks.get(f.fetched_from) if f.fetched_from is not None else None
            measured += f.bytes if rack != view.rack else 0
            if f.bytes and tp not in mine:  # received, though the plan gives it to another
                stray.append(f"{tp[0]}-{tp[1]}@{view.rack}")
                lines.append(f"{view.rack} {tp[0]}-{tp[1]}: NOT in this member's plan, "
                             f"fetched from broker {f.fetched_from} ({rack}), {f.records} "
                             f"records, {f.bytes} bytes")
    return WireFigures(planned, measured, total, plan.summary.cross_rack_partitions,
                       plan.summary.partitions, tuple(wrong), tuple(lines),
                       sum(written.values()) if written is not None else None, tuple(missing),
                       tuple(stray))
