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

Modules: reading in :mod:`agent.audit.read`, one group in :mod:`agent.audit.measure` (Streams
in :mod:`agent.audit.streams`), the result in :mod:`agent.audit.model`, the table in
:mod:`agent.audit.render`; this module runs the three steps and re-exports their public names.

A group that cannot be measured (another protocol type, empty, rebalancing, undecodable
member bytes) is reported with a ``status`` and an ``error``, never raised.

Example: two cooperative-sticky members in az1 and az2 reading t-0 (replica az2) and t-1
(replica az1) the wrong way round -> ``cross_rack_actual=2, cross_rack_best=0``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent.audit.measure import audit_group
from agent.audit.model import (
    EMPTY,
    ERROR,
    OK,
    REBALANCING,
    STREAMS_PROTOCOL,
    UNDECODABLE,
    UNSUPPORTED,
    Describe,
    GroupAudit,
)
from agent.audit.read import AuditError, RawGroup, RawMember, read_groups
from agent.audit.render import render_table
from assignor.cluster import ClusterView

__all__ = [
    "EMPTY",
    "ERROR",
    "OK",
    "REBALANCING",
    "STREAMS_PROTOCOL",
    "UNDECODABLE",
    "UNSUPPORTED",
    "AuditError",
    "Describe",
    "GroupAudit",
    "RawGroup",
    "RawMember",
    "audit_group",
    "read_groups",
    "render_table",
    "run_audit",
]


def run_audit(
    admin: Any,
    pattern: str = "*",
    timeout: float = 15.0,
    streams_topology: Callable[[str], Mapping[str, Any] | None] = lambda _g: None,
    streams_config: Mapping[str, Any] | None = None,
) -> list[GroupAudit]:
    """Read, decode and measure every matching group (sorted by group id)."""
    from agent.clusterinfo import describe as describe_cluster

    cache: dict[str, list[str]] = {}

    def names() -> list[str]:
        if "all" not in cache:
            meta = admin.list_topics(timeout=timeout)
            cache["all"] = sorted(meta.topics)
        return cache["all"]

    def describe(topics: Iterable[str]) -> ClusterView:
        return describe_cluster(admin, topics, timeout).view

    return [
        audit_group(raw, describe, names, streams_topology, streams_config)
        for raw in read_groups(admin, pattern, timeout)
    ]
