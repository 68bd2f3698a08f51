"""Standby placement: Kafka's DefaultStandbyTaskAssignor and the KIP-708 tag-aware one.

Both give each stateful task ``num_standby_replicas`` copies on the least-loaded clients
that do not hold it yet. The tag-aware one first excludes clients sharing a tag value (of
a key in ``rack_aware_assignment_tags``) with a copy already placed, relaxing a key once
every value of it is used.

Example: clients a,b,c with zone z1,z1,z2, task 0_0 active on a, one standby: the default
assignor picks the least-loaded of b,c; the tag-aware one must pick c (zone z2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assignor.streams.model import AssignmentConfig, TaskId
from assignor.streams.state import ClientState, PrioritySet


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
        # Kafka walks a HashMap here; we walk tasks in sorted order (deterministic).
        pset.offer_all(order)
        for task in sorted(pending):
            _fill(pset, clients, task, pending[task])


def tags_allow_balance_move(source: ClientState, destination: ClientState) -> bool:
    """The 2-arg ``isAllowedTaskMovement``: every tag of the source equals the destination's."""
    return all(destination.tags.get(k) == v for k, v in source.tags.items())


def tag_class(client: ClientState) -> tuple[tuple[str, str], ...]:
    """The full tag set of a client: standbys may only move within one class (see rack.py)."""
    return tuple(sorted(client.tags.items()))
