"""One audit, the three steps in order: read the groups, sample traffic, measure each group."""


from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import structlog

from agent.audit.measure import audit_group
from agent.audit.model import AuditOptions, GroupAudit
from agent.audit.read import read_groups, topics_read
from agent.brokers.rpc import WireClient, WireError, WireSettings
from agent.brokers.traffic import TrafficEstimator, TrafficSettings
from agent.config.cost import CostSettings
from assignor.inputs import ClusterView

log = structlog.get_logger("rackwise.audit")


class _Placement:
    """Describes topics once per audit (not once per group) and adds measured traffic."""

    def __init__(self, admin: Any, timeout: float, estimator: TrafficEstimator | None) -> None:
        from agent.brokers.placement import describe as describe_cluster

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
