"""The constrained sticky algorithm (KAFKA-9987, KAFKA-12464) for uniform subscriptions.

Quotas: every member ends with minQuota = floor(P/N) or maxQuota = ceil(P/N) partitions and
exactly P mod N members reach maxQuota. Owned partitions are kept up to the quota (members
visited in Java HashMap order, owned partitions sorted by (partition, topic), KAFKA-16277);
rack-mismatched owned partitions are given up; the rest is dealt out round robin, rack-local
first (partitions with the fewest rack-local consumers first). Partitions that change owner
are reported in ``transferring`` for the cooperative protocol.

Example: P=7, N=3 -> quotas 2..3, one member gets 3. A member owning 5 keeps 3 (if no other
member took the +1 before it in HashMap order), the other 2 go to the unfilled members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assignor.errors import AssignorError
from assignor.javaorder import hashmap_order
from assignor.sticky.rack import RackInfo, Universe


def build_constrained(
    uni: Universe,
    rack: RackInfo,
    owned: Mapping[str, Sequence[int]],
    multiple: set[int],
) -> tuple[dict[str, list[int]], dict[int, str], dict[int, str]]:
    """Return (assignment, transferring tp -> new owner, maybe-revoked tp -> old owner)."""
    members = sorted(owned)
    n = len(members)
    total = uni.size
    min_q = total // n
    max_q = -(-total // n)
    expected_over = total % n
    current_over = 0
    assignment: dict[str, list[int]] = {m: [] for m in members}
    maybe_revoked: dict[int, str] = {}
    under_min: list[str] = []
    exactly_min: list[str] = []
    assigned: set[int] = set()
    npart = len(uni.topics)
    part_no = uni.part_no
    topic_index = uni.topic_index

    for member in hashmap_order(members):
        consumer = member
        keep = []
        for g in owned[consumer]:
            if rack.enabled and rack.mismatch(consumer, g):
                maybe_revoked[g] = consumer
            else:
                keep.append(g)
        keep.sort(key=lambda g: int(part_no[g]) * npart + int(topic_index[g]))
        if multiple:
            keep = [g for g in keep if g not in multiple]
        mine = assignment[consumer]
        if len(keep) < min_q:
            mine.extend(keep)
            assigned.update(keep)
            under_min.append(consumer)
        elif len(keep) >= max_q and current_over < expected_over:
            current_over += 1
            if current_over == expected_over:
                exactly_min.clear()
            mine.extend(keep[:max_q])
            assigned.update(keep[:max_q])
            for g in keep[max_q:]:
                maybe_revoked[g] = consumer
        else:
            mine.extend(keep[:min_q])
            assigned.update(keep[:min_q])
            for g in keep[min_q:]:
                maybe_revoked[g] = consumer
            if current_over < expected_over:
                exactly_min.append(consumer)

    unassigned = [g for g in range(total) if g not in assigned] if assigned else list(range(total))
    under_min.sort()
    exactly_min.sort()
    unassigned = rack.sort_by_rack_consumers(unassigned)
    transferring: dict[int, str] = {}

    def give(g: int, consumer: str) -> int:
        lst = assignment[consumer]
        lst.append(g)
        prev = maybe_revoked.get(g)
        if (prev is not None and prev != consumer) or g in multiple:
            transferring[g] = consumer
        return len(lst)

    if rack.enabled:
        bits = rack.consumer_bit
        masks = rack.partition_mask.tolist()
        left: list[int] = []
        nxt = 0
        for g in unassigned:
            pm = masks[g]
            chosen: str | None = None
            idx = -1
            if pm and under_min:
                size = len(under_min)
                for i in range(size):
                    j = (nxt + i) % size
                    if bits.get(under_min[j], 0) & pm:
                        idx = j
                        break
            if idx >= 0:
                chosen = under_min[idx]
                count = len(assignment[chosen]) + 1
                if count >= min_q:
                    del under_min[idx]
                    if count < max_q and current_over < expected_over:
                        exactly_min.append(chosen)
                else:
                    idx += 1
                nxt = idx % len(under_min) if under_min else 0
            elif exactly_min and pm:
                first = next((j for j, c in enumerate(exactly_min) if bits.get(c, 0) & pm), -1)
                if first >= 0:
                    chosen = exactly_min[first]
                    if len(assignment[chosen]) + 1 == max_q:
                        del exactly_min[first]
                        current_over += 1
                        if current_over == expected_over:
                            exactly_min.clear()
            if chosen is None:
                left.append(g)
            else:
                give(g, chosen)
        unassigned = left

    # Plain round robin with Java's LinkedList-iterator semantics over under_min.
    pos = 0
    for g in unassigned:
        if pos < len(under_min):
            consumer = under_min[pos]
            pos += 1
        elif not under_min and not exactly_min:
            raise AssignorError(
                "sticky assignment ran out of members with room (a bug: please report)"
            )
        elif not under_min:
            consumer = exactly_min.pop(0)
        else:
            pos = 1
            consumer = under_min[0]
        count = give(g, consumer)
        if count == min_q:
            pos -= 1
            del under_min[pos]
            exactly_min.append(consumer)
        elif count == max_q:
            current_over += 1

    if under_min and current_over != expected_over:
        raise AssignorError(
            "sticky assignment left members below their quota (a bug: please report)"
        )
    return assignment, transferring, maybe_revoked
