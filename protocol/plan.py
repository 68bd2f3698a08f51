"""AssignmentPlan: the published decision of who owns what (docs/architecture.md § The plan, a *contract*).

A plan is what the agent writes to ``rackwise.plans`` (key: group id, value: this model as
JSON), what ``rackwise plan`` prints and what the Spark metrics job reads. The same input in
any order must give the same plan byte for byte except ``created_at``, so every list here is
kept in a canonical order by the code that builds it and :meth:`AssignmentPlan.to_json`
writes keys in declaration order with no whitespace variation.

Example (one member in az1 reading partition 0 of ``orders`` from a replica in az1)::

    AssignmentPlan(group_id="g1", kind="consumer", generation=1, reason="initial",
                   assignor="rack-optimal", members=[MemberPlan(member_id="c1", rack="az1",
                   partitions=[PartitionPlan(topic="orders", partition=0,
                   replica_racks=["az1", "az2"], cross_rack=False)])], summary=...)
"""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from protocol.errors import PlanError

SCHEMA_VERSION = 1

PlanKind = Literal["consumer", "streams"]
PlanReason = Literal[
    "initial",
    "member-joined",
    "member-left",
    "member-expired",
    "subscription-changed",
    "replica-racks-changed",
    "partitions-changed",
    "traffic-changed",
    "leaders-changed",
    "followup",
    "observed",
    "recommended",
]
PLAN_REASONS: tuple[str, ...] = PlanReason.__args__  # type: ignore[attr-defined]
# The reason of plans Kafka's plug-ins compute in-process and publish (docs/architecture.md
# § The plan). The agent never makes it, so it is not a PlanReason the planner can pick.
PLUGIN_REASON = "assigned"
# Every reason this version knows. A plan may carry another one (a newer writer's): readers
# carry it through unchanged, because refusing it would make members stop following plans.
KNOWN_REASONS: tuple[str, ...] = (*PLAN_REASONS, PLUGIN_REASON)
# Plans of observe mode: what a live group runs and what rackwise would run instead. They
# describe a group rackwise does not plan, so members never follow them.
OBSERVE_REASONS: tuple[str, ...] = ("observed", "recommended")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PartitionPlan(_Strict):
    """One partition given to a member, with where its replicas live."""

    topic: str
    partition: int = Field(ge=0)
    replica_racks: list[str] = Field(
        default_factory=list, description="sorted, de-duplicated racks of the replicas"
    )
    cross_rack: bool = Field(
        description="no replica in the member's rack (KIP-925); false when either rack is unknown"
    )
    weight: float = Field(default=1.0, ge=0, description="relative traffic of the partition")
    # Added with measured traffic and its price; null / absent in plans that predate it.
    bytes_per_s: float | None = Field(
        default=None, ge=0, description="measured bytes/s appended to the partition (agent.brokers.traffic)"
    )
    source_rack: str | None = Field(
        default=None,
        description="rack the member's fetches are served from: a replica in its own rack when "
        "it reads from followers (KIP-392) and one is there, else the leader's",
    )
    cross_rack_bytes_per_s: float | None = Field(
        default=None, ge=0,
        description="bytes/s this member reads across racks: bytes_per_s when cross_rack; for a "
        "rack-unknown member the expected share ((R-1)/R of it with R racks)",
    )


class MemberPlan(_Strict):
    """What one member (consumer) or one Streams client owns."""

    member_id: str
    rack: str | None = None
    partitions: list[PartitionPlan] = Field(default_factory=list)
    process_id: str | None = Field(default=None, description="streams only")
    active_tasks: list[str] = Field(
        default_factory=list, description="streams: '<subtopology>_<partition>'"
    )
    standby_tasks: list[str] = Field(default_factory=list)
    warmup_tasks: list[str] = Field(default_factory=list)
    location: str | None = Field(
        default=None,
        description="rack of the member's host: its client.rack, or the audit's host map",
    )
    rack_source: Literal["client.rack", "host-map", "unknown"] | None = Field(
        default=None, description="how location is known; 'unknown': rack-unknown member"
    )
    reads_from: Literal["nearest-replica", "leader"] | None = Field(
        default=None,
        description="'nearest-replica': client.rack set and brokers use RackAwareReplicaSelector",
    )


class WithheldPartition(_Strict):
    """A partition not handed over yet because its previous owner still reports it."""

    topic: str
    partition: int = Field(ge=0)
    owner: str = Field(description="the live member that still owns it")
    target: str = Field(description="the member that gets it once released")


class PlanSummary(_Strict):
    """Figures every assignor reports, so plans can be compared and charted."""

    partitions: int = Field(ge=0)
    cross_rack_partitions: int = Field(ge=0)
    traffic_cost: float = Field(ge=0)
    lower_bound: float | None = Field(
        default=None, description="best cost reachable under the same balance constraints"
    )
    max_load: int = Field(ge=0)
    min_load: int = Field(ge=0)
    moved_partitions: int = Field(default=0, ge=0)
    standby_rack_diversity: float | None = Field(
        default=None, description="streams: mean distinct racks per task over its copies"
    )
    bytes_per_s: float | None = Field(
        default=None, ge=0, description="measured bytes/s of every assigned partition"
    )
    cross_rack_bytes_per_s: float | None = Field(
        default=None, ge=0,
        description="bytes/s read across racks; rack-unknown members at their expected share",
    )
    cross_rack_bytes_per_s_worst: float | None = Field(
        default=None, ge=0, description="the same with every rack-unknown member in the worst rack"
    )
    lower_bound_bytes_per_s: float | None = Field(
        default=None, ge=0,
        description="least cross-rack bytes/s any plan with the same balance reaches",
    )
    rack_unknown_members: int | None = Field(
        default=None, ge=0, description="members with neither client.rack nor a host-map rack"
    )
    follower_fetching: bool | None = Field(
        default=None,
        description="brokers serve reads from followers (replica.selector.class is "
        "RackAwareReplicaSelector on every broker)",
    )


