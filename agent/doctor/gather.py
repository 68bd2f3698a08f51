"""Reading the cluster for ``rackwise doctor``: the one module of agent.doctor that does IO.

:func:`gather` asks, in order and each with a bounded timeout: ``describe_cluster`` (brokers
and racks; no answer is :class:`Unreachable`), ``describe_configs`` per broker
(``replica.selector.class``, ``group.consumer.assignors`` and whether each is read-only), the
groups as the audit reads them (agent.audit.read: DescribeGroups member bytes for classic
groups, ConsumerGroupDescribe / StreamsGroupDescribe for Kafka 4.x ones), the topic list, the
newest advice record, and, only when members set racks but some broker does not serve reads
from followers, what each group reads now (agent.audit, with a traffic sample of
``window_s``) so the checks can price follower fetching. Nothing is written to the cluster.
"""

from __future__ import annotations

import fnmatch
import time
import uuid
from collections.abc import Mapping
from typing import Any

from agent.audit import AuditOptions, RawGroup, audit_group, read_groups
from agent.audit import topics_read as audit_topics_read
from agent.audit.read import AuditError
from agent.brokers.rpc import WireClient, WireError, WireSettings
from agent.config.settings import AgentSettings
from agent.doctor.model import (
    ASSIGNORS_CONFIG,
    BROKER_RACK,
    SELECTOR_CONFIG,
    STREAMS_ASSIGNOR_NAME_CONFIG,
    STREAMS_ASSIGNORS_CONFIG,
    AgentState,
    BrokerState,
    GroupReads,
    GroupState,
    MemberState,
    Snapshot,
)
from assignor.inputs import ClusterView, TopicPartition
from protocol.errors import ProtocolError, RackwiseError
from protocol.groupdescribe import DescribedConsumerGroup, DescribedStreamsGroup
from protocol.member import decode_member_metadata

STREAMS_PROTOCOL = "stream"


class Unreachable(RackwiseError):
    """No broker answered within the timeout: the message says which bootstrap was tried."""


def admin_config(settings: AgentSettings, timeout: float) -> dict[str, Any]:
    """Client properties that give up within ``timeout`` instead of retrying for minutes."""
    ms = max(1000, int(timeout * 1000))
    return settings.client_config(**{
        "socket.connection.setup.timeout.ms": ms,
        "socket.timeout.ms": ms,
        "reconnect.backoff.max.ms": 1000,
        "logger": _Quiet(),
    })


def read_brokers(admin: Any, timeout: float) -> list[BrokerState]:
    """Brokers and their racks, then each one's settings; raises :class:`Unreachable`."""
    from confluent_kafka.admin import ConfigResource, ResourceType

    try:
        cluster = admin.describe_cluster(request_timeout=timeout).result(timeout + 1)
    except Exception as exc:  # noqa: BLE001 - KafkaException, timeouts: all mean "no answer"
        raise Unreachable(_first_line(exc)) from None
    nodes = sorted(cluster.nodes, key=lambda n: n.id)
    resources = [ConfigResource(ResourceType.BROKER, str(n.id)) for n in nodes]
    # librdkafka takes one BROKER resource per call; the calls run concurrently
    futures = [admin.describe_configs([r], request_timeout=timeout)[r] for r in resources]
    out = []
    for node, future in zip(nodes, futures, strict=True):
        address = f"{node.host}:{node.port}"
        try:
            entries = future.result(timeout + 1)
        except Exception as exc:  # noqa: BLE001 - authorisation, timeout: reported per broker
            out.append(BrokerState(node.id, node.rack or None, address, selector=None,
                                   assignors=None, config_error=_first_line(exc)))
            continue
        selector = entries.get(SELECTOR_CONFIG)
        assignors = entries.get(ASSIGNORS_CONFIG)
        streams = entries.get(STREAMS_ASSIGNORS_CONFIG)
        read_only = frozenset(
            name for name in (BROKER_RACK, SELECTOR_CONFIG, ASSIGNORS_CONFIG)
            if (e := entries.get(name)) is None or e.is_read_only)
        out.append(BrokerState(
            node.id, node.rack or None, address,
            selector=(selector.value or "") if selector is not None else "",
            assignors=tuple(a.strip() for a in (assignors.value or "").split(",") if a.strip())
            if assignors is not None else (),
            read_only=read_only,
            streams_assignors=tuple(a.strip() for a in (streams.value or "").split(",") if a.strip())
            if streams is not None else None,
        ))
    return out


