"""The plan worker: computes plans off the poll loop and publishes them transactionally.

One transactional producer per owned subscriptions partition, ``transactional.id =
<prefix>.<subscriptions topic>.<partition>``: when that partition moves to another agent,
the new owner's ``init_transactions`` fences this one, so a stale agent cannot publish. The
same worker then reads the matching ``plans`` partition (read_committed) to recover the last
plan and generation of every group there, and only then reports the partition open.

Commands arrive on a queue in order (open, plan, close), results go back on another queue
the poll loop drains; the poll loop never waits on a broker round trip for a plan.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import structlog
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.brokers.traffic import TrafficEstimator
from agent.config.settings import AgentSettings
from agent.daemon.events import (
    ClosePartition,
    Failed,
    LoopEvent,
    Opened,
    OpenPartition,
    PlanJobCommand,
    Published,
    StopWorker,
    WorkerCommand,
)
from agent.daemon.offsets import end_offsets
from agent.daemon.ops import Metrics
from agent.daemon.planning import PlanJob, compute_plan, cross_rack_count
from agent.daemon.rackwatch import RackWatch
from assignor.errors import AssignorError
from protocol.errors import RackwiseError
from protocol.plan import OBSERVE_REASONS, PLAN_REASONS, AssignmentPlan
from protocol.routing import group_partition, member_key

log = structlog.get_logger("rackwise.publisher")


def control_event(kind: str, group: str, agent: str, **fields: Any) -> bytes:
    doc = {
        "type": kind,
        "group": group,
        "agent": agent,
        "at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    doc.update(fields)
    return json.dumps(doc, separators=(",", ":"), default=str).encode()


class PlanWorker:
    """A thread that owns the transactional producers and turns PlanJobs into plans."""

    def __init__(
        self,
        settings: AgentSettings,
        watch: RackWatch,
        metrics: Metrics,
        results: Callable[[LoopEvent], None],
        traffic: TrafficEstimator | None = None,
    ) -> None:
        self.settings = settings
        self.watch = watch
        self.traffic = traffic
        self.metrics = metrics
        self.results = results
        self.plans_partitions = settings.topics.partitions
        self.same_layout = True
        self.commands: queue.Queue[WorkerCommand] = queue.Queue()
        self.producers: dict[int, Producer] = {}
        self._thread = threading.Thread(target=self._run, name="rackwise-planner", daemon=True)
        self.alive = True

    # ---- API for the poll loop -------------------------------------------------------------
    def set_layout(self, plans_partitions: int, subscriptions_partitions: int) -> None:
        """The topics' real partition counts, read by the agent before the worker starts."""
        self.plans_partitions = plans_partitions
        self.same_layout = plans_partitions == subscriptions_partitions

    def start(self) -> None:
        self._thread.start()

    def open(self, partition: int) -> None:
        self.commands.put(OpenPartition(partition))

    def close(self, partition: int) -> threading.Event:
        command = ClosePartition(partition)
        self.commands.put(command)
        return command.done

    def submit(self, job: PlanJob) -> None:
        self.commands.put(PlanJobCommand(job))

    def stop(self, timeout: float = 30.0) -> None:
        self.commands.put(StopWorker())
        self._thread.join(timeout)

    def running(self) -> bool:
        """Whether its thread still runs."""
        return self._thread.is_alive()

    # ---- the thread --------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while True:
                try:
                    cmd = self.commands.get(timeout=1.0)
                except queue.Empty:
                    continue
                if isinstance(cmd, StopWorker):
                    break
                if isinstance(cmd, PlanJobCommand):
                    jobs = [cmd.job]
                    # Batch what is already queued: one transaction per producer per batch.
                    while len(jobs) < 500:
                        try:
                            nxt = self.commands.get_nowait()
                        except queue.Empty:
                            break
                        if not isinstance(nxt, PlanJobCommand):
                            self._publish(jobs)
                            jobs = []
                            if isinstance(nxt, StopWorker):
                                return
                            self._command(nxt)
                            continue
                        jobs.append(nxt.job)
                    if jobs:
                        self._publish(jobs)
                else:
                    self._command(cmd)
        except Exception:  # pragma: no cover - reported through /healthz
            log.exception("plan worker died")
            self.alive = False
        finally:
            for partition in sorted(self.producers):
                self._close(partition)

    def _command(self, cmd: OpenPartition | ClosePartition) -> None:
        if isinstance(cmd, OpenPartition):
            self._open(cmd.partition)
        else:
            self._close(cmd.partition)
            cmd.done.set()

    def _open(self, partition: int) -> None:
        s = self.settings
        txn_id = f"{s.transactional_id_prefix}.{s.topics.subscriptions}.{partition}"
        attempt = 0
        while True:
            # A broker may be down or electing: keep trying, nothing can be planned without it.
            attempt += 1
            producer = Producer(
                s.client_config(
                    **{
                        "transactional.id": txn_id,
                        "enable.idempotence": True,
                        "linger.ms": 5,
                        "transaction.timeout.ms": 60000,
                    }
                )
            )
            try:
                producer.init_transactions(30)
                self.producers[partition] = producer
                plans = self._recover(partition)
                break
            except Exception as exc:  # KafkaException, or a KafkaError raised as is
                self.producers.pop(partition, None)
                log.warning(
                    "partition open failed; retrying",
                    partition=partition,
                    attempt=attempt,
                    error=str(exc),
                )
                if self._abandon_open(partition):
                    # Stopping, or the partition was taken away meanwhile: the queued command
                    # runs next (a close finds no producer and only signals its caller).
                    log.info("partition open abandoned", partition=partition)
                    return
                time.sleep(min(0.5 * attempt, 5))
        log.info(
            "partition open",
            partition=partition,
            transactional_id=txn_id,
            recovered_groups=len(plans),
        )
        self.results(Opened(partition, plans))

    def _recover(self, partition: int) -> dict[str, AssignmentPlan]:
        """The newest committed plan of every group in the matching plans partition(s)."""
        s = self.settings
        consumer = Consumer(
            s.client_config(
                **{
                    "group.id": f"{s.transactional_id_prefix}-recovery",
                    "enable.auto.commit": False,
                    "isolation.level": "read_committed",
                    "enable.partition.eof": True,
                    "auto.offset.reset": "earliest",
                }
            )
        )
        try:
            return self._read_latest(consumer, partition)
        finally:
            consumer.close()

    def _read_latest(self, consumer: Consumer, partition: int) -> dict[str, AssignmentPlan]:
        s = self.settings
        parts = [partition] if self.same_layout else list(range(self.plans_partitions))
        pending = set()
        assign = []
        for p in parts:
            low, high = consumer.get_watermark_offsets(
                KTopicPartition(s.topics.plans, p), timeout=15, cached=False
            )
            if high > low:
                pending.add(p)
                assign.append(KTopicPartition(s.topics.plans, p, OFFSET_BEGINNING))
        latest: dict[str, AssignmentPlan] = {}
        if assign:
            consumer.assign(assign)
            deadline = time.monotonic() + 120
            while pending and time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is None:
                    continue
                error = msg.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        pending.discard(msg.partition())
                    continue
                try:
                    plan = AssignmentPlan.from_json(msg.value() or b"")
                except RackwiseError:
                    continue
                if (plan.reason not in PLAN_REASONS or plan.reason in OBSERVE_REASONS
                        or plan.request_id is not None):
                    # Observe mode's plans, the plug-ins' reports (reason "assigned"), a newer
                    # writer's reasons and the answers of the retired Streams request service
                    # (request_id set) are not this agent's planning state: recovered, a
                    # plug-in's group would become a ghost and get an empty member-left plan.
                    continue
                old = latest.get(plan.group_id)
                if old is None or plan.generation > old.generation:
                    latest[plan.group_id] = plan
            if pending:
                log.warning("plan recovery incomplete", partitions=sorted(pending))
        return latest

    def _abandon_open(self, partition: int) -> bool:
        """Whether a queued command makes retrying the open of ``partition`` pointless."""
        with self.commands.mutex:
            return any(
                isinstance(c, StopWorker)
                or (isinstance(c, ClosePartition) and c.partition == partition)
                for c in self.commands.queue
            )

    def _close(self, partition: int) -> None:
        producer = self.producers.pop(partition, None)
        if producer is not None:
            producer.flush(10)

    def _publish(self, jobs: list[PlanJob]) -> None:
        by_partition: dict[int, list[tuple[PlanJob, AssignmentPlan | None, str | None]]] = {}
        for job in jobs:
            try:
                self.watch.ensure(job.topics)
                view = self.watch.view(job.topics)
                if self.traffic is not None:  # measured bytes/s as weights, the read model
                    view = self.traffic.enrich(view)
                ends = (
                    end_offsets(self.watch.admin, job.changelog_partitions(view),
                                self.settings.metadata.request_timeout_s)
                    if job.kind == "streams" else {}
                )
                plan: AssignmentPlan | None = compute_plan(job, view, ends)
                error = None
            except (AssignorError, RackwiseError, ValueError) as exc:
                plan, error = None, str(exc)
                self.metrics.plan_failures.labels("assignor").inc()
                log.warning("plan failed", group=job.group_id, error=error)
            except Exception as exc:  # noqa: BLE001 - a bug fails one plan, never the worker
                plan, error = None, f"internal error: {exc!r}"
                self.metrics.plan_failures.labels("internal").inc()
                log.exception("plan failed unexpectedly", group=job.group_id)
            by_partition.setdefault(job.partition, []).append((job, plan, error))
        for partition in sorted(by_partition):
            self._transaction(partition, by_partition[partition])

    def _control(self, producer: Producer, kind: str, group_id: str, **fields: Any) -> None:
        """One event on the control topic, inside the caller's transaction."""
        producer.produce(
            self.settings.topics.control,
            key=group_id.encode(),
            value=control_event(kind, group_id, self.settings.instance_id, **fields),
        )

    def _transaction(
        self, partition: int, items: list[tuple[PlanJob, AssignmentPlan | None, str | None]]
    ) -> None:
        s = self.settings
        producer = self.producers.get(partition)
        if producer is None:
            for job, _, _ in items:
                self.results(Failed(job, "partition not owned", fenced=True))
            return
        try:
            producer.begin_transaction()
            for job, plan, error in items:
                for member in job.expired:
                    producer.produce(
                        s.topics.subscriptions,
                        key=member_key(job.group_id, member),
                        value=None,
                        partition=partition,
                    )
                    self._control(producer, "member-expired", job.group_id, member=member)
                if plan is None:
                    self._control(producer, "plan-failed", job.group_id, generation=job.generation,
                                  reason=job.reason, error=error)
                    continue
                producer.produce(
                    s.topics.plans,
                    key=job.group_id.encode(),
                    value=plan.to_json().encode(),
                    partition=group_partition(job.group_id, self.plans_partitions),
                )
                self._control(producer, "rebalance-triggered", job.group_id,
                              generation=plan.generation, reason=plan.reason,
                              assignor=plan.assignor, changes=list(job.changes),
                              withheld=len(plan.withheld), cross_rack=cross_rack_count(plan))
                released = [c for c in job.changes if c.get("released")]
                if released:
                    self._control(producer, "withheld-released", job.group_id,
                                  generation=plan.generation,
                                  released=[r for c in released for r in _released(c)])
            producer.commit_transaction(30)
        except KafkaException as exc:
            err = exc.args[0] if exc.args else None
            fenced = bool(
                err
                and (
                    err.fatal()
                    or err.code()
                    in (
                        KafkaError._FENCED,
                        KafkaError.PRODUCER_FENCED,
                        KafkaError.INVALID_PRODUCER_EPOCH,
                    )
                )
            )
            log.warning(
                "plan transaction failed", partition=partition, error=str(exc), fenced=fenced
            )
            self.metrics.plan_failures.labels("publish").inc()
            if not fenced and err is not None and err.txn_requires_abort():
                try:
                    producer.abort_transaction(30)
                except KafkaException:
                    fenced = True
            if fenced:
                self.producers.pop(partition, None)
            for job, _, _ in items:
                self.results(Failed(job, str(exc), fenced=fenced, retry=not fenced))
            return
        for job, plan, error in items:
            if plan is None:
                self.results(Failed(job, error or "plan failed"))
            else:
                self.results(Published(job, plan))


def _released(change: Mapping[str, object]) -> list[str]:
    value = change.get("released")
    return [str(v) for v in value] if isinstance(value, list) else []