class AssignmentPlan(_Strict):
    """The plan for one group at one generation."""

    schema_version: Literal[1] = 1  # SCHEMA_VERSION
    group_id: str
    kind: PlanKind = "consumer"
    generation: int = Field(ge=0)
    reason: str = Field(
        min_length=1,
        description="why the plan was made: one of KNOWN_REASONS, or a newer writer's reason, "
        "which readers carry through as-is",
        examples=list(KNOWN_REASONS),
    )
    assignor: str
    config: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    members: list[MemberPlan] = Field(default_factory=list)
    withheld: list[WithheldPartition] = Field(default_factory=list)
    followup_ms: int | None = Field(default=None, ge=0)
    summary: PlanSummary
    request_id: str | None = Field(
        default=None,
        description="the assignment request this plan answered (the KIP-924 task assignor's "
        "round trip to the agent, since removed; kept so older plans still read); "
        "absent otherwise",
    )

    def to_json(self) -> str:
        """Canonical JSON: field order as declared, compact separators, UTC ``Z`` time.

        Fields added after the first release are left out while null, so a plan that does
        not use them is byte for byte what an older agent wrote, and older readers (which
        reject unknown fields) keep reading it.
        """
        data = _prune_added(self.model_dump(mode="json"))
        data["created_at"] = _utc_iso(self.created_at)
        if data["request_id"] is None:
            del data["request_id"]  # plans that answer no request keep their old bytes
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes) -> AssignmentPlan:
        """Parse a plan; anything that is not a valid plan raises PlanError.

        Unknown fields are dropped, not refused: docs/architecture.md § The plan lets a newer
        agent add fields, and a member that stopped following plans because of one would be a
        silent outage.
        """
        try:
            return cls.model_validate_json(raw)  # the common case, validated in pydantic-core
        except ValidationError as exc:
            if not all(e.get("type") == "extra_forbidden" for e in exc.errors()):
                raise _plan_error(exc) from None
        try:  # a newer agent's plan: drop the fields this reader does not know
            return cls.model_validate(_known_only(cls, json.loads(raw)))
        except ValidationError as exc:
            raise _plan_error(exc) from None

    def without_timestamp(self) -> dict[str, Any]:
        """The plan as a dict minus ``created_at``: what determinism is judged on."""
        data = self.model_dump(mode="json")
        data.pop("created_at")
        return data


# Fields added after schema_version 1 was first published (measured traffic): omitted while null.
_ADDED: dict[str, frozenset[str]] = {
    "partition": frozenset({"bytes_per_s", "source_rack", "cross_rack_bytes_per_s"}),
    "member": frozenset({"location", "rack_source", "reads_from"}),
    "summary": frozenset({"bytes_per_s", "cross_rack_bytes_per_s", "cross_rack_bytes_per_s_worst",
                          "lower_bound_bytes_per_s", "rack_unknown_members",
                          "follower_fetching"}),
}


def _drop_null(doc: dict[str, Any], names: frozenset[str]) -> None:
    for name in names:
        if doc.get(name, 0) is None:
            del doc[name]


def _prune_added(data: dict[str, Any]) -> dict[str, Any]:
    for member in data.get("members") or []:
        _drop_null(member, _ADDED["member"])
        for part in member.get("partitions") or []:
            _drop_null(part, _ADDED["partition"])
    if isinstance(data.get("summary"), dict):
        _drop_null(data["summary"], _ADDED["summary"])
    return data


def _plan_error(exc: ValidationError) -> PlanError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "<root>"
    return PlanError(f"not an AssignmentPlan: {where}: {first.get('msg')}")


@functools.cache
def _fields(model: type[BaseModel]) -> dict[str, type[BaseModel] | None]:
    """A model's field names, each with the model nested in it (if any)."""
    return {name: _nested_model(info.annotation) for name, info in model.model_fields.items()}


def _known_only(model: type[BaseModel], doc: Any) -> Any:
    """``doc`` without the keys ``model`` (and its nested models) does not declare."""
    if not isinstance(doc, dict):
        return doc
    fields = _fields(model)
    out: dict[str, Any] = {}
    for name, value in doc.items():
        if name not in fields:
            continue
        sub = fields[name]
        if sub is not None and isinstance(value, list):
            out[name] = [_known_only(sub, v) for v in value]
        elif sub is not None:
            out[name] = _known_only(sub, value)
        else:
            out[name] = value
    return out


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _nested_model(arg)
        if found is not None:
            return found
    return None


def _utc_iso(ts: datetime) -> str:
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def plan_json_schema() -> dict[str, Any]:
    """The JSON Schema of AssignmentPlan (what ``rackwise schema plan`` prints)."""
    return AssignmentPlan.model_json_schema()
