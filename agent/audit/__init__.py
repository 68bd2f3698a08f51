"""Observe mode: measure the cross-rack traffic of groups people already run (docs/architecture.md § Agent
behaviour and § Command line).

Three steps, IO only in the first:

1. :func:`read_groups` lists groups (AdminClient ``list_consumer_groups`` for each group's
   type) and describes the classic ones matching a pattern (``list_groups``: DescribeGroups,
   the one call that returns every member's metadata and assignment bytes).
2. :func:`audit_group` decodes one group (consumer protocol v0-v3; Kafka Streams'
   SubscriptionInfo/AssignmentInfo when the protocol is ``stream``) and joins it with replica
   racks: the assignment the group runs becomes an ``observed`` plan, the best plan under the
   same balance a ``recommended`` one (rack-optimal for consumer groups; the HA assignor with
   ``min_traffic`` for Streams applications, over the tasks derived from the app's own
   assignment and topics).
3. :func:`render_table` / :meth:`GroupAudit.to_json` for ``rackwise audit``.

Kafka 4.x groups (KIP-848 ``consumer``, KIP-1071 ``streams``) are described by their
coordinators (agent.groupwire). When a traffic window is given, every partition the groups
read is sampled twice (agent.traffic) so plans weigh partitions by measured bytes/s and the
audit reports cross-rack bytes and their price (docs/traffic.md).

Modules: reading in :mod:`agent.audit.read`, one group in :mod:`agent.audit.measure` (Streams
in :mod:`agent.audit.streams`), the result in :mod:`agent.audit.model`, the table in
:mod:`agent.audit.render`, the fleet's totals in :mod:`agent.audit.summary`; this module
runs the three steps and re-exports their public names.

A group that cannot be measured (another protocol type, empty, rebalancing, undecodable
member bytes) is reported with a ``status`` and an ``error``, never raised.

Example: two cooperative-sticky members in az1 and az2 reading t-0 (replica az2) and t-1
(replica az1) the wrong way round -> ``cross_rack_actual=2, cross_rack_best=0``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import structlog

from agent.audit.measure import audit_group
from agent.audit.model import (
    EMPTY,
    ERROR,
    MEASURED,
    OK,
    RACK_UNKNOWN,
    REBALANCING,
    STATUSES,
    STREAMS_PROTOCOL,
    UNDECODABLE,
    UNSUPPORTED,
    AuditOptions,
    Describe,
    GroupAudit,
)
from agent.audit.read import AuditError, RawGroup, RawMember, read_groups
from agent.audit.render import render_table
from agent.audit.summary import FleetSummary, SavingUnknown, fail_above, summarize
from agent.costconfig import CostSettings
from agent.traffic import TrafficEstimator, TrafficSettings
from agent.wireclient import WireClient, WireError, WireSettings
from assignor.cluster import ClusterView
from protocol.consumer import decode_assignment, decode_subscription
from protocol.errors import ProtocolError

__all__ = [
    "EMPTY",
    "ERROR",
    "MEASURED",
    "OK",
    "RACK_UNKNOWN",
    "REBALANCING",
    "STATUSES",
    "STREAMS_PROTOCOL",
    "UNDECODABLE",
    "UNSUPPORTED",
    "AuditError",
    "AuditOptions",
    "Describe",
    "FleetSummary",
    "GroupAudit",
    "RawGroup",
    "RawMember",
    "SavingUnknown",
    "audit_group",
    "fail_above",
    "read_groups",
    "render_table",
    "run_audit",
    "summarize",
]

log = structlog.get_logger("rackwise.audit")


def topics_read(raw: RawGroup) -> set[str]:
    """The topics a group subscribes to or was given, read cheaply (for traffic sampling)."""
    out: set[str] = set()
    desc = raw.described
    if desc is not None:
        for m in getattr(desc, "members", ()):
            out.update(getattr(m, "subscribed_topic_names", ()))
            out.update(t.topic_name for t in getattr(getattr(m, "assignment", None),
                                                      "topic_partitions", ()))
        topology = getattr(desc, "topology", None)
        for sub in (topology.subtopologies or []) if topology is not None else []:
            out.update(sub.source_topics)
            out.update(t.name for t in sub.repartition_source_topics)
        return out
    if raw.protocol_type != "consumer":
        return out
    for m in raw.members:
        try:
            out.update(decode_subscription(m.metadata or b"").topics)
            out.update(e.topic for e in decode_assignment(m.assignment or b"").assigned_partitions)
        except ProtocolError:
            continue  # reported as undecodable by audit_group
    return out


class _Placement:
    """Describes topics once per audit (not once per group) and adds measured traffic."""

    def __init__(self, admin: Any, timeout: float, estimator: TrafficEstimator | None) -> None:
        from agent.clusterinfo import describe as describe_cluster

        self._describe_cluster = describe_cluster
        self.admin, self.timeout, self.estimator = admin, timeout, estimator
        self._selectors: dict[int, str | None] | None = None
        self._brokers: dict[int, str | None] = {}
        self._known: dict[str, ClusterView] = {}

    def __call__(self, topics: Iterable[str]) -> ClusterView:
        wanted = sorted(set(topics))
        missing = [t for t in wanted if t not in self._known]
        if missing or self._selectors is None:
            snap = self._describe_cluster(self.admin, missing, self.timeout, self._selectors,
                                          read_selectors=self._selectors is None)
            self._selectors = snap.selectors
            self._brokers.update(snap.view.brokers)
            for t in snap.view.topics:
                self._known[t] = snap.view.restricted([t])
        parts = [self._known[t] for t in wanted if t in self._known]
        view = ClusterView(
            brokers=dict(self._brokers),
            topics={t: v.topics[t] for v in parts for t in v.topics},
            leaders={tp: b for v in parts for tp, b in v.leaders.items()},
            follower_fetching=parts[0].follower_fetching if parts else True,
        )
        return self.estimator.enrich(view) if self.estimator is not None else view


def run_audit(
    admin: Any,
    pattern: str = "*",
    timeout: float = 15.0,
    streams_topology: Callable[[str], Mapping[str, Any] | None] = lambda _g: None,
    streams_config: Mapping[str, Any] | None = None,
    *,
    client_config: Mapping[str, Any] | None = None,
    traffic: TrafficSettings | None = None,
    cost: CostSettings | None = None,
    estimator: TrafficEstimator | None = None,
) -> list[GroupAudit]:
    """Read, decode and measure every matching group (sorted by group id).

    ``client_config`` (librdkafka properties, e.g. ``AgentSettings.client_config()``) lets
    the audit describe Kafka 4.x groups and read log sizes itself; without it those groups
    are reported as errors. ``traffic`` with a window > 0 measures bytes/s (the call then
    takes that long); ``cost`` gives the price and the hosts' racks. A long-lived
    ``estimator`` (observe mode) is instead sampled once per call without waiting: the rates
    are those since the previous call.
    """
    cost = cost or CostSettings()
    options = AuditOptions(price=cost.price(), hosts=cost.hosts())
    wire: WireClient | str | None = None
    if client_config is not None:
        try:
            wire = WireClient(WireSettings.from_config(client_config, timeout))
        except WireError as exc:
            wire = str(exc)
    try:
        raws = read_groups(admin, pattern, timeout, wire)
        topics = sorted({t for raw in raws for t in topics_read(raw)})
        window = traffic.window_s if traffic is not None else 0.0
        if estimator is None and window > 0 and client_config is not None and topics:
            estimator = TrafficEstimator(admin, client_config, traffic, timeout)
            try:
                estimator.measure(topics, window)
            except Exception as exc:  # noqa: BLE001 - bytes are optional, groups are not
                log.warning("traffic not measured", error=str(exc))
                estimator = None
        elif estimator is not None and topics:
            try:
                estimator.sample(topics)
            except Exception as exc:  # noqa: BLE001
                log.warning("traffic not sampled", error=str(exc))
        placement = _Placement(admin, timeout, estimator)
        names: dict[str, list[str]] = {}

        def topic_names() -> list[str]:
            if "all" not in names:
                names["all"] = sorted(admin.list_topics(timeout=timeout).topics)
            return names["all"]

        return [
            audit_group(raw, placement, topic_names, streams_topology, streams_config, options)
            for raw in raws
        ]
    finally:
        if isinstance(wire, WireClient):
            wire.close()
