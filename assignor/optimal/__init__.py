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

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from assignor.base import Result, Withheld
from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, fractions, place_of
from assignor.errors import AssignorError, SolverError
from assignor.model import Group, Member
from assignor.optimal.balance import band, member_arcs
from assignor.optimal.flow import FlowNetwork
from assignor.ownership import previous_owners

SCALE = 1000
_INT_LIMIT = 2**62


@dataclass(frozen=True)
class OptimalConfig:
    """Costs as in KIP-925 (``min_traffic`` defaults: traffic 10, non-overlap 1)."""

    traffic_cost: float = 10.0
    non_overlap_cost: float = 1.0
    cooperative: bool = True

    @classmethod
    def from_dict(cls, doc: Mapping[str, object]) -> OptimalConfig:
        try:
            cfg = cls(
                traffic_cost=float(doc.get("traffic_cost", 10.0)),  # type: ignore[arg-type]
                non_overlap_cost=float(doc.get("non_overlap_cost", 1.0)),  # type: ignore[arg-type]
                cooperative=bool(doc.get("cooperative", True)),
            )
        except (TypeError, ValueError) as exc:
            raise AssignorError(f"rack-optimal config: {exc}") from None
        if cfg.traffic_cost < 0 or cfg.non_overlap_cost < 0:
            raise AssignorError("rack-optimal costs must be >= 0")
        return cfg


@dataclass
class _Problem:
    cluster: ClusterView
    members: Sequence[Member]
    topics: Sequence[str]
    traffic: float
    move: float
    prev: Mapping[TopicPartition, str] = field(default_factory=dict)


def solve(pb: _Problem) -> tuple[dict[str, list[TopicPartition]], float]:
    """Optimal assignment and its cost (in the problem's cost units)."""
    members = sorted(pb.members, key=lambda m: m.member_id)
    ids = [m.member_id for m in members]
    rack_of = {m.member_id: place_of(pb.cluster, m.rack, m.location) for m in members}
    cluster_racks = pb.cluster.all_racks()

    # The leader's rack matters only to members that read from the leader (no rack, or no
    # follower fetching); otherwise it would only split interchangeable partitions apart.
    by_leader = any(not place.reads_followers for place in rack_of.values())

    def leader_rack(t: str, p: int) -> str | None:
        return pb.cluster.leader_rack(t, p) if by_leader else None

    def share(racks: tuple[str, ...], leader: str | None, place: Place) -> float:
        return fractions(racks, leader, place, cluster_racks)[0]

    subs: dict[str, tuple[str, ...]] = {
        t: tuple(m.member_id for m in members if t in m.topics) for t in pb.topics
    }
    classes: dict[tuple[str, ...], list[str]] = {}
    for t in pb.topics:
        if subs[t]:
            classes.setdefault(subs[t], []).append(t)
    class_keys = sorted(classes, key=lambda k: classes[k][0])
    sizes = [sum(pb.cluster.partition_count(t) for t in classes[k]) for k in class_keys]
    bnd = band(ids, sizes, class_keys)

    # interchangeable partitions: (class, racks, leader rack, weight, previous owner if it
    # can keep it)
    groups: dict[tuple[int, tuple[str, ...], str, float, str], list[TopicPartition]] = {}
    for ci, key in enumerate(class_keys):
        for t in classes[key]:
            for p in range(pb.cluster.partition_count(t)):
                tp = TopicPartition(t, p)
                owner = pb.prev.get(tp, "")
                if owner and owner not in key:
                    owner = "?"  # had an owner that cannot keep it: any placement is a move
                gk = (ci, pb.cluster.racks(t, p), leader_rack(t, p) or "",
                      pb.cluster.weight(tp), owner)
                groups.setdefault(gk, []).append(tp)
    net = FlowNetwork()
    sink = net.add_node()
    node = {m: net.add_node() for m in ids}
    rack_nodes: dict[tuple[int, Place], int] = {}
    for ci, key in enumerate(class_keys):
        for place in sorted({rack_of[m] for m in key}, key=_place_key):
            rn = net.add_node()
            rack_nodes[(ci, place)] = rn
            for m in key:
                if rack_of[m] == place:
                    net.add_arc(rn, node[m], sizes[ci], 0)
    arc_tags: list[tuple[int, tuple[int, Place] | str, int]] = []
    max_unit = 0
    group_keys = sorted(groups, key=lambda k: groups[k][0])
    for gi, gk in enumerate(group_keys):
        ci, racks, lead, weight, owner = gk
        count = len(groups[gk])
        gn = net.add_node()
        net.set_supply(gn, count)
        moved = pb.move if owner else 0.0
        if owner and owner != "?":
            cost = round(SCALE * pb.traffic * weight * share(racks, lead or None,
                                                             rack_of[owner]))
            arc_tags.append((net.add_arc(gn, node[owner], count, cost), owner, gi))
            max_unit = max(max_unit, cost)
        for (cj, rk), rn in sorted(rack_nodes.items(),
                                   key=lambda kv: (kv[0][0], _place_key(kv[0][1]))):
            if cj != ci:
                continue
            cost = round(SCALE * (pb.traffic * weight * share(racks, lead or None, rk)
                                  + moved))
            arc_tags.append((net.add_arc(gn, rn, count, cost), (cj, rk), gi))
            max_unit = max(max_unit, cost)
    total = sum(sizes)
    big = max_unit * total + 1
    if not bnd.uniform and big * (2 * bnd.hi + 1) * (net.num_nodes + 1) >= _INT_LIMIT:
        raise SolverError("costs too large to solve exactly: lower traffic_cost or weights")
    member_arcs(net, node, sink, bnd, big)
    net.set_supply(sink, -(total - bnd.lo * len(ids)))
    sol = net.solve()

    # decode: direct arcs to previous owners, then split each rack node's pool
    # The cost is summed again from the decoded assignment, unrounded: the flow's integer
    # costs are rounded to 1/SCALE, and a fractional share ((R-1)/R) must not drift.
    total_cost = 0.0
    out: dict[str, list[TopicPartition]] = {m: [] for m in ids}
    pools: dict[tuple[int, Place], list[TopicPartition]] = {}
    taken = [0] * len(group_keys)
    for arc, dest, gi in arc_tags:
        f = sol.flow(arc)
        if not f:
            continue
        chunk = groups[group_keys[gi]][taken[gi] : taken[gi] + f]
        taken[gi] += f
        # Unrounded traffic cost, per chunk: its partitions share racks, leader and weight,
        # and every member behind a rack node shares that node's place.
        _, racks, lead, weight, _ = group_keys[gi]
        place = rack_of[dest] if isinstance(dest, str) else dest[1]
        total_cost += f * pb.traffic * weight * share(racks, lead or None, place)
        if isinstance(dest, str):
            out[dest].extend(chunk)
        else:
            pools.setdefault(dest, []).extend(chunk)
    counts = _rack_flows(sol, net, rack_nodes, node)
    for pool_key in sorted(pools, key=lambda k: (k[0], _place_key(k[1]))):
        pool = sorted(pools[pool_key])
        want = counts.get(pool_key, {})
        rest: list[TopicPartition] = []
        for tp in pool:
            prev_owner = pb.prev.get(tp)
            if prev_owner is not None and want.get(prev_owner, 0) > 0:
                out[prev_owner].append(tp)
                want[prev_owner] -= 1
            else:
                rest.append(tp)
        it = iter(rest)
        for m in sorted(want):
            for _ in range(want[m]):
                out[m].append(next(it))
    if pb.prev:  # moves are known only once each pool is split among its members
        total_cost += pb.move * sum(
            1 for m, tps in out.items() for tp in tps if pb.prev.get(tp, m) != m)
    return {m: sorted(v) for m, v in out.items()}, round(total_cost, 9)


