"""The cost model (assignor.cost), the read model in ClusterView, prices and host maps.

Every rule is checked against the plain-language statement of KIP-392 / KIP-925 it encodes,
on hand-built views; random views are seeded (the seed is printed).
"""

from __future__ import annotations

import random

import pytest

from agent.config.cost import CostSettings, HostMapError, HostRacks
from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, fractions, group_cost, place_of, source_rack
from assignor.model import Group, Member
from assignor.optimal import OptimalConfig, assign_rack_optimal, lower_bound
from assignor.summary import annotate, member_plans, summarize
from protocol.plan import AssignmentPlan
from protocol.pricing import Price

pytestmark = pytest.mark.unit

SEED = random.Random().randrange(1 << 30)
print(f"seed={SEED}")
RACKS = ("az1", "az2", "az3")
BROKERS = {1: "az1", 2: "az2", 3: "az3"}
T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)


def _view(follower_fetching: bool = True, **kw: object) -> ClusterView:
    # t-0: replicas az1 (leader), az2; t-1: replica az3 only
    return ClusterView(BROKERS, {"t": ((1, 2), (3,))}, follower_fetching=follower_fetching,
                       **kw)  # type: ignore[arg-type]


def test_member_with_rack_and_follower_fetching_reads_a_local_replica() -> None:
    view = _view()
    assert not view.is_cross_rack("t", 0, "az2")  # a follower in az2
    assert view.source_rack("t", 0, "az2") == "az2"
    assert view.is_cross_rack("t", 1, "az2") and view.source_rack("t", 1, "az2") == "az3"


def test_without_follower_fetching_every_read_goes_to_the_leader() -> None:
    view = _view(follower_fetching=False)
    assert view.is_cross_rack("t", 0, "az2")  # the follower in az2 is not used
    assert not view.is_cross_rack("t", 0, "az1")
    assert view.source_rack("t", 0, "az2") == "az1"


def test_described_leader_wins_over_the_preferred_one() -> None:
    view = _view(follower_fetching=False, leaders={T0: 2})
    assert view.leader_rack("t", 0) == "az2"
    assert not view.is_cross_rack("t", 0, "az2") and view.is_cross_rack("t", 0, "az1")


def test_rackless_member_is_never_free() -> None:
    view = _view()
    place = place_of(view, None)
    assert place == Place(None, False, None)
    # it reads from the leader from a host somewhere: 2/3 expected, all of it at worst
    assert fractions(("az1", "az2"), "az1", place, RACKS) == (pytest.approx(2 / 3), 1.0)
    cost = group_cost(_view(bytes_per_s={T0: 900.0, T1: 300.0}), {"m": [T0, T1]}, {"m": place})
    assert cost.cross_rack_partitions == 0 and cost.rack_unknown_members == 1
    assert cost.cross_rack_bytes_per_s == pytest.approx(800.0)
    assert cost.cross_rack_bytes_per_s_worst == pytest.approx(1200.0)
    assert cost.traffic_cost == pytest.approx(4 / 3)


def test_host_mapped_member_reads_the_leader_with_a_known_rack() -> None:
    view = _view()
    place = place_of(view, None, "az2")
    assert place == Place("az2", False, "host-map")
    assert fractions(("az1", "az2"), "az1", place, RACKS) == (1.0, 1.0)  # leader in az1
    assert source_rack(view, T0, place) == "az1"


def test_unknown_racks_never_count() -> None:
    view = ClusterView({1: None, 2: "az2"}, {"t": ((1,),)})
    assert fractions((), None, Place(None, False), ("az2",)) == (0.0, 0.0)
    assert not view.is_cross_rack("t", 0, "az2")
    assert group_cost(view, {"m": [T0]}, {"m": place_of(view, None)}).traffic_cost == 0.0


