"""The agent's poll loop: subscriptions in, triggers out to the plan worker.

Shape after arroyo's StreamProcessor: poll with a short timeout; a signal only sets a flag;
on exit drain the worker, flush and commit; an unexpected error closes everything and
re-raises. Three helpers run beside the loop: the plan worker (agent.daemon.worker), the
metadata poller (a thread running metadata.watch_racks) and the ops server. Partition
loading helpers live in agent.daemon.loading, dead letters in agent.daemon.deadletter.

Per owned subscriptions partition: on assignment the partition is read from the beginning
(state rebuilt from the compacted topic) while the worker fences older owners and recovers
the last plans; once both are done the partition is *ready* and its groups are planned if
what was recovered no longer matches the live members.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import structlog
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KTopicPartition
from confluent_kafka.admin import AdminClient

from agent.daemon.advice import AdvicePublisher, sample_and_advise
from agent.daemon.deadletter import DEAD_LETTER_MAX_VALUE, write_dead_letter
from agent.daemon.events import Failed, LoopEvent, Opened, Probed, Published, RackChange, TrafficSampled
from agent.daemon.loading import (
    EXPIRY_LAG_LIMIT,
    STALL_GRACE_S,
    STALL_S,
    LoadingState,
    behind,
    loading_state,
    restore_recovered,
)
from agent.daemon.observe import Observer
from agent.daemon.ops import Metrics, OpsServer
from agent.daemon.planning import PlanJob, cross_rack_count, planned_topics, take_job
from agent.daemon.rackwatch import RackWatch, watch_racks
from agent.daemon.state import GroupState, GroupTable, InputRejected, awaiting_release, may_hold
from agent.daemon.topics import ensure_topics, partition_counts
from agent.daemon.trafficprobe import TrafficProber, TrafficReplans
from agent.daemon.worker import PlanWorker
from agent.routing import KIND_HEADER, group_partition, header_value
from agent.settings import AgentSettings
from agent.traffic import TrafficEstimator

log = structlog.get_logger("rackwise.agent")

# Re-exported: the dead-letter size limit and the expiry thresholds live beside their code.
__all__ = ["DEAD_LETTER_MAX_VALUE", "EXPIRY_LAG_LIMIT", "STALL_GRACE_S", "STALL_S", "Agent"]


class Agent:
    """One agent instance. ``run()`` blocks until ``stop()`` (or SIGTERM/SIGINT)."""

    def __init__(self, settings: AgentSettings) -> None:
        s = self.settings = settings
        self.metrics = Metrics()
        self.table = GroupTable()
        self._stop = threading.Event()
        self._events: queue.Queue[LoopEvent] = queue.Queue()
        self._loading: dict[int, LoadingState] = {}
        self._ready: set[int] = set()
        self._dirty: set[str] = set()
        self._followups: dict[str, float] = {}
        self._watched: frozenset[str] = frozenset()
        self._last_loop = time.monotonic()
        self._expiry_grace_until = 0.0
        self._closing = False
        self.ops_port: int | None = None
        self.started = threading.Event()
        # The clients connect lazily: nothing here talks to Kafka before run().
        self.subs_partitions = s.topics.partitions
        self.admin = AdminClient(s.client_config())
        self.watch = RackWatch(self.admin, s.metadata)
        self.traffic = TrafficEstimator(self.admin, s.client_config(), s.traffic)
        self.worker = PlanWorker(s, self.watch, self.metrics, self._events.put, self.traffic)
        self.prober = TrafficProber(s, self.watch, self.traffic, self._events.put)
        self.replans = TrafficReplans(s, self.prober,
                                      lambda outcome: self.metrics.traffic_probes.labels(outcome).inc())
        self.dlq = Producer(s.client_config(**{"enable.idempotence": True, "linger.ms": 20}))
        self.advice = (
            AdvicePublisher(s, Producer(s.client_config(**{"enable.idempotence": True,
                                                           "linger.ms": 50})),
                            count=lambda outcome: self.metrics.advice_records.labels(outcome).inc())
            if s.advice.enabled else None
        )
        self.consumer = Consumer(
            s.client_config(
                **{
                    "group.id": s.input.group_id,
                    "enable.auto.commit": False,
                    "auto.offset.reset": "earliest",
                    "isolation.level": "read_committed",
                    "enable.partition.eof": True,
                    "partition.assignment.strategy": "cooperative-sticky",
                    "client.id": f"rackwise-agent-{s.instance_id}",
                    **(
                        {}
                        if "session.timeout.ms" in s.kafka
                        else {"session.timeout.ms": s.input.agent_session_timeout_ms}
                    ),
                }
            )
        )
        self.observer: Observer | None = None

    # ---- lifecycle ---------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def run(self) -> int:
        s = self.settings
        log.info("agent starting", settings=s.redacted())
        admin = self.admin
        if s.topics.create:
            ensure_topics(admin, s.topics)
        counts = partition_counts(admin, [s.topics.subscriptions, s.topics.plans])
        self.subs_partitions = counts.get(s.topics.subscriptions, s.topics.partitions)
        plans_partitions = counts.get(s.topics.plans, s.topics.partitions)
        if self.subs_partitions != plans_partitions:
            log.warning(
                "subscriptions and plans partition counts differ; recovery reads all "
                "plans partitions",
                subscriptions=self.subs_partitions,
                plans=plans_partitions,
            )
        self.worker.set_layout(plans_partitions, self.subs_partitions)
        ops = None
        if s.ops.port >= 0:
            ops = OpsServer(s.ops.host, s.ops.port, self.metrics, self.health)
            ops.start()
            self.ops_port = ops.port
            log.info("ops server listening", host=s.ops.host, port=ops.port)
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self._stop.set())
        self.worker.start()
        self.prober.start(self._stop)
        if s.observe.groups:
            self.observer = Observer(s, self.metrics, self._owns, plans_partitions, admin)
            self.observer.start(self._stop)
        meta = threading.Thread(target=self._metadata_loop, name="rackwise-metadata", daemon=True)
        meta.start()
        self.consumer.subscribe(
            [s.topics.subscriptions],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_revoke,
        )
        self.started.set()
        try:
            self._loop()
        except BaseException:
            log.exception("agent loop failed; closing")
            self._shutdown(ops, meta, drain=False)
            raise
        self._shutdown(ops, meta, drain=True)
        return 0

    def _shutdown(self, ops: OpsServer | None, meta: threading.Thread, drain: bool) -> None:
        self._stop.set()
        self.worker.stop(30 if drain else 5)
        with contextlib.suppress(KafkaException):  # nothing consumed since the last commit
            self.consumer.commit(asynchronous=False)
        self._closing = True
        self.consumer.close()
        self.dlq.flush(10)
        meta.join(5)
        if self.advice is not None:
            self.advice.flush(5)
        if self.observer is not None:
            self.observer.join(10)
        if ops:
            ops.stop()
        log.info("agent stopped")

    # ---- the loop ----------------------------------------------------------------------------
    def _loop(self) -> None:
        timeout = self.settings.input.poll_timeout_ms / 1000
        last_housekeeping = 0.0
        while not self._stop.is_set():
            msg = self.consumer.poll(timeout)
            if msg is not None:
                self._on_message(msg)
            self._drain_events()
            now = time.monotonic()
            if now - self._last_loop > STALL_S:
                self._expiry_grace_until = now + STALL_GRACE_S
            self._last_loop = now
            if now - last_housekeeping >= 0.25:
                last_housekeeping = now
                self._expire()
                self._watched = frozenset(t for g in self.table.groups.values() for t in self._topics(g))
                self.metrics.groups.set(len(self.table.groups))
                self.metrics.members.set(self.table.member_count())
                self.dlq.poll(0)
            self._schedule(now)

    def _owns(self, group_id: str) -> bool:
        """Observe mode: this agent publishes a group's plans when it owns its partition."""
        return group_partition(group_id, self.subs_partitions) in frozenset(self._ready)

    def _on_assign(self, consumer: Consumer, partitions: list[KTopicPartition]) -> None:
        for tp in partitions:
            p = tp.partition
            self.table.drop_partition(p)
            self._ready.discard(p)
            self._loading[p] = loading_state(consumer, tp)
            tp.offset = OFFSET_BEGINNING
            self.worker.open(p)
        consumer.incremental_assign(partitions)
        self.metrics.assigned_partitions.inc(len(partitions))
        log.info(
            "subscriptions partitions assigned", partitions=[tp.partition for tp in partitions]
        )

    def _on_revoke(self, consumer: Consumer, partitions: list[KTopicPartition]) -> None:
        waits = []
        for tp in partitions:
            p = tp.partition
            self.table.drop_partition(p)
            self._ready.discard(p)
            self._loading.pop(p, None)
            if not self._closing:
                waits.append(self.worker.close(p))
        for done in waits:
            done.wait(15)
        self._dirty = {g for g in self._dirty if g in self.table.groups}
        self.metrics.assigned_partitions.dec(len(partitions))
        log.info("subscriptions partitions revoked", partitions=[tp.partition for tp in partitions])

    def _on_message(self, msg: Any) -> None:
        err = msg.error()
        if err is not None:
            if err.code() == KafkaError._PARTITION_EOF:
                state = self._loading.get(msg.partition())
                if state is not None:
                    state.eof = True
                    self._maybe_ready(msg.partition())
            else:
                log.warning("consumer error", error=str(err))
            return
        self.metrics.records.inc()
        p = msg.partition()
        loading = p in self._loading
        wall = time.time()
        if loading:
            ts_type, ts = msg.timestamp()
            seen = min(ts / 1000, wall) if ts_type and ts > 0 else wall
        else:
            seen = wall
        try:
            change = self.table.apply(
                p,
                msg.key(),
                msg.value(),
                header_value(msg.headers(), KIND_HEADER),
                seen,
                partition_of=lambda g: group_partition(g, self.subs_partitions),
            )
        except InputRejected as exc:
            self._dead_letter(msg, exc.reason, exc.detail)
            change = None
        if loading:
            self._loaded_through(p, msg.offset())
        elif change is not None and change.reason:
            self._trigger(change.group_id, change.reason, dict(change.detail))

    def _loaded_through(self, p: int, offset: int) -> None:
        """Loading ends at the end offset seen on assignment, not only on PARTITION_EOF:
        librdkafka emits no EOF while records keep arriving (members heartbeat a few times a
        second), so a busy partition would never become ready. EOF still ends a log whose
        last entry is a transaction marker when nothing follows it."""
        state = self._loading.get(p)
        if state is None or state.eof or state.end is None:
            return
        if offset + 1 >= state.end:
            state.eof = True
            self._maybe_ready(p)

    def _trigger(self, group_id: str, reason: str, detail: dict[str, Any] | None = None) -> None:
        group = self.table.groups.get(group_id)
        if group is None:
            return
        group.mark(reason, time.monotonic(), {"reason": reason, **(detail or {})})
        self._dirty.add(group_id)
        self.metrics.triggers.labels(reason).inc()

    def _dead_letter(self, msg: Any, reason: str, detail: str) -> None:
        write_dead_letter(
            self.dlq, self.settings.topics.deadletter, self.settings.instance_id, msg, reason, detail
        )
        self.metrics.dead_letters.labels(reason).inc()
        log.warning(
            "input rejected",
            reason=reason,
            detail=detail,
            source=msg.topic(),
            partition=msg.partition(),
            offset=msg.offset(),
        )

    def _maybe_ready(self, p: int) -> None:
        state = self._loading.get(p)
        if state is None or not (state.eof and state.opened):
            return
        del self._loading[p]
        self._ready.add(p)
        dirty, planned = restore_recovered(
            self.table, p, state.plans, self.subs_partitions, time.monotonic()
        )
        self._dirty.update(dirty)
        log.info(
            "partition ready",
            partition=p,
            groups=sum(1 for g in self.table.groups.values() if g.partition == p),
            replanned=planned,
        )

    def _drain_events(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            if isinstance(event, Opened):
                state = self._loading.get(event.partition)
                if state is not None:
                    state.opened = True
                    state.plans = event.plans
                    self._maybe_ready(event.partition)
            elif isinstance(event, Published):
                self._published(event)
            elif isinstance(event, Failed):
                self._failed(event)
            elif isinstance(event, TrafficSampled):
                self.replans.sampled(event)
            elif isinstance(event, Probed):
                self.replans.probed(event)
            else:
                self._rack_change(event)

    def _published(self, event: Published) -> None:
        job, plan = event.job, event.plan
        latency = time.monotonic() - job.dirty_since
        self.metrics.plans.labels(plan.reason).inc()
        self.metrics.plan_latency.observe(latency)
        self.metrics.cross_rack.labels(job.group_id).set(cross_rack_count(plan))
        log.info(
            "plan published",
            group=job.group_id,
            generation=plan.generation,
            reason=plan.reason,
            members=len(plan.members),
            withheld=len(plan.withheld),
            cross_rack=plan.summary.cross_rack_partitions,
            latency_ms=round(latency * 1000, 1),
        )
        group = self.table.groups.get(job.group_id)
        if group is None or group.partition not in self._ready:
            return
        group.in_flight = None
        group.last_plan = plan
        group.last_generation = max(group.last_generation, plan.generation)
        # A plan with warm-ups asks for a probing follow-up (KIP-441): the scheduler makes it.
        if plan.followup_ms is not None:
            self._followups[job.group_id] = time.monotonic() + plan.followup_ms / 1000
        else:
            self._followups.pop(job.group_id, None)
        # An owner may have released a withheld partition while this plan was being made.
        released = [
            f"{w.topic}-{w.partition}"
            for w in plan.withheld
            if w.owner not in group.members
            or (w.topic, w.partition) not in may_hold(group.members[w.owner], plan)
        ]
        if released:
            self._trigger(job.group_id, "followup", {"released": released})

    def _failed(self, event: Failed) -> None:
        job = event.job
        group = self.table.groups.get(job.group_id)
        if group is None:
            return
        group.in_flight = None
        group.last_generation = max(group.last_generation, job.generation)  # never reuse it
        if event.retry and group.partition in self._ready:
            for change in job.changes:
                group.changes.append(dict(change))
            group.expired.extend(job.expired)
            group.mark(job.reason, time.monotonic())
            self._dirty.add(job.group_id)

    def _rack_change(self, change: RackChange) -> None:
        detail = change.as_detail()
        log.info("leaders moved" if change.kind == "leaders-changed" else "replica racks changed",
                 **detail)
        for gid in rack_change_targets(change, self.table.groups, self._ready, self._topics,
                                       self.traffic.follower_fetching()):
            self._trigger(gid, change.kind, detail)

    def _expire(self) -> None:
        timeout = self.settings.input.session_timeout_ms / 1000
        stalled = time.monotonic() < self._expiry_grace_until
        skip = set(self._ready) if stalled else self._behind()
        # A loading partition has only been read part of the way: a member's newest
        # heartbeat may be further on, and expiring it would publish a tombstone for a live
        # member (the chaos suite saw the next agent then hand its partitions over).
        skip |= set(self._loading)
        for gid, mid in self.table.expire(time.time(), timeout, skip):
            group = self.table.groups[gid]
            group.expired.append(mid)
            log.info("member expired", group=gid, member=mid)
            if group.partition in self._ready:
                self._trigger(gid, "member-expired", {"member": mid})

    def _behind(self) -> set[int]:
        return behind(self.consumer, self.settings.topics.subscriptions, self._ready)

    def _schedule(self, now: float) -> None:
        """The one place re-plans are decided: due probing follow-ups, traffic re-plans whose
        saving held (agent.daemon.trafficprobe), then dirty groups once their changes have
        coalesced and no plan of theirs is in flight."""
        for gid in sorted(g for g, due in self._followups.items() if due <= now):
            del self._followups[gid]
            self._trigger(gid, "followup", {"probing": True})
        for gid, detail in self.replans.schedule(now, self.table.groups, self._ready,
                                                 self._followups):
            self._trigger(gid, "traffic-changed", detail)
        if not self._dirty:
            return
        coalesce = self.settings.planner.coalesce_ms / 1000
        for gid in sorted(self._dirty):
            group = self.table.groups.get(gid)
            if group is None or group.partition not in self._ready:
                self._dirty.discard(gid)
                continue
            if group.in_flight is not None or group.dirty_since is None:
                continue
            if now - group.dirty_since < coalesce or group.dirty == {"followup"} and awaiting_release(group):
                continue
            self._dirty.discard(gid)
            self.worker.submit(self._job(group))

    def _topics(self, group: GroupState) -> tuple[str, ...]:
        return planned_topics(group.group_id, group.kind, group.topics(), self.settings.planner)

    def _job(self, group: GroupState) -> PlanJob:
        return take_job(group, self.settings.planner, self._topics(group))

    # ---- metadata thread ---------------------------------------------------------------------
    def _metadata_loop(self) -> None:
        # Runs on its own thread: reads only self._watched (replaced whole by the poll loop)
        # and hands rack changes back through the event queue.
        watch_racks(
            self._stop,
            self.watch,
            self.settings.metadata.interval_s,
            lambda: self._watched,
            self._events.put,
            self.metrics.metadata_errors.inc,
            self._sample_and_advise,
        )

    def _sample_and_advise(self, topics: Iterable[str]) -> None:
        """The metadata round's traffic sample (the planned topics, plus those advised), then
        the advice it gives (agent.daemon.advice)."""
        sample_and_advise(topics, self.advice, lambda: self.admin.list_topics(timeout=15).topics,
                          self.prober.sample, self.traffic.measured, self.settings.planner.rules)

    def health(self) -> tuple[bool, dict[str, Any]]:
        loop_age = time.monotonic() - self._last_loop
        worker = self.worker
        ok = loop_age < 30 and worker.alive and not self._stop.is_set()
        return ok, {
            "loop_age_s": round(loop_age, 3),
            "worker_alive": worker.alive,
            "groups": len(self.table.groups),
            "members": self.table.member_count(),
            "ready_partitions": sorted(self._ready),
            "loading_partitions": sorted(self._loading),
        }


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
