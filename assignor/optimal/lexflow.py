"""Lexicographic min-cost flow, shared by the Streams optimisers (docs/streams-assignor.md § 6)
and rack-optimal (docs/rack-optimal.md § 4.2).

Each arc carries a tuple of integer levels, most important first: the step's cost, then the
tie-breaks (standby tie, moves), and last a *perturbation* ``perturbation(arc id)`` that
makes the optimal flow unique, so any exact solver (OR-Tools here, the JVM core's own) ends
on the same flow and both implementations decode the same assignment.

Levels are combined into one integer: level ``i`` is scaled by ``1 + sum(cap * level_i)``
over every arc, which bounds what any feasible flow can collect at that level, so no lower
level can outweigh one unit of a higher one. The combination must fit: with ``M`` the
largest combined arc cost and ``S`` the sum of ``cap * cost`` over arcs, both
``M * (nodes + 1)`` and ``S`` stay below 2**60 (OR-Tools' cost scaling and the JVM solver's
distances stay in 64 bits). Tried in order: every level with a perturbation of 32, 24, 16,
12, 8, then 4 bits; then without the perturbation, dropping levels from the lowest, down to
the ``keep`` most important ones (Streams: 1, its cost; rack-optimal: 2, balance and cost,
since its balance level is all zero under uniform subscriptions). If those do not fit, the
weights are too large to solve exactly.

Example: two arcs of equal cost (10, 0) but perturbations 3 and 7 combine to 10 * s + 3
and 10 * s + 7: the first wins, whatever the solver.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

import numpy as np

from assignor.errors import AssignorError, SolverError
from assignor.optimal.flow import FlowNetwork, FlowSolution

LIMIT = 1 << 60
TOO_LARGE = ("rack-aware costs too large to solve exactly (weights x traffic_cost x "
             "partitions reach 2**60): scale the weights down")


BITS = (32, 24, 16, 12, 8, 4)


def perturbation(arc: int, bits: int = 32) -> int:
    """The last level of arc ``arc`` (its creation index): 1 .. 2**bits, the top ``bits``
    bits of MurmurHash3's 32-bit finaliser of ``arc + 1``. A non-linear mix: with a linear
    one (``arc * constant``) two swaps between arcs the same distance apart tie exactly."""
    return 1 + (_fmix32(arc + 1) >> (32 - bits))


def _fmix32(x: int) -> int:
    """MurmurHash3's 32-bit finaliser."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & 0xFFFFFFFF
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & 0xFFFFFFFF
    x ^= x >> 16
    return x


