"""Known plans for the spark tests, and the figures they must produce, computed independently
in plain Python from the plan objects (not by the code under test)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from confluent_kafka import Producer

from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
RACKS = ("az1", "az2", "az3")


Members = dict[str, tuple[str | None, list[tuple[int, list[str], float]]]]


def plan(group: str, generation: int, members: Members,
         *, minute: float, moved: int = 0, lower_bound: float | None = 0.0,
         reason: str = "initial") -> AssignmentPlan:
    """members: member id -> (rack, [(partition, replica racks, weight)]) on topic 'orders'."""
    member_plans = []
    loads = []
    cross = 0
    cost = 0.0
    for member_id, (rack, parts) in sorted(members.items()):
        pp = []
        for number, racks, weight in parts:
            is_cross = rack is not None and bool(racks) and rack not in racks
            cross += is_cross
            cost += weight if is_cross else 0.0
            pp.append(PartitionPlan(topic="orders", partition=number, replica_racks=sorted(racks),
                                    cross_rack=is_cross, weight=weight))
        loads.append(len(pp))
        member_plans.append(MemberPlan(member_id=member_id, rack=rack, partitions=pp))
    return AssignmentPlan(
        group_id=group, generation=generation, reason=reason, assignor="range",
        created_at=T0 + timedelta(minutes=minute), members=member_plans,
        summary=PlanSummary(partitions=sum(loads), cross_rack_partitions=cross, traffic_cost=cost,
                            lower_bound=lower_bound, max_load=max(loads), min_load=min(loads),
                            moved_partitions=moved),
    )


def streams_plan(group: str, generation: int, *, minute: float) -> AssignmentPlan:
    """A Streams plan: two clients in az1 and az2, tasks 0_0..0_2 with one standby each on the
    other client, so every stateful task spans two racks (standby_rack_diversity 2.0)."""
    def part(n: int, racks: list[str], rack: str) -> PartitionPlan:
        return PartitionPlan(topic="src", partition=n, replica_racks=racks,
                             cross_rack=rack not in racks)

    members = [
        MemberPlan(member_id="p1", rack="az1", process_id="p1",
                   partitions=[part(0, ["az1", "az3"], "az1"), part(1, ["az2", "az3"], "az1")],
                   active_tasks=["0_0", "0_1"], standby_tasks=["0_2"]),
        MemberPlan(member_id="p2", rack="az2", process_id="p2",
                   partitions=[part(2, ["az2"], "az2")],
                   active_tasks=["0_2"], standby_tasks=["0_0", "0_1"]),
    ]
    return AssignmentPlan(
        group_id=group, kind="streams", generation=generation, reason="followup",
        assignor="high-availability", created_at=T0 + timedelta(minutes=minute),
        members=members, followup_ms=600000,
        summary=PlanSummary(partitions=3, cross_rack_partitions=1, traffic_cost=1.0,
                            lower_bound=1.0, max_load=2, min_load=1, moved_partitions=0,
                            standby_rack_diversity=2.0),
    )


def measured_plan(group: str, generation: int, *, minute: float) -> AssignmentPlan:
    """A plan with measured traffic, written out by hand: m1 (az1, client.rack) reads orders-0
    locally (1,000 B/s) and orders-1 from az2 (3,000 B/s); m2 has no rack and reads orders-2
    (900 B/s) from its leader in az1, 2/3 of it expected across racks (600 B/s)."""
    def part(n: int, racks: list[str], source: str, rate: float, cross_bytes: float,
             cross: bool) -> PartitionPlan:
        return PartitionPlan(topic="orders", partition=n, replica_racks=racks, cross_rack=cross,
                             bytes_per_s=rate, source_rack=source,
                             cross_rack_bytes_per_s=cross_bytes)

    members = [
        MemberPlan(member_id="m1", rack="az1", location="az1", rack_source="client.rack",
                   reads_from="nearest-replica",
                   partitions=[part(0, ["az1", "az2"], "az1", 1000.0, 0.0, False),
                               part(1, ["az2"], "az2", 3000.0, 3000.0, True)]),
        MemberPlan(member_id="m2", rack=None, rack_source="unknown", reads_from="leader",
                   partitions=[part(2, ["az1"], "az1", 900.0, 600.0, False)]),
    ]
    return AssignmentPlan(
        group_id=group, generation=generation, reason="observed", assignor="range",
        created_at=T0 + timedelta(minutes=minute), members=members,
        summary=PlanSummary(partitions=3, cross_rack_partitions=1, traffic_cost=1.667,
                            lower_bound=0.667, max_load=2, min_load=1, bytes_per_s=4900.0,
                            cross_rack_bytes_per_s=3600.0, cross_rack_bytes_per_s_worst=3900.0,
                            lower_bound_bytes_per_s=600.0, rack_unknown_members=1,
                            follower_fetching=True),
    )


def produce(bootstrap: str, topic: str, records: Iterable[tuple[str, bytes | str | None]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for key, value in records:
        # one partition keeps the test's order; the job must not depend on it anyway
        producer.produce(topic, key=key, value=value, partition=0)
    assert producer.flush(30) == 0


def expected_plan_row(p: AssignmentPlan) -> dict[str, object]:
    parts = [(m, x) for m in p.members for x in m.partitions]
    cross = [(m, x) for m, x in parts if x.cross_rack]
    total_w = sum(x.weight for _, x in parts)
    cross_w = sum(x.weight for _, x in cross)
    return {
        "group_id": p.group_id, "generation": p.generation, "partitions": len(parts),
        "cross_rack_partitions": len(cross),
        "cross_rack_ratio": len(cross) / len(parts) if parts else 0.0,
        "weight": total_w, "cross_rack_weight": cross_w,
        "traffic_cost": p.summary.traffic_cost, "lower_bound": p.summary.lower_bound,
        "load_spread": p.summary.max_load - p.summary.min_load,
        "moved_partitions": p.summary.moved_partitions, "members": len(p.members),
    }


def expected_pairs(p: AssignmentPlan) -> dict[tuple[str, str], tuple[int, float]]:
    """(source rack, member rack) -> (partitions, weight); source = the plan's source_rack,
    or for older plans the first sorted replica rack of a cross-rack partition."""
    out: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for m in p.members:
        for x in m.partitions:
            dest = m.location or m.rack or "unknown"
            src = x.source_rack or (sorted(x.replica_racks)[0] if x.cross_rack else dest)
            out[(src, dest)][0] += 1
            out[(src, dest)][1] += x.weight
    return {k: (int(v[0]), v[1]) for k, v in out.items()}
