"""The rack-optimal flow (its problem is stated in the package docstring), and its lower bound."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from assignor.base import Result, Withheld
from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, fractions, place_of
from assignor.errors import AssignorError, SolverError
from assignor.model import Group, Member
from assignor.optimal.balance import Band, band, member_arcs
from assignor.optimal.decode import Pool, hand_out, spread
from assignor.optimal.flow import FlowNetwork
from assignor.ownership import previous_owners
from assignor.withholding import withhold_owned

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
    """Optimal assignment and its cost (in the problem's cost units): docs/rack-optimal.md."""
    members = sorted(pb.members, key=lambda m: m.member_id)
    ids = [m.member_id for m in members]
    rack_of = {m.member_id: place_of(pb.cluster, m.rack, m.location) for m in members}
    cluster_racks = pb.cluster.all_racks()
    # Exact integer units (§ 2): D x share is 0, D-1 or D, so only the weight is rounded.
    d = max(len(cluster_racks), 1)
    move_unit = round(SCALE * pb.move) * d

    # The leader's rack matters only to members that read from the leader (no rack, or no
    # follower fetching); otherwise it would only split interchangeable partitions apart.
    by_leader = any(not place.reads_followers for place in rack_of.values())

    def leader_rack(t: str, p: int) -> str | None:
        return pb.cluster.leader_rack(t, p) if by_leader else None

    share_memo: dict[tuple[tuple[str, ...], str | None, Place], float] = {}

    def share(racks: tuple[str, ...], leader: str | None, place: Place) -> float:
        key = (racks, leader, place)
        got = share_memo.get(key)
        if got is None:
            got = share_memo[key] = fractions(racks, leader, place, cluster_racks)[0]
        return got

    def units(weight: float, racks: tuple[str, ...], leader: str | None, place: Place) -> int:
        return round(SCALE * pb.traffic * weight) * round(d * share(racks, leader, place))

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
    meta: dict[TopicPartition, tuple[tuple[str, ...], str | None]] = {}
    wt: dict[TopicPartition, float] = {}
    for ci, key in enumerate(class_keys):
        for t in classes[key]:
            for p in range(pb.cluster.partition_count(t)):
                tp = TopicPartition(t, p)
                owner = pb.prev.get(tp, "")
                if owner and owner not in key:
                    owner = "?"  # had an owner that cannot keep it: any placement is a move
                racks, lead = pb.cluster.racks(t, p), leader_rack(t, p)
                w = wt[tp] = pb.cluster.weight(tp)
                meta[tp] = (racks, lead)
                gk = (ci, racks, lead or "", w, owner)
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
    group_keys = sorted(groups, key=lambda k: groups[k][0])

    def unit_cost(gk: tuple[int, tuple[str, ...], str, float, str], place: Place, moves: bool) -> int:
        _, racks, lead, weight, owner = gk
        return units(weight, racks, lead or None, place) + (move_unit if owner and moves else 0)

    max_unit = 0
    for gk in group_keys:
        ci, owner = gk[0], gk[4]
        for (cj, rk) in rack_nodes:
            if cj == ci:
                max_unit = max(max_unit, unit_cost(gk, rk, True))
        if owner and owner != "?":
            max_unit = max(max_unit, unit_cost(gk, rack_of[owner], False))
    total = sum(sizes)
    # Ties between optimal flows go to fewer moves (§ 4): costs scaled by P + 1, and an arc
    # that moves a partition off an owner who could keep it costs one more; where that would
    # not fit in int64, ties stay unbroken.
    nodes = net.num_nodes + len(group_keys)
    scale = total + 1
    max_arc = max_unit * scale + 1
    if _too_large(max_arc, total, nodes, bnd):
        scale, max_arc = 1, max_unit
        if _too_large(max_arc, total, nodes, bnd):
            raise SolverError("costs too large to solve exactly: lower traffic_cost or weights")
    big = max_arc * total + 1
    arc_tags: list[tuple[int, tuple[int, Place] | str, int]] = []
    for gi, gk in enumerate(group_keys):
        ci, owner = gk[0], gk[4]
        count = len(groups[gk])
        gn = net.add_node()
        net.set_supply(gn, count)
        keeps = bool(owner) and owner != "?"
        if keeps:
            cost = unit_cost(gk, rack_of[owner], False) * scale
            arc_tags.append((net.add_arc(gn, node[owner], count, cost), owner, gi))
        tie = 1 if keeps and scale > 1 else 0
        for (cj, rk), rn in sorted(rack_nodes.items(),
                                   key=lambda kv: (kv[0][0], _place_key(kv[0][1]))):
            if cj != ci:
                continue
            cost = unit_cost(gk, rk, True) * scale + tie
            arc_tags.append((net.add_arc(gn, rn, count, cost), (cj, rk), gi))
    member_arcs(net, node, sink, bnd, big)
    net.set_supply(sink, -(total - bnd.lo * len(ids)))
    sol = net.solve()

    # decode (§ 5): direct arcs to previous owners, then each pool, heaviest first
    kept: dict[str, list[TopicPartition]] = {m: [] for m in ids}
    pooled: dict[tuple[int, Place], list[TopicPartition]] = {}
    taken = [0] * len(group_keys)
    for arc, dest, gi in arc_tags:
        f = sol.flow(arc)
        if not f:
            continue
        chunk = groups[group_keys[gi]][taken[gi] : taken[gi] + f]
        taken[gi] += f
        if isinstance(dest, str):
            kept[dest].extend(chunk)
        else:
            pooled.setdefault(dest, []).extend(chunk)
    counts = _rack_flows(sol, net, rack_nodes, node)
    pools = [Pool(pooled[k], counts.get(k, {}))
             for k in sorted(pooled, key=lambda k: (k[0], _place_key(k[1])))]
    out = hand_out(kept, pools, wt, pb.prev)

    def unit(tp: TopicPartition, member: str) -> int:
        was = pb.prev.get(tp)
        racks, lead = meta[tp]
        return (units(wt[tp], racks, lead, rack_of[member])
                + (move_unit if was is not None and was != member else 0))

    subscribed = {m.member_id: frozenset(m.topics) for m in members}
    spread(out, wt, subscribed, unit, pb.prev)

    # The cost is summed from the decoded assignment, unrounded, in (member, partition) order.
    total_cost = 0.0
    result = {m: sorted(out[m]) for m in ids}
    for m in ids:
        place = rack_of[m]
        for tp in result[m]:
            racks, lead = meta[tp]
            total_cost += pb.traffic * wt[tp] * share(racks, lead, place)
    if pb.prev:
        total_cost += pb.move * sum(
            1 for m in ids for tp in result[m] if pb.prev.get(tp, m) != m)
    return result, round(total_cost, 9)


def _too_large(max_arc: int, parts: int, nodes: int, bnd: Band) -> bool:
    """Whether potentials and costs could overflow OR-Tools' int64 (the Java core's bound)."""
    if bnd.uniform:
        return max_arc * (parts + nodes + 1) >= _INT_LIMIT
    big = max_arc * parts + 1
    return big * (2 * bnd.hi + 1) * (nodes + 1) >= _INT_LIMIT


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
        target, withheld = withhold_owned(target, {m.member_id: m.owned for m in group.members})
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
