"""How many partitions each member must and may get: the balance every optimal plan keeps.

Uniform subscriptions: each member floor(P/N) or ceil(P/N), like the sticky assignors.
Mixed subscriptions: the most balanced load vector (minimum sum of squared loads), found in
the flow itself by giving the k-th partition of a member the marginal cost 2k-1 on the
network's most important level (docs/rack-optimal.md § 3, § 4.2); to keep the network small,
the band is narrowed first to [lo*, hi*] = the best reachable minimum and maximum load, by
binary search over feasibility. Members subscribe through "classes": topics
with exactly the same subscribers, so the feasibility network is classes x members.

Example: t1 (2 partitions) for a and b, t2 (6 partitions) for c -> lo* = 1, hi* = 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assignor.errors import SolverError
from assignor.optimal.flow import FlowNetwork


@dataclass(frozen=True)
class Band:
    """Every member gets at least ``lo``; above that, one unit at a time up to its cap."""

    lo: int
    hi: int
    uniform: bool
    caps: dict[str, int]


def _feasible(
    class_sizes: Sequence[int],
    class_members: Sequence[Sequence[str]],
    members: Sequence[str],
    lo: int,
    hi: int,
) -> bool:
    total = sum(class_sizes)
    net = FlowNetwork()
    src = net.add_node()
    sink = net.add_node()
    node = {m: net.add_node() for m in members}
    for size, subs in zip(class_sizes, class_members, strict=True):
        c = net.add_node()
        net.add_arc(src, c, size, 0)
        for m in subs:
            net.add_arc(c, node[m], size, 0)
    for m in members:
        net.set_supply(node[m], -lo)
        net.add_arc(node[m], sink, hi - lo, 0)
    net.set_supply(src, total)
    net.set_supply(sink, -(total - lo * len(members)))
    if total - lo * len(members) < 0:
        return False
    try:
        net.solve()
    except SolverError:
        return False
    return True


def band(
    members: Sequence[str],
    class_sizes: Sequence[int],
    class_members: Sequence[Sequence[str]],
) -> Band:
    total = sum(class_sizes)
    caps = dict.fromkeys(members, 0)
    for size, subs in zip(class_sizes, class_members, strict=True):
        for m in subs:
            caps[m] += size
    n = len(members)
    if n == 0:
        return Band(0, 0, True, caps)
    uniform = all(len(subs) == n for subs in class_members)
    if uniform:
        return Band(total // n, -(-total // n), True, caps)
    lo_hi = -(-total // n)
    hi_hi = max(total, lo_hi)
    while lo_hi < hi_hi:  # smallest feasible maximum
        mid = (lo_hi + hi_hi) // 2
        if _feasible(class_sizes, class_members, members, 0, mid):
            hi_hi = mid
        else:
            lo_hi = mid + 1
    hi = lo_hi
    a, b = 0, min(total // n, min(caps.values()))
    while a < b:  # largest feasible minimum under that maximum
        mid = (a + b + 1) // 2
        if _feasible(class_sizes, class_members, members, mid, hi):
            a = mid
        else:
            b = mid - 1
    return Band(a, hi, False, caps)
