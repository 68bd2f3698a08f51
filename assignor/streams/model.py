"""Inputs of the Streams task assignors: tasks, clients, lags and configuration.

Everything here is built once per plan and never mutated afterwards. Kafka's names are
kept (``acceptable_recovery_lag``, ``max_warmup_replicas`` ...) so a scenario reads like a
Kafka Streams config.

Example: one subtopology reading ``orders`` (3 partitions) with one changelog::

    topo = Topology.from_dict({"subtopologies": [{"id": 0, "source_topics": ["orders"],
                               "changelog_topics": ["app-store-changelog"], "stateful": True}]})
    tasks = build_tasks(topo, view)      # tasks 0_0, 0_1, 0_2, all stateful
    tasks.source[TaskId(0, 1)]           # (TopicPartition("orders", 1),)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from protocol.streams import TaskId

# Kafka's sentinels (Task.LATEST_OFFSET, SubscriptionInfo.UNKNOWN_OFFSET_SUM,
# OffsetCheckpoint.OFFSET_UNKNOWN) and Java's Long.MAX_VALUE.
LATEST_OFFSET = -2
UNKNOWN_OFFSET_SUM = -3
OFFSET_UNKNOWN = -4
LONG_MAX = (1 << 63) - 1

STRATEGIES = ("none", "min_traffic", "balance_subtopology")
HA_TRAFFIC_COST = 10  # HighAvailabilityTaskAssignor.DEFAULT_HIGH_AVAILABILITY_TRAFFIC_COST
HA_NON_OVERLAP_COST = 1  # ... DEFAULT_HIGH_AVAILABILITY_NON_OVERLAP_COST
STATELESS_TRAFFIC_COST = 1  # RackAwareTaskAssignor.STATELESS_TRAFFIC_COST
STATELESS_NON_OVERLAP_COST = 0


_UUID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def process_sort_key(process_id: str) -> tuple[int, int, int, str]:
    """Kafka's client order: ``UUID.compareTo`` compares msb then lsb as *signed* longs.

    Only the canonical 8-4-4-4-12 form (what Kafka's ``UUID.toString`` writes) is a UUID
    here, as in the JVM core; any other id (scenarios may say "p1") sorts after every UUID,
    by string (code point), then the id breaks ties between spellings of one UUID.
    """
    if not isinstance(process_id, str) or not _UUID.fullmatch(process_id):
        return (1, 0, 0, str(process_id))
    value = int(process_id.replace("-", ""), 16)
    msb, lsb = value >> 64, value & ((1 << 64) - 1)
    msb -= (1 << 64) if msb >= (1 << 63) else 0
    lsb -= (1 << 64) if lsb >= (1 << 63) else 0
    return (0, msb, lsb, process_id)


@dataclass(frozen=True)
class Subtopology:
    id: int
    source_topics: tuple[str, ...]
    changelog_topics: tuple[str, ...]
    stateful: bool


@dataclass(frozen=True)
class Topology:
    """The subtopologies of one Streams application, sorted by id."""

    subtopologies: tuple[Subtopology, ...]

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Topology:
        try:
            subs = []
            for raw in doc.get("subtopologies", []):
                changelogs = tuple(str(t) for t in raw.get("changelog_topics", []))
                subs.append(
                    Subtopology(
                        id=int(raw["id"]),
                        source_topics=tuple(str(t) for t in raw.get("source_topics", [])),
                        changelog_topics=changelogs,
                        stateful=bool(raw.get("stateful", bool(changelogs))),
                    )
                )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise AssignorError(
                "topology must be {subtopologies: [{id, source_topics, changelog_topics,"
                " stateful}]}"
                f": {exc!r}"
            ) from None
        ids = [s.id for s in subs]
        if len(set(ids)) != len(ids):
            raise AssignorError(f"topology repeats a subtopology id: {sorted(ids)}")
        for sub in subs:
            if not sub.source_topics:
                raise AssignorError(f"subtopology {sub.id} has no source_topics")
            if sub.stateful and not sub.changelog_topics:
                # Kafka only counts tasks with changelog partitions as stateful.
                raise AssignorError(
                    f"subtopology {sub.id} is stateful but lists no changelog_topics"
                    " (Kafka treats only logged stores as stateful)"
                )
        return cls(tuple(sorted(subs, key=lambda s: s.id)))


@dataclass(frozen=True)
class TaskSet:
    """All tasks of a topology with the partitions each one reads and logs to."""

    all: tuple[TaskId, ...]
    stateful: frozenset[TaskId]
    source: Mapping[TaskId, tuple[TopicPartition, ...]]
    changelog: Mapping[TaskId, tuple[TopicPartition, ...]]
    by_subtopology: Mapping[int, tuple[TaskId, ...]]


def build_tasks(topology: Topology, view: ClusterView) -> TaskSet:
    """Kafka's partition grouper: one task per partition of the widest source topic.

    A source topic missing from the cluster is an error (Kafka reports
    INCOMPLETE_SOURCE_TOPIC_METADATA and assigns nothing). Changelog topics are internal:
    they get one partition per task, whether or not the cluster lists them yet.
    """
    all_tasks: list[TaskId] = []
    stateful: set[TaskId] = set()
    source: dict[TaskId, tuple[TopicPartition, ...]] = {}
    changelog: dict[TaskId, tuple[TopicPartition, ...]] = {}
    by_sub: dict[int, tuple[TaskId, ...]] = {}
    for sub in topology.subtopologies:
        missing = [t for t in sub.source_topics if not view.has_topic(t)]
        if missing:
            raise AssignorError(
                f"subtopology {sub.id} reads topics missing from the cluster: "
                f"{sorted(missing)}; create them or fix the topology"
            )
        count = max(view.partition_count(t) for t in sub.source_topics)
        tasks = tuple(TaskId(sub.id, p) for p in range(count))
        for task in tasks:
            p = task.partition
            source[task] = tuple(
                sorted(
                    TopicPartition(t, p) for t in sub.source_topics if view.partition_count(t) > p
                )
            )
            changelog[task] = tuple(sorted(TopicPartition(t, p) for t in sub.changelog_topics))
            if sub.stateful:
                stateful.add(task)
        by_sub[sub.id] = tasks
        all_tasks.extend(tasks)
    return TaskSet(tuple(sorted(all_tasks)), frozenset(stateful), source, changelog, by_sub)


@dataclass(frozen=True)
class AssignmentConfig:
    """Kafka Streams' assignment configs, with Kafka's defaults and validators."""

    num_standby_replicas: int = 0
    acceptable_recovery_lag: int = 10_000
    max_warmup_replicas: int = 2
    probing_rebalance_interval_ms: int = 600_000
    rack_aware_assignment_strategy: str = "none"
    rack_aware_assignment_traffic_cost: int | None = None
    rack_aware_assignment_non_overlap_cost: int | None = None
    rack_aware_assignment_tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.num_standby_replicas < 0:
            raise AssignorError("num_standby_replicas must be >= 0")
        if self.acceptable_recovery_lag < 0:
            raise AssignorError("acceptable_recovery_lag must be >= 0")
        if self.max_warmup_replicas < 1:
            raise AssignorError("max_warmup_replicas must be >= 1")
        if self.probing_rebalance_interval_ms < 60_000:
            raise AssignorError("probing_rebalance_interval_ms must be >= 60000")
        if self.rack_aware_assignment_strategy not in STRATEGIES:
            raise AssignorError(f"rack_aware_assignment_strategy must be one of {STRATEGIES}")
        for cost in (
            self.rack_aware_assignment_traffic_cost,
            self.rack_aware_assignment_non_overlap_cost,
        ):
            if cost is not None and cost < 0:
                raise AssignorError("rack-aware costs must be >= 0")
        if len(self.rack_aware_assignment_tags) > 5:
            raise AssignorError("at most 5 rack_aware_assignment_tags")

    @property
    def traffic_cost(self) -> int:
        t = self.rack_aware_assignment_traffic_cost
        return HA_TRAFFIC_COST if t is None else t

    @property
    def non_overlap_cost(self) -> int:
        n = self.rack_aware_assignment_non_overlap_cost
        return HA_NON_OVERLAP_COST if n is None else n

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> AssignmentConfig:
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise AssignorError(f"unknown streams config keys {unknown}; known: {sorted(known)}")
        kwargs: dict[str, Any] = dict(doc)
        try:
            if "rack_aware_assignment_tags" in kwargs:
                kwargs["rack_aware_assignment_tags"] = tuple(
                    str(t) for t in kwargs["rack_aware_assignment_tags"]
                )
            for key in (
                "num_standby_replicas",
                "acceptable_recovery_lag",
                "max_warmup_replicas",
                "probing_rebalance_interval_ms",
            ):
                if key in kwargs:
                    kwargs[key] = int(kwargs[key])
            for key in (
                "rack_aware_assignment_traffic_cost",
                "rack_aware_assignment_non_overlap_cost",
            ):
                if kwargs.get(key) is not None:
                    kwargs[key] = int(kwargs[key])
        except (TypeError, ValueError) as exc:
            raise AssignorError(f"bad streams config: {exc}") from None
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "num_standby_replicas": self.num_standby_replicas,
            "acceptable_recovery_lag": self.acceptable_recovery_lag,
            "max_warmup_replicas": self.max_warmup_replicas,
            "probing_rebalance_interval_ms": self.probing_rebalance_interval_ms,
            "rack_aware_assignment_strategy": self.rack_aware_assignment_strategy,
            "rack_aware_assignment_traffic_cost": self.rack_aware_assignment_traffic_cost,
            "rack_aware_assignment_non_overlap_cost": self.rack_aware_assignment_non_overlap_cost,
            "rack_aware_assignment_tags": list(self.rack_aware_assignment_tags),
        }


@dataclass(frozen=True)
class ClientInput:
    """One Streams process: its threads (capacity), rack, tags and per-task lags."""

    process_id: str
    threads: int
    rack: str | None = None
    lags: Mapping[TaskId, int] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    prev_active: frozenset[TaskId] = frozenset()
    prev_standby: frozenset[TaskId] = frozenset()

    def __post_init__(self) -> None:
        if self.threads < 1:
            # Kafka builds clients from their consumers, so a process with no thread never
            # reaches the assignor; its load would be x/0.
            raise AssignorError(f"client {self.process_id!r} has {self.threads} threads; need >= 1")


def end_offset_sum(offsets: Sequence[int]) -> int:
    """Sum of a task's changelog end offsets; overflow pins to Long.MAX_VALUE like Kafka."""
    total = 0
    for offset in offsets:
        if offset < 0:
            raise AssignorError(f"end offset {offset} is negative")
        total += offset
        if total > LONG_MAX:
            return LONG_MAX
    return total


def compute_lags(
    offset_sums: Mapping[TaskId, int], end_offset_sums: Mapping[TaskId, int]
) -> dict[TaskId, int]:
    """``ClientState.computeTaskLags``: one lag per stateful task (the keys of end_offset_sums).

    * -2 (running active) and -3 (unknown, pre-KIP-441 standby) pass through;
    * a task the client did not report has offset sum 0, so its lag is the end offset sum;
    * a reported sum above the end is corrupt state: lag = the end offset sum;
    * reported sums for tasks not in the topology are ignored, as Kafka ignores them;
    * -4 (OFFSET_UNKNOWN) is dropped as the client's TaskManager drops it before sending;
      any other negative sum cannot come from a Kafka client and is an error.
    """
    lags: dict[TaskId, int] = {}
    for task in sorted(end_offset_sums):
        end = end_offset_sums[task]
        if end < 0:
            raise AssignorError(f"end offset sum {end} of task {task} is negative")
        offset = offset_sums.get(task, 0)
        if offset == OFFSET_UNKNOWN:
            offset = 0
        if offset in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
            lags[task] = offset
        elif offset < 0:
            raise AssignorError(
                f"task {task} reports offset sum {offset}; only -2, -3, -4 are sentinels"
            )
        else:
            lags[task] = end if end < offset else end - offset
    return lags
