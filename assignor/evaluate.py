"""Figures of an assignment someone else made, on the cost model every rackwise figure uses.

The audit prices what live groups run, the doctor what turning on follower fetching would
save, and the agent's traffic prober what a re-plan would save; all of them reach these
through assignor.api, never the cost model's modules themselves.

Example: two members in az1 and az2 reading t-0 (replica az2) and t-1 (replica az1) the wrong
way round -> ``read_cost(view, {"c1": [t0], "c2": [t1]}, {"c1": "az1", "c2": "az2"})``
has ``cross_rack_partitions == 2``; ``lower_bound(group).weight == 0``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import GroupCost, group_cost, place_of
from assignor.inputs import ConsumerGroup, StreamsApp
from assignor.model import Group
from assignor.optimal import lower_bound as optimal_lower_bound
from assignor.optimal import lower_bound_bytes
from assignor.streams.bytesbound import active_bytes_bound
from assignor.summary import annotate, member_plans, places, summarize
from protocol.plan import AssignmentPlan, PlanReason


@dataclass(frozen=True)
class Bound:
    """The least a group can read across racks under its balance: in weighted partitions
    (the assignors' ``traffic_cost`` unit) and, when traffic is measured, in bytes/s."""

    weight: float
    bytes_per_s: float | None


def read_cost(
    view: ClusterView,
    assignment: Mapping[str, Iterable[TopicPartition]],
    racks: Mapping[str, str | None],
    locations: Mapping[str, str | None] | None = None,
) -> GroupCost:
    """Every figure of ``assignment``: each member placed by its rack, else its host's rack
    from ``locations``, else unknown."""
    lists = {m: list(tps) for m, tps in assignment.items()}
    return group_cost(view, lists, places(view, lists, racks, locations))


def _model(group: ConsumerGroup) -> Group:
    return Group(group.group_id, group.members, group.cluster, config=group.config)


def lower_bound(group: ConsumerGroup) -> Bound:
    """The rack-optimal flow's bound for ``group``'s members and subscriptions."""
    model = _model(group)
    return Bound(optimal_lower_bound(model), lower_bound_bytes(model))


def evaluate(
    group: ConsumerGroup,
    assignment: Mapping[str, Iterable[TopicPartition]],
    *,
    reason: PlanReason,
    assignor: str,
    config: Mapping[str, object],
    previous_owner: Mapping[TopicPartition, str] | None = None,
    bound: Bound | None = None,
) -> AssignmentPlan:
    """``assignment`` as a plan (generation 0) with every figure filled in: what a group
    runs (``observed``) or what someone recommends for it."""
    view = group.cluster
    lists = {m: list(tps) for m, tps in assignment.items()}
    racks = {m.member_id: m.rack for m in group.members}
    locations = {m.member_id: m.location for m in group.members if m.location}
    made = AssignmentPlan(
        group_id=group.group_id,
        kind="consumer",
        generation=0,
        reason=reason,
        assignor=assignor,
        config=dict(config),
        members=member_plans(view, lists, racks, locations),
        summary=summarize(view, lists, racks, previous_owner=previous_owner,
                          lower_bound=None if bound is None else bound.weight,
                          locations=locations),
    )
    return annotate(made, view, locations, None if bound is None else bound.bytes_per_s)


def streams_bytes_bound(
    app: StreamsApp, loads: Mapping[str, int], locations: Mapping[str, str | None]
) -> float | None:
    """The least cross-rack bytes/s ``app``'s active tasks could read with ``loads`` active
    tasks per process, each process placed as the cost model places it."""
    view = app.cluster
    from assignor.streams.model import build_tasks

    tasks = build_tasks(app.topology, view)
    where = {c.process_id: place_of(view, c.rack, locations.get(c.process_id))
             for c in app.clients}
    return active_bytes_bound(view, tasks, loads, where)
