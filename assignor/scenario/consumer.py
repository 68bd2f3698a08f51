"""Offline scenarios (docs/architecture.md § Scenarios): JSON in, the seam's typed inputs out.

This is an adapter for the offline CLI only (``rackwise plan``, ``compare``, ``scenario``):
``load_consumer`` turns a scenario into an assignor.api.ConsumerGroup and ``round_of`` into
its Round; planning itself is assignor.api.plan, as for the daemon. Streams scenarios
(``"kind": "streams"``) are read by assignor.scenario.streams.

Example::

    plan_from_scenario({"cluster": {...}, "group": {"id": "g1", "members": [...]}},
                       assignor="range").summary.traffic_cost
"""

from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from assignor.api import (
    DEFAULT_CONSUMER_ASSIGNOR,
    PROTOCOLS,
    ConsumerGroup,
    Protocol,
    Round,
    plan,
)
from assignor.cluster import ClusterView
from assignor.errors import AssignorError
from assignor.model import Group, Member
from assignor.registry import ASSIGNORS
from protocol.errors import ProtocolError
from protocol.plan import PLAN_REASONS, AssignmentPlan

DEFAULT_ASSIGNOR = DEFAULT_CONSUMER_ASSIGNOR


def _streams() -> ModuleType:
    try:
        return importlib.import_module("assignor.scenario.streams")
    except ImportError:
        raise AssignorError("streams scenarios need assignor.streams") from None


def _member_from_bytes(raw: Mapping[str, Any]) -> Member:
    from protocol.consumer import decode_subscription
    from protocol.userdata import decode_sticky_user_data

    try:
        data = base64.b64decode(str(raw["subscription_b64"]), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise AssignorError(
            f"member {raw.get('id')}: subscription_b64 is not base64 ({exc})"
        ) from None
    try:
        sub = decode_subscription(data)
    except ProtocolError as exc:
        raise AssignorError(f"member {raw.get('id')}: {exc}") from None
    owned = {tp.topic: tp.partitions for tp in sub.owned_partitions}
    generation = sub.generation
    previous = None
    previous_generation = None
    if sub.user_data:
        if generation is None and len(sub.user_data) == 4:
            # CooperativeStickyAssignor user data: the generation, when the field is absent
            generation = int.from_bytes(sub.user_data, "big", signed=True)
        else:
            try:
                sticky = decode_sticky_user_data(sub.user_data)
                previous = {tp.topic: tp.partitions for tp in sticky.previous_assignment}
                previous_generation = sticky.generation
            except ProtocolError:
                previous = None
    return Member.of(
        str(raw["id"]),
        rack=sub.rack,
        topics=sub.topics,
        owned=owned,
        generation=generation,
        instance_id=raw.get("instance_id"),
        previous=previous,
        previous_generation=previous_generation,
    )


def load_group(doc: Mapping[str, Any]) -> Group:
    """A consumer scenario as a Group; malformed input raises AssignorError."""
    if not isinstance(doc, Mapping) or "cluster" not in doc or "group" not in doc:
        raise AssignorError("a scenario is {cluster: {...}, group: {...}} (docs/architecture.md § Scenarios)")
    cluster = ClusterView.from_dict(doc["cluster"])
    g = doc["group"]
    try:
        members = []
        for raw in g.get("members", []):
            if "subscription_b64" in raw:
                members.append(_member_from_bytes(raw))
                continue
            members.append(
                Member.of(
                    str(raw["id"]),
                    rack=raw.get("rack"),
                    topics=[str(t) for t in raw.get("topics", [])],
                    owned={
                        str(t): [int(p) for p in ps] for t, ps in (raw.get("owned") or {}).items()
                    },
                    generation=None if raw.get("generation") is None else int(raw["generation"]),
                    instance_id=raw.get("instance_id"),
                    previous=raw.get("previous"),
                    previous_generation=raw.get("previous_generation"),
                )
            )
        reason = str(g.get("reason", "initial"))
        generation = None if g.get("generation") is None else int(g["generation"])
        group_id = str(g.get("id", "group"))
        config = dict(g.get("config") or {})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AssignorError(f"scenario group is malformed: {exc!r}") from None
    if reason not in PLAN_REASONS:
        raise AssignorError(f"reason {reason!r} is not one of {', '.join(PLAN_REASONS)}")
    return Group(group_id, tuple(members), cluster, generation, reason, config)


EAGER_ONLY = frozenset({"range", "sticky"})


def load_consumer(doc: Mapping[str, Any], assignor: str | None = None) -> ConsumerGroup:
    """A consumer scenario as the seam's ConsumerGroup (``assignor`` overrides the scenario's)."""
    group = load_group(doc)
    raw = doc["group"]
    name = assignor or str(raw.get("assignor") or DEFAULT_ASSIGNOR)
    if name not in ASSIGNORS:
        raise AssignorError(
            f"unknown assignor {name!r}: use one of {', '.join(sorted(ASSIGNORS))}"
        )
    # Kafka's RangeAssignor and StickyAssignor support only the EAGER protocol: a group that
    # runs one revokes everything first, so nothing is withheld, whatever the default says.
    default = "eager" if name in EAGER_ONLY else "cooperative"
    protocol = str(raw.get("protocol", default))
    if protocol not in PROTOCOLS:
        raise AssignorError(f"protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    proto: Protocol = protocol  # type: ignore[assignment]
    return ConsumerGroup(group.group_id, group.members, group.cluster, name, proto, group.config)


def round_of(doc: Mapping[str, Any]) -> Round:
    """The scenario's generation (if given) and reason as a Round."""
    group = load_group(doc)
    return Round(triggers=(group.reason,), generation=group.generation)


def _kind(doc: Mapping[str, Any]) -> str:
    group = doc.get("group") if isinstance(doc, Mapping) else None
    kind = str(group.get("kind", "consumer")) if isinstance(group, Mapping) else "consumer"
    if kind not in ("consumer", "streams"):
        raise AssignorError(f"scenario: group kind must be 'consumer' or 'streams', not {kind!r}")
    return kind


def plan_from_scenario(doc: dict[str, Any], *, assignor: str | None = None) -> AssignmentPlan:
    if _kind(doc) == "streams":
        streams_plan: AssignmentPlan = _streams().plan_from_scenario(doc, assignor=assignor)
        return streams_plan
    return plan(load_consumer(doc, assignor), round_of(doc))


def compare_scenario(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if _kind(doc) == "streams":
        rows: list[dict[str, Any]] = _streams().compare_scenario(doc)
        return rows
    round_ = round_of(doc)
    out = []
    for name in ASSIGNORS:
        s = plan(load_consumer(doc, name), round_)
        out.append(
            {
                "assignor": name,
                "traffic_cost": s.summary.traffic_cost,
                "cross_rack_partitions": s.summary.cross_rack_partitions,
                "lower_bound": s.summary.lower_bound,
                "max_load": s.summary.max_load,
                "min_load": s.summary.min_load,
                "moved_partitions": s.summary.moved_partitions,
                "withheld": len(s.withheld),
            }
        )
    return out
