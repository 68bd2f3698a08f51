"""The plan worker keeps trying to open a partition while brokers elect, and gives up cleanly
when a stop or a close for that partition is queued (it once died there: CI, 2026-11-25)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

import agent.daemon.worker as worker_module
from agent.config.settings import AgentSettings
from agent.daemon.events import LoopEvent, Opened
from agent.daemon.worker import PlanWorker

pytestmark = pytest.mark.unit


class FlakyProducer:
    """Fails ``init_transactions`` for the first ``failures`` producers made."""

    made = 0
    failures = 0

    def __init__(self, config: dict[str, Any]) -> None:
        type(self).made += 1
        self.number = type(self).made

    def init_transactions(self, timeout: float) -> None:
        if self.number <= type(self).failures:
            raise KafkaException(KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION))

    def flush(self, timeout: float) -> int:
        return 0

    def begin_transaction(self) -> None:
        self.produced: list[str] = []

    def produce(self, topic: str, **kwargs: Any) -> None:
        self.produced.append(topic)

    def commit_transaction(self, timeout: float) -> None:
        pass


def make_worker(monkeypatch: pytest.MonkeyPatch, failures: int) -> tuple[PlanWorker, list[LoopEvent]]:
    FlakyProducer.made = 0
    FlakyProducer.failures = failures
    monkeypatch.setattr(worker_module, "Producer", FlakyProducer)
    real_sleep = time.sleep
    monkeypatch.setattr(worker_module.time, "sleep", lambda s: real_sleep(min(s, 0.01)))
    monkeypatch.setattr(PlanWorker, "_recover", lambda self, partition: {})
    events: list[LoopEvent] = []
    settings = AgentSettings(bootstrap="127.0.0.1:1")
    w = PlanWorker(settings, watch=None, metrics=None, results=events.append)  # type: ignore[arg-type]
    return w, events


def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_open_retries_while_other_commands_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    w, events = make_worker(monkeypatch, failures=3)
    w.open(0)
    w.open(1)  # queued behind partition 0's retries: must not break them
    w.start()
    wait_for(lambda: len(events) == 2)
    assert [e.partition for e in events if isinstance(e, Opened)] == [0, 1]
    assert w.alive
    assert sorted(w.producers) == [0, 1]
    w.stop(5)


def test_a_queued_close_abandons_the_open(monkeypatch: pytest.MonkeyPatch) -> None:
    w, events = make_worker(monkeypatch, failures=10**6)  # the broker never answers
    w.open(0)
    w.start()
    wait_for(lambda: FlakyProducer.made >= 2)
    done: threading.Event = w.close(0)
    assert done.wait(5), "the close never ran"
    assert events == [] and w.alive and w.producers == {}
    w.stop(5)
    assert not w._thread.is_alive()


def test_a_queued_stop_ends_the_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    w, _ = make_worker(monkeypatch, failures=10**6)
    w.open(0)
    w.start()
    wait_for(lambda: FlakyProducer.made >= 2)
    w.stop(5)
    assert not w._thread.is_alive()


class BrokenWatch:
    """A rack watch whose view raises what no planning code expects."""

    def ensure(self, topics: Any) -> None:
        pass

    def view(self, topics: Any) -> Any:
        raise KeyError("a bug, not input")


def test_an_unexpected_error_fails_one_plan_not_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.daemon.events import Failed
    from agent.daemon.ops import Metrics
    from agent.daemon.planning import PlanJob

    w, events = make_worker(monkeypatch, failures=0)
    w.watch = BrokenWatch()  # type: ignore[assignment]
    w.metrics = Metrics()
    w.open(0)
    job = PlanJob(group_id="g", partition=0, kind="consumer", generation=1, triggers=("member-joined",),
                  assignor="cooperative-sticky", members=(), topics=("t",))
    w.submit(job)
    w.start()
    wait_for(lambda: any(isinstance(e, Failed) for e in events))
    failed = [e for e in events if isinstance(e, Failed)]
    assert "internal error" in failed[0].error and w.alive
    assert w.metrics.plan_failures.labels("internal")._value.get() == 1
    w.stop(5)


class FakeMessage:
    def __init__(self, partition: int, value: bytes | None, eof: bool = False) -> None:
        self._partition, self._value, self._eof = partition, value, eof

    def error(self) -> Any:
        return KafkaError(KafkaError._PARTITION_EOF) if self._eof else None

    def partition(self) -> int:
        return self._partition

    def value(self) -> bytes | None:
        return self._value


class PlansConsumer:
    """A plans partition holding the given values, then end of partition."""

    def __init__(self, values: list[bytes]) -> None:
        self.messages = [FakeMessage(0, v) for v in values] + [FakeMessage(0, None, eof=True)]

    def get_watermark_offsets(self, tp: Any, timeout: float, cached: bool) -> tuple[int, int]:
        return 0, len(self.messages) - 1

    def assign(self, tps: Any) -> None:
        pass

    def poll(self, timeout: float) -> FakeMessage | None:
        return self.messages.pop(0) if self.messages else None


def test_recovery_keeps_only_this_agents_own_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plug-in reports and observe plans share rackwise.plans; recovering them would make the
    agent publish an empty member-left plan for groups it never planned."""
    from protocol.plan import AssignmentPlan, MemberPlan, PlanSummary

    def plan(group: str, reason: str, generation: int) -> bytes:
        return AssignmentPlan(
            group_id=group, generation=generation, reason=reason, assignor="x",
            members=[MemberPlan(member_id="m", rack=None, partitions=[])],
            summary=PlanSummary(partitions=0, cross_rack_partitions=0, traffic_cost=0,
                                max_load=0, min_load=0),
        ).to_json().encode()

    w, _ = make_worker(monkeypatch, failures=0)
    values = [plan("agent-group", "initial", 1), plan("agent-group", "member-joined", 2),
              plan("plugin-group", "assigned", 5), plan("observed-group", "observed", 1),
              plan("future-group", "some-newer-reason", 1), b"not a plan"]
    latest = w._read_latest(PlansConsumer(values), 0)  # type: ignore[arg-type]
    assert sorted(latest) == ["agent-group"]
    assert latest["agent-group"].generation == 2
