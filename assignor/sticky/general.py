"""The general sticky algorithm (KIP-54, KAFKA-12675, KAFKA-15106) for mixed subscriptions.

Kept partitions stay, new ones go to the least-loaded subscribed member (rack-local first),
then partitions are moved from members with two or more partitions above some other
subscriber until ``isBalanced``; a move that does not improve the balance score is undone.
A member ordering (load, id) and topic ordering (number of subscribers, name) drive every
choice, as in Java; where Java picks from a HashSet of moved partitions, the HashSet order
of ``TopicPartition.hashCode`` is emulated.

Example: t1 (2 partitions) to a and b, t2 (4 partitions) to b only: b keeps t2, a gets t1.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from assignor.javaorder import hashmap_capacity, java_string_hash
from assignor.sticky.rack import RackInfo, Universe


class _Loads:
    """Java's TreeSet of members ordered by (assigned count, member id)."""

    def __init__(self, assignment: Mapping[str, list[int]]) -> None:
        self.a = assignment
        self.keys: list[tuple[int, str]] = sorted((len(v), m) for m, v in assignment.items())

    def remove(self, m: str) -> None:
        k = (len(self.a[m]), m)
        i = bisect.bisect_left(self.keys, k)
        if i < len(self.keys) and self.keys[i] == k:
            del self.keys[i]

    def add(self, m: str) -> None:
        bisect.insort(self.keys, (len(self.a[m]), m))

    def members(self) -> list[str]:
        return [m for _, m in self.keys]


class _Movements:
    """PartitionMovements: remembers moves per topic to avoid A->B then B->A of one topic."""

    def __init__(self, uni: Universe) -> None:
        self.uni = uni
        self.moves: dict[int, tuple[str, str]] = {}
        self.by_topic: dict[str, dict[tuple[str, str], dict[int, int]]] = {}
        self.caps: dict[tuple[str, tuple[str, str]], int] = {}
        self.seq = 0

    def _java_hash(self, g: int) -> int:
        tp = self.uni.tp(g)
        h = (31 * (31 + tp.partition) + java_string_hash(tp.topic)) & 0xFFFFFFFF
        return h ^ (h >> 16)

    def _add(self, g: int, pair: tuple[str, str]) -> None:
        self.moves[g] = pair
        topic = self.uni.tp(g).topic
        sets = self.by_topic.setdefault(topic, {})
        s = sets.setdefault(pair, {})
        self.seq += 1
        s[g] = self.seq
        key = (topic, pair)
        self.caps[key] = max(self.caps.get(key, 16), hashmap_capacity(len(s)))

    def _remove(self, g: int) -> tuple[str, str]:
        pair = self.moves.pop(g)
        topic = self.uni.tp(g).topic
        sets = self.by_topic[topic]
        del sets[pair][g]
        if not sets[pair]:
            del sets[pair]
            self.caps.pop((topic, pair), None)
        if not sets:
            del self.by_topic[topic]
        return pair

    def move(self, g: int, old: str, new: str) -> None:
        if g in self.moves:
            src, _ = self._remove(g)
            if src != new:
                self._add(g, (src, new))
        else:
            self._add(g, (old, new))

    def actual_partition(self, g: int, old: str, new: str) -> int:
        topic = self.uni.tp(g).topic
        sets = self.by_topic.get(topic)
        if sets is None:
            return g
        if g in self.moves:
            old = self.moves[g][0]
        s = sets.get((new, old))
        if not s:
            return g
        mask = self.caps[(topic, (new, old))] - 1
        return min(s, key=lambda x: ((self._java_hash(x) & mask), s[x]))


