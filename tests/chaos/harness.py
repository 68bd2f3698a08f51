"""What the chaos suite drives: real ``rackwise agent run`` processes, members, and checks.

``AgentProcess`` runs the agent as a child process (so it can be killed with SIGKILL, paused
with SIGSTOP, and its RSS read from /proc) with its JSON log in a file; ``Ownership``
records, from each member's own callbacks, when it held which partition; ``plan_problems``
says what is wrong with a plan against the live members and topic sizes; ``Figures``
collects every measured number of a run into ``$RACKWISE_CHAOS_FIGURES`` (JSON lines) so
RELIABILITY.md can quote them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agent.config.settings import AgentSettings, load_settings
from agent.dev.isolated import isolated_agent_config, merged
from protocol.plan import AssignmentPlan
from tests.support.agent import MemberLoop

ROOT = Path(__file__).resolve().parents[2]
FULL = os.environ.get("RACKWISE_CHAOS_FULL", "") not in ("", "0")


def scale(bounded: int, full: int) -> int:
    """The count for this run: ``full`` under ``make chaos`` (RACKWISE_CHAOS_FULL=1)."""
    return full if FULL else bounded


def agent_config(bootstrap: str, prefix: str, **overrides: Any) -> dict[str, Any]:
    """Settings of an isolated agent (agent.dev.isolated) as plain data."""
    doc = isolated_agent_config(
        bootstrap, prefix,
        # Members are expired after 20 s; the agents' own Kafka consumer session (through
        # the kafka pass-through) must be well below it, or a crashed agent keeps its
        # subscriptions partitions for librdkafka's default 45 s.
        input={"session_timeout_ms": 20_000},
        kafka={"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"},
        metadata={"interval_s": 2.0, "debounce_s": 3.0},
        ops={"port": 0},
        log={"level": "INFO", "format": "json"},
    )
    return merged(doc, overrides)


def settings_of(doc: dict[str, Any]) -> AgentSettings:
    return load_settings(None, **{k: v for k, v in doc.items() if k != "instance_id"})


class AgentProcess:
    """One ``rackwise agent run`` child process; its stderr (JSON log lines) goes to a file."""

    def __init__(self, config: dict[str, Any], workdir: Path, name: str,
                 env: dict[str, str] | None = None) -> None:
        self.config = dict(config)
        self.name = name
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / f"{name}.log"
        self.extra_env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self.instance_ids: list[str] = []
        self._runs = 0

    def start(self) -> AgentProcess:
        self._runs += 1
        instance = f"{self.name}-{self._runs}"
        self.instance_ids.append(instance)
        cfg = self.workdir / f"{self.name}.json"
        cfg.write_text(json.dumps({**self.config, "instance_id": instance}))
        env = {k: v for k, v in os.environ.items() if not k.startswith("RACKWISE_")}
        env.update(self.extra_env)
        env["PYTHONUNBUFFERED"] = "1"
        with open(self.log_path, "ab") as out:
            out.write(f'{{"chaos": "start", "instance": "{instance}", "at": {time.time()}}}\n'
                      .encode())
            out.flush()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "agent", "agent", "run", "--config", str(cfg)],
                stdout=out, stderr=out, stdin=subprocess.DEVNULL, cwd=ROOT, env=env,
            )
        self.started_at = time.monotonic()
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def instance(self) -> str:
        return self.instance_ids[-1]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            os.kill(self.pid, sig)

    def kill9(self) -> None:
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(30)

    def stop(self, timeout: float = 45) -> int | None:
        """SIGTERM (after SIGCONT, in case it is paused), then SIGKILL if it hangs."""
        if self.proc is None:
            return None
        if self.alive():
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill9()
        return self.proc.returncode

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def log_lines(self, all_runs: bool = False) -> list[dict[str, Any]]:
        """The JSON log lines of the current run (``all_runs``: of every run so far)."""
        out: list[dict[str, Any]] = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                doc = json.loads(raw)
                if isinstance(doc, dict):
                    if doc.get("chaos") == "start" and not all_runs:
                        out = []
                    out.append(doc)
        return out

    def events(self, event: str, all_runs: bool = False) -> list[dict[str, Any]]:
        return [d for d in self.log_lines(all_runs) if d.get("event") == event]

    def ops_port(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ports = self.events("ops server listening")
            if ports:
                return int(ports[-1]["port"])
            if not self.alive():
                raise RuntimeError(f"agent {self.name} exited: see {self.log_path}")
            time.sleep(0.2)
        raise TimeoutError(f"agent {self.name} never opened its ops port")

    def scrape(self, path: str = "/metrics") -> str:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.ops_port()}{path}", timeout=10) as r:
            return str(r.read().decode())

    def health(self) -> dict[str, Any]:
        """/healthz as data (also when it answers 503); {} while it cannot be reached."""
        import urllib.error
        import urllib.request

        try:
            url = f"http://127.0.0.1:{self.ops_port(5)}/healthz"
            with urllib.request.urlopen(url, timeout=5) as r:
                return dict(json.loads(r.read()))
        except urllib.error.HTTPError as exc:
            return dict(json.loads(exc.read()))
        except (OSError, TimeoutError, ValueError):
            return {}

    def metric(self, name: str, labels: str = "") -> float:
        """A Prometheus sample summed over its labels (0 if absent); ``labels`` selects one,
        e.g. metric("x_total", 'reason="a"')."""
        total = 0.0
        for line in self.scrape().splitlines():
            sample, _, value = line.rpartition(" ")
            base, _, rest = sample.partition("{")
            if base == name and (not labels or rest.rstrip("}") == labels):
                total += float(value)
        return total


class ChaosMember(MemberLoop):
    """A MemberLoop whose follower reports every hand-over to ``ownership``; ``client`` adds
    Kafka settings (SASL) to its consumer, producer and plans reader alike."""

    def __init__(self, bootstrap: str, settings: AgentSettings, group: str, member: str,
                 rack: str | None, topics: Iterable[str], ownership: Ownership,
                 client: dict[str, Any] | None = None) -> None:
        from confluent_kafka import Consumer

        from agent.member.follower import PlanFollower

        conf = {"bootstrap.servers": bootstrap, **(client or {}),
                **({"client.rack": rack} if rack else {})}
        self.consumer = Consumer({**PlanFollower.consumer_config(conf, group, rack),
                                  "auto.offset.reset": "earliest"})
        key = (group, member)
        self.follower = PlanFollower(
            self.consumer, conf, group_id=group, topics=topics, rack=rack, member_id=member,
            subscriptions_topic=settings.topics.subscriptions, plans_topic=settings.topics.plans,
            heartbeat_s=1.0,
            on_assign=lambda parts: ownership.gained(key, parts),
            on_revoke=lambda parts: ownership.lost(key, parts),
        )
        self.key = key
        self.consumed = []
        self._stop = threading.Event()
        self.leave = True
        self.thread = threading.Thread(target=self._run, name=f"member-{member}", daemon=True)


class Ownership:
    """Partition -> who holds it, from the members' callbacks.

    ``gained`` runs after ``incremental_assign`` and ``lost`` before ``incremental_unassign``,
    so a recorded holding lies inside the real one: two recorded holdings that overlap are a
    real double ownership, never an artefact of the recording.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holder: dict[tuple[str, str, int], tuple[str, str]] = {}
        self.conflicts: list[dict[str, Any]] = []
        self.handovers = 0

    def gained(self, member: tuple[str, str], parts: list[tuple[str, int]]) -> None:
        with self._lock:
            for topic, p in parts:
                key = (member[0], topic, p)
                other = self.holder.get(key)
                if other is not None and other != member:
                    self.conflicts.append({"group": member[0], "partition": f"{topic}-{p}",
                                           "holder": other[1], "taker": member[1],
                                           "at": time.time()})
                self.holder[key] = member
                self.handovers += 1

    def lost(self, member: tuple[str, str], parts: list[tuple[str, int]]) -> None:
        with self._lock:
            for topic, p in parts:
                key = (member[0], topic, p)
                if self.holder.get(key) == member:
                    del self.holder[key]

    def forget(self, member: tuple[str, str]) -> None:
        """A member that crashed (stopped without leaving) holds nothing any more."""
        with self._lock:
            for key in [k for k, v in self.holder.items() if v == member]:
                del self.holder[key]


