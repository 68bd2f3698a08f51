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
coordinators (agent.audit.brokergroups). When a traffic window is given, every partition the groups
read is sampled twice (agent.brokers.traffic) so plans weigh partitions by measured bytes/s and the
audit reports cross-rack bytes and their price (docs/traffic.md).

Modules: reading in :mod:`agent.audit.read`, one group in :mod:`agent.audit.measure` (Streams
in :mod:`agent.audit.streams`), the result in :mod:`agent.audit.model`, the table in
:mod:`agent.audit.render`, the fleet's totals in :mod:`agent.audit.summary`, the three steps
run in order in :mod:`agent.audit.run`. This package's face re-exports their public names.

A group that cannot be measured (another protocol type, empty, rebalancing, undecodable
member bytes) is reported with a ``status`` and an ``error``, never raised.

Example: two cooperative-sticky members in az1 and az2 reading t-0 (replica az2) and t-1
(replica az1) the wrong way round -> ``cross_rack_actual=2, cross_rack_best=0``.
"""

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
from agent.audit.read import AuditError, RawGroup, RawMember, read_groups, topics_read
from agent.audit.render import render_table
from agent.audit.run import run_audit
from agent.audit.summary import FleetSummary, SavingUnknown, fail_above, summarize

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
    "topics_read",
]