def build_general(
    uni: Universe,
    rack: RackInfo,
    topics_of: Mapping[str, Sequence[str]],
    owned: Mapping[str, list[int]],
    prev: Mapping[int, tuple[str, int]],
) -> dict[str, list[int]]:
    """Return member -> partitions. ``prev``: partition -> (older owner, its generation)."""
    potential: dict[str, list[str]] = {t: [] for t in uni.topics}
    member_topics: dict[str, list[str]] = {}
    for m in sorted(topics_of):
        mine = [t for t in topics_of[m] if t in potential]
        member_topics[m] = mine
        for t in mine:
            potential[t].append(m)
    current: dict[str, list[int]] = {m: list(owned.get(m, [])) for m in sorted(topics_of)}
    owner: dict[int, str] = {}
    sorted_topics = sorted(uni.topics, key=lambda t: (len(potential[t]), t))
    sorted_all = [uni.offset[t] + p for t in sorted_topics for p in range(uni.count[t])]
    revocation = False
    kept: set[int] = set()
    for m, lst in current.items():
        subscribed = set(topics_of[m])
        keep = []
        for g in lst:
            t = uni.topics[int(uni.topic_index[g])]
            if t not in subscribed or (rack.enabled and rack.mismatch(m, g)):
                revocation = True
            else:
                keep.append(g)
                owner[g] = m
        current[m] = keep
        kept.update(keep)
    unassigned = [g for g in sorted_all if g not in kept]
    loads = _Loads(current)
    moves = _Movements(uni)
    total = uni.size

    def max_size(m: str) -> int:
        return sum(uni.count[t] for t in member_topics[m])

    def topic_of(g: int) -> str:
        return uni.topics[int(uni.topic_index[g])]

    def assign_first(g: int, rack_match: bool) -> bool:
        t = topic_of(g)
        for m in loads.members():
            if t in member_topics[m] and not (rack_match and rack.mismatch(m, g)):
                loads.remove(m)
                current[m].append(g)
                owner[g] = m
                loads.add(m)
                return True
        return False

    initializing = not current[loads.keys[-1][1]] if loads.keys else True
    todo = list(unassigned)
    if rack.enabled and rack.consumer_bit:
        todo = [g for g in todo if not (potential[topic_of(g)] and assign_first(g, True))]
    for g in todo:
        if potential[topic_of(g)]:
            assign_first(g, False)

    fixed_topics = {t for t in uni.topics if len(potential[t]) < 2}
    sorted_all = [g for g in sorted_all if topic_of(g) not in fixed_topics]
    unassigned = [g for g in unassigned if topic_of(g) not in fixed_topics]
    fixed: dict[str, list[int]] = {}
    for m in sorted(member_topics):
        lst = current[m]
        can = len(lst) < max_size(m) or any(topic_of(g) not in fixed_topics for g in lst)
        if not can:
            loads.remove(m)
            fixed[m] = current.pop(m)
    pre = {m: list(v) for m, v in current.items()}
    pre_owner = dict(owner)

    def balanced() -> bool:
        if not loads.keys:
            return True
        if loads.keys[0][0] >= loads.keys[-1][0] - 1:
            return True
        for m in loads.members():
            mine = current[m]
            if len(mine) == max_size(m):
                continue
            have = set(mine)
            for t in member_topics[m]:
                off = uni.offset[t]
                for p in range(uni.count[t]):
                    g = off + p
                    if g in have:
                        continue
                    other = owner.get(g)
                    if other in current and len(mine) + 1 < len(current[other]):
                        return False
        return True

    def process(g: int, new: str) -> None:
        old = owner[g]
        loads.remove(old)
        loads.remove(new)
        moves.move(g, old, new)
        current[old].remove(g)
        current[new].append(g)
        owner[g] = new
        loads.add(new)
        loads.add(old)

    def reassign(g: int, new: str | None = None) -> None:
        if new is None:
            t = topic_of(g)
            new = next(m for m in loads.members() if t in member_topics[m])
        process(moves.actual_partition(g, owner[g], new), new)

    def perform(partitions: list[int]) -> bool:
        performed = False
        modified = True
        while modified:
            modified = False
            for g in partitions:
                if balanced():
                    break
                m = owner.get(g)
                if m is None or m not in current:
                    continue
                p = prev.get(g)
                if p is not None and p[0] in current and len(current[m]) > len(current[p[0]]) + 1:
                    reassign(g, p[0])
                    performed = modified = True
                    continue
                t = topic_of(g)
                size = len(current[m])
                found = False
                if rack.enabled and not rack.mismatch(m, g) and m in rack.consumer_bit:
                    pm = int(rack.partition_mask[g])
                    for o in potential[t]:
                        if (
                            rack.consumer_bit.get(o, 0) & pm
                            and o in current
                            and size > len(current[o]) + 1
                        ):
                            reassign(g)
                            performed = modified = found = True
                            break
                if not found:
                    for o in potential[t]:
                        if o in current and size > len(current[o]) + 1:
                            reassign(g)
                            performed = modified = True
                            break
        return performed

    if not revocation:
        perform(unassigned)
    performed = perform(sorted_all)
    if not initializing and performed and _score(current) >= _score(pre):
        current.clear()
        current.update(pre)
        owner.clear()
        owner.update(pre_owner)
    current.update(fixed)
    del total
    return current


def _score(assignment: Mapping[str, list[int]]) -> int:
    sizes = sorted(len(v) for v in assignment.values())
    # sum over pairs of |a - b|, computed on sorted sizes in O(n)
    acc = 0
    prefix = 0
    for i, s in enumerate(sizes):
        acc += s * i - prefix
        prefix += s
    return acc
