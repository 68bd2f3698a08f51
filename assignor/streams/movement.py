"""KIP-441 task movements: keep actives on caught-up clients while warm-ups catch up.

Port of Kafka's ``TaskMovement``. The balanced plan says where a task *should* be; if that
client is not caught up but another one is more caught up, the active goes (temporarily)
to a caught-up client and the balanced destination gets a warm-up copy, within a budget of
``max_warmup_replicas`` shared by active and standby movements.

Example: task 0_0 balanced onto fresh client b (lag 5000 > acceptable 100) while a runs it
(lag -2): a keeps the active, b gets a warm-up, and a probing rebalance is scheduled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assignor.streams.model import LATEST_OFFSET, LONG_MAX
from assignor.streams.state import ClientState, PrioritySet
from protocol.streams import TaskId


@dataclass
class Movements:
    """What the movement phase did: counts, warm-ups, and the shared warm-up budget."""

    remaining_warmups: int
    active_moves: int = 0
    standby_moves: int = 0
    warmups: dict[str, set[TaskId]] = field(default_factory=dict)


class JavaPriorityQueue:
    """``java.util.PriorityQueue`` of (key, destination) entries ordered by ``key`` alone.

    Kafka's movement queue compares (caught-up client count, task) only, so two movements
    of one task tie and come out in the order Java's binary heap happens to give them:
    ``add`` sifts up while strictly smaller than the parent; ``poll`` moves the last entry
    to the root and sifts it down, taking the right child only if strictly smaller than
    the left and stopping as soon as it is not greater than that child. (``heapq``
    differs on ties: it pops through the leaf path and prefers the right child on ties.)
    """

    def __init__(self) -> None:
        self._heap: list[tuple[tuple[int, TaskId], str]] = []

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, key: tuple[int, TaskId], destination: str) -> None:
        heap = self._heap
        heap.append((key, destination))
        k = len(heap) - 1
        entry = heap[k]
        while k > 0:
            parent = (k - 1) >> 1
            if not entry[0] < heap[parent][0]:
                break
            heap[k] = heap[parent]
            k = parent
        heap[k] = entry

    def poll(self) -> tuple[tuple[int, TaskId], str]:
        heap = self._heap
        top = heap[0]
        last = heap.pop()
        n = len(heap)
        if n:
            k = 0
            while k < n >> 1:
                child = 2 * k + 1
                right = child + 1
                if right < n and heap[right][0] < heap[child][0]:
                    child = right
                if not heap[child][0] < last[0]:
                    break
                heap[k] = heap[child]
                k = child
            heap[k] = last
        return top


def caught_up_clients(clients: Mapping[str, ClientState], stateful: Sequence[TaskId],
                      acceptable_lag: int) -> dict[TaskId, frozenset[str]]:
    """Running active (-2), unbounded acceptable lag, or 0 <= lag <= acceptable lag."""
    found: dict[TaskId, set[str]] = {task: set() for task in stateful}
    for pid, c in clients.items():
        lags = c.lags
        for task in stateful:
            lag = lags[task]
            if lag == LATEST_OFFSET or acceptable_lag == LONG_MAX or 0 <= lag <= acceptable_lag:
                found[task].add(pid)
    return {task: frozenset(pids) for task, pids in found.items()}


class ClientsByLag(dict[TaskId, list[str]]):
    """Clients per task by (lag, process id), built on first use (most tasks never need it).

    -3 sorts before -2, as in Kafka (quirk).
    """

    def __init__(self, clients: Mapping[str, ClientState]) -> None:
        super().__init__()
        self._clients = clients

    def __missing__(self, task: TaskId) -> list[str]:
        c = self._clients
        ranked = sorted(c, key=lambda p: (c[p].lags[task], c[p].key))
        self[task] = ranked
        return ranked


def clients_by_lag(clients: Mapping[str, ClientState], stateful: Sequence[TaskId]) -> ClientsByLag:
    return ClientsByLag(clients)


def _needs_move(
    task: TaskId,
    pid: str,
    clients: Mapping[str, ClientState],
    caught: Mapping[TaskId, frozenset[str]],
    by_lag: Mapping[TaskId, list[str]],
) -> bool:
    if pid in caught[task]:
        return False
    return clients[by_lag[task][0]].lag(task) < clients[pid].lag(task)


def _most_caught_up(
    by_lag: Sequence[str],
    destination: str,
    clients: Mapping[str, ClientState],
    eligible: TaskId | None = None,
) -> str | None:
    for pid in by_lag:
        if pid == destination:
            return None
        if eligible is None or not clients[pid].holds(eligible):
            return pid
    return None


def _move_active(
    moves: Movements, task: TaskId, source: ClientState, destination: ClientState
) -> None:
    source.assign_active(task)
    destination.unassign_active(task)
    budget, moves.remaining_warmups = moves.remaining_warmups, moves.remaining_warmups - 1
    if budget > 0:
        destination.assign_standby(task)
        moves.warmups.setdefault(destination.process_id, set()).add(task)


def _swap(task: TaskId, source: ClientState, destination: ClientState) -> None:
    source.unassign_standby(task)
    source.assign_active(task)
    destination.unassign_active(task)
    destination.assign_standby(task)


def assign_active_movements(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    caught: Mapping[TaskId, frozenset[str]],
    by_lag: Mapping[TaskId, list[str]],
    moves: Movements,
) -> None:
    """``TaskMovement.assignActiveTaskMovements``."""
    pset = PrioritySet(clients, ClientState.assigned_load, lambda c, t: c.process_id in caught[t])
    queue = JavaPriorityQueue()
    for pid in order:
        for task in sorted(clients[pid].active):
            if task in caught and _needs_move(task, pid, clients, caught, by_lag):
                queue.add((len(caught[task]), task), pid)
        pset.offer(pid)
    moves.active_moves = len(queue)
    while queue:
        (_, task), dest_pid = queue.poll()
        dest = clients[dest_pid]
        src_pid = pset.poll(task, lambda c, t=task: t in c.standby)  # type: ignore[misc]
        if src_pid is not None:
            _swap(task, clients[src_pid], dest)
        else:
            src_pid = pset.poll(task)
            if src_pid is not None:
                _move_active(moves, task, clients[src_pid], dest)
            else:
                src_pid = _most_caught_up(by_lag[task], dest_pid, clients)
                if src_pid is None:
                    raise AssertionError(
                        f"no more caught-up client for {task}, though one was seen"
                    )
                if task in clients[src_pid].standby:
                    _swap(task, clients[src_pid], dest)
                else:
                    _move_active(moves, task, clients[src_pid], dest)
        pset.offer_all([src_pid, dest_pid])


def assign_standby_movements(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    caught: Mapping[TaskId, frozenset[str]],
    by_lag: Mapping[TaskId, list[str]],
    moves: Movements,
) -> set[tuple[str, TaskId]]:
    """``TaskMovement.assignStandbyTaskMovements``; returns the copies kept as warm-ups."""
    pset = PrioritySet(clients, ClientState.assigned_load, lambda c, t: c.process_id in caught[t])
    queue = JavaPriorityQueue()
    for pid in order:
        warm = moves.warmups.get(pid, set())
        for task in sorted(clients[pid].standby):
            if task not in warm and _needs_move(task, pid, clients, caught, by_lag):
                queue.add((len(caught[task]), task), pid)
        pset.offer(pid)
    kept: set[tuple[str, TaskId]] = set()
    while queue:
        (_, task), dest_pid = queue.poll()
        src_pid = pset.poll(task, lambda c, t=task: not c.holds(t))  # type: ignore[misc]
        if src_pid is None:
            src_pid = _most_caught_up(by_lag[task], dest_pid, clients, eligible=task)
        if src_pid is None:
            continue  # Kafka: nothing more caught up can take it; not counted
        clients[src_pid].assign_standby(task)
        budget, moves.remaining_warmups = moves.remaining_warmups, moves.remaining_warmups - 1
        if budget > 0:
            kept.add((dest_pid, task))  # the old copy stays on as a warm-up
        else:
            clients[dest_pid].unassign_standby(task)
        pset.offer_all([src_pid, dest_pid])
        moves.standby_moves += 1
    return kept
