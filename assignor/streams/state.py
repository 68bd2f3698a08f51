"""Mutable per-plan client state and Kafka's ConstrainedPrioritySet.

A ``ClientState`` is built fresh for every plan (nothing is kept between calls). Loads are
the same doubles Kafka computes: ``(active + standby) / capacity`` and
``active / capacity``, so ties break exactly where Kafka's do.

Example::

    c = ClientState("p1", capacity=2, rack="az1")
    c.assign_active(TaskId(0, 0)); c.assigned_load()   # 0.5
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping

from assignor.streams.model import ClientInput, process_sort_key
from protocol.streams import TaskId


class ClientState:
    """What one Streams process holds while the assignor runs."""

    __slots__ = (
        "process_id",
        "capacity",
        "rack",
        "tags",
        "lags",
        "active",
        "standby",
        "key",
        "prev_active",
        "prev_standby",
    )

    def __init__(
        self,
        process_id: str,
        capacity: int,
        rack: str | None = None,
        tags: Mapping[str, str] | None = None,
        lags: Mapping[TaskId, int] | None = None,
        prev_active: Iterable[TaskId] = (),
        prev_standby: Iterable[TaskId] = (),
    ) -> None:
        self.process_id = process_id
        self.capacity = capacity
        self.rack = rack
        self.tags: dict[str, str] = dict(tags or {})
        self.lags: dict[TaskId, int] = dict(lags or {})
        self.active: set[TaskId] = set()
        self.standby: set[TaskId] = set()
        self.key = process_sort_key(process_id)
        self.prev_active = frozenset(prev_active)
        self.prev_standby = frozenset(prev_standby)

    @classmethod
    def from_input(cls, client: ClientInput, lags: Mapping[TaskId, int]) -> ClientState:
        return cls(
            client.process_id,
            client.threads,
            client.rack,
            client.tags,
            lags,
            client.prev_active,
            client.prev_standby,
        )

    def lag(self, task: TaskId) -> int:
        return self.lags[task]

    def assigned_load(self) -> float:
        return (len(self.active) + len(self.standby)) / self.capacity

    def active_load(self) -> float:
        return len(self.active) / self.capacity

    def assigned_count(self) -> int:
        return len(self.active) + len(self.standby)

    def holds(self, task: TaskId) -> bool:
        return task in self.active or task in self.standby

    def assign_active(self, task: TaskId) -> None:
        self.active.add(task)

    def unassign_active(self, task: TaskId) -> None:
        self.active.discard(task)

    def assign_standby(self, task: TaskId) -> None:
        self.standby.add(task)

    def unassign_standby(self, task: TaskId) -> None:
        self.standby.discard(task)

    def __repr__(self) -> str:
        return (
            f"ClientState({self.process_id}, cap={self.capacity}, rack={self.rack}, "
            f"active={sorted(map(str, self.active))}, standby={sorted(map(str, self.standby))})"
        )


class PrioritySet:
    """Kafka's ConstrainedPrioritySet: poll the least-weighted client meeting a constraint.

    Weights are read when a client is offered; Kafka re-offers every client whose load it
    changed before the next poll, so a heap keyed at offer time orders exactly as Java's
    PriorityQueue does. Re-offering replaces the old entry (lazy deletion by version).
    """

    def __init__(
        self,
        clients: Mapping[str, ClientState],
        weight: Callable[[ClientState], float],
        constraint: Callable[[ClientState, TaskId], bool],
    ) -> None:
        self._clients = clients
        self._weight = weight
        self._constraint = constraint
        self._heap: list[tuple[float, tuple[int, int, int, str], int, str]] = []
        self._version: dict[str, int] = {}
        self._counter = 0

    def offer(self, pid: str) -> None:
        self._counter += 1
        self._version[pid] = self._counter
        state = self._clients[pid]
        heapq.heappush(self._heap, (self._weight(state), state.key, self._counter, pid))

    def offer_all(self, pids: Iterable[str]) -> None:
        for pid in pids:
            self.offer(pid)

    def poll(self, task: TaskId, extra: Callable[[ClientState], bool] | None = None) -> str | None:
        rejected: list[str] = []
        found: str | None = None
        while self._heap:
            _, _, version, pid = heapq.heappop(self._heap)
            if self._version.get(pid) != version:
                continue  # a stale entry of a client offered again since
            del self._version[pid]
            state = self._clients[pid]
            if self._constraint(state, task) and (extra is None or extra(state)):
                found = pid
                break
            rejected.append(pid)
        self.offer_all(rejected)
        return found
