"""Plan figures every assignor reports (docs/architecture.md § The plan ``summary``), and plan member lists.

Shared by the consumer and the streams assignors. The figures describe the assignment the
plan converges to: a withheld partition counts for its target member, so assignors that
hand over in two cooperative rounds are compared on where they end up.

``traffic_cost`` is the summed weight (1 by default) of partitions read across racks
(KIP-925: no replica in the member's rack; unknown racks never count).

Example: c1 in az1 gets orders-0 (replicas az1, az2) and orders-1 (replica az2 only)::

    summarize(view, {"c1": [tp0, tp1]}, {"c1": "az1"})
    # PlanSummary(partitions=2, cross_rack_partitions=1, traffic_cost=1.0, max_load=2, ...)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assignor.cluster import ClusterView, TopicPartition
from protocol.plan import MemberPlan, PartitionPlan, PlanSummary


def traffic_cost(
    cluster: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
) -> tuple[int, float]:
    """(cross-rack partitions, summed weight of them)."""
    count = 0
    cost = 0.0
    for member, tps in assignment.items():
        rack = racks.get(member)
        if not rack:
            continue
        for tp in tps:
            if cluster.is_cross_rack(tp.topic, tp.partition, rack):
                count += 1
                cost += cluster.weight(tp)
    return count, cost


def moved_partitions(
    assignment: Mapping[str, Iterable[TopicPartition]],
    previous_owner: Mapping[TopicPartition, str],
) -> int:
    """Partitions that had a previous owner and now belong to someone else."""
    return sum(
        1
        for member, tps in assignment.items()
        for tp in tps
        if (prev := previous_owner.get(tp)) is not None and prev != member
    )


def summarize(
    cluster: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
    *,
    previous_owner: Mapping[TopicPartition, str] | None = None,
    lower_bound: float | None = None,
    standby_rack_diversity: float | None = None,
) -> PlanSummary:
    lists = {m: list(tps) for m, tps in assignment.items()}
    loads = [len(tps) for tps in lists.values()]
    cross, cost = traffic_cost(cluster, lists, racks)
    return PlanSummary(
        partitions=sum(loads),
        cross_rack_partitions=cross,
        traffic_cost=round(cost, 9),
        lower_bound=None if lower_bound is None else round(lower_bound, 9),
        max_load=max(loads, default=0),
        min_load=min(loads, default=0),
        moved_partitions=moved_partitions(lists, previous_owner or {}),
        standby_rack_diversity=standby_rack_diversity,
    )


def partition_plan(cluster: ClusterView, tp: TopicPartition, rack: str | None) -> PartitionPlan:
    return PartitionPlan(
        topic=tp.topic,
        partition=tp.partition,
        replica_racks=list(cluster.racks(tp.topic, tp.partition)),
        cross_rack=cluster.is_cross_rack(tp.topic, tp.partition, rack),
        weight=cluster.weight(tp),
    )


def member_plans(
    cluster: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
) -> list[MemberPlan]:
    """One MemberPlan per member, sorted by id, partitions sorted by (topic, partition)."""
    return [
        MemberPlan(
            member_id=member,
            rack=racks.get(member),
            partitions=[
                partition_plan(cluster, tp, racks.get(member)) for tp in sorted(assignment[member])
            ],
        )
        for member in sorted(assignment)
    ]
