"""A small min-cost-flow network on OR-Tools' SimpleMinCostFlow, shared by every assignor.

Arcs are kept as parallel arrays and every arc id maps back to whatever the caller tagged it
with, so decoding a solution never searches. Costs and capacities are integers (OR-Tools
works on int64); callers scale fractional weights themselves.

Example: two partitions, one member, one unit each::

    net = FlowNetwork()
    src, p0, p1, m, sink = (net.add_node() for _ in range(5))
    net.set_supply(src, 2); net.set_supply(sink, -2)
    net.add_arc(src, p0, 1, 0); net.add_arc(src, p1, 1, 0)
    a = net.add_arc(p0, m, 1, 5); net.add_arc(p1, m, 1, 0); net.add_arc(m, sink, 2, 0)
    sol = net.solve()      # sol.cost == 5, sol.flow(a) == 1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import min_cost_flow

from assignor.errors import SolverError


@dataclass(frozen=True)
class FlowSolution:
    """An optimal flow: total cost and the flow on every arc (indexed by arc id)."""

    cost: int
    flows: np.ndarray

    def flow(self, arc: int) -> int:
        return int(self.flows[arc])


class FlowNetwork:
    """Build a network node by node and arc by arc, then solve it once."""

    def __init__(self) -> None:
        self._nodes = 0
        self._tails: list[int] = []
        self._heads: list[int] = []
        self._caps: list[int] = []
        self._costs: list[int] = []
        self._supply: dict[int, int] = {}

    @property
    def num_nodes(self) -> int:
        return self._nodes

    @property
    def num_arcs(self) -> int:
        return len(self._tails)

    def arc_ends(self, arc: int) -> tuple[int, int]:
        """(tail, head) of an arc."""
        return self._tails[arc], self._heads[arc]

    def add_node(self) -> int:
        self._nodes += 1
        return self._nodes - 1

    def add_arc(self, tail: int, head: int, capacity: int, cost: int) -> int:
        if capacity < 0:
            raise SolverError(f"arc {tail}->{head} has negative capacity {capacity}")
        self._tails.append(tail)
        self._heads.append(head)
        self._caps.append(capacity)
        self._costs.append(cost)
        return len(self._tails) - 1

    def add_arcs(self, tails: list[int], heads: list[int], capacities: list[int],
                 costs: list[int]) -> range:
        """Add many arcs at once (parallel lists); return their ids in order."""
        if not len(tails) == len(heads) == len(capacities) == len(costs):
            raise SolverError("add_arcs needs lists of equal length")
        if any(c < 0 for c in capacities):
            raise SolverError("an arc has negative capacity")
        start = len(self._tails)
        self._tails.extend(tails)
        self._heads.extend(heads)
        self._caps.extend(capacities)
        self._costs.extend(costs)
        return range(start, len(self._tails))

    def set_supply(self, node: int, supply: int) -> None:
        self._supply[node] = self._supply.get(node, 0) + supply

    def solve(self) -> FlowSolution:
        """Solve for a min-cost flow meeting every supply exactly; raise SolverError otherwise."""
        if sum(self._supply.values()) != 0:
            raise SolverError("supplies do not balance: the network cannot carry every unit")
        if not self._tails:
            if any(self._supply.values()):
                raise SolverError("a network with supplies but no arcs is infeasible")
            return FlowSolution(cost=0, flows=np.zeros(0, dtype=np.int64))
        solver = min_cost_flow.SimpleMinCostFlow()
        solver.add_arcs_with_capacity_and_unit_cost(
            np.asarray(self._tails, dtype=np.int32),
            np.asarray(self._heads, dtype=np.int32),
            np.asarray(self._caps, dtype=np.int64),
            np.asarray(self._costs, dtype=np.int64),
        )
        # OR-Tools only knows nodes that appear on an arc; supplies for others must be zero.
        for node, supply in sorted(self._supply.items()):
            if supply:
                solver.set_node_supply(node, supply)
        status = solver.solve()
        if status == solver.OPTIMAL:
            flows = np.asarray(solver.flows(np.arange(len(self._tails))))
            return FlowSolution(cost=int(solver.optimal_cost()), flows=flows)
        if status == solver.INFEASIBLE:
            raise SolverError("no assignment satisfies the balance constraints (infeasible flow)")
        if status == solver.UNBALANCED:
            raise SolverError("supplies and demands do not balance (unbalanced flow)")
        raise SolverError(f"min-cost-flow solver failed with status {status}")
