"""The agent advises Kafka's plug-ins: measured traffic, leaders and group settings.

After each traffic sample (the metadata thread, once per round) :class:`AdvicePublisher`
writes one ``topic/<topic>`` record per measured topic and one ``group/<pattern>`` record per
``planner.rules`` entry to the compacted ``topics.advice`` topic (docs/architecture.md
§ Advice; the format is protocol.advice). A key is written again only when its content changed
meaningfully and ``advice.interval_s`` has passed, or when ``advice.refresh_s`` has passed
since it was last written: the plug-ins judge advice stale by its age, so a live agent keeps
refreshing it. Produce errors are counted and logged, never raised: advice is optional for
the plug-ins, and the agent's planning must not stop for it.

Example: with ``min_change_pct`` 10, a partition going from 5,000 to 5,400 bytes/s in a topic
whose mean is 3,000 is no change (|400| <= 10 % of 5,000); to 6,000 it is.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog

from agent.config.settings import AgentSettings, AssignorRule
from assignor.inputs import ClusterView, TopicPartition
from protocol.advice import (
    GroupAdvice,
    PartitionAdvice,
    TopicAdvice,
    epoch_ms,
    group_key,
)

log = structlog.get_logger("rackwise.advice")


class AdviceProducer(Protocol):
    """The part of confluent_kafka.Producer the publisher uses (a fake one in unit tests)."""

    def produce(self, topic: str, *, value: bytes | None = ..., key: bytes | None = ...,
                on_delivery: Callable[[Any, Any], None] | None = ...) -> None: ...

    def poll(self, timeout: float = ...) -> int: ...

    def flush(self, timeout: float = ...) -> int: ...


def advised_topics(names: Iterable[str], patterns: Sequence[str], own: Iterable[str]) -> set[str]:
    """The topics among ``names`` that match a pattern, minus internal and the agent's own."""
    mine = set(own)
    return {n for n in names
            if not n.startswith("__") and n not in mine
            and any(fnmatch.fnmatchcase(n, p) for p in patterns)}


def topic_advice(topic: str, view: ClusterView, rates: Mapping[TopicPartition, float],
                 measured_at: datetime) -> TopicAdvice:
    """Every partition of ``topic`` in ``view``: its rate (None if unmeasured) and leader."""
    parts = []
    for p in range(view.partition_count(topic)):
        tp = TopicPartition(topic, p)
        leader = view.leaders.get(tp)
        parts.append(PartitionAdvice(
            partition=p, bytes_per_s=rates.get(tp), leader=leader,
            leader_rack=view.brokers.get(leader) if leader is not None else None))
    return TopicAdvice(topic=topic, measured_at=measured_at, measured_at_ms=epoch_ms(measured_at),
                       partitions=parts)


def changed(old: TopicAdvice, new: TopicAdvice, min_change_pct: float) -> bool:
    """Whether ``new`` says something ``old`` did not (its time aside): a partition added or
    gone, a leader moved, a rate measured or lost, or a rate moved by more than
    ``min_change_pct`` % of the larger of its old value and the topic's new mean."""
    if len(old.partitions) != len(new.partitions):
        return True
    rates = [p.bytes_per_s for p in new.partitions if p.bytes_per_s is not None]
    mean = sum(rates) / len(rates) if rates else 0.0
    for a, b in zip(old.partitions, new.partitions, strict=True):
        if (a.leader, a.leader_rack) != (b.leader, b.leader_rack):
            return True
        if (a.bytes_per_s is None) != (b.bytes_per_s is None):
            return True
        if a.bytes_per_s is not None and b.bytes_per_s is not None:
            scale = max(a.bytes_per_s, mean)
            if abs(b.bytes_per_s - a.bytes_per_s) > min_change_pct / 100 * scale:
                return True
    return False


def group_advice(rules: Sequence[AssignorRule], updated_at: datetime) -> list[GroupAdvice]:
    """One record per rule, in rule order; a pattern repeated later is shadowed, so left out."""
    out: list[GroupAdvice] = []
    seen: set[str] = set()
    for priority, rule in enumerate(rules):
        if rule.pattern in seen:
            continue
        seen.add(rule.pattern)
        out.append(GroupAdvice(pattern=rule.pattern, priority=priority, assignor=rule.assignor,
                               config=dict(sorted(rule.config.items())), updated_at=updated_at,
                               updated_at_ms=epoch_ms(updated_at)))
    return out


