"""What an audit reports for one group, and what decoding and measuring share.

:class:`GroupAudit` is one row of ``rackwise audit`` (its ``status`` says whether the group
could be measured); :class:`Decoded` is one member with its bytes decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from protocol.consumer import Assignment, Subscription
from protocol.plan import AssignmentPlan
from protocol.streams import SubscriptionInfo
from protocol.streams_assignment import AssignmentInfo

STREAMS_PROTOCOL = "stream"  # the assignor name Kafka Streams registers in JoinGroup

# status values (``--json`` key ``status``)
OK = "ok"
EMPTY = "empty"
REBALANCING = "rebalancing"
UNSUPPORTED = "unsupported"
UNDECODABLE = "undecodable"
ERROR = "error"


@dataclass(frozen=True)
class GroupAudit:
    """What the audit found for one group."""

    group: str
    status: str
    kind: str | None = None
    group_type: str = "classic"
    state: str = ""
    protocol_type: str = ""
    protocol: str = ""
    members: int = 0
    partitions: int = 0
    cross_rack_actual: int | None = None
    cross_rack_best: int | None = None
    error: str | None = None
    undecodable_members: tuple[str, ...] = ()
    actual: AssignmentPlan | None = field(default=None, compare=False)
    best: AssignmentPlan | None = field(default=None, compare=False)

    @property
    def saving_pct(self) -> float | None:
        if self.cross_rack_actual is None or self.cross_rack_best is None:
            return None
        if self.cross_rack_actual == 0:
            return 0.0
        saved = self.cross_rack_actual - self.cross_rack_best
        return round(100.0 * saved / self.cross_rack_actual, 1)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` row: the docs/architecture.md § Command line keys first, then what explains them."""
        return {
            "group": self.group,
            "members": self.members,
            "partitions": self.partitions,
            "cross_rack_actual": self.cross_rack_actual,
            "cross_rack_best": self.cross_rack_best,
            "saving_pct": self.saving_pct,
            "kind": self.kind,
            "status": self.status,
            "state": self.state,
            "group_type": self.group_type,
            "protocol_type": self.protocol_type,
            "protocol": self.protocol,
            "error": self.error,
            "undecodable_members": list(self.undecodable_members),
        }


# replica placement of some topics (agent.clusterinfo.describe, or a fake in tests)
Describe = Callable[[Iterable[str]], ClusterView]


@dataclass(frozen=True)
class Decoded:
    """One member's subscription and assignment, with Streams' user data when it has them."""

    member_id: str
    sub: Subscription
    asg: Assignment
    sub_info: SubscriptionInfo | None = None
    asg_info: AssignmentInfo | None = None

    @property
    def assigned(self) -> list[TopicPartition]:
        return sorted(
            TopicPartition(e.topic, p) for e in self.asg.assigned_partitions for p in e.partitions
        )


def check_known(view: ClusterView, parts: Iterable[TopicPartition]) -> None:
    """Refuse an assignment naming partitions the cluster metadata does not have."""
    missing = sorted({tp for tp in parts if tp.partition >= view.partition_count(tp.topic)})
    if missing:
        raise AssignorError(
            "assigned partitions missing from the cluster metadata: "
            + ", ".join(map(str, missing[:5]))
        )