def test_scenario_round_trip_keeps_the_read_model_and_traffic() -> None:
    view = _view(follower_fetching=False, leaders={T1: 3}, bytes_per_s={T0: 5.0},
                 weights={T0: 2.0})
    doc = view.to_dict()
    assert doc["follower_fetching"] is False and doc["bytes_per_s"] == {"t": [5.0, None]}
    back = ClusterView.from_dict(doc)
    assert (back.follower_fetching, dict(back.bytes_per_s), back.weight(T0)) == (
        False, {T0: 5.0}, 2.0)
    assert back.leader("t", 1) == 3 and back.leader("t", 0) == 1  # the preferred leader
    old = ClusterView.from_dict({"brokers": {"1": "az1"}, "topics": {"t": [[1]]}})
    assert old.follower_fetching is True and not old.bytes_per_s


def test_rack_optimal_keeps_hot_partitions_off_rackless_members() -> None:
    """Two members: c1 in az1, c2 without a rack. Both partitions are led from az1; the
    hot one goes to c1 (local), the cold one to c2 (2/3 of it expected across racks)."""
    view = ClusterView(BROKERS, {"t": ((1,), (1,))}, weights={T0: 50.0, T1: 1.0})
    group = Group("g", (Member.of("c1", rack="az1", topics=["t"]),
                        Member.of("c2", topics=["t"])), view)
    target = assign_rack_optimal(group, OptimalConfig(cooperative=False)).target()
    assert target == {"c1": [T0], "c2": [T1]}
    assert lower_bound(group) == pytest.approx(2 / 3)


def test_rack_optimal_uses_leaders_when_brokers_serve_only_from_leaders() -> None:
    # t-0 and t-1 both have replicas in az1 and az2; leaders: t-0 in az2, t-1 in az1
    view = ClusterView(BROKERS, {"t": ((2, 1), (1, 2))}, follower_fetching=False)
    group = Group("g", (Member.of("a", rack="az1", topics=["t"]),
                        Member.of("b", rack="az2", topics=["t"])), view)
    target = assign_rack_optimal(group, OptimalConfig(cooperative=False)).target()
    assert target == {"a": [T1], "b": [T0]} and lower_bound(group) == 0.0


def test_random_assignments_cost_what_a_partition_by_partition_sum_says() -> None:
    rng = random.Random(SEED)
    for _ in range(50):
        n = rng.randint(1, 12)
        topics = {"t": tuple(tuple(rng.sample([1, 2, 3], rng.randint(1, 3))) for _ in range(n))}
        rates = {TopicPartition("t", p): float(rng.randint(0, 1000)) for p in range(n)}
        view = ClusterView(BROKERS, topics, follower_fetching=rng.random() < 0.5,
                           bytes_per_s=rates)
        racks = {m: rng.choice([None, *RACKS]) for m in ("a", "b", "c")}
        assignment: dict[str, list[TopicPartition]] = {m: [] for m in racks}
        for tp in sorted(rates):
            assignment[rng.choice(sorted(racks))].append(tp)
        cost = group_cost(view, assignment, {m: place_of(view, r) for m, r in racks.items()})
        expected = 0.0
        for m, tps in assignment.items():
            for tp in tps:
                leader = BROKERS[topics["t"][tp.partition][0]]
                if racks[m] is None:
                    share = 2 / 3
                elif view.follower_fetching:
                    share = float(racks[m] not in {BROKERS[b] for b in topics["t"][tp.partition]})
                else:
                    share = float(leader != racks[m])
                expected += share * rates[tp]
        assert cost.cross_rack_bytes_per_s == pytest.approx(expected, abs=0.01), f"seed={SEED}"
        assert cost.bytes_per_s == pytest.approx(sum(rates.values()))


