"""rack-optimal: docs/rack-optimal.md § 4-§ 5 in order, and its lower bound.

``solve``: collapse the instance (§ 4.1, ``collapse``), build and solve the network (§ 4.2,
``network``), read the flow back to members (§ 4.3-§ 4.4) and decode it (§ 5, ``decode``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from assignor.base import Result, Withheld
from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, fractions, place_of
from assignor.errors import AssignorError
from assignor.model import Group, Member
from assignor.optimal.balance import band
from assignor.optimal.collapse import Collapsed, collapse
from assignor.optimal.decode import hand_out, spread, to_members
from assignor.optimal.network import solve_flow
from assignor.ownership import previous_owners
from assignor.withholding import withhold_owned

SCALE = 1000


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


@dataclass(frozen=True)
class Solution:
    """An optimal assignment (members in id order, partitions sorted), its cost in the
    problem's units, and what the network's combined costs held (docs/rack-optimal.md § 4.2):
    where ``perturbation_bits > 0`` the optimal flow is unique (up to a collision of
    perturbation sums, likelier with few bits), so the Java core reaches the same answer;
    with 0 it is optimal but another exact solver may pick another optimum."""

    assignment: dict[str, list[TopicPartition]]
    cost: float
    levels_used: int
    perturbation_bits: int
    kinds: int
    arcs: int


def solve(pb: _Problem) -> tuple[dict[str, list[TopicPartition]], float]:
    """Optimal assignment and its cost (in the problem's cost units): docs/rack-optimal.md."""
    sol = solve_detail(pb)
    return sol.assignment, sol.cost


def solve_detail(pb: _Problem) -> Solution:
    """§ 4-§ 5: collapse, build and solve the network, read it back, decode."""
    place = {m.member_id: place_of(pb.cluster, m.rack, m.location) for m in pb.members}
    # The leader's rack matters only to members that read from the leader (§ 4.1).
    by_leader = any(not pl.reads_followers for pl in place.values())
    col = collapse(pb.cluster, pb.members, pb.topics, place, pb.prev, by_leader)
    units = _Units(pb, col)
    bnd = band(col.members, col.sizes, col.classes)
    flow = solve_flow(col, bnd, units.of_type, units.move)
    kept, pools = to_members(col, flow, bnd.lo)
    out = hand_out(kept, pools, units.weight, pb.prev)
    subscribed = {m.member_id: frozenset(m.topics) for m in pb.members}
    spread(out, units.weight, subscribed, units.of_partition, pb.prev)
    result = {m: sorted(out[m]) for m in col.members}
    return Solution(result, _cost(pb, col, units, result), flow.levels_used,
                    flow.perturbation_bits, len(col.kinds), len(flow.flows))


class _Units:
    """§ 2's exact integer units: ``round(1000 * a * w) * D * share``, ``D * share`` one of
    0, D-1, D, so only the weight is rounded; a move adds ``round(1000 * b) * D``."""

    def __init__(self, pb: _Problem, col: Collapsed) -> None:
        self._pb, self._col = pb, col
        self._racks = pb.cluster.all_racks()
        self._d = max(len(self._racks), 1)
        self.move = round(SCALE * pb.move) * self._d
        self.weight = {tp: col.types[t].weight for tp, t in col.type_of.items()}
        self._share: dict[tuple[int, Place], float] = {}

    def share(self, t: int, place: Place) -> float:
        """The share of type ``t``'s bytes a member at ``place`` reads across racks."""
        got = self._share.get((t, place))
        if got is None:
            typ = self._col.types[t]
            got = fractions(typ.racks, typ.leader, place, self._racks)[0]
            self._share[(t, place)] = got
        return got

    def of_type(self, t: int, place: Place) -> int:
        """Units of one partition of type ``t`` at ``place``, no move."""
        weight = round(SCALE * self._pb.traffic * self._col.types[t].weight)
        return weight * round(self._d * self.share(t, place))

    def of_partition(self, tp: TopicPartition, member: str) -> int:
        """Units of ``tp`` on ``member``, the move included (§ 5 step 3 compares these)."""
        was = self._pb.prev.get(tp)
        moved = self.move if was is not None and was != member else 0
        return self.of_type(self._col.type_of[tp], self._col.place[member]) + moved


def _cost(pb: _Problem, col: Collapsed, units: _Units,
          result: Mapping[str, Sequence[TopicPartition]]) -> float:
    """The cost is summed from the decoded assignment, unrounded, in (member, partition) order."""
    total = 0.0
    for m in col.members:
        place = col.place[m]
        for tp in result[m]:
            total += pb.traffic * units.weight[tp] * units.share(col.type_of[tp], place)
    if pb.prev:
        total += pb.move * sum(
            1 for m in col.members for tp in result[m] if pb.prev.get(tp, m) != m)
    return round(total, 9)


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
