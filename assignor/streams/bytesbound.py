"""The least cross-rack bytes/s a Streams plan's active tasks could read, under its balance.

A plan's ``summary.lower_bound_bytes_per_s`` for Streams groups (docs/traffic.md, "Best
figures"): over every placement of the active tasks that gives each client exactly as many
active tasks as the plan does, the least sum of cross-rack bytes/s of their source
partitions, each member costed by the one rule of assignor.cost (a replica in its rack with
follower fetching, the leader's rack without; a rack-unknown client at the expected share
(R-1)/R). Standby and warm-up tasks read changelogs, which are not counted (as in the plan's
own figures).

Exact: it is a transportation problem, solved as a min-cost flow (task classes -> the places
clients read from -> clients, capacity = the client's active count). The flow's integer
costs are each task's bytes/s scaled so the busiest (task, place) is 10**6 and rounded; the
figure returned is the unrounded bytes/s of the placement found, which is the true minimum
to within that rounding (at most tasks x 10**-6 of the busiest task's bytes/s).

It is a bound, not necessarily a plan Kafka Streams' HA assignor would make: with
``balance_subtopology`` the assignor also caps each subtopology's tasks per client, and
while warm-ups run actives stay on caught-up clients; both can only cost more.

Example: two single-threaded clients in az1 and az2, tasks 0_0 (orders-0, replica az1 only,
9,000 B/s) and 0_1 (orders-1, replica az1 only, 1,000 B/s): one task must be read across
racks, at best the lighter one -> 1000.0.
"""

from __future__ import annotations

from collections.abc import Mapping

from assignor.cluster import ClusterView
from assignor.cost import Place, partition_fractions
from assignor.optimal.flow import FlowNetwork
from assignor.streams.model import TaskSet
from protocol.streams import TaskId

SCALE = 1e6


def task_costs(view: ClusterView, tasks: TaskSet,
               places: list[Place]) -> dict[TaskId, tuple[float, ...]] | None:
    """Per task, its cross-rack bytes/s from each place (None: nothing is measured)."""
    out: dict[TaskId, tuple[float, ...]] = {}
    measured = False
    for task in tasks.all:
        costs = [0.0] * len(places)
        for tp in tasks.source.get(task, ()):
            if tp.partition >= view.partition_count(tp.topic):
                continue
            rate = view.traffic(tp)
            if rate is None:
                continue
            measured = True
            for i, place in enumerate(places):
                costs[i] += rate * partition_fractions(view, tp, place)[0]
        out[task] = tuple(costs)
    return out if measured else None


def active_bytes_bound(view: ClusterView, tasks: TaskSet, counts: Mapping[str, int],
                       places: Mapping[str, Place]) -> float | None:
    """The least cross-rack bytes/s of active tasks with ``counts[client]`` tasks on each
    client (see the module doc); None when no source partition's traffic is measured."""
    where = sorted(set(places[c] for c in counts), key=_place_key)
    costs = task_costs(view, tasks, where)
    if costs is None:
        return None
    if sum(counts.values()) != len(tasks.all):
        raise ValueError(f"{sum(counts.values())} active slots for {len(tasks.all)} tasks")
    top = max((c for v in costs.values() for c in v), default=0.0)
    if top <= 0:
        return 0.0
    classes: dict[tuple[float, ...], int] = {}
    for task in tasks.all:
        classes[costs[task]] = classes.get(costs[task], 0) + 1
    net = FlowNetwork()
    sink = net.add_node()
    place_node = {p: net.add_node() for p in where}
    for client in sorted(counts):
        if counts[client] > 0:
            node = net.add_node()
            net.add_arc(place_node[places[client]], node, counts[client], 0)
            net.add_arc(node, sink, counts[client], 0)
    arcs: list[tuple[int, float]] = []
    for key in sorted(classes):
        node = net.add_node()
        net.set_supply(node, classes[key])
        for i, p in enumerate(where):
            arcs.append((net.add_arc(node, place_node[p], classes[key],
                                     round(key[i] * SCALE / top)), key[i]))
    net.set_supply(sink, -len(tasks.all))
    solution = net.solve()
    return round(sum(solution.flow(arc) * cost for arc, cost in arcs), 3)


def _place_key(place: Place) -> tuple[str, bool, str]:
    return (place.location or "", place.reads_followers, place.source or "")