def plan_problems(plan: AssignmentPlan, live: set[str], may_linger: set[str],
                  partitions: dict[str, int]) -> list[str]:
    """Why ``plan`` is not a valid plan for these live members and topics ([] if it is).

    Valid: every live member is in it, nobody else except members that stopped without
    leaving less than a session timeout ago (``may_linger``), and every partition of the
    subscribed topics is given to exactly one member or withheld for exactly one.
    """
    problems = []
    planned = {m.member_id for m in plan.members}
    if live - planned:
        problems.append(f"live members missing: {sorted(live - planned)}")
    if planned - live - may_linger:
        problems.append(f"departed members planned: {sorted(planned - live - may_linger)}")
    seen: dict[tuple[str, int], int] = {}
    for m in plan.members:
        for p in m.partitions:
            seen[(p.topic, p.partition)] = seen.get((p.topic, p.partition), 0) + 1
    for w in plan.withheld:
        seen[(w.topic, w.partition)] = seen.get((w.topic, w.partition), 0) + 1
    want = {(t, p) for t, n in partitions.items() for p in range(n)}
    if set(seen) != want:
        problems.append(f"partitions covered {sorted(seen)} != {sorted(want)}")
    twice = sorted(k for k, n in seen.items() if n > 1)
    if twice:
        problems.append(f"partitions given twice: {twice}")
    return problems


