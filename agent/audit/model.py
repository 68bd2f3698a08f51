"""What an audit reports for one group, and what decoding and measuring share.

:class:`GroupAudit` is one row of ``rackwise audit`` (its ``status`` says whether the group
could be measured); :class:`Decoded` is one member with its bytes decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.config.cost import HostRacks
from assignor.errors import AssignorError
from assignor.inputs import ClusterView, TopicPartition
from protocol.consumer import Assignment, Subscription
from protocol.plan import AssignmentPlan
from protocol.pricing import Price
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
# measured, but some members set no client.rack and no host map places them: the figures
# for them are expected values (hosts spread evenly over the racks), with a worst case
RACK_UNKNOWN = "rack-unknown"
MEASURED = (OK, RACK_UNKNOWN)
STATUSES = (OK, RACK_UNKNOWN, EMPTY, REBALANCING, UNSUPPORTED, UNDECODABLE, ERROR)


@dataclass(frozen=True)
class AuditOptions:
    """What the audit needs besides the groups: the price and the hosts' racks."""

    price: Price = field(default_factory=Price)
    hosts: HostRacks = field(default_factory=HostRacks)


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
    # what crosses racks in bytes and money (docs/traffic.md); None when traffic was not measured
    read_model: str | None = None  # "nearest-replica" (follower fetching) | "leader"
    rack_unknown_members: tuple[str, ...] = ()
    rack_unknown_partitions: int = 0
    host_mapped_members: tuple[str, ...] = ()
    advice: str | None = None
    price: Price = field(default_factory=Price, compare=False)

    @property
    def measured(self) -> bool:
        return self.status in MEASURED

    def _figure(self, plan: AssignmentPlan | None, name: str) -> float | None:
        return None if plan is None else getattr(plan.summary, name)

    @property
    def bytes_per_s(self) -> float | None:
        return self._figure(self.actual, "bytes_per_s")

    @property
    def cross_rack_bytes_actual(self) -> float | None:
        return self._figure(self.actual, "cross_rack_bytes_per_s")

    @property
    def cross_rack_bytes_worst(self) -> float | None:
        return self._figure(self.actual, "cross_rack_bytes_per_s_worst")

    @property
    def cross_rack_bytes_best(self) -> float | None:
        return self._figure(self.best, "cross_rack_bytes_per_s")

    @property
    def saving_pct(self) -> float | None:
        """How much less the best plan reads across racks: in bytes when measured, else in
        (expected) cross-rack partitions."""
        if self.actual is None or self.best is None:
            if self.cross_rack_actual is None or self.cross_rack_best is None:
                return None
            actual, best = float(self.cross_rack_actual), float(self.cross_rack_best)
        elif self.cross_rack_bytes_actual is not None and self.cross_rack_bytes_best is not None:
            actual, best = self.cross_rack_bytes_actual, self.cross_rack_bytes_best
        else:
            actual, best = self.actual.summary.traffic_cost, self.best.summary.traffic_cost
        if actual <= 0:
            return 0.0
        return round(100.0 * max(0.0, actual - best) / actual, 1)

    def money(self) -> dict[str, float | None]:
        """$ per month: actual, best, worst (None when traffic was not measured)."""
        return {
            "actual": self.price.per_month(self.cross_rack_bytes_actual),
            "best": self.price.per_month(self.cross_rack_bytes_best),
            "worst": self.price.per_month(self.cross_rack_bytes_worst),
        }

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` row: the docs/architecture.md § Command line keys first, then what explains them."""
        money = self.money()
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
            "read_model": self.read_model,
            "bytes_per_s": self.bytes_per_s,
            "cross_rack_bytes_per_s_actual": self.cross_rack_bytes_actual,
            "cross_rack_bytes_per_s_best": self.cross_rack_bytes_best,
            "cross_rack_bytes_per_s_worst": self.cross_rack_bytes_worst,
            "usd_per_month_actual": money["actual"],
            "usd_per_month_best": money["best"],
            "usd_per_month_worst": money["worst"],
            "price_per_gb": self.price.per_gb,
            "billed_directions": self.price.directions,
            "rack_unknown_members": list(self.rack_unknown_members),
            "rack_unknown_partitions": self.rack_unknown_partitions,
            "host_mapped_members": list(self.host_mapped_members),
            "advice": self.advice,
        }


# replica placement of some topics (agent.brokers.placement.describe, or a fake in tests)
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
