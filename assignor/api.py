"""The one typed seam into the algorithms: a group's inputs in, an AssignmentPlan out.

Every entry point calls :func:`plan` with the typed inputs of assignor.inputs: the daemon
(agent.daemon.planning), the audit's recommendations, and the offline CLI (assignor.scenario
only turns scenario JSON into these types). What the audit, the doctor and the traffic prober
need besides a plan (the figures of an assignment someone else made, a lower bound) comes
through here too (assignor.evaluate). Nobody builds a file format to
talk to the assignors, and three things are decided here and nowhere else:

* the generation: an explicit one (offline scenarios), else strictly above the previous plan,
  every member's reported generation and the caller's floor (what it published or has in
  flight);
* the reason: the most telling of the triggers that woke the planner, else inferred from the
  previous plan;
* cooperative withholding: on the ``cooperative`` protocol a partition never goes to a new
  owner while another member still owns it; it is ``withheld`` until released.

Example::

    group = ConsumerGroup("g1", (Member.of("c1", rack="az1", topics=["orders"]),), view)
    plan(group).reason                                   # "initial"
    plan(group, Round(previous=p, triggers=("member-joined",))).generation   # p.generation + 1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from assignor.cluster import TopicPartition
from assignor.errors import AssignorError
from assignor.evaluate import Bound, evaluate, lower_bound, read_cost, streams_bytes_bound
from assignor.inputs import (
    DEFAULT_CONSUMER_ASSIGNOR,
    PROTOCOLS,
    STREAMS_ASSIGNOR,
    ConsumerGroup,
    Protocol,
    Round,
    StreamsApp,
    StreamsClient,
)
from assignor.model import Group
from assignor.registry import uses_weights
from assignor.summary import annotate
from assignor.withholding import withhold_owned
from protocol.plan import PLAN_REASONS, AssignmentPlan, PlanReason, WithheldPartition

__all__ = [
    "DEFAULT_CONSUMER_ASSIGNOR",
    "PROTOCOLS",
    "REASON_PRIORITY",
    "STREAMS_ASSIGNOR",
    "Bound",
    "ConsumerGroup",
    "Protocol",
    "Round",
    "StreamsApp",
    "StreamsClient",
    "annotate",
    "enforce_withholding",
    "evaluate",
    "infer_reason",
    "lower_bound",
    "next_generation",
    "pick_reason",
    "plan",
    "read_cost",
    "streams_bytes_bound",
    "uses_weights",
]

# Several triggers coalesced into one plan: the plan names the most telling one.
REASON_PRIORITY: tuple[PlanReason, ...] = (
    "member-joined",
    "member-left",
    "member-expired",
    "subscription-changed",
    "partitions-changed",
    "replica-racks-changed",
    "leaders-changed",
    "traffic-changed",
    "followup",
    "observed",
    "recommended",
    "initial",
)


def pick_reason(triggers: Iterable[str]) -> PlanReason | None:
    """The most telling trigger, or None when there is none."""
    found = set(triggers)
    unknown = sorted(found - set(PLAN_REASONS))
    if unknown:
        raise AssignorError(f"reason {unknown[0]!r} is not one of {', '.join(PLAN_REASONS)}")
    return next((r for r in REASON_PRIORITY if r in found), None)


def infer_reason(previous: AssignmentPlan | None, member_ids: Iterable[str]) -> PlanReason:
    """Why a plan is made when the caller did not say: compare with the previous plan."""
    if previous is None:
        return "initial"
    if previous.followup_ms is not None or previous.withheld:
        return "followup"
    before = {m.process_id or m.member_id for m in previous.members}
    now = set(member_ids)
    if now - before:
        return "member-joined"
    if before - now:
        return "member-left"
    return "subscription-changed"


def next_generation(round_: Round, member_generations: Iterable[int] = ()) -> int:
    """Explicit, else strictly above the previous plan, every member's and the floor."""
    if round_.generation is not None:
        if round_.generation < 0:
            raise AssignorError(f"generation {round_.generation} is negative")
        return round_.generation
    seen = [round_.generation_floor, *member_generations]
    if round_.previous is not None:
        seen.append(round_.previous.generation)
    return max(seen) + 1


def enforce_withholding(
    plan: AssignmentPlan, owned: Mapping[str, Iterable[TopicPartition]]
) -> AssignmentPlan:
    """Move every partition still owned by another member into ``withheld``
    (assignor.withholding's rule, on a plan).

    Example: c1 owns t-0, the assignor gives t-0 to c2 ->
    ``withheld=[{topic: t, partition: 0, owner: c1, target: c2}]`` and c2's list omits t-0.
    """
    target = {
        mp.member_id: [TopicPartition(pp.topic, pp.partition) for pp in mp.partitions]
        for mp in plan.members
    }
    _, moved = withhold_owned(target, owned)
    if not moved:
        return plan
    gone = {(w.target, w.partition) for w in moved}
    withheld = {(w.topic, w.partition): w for w in plan.withheld}
    for w in moved:
        withheld[(w.partition.topic, w.partition.partition)] = WithheldPartition(
            topic=w.partition.topic, partition=w.partition.partition, owner=w.owner, target=w.target
        )
    members = []
    for mp in plan.members:
        keep = [pp for pp in mp.partitions
                if (mp.member_id, TopicPartition(pp.topic, pp.partition)) not in gone]
        members.append(
            mp if len(keep) == len(mp.partitions) else mp.model_copy(update={"partitions": keep})
        )
    return plan.model_copy(
        update={"members": members, "withheld": [withheld[k] for k in sorted(withheld)]}
    )


def plan(group: ConsumerGroup | StreamsApp, round_: Round | None = None) -> AssignmentPlan:
    """The plan for one group in one round (raises AssignorError on input it rejects)."""
    round_ = round_ or Round()
    if isinstance(group, StreamsApp):
        return _plan_streams(group, round_)
    return _plan_consumer(group, round_)


def _plan_consumer(group: ConsumerGroup, round_: Round) -> AssignmentPlan:
    from assignor.registry import plan_group

    if group.protocol not in PROTOCOLS:
        raise AssignorError(f"protocol {group.protocol!r} is not one of {', '.join(PROTOCOLS)}")
    reason = pick_reason(round_.triggers) or infer_reason(
        round_.previous, (m.member_id for m in group.members)
    )
    generation = next_generation(round_, (m.generation_or_default for m in group.members))
    model = Group(group.group_id, group.members, group.cluster, generation, reason, group.config)
    result = plan_group(model, group.assignor, withhold=group.protocol == "cooperative")
    if group.protocol == "cooperative":
        result = enforce_withholding(result, {m.member_id: m.owned for m in group.members})
    return _stamp(result, round_)


def _plan_streams(app: StreamsApp, round_: Round) -> AssignmentPlan:
    from assignor.streamsapp import plan_streams

    reason = pick_reason(round_.triggers) or infer_reason(
        round_.previous, (c.process_id for c in app.clients)
    )
    generation = next_generation(round_)
    return _stamp(plan_streams(app, round_.previous, generation, reason), round_)


def _stamp(result: AssignmentPlan, round_: Round) -> AssignmentPlan:
    return result.model_copy(update={"created_at": round_.created_at or datetime.now(UTC)})
