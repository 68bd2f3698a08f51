"""KIP-925 rack-aware standby optimization, solved globally by min-cost flow.

Kafka (``optimizeStandbyTasks``) swaps standbys between pairs of clients in different racks
for at most 4 rounds, each pair solved by its own small flow; that is a local search. Here
the same objective (changelog traffic + non-overlap versus the balanced standby placement)
is minimized over *all* placements that keep each client's standby count, never put two
copies of a task on one client, never put a standby beside its active, and (tag-aware
mode) keep every copy inside its tag class. That set contains every placement Kafka's swaps
can reach without tags, so our cost is never higher.

The flow first runs on an aggregated graph (classes of interchangeable task copies ->
(rack, class) group -> client, docs/streams-assignor.md § 6); that is a relaxation, and when
its solution, dealt back to the tasks, can be split into distinct clients per task (greedy,
repaired by augmenting paths where it gets stuck) it is optimal for the exact problem. Only
when no split exists is the exact task x client graph solved.

Example: standby of 0_0 (changelog in az2) on x@az1 and of 0_1 (changelog in az1) on y@az2:
swapping them saves 2 x traffic_cost for 2 x non_overlap_cost.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assignor.optimal.lexflow import LexNetwork
from assignor.streams.rack import RackContext
from assignor.streams.standby import tag_class
from assignor.streams.state import ClientState
from protocol.streams import TaskId

Group = tuple[str, tuple[tuple[str, str], ...]]


@dataclass(eq=False)
class _UnitClass:
    """Standby units that every arc prices and caps alike (docs/streams-assignor.md § 6):
    one tag class, the same holders in it, the same capacity into each group, the same
    cost per rack. ``arcs``: (arc, holder or None, group or None) in creation order."""

    holders: tuple[str, ...]
    groups: tuple[tuple[Group, int], ...]
    tasks: list[TaskId] = field(default_factory=list)
    arcs: list[tuple[int, str | None, Group | None]] = field(default_factory=list)


def _class(client: ClientState, tag_aware: bool) -> tuple[tuple[str, str], ...]:
    return tag_class(client) if tag_aware else ()


def optimize_standby(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    ctx: RackContext,
    traffic: int,
    non_overlap: int,
    tag_aware: bool,
) -> int:
    """Re-place standbys at minimum cost; apply; return the step's cost: standby traffic
    plus ``non_overlap`` per copy on a client that did not hold it before the step."""
    holders: dict[TaskId, list[str]] = {}
    for pid in order:
        for task in sorted(clients[pid].standby):
            holders.setdefault(task, []).append(pid)
    if not holders:
        return 0
    start = {(task, pid) for task, pids in holders.items() for pid in pids}
    if tag_aware:
        # Kafka's own pairwise rounds first; the class-preserving global flow below can then
        # only lower the traffic further (staying put is always feasible at zero overlap cost).
        _pairwise(clients, order, ctx, traffic, non_overlap)
        holders = {}
        for pid in order:
            for task in sorted(clients[pid].standby):
                holders.setdefault(task, []).append(pid)
    active_of = {t: pid for pid in order for t in clients[pid].active}
    placement = _aggregated(
        clients, order, ctx, traffic, non_overlap, tag_aware, holders, active_of
    )
    if placement is None:
        placement = _exact(clients, order, ctx, traffic, non_overlap, tag_aware, holders, active_of)
    for pid in order:
        clients[pid].standby.clear()
    for task in sorted(placement):
        for pid in placement[task]:
            clients[pid].assign_standby(task)
    moved = sum(1 for task in placement for pid in placement[task] if (task, pid) not in start)
    return standby_traffic(clients, order, ctx, traffic) + non_overlap * moved


def _tag_count(clients: Mapping[str, ClientState], holders: list[str], extra: str) -> int:
    return len({kv for p in [*holders, extra] for kv in clients[p].tags.items()})


def _movable(
    clients: Mapping[str, ClientState], order: Sequence[str], src: str, dst: str
) -> list[TaskId]:
    """Kafka's 4-arg tag predicate: the move must not lower the task's distinct tag count."""
    out = []
    for task in sorted(clients[src].standby):
        if clients[dst].holds(task):
            continue
        others = [p for p in order if p not in (src, dst) and clients[p].holds(task)]
        if _tag_count(clients, others, dst) >= _tag_count(clients, others, src):
            out.append(task)
    return out


def _pairwise(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    ctx: RackContext,
    traffic: int,
    non_overlap: int,
) -> None:
    """Tag-aware mode only: Kafka's pairwise swap rounds (at most 4) under Kafka's predicate,
    each pair solved exactly (two clients, fixed counts: keep the cheapest on each side)."""
    for _ in range(4):
        moved = False
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                ca, cb = clients[a], clients[b]
                if ca.rack == cb.rack:
                    continue
                m1, m2 = _movable(clients, order, a, b), _movable(clients, order, b, a)
                if not m1 or not m2:
                    continue

                def cost(t: TaskId, c: ClientState) -> int:
                    return ctx.standby_cost(t, c.rack or "", traffic) + (
                        0 if t in c.standby else non_overlap
                    )

                pool = sorted(
                    m1 + m2, key=lambda t: (cost(t, ca) - cost(t, cb), t not in ca.standby, t)
                )
                to_a = set(pool[: len(m1)])
                for t in pool:
                    want, other = (ca, cb) if t in to_a else (cb, ca)
                    if t not in want.standby:
                        other.unassign_standby(t)
                        want.assign_standby(t)
                        moved = True
        if not moved:
            return


def standby_traffic(
    clients: Mapping[str, ClientState], order: Sequence[str], ctx: RackContext, traffic: int
) -> int:
    return sum(
        ctx.standby_cost(t, clients[p].rack or "", traffic)
        for p in order
        for t in clients[p].standby
    )


def _units(
    clients: Mapping[str, ClientState], holders: Mapping[TaskId, list[str]], tag_aware: bool
) -> dict[tuple[TaskId, tuple[tuple[str, str], ...]], list[str]]:
    units: dict[tuple[TaskId, tuple[tuple[str, str], ...]], list[str]] = {}
    for task in sorted(holders):
        for pid in holders[task]:
            units.setdefault((task, _class(clients[pid], tag_aware)), []).append(pid)
    return units


def _aggregated(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    ctx: RackContext,
    traffic: int,
    non_overlap: int,
    tag_aware: bool,
    holders: Mapping[TaskId, list[str]],
    active_of: Mapping[TaskId, str],
) -> dict[TaskId, list[str]] | None:
    counts = {pid: len(clients[pid].standby) for pid in order}
    copies = sum(counts.values())
    groups: dict[Group, list[str]] = {}
    for pid in order:
        if counts[pid] > 0:
            groups.setdefault(
                (clients[pid].rack or "", _class(clients[pid], tag_aware)), []
            ).append(pid)
    net = LexNetwork()
    sink = net.add_node()
    net.set_supply(sink, -copies)
    cnode = {pid: net.add_node() for pid in order if counts[pid] > 0}
    for pid, node in cnode.items():
        net.add_arc(node, sink, counts[pid], (0, 0))
    gnode: dict[Group, int] = {}
    fan: dict[Group, list[tuple[int, str]]] = {}
    for group in sorted(groups):
        gnode[group] = net.add_node()
        fan[group] = [
            (net.add_arc(gnode[group], cnode[p], counts[p], (0, 0)), p) for p in groups[group]
        ]
    by_class: dict[tuple[tuple[str, str], ...], list[Group]] = {}
    for group in sorted(groups):
        by_class.setdefault(group[1], []).append(group)
    # Classes (§ 6): units of one tag class with the same holders in it, the same capacity
    # into every group of the class and the same cost towards every rack are
    # interchangeable; one node per class, in the order of each class's first unit.
    classes: dict[tuple[object, ...], _UnitClass] = {}
    for (task, klass), pids in sorted(_units(clients, holders, tag_aware).items()):
        held = set(holders[task]) | {active_of.get(task, "")}
        targets = by_class.get(klass, [])
        caps = tuple(sum(1 for p in groups[g] if p not in held) for g in targets)
        row = tuple(ctx.standby_cost(task, r, traffic) for r in ctx.racks)
        key = (klass, tuple(pids), caps, row)
        if key not in classes:
            classes[key] = _UnitClass(tuple(pids), tuple(zip(targets, caps, strict=True)))
        classes[key].tasks.append(task)
    for cls in classes.values():
        task, size = cls.tasks[0], len(cls.tasks)
        unit = net.add_node()
        net.set_supply(unit, size * len(cls.holders))
        for pid in cls.holders:
            cost = ctx.standby_cost(task, clients[pid].rack or "", traffic)
            cls.arcs.append((net.add_arc(unit, cnode[pid], size, (cost, 0)), pid, None))
        for group, cap in cls.groups:
            if cap > 0:
                cost = ctx.standby_cost(task, group[0], traffic) + non_overlap
                cls.arcs.append(
                    (net.add_arc(unit, gnode[group], size * cap, (cost, 1)), None, group)
                )
    solution = net.solve_in_two_stages()
    # A class's units, in its arc order, are dealt to its tasks in turn (task order,
    # starting over after the last): no task gets more than an arc allows it.
    placement: dict[TaskId, list[str]] = {}
    routed: dict[Group, dict[TaskId, int]] = {}
    for cls in classes.values():
        turn = 0
        for arc, holder, target in cls.arcs:
            for _ in range(solution.flow(arc)):
                task = cls.tasks[turn % len(cls.tasks)]
                turn += 1
                if holder is not None:
                    placement.setdefault(task, []).append(holder)
                elif target is not None:
                    per_task = routed.setdefault(target, {})
                    per_task[task] = per_task.get(task, 0) + 1
    demand = {group: list(per_task.items()) for group, per_task in routed.items()}
    for group in sorted(demand):
        quota = {pid: solution.flow(arc) for arc, pid in fan[group]}
        if not _split(group, demand[group], quota, clients, placement, active_of):
            return None
    return placement


def _split(
    group: Group,
    demand: list[tuple[TaskId, int]],
    quota: dict[str, int],
    clients: Mapping[str, ClientState],
    placement: dict[TaskId, list[str]],
    active_of: Mapping[TaskId, str],
) -> bool:
    """Give each task its copies on distinct clients of the group: tasks by (most copies,
    task), each copy to the client with the most quota left (then client order) that holds
    no copy of the task and not its active. Where none is left, an augmenting path
    (:func:`_repair`) makes room; the split fails only when no split exists."""
    left = dict(quota)
    given: dict[str, list[TaskId]] = {pid: [] for pid in quota}
    heap = [(-q, clients[p].key, p) for p, q in left.items() if q > 0]
    heapq.heapify(heap)
    for task, units in sorted(demand, key=lambda d: (-d[1], d[0])):
        banned = set(placement.get(task, ())) | {active_of.get(task, "")}
        taken: list[tuple[int, tuple[int, int, int, str], str]] = []
        skipped: list[tuple[int, tuple[int, int, int, str], str]] = []
        while len(taken) < units and heap:
            item = heapq.heappop(heap)
            (taken if item[2] not in banned else skipped).append(item)
        for neg, key, pid in taken:
            placement.setdefault(task, []).append(pid)
            given[pid].append(task)
            left[pid] -= 1
            if neg + 1 < 0:
                skipped.append((neg + 1, key, pid))
        for item in skipped:
            heapq.heappush(heap, item)
        if len(taken) < units:
            for _ in range(units - len(taken)):
                if not _repair(task, list(quota), left, given, placement, active_of):
                    return False
            heap = [(-q, clients[p].key, p) for p, q in left.items() if q > 0]
            heapq.heapify(heap)
    return True


def _repair(
    task: TaskId,
    members: list[str],
    left: dict[str, int],
    given: dict[str, list[TaskId]],
    placement: dict[TaskId, list[str]],
    active_of: Mapping[TaskId, str],
) -> bool:
    """One more copy of ``task`` in the group, by the shortest augmenting path (Kuhn's):
    breadth first from the task over the group's clients (client order) that may take it;
    from a reached client, each task the split gave it (in the order given) may move to an
    unreached client that may take that task (client order). The first reached client with
    quota left ends the search; every task on the path moves one step and ``task`` takes
    the first client. Every copy routed to a group costs the same on any of its clients, so
    the repair keeps the flow's cost. False when no path exists (no split exists)."""

    def may_take(t: TaskId, pid: str) -> bool:
        return pid != active_of.get(t) and pid not in placement.get(t, ())

    parent: dict[str, tuple[str, TaskId] | None] = {}
    queue: list[str] = []
    for pid in members:
        if may_take(task, pid):
            parent[pid] = None
            queue.append(pid)
    end: str | None = None
    head = 0
    while head < len(queue) and end is None:
        here = queue[head]
        head += 1
        if left[here] > 0:
            end = here
            break
        for moved in given[here]:
            for pid in members:
                if pid not in parent and may_take(moved, pid):
                    parent[pid] = (here, moved)
                    queue.append(pid)
    if end is None:
        return False
    left[end] -= 1
    node = end
    while (step := parent[node]) is not None:
        src, moved = step
        given[src].remove(moved)
        given[node].append(moved)
        copies = placement[moved]
        copies[copies.index(src)] = node
        node = src
    given[node].append(task)
    placement.setdefault(task, []).append(node)
    return True


def _exact(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    ctx: RackContext,
    traffic: int,
    non_overlap: int,
    tag_aware: bool,
    holders: Mapping[TaskId, list[str]],
    active_of: Mapping[TaskId, str],
) -> dict[TaskId, list[str]]:
    counts = {pid: len(clients[pid].standby) for pid in order}
    copies = sum(counts.values())
    net = LexNetwork()
    sink = net.add_node()
    net.set_supply(sink, -copies)
    cnode = {pid: net.add_node() for pid in order if counts[pid] > 0}
    for pid, node in cnode.items():
        net.add_arc(node, sink, counts[pid], (0, 0))
    members: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for pid in cnode:
        members.setdefault(_class(clients[pid], tag_aware), []).append(pid)
    arcs: list[tuple[int, TaskId, str]] = []
    for (task, klass), pids in sorted(_units(clients, holders, tag_aware).items()):
        unit = net.add_node()
        net.set_supply(unit, len(pids))
        held = set(holders[task])
        for pid in members.get(klass, []):
            if pid == active_of.get(task) or (pid in held and pid not in pids):
                continue
            stay = pid in held
            base = ctx.standby_cost(task, clients[pid].rack or "", traffic) + (
                0 if stay else non_overlap
            )
            arcs.append((net.add_arc(unit, cnode[pid], 1, (base, 0 if stay else 1)), task, pid))
    solution = net.solve_in_two_stages()
    placement: dict[TaskId, list[str]] = {}
    for arc, task, pid in arcs:
        if solution.flow(arc) > 0:
            placement.setdefault(task, []).append(pid)
    return placement