class AdvicePublisher:
    """Writes advice records when due; one instance per agent, used from one thread."""

    def __init__(self, settings: AgentSettings, producer: AdviceProducer,
                 wall: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 count: Callable[[str], None] = lambda _outcome: None) -> None:
        self.settings, self.producer, self._count = settings, producer, count
        self.topic = settings.topics.advice
        self._wall, self._mono = wall, monotonic
        # key -> (content as last written, when); content None: a tombstone was written
        self._last: dict[str, tuple[TopicAdvice | GroupAdvice | None, float]] = {}
        # records handed to the producer, skipped as unchanged, failed, too large
        self.counts: dict[str, int] = dict.fromkeys(
            ("published", "unchanged", "failed", "oversized"), 0)

    # ---- what to measure ---------------------------------------------------------------------
    def topics_to_measure(self, names: Iterable[str]) -> set[str]:
        t = self.settings.topics
        own = (t.subscriptions, t.plans, t.control, t.deadletter, t.advice)
        return advised_topics(names, self.settings.advice.topics, own)

    # ---- publishing --------------------------------------------------------------------------
    def publish_topics(self, view: ClusterView | None, rates: Mapping[TopicPartition, float]) -> int:
        """A record for each topic of ``view`` whose advice is due; returns how many."""
        if view is None:
            return 0
        self.producer.poll(0)  # delivery reports of the previous round
        now = datetime.fromtimestamp(self._wall(), UTC)
        written = 0
        for topic in sorted(view.topics):
            advice = topic_advice(topic, view, rates, now)
            last = self._last.get(advice.key())
            old = last[0] if last is not None else None
            meaningful = not isinstance(old, TopicAdvice) or changed(
                old, advice, self.settings.advice.min_change_pct)
            written += self._write_if_due(advice.key(), advice, meaningful)
        return written

    def publish_groups(self, rules: Sequence[AssignorRule]) -> int:
        """A record for each rule whose advice is due, and a tombstone for each rule gone."""
        self.producer.poll(0)
        now = datetime.fromtimestamp(self._wall(), UTC)
        written = 0
        current = {a.key(): a for a in group_advice(rules, now)}
        for key, advice in sorted(current.items()):
            last = self._last.get(key)
            old = last[0] if last is not None else None
            meaningful = not isinstance(old, GroupAdvice) or (
                old.model_dump(exclude={"updated_at", "updated_at_ms"})
                != advice.model_dump(exclude={"updated_at", "updated_at_ms"}))
            written += self._write_if_due(key, advice, meaningful)
        for key in sorted(k for k, (v, _) in self._last.items()
                          if isinstance(v, GroupAdvice) and k not in current):
            written += self._produce(key, None)  # a rule removed while this agent runs
        return written

    def flush(self, timeout: float) -> None:
        self.producer.flush(timeout)

    def _write_if_due(self, key: str, advice: TopicAdvice | GroupAdvice, meaningful: bool) -> int:
        last = self._last.get(key)
        since = self._mono() - last[1] if last is not None else float("inf")
        s = self.settings.advice
        if not ((meaningful and since >= s.interval_s) or since >= s.refresh_s):
            self._note("unchanged")
            return 0
        return self._produce(key, advice)

    def _produce(self, key: str, advice: TopicAdvice | GroupAdvice | None) -> int:
        value = advice.to_json().encode() if advice is not None else None
        if value is not None and len(value) > self.settings.advice.max_record_bytes:
            self._note("oversized")
            log.warning("advice record too large; not published", key=key, bytes=len(value),
                        limit=self.settings.advice.max_record_bytes)
            return 0
        try:
            self.producer.produce(self.topic, value=value, key=key.encode(),
                                  on_delivery=self._delivered(key))
        except Exception as exc:  # noqa: BLE001 - BufferError, KafkaException: never fatal
            self._note("failed")
            log.warning("advice not published", key=key, error=str(exc))
            return 0
        if advice is None:
            self._last.pop(key, None)
        else:
            self._last[key] = (advice, self._mono())
        self._note("published")
        return 1

    def _note(self, outcome: str) -> None:
        self.counts[outcome] += 1
        self._count(outcome)

    def _delivered(self, key: str) -> Callable[[Any, Any], None]:
        def done(err: Any, _msg: Any) -> None:
            if err is not None:
                # Forget what was written, so the next round writes the key again.
                self._note("failed")
                self._last.pop(key, None)
                log.warning("advice delivery failed", key=key, error=str(err))
        return done


def sample_and_advise(topics: Iterable[str], advice: AdvicePublisher | None,
                      list_topics: Callable[[], Iterable[str]],
                      sample: Callable[[set[str]], object],
                      measured: Callable[[], tuple[Mapping[TopicPartition, float],
                                                   ClusterSnapshotLike | None]],
                      rules: Sequence[AssignorRule]) -> None:
    """One metadata round's traffic sample and the advice it gives (the agent's metadata thread).

    ``topics`` are the planned ones; the advised ones are added from ``list_topics`` (a
    failure there only narrows this round's sample to the planned topics).
    """
    names = set(topics)
    if advice is not None:
        try:
            names |= advice.topics_to_measure(list_topics())
        except Exception as exc:  # noqa: BLE001 - KafkaException and kin: advise less, go on
            log.warning("advice: cannot list topics", error=str(exc))
    if names:
        sample(names)
    if advice is not None:
        rates, snap = measured()
        advice.publish_topics(snap.view if snap is not None else None, rates)
        advice.publish_groups(rules)


class ClusterSnapshotLike(Protocol):
    """What :func:`sample_and_advise` reads of agent.brokers.placement.ClusterSnapshot."""

    @property
    def view(self) -> ClusterView: ...


__all__ = ["AdvicePublisher", "advised_topics", "changed", "group_advice", "group_key",
           "sample_and_advise", "topic_advice"]