def read_streams_assignors(admin: Any, group_ids: list[str], timeout: float) -> dict[str, str]:
    """group id -> the streams.assignor.name group config, where a group sets it.

    What the coordinator actually uses (StreamsGroupDescription.assignorName()) is read apart,
    with rackwise's own StreamsGroupDescribe v1 (agent.audit.brokergroups; confluent-kafka 2.16.1
    has no streams-group describe): :func:`group_state`."""
    from confluent_kafka.admin import ConfigResource, ResourceType

    out: dict[str, str] = {}
    resources = [ConfigResource(ResourceType.GROUP, g) for g in group_ids]
    if not resources:
        return out
    # one resource per call, as for brokers; the calls run concurrently
    futures = [(r, admin.describe_configs([r], request_timeout=timeout)[r]) for r in resources]
    for resource, future in futures:
        try:
            entries = future.result(timeout + 1)
        except Exception:  # noqa: BLE001 - a group of a release without group configs
            continue
        entry = entries.get(STREAMS_ASSIGNOR_NAME_CONFIG)
        if entry is not None and entry.value and not entry.is_default:
            out[resource.name] = entry.value
    return out


def group_state(raw: RawGroup) -> GroupState:
    """A group's members and the racks they send, whichever protocol it speaks."""
    base = GroupState(raw.group_id, raw.group_type, raw.state, raw.protocol, error=raw.error)
    desc = raw.described
    if isinstance(desc, DescribedConsumerGroup):
        return GroupState(raw.group_id, raw.group_type, desc.group_state, desc.assignor_name,
                          tuple(MemberState(m.member_id, m.rack_id or None, m.client_id,
                                            m.client_host) for m in desc.members))
    if isinstance(desc, DescribedStreamsGroup):
        # StreamsGroupDescribe v1 (4.4) names the assignor the coordinator uses; v0 none
        return GroupState(raw.group_id, raw.group_type, desc.group_state,
                          desc.assignor_name or "streams",
                          tuple(MemberState(m.member_id, m.rack_id or None, m.client_id,
                                            m.client_host) for m in desc.members))
    if raw.error or raw.protocol_type != "consumer":
        return base  # connect and other protocols carry no client.rack
    members = []
    for m in raw.members:
        try:
            sub, _ = decode_member_metadata(m.metadata or b"",
                                            streams=raw.protocol == STREAMS_PROTOCOL)
        except ProtocolError as exc:
            return GroupState(raw.group_id, raw.group_type, raw.state, raw.protocol,
                              error=f"member {m.member_id}: undecodable metadata ({exc})")
        members.append(MemberState(m.member_id, sub.rack, m.client_id, m.client_host))
    return GroupState(raw.group_id, raw.group_type, raw.state, raw.protocol, tuple(members))


def newest_timestamp_ms(settings: AgentSettings, topic: str, timeout: float) -> int | None:
    """The newest record's timestamp on ``topic`` (None: no record): the last few offsets of
    each partition are read (the last offset may be a transaction marker)."""
    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as KTopicPartition

    consumer = Consumer(settings.client_config(**{
        "group.id": f"rackwise-doctor-{uuid.uuid4().hex[:8]}", "enable.auto.commit": False,
        "enable.partition.eof": True, "auto.offset.reset": "earliest", "logger": _Quiet(),
    }))
    try:
        meta = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
        if meta is None or meta.error is not None:
            return None
        wanted = []
        for p in sorted(meta.partitions):
            low, high = consumer.get_watermark_offsets(KTopicPartition(topic, p), timeout=timeout)
            if high > low:
                wanted.append(KTopicPartition(topic, p, max(low, high - 5)))
        if not wanted:
            return None
        consumer.assign(wanted)
        pending = {tp.partition for tp in wanted}
        newest: int | None = None
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for msg in consumer.consume(100, 0.5):
                if msg.error() is not None:
                    pending.discard(msg.partition())  # EOF (or an error): done with it
                    continue
                kind, ts = msg.timestamp()
                if kind and ts > 0:
                    newest = ts if newest is None else max(newest, ts)
        return newest
    finally:
        consumer.close()


