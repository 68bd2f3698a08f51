"""From the flow to members and partitions, spreading bytes without changing cost or counts.

docs/rack-optimal.md § 4.3-§ 5 state the rules; the Java core (``dev.rackwise.core``) follows
the same page. First the flow on the collapsed network is read back (:func:`to_members`):

- § 4.3 a kind's keep-arc units are dealt to its members one at a time (one cursor), its
  total load split evenly (the extra units to those who keep most), and what each still
  needs is taken from the pools feeding the kind, in pool order, members in id order;
- § 4.4 each supply's partitions not kept go to its pool arcs in pool order.

Then each pool's partitions are handed to the members its counts name. Any split of a pool
costs the same, so the decode is free to choose *which* partitions, and chooses them so that
no member becomes a hot spot:

1. pool partitions go out heaviest first, each to its previous owner when that makes no hot
   spot, else to the least-loaded member of its pool (LPT, the classic makespan heuristic);
2. then shifts and pairwise swaps between the busiest member and a lighter one, each
   cost-neutral in the solver's exact integer units and keeping the sorted count vector,
   while the busiest load falls; no partition leaves its previous owner here.

Example: one pool {a, b} in one rack taking 2 partitions each of weights 9, 9, 1, 1 -> a gets
9 + 1 and b gets 9 + 1 (not 9 + 9 and 1 + 1 as a split in partition order would give).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from assignor.cluster import TopicPartition
from assignor.optimal.collapse import Collapsed
from assignor.optimal.network import Flow

# unit(tp, member) -> the solver's integer cost of that placement (docs/rack-optimal.md § 2)
UnitCost = Callable[[TopicPartition, str], int]


@dataclass(frozen=True)
class PoolShare:
    """Partitions the flow sent to one (class, place) pool, and how many each member takes."""

    partitions: Sequence[TopicPartition]
    want: Mapping[str, int]


def to_members(
    col: Collapsed, flow: Flow, lo: int
) -> tuple[dict[str, list[TopicPartition]], list[PoolShare]]:
    """§ 4.3 and § 4.4: each member's kept partitions, and per pool its partitions and counts."""
    kept: dict[str, list[TopicPartition]] = {m: [] for m in col.members}
    want: list[dict[str, int]] = [{} for _ in col.pools]
    supplies_of: list[list[int]] = [[] for _ in col.kinds]
    for si, sup in enumerate(col.supplies):
        if sup.owner is not None:
            supplies_of[sup.owner].append(si)  # supply order: type order within a kind
    for k, kind in enumerate(col.kinds):
        _deal_kept(col, flow, supplies_of[k], kind.members, kept)
        load = _loads(kind.members, lo * len(kind.members)
                      + sum(flow.of(a) for a in flow.arcs.sink[k]), kept)
        _from_pools(flow, k, kind.members, load, kept, want)
    pooled = _route(col, flow, kept)
    return kept, [PoolShare(pooled[pi], want[pi]) for pi in range(len(col.pools))]


def _deal_kept(
    col: Collapsed,
    flow: Flow,
    supplies: Sequence[int],
    members: Sequence[str],
    kept: dict[str, list[TopicPartition]],
) -> None:
    """§ 4.3.1: deal each keep arc's units to ``members`` (id order) one at a time, one cursor
    across the kind's owned types; a member keeps its own first partitions of the type."""
    n = len(members)
    cursor = 0
    for si in supplies:
        sup = col.supplies[si]
        dealt = dict.fromkeys(members, 0)
        for _ in range(flow.of(flow.arcs.keep[si])):
            dealt[members[cursor]] += 1
            cursor = (cursor + 1) % n
        own: dict[str, list[TopicPartition]] = {}
        for tp in sup.partitions:
            own.setdefault(col.owner[tp], []).append(tp)
        for m in members:
            kept[m].extend(own.get(m, [])[: dealt[m]])


def _loads(
    members: Sequence[str], total: int, kept: Mapping[str, Sequence[TopicPartition]]
) -> dict[str, int]:
    """§ 4.3.2: ``total // n`` each, one more for the first ``total % n`` by (kept desc, id)."""
    base, extra = divmod(total, len(members))
    order = sorted(members, key=lambda m: (-len(kept[m]), m))
    return {m: base + (1 if i < extra else 0) for i, m in enumerate(order)}


