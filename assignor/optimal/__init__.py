"""``rack-optimal``: the cheapest assignment that keeps the sticky assignors' balance.

Cost of giving partition p to member m = traffic_cost x weight(p) x the share of p's bytes m
reads across racks (assignor.cost: 1 or 0 for a member whose rack is known, following
KIP-925 with follower fetching and the leader's rack without; (R-1)/R for a rack-unknown
member), + non_overlap_cost when p had another owner before. Solved exactly as a min-cost
flow over *aggregate* nodes: partitions that are interchangeable (same subscriber class,
replica racks, leader rack, weight and previous owner) form one supply node; they flow either
straight to their previous owner or to a (class, place) node that feeds every subscriber with
that place (rack, and whether it reads from followers), then
to the sink under the balance of assignor.optimal.balance. Within a (class, rack) node any split costs
the same, so the decoder hands each member its own previous partitions first: the plan is
sticky wherever stickiness is free.

Example: 2 members (az1, az2), 2 partitions with replicas only in az1 and only in az2 ->
each member gets its local partition, cost 0.

``lower_bound`` is the same flow with traffic 1 and no move cost: the least cross-rack
weight reachable under the balance (per topic for ``range``, whose balance is per topic).
"""

from assignor.optimal.solve import (
    SCALE,
    OptimalConfig,
    assign_rack_optimal,
    lower_bound,
    lower_bound_bytes,
)

__all__ = ["SCALE", "OptimalConfig", "assign_rack_optimal", "lower_bound", "lower_bound_bytes"]