def read_agent(admin: Any, settings: AgentSettings, raws: Mapping[str, RawGroup],
               existing: set[str], timeout: float) -> AgentState:
    t = settings.topics
    topics = {"subscriptions": t.subscriptions, "plans": t.plans, "control": t.control,
              "deadletter": t.deadletter, "advice": t.advice}
    raw = raws.get(settings.input.group_id)
    members: int | None = 0
    if raw is not None:
        state = group_state(raw)
        members = None if state.error else len(state.members)
    newest, error = None, None
    if t.advice in existing:
        try:
            newest = newest_timestamp_ms(settings, t.advice, timeout)
        except Exception as exc:  # noqa: BLE001 - a read failure is a note, not a crash
            error = _first_line(exc)
    return AgentState(topics=topics, existing=frozenset(n for n in topics.values() if n in existing),
                      group_id=settings.input.group_id, members=members,
                      advice_newest_ms=newest, advice_max_age_s=3 * settings.advice.refresh_s,
                      advice_error=error)


def read_what_groups_read(admin: Any, settings: AgentSettings, raws: list[RawGroup],
                          window_s: float, timeout: float) -> tuple[list[GroupReads], float]:
    """Each measurable group's assignment and the view it reads (bytes/s sampled over
    ``window_s`` when > 0): the audit's own figures, for agent.doctor.checks' pricing."""
    from agent.brokers.placement import describe
    from agent.brokers.traffic import TrafficEstimator

    topics = sorted({t for raw in raws for t in audit_topics_read(raw)})
    if not topics:
        return [], 0.0
    client_config = settings.client_config()
    estimator = None
    if window_s > 0:
        try:
            estimator = TrafficEstimator(admin, client_config, settings.traffic, timeout)
            estimator.measure(topics, window_s)
        except Exception:  # noqa: BLE001 - bytes are optional: partitions are still counted
            estimator, window_s = None, 0.0
    base = describe(admin, topics, timeout, read_selectors=True).view
    if estimator is not None:
        base = estimator.enrich(base)

    def placement(names: Any) -> ClusterView:
        return base.restricted(sorted(set(names)))

    options = AuditOptions(price=settings.cost.price(), hosts=settings.cost.hosts())
    out = []
    for raw in raws:
        audit = audit_group(raw, placement, options=options)
        plan = audit.actual
        if not audit.measured or plan is None or audit.kind != "consumer":
            continue
        assignment = {m.member_id: tuple(TopicPartition(p.topic, p.partition)
                                         for p in m.partitions) for m in plan.members}
        out.append(GroupReads(
            raw.group_id,
            placement(tp.topic for tps in assignment.values() for tp in tps),
            assignment,
            {m.member_id: m.rack for m in plan.members},
            {m.member_id: m.location for m in plan.members if m.rack_source == "host-map"},
        ))
    return out, window_s


def gather(settings: AgentSettings, pattern: str = "*", timeout: float = 10.0,
           window_s: float = 0.0, now_ms: int | None = None) -> Snapshot:
    """Read everything the checks need; raises :class:`Unreachable` when no broker answers."""
    from confluent_kafka.admin import AdminClient

    # Closed here, on this thread: an AdminClient left to the garbage collector can be
    # destroyed on its own librdkafka thread, which aborts the process (docs/development.md).
    with AdminClient(admin_config(settings, timeout)) as admin:
        return _gather(admin, settings, pattern, timeout, window_s, now_ms)


