"""Advice records: what the agent tells Kafka's plug-ins (docs/architecture.md § Advice, a *contract*).

The agent publishes them to the compacted ``rackwise.advice`` topic; each plug-in reads the
topic on a background thread and uses the latest values it holds (never inside ``assign()``).
Two kinds, each keyed so compaction keeps the latest of each:

* ``topic/<topic>``: every partition's measured bytes/s and leader (broker id and rack);
* ``group/<pattern>``: the settings of one ``planner.rules`` entry for the groups whose id
  matches ``pattern`` (fnmatch; a plain group id matches only itself). ``priority`` is the
  rule's place in the list: the lowest matching priority wins, as in the agent's planner.

A tombstone (null value) deletes the key. Example (one topic, two partitions)::

    key   topic/orders
    value {"schema_version":1,"kind":"topic","topic":"orders",
           "measured_at":"2026-11-25T00:40:00.000Z","measured_at_ms":1795567200000,
           "partitions":[{"partition":0,"bytes_per_s":5000.0,"leader":1,"leader_rack":"az1"},
                         {"partition":1,"bytes_per_s":null,"leader":2,"leader_rack":"az2"}]}
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from protocol.errors import RackwiseError

ADVICE_SCHEMA_VERSION = 1
TOPIC_PREFIX = "topic/"
GROUP_PREFIX = "group/"


class AdviceError(RackwiseError):
    """An advice record that is not valid JSON of a known kind; the message says where."""


class _Record(BaseModel):
    # Readers ignore fields they do not know (the record may only grow, like the plan).
    model_config = ConfigDict(extra="ignore", frozen=True)


class PartitionAdvice(_Record):
    """One partition: its measured rate (null until two samples exist) and its leader."""

    partition: int = Field(ge=0)
    bytes_per_s: float | None = Field(default=None, ge=0)
    leader: int | None = Field(default=None, description="broker id of the leader; null: none")
    leader_rack: str | None = Field(default=None, description="the leader's broker.rack; null: unknown")


class TopicAdvice(_Record):
    """Every partition of one topic, as measured by the agent's traffic estimator."""

    schema_version: Literal[1] = 1
    kind: Literal["topic"] = "topic"
    topic: str = Field(min_length=1)
    measured_at: datetime
    measured_at_ms: int = Field(ge=0)
    partitions: list[PartitionAdvice]

    def key(self) -> str:
        return topic_key(self.topic)

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        data["measured_at"] = utc_iso(self.measured_at)
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class GroupAdvice(_Record):
    """One ``planner.rules`` entry: the assignor and its settings for matching groups."""

    schema_version: Literal[1] = 1
    kind: Literal["group"] = "group"
    pattern: str = Field(min_length=1, description="fnmatch pattern of group ids")
    priority: int = Field(ge=0, description="the rule's index in planner.rules: lowest wins")
    assignor: str
    config: dict[str, Any] = Field(
        default_factory=dict, description="assignor settings, e.g. traffic_cost, non_overlap_cost"
    )
    updated_at: datetime
    updated_at_ms: int = Field(ge=0)

    def key(self) -> str:
        return group_key(self.pattern)

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        data["updated_at"] = utc_iso(self.updated_at)
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


Advice = TopicAdvice | GroupAdvice


def topic_key(topic: str) -> str:
    return TOPIC_PREFIX + topic


def group_key(pattern: str) -> str:
    return GROUP_PREFIX + pattern


def decode(key: str, raw: str | bytes) -> Advice:
    """One advice value, checked against its key; anything else raises AdviceError."""
    try:
        doc = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AdviceError(f"advice {key!r}: not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise AdviceError(f"advice {key!r}: expected a JSON object")
    if doc.get("schema_version") != ADVICE_SCHEMA_VERSION:
        raise AdviceError(f"advice {key!r}: unknown schema_version {doc.get('schema_version')!r}")
    model: type[TopicAdvice] | type[GroupAdvice]
    if doc.get("kind") == "topic":
        model = TopicAdvice
    elif doc.get("kind") == "group":
        model = GroupAdvice
    else:
        raise AdviceError(f"advice {key!r}: unknown kind {doc.get('kind')!r}")
    try:
        advice = model.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "<root>"
        raise AdviceError(f"advice {key!r}: {where}: {first.get('msg')}") from None
    if advice.key() != key:
        raise AdviceError(f"advice {key!r}: its value is for key {advice.key()!r}")
    return advice


def utc_iso(ts: datetime) -> str:
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def epoch_ms(ts: datetime) -> int:
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return int(ts.timestamp() * 1000)