def generation_problems(plans: list[AssignmentPlan]) -> list[str]:
    """Per group, in topic order, generations must strictly increase."""
    last: dict[str, int] = {}
    problems = []
    for plan in plans:
        prev = last.get(plan.group_id)
        if prev is not None and plan.generation <= prev:
            problems.append(f"{plan.group_id}: generation {plan.generation} after {prev}")
        last[plan.group_id] = plan.generation
    return problems


def wait_until(pred: Callable[[], Any], timeout: float, what: str, step: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what} (after {timeout:.0f}s)")
        time.sleep(step)


class Figures:
    """Measured numbers of one test, appended as one JSON line to $RACKWISE_CHAOS_FIGURES."""

    def __init__(self, test: str, seed: int | None = None) -> None:
        self.doc: dict[str, Any] = {"test": test, "full": FULL, "seed": seed,
                                    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self._began = time.monotonic()

    def __setitem__(self, key: str, value: Any) -> None:
        self.doc[key] = value

    def write(self) -> None:
        self.doc["duration_s"] = round(time.monotonic() - self._began, 1)
        print("FIGURES " + json.dumps(self.doc, sort_keys=True), flush=True)
        path = os.environ.get("RACKWISE_CHAOS_FIGURES")
        if path:
            with open(path, "a") as out:
                out.write(json.dumps(self.doc, sort_keys=True) + "\n")


class Chatter:
    """Members that only heartbeat, from one producer: ``per_second`` records on every
    subscriptions partition, as a busy cluster's members would send. (librdkafka emits no
    PARTITION_EOF while records keep coming, which once kept a loading partition from ever
    becoming ready.)"""

    def __init__(self, bootstrap: str, settings: AgentSettings, topic: str, per_second: float,
                 client: dict[str, Any] | None = None) -> None:
        from confluent_kafka import Producer

        from protocol.consumer import encode_subscription, java_subscription
        from protocol.routing import KIND_HEADER, group_partition, member_key

        parts = settings.topics.partitions
        self.groups: dict[int, str] = {}
        n = 0
        while len(self.groups) < parts:
            name = f"chatter-{n}"
            self.groups.setdefault(group_partition(name, parts), name)
            n += 1
        value = encode_subscription(java_subscription([topic], set(), rack_id="az1"), 3)
        self._records = [(p, member_key(g, "c0"), value) for p, g in sorted(self.groups.items())]
        self._header = [(KIND_HEADER, b"consumer")]
        self._topic = settings.topics.subscriptions
        self._producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **(client or {})})
        self._period = 1.0 / per_second
        self._stop = threading.Event()
        self.sent = 0
        self._thread = threading.Thread(target=self._run, name="chatter", daemon=True)

    def start(self) -> Chatter:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            for p, key, value in self._records:
                self._producer.produce(self._topic, key=key, value=value, partition=p,
                                       headers=self._header)
                self.sent += 1
            self._producer.poll(0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self._producer.flush(10)
