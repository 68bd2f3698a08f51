"""Helpers shared by the agent's integration and chaos tests (real Kafka, no fakes).

``isolated_settings`` gives an agent its own topics and group so tests never see each
other's plans; ``AgentThread`` runs an Agent in a thread and stops it cleanly; ``PlanReader``
tails a plans topic; ``MemberLoop`` drives a real consumer + PlanFollower and records every
record it consumed.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterable
from typing import Any

from confluent_kafka import Consumer, KafkaError

from agent.daemon.loop import Agent
from agent.member import PlanFollower
from agent.settings import AgentSettings, load_settings


def isolated_settings(bootstrap: str, prefix: str, **overrides: Any) -> AgentSettings:
    base = {
        "bootstrap": bootstrap,
        "instance_id": f"{prefix}-{uuid.uuid4().hex[:6]}",
        "transactional_id_prefix": f"{prefix}-agent",
        "topics": {
            "subscriptions": f"{prefix}.subscriptions",
            "plans": f"{prefix}.plans",
            "control": f"{prefix}.control",
            "deadletter": f"{prefix}.deadletter",
            "advice": f"{prefix}.advice",
            "partitions": 3,
        },
        # advise only the topics the agent plans: measuring every topic of the shared testbed
        # every 2 s would load it for nothing (tests/integration/test_agent_advice.py opts in)
        "advice": {"topics": []},
        "input": {"group_id": f"{prefix}-agents", "session_timeout_ms": 10_000},
        "metadata": {"interval_s": 2.0, "debounce_s": 3.0},
        "ops": {"port": 0},
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value
    return load_settings(None, **base)


class AgentThread:
    """An Agent running in a background thread."""

    def __init__(self, settings: AgentSettings) -> None:
        self.agent = Agent(settings)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="agent-under-test", daemon=True)

    def _run(self) -> None:
        try:
            self.agent.run()
        except BaseException as exc:  # surfaced by stop()
            self.error = exc

    def __enter__(self) -> AgentThread:
        self.thread.start()
        if not self.agent.started.wait(60):
            raise RuntimeError(f"agent did not start: {self.error!r}")
        return self

    def wait_ready(self, timeout: float = 60) -> None:
        """Until the agent owns and has loaded at least one subscriptions partition."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ok, detail = self.agent.health()
            if detail["ready_partitions"] and not detail["loading_partitions"]:
                return
            time.sleep(0.2)
        raise TimeoutError("agent never became ready")

    def stop(self, timeout: float = 60) -> None:
        self.agent.stop()
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise RuntimeError("agent did not stop in time")
        if self.error:
            raise self.error

    def __exit__(self, *exc: object) -> None:
        self.stop()


class MemberLoop:
    """A real consumer following plans in a thread, recording (topic, partition, offset)."""

    def __init__(
        self,
        bootstrap: str,
        settings: AgentSettings,
        group_id: str,
        member_id: str,
        rack: str | None,
        topics: Iterable[str],
        heartbeat_s: float = 1.0,
    ) -> None:
        conf = PlanFollower.consumer_config({"bootstrap.servers": bootstrap}, group_id, rack)
        self.consumer = Consumer({**conf, "auto.offset.reset": "earliest"})
        self.follower = PlanFollower(
            self.consumer,
            {"bootstrap.servers": bootstrap, **({"client.rack": rack} if rack else {})},
            group_id=group_id,
            topics=topics,
            rack=rack,
            member_id=member_id,
            subscriptions_topic=settings.topics.subscriptions,
            plans_topic=settings.topics.plans,
            heartbeat_s=heartbeat_s,
        )
        self.consumed: list[tuple[str, int, int, float]] = []
        self._stop = threading.Event()
        self.leave = True
        self.thread = threading.Thread(target=self._run, name=f"member-{member_id}", daemon=True)

    def start(self) -> MemberLoop:
        self.follower.start()
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            for msg in self.consumer.consume(100, 0.1):
                if msg.error() is None:
                    self.consumed.append(
                        (msg.topic(), msg.partition(), msg.offset(), time.monotonic())
                    )
                elif msg.error().code() != KafkaError._PARTITION_EOF:
                    pass
            self.follower.poll()

    def stop(self, leave: bool = True) -> None:
        self._stop.set()
        self.thread.join(10)
        self.follower.close(leave=leave)
        self.consumer.close()
