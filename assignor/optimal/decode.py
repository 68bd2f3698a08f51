"""From the flow's counts to partitions, spreading bytes without changing cost or counts.

docs/rack-optimal.md § 5 states the rules; the Java core (``dev.rackwise.core``) follows the
same page. The flow says how many partitions each ``(class, place)`` pool hands each member;
any split of a pool costs the same, so the decode is free to choose *which* partitions, and
chooses them so that no member becomes a hot spot:

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

# unit(tp, member) -> the solver's integer cost of that placement (docs/rack-optimal.md § 2)
UnitCost = Callable[[TopicPartition, str], int]


@dataclass(frozen=True)
class Pool:
    """Partitions the flow sent to one (class, place) node, and how many each member takes."""

    partitions: Sequence[TopicPartition]
    want: Mapping[str, int]


def hand_out(
    kept: Mapping[str, Sequence[TopicPartition]],
    pools: Sequence[Pool],
    weight: Mapping[TopicPartition, float],
    prev: Mapping[TopicPartition, str],
) -> dict[str, list[TopicPartition]]:
    """Step 2: ``kept`` (direct arcs to previous owners) plus every pool, heaviest first."""
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
    total_w = sum(load.values()) - sum(it[0] for it in items)
    mean = total_w / n_parts if n_parts else 0.0
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
                and load[owner] + w <= max(total_n[owner] * mean, w):
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
