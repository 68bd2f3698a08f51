"""Standby placement: Kafka's DefaultStandbyTaskAssignor and the KIP-708 tag-aware one.

Both give each stateful task ``num_standby_replicas`` copies on the least-loaded clients
that do not hold it yet. The tag-aware one first excludes clients sharing a tag value (of
a key in ``rack_aware_assignment_tags``) with a copy already placed, relaxing a key once
every value of it is used.

Example: clients a,b,c with zone z1,z1,z2, task 0_0 active on a, one standby: the default
assignor picks the least-loaded of b,c; the tag-aware one must pick c (zone z2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from assignor.streams.model import AssignmentConfig
from assignor.streams.state import ClientState, PrioritySet
from protocol.streams import TaskId


def _least_loaded(clients: Mapping[str, ClientState]) -> PrioritySet:
    return PrioritySet(clients, ClientState.assigned_load, lambda c, t: not c.holds(t))


def _fill(
    pset: PrioritySet, clients: Mapping[str, ClientState], task: TaskId, remaining: int
) -> int:
    while remaining > 0:
        pid = pset.poll(task)
        if pid is None:
            break  # Kafka logs a WARN and leaves the copy out: not enough clients
        clients[pid].assign_standby(task)
        remaining -= 1
        pset.offer(pid)
    return remaining


def assign_default(
    clients: Mapping[str, ClientState], stateful: Sequence[TaskId], replicas: int
) -> None:
    """``DefaultStandbyTaskAssignor``: copies one by one to the least-loaded eligible client."""
    pset = _least_loaded(clients)
    pset.offer_all(sorted(clients, key=lambda p: clients[p].key))
    for task in stateful:
        _fill(pset, clients, task, replicas)


def assign_tag_aware(
    clients: Mapping[str, ClientState], stateful: Sequence[TaskId], config: AssignmentConfig
) -> None:
    """``ClientTagAwareStandbyTaskAssignor`` (KIP-708), best effort, then least loaded."""
    replicas = config.num_standby_replicas
    tag_keys = set(config.rack_aware_assignment_tags)
    order = sorted(clients, key=lambda p: clients[p].key)
    values_of: dict[str, set[str]] = {}
    clients_of: dict[tuple[str, str], set[str]] = {}
    for pid in order:
        for key, value in clients[pid].tags.items():
            values_of.setdefault(key, set()).add(value)
            clients_of.setdefault((key, value), set()).add(pid)
    pset = _least_loaded(clients)
    owner = {t: pid for pid in order for t in clients[pid].active}
    pending: dict[TaskId, int] = {}
    for task in stateful:
        active_pid = owner.get(task)
        if active_pid is None:
            pending[task] = replicas  # Kafka leaves it in the map for the fallback pass
            continue
        pset.offer_all(order)
        used_count = 1
        remaining = replicas
        used: dict[tuple[str, str], set[str]] = {}
        last = active_pid
        while True:
            for key in sorted(clients[last].tags):
                if key not in tag_keys:
                    continue  # Kafka ignores tags not listed in rack.aware.assignment.tags
                if len(values_of[key]) <= used_count:
                    for value in values_of[key]:
                        used.pop((key, value), None)
                else:
                    entry = (key, clients[last].tags[key])
                    used[entry] = clients_of[entry]
            excluded = set().union(*used.values()) if used else set()
            chosen = pset.poll(task, lambda c, ex=excluded: c.process_id not in ex)  # type: ignore[misc]
            if chosen is None:
                break
            pid = chosen
            used_count += 1
            remaining -= 1
            clients[pid].assign_standby(task)
            last = pid
            if remaining <= 0:
                break
        if remaining > 0:
            pending[task] = remaining
    if pending:
        # Kafka walks its ``tasksToRemainingStandbys`` HashMap (every stateful task put in
        # sorted order, finished ones removed): visit the pending tasks in that hash order.
        pset.offer_all(order)
        for task in java_hash_order(stateful, pending):
            _fill(pset, clients, task, pending[task])


def java_task_hash(task: TaskId) -> int:
    """Java's ``TaskId.hashCode()`` as an unsigned 32-bit value:
    ``Objects.hash(subtopology, partition, topologyName)`` with no topology name (null, 0)."""
    h = 1
    for part in (task.subtopology, task.partition, 0):
        h = (31 * h + part) & 0xFFFFFFFF
    return h


def java_hash_order(inserted: Sequence[TaskId], kept: Iterable[TaskId]) -> list[TaskId]:
    """The iteration order of a ``java.util.HashMap`` after putting ``inserted`` (in that
    order, keys distinct) and removing every key not in ``kept``.

    Emulates the table: 16 buckets at first, doubled when the size passes 3/4 of it or when
    a bucket of 8+ entries gets another while the table is below 64; bucket = spread hash
    (h ^ h >>> 16) masked by the table size; a bucket iterates in insertion order (a resize
    splits buckets keeping that order). Limit: a bucket of 9+ entries in a table of 64+
    becomes a red-black tree in Java whose iteration order is not emulated (kept in
    insertion order); TaskId hashes make that need hundreds of tasks in one bucket chain.

    Example: after 0_0, 0_1, 0_2 the 16 buckets of 0_0, 0_1, 0_2 are 15, 14, 13, so the
    order is 0_2, 0_1, 0_0.
    """
    size = 16
    table: list[list[TaskId]] = [[] for _ in range(size)]

    def bucket(task: TaskId, n: int) -> int:
        h = java_task_hash(task)
        return (h ^ (h >> 16)) & (n - 1)

    def grow(n: int) -> list[list[TaskId]]:
        grown: list[list[TaskId]] = [[] for _ in range(2 * n)]
        for chain in table:
            for task in chain:
                grown[bucket(task, 2 * n)].append(task)
        return grown

    for count, task in enumerate(inserted, start=1):
        chain = table[bucket(task, size)]
        before = len(chain)
        chain.append(task)
        if before >= 8 and size < 64:  # treeifyBin on a small table resizes instead
            table, size = grow(size), size * 2
        if count > size * 3 // 4:
            table, size = grow(size), size * 2
    keep = set(kept)
    return [task for chain in table for task in chain if task in keep]


def tags_allow_balance_move(source: ClientState, destination: ClientState) -> bool:
    """The 2-arg ``isAllowedTaskMovement``: every tag of the source equals the destination's."""
    return all(destination.tags.get(k) == v for k, v in source.tags.items())


def tag_class(client: ClientState) -> tuple[tuple[str, str], ...]:
    """The full tag set of a client: standbys may only move within one class (see rack.py)."""
    return tuple(sorted(client.tags.items()))
