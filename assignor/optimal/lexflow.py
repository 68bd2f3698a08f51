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
from collections.abc import Sequence

from assignor.errors import AssignorError
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