def _place_key(place: Place) -> tuple[str, bool, str]:
    """Sort key of a place: racks by name, the unknown place first (as "" sorted before)."""
    return (place.location or "", place.reads_followers, place.source or "")


def _rack_flows(
    sol: object,
    net: FlowNetwork,
    rack_nodes: Mapping[tuple[int, Place], int],
    node: Mapping[str, int],
) -> dict[tuple[int, Place], dict[str, int]]:
    by_node = {v: k for k, v in rack_nodes.items()}
    member_of = {v: k for k, v in node.items()}
    flows = sol.flows  # type: ignore[attr-defined]
    out: dict[tuple[int, Place], dict[str, int]] = {}
    for arc in range(net.num_arcs):
        tail, head = net.arc_ends(arc)
        if tail in by_node and flows[arc]:
            out.setdefault(by_node[tail], {})[member_of[head]] = int(flows[arc])
    return out


def assign_rack_optimal(group: Group, config: OptimalConfig | None = None) -> Result:
    cfg = config or OptimalConfig.from_dict(group.config)
    topics = group.subscribed_topics()
    counts = {t: group.cluster.partition_count(t) for t in topics}
    prev = previous_owners(group.members, counts)
    pb = _Problem(
        group.cluster, group.members, topics, cfg.traffic_cost, cfg.non_overlap_cost, prev
    )
    target, _ = solve(pb)
    withheld: list[Withheld] = []
    if cfg.cooperative:
        reporters: dict[TopicPartition, list[str]] = {}
        for m in group.members:
            for tp in m.owned:
                reporters.setdefault(tp, []).append(m.member_id)
        for member in sorted(target):
            keep = []
            for tp in target[member]:
                others = sorted(o for o in reporters.get(tp, []) if o != member)
                if others:
                    withheld.append(Withheld(partition=tp, owner=others[0], target=member))
                else:
                    keep.append(tp)
            target[member] = keep
    config_doc = {
        "traffic_cost": cfg.traffic_cost,
        "non_overlap_cost": cfg.non_overlap_cost,
        "cooperative": cfg.cooperative,
    }
    return Result(assignment=target, withheld=withheld, config=config_doc)


def lower_bound(group: Group, *, per_topic: bool = False) -> float:
    """Least cross-rack weight reachable under the balance (total, or per topic for range)."""
    topics = group.subscribed_topics()
    if not per_topic:
        return solve(_Problem(group.cluster, group.members, topics, 1.0, 0.0))[1]
    total = 0.0
    for t in topics:
        subs = [m for m in group.members if t in m.topics]
        total += solve(_Problem(group.cluster, subs, [t], 1.0, 0.0))[1]
    return total


def lower_bound_bytes(group: Group, *, per_topic: bool = False) -> float | None:
    """The least cross-rack bytes/s reachable under the balance, or None when the cluster
    view carries no measured traffic.

    The same flow as :func:`lower_bound` with measured bytes/s as the weights. They are
    scaled so the largest is 10**6 first: raw bytes/s (up to ~10**9) times the flow's
    integer scale could overflow its int64 costs.
    """
    view = group.cluster
    rates = {tp: view.traffic(tp) for t in group.subscribed_topics() for tp in view.partitions(t)}
    measured = {tp: r for tp, r in rates.items() if r is not None}
    if not measured:
        return None
    top = max(measured.values())
    if top <= 0:
        return 0.0
    scale = 1e6 / top
    scaled = replace(view, weights={tp: r * scale for tp, r in measured.items()})
    return round(lower_bound(replace(group, cluster=scaled), per_topic=per_topic) / scale, 3)