class LexNetwork:
    """A FlowNetwork whose arcs cost tuples of levels (the perturbation is appended).

    ``keep``: how many leading levels must fit (never dropped); ``error``: what is raised
    when they do not. After :meth:`solve`, ``levels_used`` and ``perturbation_bits`` (0: no
    perturbation) say what the combined costs held.
    """

    def __init__(self, *, keep: int = 1, error: AssignorError | None = None,
                 path_bound: int | None = None) -> None:
        self._keep = keep
        # path_bound (the consumer core's): every feasible flow is at most this many arc-units
        # (units x the longest path, in a network without cycles); with it, each level is
        # also divided by the gcd of its values, which changes no optimum and saves bits.
        self._bound = path_bound
        self._error = error or AssignorError(TOO_LARGE)
        self._nodes = 0
        self._tails: list[int] = []
        self._heads: list[int] = []
        self._caps: list[int] = []
        self._levels: list[tuple[int, ...]] = []
        self._supply: dict[int, int] = {}
        self._mix: list[int] = []
        self.levels_used = 0
        self.perturbation_bits = 0

    def add_node(self) -> int:
        self._nodes += 1
        return self._nodes - 1

    def set_supply(self, node: int, supply: int) -> None:
        self._supply[node] = self._supply.get(node, 0) + supply

    @property
    def num_arcs(self) -> int:
        return len(self._tails)

    def arc(self, arc: int) -> tuple[int, int, int, tuple[int, ...]]:
        """(tail, head, capacity, levels) of an arc, as built (the perturbation not included)."""
        return self._tails[arc], self._heads[arc], self._caps[arc], self._levels[arc]

    def add_arc(self, tail: int, head: int, capacity: int, levels: Sequence[int]) -> int:
        arc = len(self._tails)
        self._tails.append(tail)
        self._heads.append(head)
        self._caps.append(capacity)
        self._levels.append(tuple(levels))
        return arc

    def _combine(self, used: int, bits: int) -> list[int] | None:
        """Combined costs of the first ``used`` levels, plus the perturbation when ``bits``;
        None when they do not fit."""
        out = self._levels_combined(used)
        if bits:
            hs = [1 + (x >> (32 - bits)) for x in self._mixes()]
            scale = self._scale(hs)
            # every combined cost is at least its levels' times ``scale``: reject early
            if max(out, default=0) * scale * (self._nodes + 1) >= LIMIT:
                return None
            out = [cost * scale + h for cost, h in zip(out, hs, strict=True)]
        top = max(out, default=0)
        total = (self._bound * top if self._bound is not None
                 else sum(c * w for c, w in zip(self._caps, out, strict=True)))
        if top * (self._nodes + 1) >= LIMIT or total >= LIMIT:
            return None
        return out

    def _levels_combined(self, used: int) -> list[int]:
        """The first ``used`` levels as one integer per arc: level ``i >= 1`` scaled by
        ``1 + sum(cap * level_i)``."""
        rows = [lv[:used] for lv in self._levels]
        if self._bound is not None and rows:
            cols = [[lv[i] for lv in rows] for i in range(used)]
            gs = [math.gcd(*col) or 1 for col in cols]
            rows = [tuple(x // g for x, g in zip(lv, gs, strict=True)) for lv in rows]
        out = [lv[0] if lv else 0 for lv in rows]
        for i in range(1, used):
            scale = self._scale([lv[i] for lv in rows])
            out = [cost * scale + lv[i] for cost, lv in zip(out, rows, strict=True)]
        return out

    def _scale(self, level: Sequence[int]) -> int:
        """One more than any feasible flow can collect at ``level``: ``sum(cap * level)``, or
        with a ``path_bound`` B (every feasible flow is at most B arc-units: units times the
        longest path, in a network without cycles) ``B * max(level)``."""
        if self._bound is not None:
            return 1 + self._bound * max(level, default=0)
        return 1 + sum(c * x for c, x in zip(self._caps, level, strict=True))

    def _mixes(self) -> list[int]:
        """The finaliser of ``arc + 1`` for every arc (computed once)."""
        if len(self._mix) != len(self._levels):
            self._mix = [_fmix32(arc + 1) for arc in range(len(self._levels))]
        return self._mix

    def solve_in_two_stages(self) -> FlowSolution:
        """The lexicographic optimum at any size (docs/rack-optimal.md § 4.2): first the
        levels alone (as many as fit, never fewer than ``keep``), then, among the flows
        optimal for them, the least total perturbation of 32 bits.

        The flows optimal for the levels are exactly those that meet complementary slackness
        with any optimal potential: an arc whose reduced cost is positive carries nothing, a
        negative one is full, and only the arcs at reduced cost 0 are free. So stage 2 is a
        min-cost flow over the free arcs, costs the perturbations, supplies less what the
        full arcs carry. Its costs need no room for the levels, so it fits where one
        combined integer cannot."""
        width = max((len(lv) for lv in self._levels), default=1)
        for used in range(width, min(self._keep, width) - 1, -1):
            costs = self._combine(used, 0) if used else None
            if costs is not None:
                break
        else:
            raise self._error
        first = self._flow_network(self._caps, costs, self._supply).solve()
        flows = [int(f) for f in first.flows]
        pot = self._potentials(flows, costs)
        supply = dict(self._supply)
        free_arcs: list[int] = []
        for a, (u, v, cap, c) in enumerate(zip(self._tails, self._heads, self._caps, costs,
                                               strict=True)):
            reduced = c + pot[u] - pot[v]
            if reduced == 0:
                free_arcs.append(a)
                flows[a] = 0
            elif reduced < 0:  # full in every optimal flow
                supply[u] = supply.get(u, 0) - cap
                supply[v] = supply.get(v, 0) + cap
                flows[a] = cap
            else:
                flows[a] = 0
        # stage 2's costs are the perturbations alone: any flow collects at most B of them
        bound = self._bound if self._bound is not None else sum(self._caps)
        bits = next((b for b in BITS if ((1 << b) + 1) * max(bound, self._nodes + 1) < LIMIT), 0)
        if free_arcs and bits:
            mix = self._mixes()
            second = FlowNetwork()
            for _ in range(self._nodes):
                second.add_node()
            second.add_arcs([self._tails[a] for a in free_arcs], [self._heads[a] for a in free_arcs],
                            [self._caps[a] for a in free_arcs],
                            [1 + (mix[a] >> (32 - bits)) for a in free_arcs])
            for node, amount in sorted(supply.items()):
                second.set_supply(node, amount)
            sol = second.solve()
            for i, a in enumerate(free_arcs):
                flows[a] = int(sol.flows[i])
        elif free_arcs:
            for a in free_arcs:
                flows[a] = int(first.flows[a])
        self.levels_used, self.perturbation_bits = used, bits
        total = sum(f * c for f, c in zip(flows, costs, strict=True))
        if total != first.cost:  # stage 2 left the optimal face: a bug, never an input's fault
            raise SolverError(f"two-stage flow lost the optimum ({total} != {first.cost})")
        return FlowSolution(cost=total, flows=np.asarray(flows, dtype=np.int64))

    def _potentials(self, flows: Sequence[int], costs: Sequence[int]) -> list[int]:
        """Node potentials of an optimal flow: shortest distances in its residual network from
        a virtual source joined to every node at 0 (Bellman-Ford, queue-based); every residual
        arc then has a reduced cost ``cost + pot[tail] - pot[head] >= 0``."""
        out: list[list[tuple[int, int]]] = [[] for _ in range(self._nodes)]
        for u, v, cap, f, c in zip(self._tails, self._heads, self._caps, flows, costs,
                                   strict=True):
            if f < cap:
                out[u].append((v, c))
            if f > 0:
                out[v].append((u, -c))
        dist = [0] * self._nodes
        queue = deque(range(self._nodes))
        queued = [True] * self._nodes
        while queue:
            u = queue.popleft()
            queued[u] = False
            du = dist[u]
            for v, c in out[u]:
                if du + c < dist[v]:
                    dist[v] = du + c
                    if not queued[v]:
                        queued[v] = True
                        queue.append(v)
        return dist

    def _flow_network(self, caps: Sequence[int], costs: Sequence[int],
                      supply: dict[int, int]) -> FlowNetwork:
        net = FlowNetwork()
        for _ in range(self._nodes):
            net.add_node()
        if self._tails:
            net.add_arcs(self._tails, self._heads, list(caps), list(costs))
        for node, amount in sorted(supply.items()):
            net.set_supply(node, amount)
        return net

    def solve(self) -> FlowSolution:
        width = max((len(lv) for lv in self._levels), default=1)
        tries = [(width, bits) for bits in BITS]
        tries += [(used, 0) for used in range(width, min(self._keep, width) - 1, -1) if used]
        for used, bits in tries:
            costs = self._combine(used, bits)
            if costs is not None:
                self.levels_used, self.perturbation_bits = used, bits
                break
        else:
            raise self._error
        net = FlowNetwork()
        for _ in range(self._nodes):
            net.add_node()
        if self._tails:
            net.add_arcs(self._tails, self._heads, self._caps, costs)
        for node, supply in sorted(self._supply.items()):
            net.set_supply(node, supply)
        return net.solve()
