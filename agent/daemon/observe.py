"""Observe mode in the daemon: audit live groups on a timer, export and publish the result.

Every ``observe.interval_s`` the observer thread runs agent.audit over the groups matching
``observe.groups``, sets the Prometheus gauges (cross-rack partitions, cross-rack bytes/s and
their price per month, actual / best / worst per group; traffic is sampled once per round, so
bytes appear from the second round on) and, for a measured group whose subscriptions
partition this agent owns (so that of
several agents exactly one publishes it), writes two plans to the plans topic: the assignment
the group runs (reason ``observed``) and the recommendation (reason ``recommended``).

Plans are written only when what they say changed (members, partitions, racks) or a measured
rate moved by more than 10 % (RATE_STEP), not every round. Their generations must rise per
group across agent restarts without any state kept here, so they are taken from the wall clock
in milliseconds (the observed plan gets an even number, the recommendation the next one); a
group planned by rackwise itself uses small generations and is never observed (its members do
not join a classic group).
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
from collections.abc import Callable, Mapping

import structlog
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient
from prometheus_client import Gauge

from agent.audit import MEASURED, STATUSES, GroupAudit, run_audit
from agent.brokers.traffic import TrafficEstimator
from agent.config.settings import AgentSettings
from agent.daemon.ops import Metrics
from agent.daemon.planning import streams_setup
from protocol.plan import AssignmentPlan
from protocol.routing import group_partition

log = structlog.get_logger("rackwise.observe")


# Measured figures move a little every round; a plan is written again only when one of them
# moved by more than this (or what the plan says changed: members, partitions, racks).
RATE_STEP = 0.10
_RATE_KEYS = ("bytes_per_s", "traffic_cost", "lower_bound", "usd")


def _rate_bucket(value: float) -> int:
    """Buckets 10 % wide on a log scale: 100 and 105 share one, 100 and 125 do not (a value
    near a bucket edge can still flip on a small move; that costs one plan, no more)."""
    return 0 if value <= 0 else 1 + int(math.log(value) / math.log1p(RATE_STEP) + 10_000)


def _coarse(doc: object) -> object:
    """``doc`` with every measured rate replaced by its bucket."""
    if isinstance(doc, dict):
        return {k: (_rate_bucket(v) if isinstance(v, int | float) and not isinstance(v, bool)
                    and any(r in k for r in _RATE_KEYS) else _coarse(v))
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [_coarse(v) for v in doc]
    return doc


def _fingerprint(audit: GroupAudit) -> str:
    plans = [p.without_timestamp() for p in (audit.actual, audit.best) if p is not None]
    for doc in plans:
        doc.pop("generation", None)
    return json.dumps(_coarse(plans), sort_keys=True)


def _drop(gauge: Gauge, *labels: str) -> None:
    """Remove one labelled series if it is there (a group may never have had bytes)."""
    with contextlib.suppress(KeyError):
        gauge.remove(*labels)


UNKNOWN_RACK = "unknown"


def rack_pair_bytes(plan: AssignmentPlan) -> dict[tuple[str, str], float]:
    """Measured bytes/s of a plan by (rack serving the reads, rack of the reader).

    The reader's rack is its client.rack, else where the host map puts it, else ``unknown``;
    the serving rack is the partition's ``source_rack``. Partitions without a measured rate
    are left out. Example: a member in az3 reading 10 B/s of a partition whose replicas are
    in az1 and az2 (leader az1), and 5 B/s of one with a replica in az3, gives
    {("az1", "az3"): 10.0, ("az3", "az3"): 5.0}.
    """
    pairs: dict[tuple[str, str], float] = {}
    for member in plan.members:
        reader = member.rack or member.location or UNKNOWN_RACK
        for part in member.partitions:
            if part.bytes_per_s is None:
                continue
            key = (part.source_rack or UNKNOWN_RACK, reader)
            pairs[key] = pairs.get(key, 0.0) + part.bytes_per_s
    return pairs


def observed_generation(last: int, now_ms: int) -> int:
    """An even generation above ``last + 1`` (the previous recommendation), from the clock."""
    gen = max(now_ms, last + 1)
    return gen + (gen % 2)


class Observer:
    """The observe-mode thread of one agent."""

    def __init__(
        self,
        settings: AgentSettings,
        metrics: Metrics,
        owns: Callable[[str], bool],
        plans_partitions: int,
        admin: AdminClient | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.owns = owns
        self.plans_partitions = plans_partitions
        self.admin = admin or AdminClient(settings.client_config())
        self.estimator = TrafficEstimator(self.admin, settings.client_config(), settings.traffic,
                                          settings.observe.request_timeout_s)
        self.producer: Producer | None = None
        self._seen: dict[str, str] = {}
        self._generation: dict[str, int] = {}
        self._gauged: set[tuple[str, str]] = set()
        self._pairs: set[tuple[str, ...]] = set()
        self.rounds = 0
        self.published = 0
        self._thread: threading.Thread | None = None

    def start(self, stop: threading.Event) -> None:
        self._thread = threading.Thread(
            target=self._run, args=(stop,), name="rackwise-observe", daemon=True
        )
        self._thread.start()

    def join(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
        if self.producer is not None:
            self.producer.flush(10)

    def running(self) -> bool:
        """Whether its thread still runs."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self, stop: threading.Event) -> None:
        interval = self.settings.observe.interval_s
        while not stop.is_set():
            try:
                self.round()
            except Exception as exc:  # never let one bad round end observe mode
                self.metrics.observe_errors.inc()
                log.warning("observe round failed", error=str(exc))
            if stop.wait(interval):
                return

    def round(self) -> list[GroupAudit]:
        """One audit of every observed group: gauges, then plans for what changed."""
        s = self.settings
        pattern = s.observe.groups or "*"

        def topology(group_id: str) -> Mapping[str, object] | None:
            found = streams_setup(group_id, s.planner).get("topology")
            return found if isinstance(found, Mapping) else None

        audits = run_audit(
            self.admin, pattern, s.observe.request_timeout_s, topology, s.planner.streams_config,
            client_config=s.client_config(), cost=s.cost, estimator=self.estimator,
        )
        self.rounds += 1
        self._export(audits)
        if s.observe.publish:
            self._publish([a for a in audits if a.status in MEASURED and self.owns(a.group)])
        return audits

    def _export(self, audits: list[GroupAudit]) -> None:
        m = self.metrics
        statuses: dict[str, int] = {}
        live: set[tuple[str, str]] = set()
        pairs: set[tuple[str, ...]] = set()
        for a in audits:
            statuses[a.status] = statuses.get(a.status, 0) + 1
            if a.cross_rack_actual is None or a.cross_rack_best is None:
                continue
            labels = (a.group, a.kind or "consumer")
            live.add(labels)
            m.observed_actual.labels(*labels).set(a.cross_rack_actual)
            m.observed_best.labels(*labels).set(a.cross_rack_best)
            m.observed_partitions.labels(*labels).set(a.partitions)
            m.observed_rack_unknown.labels(*labels).set(len(a.rack_unknown_members))
            money = a.money()
            for plan, rate in (("actual", a.cross_rack_bytes_actual),
                               ("best", a.cross_rack_bytes_best),
                               ("worst", a.cross_rack_bytes_worst)):
                if rate is None:  # not measured this round (the first one, or a failure)
                    _drop(m.observed_bytes, *labels, plan)
                    _drop(m.observed_cost, *labels, plan)
                    continue
                m.observed_bytes.labels(*labels, plan).set(rate)
                m.observed_cost.labels(*labels, plan).set(money[plan] or 0.0)
            for plan, doc in (("actual", a.actual), ("best", a.best)):
                for (src, reader), rate in (rack_pair_bytes(doc) if doc else {}).items():
                    pair: tuple[str, ...] = (*labels, plan, src, reader)
                    pairs.add(pair)
                    m.observed_rack_pair_bytes.labels(*pair).set(rate)
        for pair in self._pairs - pairs:  # a pair no longer read, or a group gone
            _drop(m.observed_rack_pair_bytes, *pair)
        self._pairs = pairs
        for labels in self._gauged - live:  # a group gone or no longer measurable
            for gauge in (m.observed_actual, m.observed_best, m.observed_partitions,
                          m.observed_rack_unknown):
                gauge.remove(*labels)
            for plan in ("actual", "best", "worst"):
                _drop(m.observed_bytes, *labels, plan)
                _drop(m.observed_cost, *labels, plan)
        self._gauged = live
        for status in STATUSES:
            m.observed_groups.labels(status).set(statuses.get(status, 0))

    def _publish(self, audits: list[GroupAudit]) -> None:
        s = self.settings
        changed = [a for a in audits if self._seen.get(a.group) != _fingerprint(a)]
        if not changed:
            return
        if self.producer is None:
            self.producer = Producer(s.client_config(**{"enable.idempotence": True, "linger.ms": 20}))
        for a in changed:
            assert a.actual is not None and a.best is not None
            gen = observed_generation(self._generation.get(a.group, -1), int(time.time() * 1000))
            plans: list[AssignmentPlan] = [
                a.actual.model_copy(update={"generation": gen}),
                a.best.model_copy(update={"generation": gen + 1}),
            ]
            try:
                for plan in plans:
                    self.producer.produce(
                        s.topics.plans,
                        key=a.group.encode(),
                        value=plan.to_json().encode(),
                        partition=group_partition(a.group, self.plans_partitions),
                    )
            except (KafkaException, BufferError) as exc:
                log.warning("observed plans not written", group=a.group, error=str(exc))
                continue
            self._generation[a.group] = gen + 1
            self._seen[a.group] = _fingerprint(a)
            self.published += len(plans)
            self.metrics.plans.labels("observed").inc()
            self.metrics.plans.labels("recommended").inc()
            log.info(
                "observed plans published",
                group=a.group,
                generation=gen,
                cross_rack_actual=a.cross_rack_actual,
                cross_rack_best=a.cross_rack_best,
                read_model=a.read_model,
                cross_rack_bytes_per_s=a.cross_rack_bytes_actual,
                cross_rack_bytes_per_s_best=a.cross_rack_bytes_best,
                usd_per_month=a.money()["actual"],
                rack_unknown_members=len(a.rack_unknown_members),
            )
        remaining = self.producer.flush(15)
        if remaining:
            log.warning("observed plans not all delivered", pending=remaining)