def _from_pools(
    flow: Flow,
    k: int,
    members: Sequence[str],
    load: Mapping[str, int],
    kept: Mapping[str, Sequence[TopicPartition]],
    want: list[dict[str, int]],
) -> None:
    """§ 4.3.3: the pools feeding kind ``k``, in pool order, give their flow to its members
    in id order, each as much as it still needs (``load - kept``)."""
    need = [load[m] - len(kept[m]) for m in members]
    i = 0
    for pi, arc in flow.arcs.feeds[k]:
        left = flow.of(arc)
        while left:
            take = min(left, need[i])
            if take:
                want[pi][members[i]] = want[pi].get(members[i], 0) + take
                need[i] -= take
                left -= take
            if not need[i]:
                i += 1


def _route(
    col: Collapsed, flow: Flow, kept: Mapping[str, Sequence[TopicPartition]]
) -> list[list[TopicPartition]]:
    """§ 4.4: each supply's partitions, (topic, partition) order, less those kept, go to its
    pool arcs in pool order, as many as each arc carries."""
    is_kept = {tp for tps in kept.values() for tp in tps}
    pooled: list[list[TopicPartition]] = [[] for _ in col.pools]
    for si, sup in enumerate(col.supplies):
        rest = [tp for tp in sup.partitions if tp not in is_kept]
        at = 0
        for pi, arc in flow.arcs.to_pools[si]:
            f = flow.of(arc)
            pooled[pi].extend(rest[at : at + f])
            at += f
    return pooled


def hand_out(
    kept: Mapping[str, Sequence[TopicPartition]],
    pools: Sequence[PoolShare],
    weight: Mapping[TopicPartition, float],
    prev: Mapping[TopicPartition, str],
) -> dict[str, list[TopicPartition]]:
    """§ 5 step 2: ``kept`` (§ 4.3.1) plus every pool's partitions, heaviest first.

    ``fair(m) = n(m) * W / P`` (left to right), ``W`` summed in (topic, partition) order."""
    out = {m: list(tps) for m, tps in kept.items()}
    load = {m: _sum(weight, tps) for m, tps in out.items()}
    count = {m: len(tps) for m, tps in out.items()}
    total_n = dict(count)
    want: list[dict[str, int]] = []
    for pool in pools:
        want.append(dict(pool.want))
        for m, n in pool.want.items():
            total_n[m] = total_n.get(m, 0) + n
            out.setdefault(m, [])
            load.setdefault(m, 0.0)
            count.setdefault(m, 0)
    # heaviest first, then (topic, partition): plain tuples sort fast
    items = sorted((-weight[tp], tp.topic, tp.partition, tp, i)
                   for i, pool in enumerate(pools) for tp in pool.partitions)
    n_parts = sum(count.values()) + len(items)
    total_w = _sum(weight, [tp for tps in out.values() for tp in tps]
                   + [it[3] for it in items])
    # Per pool a heap of (load, count, member); loads only grow, so an entry whose key is
    # out of date is pushed again with the current one when it surfaces.
    heaps = [[(load[m], count[m], m) for m in sorted(w) if w[m] > 0] for w in want]
    for h in heaps:
        heapq.heapify(h)
    for neg_w, _, _, tp, i in items:
        w = -neg_w
        left = want[i]
        owner = prev.get(tp)
        if owner is not None and left.get(owner, 0) > 0 \
                and load[owner] + w <= max(total_n[owner] * total_w / n_parts, w):
            chosen = owner
        else:
            h = heaps[i]
            while True:
                key = h[0]
                m = key[2]
                if left[m] <= 0:
                    heapq.heappop(h)
                elif key[0] != load[m] or key[1] != count[m]:
                    heapq.heapreplace(h, (load[m], count[m], m))
                else:
                    break
            chosen = m
            if left[m] > 1:
                heapq.heapreplace(h, (load[m] + w, count[m] + 1, m))
            else:
                heapq.heappop(h)
        left[chosen] -= 1
        out[chosen].append(tp)
        load[chosen] += w
        count[chosen] += 1
    return out


