"""What ``rackwise doctor`` reads (a :class:`Snapshot`) and what it reports (:class:`Finding`).

The snapshot is plain data gathered once from the cluster (agent.doctor.gather); every check
(agent.doctor.checks) is a pure function of it, so each can be tested with a hand-made one.

Severities: ``error`` (something rackwise relies on is broken), ``warning`` (it works, but
reads cross racks or fails later), ``info`` (worth knowing, nothing to fix now). Only errors
and warnings make the doctor's status ``findings`` (exit 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assignor.inputs import ClusterView, TopicPartition
from protocol.pricing import Price

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)  # most severe first: the table's order

# Kafka's names (agent.brokers.placement has the selector's too)
BROKER_RACK = "broker.rack"
SELECTOR_CONFIG = "replica.selector.class"
RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector"
ASSIGNORS_CONFIG = "group.consumer.assignors"
# rackwise's broker-side KIP-848 assignor (plugins/README.md § 3) and the name groups ask for
GROUP_ASSIGNOR_CLASS = "dev.rackwise.plugins.RackwiseGroupAssignor"
GROUP_ASSIGNOR_NAME = "rackwise"
# its drop-in for Kafka's uniform (plugins/README.md § 3a): the same assignor under the name
# ``uniform``, serving every KIP-848 group that names no assignor or names uniform
UNIFORM_DROP_IN_CLASS = "dev.rackwise.plugins.RackwiseUniformAssignor"
# streams groups (KIP-1071) on 4.4+ brokers (KIP-1357; docs/streams-groups.md)
STREAMS_ASSIGNORS_CONFIG = "group.streams.assignors"
STREAMS_ASSIGNOR_NAME_CONFIG = "streams.assignor.name"
STREAMS_ASSIGNOR_CLASS = "dev.rackwise.plugins.RackwiseStreamsGroupAssignor"
# what a group names (streams.assignor.name) for each entry a broker lists that doctor can name
STREAMS_ASSIGNOR_NAMES = {"sticky": "sticky", STREAMS_ASSIGNOR_CLASS: "rackwise"}

# finding ids (*contract*: tools match on them; add, never rename)
BROKER_RACK_MISSING = "broker-rack-missing"
BROKER_CONFIG_UNREADABLE = "broker-config-unreadable"
REPLICA_SELECTOR_MISSING = "replica-selector-missing"
REPLICA_SELECTOR_MISMATCH = "replica-selector-mismatch"
RACKWISE_ASSIGNOR_PARTIAL = "rackwise-assignor-partial"
RACKWISE_GROUP_UNSERVED = "rackwise-group-unserved"
UNIFORM_DROP_IN_PARTIAL = "uniform-drop-in-partial"
CLIENT_RACK_MISSING = "client-rack-missing"
CLIENT_RACK_UNKNOWN = "client-rack-unknown"
GROUP_UNREADABLE = "group-unreadable"
AGENT_TOPICS_MISSING = "agent-topics-missing"
AGENT_NOT_RUNNING = "agent-not-running"
ADVICE_STALE = "advice-stale"
ADVICE_EMPTY = "advice-empty"
FOLLOWER_FETCHING_OFF = "follower-fetching-off"
STREAMS_ASSIGNOR_UNSERVED = "streams-assignor-unserved"

FINDING_IDS = (
    BROKER_RACK_MISSING, BROKER_CONFIG_UNREADABLE, REPLICA_SELECTOR_MISSING,
    REPLICA_SELECTOR_MISMATCH, RACKWISE_ASSIGNOR_PARTIAL, RACKWISE_GROUP_UNSERVED,
    CLIENT_RACK_MISSING, CLIENT_RACK_UNKNOWN, GROUP_UNREADABLE, AGENT_TOPICS_MISSING,
    AGENT_NOT_RUNNING, ADVICE_STALE, ADVICE_EMPTY, FOLLOWER_FETCHING_OFF, STREAMS_ASSIGNOR_UNSERVED,
    UNIFORM_DROP_IN_PARTIAL,
)


@dataclass(frozen=True)
class Finding:
    """One thing to change: a stable ``id``, how bad, about what, what is wrong, the fix."""

    id: str
    severity: str
    subject: str
    problem: str
    fix: str
    details: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "subject": self.subject,
                "problem": self.problem, "fix": self.fix, "details": dict(self.details)}


@dataclass(frozen=True)
class BrokerState:
    """One broker: its rack (describe_cluster) and the settings doctor checks (DescribeConfigs).

    ``selector`` and ``assignors``: None when the configs could not be read (``config_error``
    says why); ``selector`` is "" when unset. ``read_only`` names the settings Kafka cannot
    change at run time (each needs a restart).
    """

    broker_id: int
    rack: str | None
    address: str = ""
    selector: str | None = ""
    assignors: tuple[str, ...] | None = ()
    read_only: frozenset[str] = frozenset({BROKER_RACK, SELECTOR_CONFIG, ASSIGNORS_CONFIG})
    config_error: str | None = None
    # group.streams.assignors as listed; None: not read, or a release without it (before 4.4)
    streams_assignors: tuple[str, ...] | None = None

    @property
    def streams_assignor_names(self) -> frozenset[str] | None:
        """The streams.assignor.name values this broker serves; None when it cannot be told
        (not read, a release before 4.4, or a class doctor cannot name)."""
        if self.streams_assignors is None:
            return None
        names = [STREAMS_ASSIGNOR_NAMES.get(a) for a in self.streams_assignors]
        return None if any(n is None for n in names) else frozenset(n for n in names if n)

    @property
    def rack_aware(self) -> bool:
        return (self.selector or "").strip() == RACK_AWARE_SELECTOR

    @property
    def loads_rackwise(self) -> bool | None:
        return None if self.assignors is None else GROUP_ASSIGNOR_CLASS in self.assignors

    @property
    def serves_uniform_drop_in(self) -> bool | None:
        """Whether this broker's ``uniform`` is rackwise's drop-in (None: config unread)."""
        return None if self.assignors is None else UNIFORM_DROP_IN_CLASS in self.assignors


@dataclass(frozen=True)
class MemberState:
    """A live group member and the rack it sends (None: no client.rack)."""

    member_id: str
    rack: str | None
    client_id: str = ""
    host: str = ""


@dataclass(frozen=True)
class GroupState:
    """A live group. ``assignor``: a KIP-848 group's server-side assignor (what its members'
    ``group.remote.assignor`` chose), a streams group's as its coordinator names it
    (StreamsGroupDescription.assignorName, Kafka 4.4; ``streams`` where it names none) or a
    classic group's protocol; ``error`` when it could not be read (members then unknown)."""

    group_id: str
    group_type: str = "classic"
    state: str = ""
    assignor: str = ""
    members: tuple[MemberState, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class GroupReads:
    """What one group's members read now, as the audit measured it: enough for the cost model
    (assignor.cost) to price the same assignment read from leaders or nearest replicas."""

    group_id: str
    view: ClusterView
    assignment: Mapping[str, tuple[TopicPartition, ...]]
    racks: Mapping[str, str | None]
    locations: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentState:
    """The agent's side: its topics, its consumer group, and its newest advice record.

    ``topics``: role (subscriptions, plans, advice, ...) -> name as configured; ``existing``:
    which of those names exist. ``members``: the agents' group's live members (None: not
    read). ``advice_newest_ms``: the newest advice record's timestamp (None: none, or the
    topic is missing); ``advice_max_age_s``: older than this is stale.
    """

    topics: Mapping[str, str]
    existing: frozenset[str]
    group_id: str
    members: int | None
    advice_newest_ms: int | None = None
    advice_max_age_s: float = 900.0
    advice_error: str | None = None


@dataclass(frozen=True)
class Snapshot:
    """Everything the checks look at, read once."""

    bootstrap: str
    brokers: tuple[BrokerState, ...]
    groups: tuple[GroupState, ...] = ()
    agent: AgentState | None = None
    reads: tuple[GroupReads, ...] = ()
    price: Price = field(default_factory=Price)
    now_ms: int = 0
    window_s: float = 0.0  # the traffic sample behind ``reads``' bytes (0: not measured)
    notes: tuple[str, ...] = ()  # what could not be read, one line each
    # group id -> its streams.assignor.name group config (set explicitly), for streams groups
    streams_assignors: Mapping[str, str] = field(default_factory=dict)

    @property
    def broker_racks(self) -> tuple[str, ...]:
        return tuple(sorted({b.rack for b in self.brokers if b.rack}))
