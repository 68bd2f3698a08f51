"""Offline scenarios (DESIGN.md §4): load one, plan it with any assignor, compare them all.

``plan_from_scenario`` is what ``rackwise plan`` prints, ``compare_scenario`` what
``rackwise compare`` tabulates. Streams scenarios (``"kind": "streams"``) are delegated to
assignor.streams.scenario.

Example::

    plan_from_scenario({"cluster": {...}, "group": {"id": "g1", "members": [...]}},
                       assignor="range").summary.traffic_cost
"""

from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from assignor.base import Result
from assignor.cluster import ClusterView
from assignor.errors import AssignorError
from assignor.model import Group, Member
from assignor.optimal import assign_rack_optimal, lower_bound
from assignor.ownership import previous_owners
from assignor.range import assign_range
from assignor.sticky import assign_cooperative_sticky, assign_eager_sticky
from assignor.summary import member_plans, summarize
from protocol.errors import ProtocolError
from protocol.plan import PLAN_REASONS, AssignmentPlan, WithheldPartition

DEFAULT_ASSIGNOR = "rack-optimal"
# name -> (assignor, whether its balance is per topic)
ASSIGNORS: dict[str, tuple[Callable[[Group], Result], bool]] = {
    "range": (assign_range, True),
    "sticky": (assign_eager_sticky, False),
    "cooperative-sticky": (assign_cooperative_sticky, False),
    "rack-optimal": (assign_rack_optimal, False),
}


def _streams() -> ModuleType:
    try:
        return importlib.import_module("assignor.streams.scenario")
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
        raise AssignorError("a scenario is {cluster: {...}, group: {...}} (DESIGN.md §4)")
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


def plan_group(group: Group, assignor: str) -> AssignmentPlan:
    if assignor not in ASSIGNORS:
        raise AssignorError(
            f"unknown assignor {assignor!r}: use one of {', '.join(sorted(ASSIGNORS))}"
        )
    fn, per_topic = ASSIGNORS[assignor]
    result = fn(group)
    racks = group.racks()
    counts = {t: group.cluster.partition_count(t) for t in group.subscribed_topics()}
    summary = summarize(
        group.cluster,
        result.target(),
        racks,
        previous_owner=previous_owners(group.members, counts),
        lower_bound=lower_bound(group, per_topic=per_topic),
    )
    return AssignmentPlan(
        group_id=group.group_id,
        kind="consumer",
        generation=group.next_generation(),
        reason=group.reason,
        assignor=assignor,
        config=result.config,
        members=member_plans(group.cluster, result.assignment, racks),
        withheld=[
            WithheldPartition(
                topic=w.partition.topic,
                partition=w.partition.partition,
                owner=w.owner,
                target=w.target,
            )
            for w in sorted(result.withheld, key=lambda w: w.partition)
        ],
        summary=summary,
    )


def _kind(doc: Mapping[str, Any]) -> str:
    group = doc.get("group") if isinstance(doc, Mapping) else None
    kind = str(group.get("kind", "consumer")) if isinstance(group, Mapping) else "consumer"
    if kind not in ("consumer", "streams"):
        raise AssignorError(f"scenario: group kind must be 'consumer' or 'streams', not {kind!r}")
    return kind


def plan_from_scenario(doc: dict[str, Any], *, assignor: str | None = None) -> AssignmentPlan:
    if _kind(doc) == "streams":
        plan: AssignmentPlan = _streams().plan_from_scenario(doc, assignor=assignor)
        return plan
    group = load_group(doc)
    name = assignor or str(doc["group"].get("assignor") or DEFAULT_ASSIGNOR)
    return plan_group(group, name)


def compare_scenario(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if _kind(doc) == "streams":
        rows: list[dict[str, Any]] = _streams().compare_scenario(doc)
        return rows
    group = load_group(doc)
    out = []
    for name in ASSIGNORS:
        s = plan_group(group, name)
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
