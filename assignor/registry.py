"""The consumer assignors by name, and one group planned by one of them (no round logic).

``plan_group`` runs the named assignor and builds the plan's members and summary; the
generation, reason and withholding around it are assignor.api's.
"""

from __future__ import annotations

from collections.abc import Callable

from assignor.base import Result
from assignor.errors import AssignorError
from assignor.model import Group
from assignor.optimal import assign_rack_optimal, lower_bound, lower_bound_bytes
from assignor.ownership import previous_owners
from assignor.range import assign_range
from assignor.sticky import assign_cooperative_sticky, assign_eager_sticky
from assignor.summary import member_plans, summarize
from protocol.plan import AssignmentPlan, WithheldPartition

# name -> (assignor, whether its balance is per topic)
ASSIGNORS: dict[str, tuple[Callable[[Group], Result], bool]] = {
    "range": (assign_range, True),
    "sticky": (assign_eager_sticky, False),
    "cooperative-sticky": (assign_cooperative_sticky, False),
    "rack-optimal": (assign_rack_optimal, False),
}

# the assignors whose plans depend on partition weights (measured traffic): only they can
# make a better plan when traffic moves (the others balance counts; KIP-881 racks only)
WEIGHTED_ASSIGNORS: frozenset[str] = frozenset({"rack-optimal"})


def uses_weights(assignor: str) -> bool:
    return assignor in WEIGHTED_ASSIGNORS


def plan_group(group: Group, assignor: str, *, withhold: bool = True) -> AssignmentPlan:
    """The named assignor's plan for ``group``. ``withhold=False`` (eager and KIP-848 hand-over,
    where the owner revokes first or the broker reconciles) gives every partition to its
    target now instead of listing the assignor's withheld partitions."""
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
    if summary.bytes_per_s is not None:  # measured traffic: the best figure in bytes too
        summary = summary.model_copy(update={
            "lower_bound_bytes_per_s": lower_bound_bytes(group, per_topic=per_topic)})
    return AssignmentPlan(
        group_id=group.group_id,
        kind="consumer",
        generation=group.next_generation(),
        reason=group.reason,
        assignor=assignor,
        config=result.config,
        members=member_plans(
            group.cluster, result.assignment if withhold else result.target(), racks
        ),
        withheld=[] if not withhold else [
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
