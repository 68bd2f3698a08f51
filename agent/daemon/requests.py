"""The agent as the KIP-924 task assignor's service, reached through Kafka
(docs/architecture.md § Kafka's seams).

Kafka Streams' task assignor (plugins/, ``RackwiseTaskAssignor``) writes an application's
processes and tasks to ``rackwise.requests`` (key: the application id, so the request lands
in the partition number of the group's subscriptions and plans). Consumer groups send none:
their plug-ins decide in-process, and a ``consumer`` request is answered with a dead letter.
The agent that owns that partition reads it, plans at once through the same seam as every
other plan, and answers on ``rackwise.plans`` with the plan carrying the request's id (in
the ``rackwise-request-id`` header and the plan's ``request_id``). A request it cannot serve
goes to ``rackwise.deadletter`` with the same id and a reason, so the caller falls back at
once instead of waiting out its time-out.

:class:`RequestReader` reads exactly the request partitions whose subscriptions partitions
this agent has ready (it starts at their end: a request older than that has been given up);
:func:`request_job` turns one record into a PlanJob (a StreamsApp, agent.daemon.streams_requests)
or raises InputRejected.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import structlog
from confluent_kafka import OFFSET_END, Consumer, KafkaException
from confluent_kafka import TopicPartition as KTopicPartition

from agent.config.settings import AgentSettings
from agent.daemon.ops import Metrics
from agent.daemon.planning import PlanJob, assignor_for
from agent.daemon.state import GroupTable, InputRejected
from agent.daemon.streams_requests import StreamsServiceRequest
from assignor.api import Round, next_generation
from protocol.errors import ProtocolError
from protocol.plan import AssignmentPlan
from protocol.routing import KIND_HEADER, group_partition, header_value
from protocol.streams_request import REQUEST_ID_HEADER, decode_streams_request

log = structlog.get_logger("rackwise.requests")

class RequestReader:
    """A consumer without a group, assigned the request partitions this agent serves."""

    def __init__(self, settings: AgentSettings) -> None:
        self.topic = settings.topics.requests
        self.consumer = Consumer(
            settings.client_config(
                **{
                    "group.id": f"rackwise-requests-{settings.instance_id}",  # never joined
                    "enable.auto.commit": False,
                    "enable.partition.eof": False,
                    "client.id": f"rackwise-agent-requests-{settings.instance_id}",
                }
            )
        )
        self.partitions: set[int] = set()

    def serve(self, partition: int, max_age_s: float) -> None:
        """Read ``partition`` from the first request younger than ``max_age_s``: one sent
        while the partition moved between agents is still answered if its caller may wait."""
        if partition in self.partitions:
            return
        self.partitions.add(partition)
        since = int((time.time() - max_age_s) * 1000)
        start = OFFSET_END
        try:
            found = self.consumer.offsets_for_times(
                [KTopicPartition(self.topic, partition, since)], timeout=10
            )
            if found and found[0].error is None and found[0].offset >= 0:
                start = found[0].offset
            else:  # nothing that recent: start at the end, resolved now, not later
                start = self.consumer.get_watermark_offsets(
                    KTopicPartition(self.topic, partition), timeout=10, cached=False
                )[1]
        except KafkaException as exc:
            log.warning("request offsets not read; starting at the end", partition=partition,
                        error=str(exc))
        self.consumer.incremental_assign([KTopicPartition(self.topic, partition, start)])

    def stop_serving(self, partition: int) -> None:
        if partition in self.partitions:
            self.partitions.discard(partition)
            self.consumer.incremental_unassign([KTopicPartition(self.topic, partition)])

    def poll(self) -> list[Any]:
        if not self.partitions:
            return []
        return [m for m in self.consumer.consume(100, 0) if m.error() is None]

    def close(self) -> None:
        self.consumer.close()


def request_job(
    msg: Any,
    settings: AgentSettings,
    table: GroupTable,
    previous: AssignmentPlan | None,
    partitions: int,
    in_flight: int = 0,
    now: float | None = None,
) -> PlanJob:
    """The PlanJob answering one request record; InputRejected says why there is none."""
    request_id = header_value(msg.headers(), REQUEST_ID_HEADER)
    if not request_id:
        raise InputRejected("bad-request", f"no {REQUEST_ID_HEADER} header: nobody to answer")
    try:
        group_id = (msg.key() or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise InputRejected("bad-request", "the key (group id) is not UTF-8") from None
    if not group_id:
        raise InputRejected("bad-request", "no key: the key is the group id")
    expected = group_partition(group_id, partitions)
    if expected != msg.partition():
        raise InputRejected(
            "wrong-partition",
            f"group {group_id} belongs to partition {expected} of {msg.topic()}, not "
            f"{msg.partition()}: produce with the group id as key and the default partitioner",
        )
    kind = header_value(msg.headers(), KIND_HEADER) or "consumer"
    if kind == "consumer":
        raise InputRejected(
            "unsupported-kind",
            "consumer groups decide in-process (plug-in jar 0.2+); this agent plans only "
            f"{KIND_HEADER}=streams requests: upgrade the plug-in jar",
        )
    if kind != "streams":
        raise InputRejected(
            "unsupported-kind", f"{KIND_HEADER}={kind!r}: this agent plans streams requests"
        )
    ts_type, ts = msg.timestamp()
    age = (now or time.time()) - ts / 1000 if ts_type and ts > 0 else 0.0
    if age > settings.requests.max_age_s:
        raise InputRejected("expired", f"request is {age:.0f}s old; its caller has fallen back")
    group = table.groups.get(group_id)
    if group is not None and group.members:
        raise InputRejected(
            "group-conflict",
            f"group {group_id} is planned from {settings.topics.subscriptions} "
            "(PlanFollower members); one group cannot follow both",
        )
    return streams_job(msg, request_id, group_id, settings, previous, in_flight)


def streams_job(
    msg: Any,
    request_id: str,
    group_id: str,
    settings: AgentSettings,
    previous: AssignmentPlan | None,
    in_flight: int,
) -> PlanJob:
    """A KIP-924 task assignor's request (``rackwise-kind: streams``, the key is the
    application id): planned through the seam as a StreamsApp (agent.daemon.streams_requests)."""
    try:
        request = decode_streams_request(msg.value() or b"")
    except ProtocolError as exc:
        raise InputRejected("undecodable", str(exc)) from None
    if request.application_id != group_id:
        raise InputRejected(
            "bad-request",
            f"application_id {request.application_id!r} differs from the key {group_id!r}",
        )
    service = StreamsServiceRequest(request_id, request)
    return PlanJob(
        group_id=group_id,
        partition=msg.partition(),
        kind="streams",
        generation=next_generation(Round(previous=previous, generation_floor=in_flight)),
        triggers=(),
        assignor=assignor_for(group_id, "streams", settings.planner),
        members=(),
        topics=service.placement_topics(),
        dirty_since=time.monotonic(),
        previous=previous,
        request=service,
    )


class RequestService:
    """Requests in, plan jobs out: the poll loop's side of the assignment service.

    Groups planned on request keep their last plan and the generation of the job in flight
    here, apart from the subscriptions' group table; a plan recovered from the plans topic
    that answered a request comes back here when its partition is opened.
    """

    def __init__(
        self,
        settings: AgentSettings,
        metrics: Metrics,
        submit: Callable[[PlanJob], None],
        dead_letter: Callable[[Any, str, str], None],
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.submit = submit
        self.dead_letter = dead_letter
        self.reader = RequestReader(settings)
        self.plans: dict[str, AssignmentPlan] = {}
        self.floor: dict[str, int] = {}

    def partitions(self) -> list[int]:
        return sorted(self.reader.partitions)

    def open(self, partition: int, recovered: Mapping[str, AssignmentPlan]) -> None:
        self.plans.update({g: p for g, p in recovered.items() if p.request_id is not None})
        self.reader.serve(partition, self.settings.requests.max_age_s)

    def close_partition(self, partition: int, partitions: int) -> None:
        self.reader.stop_serving(partition)
        for gid in [g for g in self.plans if group_partition(g, partitions) == partition]:
            del self.plans[gid]
            self.floor.pop(gid, None)

    def serve(self, table: GroupTable, partitions: int) -> None:
        for msg in self.reader.poll():
            gid = (msg.key() or b"").decode("utf-8", "replace")
            try:
                job = request_job(
                    msg, self.settings, table, self.plans.get(gid), partitions,
                    self.floor.get(gid, -1),
                )
            except InputRejected as exc:
                self.metrics.requests.labels(exc.reason).inc()
                self.dead_letter(msg, exc.reason, exc.detail)
                continue
            self.floor[gid] = job.generation
            self.submit(job)

    def published(self, job: PlanJob, plan: AssignmentPlan) -> None:
        assert job.request is not None
        self.plans[job.group_id] = plan
        self.metrics.requests.labels("planned").inc()
        self.metrics.cross_rack.labels(job.group_id).set(
            sum(1 for m in plan.members for p in m.partitions if p.cross_rack)
        )
        log.info("request planned", group=job.group_id, request=job.request.request_id,
                 protocol=job.request.protocol, generation=plan.generation,
                 members=len(plan.members), cross_rack=plan.summary.cross_rack_partitions,
                 latency_ms=round((time.monotonic() - job.dirty_since) * 1000, 1))

    def failed(self, job: PlanJob) -> None:
        # The worker told the caller (a dead letter with the request id); nothing to retry:
        # the caller has fallen back by the time a retry could answer.
        self.metrics.requests.labels("plan-failed").inc()

    def close(self) -> None:
        self.reader.close()