def _gather(admin: Any, settings: AgentSettings, pattern: str, timeout: float,
            window_s: float, now_ms: int | None) -> Snapshot:
    brokers = read_brokers(admin, timeout)
    notes: list[str] = []
    wire: WireClient | str
    try:
        wire = WireClient(WireSettings.from_config(settings.client_config(), timeout))
    except WireError as exc:
        wire = str(exc)
    try:
        try:
            raws = read_groups(admin, "*", timeout, wire)
        except AuditError as exc:
            notes.append(str(exc))
            raws = []
    finally:
        if isinstance(wire, WireClient):
            wire.close()
    by_id = {r.group_id: r for r in raws}
    checked = [r for r in raws if r.group_id != settings.input.group_id
               and fnmatch.fnmatchcase(r.group_id, pattern)]
    groups = [group_state(r) for r in checked]
    try:
        existing = set(admin.list_topics(timeout=timeout).topics)
    except Exception as exc:  # noqa: BLE001
        notes.append(f"cannot list topics: {_first_line(exc)}")
        existing = set()
    agent = read_agent(admin, settings, by_id, existing, timeout)
    streams_assignors: dict[str, str] = {}
    streams_groups = sorted(g.group_id for g in groups if g.group_type == "streams")
    named = any(g.assignor not in ("", "streams") for g in groups if g.group_type == "streams")
    if any(b.streams_assignors is not None for b in brokers) or named:
        try:
            listed = admin.list_consumer_groups(request_timeout=timeout).result(timeout + 1)
            # confluent-kafka's listing may leave streams groups out: ListGroups v5 has them
            ids = sorted({g.group_id for g in listed.valid
                          if g.group_id != settings.input.group_id
                          and fnmatch.fnmatchcase(g.group_id, pattern)} | set(streams_groups))
            streams_assignors = read_streams_assignors(admin, ids, timeout)
        except Exception as exc:  # noqa: BLE001
            notes.append(f"cannot read streams groups' assignor configs: {_first_line(exc)}")
        unnamed = sorted(g.group_id for g in groups
                         if g.group_type == "streams" and g.group_id in streams_assignors
                         and g.assignor in ("", "streams"))
        if unnamed:
            notes.append(f"streams groups {', '.join(unnamed[:3])}{', ...' if len(unnamed) > 3 else ''}: "
                         "their coordinator did not name its assignor (StreamsGroupDescribe v1, "
                         "Kafka 4.4); checked from the "
                         f"{STREAMS_ASSIGNOR_NAME_CONFIG} group config and the brokers' "
                         f"{STREAMS_ASSIGNORS_CONFIG} only")
    reads: list[GroupReads] = []
    measured_s = 0.0
    wants_reads = (any(not b.rack_aware for b in brokers if b.config_error is None)
                   and any(m.rack for g in groups for m in g.members))
    if wants_reads:
        try:
            reads, measured_s = read_what_groups_read(admin, settings, checked, window_s, timeout)
        except Exception as exc:  # noqa: BLE001 - the saving is a figure, not a check
            notes.append(f"cannot measure what groups read: {_first_line(exc)}")
    return Snapshot(
        bootstrap=settings.bootstrap,
        brokers=tuple(brokers),
        groups=tuple(sorted(groups, key=lambda g: g.group_id)),
        agent=agent,
        reads=tuple(reads),
        price=settings.cost.price(),
        now_ms=int(time.time() * 1000) if now_ms is None else now_ms,
        window_s=measured_s,
        notes=tuple(notes),
        streams_assignors=streams_assignors,
    )


def _first_line(exc: BaseException) -> str:
    arg = exc.args[0] if exc.args else exc
    text = arg.str() if hasattr(arg, "str") else str(arg)
    return (text or type(exc).__name__).splitlines()[0]


class _Quiet:
    """librdkafka's log for the doctor: connection errors are the doctor's to report."""

    def log(self, *args: object, **kwargs: object) -> None:
        pass

    debug = info = warning = error = critical = exception = log