def test_annotate_fills_the_plan_with_the_cost_model() -> None:
    view = _view(bytes_per_s={T0: 1000.0, T1: 10.0})
    assignment = {"a": [T0], "b": [T1]}
    racks = {"a": "az2", "b": None}
    plan = AssignmentPlan(group_id="g", generation=0, reason="observed", assignor="x",
                          members=member_plans(view, assignment, racks),
                          summary=summarize(view, assignment, racks))
    out = annotate(plan, view, {"b": "az1"})
    a, b = out.members
    assert (a.location, a.rack_source, a.reads_from) == ("az2", "client.rack", "nearest-replica")
    assert (b.location, b.rack_source, b.reads_from) == ("az1", "host-map", "leader")
    assert a.partitions[0].source_rack == "az2" and a.partitions[0].cross_rack_bytes_per_s == 0
    assert b.partitions[0].cross_rack and b.partitions[0].cross_rack_bytes_per_s == 10.0
    assert out.summary.cross_rack_bytes_per_s == 10.0 and out.summary.rack_unknown_members == 0
    assert out.summary.follower_fetching is True and out.summary.bytes_per_s == 1010.0


def test_price_per_month() -> None:
    assert Price().per_gb_crossing == 0.02
    # one GiB/s for a 730-hour month at $0.02 per GiB crossing
    assert Price().per_month(2**30) == pytest.approx(730 * 3600 * 0.02)
    assert Price(0.01, 1).per_month(2**30) == pytest.approx(730 * 3600 * 0.01)
    assert Price().per_month(None) is None
    with pytest.raises(ValueError):
        Price(-1.0)


def test_host_racks() -> None:
    hosts = HostRacks.parse({"10.0.0.0/8": "az1", "10.0.2.0/24": "az2", "fd00::/8": "az3"})
    assert hosts.rack_of("/10.0.2.7") == "az2"  # the most specific network wins
    assert hosts.rack_of("/10.9.9.9") == "az1"
    assert hosts.rack_of("/fd00::1") == "az3"
    assert hosts.rack_of("/192.168.1.1") is None and hosts.rack_of("some-host") is None
    assert HostRacks.from_args(["10.0.1.0/24=az1"]) == {"10.0.1.0/24": "az1"}
    for bad in (["10.0.1.0/24"], ["nonsense=az1"], ["10.0.0.0/8="]):
        with pytest.raises(HostMapError):
            HostRacks.from_args(bad)
    with pytest.raises(ValueError, match="not a network"):
        CostSettings(host_racks={"x": "az1"})


def test_lower_bound_in_bytes() -> None:
    from assignor.optimal import lower_bound_bytes

    # two members in az1 and az2, t-0 only in az1 (1 GB/s), t-1 only in az1 (10 B/s):
    # balance puts one on the az2 member, at best the light one
    view = ClusterView(BROKERS, {"t": ((1,), (1,))}, bytes_per_s={T0: 1e9, T1: 10.0})
    group = Group("g", (Member.of("a", rack="az1", topics=["t"]),
                        Member.of("b", rack="az2", topics=["t"])), view)
    assert lower_bound_bytes(group) == pytest.approx(10.0)
    assert lower_bound_bytes(replace_view(group, ClusterView(BROKERS, view.topics))) is None


@pytest.mark.parametrize("assignor", ["range", "cooperative-sticky", "rack-optimal"])
def test_every_consumer_plan_with_measured_traffic_carries_the_bound_in_bytes(assignor: str) -> None:
    from assignor.api import ConsumerGroup, Round, plan
    from assignor.optimal import lower_bound_bytes

    view = ClusterView(BROKERS, {"t": ((1,), (1,))}, bytes_per_s={T0: 1e9, T1: 10.0})
    members = (Member.of("a", rack="az1", topics=["t"]), Member.of("b", rack="az2", topics=["t"]))
    measured = plan(ConsumerGroup("g", members, view, assignor, "eager"), Round(generation=1))
    s = measured.summary
    assert s.lower_bound_bytes_per_s == lower_bound_bytes(Group("g", members, view)) == 10.0
    assert s.cross_rack_bytes_per_s is not None and s.cross_rack_bytes_per_s >= 10.0
    bare = plan(ConsumerGroup("g", members, ClusterView(BROKERS, view.topics), assignor, "eager"),
                Round(generation=1))
    assert bare.summary.lower_bound_bytes_per_s is None


def replace_view(group: Group, view: ClusterView) -> Group:
    return Group(group.group_id, group.members, view)
