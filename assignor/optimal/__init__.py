"""``rack-optimal``: the cheapest assignment that keeps the sticky assignors' balance.

Cost of giving partition p to member m = traffic_cost x weight(p) x the share of p's bytes m
reads across racks (assignor.cost: 1 or 0 for a member whose rack is known, following
KIP-925 with follower fetching and the leader's rack without; (R-1)/R for a rack-unknown
member), + non_overlap_cost when p had another owner before. Solved exactly as a min-cost
flow over a *collapsed* network (docs/rack-optimal.md § 4): partitions that differ only in
name and previous owner form a *type*, members with the same subscriptions, place and owned
profile a *kind*; supplies (type, owner kind) flow to their owner kind (keep) or to
(class, place) pools that feed every kind at that place, then to the sink under the balance
of assignor.optimal.balance. Each arc costs (balance, cost, tie) plus a perturbation of its
index (assignor.optimal.lexflow), so the optimal flow is unique and the Java core, which
builds the same network arc for arc, reads the same answer. The flow is read back to members
and partitions in a stated order (§ 4.3-§ 5, assignor.optimal.decode).

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
