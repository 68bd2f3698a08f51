"""The collapsed network and its lexicographic levels: docs/rack-optimal.md § 4.2.

Nodes: the sink, one per kind, one per pool, one per supply (in that order). Arcs are created
in the page's order, because the arc index feeds the perturbation that makes the optimal
flow unique, and the Java core builds the same network index for index:

1. per kind: its arcs to the sink above its floor (``n * lo`` demanded at the kind);
2. per pool: its arc to every kind at its place whose signature holds its class;
3. per supply: its keep arc to the owner kind (owned supplies), then its arc to every pool
   of its class.

Each arc costs ``(balance, cost, tie)``; :class:`LexNetwork` appends the perturbation and
combines them (docs/streams-assignor.md § 6), keeping at least balance and cost.

Example: one kind of 2 members at az1, one pool (t, az1), one unowned supply of 4 partitions,
uniform band lo = hi = 2 -> arcs: pool -> kind (capacity 4), supply -> pool (capacity 4);
no sink arc (top = lo), the kind demands 4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from assignor.cost import Place
from assignor.errors import SolverError
from assignor.optimal.balance import Band
from assignor.optimal.collapse import Collapsed
from assignor.optimal.lexflow import LexNetwork

# unit(type index, place) -> integer units of § 2 for one partition of that type, no move
TypeUnit = Callable[[int, Place], int]

TOO_LARGE = "costs too large to solve exactly: lower traffic_cost or weights"


@dataclass(frozen=True)
class Arcs:
    """Arc indices by role, to read the flow back (§ 4.3, § 4.4)."""

    sink: tuple[tuple[int, ...], ...]  # per kind: its sink arcs
    feeds: tuple[tuple[tuple[int, int], ...], ...]  # per kind: (pool, arc), pool order
    keep: tuple[int | None, ...]  # per supply: its keep arc (owned supplies)
    to_pools: tuple[tuple[tuple[int, int], ...], ...]  # per supply: (pool, arc), pool order


@dataclass(frozen=True)
class Flow:
    """The optimal flow on every arc, and what the combined costs held (§ 4.2, § 6)."""

    arcs: Arcs
    flows: np.ndarray
    levels_used: int  # 3: (balance, cost, tie); 2: the tie was dropped
    perturbation_bits: int  # stage 2's width: 32 unless B * 2**32 passes 2**60; 0 means none

    def of(self, arc: int | None) -> int:
        return 0 if arc is None else int(self.flows[arc])


def build(col: Collapsed, bnd: Band, unit: TypeUnit, move_unit: int) -> tuple[LexNetwork, Arcs]:
    """The network of § 4.2, nodes and arcs in the stated order."""
    # Every unit runs supply -> pool -> kind -> sink at most (3 arcs, no cycles): the levels'
    # scales are bounded by 3 P (§ 4.2), far tighter than sum(cap * level) over the arcs.
    net = LexNetwork(keep=2, error=SolverError(TOO_LARGE), path_bound=3 * sum(col.sizes))
    sink = net.add_node()
    kind_node = [net.add_node() for _ in col.kinds]
    pool_node = [net.add_node() for _ in col.pools]
    supply_node = [net.add_node() for _ in col.supplies]
    sink_arcs = [_sink_arcs(net, kind_node[k], sink, len(kind.members),
                            _top(bnd, kind.members[0]), bnd)
                 for k, kind in enumerate(col.kinds)]
    net.set_supply(sink, -(sum(col.sizes) - bnd.lo * len(col.members)))
    feeds: list[list[tuple[int, int]]] = [[] for _ in col.kinds]
    kinds_of = _kinds_of_pool(col)
    for pi, pool in enumerate(col.pools):
        for k in kinds_of.get((pool.cls, pool.place), ()):
            feeds[k].append((pi, net.add_arc(pool_node[pi], kind_node[k],
                                             col.sizes[pool.cls], (0, 0, 0))))
    pools_of = _pools_of_class(col)
    keep: list[int | None] = []
    to_pools: list[tuple[tuple[int, int], ...]] = []
    for si, sup in enumerate(col.supplies):
        units = len(sup.partitions)
        net.set_supply(supply_node[si], units)
        owned = sup.owner is not None
        if sup.owner is not None:
            home = col.kinds[sup.owner]
            keep.append(net.add_arc(supply_node[si], kind_node[sup.owner], units,
                                    (0, unit(sup.type, home.place), 0)))
        else:
            keep.append(None)
        move, tie = (move_unit, 1) if owned else (0, 0)
        to_pools.append(tuple(
            (pi, net.add_arc(supply_node[si], pool_node[pi], units,
                             (0, unit(sup.type, col.pools[pi].place) + move, tie)))
            for pi in pools_of[col.types[sup.type].cls]))
    arcs = Arcs(tuple(sink_arcs), tuple(map(tuple, feeds)), tuple(keep), tuple(to_pools))
    return net, arcs


def solve_flow(col: Collapsed, bnd: Band, unit: TypeUnit, move_unit: int) -> Flow:
    """Build § 4.2's network and solve it in its two stages: the one flow, at any size."""
    net, arcs = build(col, bnd, unit, move_unit)
    sol = net.solve_in_two_stages()
    return Flow(arcs, sol.flows, net.levels_used, net.perturbation_bits)


def _top(bnd: Band, member: str) -> int:
    """A member's cap in the band: the same for every member of a kind (one signature)."""
    return min(bnd.caps[member], bnd.hi)


def _sink_arcs(net: LexNetwork, kind: int, sink: int, n: int, top: int, bnd: Band) -> tuple[int, ...]:
    """§ 4.2 step 1: the kind demands ``n * lo``; above it, uniform: one arc of ``n * (top -
    lo)``; mixed: per load ``l = lo+1 .. top`` an arc of ``n`` at balance ``2l - 1``."""
    net.set_supply(kind, -n * bnd.lo)
    if bnd.uniform:
        if top <= bnd.lo:
            return ()
        return (net.add_arc(kind, sink, n * (top - bnd.lo), (0, 0, 0)),)
    return tuple(net.add_arc(kind, sink, n, (2 * load - 1, 0, 0))
                 for load in range(bnd.lo + 1, top + 1))


def _kinds_of_pool(col: Collapsed) -> dict[tuple[int, Place], list[int]]:
    """Per (class, place): the kinds at that place whose signature holds the class, in order."""
    out: dict[tuple[int, Place], list[int]] = {}
    for k, kind in enumerate(col.kinds):
        for ci in sorted(kind.signature):
            out.setdefault((ci, kind.place), []).append(k)
    return out


def _pools_of_class(col: Collapsed) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in col.classes]
    for pi, pool in enumerate(col.pools):
        out[pool.cls].append(pi)
    return out

