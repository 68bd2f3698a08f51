"""Small group fixtures for unit tests: a member's subscription bytes and a hand-made plan."""

from __future__ import annotations

from assignor.cluster import TopicPartition
from protocol.consumer import encode_subscription, java_subscription
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary, WithheldPartition


def sub(
    topics: list[str],
    owned: list[tuple[str, int]] = (),
    gen: int = -1,  # type: ignore[assignment]
    rack: str | None = "az1",
) -> bytes:
    return encode_subscription(java_subscription(topics, owned, generation_id=gen, rack_id=rack), 3)


def small_plan(
    members: list[tuple[str, list[int]]], withheld: list[tuple[str, int, str, str]] = ()
) -> AssignmentPlan:  # type: ignore[assignment]
    return AssignmentPlan(
        group_id="g",
        generation=3,
        reason="member-joined",
        assignor="x",
        members=[
            MemberPlan(
                member_id=m,
                rack=None,
                partitions=[PartitionPlan(topic="a", partition=p, cross_rack=False) for p in ps],
            )
            for m, ps in members
        ],
        withheld=[
            WithheldPartition(topic=t, partition=p, owner=o, target=g) for t, p, o, g in withheld
        ],
        summary=PlanSummary(
            partitions=0, cross_rack_partitions=0, traffic_cost=0, max_load=0, min_load=0
        ),
    )


def owned_lists(owned: dict[str, frozenset[tuple[str, int]]]) -> dict[str, list[TopicPartition]]:
    return {m: [TopicPartition(t, p) for t, p in sorted(s)] for m, s in owned.items()}
