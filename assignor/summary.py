"""Plan figures every assignor reports (docs/architecture.md § The plan ``summary``), and plan member lists.

Shared by the consumer and the streams assignors. The figures describe the assignment the
plan converges to: a withheld partition counts for its target member, so assignors that
hand over in two cooperative rounds are compared on where they end up.

``traffic_cost`` is the summed weight (1 by default) of partitions read across racks
(assignor.cost: KIP-925 with follower fetching, the leader's rack without; unknown racks
never count; a member without a rack counts at its expected share, never as free). When the
cluster view carries measured bytes/s, plans also carry bytes per partition and the group's
cross-rack bytes/s.

Example: c1 in az1 gets orders-0 (replicas az1, az2) and orders-1 (replica az2 only)::

    summarize(view, {"c1": [tp0, tp1]}, {"c1": "az1"})
    # PlanSummary(partitions=2, cross_rack_partitions=1, traffic_cost=1.0, max_load=2, ...)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, group_cost, partition_fractions, place_of, source_rack
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary


def places(
    cluster: ClusterView,
    members: Iterable[str],
    racks: Mapping[str, str | None],
    locations: Mapping[str, str | None] | None = None,
) -> dict[str, Place]:
    return {m: place_of(cluster, racks.get(m), (locations or {}).get(m)) for m in members}


def traffic_cost(
    cluster: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
    locations: Mapping[str, str | None] | None = None,
) -> tuple[int, float]:
    """(known cross-rack partitions, summed weight x expected cross-rack share)."""
    lists = {m: list(tps) for m, tps in assignment.items()}
    cost = group_cost(cluster, lists, places(cluster, lists, racks, locations))
    return cost.cross_rack_partitions, cost.traffic_cost


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
    locations: Mapping[str, str | None] | None = None,
) -> PlanSummary:
    lists = {m: list(tps) for m, tps in assignment.items()}
    loads = [len(tps) for tps in lists.values()]
    cost = group_cost(cluster, lists, places(cluster, lists, racks, locations))
    measured = cost.bytes_per_s is not None
    return PlanSummary(
        partitions=sum(loads),
        cross_rack_partitions=cost.cross_rack_partitions,
        traffic_cost=cost.traffic_cost,
        lower_bound=None if lower_bound is None else round(lower_bound, 9),
        max_load=max(loads, default=0),
        min_load=min(loads, default=0),
        moved_partitions=moved_partitions(lists, previous_owner or {}),
        standby_rack_diversity=standby_rack_diversity,
        bytes_per_s=cost.bytes_per_s,
        cross_rack_bytes_per_s=cost.cross_rack_bytes_per_s,
        cross_rack_bytes_per_s_worst=cost.cross_rack_bytes_per_s_worst,
        rack_unknown_members=cost.rack_unknown_members if measured else None,
        follower_fetching=cluster.follower_fetching if measured else None,
    )


def partition_plan(cluster: ClusterView, tp: TopicPartition, rack: str | None,
                   place: Place | None = None) -> PartitionPlan:
    """A partition as a member reads it; bytes figures only when the view measured them."""
    place = place or place_of(cluster, rack)
    expected, _ = partition_fractions(cluster, tp, place)
    rate = cluster.traffic(tp)
    return PartitionPlan(
        topic=tp.topic,
        partition=tp.partition,
        replica_racks=list(cluster.racks(tp.topic, tp.partition)),
        cross_rack=place.location is not None and expected == 1.0,
        weight=cluster.weight(tp),
        bytes_per_s=rate,
        source_rack=source_rack(cluster, tp, place) if rate is not None else None,
        cross_rack_bytes_per_s=None if rate is None else round(rate * expected, 3),
    )


def member_plans(
    cluster: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
    locations: Mapping[str, str | None] | None = None,
) -> list[MemberPlan]:
    """One MemberPlan per member, sorted by id, partitions sorted by (topic, partition)."""
    where = places(cluster, assignment, racks, locations)
    return [
        MemberPlan(
            member_id=member,
            rack=racks.get(member),
            partitions=[
                partition_plan(cluster, tp, racks.get(member), where[member])
                for tp in sorted(assignment[member])
            ],
        )
        for member in sorted(assignment)
    ]


def annotate(
    plan: AssignmentPlan,
    cluster: ClusterView,
    locations: Mapping[str, str | None] | None = None,
    lower_bound_bytes: float | None = None,
) -> AssignmentPlan:
    """``plan`` with every figure of the cost model (assignor.cost) filled in.

    For any plan, whoever made it (a consumer assignor, the Streams assignor, the audit's
    reading of a live group): each member's location and where it reads from, each
    partition's cross_rack, bytes/s and source rack, and the summary's cross-rack count and
    bytes. ``traffic_cost`` and ``lower_bound`` stay the assignor's own. ``locations``:
    member id -> rack from the audit's host map, for members without client.rack.
    ``lower_bound_bytes``: assignor.optimal.lower_bound_bytes of the group, when known.
    """
    where: dict[str, Place] = {}
    assignment: dict[str, list[TopicPartition]] = {}
    members = []
    for m in plan.members:
        place = place_of(cluster, m.rack, (locations or {}).get(m.member_id))
        where[m.member_id] = place
        tps = [TopicPartition(p.topic, p.partition) for p in m.partitions]
        assignment[m.member_id] = tps
        members.append(m.model_copy(update={
            "partitions": [partition_plan(cluster, tp, m.rack, place) for tp in tps],
            "location": place.location,
            "rack_source": place.source or "unknown",
            "reads_from": "nearest-replica" if place.reads_followers else "leader",
        }))
    cost = group_cost(cluster, assignment, where)
    summary = plan.summary.model_copy(update={
        "cross_rack_partitions": cost.cross_rack_partitions,
        "bytes_per_s": cost.bytes_per_s,
        "cross_rack_bytes_per_s": cost.cross_rack_bytes_per_s,
        "cross_rack_bytes_per_s_worst": cost.cross_rack_bytes_per_s_worst,
        "lower_bound_bytes_per_s": lower_bound_bytes,
        "rack_unknown_members": cost.rack_unknown_members,
        "follower_fetching": cluster.follower_fetching,
    })
    return plan.model_copy(update={"members": members, "summary": summary})
