"""The seam's typed inputs: what a caller builds to ask assignor.api for a plan.

A consumer group is its members over the cluster's replica placement; a Kafka Streams
application is its clients, topology and config over the same placement; a Round is what the
caller knows about this planning round. The value types they are built from (ClusterView,
TopicPartition, Member, Topology, AssignmentConfig, ...) are re-exported here, so a caller
outside assignor imports from this module, assignor.api and assignor.errors only (a contract
in pyproject.toml checks it).

Example::

    view = ClusterView(brokers={1: "az1"}, topics={"orders": ((1,),)})
    group = ConsumerGroup("g1", (Member.of("c1", rack="az1", topics=["orders"]),), view)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from assignor.cluster import ClusterView, TopicPartition
from assignor.model import Member
from assignor.streams.model import AssignmentConfig, Subtopology, Topology, build_tasks
from protocol.plan import AssignmentPlan
from protocol.streams import TaskId

__all__ = [
    "DEFAULT_CONSUMER_ASSIGNOR",
    "PROTOCOLS",
    "STREAMS_ASSIGNOR",
    "AssignmentConfig",
    "ClusterView",
    "ConsumerGroup",
    "Member",
    "Protocol",
    "Round",
    "StreamsApp",
    "StreamsClient",
    "Subtopology",
    "TaskId",
    "TopicPartition",
    "Topology",
    "build_tasks",
]

Protocol = Literal["cooperative", "eager", "consumer"]
PROTOCOLS: tuple[str, ...] = ("cooperative", "eager", "consumer")
"""How the members hand partitions over: ``cooperative`` (classic KIP-429 and PlanFollower:
revoke before reassign, so the plan withholds), ``eager`` (everything is revoked first) and
``consumer`` (KIP-848: the broker reconciles towards the target itself)."""

DEFAULT_CONSUMER_ASSIGNOR = "rack-optimal"
STREAMS_ASSIGNOR = "high-availability"


@dataclass(frozen=True)
class ConsumerGroup:
    """A consumer group to plan: members (rack, topics, owned partitions, generation) over the
    cluster's replica placement (and partition weights)."""

    group_id: str
    members: tuple[Member, ...]
    cluster: ClusterView
    assignor: str = DEFAULT_CONSUMER_ASSIGNOR
    protocol: Protocol = "cooperative"
    config: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamsClient:
    """One Kafka Streams process as its SubscriptionInfo (or KIP-924 state) describes it.

    Lags come either as ``task_offset_sums`` (what a member reports; turned into lags against
    the changelogs' end offsets) or as ``task_lags`` (already computed, e.g. by Kafka Streams).
    ``prev_active``/``prev_standby`` None means: take them from the previous plan.
    """

    process_id: str
    rack: str | None = None
    threads: int = 1
    client_tags: Mapping[str, str] = field(default_factory=dict)
    task_offset_sums: Mapping[TaskId, int] | None = None
    task_lags: Mapping[TaskId, int] | None = None
    prev_active: frozenset[TaskId] | None = None
    prev_standby: frozenset[TaskId] | None = None


@dataclass(frozen=True)
class StreamsApp:
    """A Kafka Streams application to plan with the high-availability assignor."""

    group_id: str
    clients: tuple[StreamsClient, ...]
    topology: Topology
    cluster: ClusterView
    config: AssignmentConfig = field(default_factory=AssignmentConfig)
    end_offsets: Mapping[TopicPartition, int] = field(default_factory=dict)
    assignor: str = STREAMS_ASSIGNOR


@dataclass(frozen=True)
class Round:
    """What the caller knows about this planning round (all optional)."""

    previous: AssignmentPlan | None = None
    triggers: tuple[str, ...] = ()
    generation: int | None = None
    generation_floor: int = -1
    created_at: datetime | None = None
