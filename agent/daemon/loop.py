"""The agent's poll loop: subscriptions in, triggers out to the plan worker.

Shape after arroyo's StreamProcessor: poll with a short timeout; a signal only sets a flag;
on exit drain the worker, flush and commit; an unexpected error closes everything and
re-raises. Three helpers run beside the loop: the plan worker (agent.daemon.worker), the
metadata poller (a thread running agent.daemon.rackwatch.watch_racks) and the ops server. Partition
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
from collections.abc import Iterable
from typing import Any

import structlog
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KTopicPartition
from confluent_kafka.admin import AdminClient

from agent.brokers.traffic import TrafficEstimator
from agent.config.settings import AgentSettings
from agent.daemon.advice import AdvicePublisher, sample_and_advise
from agent.daemon.deadletter import write_dead_letter
from agent.daemon.events import Failed, LoopEvent, Opened, Probed, Published, RackChange, TrafficSampled
from agent.daemon.loading import (
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
from agent.daemon.schedule import Scheduler
from agent.daemon.state import GroupState, GroupTable, InputRejected
from agent.daemon.topics import ensure_topics, partition_counts
from agent.daemon.trafficprobe import TrafficProber, TrafficReplans
from agent.daemon.worker import PlanWorker
from protocol.routing import KIND_HEADER, group_partition, header_value

log = structlog.get_logger("rackwise.agent")


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
        self.scheduler = Scheduler(
            self.table, self._ready, s.planner.coalesce_ms / 1000, self._topics,
            traffic_replans=self.replans.schedule,
            counted=lambda reason: self.metrics.triggers.labels(reason).inc(),
        )
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
                    # A broker whose metadata has not caught up with a just-created topic
                    # answers "unknown topic"; librdkafka then looks again only at its next
                    # refresh (5 minutes by default), and this agent owns no partition until
                    # then. 10 s bounds that wait (and notices added partitions as soon).
                    **(
                        {}
                        if "topic.metadata.refresh.interval.ms" in s.kafka
                        else {"topic.metadata.refresh.interval.ms": 10_000}
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
        self.prober.join(5)
        # The admin client is destroyed here, on the agent's thread, once none of our threads
        # can still use it. Left to the garbage collector, it could be destroyed on its own
        # librdkafka thread (when a describe is still pending), and that aborts the process.
        if meta.is_alive() or self.worker.running() or self.prober.running() or (
                self.observer is not None and self.observer.running()):
            log.warning("a thread outlived the shutdown; the admin client is left open")
        else:
            self.admin.__exit__(None, None, None)
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
        self.scheduler.forget_dropped()
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
            self.scheduler.trigger(change.group_id, change.reason, dict(change.detail))

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
        self.scheduler.mark_dirty(dirty)
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
        self.scheduler.published(job.group_id, plan)

    def _failed(self, event: Failed) -> None:
        job = event.job
        self.scheduler.failed(job.group_id, job.generation, job.triggers, job.changes, job.expired,
                              event.retry)

    def _rack_change(self, change: RackChange) -> None:
        detail = change.as_detail()
        log.info("leaders moved" if change.kind == "leaders-changed" else "replica racks changed",
                 **detail)
        self.scheduler.rack_change(change, self.traffic.follower_fetching())

    def _expire(self) -> None:
        timeout = self.settings.input.session_timeout_ms / 1000
        stalled = time.monotonic() < self._expiry_grace_until
        skip = set(self._ready) if stalled else self._behind()
        # A loading partition has only been read part of the way: a member's newest
        # heartbeat may be further on, and expiring it would publish a tombstone for a live
        # member (the chaos suite saw the next agent then hand its partitions over).
        skip |= set(self._loading)
        for gid, mid in self.scheduler.expire(time.time(), timeout, skip):
            log.info("member expired", group=gid, member=mid)

    def _behind(self) -> set[int]:
        return behind(self.consumer, self.settings.topics.subscriptions, self._ready)

    def _schedule(self, now: float) -> None:
        """Submit what the scheduler (agent.daemon.schedule) says is due."""
        for job in self.scheduler.due(now, self._job):
            self.worker.submit(job)

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
