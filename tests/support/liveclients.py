"""Real clients whose assignment observe mode audits: librdkafka consumers and the Streams app.

Shared by tests/integration/test_audit.py and bench/audit_layouts.py. Each runner reports
the clients' *own* view of what they own (``Consumer.assignment()``; the Streams app's printed
active tasks), and :func:`own_cross_rack` counts cross-rack partitions from that view and the
replica racks read straight from ``describe_topics`` -- nothing of rackwise is involved, so
the count is an independent check of ``rackwise audit``.
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, TopicCollection

from tests.support import javaharness
from tests.support.kafkautil import create_topic

STREAMS_APP = "tests/java/streams-app"
STREAMS_MAIN = "dev.rackwise.testapp.CountApp"


def skewed_placement(rng: random.Random, partitions: int, rf: int,
                     brokers_by_rack: dict[str, int], heavy: str, skew: float) -> list[list[int]]:
    """Replica brokers per partition: the leader is in rack ``heavy`` with probability
    ``skew``, elsewhere uniformly; followers in other racks."""
    racks = sorted(brokers_by_rack)
    out = []
    for _ in range(partitions):
        first = heavy if rng.random() < skew else rng.choice(racks)
        others = [r for r in racks if r != first]
        rng.shuffle(others)
        out.append([brokers_by_rack[r] for r in [first, *others][:rf]])
    return out


def replica_racks(admin: Any, topic: str) -> dict[int, set[str]]:
    """Partition -> racks of its replicas, from describe_cluster + describe_topics."""
    nodes = admin.describe_cluster(request_timeout=15).result(20).nodes
    rack = {n.id: n.rack for n in nodes}
    desc = admin.describe_topics(TopicCollection([topic]), request_timeout=15)[topic].result(20)
    return {p.id: {rack[r.id] for r in p.replicas if rack.get(r.id)} for p in desc.partitions}


def own_cross_rack(owned: dict[str, tuple[str, list[int]]], racks: dict[int, set[str]]) -> int:
    """Cross-rack partitions of a group as its clients see it: {client: (rack, partitions)}."""
    return sum(1 for rack, parts in owned.values() for p in parts if rack not in racks[p])


def make_topic(admin: Any, name: str, placement: Sequence[Sequence[int]]) -> None:
    create_topic(admin, name, placement)


@dataclass
class Settled:
    owned: dict[str, tuple[str, list[int]]]
    audit: Any
    seconds: float


def _matches(audit: Any, owned: dict[str, tuple[str, list[int]]], by: str) -> bool:
    if audit is None or audit.status != "ok" or audit.actual is None:
        return False
    seen = {}
    for m in audit.actual.members:
        key = m.member_id if by == "member" else (m.rack or "")
        seen[key] = sorted(p.partition for p in m.partitions)
    if by == "member":
        return seen == {k: sorted(v[1]) for k, v in owned.items()}
    return seen == {v[0]: sorted(v[1]) for v in owned.values()}


class ConsumerGroup:
    """librdkafka consumers (cooperative-sticky, client.rack) in one classic group.

    ``client_ids``: one per rack; the coordinator names a member ``<client.id>-<uuid>``, so
    they order the members as the assignors see them."""

    def __init__(self, bootstrap: str, group: str, topic: str, racks: Sequence[str],
                 strategy: str = "cooperative-sticky",
                 client_ids: Sequence[str] | None = None) -> None:
        self.group, self.topic = group, topic
        self.consumers = []
        for i, rack in enumerate(racks):
            c = Consumer({
                **({"client.id": client_ids[i]} if client_ids else {}),
                "bootstrap.servers": bootstrap, "group.id": group, "client.rack": rack,
                "partition.assignment.strategy": strategy, "enable.auto.commit": False,
                "session.timeout.ms": 15000, "heartbeat.interval.ms": 1000,
            })
            c.subscribe([topic])
            self.consumers.append((rack, c))

    def owned(self) -> dict[str, tuple[str, list[int]]]:
        return {c.memberid() or f"?{i}": (rack, sorted(tp.partition for tp in c.assignment()))
                for i, (rack, c) in enumerate(self.consumers)}

    def settle(self, partitions: int, audit: Callable[[], Any], timeout: float = 180) -> Settled:
        """Poll until every partition is owned once and the audit sees exactly that."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            for _, c in self.consumers:
                c.poll(0.1)
            owned = self.owned()
            parts = [p for _, ps in owned.values() for p in ps]
            if sorted(parts) != list(range(partitions)):
                continue
            result = audit()
            if _matches(result, owned, "member"):
                return Settled(owned, result, time.monotonic() - start)
            time.sleep(0.5)
        raise TimeoutError(f"group {self.group} did not settle in {timeout}s: {self.owned()}")

    def close(self) -> None:
        for _, c in self.consumers:
            c.close()


