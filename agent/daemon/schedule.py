"""Why and when a group is re-planned: the agent's scheduler, in one place. Pure, no IO.

Every trigger goes through :meth:`Scheduler.trigger`, which records the reason on the group
and marks it dirty. :meth:`Scheduler.due` then decides what to plan now: probing follow-ups
whose time came (KIP-441), traffic re-plans whose saving held (agent.daemon.trafficprobe),
and dirty groups whose changes have coalesced, with no plan of theirs in flight and, for a
follow-up, once every owner has released what the last plan withheld. The rest of the
scheduler's inputs come back from the plan worker (:meth:`published`, :meth:`failed`), the
rack watcher (:meth:`rack_change`) and the session clock (:meth:`expire`). "Why was my group
re-planned?" is answered by the reasons passed to ``trigger`` from this module and the
group table (agent.daemon.state: joins, leaves, subscription changes).

Example::

    s = Scheduler(table, ready={0}, coalesce_s=0.2, topics_of=lambda g: g.topics())
    s.trigger("orders", "member-joined")
    s.due(now + 0.3, make_job)        # [the job for "orders"]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, TypeVar

from agent.daemon.events import RackChange
from agent.daemon.state import GroupState, GroupTable, awaiting_release, may_hold
from protocol.plan import AssignmentPlan

Job = TypeVar("Job")
TrafficReplans = Callable[
    [float, Mapping[str, GroupState], Collection[int], Mapping[str, float]],
    Iterable[tuple[str, dict[str, Any]]],
]


class Scheduler:
    """The dirty groups and due follow-ups of one agent; the caller owns ``table``."""

    def __init__(
        self,
        table: GroupTable,
        ready: Collection[int],
        coalesce_s: float,
        topics_of: Callable[[GroupState], Iterable[str]],
        *,
        traffic_replans: TrafficReplans | None = None,
        counted: Callable[[str], None] = lambda _reason: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.table = table
        self.ready = ready  # the caller's set of ready partitions, read live
        self.coalesce_s = coalesce_s
        self.topics_of = topics_of
        self.traffic_replans = traffic_replans
        self.counted = counted
        self.clock = clock
        self.dirty: set[str] = set()
        self.followups: dict[str, float] = {}

    def trigger(self, group_id: str, reason: str, detail: Mapping[str, Any] | None = None) -> None:
        """Record why ``group_id`` needs a new plan; nothing for a group this agent lacks."""
        group = self.table.groups.get(group_id)
        if group is None:
            return
        group.mark(reason, self.clock(), {"reason": reason, **(detail or {})})
        self.dirty.add(group_id)
        self.counted(reason)

    def mark_dirty(self, group_ids: Iterable[str]) -> None:
        """Groups whose reasons are already marked on them (a partition just loaded)."""
        self.dirty.update(group_ids)

    def forget_dropped(self) -> None:
        """After partitions were revoked: their groups are gone from the table."""
        self.dirty = {g for g in self.dirty if g in self.table.groups}

    def due(self, now: float, job_for: Callable[[GroupState], Job]) -> list[Job]:
        """The jobs to submit now (``job_for`` takes each group's job and resets its marks)."""
        for gid in sorted(g for g, at in self.followups.items() if at <= now):
            del self.followups[gid]
            self.trigger(gid, "followup", {"probing": True})
        if self.traffic_replans is not None:
            for gid, detail in self.traffic_replans(now, self.table.groups, self.ready,
                                                    self.followups):
                self.trigger(gid, "traffic-changed", detail)
        jobs: list[Job] = []
        for gid in sorted(self.dirty):
            group = self.table.groups.get(gid)
            if group is None or group.partition not in self.ready:
                self.dirty.discard(gid)
                continue
            if group.in_flight is not None or group.dirty_since is None:
                continue
            if now - group.dirty_since < self.coalesce_s:
                continue
            if group.dirty == {"followup"} and awaiting_release(group):
                continue
            self.dirty.discard(gid)
            jobs.append(job_for(group))
        return jobs

    def published(self, group_id: str, plan: AssignmentPlan) -> None:
        """A plan of ``group_id`` is out: remember it, schedule its probing follow-up, and
        trigger the follow-up at once when an owner released a withheld partition while the
        plan was being made."""
        group = self.table.groups.get(group_id)
        if group is None or group.partition not in self.ready:
            return
        group.in_flight = None
        group.last_plan = plan
        group.last_generation = max(group.last_generation, plan.generation)
        if plan.followup_ms is not None:
            self.followups[group_id] = self.clock() + plan.followup_ms / 1000
        else:
            self.followups.pop(group_id, None)
        released = [
            f"{w.topic}-{w.partition}"
            for w in plan.withheld
            if w.owner not in group.members
            or (w.topic, w.partition) not in may_hold(group.members[w.owner], plan)
        ]
        if released:
            self.trigger(group_id, "followup", {"released": released})

    def failed(self, group_id: str, generation: int, triggers: Iterable[str],
               changes: Iterable[Mapping[str, object]], expired: Iterable[str], retry: bool) -> None:
        """A plan could not be made or published: its generation is never reused, and on a
        retryable failure the group is dirty again with every trigger the job carried, so the
        seam decides the retry's reason from the same triggers."""
        group = self.table.groups.get(group_id)
        if group is None:
            return
        group.in_flight = None
        group.last_generation = max(group.last_generation, generation)
        if retry and group.partition in self.ready:
            group.changes.extend(dict(c) for c in changes)
            group.expired.extend(expired)
            for reason in tuple(triggers) or ("initial",):
                group.mark(reason, self.clock())
            self.dirty.add(group_id)

    def rack_change(self, change: RackChange, follower_fetching: bool | None) -> list[str]:
        """Trigger every group the debounced change re-plans (:func:`rack_change_targets`)."""
        targets = rack_change_targets(change, self.table.groups, self.ready, self.topics_of,
                                      follower_fetching)
        detail = change.as_detail()
        for gid in targets:
            self.trigger(gid, change.kind, detail)
        return targets

    def expire(self, now_wall: float, timeout_s: float, skip: Collection[int]) -> list[tuple[str, str]]:
        """Expire members not heard from within the session timeout (partitions in ``skip``
        are left alone); a ready group that lost one is re-planned (``member-expired``)."""
        gone = self.table.expire(now_wall, timeout_s, skip)
        for gid, mid in gone:
            group = self.table.groups[gid]
            group.expired.append(mid)
            if group.partition in self.ready:
                self.trigger(gid, "member-expired", {"member": mid})
        return gone


def rack_change_targets(
    change: RackChange,
    groups: Mapping[str, GroupState],
    ready: Collection[int],
    topics_of: Callable[[GroupState], Iterable[str]],
    follower_fetching: bool | None,
) -> list[str]:
    """The groups a debounced change re-plans: every ready group planning the topic, and for
    a leader move only those where some member reads from leaders (it has no rack, or the
    brokers do not fetch from followers; assumed they do until sampled)."""
    out = []
    for gid in sorted(groups):
        group = groups[gid]
        if group.partition not in ready or change.topic not in topics_of(group):
            continue
        if change.kind == "leaders-changed" and follower_fetching is not False \
                and all(m.rack for m in group.members.values()):
            continue  # every member reads from a replica in its own rack
        out.append(gid)
    return out
