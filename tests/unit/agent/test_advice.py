"""Advice records (protocol.advice) and the agent's publisher (agent.daemon.advice), with a fake
producer and fake clocks: what is written, when, and that produce errors are never fatal."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import AgentSettings, AssignorRule
from agent.daemon.advice import (
    AdvicePublisher,
    advised_topics,
    changed,
    group_advice,
    sample_and_advise,
    topic_advice,
)
from assignor.cluster import ClusterView, TopicPartition
from protocol.advice import AdviceError, GroupAdvice, TopicAdvice, decode

pytestmark = pytest.mark.unit

T0 = datetime(2026, 11, 25, 0, 40, tzinfo=UTC)
VIEW = ClusterView(
    brokers={1: "az1", 2: "az2", 3: None},
    topics={"orders": ((1, 2), (2, 1), (3, 1)), "audit": ((2, 3),)},
    leaders={TopicPartition("orders", 0): 1, TopicPartition("orders", 1): 2,
             TopicPartition("orders", 2): 3, TopicPartition("audit", 0): 2},
)
RATES = {TopicPartition("orders", 0): 5000.0, TopicPartition("orders", 1): 1000.0,
         TopicPartition("orders", 2): 0.0}


class FakeProducer:
    """Records what is produced; ``fail_produce`` raises like a full queue; a record produced
    while ``fail_delivery`` is set has its error reported on the next poll."""

    def __init__(self) -> None:
        self.records: list[tuple[str, bytes, bytes | None]] = []
        self.fail_produce = False
        self.fail_delivery = False
        self._pending: list[tuple[Callable[[Any, Any], None], bool]] = []

    def produce(self, topic: str, *, value: bytes | None = None, key: bytes | None = None,
                on_delivery: Callable[[Any, Any], None] | None = None) -> None:
        if self.fail_produce:
            raise BufferError("Local: Queue full")
        assert key is not None
        self.records.append((topic, key, value))
        if on_delivery is not None:
            self._pending.append((on_delivery, self.fail_delivery))

    def poll(self, timeout: float = 0) -> int:
        pending, self._pending = self._pending, []
        for callback, fail in pending:
            callback("Broker: Not leader" if fail else None, None)
        return len(pending)

    def flush(self, timeout: float = 0) -> int:
        self.poll(0)
        return 0


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _publisher(count: Callable[[str], None] = lambda _: None,
               **advice: Any) -> tuple[AdvicePublisher, FakeProducer, Clock]:
    settings = AgentSettings(advice=advice) if advice else AgentSettings()
    producer, clock = FakeProducer(), Clock()
    wall = lambda: T0.timestamp() + clock.t  # noqa: E731 - wall time moves with the clock
    return (AdvicePublisher(settings, producer, wall=wall, monotonic=clock, count=count),
            producer, clock)


def test_topic_record_is_the_contract() -> None:
    advice = topic_advice("orders", VIEW, RATES, T0)
    doc = json.loads(advice.to_json())
    assert doc == {
        "schema_version": 1, "kind": "topic", "topic": "orders",
        "measured_at": "2026-11-25T00:40:00.000Z", "measured_at_ms": int(T0.timestamp() * 1000),
        "partitions": [
            {"partition": 0, "bytes_per_s": 5000.0, "leader": 1, "leader_rack": "az1"},
            {"partition": 1, "bytes_per_s": 1000.0, "leader": 2, "leader_rack": "az2"},
            {"partition": 2, "bytes_per_s": 0.0, "leader": 3, "leader_rack": None}]}
    assert decode("topic/orders", advice.to_json()) == advice
    unmeasured = topic_advice("audit", VIEW, {}, T0)
    assert unmeasured.partitions[0].bytes_per_s is None
    assert unmeasured.partitions[0].leader_rack == "az2"


def test_group_record_is_the_contract() -> None:
    rules = [AssignorRule(pattern="orders-*", assignor="rack-optimal",
                          config={"traffic_cost": 10, "non_overlap_cost": 1}),
             AssignorRule(pattern="billing", assignor="range"),
             AssignorRule(pattern="orders-*", assignor="uniform")]  # shadowed by the first
    records = group_advice(rules, T0)
    assert [r.key() for r in records] == ["group/orders-*", "group/billing"]
    doc = json.loads(records[0].to_json())
    assert doc == {"schema_version": 1, "kind": "group", "pattern": "orders-*", "priority": 0,
                   "assignor": "rack-optimal",
                   "config": {"non_overlap_cost": 1, "traffic_cost": 10},
                   "updated_at": "2026-11-25T00:40:00.000Z",
                   "updated_at_ms": int(T0.timestamp() * 1000)}
    assert records[1].priority == 1
    assert decode("group/billing", records[1].to_json()) == records[1]


@pytest.mark.parametrize(("key", "value", "why"), [
    ("topic/orders", b"not json", "not JSON"),
    ("topic/orders", b"[1]", "JSON object"),
    ("topic/orders", b'{"schema_version":2,"kind":"topic"}', "schema_version"),
    ("topic/orders", b'{"schema_version":1,"kind":"weather"}', "unknown kind"),
    ("topic/orders", b'{"schema_version":1,"kind":"topic","topic":"orders"}', "measured_at"),
    ("topic/other", None, "for key"),
])
def test_bad_records_raise_one_error_type(key: str, value: bytes | None, why: str) -> None:
    raw = value if value is not None else topic_advice("orders", VIEW, RATES, T0).to_json()
    with pytest.raises(AdviceError, match=why):
        decode(key, raw)


def test_newer_fields_are_ignored() -> None:
    doc = json.loads(topic_advice("orders", VIEW, RATES, T0).to_json())
    doc["from_the_future"] = 1
    doc["partitions"][0]["new"] = [2]
    assert isinstance(decode("topic/orders", json.dumps(doc)), TopicAdvice)


def test_which_topics_are_advised() -> None:
    names = ["orders", "orders-eu", "__consumer_offsets", "rackwise.plans", "audit"]
    assert advised_topics(names, ["*"], ["rackwise.plans"]) == {"orders", "orders-eu", "audit"}
    assert advised_topics(names, ["orders*"], []) == {"orders", "orders-eu"}
    assert advised_topics(names, [], []) == set()


def test_a_meaningful_change() -> None:
    old = topic_advice("orders", VIEW, RATES, T0)
    # mean of the new rates ~2,133: partition 0 may move 10 % of 5,000 = 500 without a change
    assert not changed(old, topic_advice("orders", VIEW, {**RATES, TopicPartition("orders", 0): 5400.0},
                                         T0), 10)
    assert changed(old, topic_advice("orders", VIEW, {**RATES, TopicPartition("orders", 0): 6000.0},
                                     T0), 10)
    # an idle partition waking up a little is judged against the topic's mean, not its own 0
    assert not changed(old, topic_advice("orders", VIEW, {**RATES, TopicPartition("orders", 2): 100.0},
                                         T0), 10)
    moved = ClusterView(brokers=VIEW.brokers, topics=VIEW.topics,
                        leaders={**VIEW.leaders, TopicPartition("orders", 0): 2})
    assert changed(old, topic_advice("orders", moved, RATES, T0), 10)
    assert changed(old, topic_advice("orders", VIEW, {}, T0), 10)  # rates lost


def test_publisher_writes_on_change_and_refreshes() -> None:
    pub, producer, clock = _publisher(interval_s=30, refresh_s=300, min_change_pct=10)
    assert pub.publish_topics(VIEW, RATES) == 2
    assert [k for _, k, _ in producer.records] == [b"topic/audit", b"topic/orders"]
    assert {t for t, _, _ in producer.records} == {"rackwise.advice"}
    clock.t += 31
    assert pub.publish_topics(VIEW, RATES) == 0  # nothing changed
    hot = {**RATES, TopicPartition("orders", 1): 50_000.0}
    clock.t += 1
    assert pub.publish_topics(VIEW, hot) == 1  # orders changed, interval passed
    clock.t += 5
    assert pub.publish_topics(VIEW, RATES) == 0  # changed back, but within interval_s
    clock.t += 30
    assert pub.publish_topics(VIEW, RATES) == 1
    clock.t += 300
    assert pub.publish_topics(VIEW, RATES) == 2  # refresh: both, unchanged
    last = decode("topic/orders", producer.records[-1][2] or b"")
    assert isinstance(last, TopicAdvice)
    assert last.measured_at_ms == int((T0.timestamp() + clock.t) * 1000)
    assert pub.counts["published"] == 6 and pub.counts["unchanged"] > 0
    assert pub.publish_topics(None, {}) == 0  # no sample yet


def test_publisher_groups_and_removed_rules() -> None:
    pub, producer, clock = _publisher(interval_s=0, refresh_s=300)
    rules = [AssignorRule(pattern="a*", assignor="rack-optimal", config={"traffic_cost": 5}),
             AssignorRule(pattern="b", assignor="range")]
    assert pub.publish_groups(rules) == 2
    assert pub.publish_groups(rules) == 0
    changed_rules = [rules[0].model_copy(update={"config": {"traffic_cost": 9}})]
    assert pub.publish_groups(changed_rules) == 2  # a* rewritten, b deleted
    assert producer.records[-1][1:] == (b"group/b", None)
    rewritten = decode("group/a*", producer.records[-2][2] or b"")
    assert isinstance(rewritten, GroupAdvice) and rewritten.config == {"traffic_cost": 9}
    assert pub.publish_groups(changed_rules) == 0


def test_produce_errors_are_counted_never_raised() -> None:
    pub, producer, clock = _publisher(interval_s=30)
    producer.fail_produce = True
    assert pub.publish_topics(VIEW, RATES) == 0
    assert pub.counts["failed"] == 2
    producer.fail_produce = False
    producer.fail_delivery = True
    assert pub.publish_topics(VIEW, RATES) == 2
    producer.fail_delivery = False
    # the failed deliveries are reported on the next round, which writes both keys again
    assert pub.publish_topics(VIEW, RATES) == 2
    assert pub.counts["failed"] == 4


def test_an_oversized_record_is_not_published() -> None:
    big = ClusterView(brokers={1: "az1"}, topics={"wide": tuple((1,) for _ in range(20_000))})
    pub, producer, _ = _publisher(max_record_bytes=100_000)
    assert pub.publish_topics(big, {}) == 0
    assert pub.counts["oversized"] == 1 and producer.records == []


class _Snap:
    view = VIEW


def test_a_round_samples_planned_and_advised_topics_then_publishes() -> None:
    outcomes: list[str] = []
    pub, producer, _ = _publisher(outcomes.append, topics=["ord*"])
    rules = [AssignorRule(pattern="g*", assignor="rack-optimal")]
    sampled: list[set[str]] = []
    sample_and_advise(["audit"], pub, lambda: ["orders", "other", "__consumer_offsets"],
                      sampled.append, lambda: (RATES, _Snap()), rules)
    assert sampled == [{"audit", "orders"}]
    assert [k for _, k, _ in producer.records] == [b"topic/audit", b"topic/orders", b"group/g*"]
    assert outcomes == ["published"] * 3


def test_a_round_survives_a_failed_topic_listing_and_no_sample_yet() -> None:
    pub, producer, _ = _publisher()
    sampled: list[set[str]] = []

    def broken() -> list[str]:
        raise RuntimeError("KafkaError{code=_TRANSPORT}")

    sample_and_advise([], pub, broken, sampled.append, lambda: ({}, None), [])
    assert sampled == [] and producer.records == []  # nothing to sample, nothing measured yet
    sample_and_advise(["audit"], None, broken, sampled.append, lambda: ({}, None), [])
    assert sampled == [{"audit"}]  # advice off: the planned topics as before


GOLDEN = Path(__file__).resolve().parents[3] / "plugins" / "src" / "test" / "resources" / "advice"


def test_golden_records_the_java_reader_decodes() -> None:
    """plugins' AdviceGoldenTest decodes these files; here the agent must still write them."""
    view = ClusterView(brokers={1: "az1", 2: "az2", 3: None},
                       topics={"orders": ((1, 2), (2, 1), (3, 1))},
                       leaders={TopicPartition("orders", 0): 1, TopicPartition("orders", 1): 2})
    rates = {TopicPartition("orders", 0): 5000.0, TopicPartition("orders", 1): 1234.567}
    topic = topic_advice("orders", view, rates, T0).to_json()
    assert topic == (GOLDEN / "topic-orders.json").read_text(encoding="utf-8").strip()
    rule = AssignorRule(pattern="orders-[!x]*", assignor="rack-optimal",
                        config={"traffic_cost": 10, "non_overlap_cost": 1.5, "note": 'é"'})
    group = group_advice([rule], T0)[0].to_json()
    assert group == (GOLDEN / "group-orders.json").read_text(encoding="utf-8").strip()