class StreamsApps:
    """One CountApp process per rack (1 thread, 1 standby, min_traffic), same application id.

    ``group_protocol="streams"`` joins a KIP-1071 streams group instead (the broker's
    assignor and standby setting then apply)."""

    def __init__(self, bootstrap: str, app_id: str, racks: Sequence[str], topic: str,
                 output: str, group_protocol: str = "classic") -> None:
        java = javaharness._require("java")
        cp = javaharness.classpath(STREAMS_APP)
        self.app_id = app_id
        self.procs: list[tuple[str, subprocess.Popen[str]]] = []
        self.latest: dict[str, dict[str, Any]] = {}
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stderr: list[Any] = []
        for rack in racks:
            err = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - open while the app runs
            self._stderr.append(err)
            proc = subprocess.Popen(
                [java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", cp, STREAMS_MAIN,
                 bootstrap, app_id, rack, topic, output, group_protocol],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
            )
            self.procs.append((rack, proc))
            threading.Thread(target=self._read, args=(rack, proc), daemon=True).start()

    def _read(self, rack: str, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                self.errors.append(line)
                continue
            with self._lock:
                self.latest[rack] = doc

    def ask(self) -> None:
        for _, proc in self.procs:
            if proc.poll() is None and proc.stdin is not None:
                with contextlib.suppress(OSError):  # the app exited; settle() reports it
                    proc.stdin.write("\n")
                    proc.stdin.flush()

    def owned(self) -> dict[str, tuple[str, list[int]]]:
        """rack -> (rack, partitions of the input topic its active tasks read)."""
        with self._lock:
            reports = dict(self.latest)
        out = {}
        for rack, doc in reports.items():
            parts = sorted(int(tp.rsplit("-", 1)[1]) for tps in doc["active"].values() for tp in tps)
            out[rack] = (rack, parts)
        return out

    def running(self) -> bool:
        with self._lock:
            return len(self.latest) == len(self.procs) and all(
                d.get("state") == "RUNNING" for d in self.latest.values())

    def settle(self, partitions: int, audit: Callable[[], Any], timeout: float = 300) -> Settled:
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            dead = [(r, p.returncode) for r, p in self.procs if p.poll() is not None]
            if dead:
                raise RuntimeError(f"streams app exited: {dead}: {self.stderr()[-2000:]}")
            self.ask()
            time.sleep(1.0)
            owned = self.owned()
            parts = [p for _, ps in owned.values() for p in ps]
            if not self.running() or sorted(parts) != list(range(partitions)):
                continue
            result = audit()
            if _matches(result, self.owned(), "rack") and self.owned() == owned:
                return Settled(owned, result, time.monotonic() - start)
        raise TimeoutError(f"streams app {self.app_id} did not settle in {timeout}s: "
                           f"{self.owned()} running={self.running()}")

    def stderr(self) -> str:
        out = []
        for err in self._stderr:
            err.seek(0)
            out.append(err.read())
        return "\n".join(out)

    def close(self) -> None:
        for _, proc in self.procs:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
        for _, proc in self.procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        for err in self._stderr:
            err.close()