def spread(
    assignment: dict[str, list[TopicPartition]],
    weight: Mapping[TopicPartition, float],
    subscribed: Mapping[str, frozenset[str]],
    unit: UnitCost,
    prev: Mapping[TopicPartition, str],
) -> None:
    """Step 3, in place: cost-neutral shifts and swaps while the busiest member's load falls."""
    members = sorted(assignment)
    if len(set(weight.values())) <= 1:
        return
    # each member's partitions, lightest first, for the search of a lighter partner
    held = {m: sorted(assignment[m], key=lambda tp: (weight[tp], tp)) for m in members}
    keys = {m: [(weight[tp], tp) for tp in held[m]] for m in members}
    load = {m: _sum(weight, held[m]) for m in members}
    for _ in range(2 * len(members) + 10):
        a = min(members, key=lambda m: (-load[m], m))
        lighter = sorted((m for m in members if load[m] < load[a]), key=lambda m: (load[m], m))
        found = _find_move(a, lighter, held, keys, load, weight, subscribed, unit, prev)
        if found is None:
            break
        p, b, q = found
        _take(keys[a], held[a], p, weight)
        _put(keys[b], held[b], p, weight)
        if q is not None:
            _take(keys[b], held[b], q, weight)
            _put(keys[a], held[a], q, weight)
        load[a] = _sum(weight, held[a])
        load[b] = _sum(weight, held[b])
    for m in members:
        assignment[m] = held[m]


def _take(k: list[tuple[float, TopicPartition]], tps: list[TopicPartition], tp: TopicPartition,
          weight: Mapping[TopicPartition, float]) -> None:
    i = bisect.bisect_left(k, (weight[tp], tp))
    del k[i]
    del tps[i]


def _put(k: list[tuple[float, TopicPartition]], tps: list[TopicPartition], tp: TopicPartition,
         weight: Mapping[TopicPartition, float]) -> None:
    j = bisect.bisect_left(k, (weight[tp], tp))
    k.insert(j, (weight[tp], tp))
    tps.insert(j, tp)


def _sum(weight: Mapping[TopicPartition, float], tps: Sequence[TopicPartition]) -> float:
    """A member's load, summed in (topic, partition) order so both languages add alike."""
    total = 0.0
    for tp in sorted(tps):
        total += weight[tp]
    return total


def _find_move(
    a: str,
    lighter: Sequence[str],
    held: Mapping[str, list[TopicPartition]],
    keys: Mapping[str, list[tuple[float, TopicPartition]]],
    load: Mapping[str, float],
    weight: Mapping[TopicPartition, float],
    subscribed: Mapping[str, frozenset[str]],
    unit: UnitCost,
    prev: Mapping[TopicPartition, str],
) -> tuple[TopicPartition, str, TopicPartition | None] | None:
    """The first (p, b) of § 5 step 3 with an improving shift or swap, and its best partner."""
    top = load[a]
    n_a = len(held[a])
    for p in sorted(held[a], key=lambda tp: (-weight[tp], tp)):
        if prev.get(p) == a:
            continue  # the spread never moves a partition off its previous owner
        wp = weight[p]
        here = unit(p, a)
        for b in lighter:
            if p.topic not in subscribed[b] or unit(p, b) != here:
                continue
            best: tuple[float, float, TopicPartition | None] | None = None
            if len(held[b]) == n_a - 1:  # a shift: a and b trade counts, the balance holds
                new = max(top - wp, load[b] + wp)
                if new < top:
                    best = (new, 0.0, None)
            for wq, q in keys[b]:
                if wq >= wp:
                    break  # lightest first: nothing lighter than p is left
                if prev.get(q) == b or q.topic not in subscribed[a] or unit(q, a) != unit(q, b):
                    continue
                new = max(top - wp + wq, load[b] + wp - wq)
                if new < top and (best is None or (new, wq) < best[:2]):
                    best = (new, wq, q)
            if best is not None:
                return p, b, best[2]
    return None
