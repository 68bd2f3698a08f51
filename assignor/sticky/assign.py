"""Step 0 (previous owners) and the builder the subscriptions call for (see the package docstring)."""

from __future__ import annotations

from assignor.base import Result, Withheld
from assignor.cluster import TopicPartition
from assignor.javaorder import hashmap_order
from assignor.model import Group, Member
from assignor.ownership import claims_of_cooperative, claims_of_sticky, resolve
from assignor.sticky.constrained import build_constrained
from assignor.sticky.general import build_general
from assignor.sticky.rack import RackInfo, Universe


def _all_subscriptions_equal(members: tuple[Member, ...]) -> bool:
    """Java's check, including its quirk: members with no topics before the first non-empty
    subscription (in HashMap order) do not count as different."""
    by_id = {m.member_id: m for m in members}
    seen: set[str] = set()
    for member_id in hashmap_order(by_id):
        topics = set(by_id[member_id].topics)
        if not seen:
            seen = topics
        elif topics != seen:
            return False
    return True


def assign_sticky(group: Group, *, cooperative: bool = True) -> Result:
    name = "cooperative-sticky" if cooperative else "sticky"
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in group.members}
    if not group.members:
        return Result(assignment=out, config={"assignor": name})
    topics = group.subscribed_topics()
    uni = Universe(group.cluster, topics)
    claim_fn = claims_of_cooperative if cooperative else claims_of_sticky
    own = resolve(group.members, uni.count, claim_fn)
    rack = RackInfo(group.cluster, uni, group.members)
    owned_idx: dict[str, list[int]] = {
        m: [g for tp in tps if (g := uni.index(tp)) is not None] for m, tps in own.owned.items()
    }
    multiple = {g for tp in own.multiple if (g := uni.index(tp)) is not None}
    transferring: dict[int, str] | None
    revoked_from: dict[int, str] = {}
    if _all_subscriptions_equal(group.members):
        result, transferring, revoked_from = build_constrained(uni, rack, owned_idx, multiple)
    else:
        prev: dict[int, tuple[str, int]] = {}
        by_id = {m.member_id: m for m in group.members}
        for member_id in hashmap_order(by_id):
            parts, gen = claim_fn(by_id[member_id])
            if gen is not None and gen < own.max_generation:
                g_used = gen
            elif gen is None and own.max_generation > -1:
                g_used = -1
            else:
                continue
            for tp in parts:
                g = uni.index(tp)
                if g is not None and (g not in prev or g_used > prev[g][1]):
                    prev[g] = (member_id, g_used)
        topics_of = {m.member_id: list(m.topics) for m in group.members}
        result = build_general(uni, rack, topics_of, owned_idx, prev)
        transferring = None
    withheld: list[Withheld] = []
    if cooperative:
        raw_owned: dict[TopicPartition, list[str]] = {}
        for m in group.members:
            for tp in m.owned:
                raw_owned.setdefault(tp, []).append(m.member_id)
        if transferring is None:
            # CooperativeStickyAssignor.computePartitionsTransferringOwnership
            transferring = {}
            revoked: set[int] = set()
            for m in group.members:
                owned_set = {g for tp in m.owned if (g := uni.index(tp)) is not None}
                assigned = set(result[m.member_id])
                for g in result[m.member_id]:
                    if g not in owned_set:
                        transferring[g] = m.member_id
                revoked.update(owned_set - assigned)
            transferring = {g: m for g, m in transferring.items() if g in revoked}
        for g, target in sorted(transferring.items()):
            result[target].remove(g)
            tp = uni.tp(g)
            owner = revoked_from.get(g)
            if owner is None or owner == target:
                owner = next((o for o in sorted(raw_owned.get(tp, [])) if o != target), target)
            withheld.append(Withheld(partition=tp, owner=owner, target=target))
    for member_id, gs in result.items():
        out[member_id] = sorted(uni.tp(g) for g in gs)
    return Result(assignment=out, withheld=withheld, config={"assignor": name})


def assign_cooperative_sticky(group: Group) -> Result:
    return assign_sticky(group, cooperative=True)


def assign_eager_sticky(group: Group) -> Result:
    return assign_sticky(group, cooperative=False)
