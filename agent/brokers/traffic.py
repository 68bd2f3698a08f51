"""Measured traffic: each partition's bytes/s, from two samples of offsets and log sizes.

A sample reads, for every partition of the given topics, its log start and end offsets
(AdminClient ``list_offsets``) and its size on the leader's disk (DescribeLogDirs, sent by
agent.brokers.rpc: confluent-kafka has no call for it). Between two samples a partition's
rate is (docs/traffic.md):

* the growth of its log size over the time between the two size readings, when its log
  start offset did not move (no segment deleted) and the size did not shrink;
* otherwise (retention deleted a segment, the leader moved, compaction rewrote the log):
  the records appended (end offset growth) times the mean bytes per offset of the log.

Bytes on disk are record batches as the producer compressed them, which is what consumers
fetch and what crosses racks. The rates become the partition's ``bytes_per_s`` and,
normalised to a mean of 1 with a floor, its ``weight``: a hot partition weighs more, and an
idle one still a little (it is still better read locally).

Example: offsets 100 -> 150 and size 40,000 -> 90,000 bytes over 10 s -> 5,000 bytes/s.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import structlog
from confluent_kafka import KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from pydantic import BaseModel, Field

from agent.brokers.placement import ClusterSnapshot, describe, replica_selectors
from agent.brokers.rpc import WireClient, WireError, WireSettings
from assignor.inputs import ClusterView, TopicPartition
from protocol import kafkarpc as rpc

log = structlog.get_logger("rackwise.traffic")


class TrafficSettings(BaseModel):
    """How partition traffic is measured (agent and audit)."""

    window_s: float = Field(
        default=10.0, ge=0,
        description="audit: seconds between the two samples; 0 measures nothing (weights 1)",
    )
    min_weight: float = Field(
        default=0.001, gt=0,
        description="weight of an idle partition, relative to the mean (1.0) of all measured",
    )
    # Traffic-triggered re-plans (the agent; docs/traffic.md "Re-planning when traffic moves")
    replan: bool = Field(
        default=True,
        description="re-plan a group (reason traffic-changed) when the latest sample shows a "
        "re-plan would cut its cross-rack bytes materially; only assignors that use weights",
    )
    replan_min_saving_pct: float = Field(
        default=20.0, ge=0, le=100,
        description="the re-plan must cut the group's cross-rack bytes/s by at least this %",
    )
    replan_min_saving_usd_month: float = Field(
        default=5.0, ge=0,
        description="... and by at least this many $/month at cost.price_per_gb x "
        "cost.billed_directions (default price: $5/month is ~100 KiB/s)",
    )
    replan_hold_samples: int = Field(
        default=2, ge=1,
        description="consecutive traffic samples that must each show a material saving",
    )
    replan_min_interval_s: float = Field(
        default=900.0, ge=0,
        description="at least this long between two traffic-triggered re-plans of one group "
        "(and after the agent takes a group over)",
    )


@dataclass(frozen=True)
class PartitionSample:
    start: int
    end: int
    size: int | None  # bytes on the leader's disk; None when the broker did not say
    leader: int | None = None


@dataclass(frozen=True)
class Sample:
    """One reading of every partition: offsets at ``offsets_at``, sizes at ``sizes_at``."""

    offsets_at: float
    sizes_at: float
    partitions: Mapping[TopicPartition, PartitionSample] = field(default_factory=dict)


def partition_rate(a: PartitionSample, b: PartitionSample, offsets_s: float,
                   sizes_s: float) -> float:
    """Bytes/s appended between two samples of one partition (see the module doc)."""
    records = b.end - a.end
    if records <= 0 or offsets_s <= 0:
        return 0.0
    same_log = a.start == b.start and a.leader == b.leader
    if same_log and a.size is not None and b.size is not None and b.size >= a.size and sizes_s > 0:
        return (b.size - a.size) / sizes_s
    if b.size is not None and b.end > b.start:
        return records * (b.size / (b.end - b.start)) / offsets_s
    return 0.0


def rates_between(a: Sample, b: Sample) -> dict[TopicPartition, float]:
    """Bytes/s of every partition present in both samples."""
    offsets_s = b.offsets_at - a.offsets_at
    sizes_s = b.sizes_at - a.sizes_at
    return {
        tp: round(partition_rate(a.partitions[tp], pb, offsets_s, sizes_s), 3)
        for tp, pb in sorted(b.partitions.items())
        if tp in a.partitions
    }


def weights_from(rates: Mapping[TopicPartition, float], floor: float = 0.001) -> dict[TopicPartition, float]:
    """Rates normalised to a mean of 1, each at least ``floor`` (all 1.0 when all are idle)."""
    if not rates:
        return {}
    mean = sum(rates.values()) / len(rates)
    if mean <= 0:
        return dict.fromkeys(rates, 1.0)
    return {tp: round(max(r / mean, floor), 6) for tp, r in rates.items()}


class TrafficEstimator:
    """Samples offsets and log sizes; the last two samples give each partition's bytes/s.

    The daemon calls :meth:`sample` once per metadata round and :meth:`enrich` on the views
    it plans with; the audit calls :meth:`measure` (two samples ``window_s`` apart).
    Thread-safe: sampling and reading may happen on different threads.
    """

    def __init__(self, admin: AdminClient, client_config: Mapping[str, Any],
                 settings: TrafficSettings | None = None, timeout: float = 15.0) -> None:
        self.admin = admin
        self.settings = settings or TrafficSettings()
        self.timeout = timeout
        self._wire_settings = WireSettings.from_config(client_config, timeout)
        self._lock = threading.Lock()
        self._samples: list[Sample] = []
        self._snapshot: ClusterSnapshot | None = None
        # rates and weights of the last two samples, computed once (enrich() runs per group)
        self._rates: dict[TopicPartition, float] | None = None
        self._weights: dict[TopicPartition, float] | None = None
        self.samples = 0  # samples taken so far: names the one the rates end with
        self.errors: list[str] = []

    # ---- reading ---------------------------------------------------------------------------
    def sample(self, topics: Iterable[str]) -> Sample:
        """Read offsets and sizes of every partition of ``topics`` now; keep the last two."""
        names = sorted(set(topics))
        snap = describe(self.admin, names, self.timeout, read_selectors=True)
        tps = [TopicPartition(t, p) for t in sorted(snap.view.topics)
               for p in range(snap.view.partition_count(t))]
        offsets_at = time.monotonic()
        starts, ends = self._offsets(tps)
        offsets_at = (offsets_at + time.monotonic()) / 2
        sizes_at = time.monotonic()
        sizes = self._sizes(snap, names)
        sizes_at = (sizes_at + time.monotonic()) / 2
        parts = {}
        for tp in tps:
            if tp in starts and tp in ends:
                leader = snap.view.leaders.get(tp)
                parts[tp] = PartitionSample(starts[tp], ends[tp], sizes.get((leader, tp)), leader)
        sample = Sample(offsets_at, sizes_at, parts)
        with self._lock:
            self._samples = [*self._samples[-1:], sample]
            self._snapshot = snap
            self._rates = self._weights = None
            self.samples += 1
        return sample

    def measure(self, topics: Iterable[str], window_s: float | None = None) -> dict[TopicPartition, float]:
        """Two samples ``window_s`` apart (default: the settings'); the rates between them."""
        names = sorted(set(topics))
        self.sample(names)
        time.sleep(self.settings.window_s if window_s is None else window_s)
        self.sample(names)
        return self.rates()

    def _cached(self) -> tuple[dict[TopicPartition, float], dict[TopicPartition, float]]:
        """(rates, weights) of the last two samples, computed once per sample (not copied)."""
        return self._state()[1:3]

    def _state(self) -> tuple[int, dict[TopicPartition, float], dict[TopicPartition, float],
                              ClusterSnapshot | None]:
        """(sample number, rates, weights, snapshot), all of the same sample."""
        with self._lock:
            if self._rates is None or self._weights is None:
                self._rates = (rates_between(self._samples[0], self._samples[1])
                               if len(self._samples) == 2 else {})
                self._weights = weights_from(self._rates, self.settings.min_weight)
            return self.samples, self._rates, self._weights, self._snapshot

    def rates(self) -> dict[TopicPartition, float]:
        """Bytes/s per partition between the last two samples ({} before the second)."""
        return dict(self._cached()[0])

    def follower_fetching(self) -> bool | None:
        """Whether the brokers fetch from followers, as last sampled; None before a sample."""
        snap = self._state()[3]
        return None if snap is None else snap.view.follower_fetching

    def measured(self) -> tuple[dict[TopicPartition, float], ClusterSnapshot | None]:
        """(bytes/s per partition, the latest sample's cluster snapshot), of the same sample."""
        _, rates, _, snap = self._state()
        return dict(rates), snap

    def weights(self) -> dict[TopicPartition, float]:
        """The rates as solver weights: mean 1, idle partitions at ``min_weight``."""
        return dict(self._cached()[1])

    def enrich(self, view: ClusterView) -> ClusterView:
        """``view`` with measured bytes/s and weights, and (once sampled) the leaders and
        brokers' follower-fetching setting. Partitions not measured keep weight 1."""
        return self.enriched(view)[1]

    def enriched(self, view: ClusterView) -> tuple[int, ClusterView]:
        """:meth:`enrich`, and the number of the sample its rates end with."""
        number, rates, weights, snap = self._state()
        mine = {tp for t in view.topics for tp in view.partitions(t)}
        rates = {tp: rates[tp] for tp in mine if tp in rates}
        weights = {tp: weights[tp] for tp in mine if tp in weights}
        leaders = dict(view.leaders)
        follower_fetching = view.follower_fetching
        if snap is not None:
            known = snap.view.leaders
            leaders.update({tp: known[tp] for tp in mine if tp in known})
            follower_fetching = snap.view.follower_fetching
        return number, replace(
            view,
            weights=weights or dict(view.weights),
            bytes_per_s=rates,
            leaders=leaders,
            follower_fetching=follower_fetching,
        )

    # ---- the two reads ---------------------------------------------------------------------
    def _offsets(self, tps: list[TopicPartition]) -> tuple[dict[TopicPartition, int],
                                                            dict[TopicPartition, int]]:
        out: list[dict[TopicPartition, int]] = []
        for spec in (OffsetSpec.earliest(), OffsetSpec.latest()):  # type: ignore[no-untyped-call]
            found: dict[TopicPartition, int] = {}
            if tps:
                req = {KafkaTopicPartition(tp.topic, tp.partition): spec for tp in tps}
                futures = self.admin.list_offsets(req, request_timeout=self.timeout)
                for ktp, fut in futures.items():
                    try:
                        found[TopicPartition(ktp.topic, ktp.partition)] = fut.result(
                            self.timeout + 5).offset
                    except KafkaException as exc:
                        self._note(f"list_offsets {ktp.topic}-{ktp.partition}: {exc}")
            out.append(found)
        return out[0], out[1]

    def _sizes(self, snap: ClusterSnapshot,
               topics: list[str]) -> dict[tuple[int | None, TopicPartition], int]:
        """(broker, partition) -> bytes, from DescribeLogDirs on every broker with a replica."""
        wanted: dict[int, dict[str, list[int]]] = {}
        for t in sorted(snap.view.topics):
            for p, replicas in enumerate(snap.view.topics[t]):
                for b in replicas:
                    wanted.setdefault(b, {}).setdefault(t, []).append(p)
        out: dict[tuple[int | None, TopicPartition], int] = {}
        with WireClient(self._wire_settings) as client:
            for broker in sorted(wanted):
                address = snap.addresses.get(broker)
                if address is None:
                    continue  # a broker that is down: its partitions' leaders are elsewhere
                req = rpc.DescribeLogDirsRequest([
                    rpc.LogDirTopicRequest(t, sorted(ps)) for t, ps in sorted(wanted[broker].items())
                ])
                try:
                    _, resp = client.connection(*address).request(
                        rpc.DESCRIBE_LOG_DIRS, "DescribeLogDirs", rpc.DESCRIBE_LOG_DIRS_REQUEST,
                        req, rpc.DESCRIBE_LOG_DIRS_RESPONSE)
                except WireError as exc:
                    self._note(str(exc))
                    continue
                if resp.error_code:
                    self._note(f"DescribeLogDirs on broker {broker}: "
                               f"{rpc.error_name(resp.error_code)}")
                for d in resp.results:
                    if d.error_code:
                        continue  # an offline log dir: its replicas are not readable
                    for topic in d.topics:
                        for part in topic.partitions:
                            if not part.is_future_key:  # a replica being moved between dirs
                                out[(broker, TopicPartition(topic.name, part.partition_index))] = (
                                    part.partition_size)
        return out

    def _note(self, error: str) -> None:
        # One bad partition or broker never stops a measurement: it is logged and kept for
        # callers (the audit shows the first) and the partition is left unmeasured.
        log.warning("traffic sample incomplete", error=error)
        with self._lock:
            self.errors = [*self.errors[-20:], error]


__all__ = [
    "PartitionSample",
    "Sample",
    "TrafficEstimator",
    "TrafficSettings",
    "partition_rate",
    "rates_between",
    "replica_selectors",
    "weights_from",
]
