"""KIP-925 rack-aware task assignment: enablement, cost, and the active optimizer.

cost(task, client) = traffic_cost x (weight of the task partitions with no replica in the
                     client's rack; a partition weighs 1 unless weights say otherwise)
                   + non_overlap_cost if the client does not hold the task now.

Actives use source partitions, standbys changelog partitions (Kafka's legacy/HA path).
Kafka solves it by cycle cancelling on a task x client graph; we solve the same objective
with OR-Tools min-cost flow on a smaller graph: since the cost only depends on the client's
rack (and on "is it the current holder"), tasks with the same start client and the same cost
and tie per rack form one class (docs/streams-assignor.md § 6); each class gets one arc to its
start client and one arc per rack, and rack nodes fan out to their clients. Every feasible
task->client assignment maps to a flow of equal cost and back, so the flow optimum is the
optimum.
Ties are broken lexicographically below the cost (weights scaled so no tie term can
outweigh one unit of cost, ``lexflow``): for stateful actives followed by standbys, first
towards racks where the task's changelog is remote (``standby_tie_break``: the active's
client is the one client its standby cannot use), then towards fewer moves, then a fixed
per-arc perturbation that makes the optimal flow unique (so the JVM core decodes the same
placement). The result stays an optimum of Kafka's objective.

Example: task 0_0 reads orders-0 (replicas az1, az2), now on client x in az3 (cost 10+0);
client y in az1 holds 0_1 whose partition is in az3 only. Swapping costs 0+1 and 0+1 = 2
instead of 20, so min_traffic swaps them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.optimal.lexflow import LexNetwork
from assignor.streams.model import AssignmentConfig, TaskSet
from assignor.streams.state import ClientState
from protocol.streams import TaskId


@dataclass(frozen=True)
class RackContext:
    """Whether rack awareness is on, and per task the weight of the partitions each rack
    misses (the number of them when no weights are given)."""

    enabled: bool
    reason: str
    racks: tuple[str, ...]
    active_misses: Mapping[TaskId, Mapping[str, int]]
    standby_misses: Mapping[TaskId, Mapping[str, int]]

    def active_cost(self, task: TaskId, rack: str, traffic: int) -> int:
        return traffic * self.active_misses[task][rack]

    def standby_cost(self, task: TaskId, rack: str, traffic: int) -> int:
        return traffic * self.standby_misses[task][rack]


def _partition_racks(view: ClusterView, tp: TopicPartition) -> frozenset[str] | None:
    """All replica racks, or None when Kafka would refuse (missing, no replicas, rackless)."""
    if tp.partition >= view.partition_count(tp.topic):
        return None
    replicas = view.replicas(tp.topic, tp.partition)
    racks = [view.brokers.get(b) for b in replicas]
    if not replicas or any(r is None for r in racks):
        return None
    return frozenset(r for r in racks if r is not None)


def _misses(
    view: ClusterView,
    parts: Mapping[TaskId, tuple[TopicPartition, ...]],
    racks: tuple[str, ...],
    weights: Mapping[TopicPartition, int],
) -> dict[TaskId, dict[str, int]] | None:
    out: dict[TaskId, dict[str, int]] = {}
    for task in sorted(parts):
        per_tp = [(_partition_racks(view, tp), weights.get(tp, 1)) for tp in parts[task]]
        if any(r is None for r, _ in per_tp):
            return None
        out[task] = {
            rack: sum(w for r, w in per_tp if r is not None and rack not in r) for rack in racks
        }
    return out


def rack_context(
    view: ClusterView,
    tasks: TaskSet,
    clients: Sequence[ClientState],
    config: AssignmentConfig,
    weights: Mapping[TopicPartition, int] | None = None,
) -> RackContext:
    """``RackAwareTaskAssignor.canEnableRackAwareAssignor`` on a scenario's cluster view.

    ``weights``: optional integer weight (>= 0) per partition; a partition without one
    weighs 1, so with none every cost is Kafka's.
    """
    w = weights or {}
    for tp, value in w.items():
        if value < 0:
            raise AssignorError(f"weight of {tp} is {value}; weights must be >= 0")
    empty: dict[TaskId, dict[str, int]] = {}
    racks = tuple(sorted({c.rack for c in clients if c.rack}))
    if config.rack_aware_assignment_strategy == "none":
        return RackContext(False, "strategy none", racks, empty, empty)
    if any(not c.rack for c in clients):
        return RackContext(False, "a client has no rack", racks, empty, empty)
    active = _misses(view, tasks.source, racks, w)
    if active is None:
        return RackContext(
            False, "a source partition has a replica without rack", racks, empty, empty
        )
    standby: dict[TaskId, dict[str, int]] = {}
    if config.num_standby_replicas > 0:
        # Kafka describes every changelog topic and disables rack awareness for actives too
        # when one of them cannot be described or has a rackless replica.
        found = _misses(view, {t: tasks.changelog[t] for t in tasks.stateful}, racks, w)
        if found is None:
            return RackContext(
                False, "a changelog partition is missing or has no rack", racks, empty, empty
            )
        standby = found
    return RackContext(True, "enabled", racks, active, standby)


@dataclass(eq=False)
class _TaskClass:
    """Tasks that every arc prices alike: one subtopology group, one start client, one
    (cost, tie) row over the racks."""

    start: str
    tasks: list[TaskId] = field(default_factory=list)
    routes: list[tuple[int, tuple[int, str]]] = field(default_factory=list)
    node: int = -1
    direct: int | None = None


@dataclass(frozen=True)
class ActiveSolution:
    owner: dict[TaskId, str]
    cost: int


def solve_active(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    tasks: Sequence[TaskId],
    ctx: RackContext,
    strategy: str,
    traffic: int,
    non_overlap: int,
    tie_break: Mapping[TaskId, Mapping[str, int]] | None = None,
) -> ActiveSolution:
    """Min-cost placement of ``tasks`` keeping every client's count of them.

    ``min_traffic``: any permutation; ``balance_subtopology``: additionally at most
    ceil(n_c / T * T_s) tasks of subtopology s on client c (Kafka's two-stage graph).

    Among optimal placements: the least ``tie_break`` sum first (``tie_break[task][rack]``
    >= 0, e.g. ``standby_tie_break``), then the fewest moved tasks; neither changes the cost.
    """
    if strategy not in ("min_traffic", "balance_subtopology"):
        raise AssignorError(f"no rack-aware graph for strategy {strategy!r}")
    owner: dict[TaskId, str] = {}
    for pid in order:
        for task in clients[pid].active:
            owner[task] = pid
    task_list = sorted(tasks)
    if not task_list:
        return ActiveSolution({}, 0)
    for task in task_list:
        if task not in owner:
            raise AssignorError(f"task {task} is not assigned before optimization")
    counts = {pid: 0 for pid in order}
    for task in task_list:
        counts[owner[task]] += 1
    total = len(task_list)
    # Lexicographic levels (cost, tie, moved, + lexflow's perturbation): lexflow scales each
    # level so no lower one can outweigh one unit of the level above.
    ties = tie_break or {}

    def tie(task: TaskId, rack: str) -> int:
        return ties[task].get(rack, 0) if task in ties else 0
    # Classes (§ 6): within a subtopology group, tasks with the same start client and the
    # same (cost, tie) towards every rack are interchangeable; one node per class, in the
    # order of each class's first task.
    balance = strategy == "balance_subtopology"
    subs: dict[int, list[_TaskClass]] = {}
    by_key: dict[tuple[object, ...], _TaskClass] = {}
    for t in task_list:
        sub = t.subtopology if balance else -1
        key = (sub, owner[t], *((ctx.active_cost(t, r, traffic), tie(t, r)) for r in ctx.racks))
        cls = by_key.get(key)
        if cls is None:
            cls = by_key[key] = _TaskClass(owner[t])
            subs.setdefault(sub, []).append(cls)
        cls.tasks.append(t)
    net = LexNetwork()
    for sub in sorted(subs):
        for cls in subs[sub]:
            cls.node = net.add_node()
    client_node = {pid: net.add_node() for pid in order if counts[pid] > 0}
    sink = net.add_node()
    for sub in sorted(subs):
        for cls in subs[sub]:
            net.set_supply(cls.node, len(cls.tasks))
    net.set_supply(sink, -total)
    for pid, node in client_node.items():
        net.add_arc(node, sink, counts[pid], (0, 0, 0))
    rack_of = {pid: clients[pid].rack or "" for pid in order}
    fanout: dict[tuple[int, str], list[tuple[int, str]]] = {}
    for sub in sorted(subs):
        classes = subs[sub]
        members = sum(len(cls.tasks) for cls in classes)
        entry: dict[str, tuple[int, int]]
        if balance:
            entry = {}
            for pid in client_node:
                cap = math.ceil(counts[pid] * 1.0 / total * members)
                if cap > 0:
                    node = net.add_node()
                    net.add_arc(node, client_node[pid], cap, (0, 0, 0))
                    entry[pid] = (node, cap)
        else:
            entry = {pid: (client_node[pid], counts[pid]) for pid in client_node}
        for rack in ctx.racks:
            gnode = net.add_node()
            targets = [pid for pid in order if pid in entry and rack_of[pid] == rack]
            for pid in targets:
                fanout.setdefault((sub, rack), []).append(
                    (net.add_arc(gnode, entry[pid][0], entry[pid][1], (0, 0, 0)), pid)
                )
            if not targets:
                continue
            for cls in classes:
                t = cls.tasks[0]
                cost = ctx.active_cost(t, rack, traffic) + non_overlap
                arc = net.add_arc(cls.node, gnode, len(cls.tasks), (cost, tie(t, rack), 1))
                cls.routes.append((arc, (sub, rack)))
        for cls in classes:
            if cls.start in entry:
                t, rack = cls.tasks[0], rack_of[cls.start]
                cls.direct = net.add_arc(
                    cls.node,
                    entry[cls.start][0],
                    len(cls.tasks),
                    (ctx.active_cost(t, rack, traffic), tie(t, rack), 0),
                )
    solution = net.solve_in_two_stages()
    # A class's tasks in task order: the first ones its start-client arc carries stay, the
    # next go to its rack groups in rack order, as many as each arc carries.
    new_owner: dict[TaskId, str] = {}
    routed: dict[tuple[int, str], list[TaskId]] = {}
    for sub in sorted(subs):
        for cls in subs[sub]:
            queue = iter(cls.tasks)
            if cls.direct is not None:
                for _ in range(solution.flow(cls.direct)):
                    new_owner[next(queue)] = cls.start
            for arc, group in cls.routes:
                routed.setdefault(group, []).extend(
                    next(queue) for _ in range(solution.flow(arc))
                )
    for group in sorted(routed):
        quota = {pid: solution.flow(arc) for arc, pid in fanout[group]}
        pending = []
        for t in sorted(routed[group]):
            if quota.get(owner[t], 0) > 0:  # only reachable when non_overlap == 0
                quota[owner[t]] -= 1
                new_owner[t] = owner[t]
            else:
                pending.append(t)
        slots = [pid for pid in order if pid in quota for _ in range(quota[pid])]
        for t, pid in zip(pending, slots, strict=True):
            new_owner[t] = pid
    if len(new_owner) != total:
        raise AssignorError("rack-aware optimizer lost a task (flow decoding)")
    cost = sum(
        ctx.active_cost(t, rack_of[p], traffic) + (0 if p == owner[t] else non_overlap)
        for t, p in new_owner.items()
    )
    return ActiveSolution(new_owner, cost)


def standby_tie_break(ctx: RackContext, tasks: Sequence[TaskId]) -> dict[TaskId, dict[str, int]]:
    """Tie-break for stateful actives when standbys follow: prefer the rack where the
    task's changelog has the *most* cross-rack partitions.

    A client holding a task's active cannot hold its standby, so an active on a
    changelog-local client takes a cheap standby slot away. With standbys on every other
    client (replicas = clients - 1) the standby traffic is exactly
    sum_c misses(rack c) - misses(rack of the active), so this is then the exact standby
    optimum among the active step's optima; otherwise a heuristic. Values are
    max_rack misses - misses(rack) >= 0.
    """
    out: dict[TaskId, dict[str, int]] = {}
    for task in tasks:
        misses = ctx.standby_misses.get(task)
        if misses:
            top = max(misses.values())
            out[task] = {rack: top - m for rack, m in misses.items()}
    return out


def optimize_active(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    tasks: Sequence[TaskId],
    ctx: RackContext,
    strategy: str,
    traffic: int,
    non_overlap: int,
    tie_break: Mapping[TaskId, Mapping[str, int]] | None = None,
) -> int:
    """``RackAwareTaskAssignor.optimizeActiveTasks``: solve, apply, return Kafka's total cost."""
    before = {t: pid for pid in order for t in clients[pid].active}
    result = solve_active(
        clients, order, tasks, ctx, strategy, traffic, non_overlap, tie_break
    )
    for task, pid in sorted(result.owner.items()):
        if before[task] != pid:
            clients[before[task]].unassign_active(task)
            clients[pid].assign_active(task)
    return result.cost
