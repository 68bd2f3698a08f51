"""Replica placement from the cluster, kept current (the reads themselves: agent.brokers.placement).

:class:`RackWatch` keeps the latest placement of every topic some group subscribes to (for
planning) and, on each :meth:`refresh`, feeds the racks.Debouncer so that a rack change that
held for the debounce window comes back as a trigger. Calls are retried with exponential
backoff (tenacity); a topic that cannot be described is skipped this round, never raised.
Broker racks are remembered by broker id, so a broker that is down keeps its last rack.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import structlog
from confluent_kafka.admin import AdminClient
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from agent.brokers.placement import describe
from agent.config.settings import MetadataSettings
from agent.daemon.events import RackChange
from agent.daemon.racks import Debouncer, fingerprint, leader_fingerprint
from assignor.inputs import ClusterView, TopicPartition

log = structlog.get_logger("rackwise.metadata")


class RackWatch:
    """Thread-safe cache of broker racks and topic placements, plus the rack debouncer."""

    def __init__(self, admin: AdminClient, settings: MetadataSettings) -> None:
        self.admin = admin
        self._settings = settings
        self._lock = threading.Lock()
        self.broker_racks: dict[int, str | None] = {}
        self.placement: dict[str, tuple[tuple[int, ...], ...]] = {}
        self.leaders: dict[str, dict[int, int]] = {}  # topic -> partition -> leader broker
        self.debouncer = Debouncer(settings.debounce_s)
        # Leaders move more often than replicas (a broker restart moves every leader it had);
        # they matter only to members that read from leaders, and are debounced the same way.
        self.leader_debouncer = Debouncer(settings.debounce_s, kind="leaders-changed")
        self.errors = 0
        self._describe = retry(
            reraise=True,
            stop=stop_after_attempt(settings.attempts),
            wait=wait_exponential(multiplier=0.2, max=5),
            retry=retry_if_exception_type(Exception),  # KafkaError may be raised bare
        )(self._describe_once)

    def _describe_once(
        self, topics: list[str]
    ) -> tuple[dict[int, str | None], dict[str, tuple[tuple[int, ...], ...]]]:
        snap = describe(self.admin, topics, self._settings.request_timeout_s)
        for name, error in sorted(snap.missing.items()):
            log.debug("topic not described", topic=name, error=error)
        leaders: dict[str, dict[int, int]] = {}
        for tp, broker in snap.view.leaders.items():
            leaders.setdefault(tp.topic, {})[tp.partition] = broker
        with self._lock:
            for topic in snap.view.topics:
                self.leaders[topic] = leaders.get(topic, {})
        return dict(snap.view.brokers), dict(snap.view.topics)

    def _store(
        self, racks: dict[int, str | None], placement: dict[str, tuple[tuple[int, ...], ...]]
    ) -> None:
        with self._lock:
            for broker, rack in racks.items():
                if rack is not None or broker not in self.broker_racks:
                    self.broker_racks[broker] = rack
            self.placement.update(placement)

    def ensure(self, topics: Iterable[str]) -> None:
        """Describe topics never seen before (a new group's topics), synchronously."""
        with self._lock:
            missing = sorted(set(topics) - set(self.placement))
        if not missing:
            return
        try:
            racks, placement = self._describe(missing)
        except Exception as exc:  # noqa: BLE001 - reported, never fatal
            self.errors += 1
            log.warning("cannot describe topics", topics=missing, error=str(exc))
            return
        self._store(racks, placement)
        now = time.monotonic()
        with self._lock:
            for topic in placement:
                self.debouncer.observe(topic, fingerprint(placement[topic], self.broker_racks), now)

    def refresh(self, topics: Iterable[str], now: float | None = None) -> list[RackChange]:
        """One polling round: returns the debounced changes (each names its topic)."""
        names = sorted(set(topics))
        try:
            racks, placement = self._describe(names)
        except Exception as exc:  # noqa: BLE001 - reported, never fatal
            self.errors += 1
            log.warning("metadata refresh failed", error=str(exc))
            return []
        self._store(racks, placement)
        now = time.monotonic() if now is None else now
        changes = []
        with self._lock:
            for topic in names:
                if topic not in placement:
                    continue
                change = self.debouncer.observe(
                    topic, fingerprint(placement[topic], self.broker_racks), now
                )
                if change:
                    changes.append(change)
                moved = self.leader_debouncer.observe(
                    topic,
                    leader_fingerprint(len(placement[topic]), self.leaders.get(topic, {}),
                                       self.broker_racks),
                    now,
                )
                if moved and not change:
                    changes.append(moved)
            for topic in set(self.placement) - set(names):
                self.placement.pop(topic, None)
                self.leaders.pop(topic, None)
                self.debouncer.forget(topic)
                self.leader_debouncer.forget(topic)
        return changes

    def view(self, topics: Iterable[str]) -> ClusterView:
        """The placement of ``topics`` (those known) as a ClusterView for the assignors."""
        with self._lock:
            keep = {t: self.placement[t] for t in sorted(set(topics)) if t in self.placement}
            brokers = {b: r for b, r in self.broker_racks.items()}
            leaders = {TopicPartition(t, p): b for t in keep
                       for p, b in self.leaders.get(t, {}).items() if p < len(keep[t])}
        for replicas in keep.values():
            for ids in replicas:
                for b in ids:
                    brokers.setdefault(b, None)
        return ClusterView(brokers=brokers, topics=keep, leaders=leaders)


def watch_racks(
    stop: threading.Event,
    watch: RackWatch,
    interval: float,
    watched: Callable[[], Iterable[str]],
    emit: Callable[[RackChange], None],
    count_error: Callable[[], None],
    sample_traffic: Callable[[Iterable[str]], object] | None = None,
) -> None:
    """The agent's metadata thread: refresh ``watched()`` every ``interval`` seconds until
    ``stop``, handing each rack change to ``emit`` (the agent's event queue), and sample the
    partitions' traffic (offsets and log sizes) once per round when asked to."""
    while not stop.wait(interval):
        topics = watched()
        errors = watch.errors
        try:
            for change in watch.refresh(topics):
                emit(change)
            if sample_traffic is not None:
                sample_traffic(topics)  # with no topic too: the agent may advise others
        except Exception as exc:  # never let one bad round end rack watching
            watch.errors += 1
            log.warning("metadata round failed", error=str(exc))
        if watch.errors > errors:
            count_error()
