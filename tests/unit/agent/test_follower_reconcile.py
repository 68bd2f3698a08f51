"""PlanFollower puts the consumer's assignment right when it drifts from the plan.

A partition the consumer still holds after the plan gave it away is read twice (by this
member and by its new owner); one the plan gives it but the consumer lacks is read by nobody.
The follower compares the two every ``reconcile_s`` (the consumer's local assignment, no
network) and fixes either. Fake Kafka clients: a pure unit test.
"""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import TopicPartition

from agent.member import follower as follower_mod
from agent.member.follower import PlanFollower

pytestmark = pytest.mark.unit


class _FakeClient:
    """The Producer / plans Consumer the follower builds: nothing arrives, nothing is sent."""

    def __init__(self, *_: Any, **__: Any) -> None:
        pass

    def consume(self, *_: Any) -> list[Any]:
        return []

    def produce(self, *_: Any, **__: Any) -> None:
        pass

    def poll(self, *_: Any) -> None:
        pass


class _DataConsumer:
    """The user's consumer: holds an assignment and records what it is told."""

    def __init__(self, held: list[tuple[str, int]]) -> None:
        self.held = {(t, p) for t, p in held}
        self.calls: list[tuple[str, list[tuple[str, int]]]] = []

    def assignment(self) -> list[TopicPartition]:
        return [TopicPartition(t, p) for t, p in sorted(self.held)]

    def incremental_unassign(self, tps: list[TopicPartition]) -> None:
        self.calls.append(("unassign", [(tp.topic, tp.partition) for tp in tps]))
        self.held -= {(tp.topic, tp.partition) for tp in tps}

    def incremental_assign(self, tps: list[TopicPartition]) -> None:
        self.calls.append(("assign", [(tp.topic, tp.partition) for tp in tps]))
        self.held |= {(tp.topic, tp.partition) for tp in tps}


@pytest.fixture
def make(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(follower_mod, "Producer", _FakeClient)
    monkeypatch.setattr(follower_mod, "Consumer", _FakeClient)

    def build(held: list[tuple[str, int]], owned: set[tuple[str, int]]) -> PlanFollower:
        f = PlanFollower(_DataConsumer(held), {"bootstrap.servers": "x:1", "client.rack": "az1"},  # type: ignore[arg-type]
                         group_id="g", topics=["t"], rack="az1", heartbeat_s=1e9)
        f.owned = set(owned)
        f.reconcile_s = 0.0
        return f

    return build


def test_a_partition_held_after_the_plan_took_it_is_given_up(make: Any) -> None:
    f = make(held=[("t", 0), ("t", 1), ("other", 0)], owned={("t", 0)})
    f.poll()
    # t-1 given up; the user's own "other" topic is none of the follower's business
    assert f.consumer.calls == [("unassign", [("t", 1)])]
    assert f.consumer.held == {("t", 0), ("other", 0)} and f.reconciled == 1
    f.poll()  # in step now: nothing more to do
    assert len(f.consumer.calls) == 1 and f.reconciled == 1


def test_a_planned_partition_the_consumer_lacks_is_assigned(make: Any) -> None:
    f = make(held=[], owned={("t", 2), ("t", 3)})
    f.poll()
    assert f.consumer.calls == [("assign", [("t", 2), ("t", 3)])] and f.reconciled == 1


def test_it_waits_reconcile_s_between_checks(make: Any) -> None:
    f = make(held=[("t", 1)], owned=set())
    f.reconcile_s = 3600.0
    f.poll()
    assert f.consumer.calls == [] and f.reconciled == 0
