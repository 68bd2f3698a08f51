"""rack-optimal's one answer (docs/rack-optimal.md § 4-§ 5): kinds, the network's arc order,
kinds to members, and the same answer for the same input in any order.

The brute force (test_optimal_bruteforce.py) checks the optimum; these check *which* optimum:
the choices the page states, so the Java core can reach the same one.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import place_of
from assignor.model import Group, Member
from assignor.optimal.balance import band
from assignor.optimal.collapse import Collapsed, collapse
from assignor.optimal.decode import to_members
from assignor.optimal.lexflow import perturbation
from assignor.optimal.network import build, solve_flow
from assignor.optimal.solve import OptimalConfig, _Problem, _Units, solve, solve_detail
from tests.support.optimalgen import parity_group, prev_of

pytestmark = pytest.mark.unit
SEED = 442817
GROUPS = 120


def tp(t: str, p: int) -> TopicPartition:
    return TopicPartition(t, p)


def problem(group: Group, cfg: OptimalConfig | None = None) -> _Problem:
    cfg = cfg or OptimalConfig()
    return _Problem(group.cluster, group.members, group.subscribed_topics(), cfg.traffic_cost,
                    cfg.non_overlap_cost, prev_of(group))


def collapsed(pb: _Problem) -> Collapsed:
    place = {m.member_id: place_of(pb.cluster, m.rack, m.location) for m in pb.members}
    by_leader = any(not pl.reads_followers for pl in place.values())
    return collapse(pb.cluster, pb.members, pb.topics, place, pb.prev, by_leader)


def kinds_of(pb: _Problem) -> list[tuple[str, ...]]:
    return [k.members for k in collapsed(pb).kinds]


# --- § 4.1 kinds --------------------------------------------------------------------------


def test_owners_merge_only_with_identical_profiles() -> None:
    view = ClusterView(brokers={1: "az1", 2: "az2"},
                       topics={"t": tuple((1,) for _ in range(8)), "u": ((2,), (2,))})
    members = (
        Member.of("a", rack="az1", topics=["t"], owned=[tp("t", 0)], generation=1),
        Member.of("b", rack="az1", topics=["t"], owned=[tp("t", 1)], generation=1),  # = a
        Member.of("c", rack="az1", topics=["t"], owned=[tp("t", 2), tp("t", 3)], generation=1),
        Member.of("d", rack="az1", topics=["t"]),
        Member.of("e", rack="az1", topics=["t"], owned=[tp("u", 0)], generation=1),  # can't keep
        Member.of("f", rack="az2", topics=["t"]),  # another place
        Member.of("g", rack="az1", topics=["t", "u"]),  # another signature
        Member.of("h", rack="az1", topics=["t"], owned=[tp("t", 4)], generation=1),  # = a, b
    )
    pb = problem(Group("g", members, view))
    col = collapsed(pb)
    assert [k.members for k in col.kinds] == [("a", "b", "h"), ("c",), ("d", "e"), ("f",), ("g",)]
    assert col.kinds[0].profile == ((0, 1),) and col.kinds[1].profile == ((0, 2),)
    assert tp("u", 0) not in col.owner  # e dropped u: its old partition is unowned for the flow
    # supplies: (type, owner kind), the unowned one first
    assert [(s.type, s.owner, len(s.partitions)) for s in col.supplies] == [
        (0, None, 3), (0, 0, 3), (0, 1, 2), (1, None, 2)]


def test_owners_of_different_types_do_not_merge() -> None:
    view = ClusterView(brokers={1: "az1", 2: "az2"}, topics={"t": ((1,), (2,), (1,), (2,))})
    members = (
        Member.of("a", rack="az1", topics=["t"], owned=[tp("t", 0)], generation=1),
        Member.of("b", rack="az1", topics=["t"], owned=[tp("t", 1)], generation=1),
        Member.of("c", rack="az1", topics=["t"], owned=[tp("t", 2)], generation=1),
    )
    assert kinds_of(problem(Group("g", members, view))) == [("a", "c"), ("b",)]


# --- § 4.2 the network, and a hand-checked answer ------------------------------------------


def hand_group() -> Group:
    """t-0, t-1 in az1, t-2, t-3 in az2; a (az1) owned t-0 and t-2, c (az2) t-3, b nothing."""
    view = ClusterView(brokers={1: "az1", 2: "az2"}, topics={"t": ((1,), (1,), (2,), (2,))})
    return Group("g", (
        Member.of("a", rack="az1", topics=["t"], owned=[tp("t", 0), tp("t", 2)], generation=1),
        Member.of("b", rack="az1", topics=["t"]),
        Member.of("c", rack="az2", topics=["t"], owned=[tp("t", 3)], generation=1),
    ), view)


def test_hand_checked_network_index_for_index() -> None:
    """§ 4.2 by hand. Band: P = 4, N = 3 -> [1, 2], uniform. Types T0 (az1, first t-0), T1
    (az2, first t-2); kinds K0 = [a], K1 = [b], K2 = [c]; supplies S0 = (T0, none) {t-1},
    S1 = (T0, K0) {t-0}, S2 = (T1, K0) {t-2}, S3 = (T1, K2) {t-3}; pools P0 = az1, P1 = az2.
    Nodes: sink 0, K0-K2 1-3, P0-P1 4-5, S0-S3 6-9. D = 2, a cross-rack partition is
    round(1000 * 10 * 1) * 2 = 20000 units, a move round(1000 * 1) * 2 = 2000."""
    pb = problem(hand_group())
    col = collapsed(pb)
    bnd = band(col.members, col.sizes, col.classes)
    units = _Units(pb, col)
    net, arcs = build(col, bnd, units.of_type, units.move)
    cross, move = 20000, 2000
    assert [net.arc(k) for k in range(net.num_arcs)] == [
        (1, 0, 1, (0, 0, 0)), (2, 0, 1, (0, 0, 0)), (3, 0, 1, (0, 0, 0)),  # kinds -> sink
        (4, 1, 4, (0, 0, 0)), (4, 2, 4, (0, 0, 0)), (5, 3, 4, (0, 0, 0)),  # pools -> kinds
        (6, 4, 1, (0, 0, 0)), (6, 5, 1, (0, cross, 0)),  # S0: unowned, no keep arc
        (7, 1, 1, (0, 0, 0)), (7, 4, 1, (0, move, 1)), (7, 5, 1, (0, cross + move, 1)),  # S1
        (8, 1, 1, (0, cross, 0)), (8, 4, 1, (0, cross + move, 1)), (8, 5, 1, (0, move, 1)),
        (9, 3, 1, (0, 0, 0)), (9, 4, 1, (0, cross + move, 1)), (9, 5, 1, (0, move, 1)),  # S3
    ]
    assert arcs.keep == (None, 8, 11, 14)


def test_hand_checked_answer() -> None:
    """The unique optimum: a keeps t-0 (free), c keeps t-3; t-2 costs a 20000 to keep but
    2000 to move to c (local there); then every member needs one, so t-1 goes to b. One move."""
    got = solve_detail(problem(hand_group()))
    assert got.assignment == {"a": [tp("t", 0)], "b": [tp("t", 1)], "c": [tp("t", 2), tp("t", 3)]}
    assert got.cost == 1.0
    assert (got.levels_used, got.perturbation_bits) == (3, 32)


def test_perturbation_decides_a_tie() -> None:
    """Two partitions everywhere-local, three members in three racks, no owners: any two
    members cost the same. Kind i's unit runs supply -> pool i (arc 6 + i), pool i -> kind i
    (arc 3 + i), kind i -> sink (arc i); the perturbation picks the two least sums."""
    view = ClusterView(brokers={1: "az1", 2: "az2", 3: "az3"}, topics={"t": ((1, 2, 3),) * 2})
    members = tuple(Member.of(m, rack=r, topics=["t"])
                    for m, r in (("a", "az1"), ("b", "az2"), ("c", "az3")))
    got = solve_detail(problem(Group("g", members, view)))
    assert got.perturbation_bits == 32
    sums = {m: perturbation(i) + perturbation(3 + i) + perturbation(6 + i)
            for i, m in enumerate("abc")}
    chosen = sorted(sorted(sums, key=lambda m: sums[m])[:2])
    assert sorted(m for m, tps in got.assignment.items() if tps) == chosen
    # § 4.4: the supply's partitions in order go to the pool arcs in pool order
    assert [got.assignment[m] for m in chosen] == [[tp("t", 0)], [tp("t", 1)]]


# --- § 4.3 kinds to members ----------------------------------------------------------------


def groups(seed: int, count: int) -> list[tuple[Group, OptimalConfig]]:
    rng = random.Random(seed)
    return [parity_group(rng, i) for i in range(count)]


def test_kinds_to_members_keep_what_they_own_and_stay_in_band() -> None:
    print(f"seed={SEED} groups={GROUPS}")
    merged = 0
    for group, cfg in groups(SEED, GROUPS):
        pb = problem(group, cfg)
        col = collapsed(pb)
        merged += sum(1 for k in col.kinds if k.profile and len(k.members) > 1)
        bnd = band(col.members, col.sizes, col.classes)
        units = _Units(pb, col)
        flow = solve_flow(col, bnd, units.of_type, units.move)
        kept, pools = to_members(col, flow, bnd.lo)
        for m in col.members:
            assert all(col.owner.get(p) == m for p in kept[m]), (SEED, group.group_id, m)
            load = len(kept[m]) + sum(pool.want.get(m, 0) for pool in pools)
            assert bnd.lo <= load <= min(bnd.caps[m], bnd.hi), (SEED, group.group_id, m, load)
        for pool in pools:
            assert sum(pool.want.values()) == len(pool.partitions), (SEED, group.group_id)
        moved_flow = sum(flow.of(a) for si, s in enumerate(col.supplies) if s.owner is not None
                         for _, a in flow.arcs.to_pools[si])
        owned = sum(len(s.partitions) for s in col.supplies if s.owner is not None)
        assert owned - sum(len(v) for v in kept.values()) == moved_flow
    print(f"kinds of merged owners: {merged}")


def test_a_merged_kind_deals_kept_units_with_one_cursor() -> None:
    """a, b, c own one partition each of one type (same profile: one kind), d and e nothing
    (another kind). With traffic 0 only moves cost: a, b, c keep their own (the keep arc's 3
    units dealt a, b, c), and the sixth partition's unit goes to one kind or the other, as
    the perturbation decides; either way § 4.3.2 gives it to the kind's first member by
    (kept desc, id)."""
    view = ClusterView(brokers={1: "az1", 2: "az2"}, topics={"t": ((2,),) * 6})
    members = tuple(
        [Member.of(m, rack="az1", topics=["t"], owned=[tp("t", i)], generation=1)
         for i, m in enumerate("abc")]
        + [Member.of(m, rack="az1", topics=["t"]) for m in "de"]
    )
    group = Group("g", members, view)
    pb = problem(group, OptimalConfig(traffic_cost=0.0, non_overlap_cost=1.0))
    assert kinds_of(pb) == [("a", "b", "c"), ("d", "e")]
    got = solve(pb)[0]
    for i, m in enumerate("abc"):
        assert tp("t", i) in got[m]
    assert sorted(len(v) for v in got.values()) == [1, 1, 1, 1, 2]
    # the extra unit goes to the kind that keeps most first: a (kept 1, smallest id)
    assert [len(got[m]) for m in "abcde"] in ([2, 1, 1, 1, 1], [1, 1, 1, 2, 1])


# --- same input, any order -----------------------------------------------------------------


def shuffled(group: Group, rng: random.Random) -> Group:
    members = list(group.members)
    rng.shuffle(members)
    members = [Member.of(m.member_id, rack=m.rack, topics=rng.sample(list(m.topics), len(m.topics)),
                         owned=rng.sample(list(m.owned), len(m.owned)), generation=m.generation)
               for m in members]
    view = group.cluster
    topics = list(view.topics.items())
    rng.shuffle(topics)
    brokers = list(view.brokers.items())
    rng.shuffle(brokers)
    weights = list(view.weights.items())
    rng.shuffle(weights)
    return Group(group.group_id, tuple(members),
                 ClusterView(brokers=dict(brokers), topics=dict(topics), weights=dict(weights),
                             follower_fetching=view.follower_fetching))


def reorder(pb: _Problem, rng: random.Random) -> _Problem:
    topics = list(pb.topics)
    rng.shuffle(topics)
    prev = list(pb.prev.items())
    rng.shuffle(prev)
    return _Problem(pb.cluster, pb.members, topics, pb.traffic, pb.move, dict(prev))


def test_same_input_in_any_order_gives_the_same_answer() -> None:
    seed = SEED + 1
    print(f"seed={seed} groups={GROUPS}")
    rng = random.Random(seed)
    for group, cfg in groups(seed, GROUPS):
        want = solve(problem(group, cfg))
        for _ in range(2):
            other = reorder(problem(shuffled(group, rng), cfg), rng)
            assert solve(other) == want, (seed, group.group_id)


def tie_heavy(rng: random.Random, index: int) -> Group:
    """Replicas in every rack and equal weights: everything costs the same but moves, so
    nearly every choice is the perturbation's."""
    racks = [f"az{i + 1}" for i in range(rng.randint(2, 4))]
    brokers = {i + 1: r for i, r in enumerate(racks)}
    everywhere = tuple(sorted(brokers))
    topics = {f"t{j}": (everywhere,) * rng.randint(1, 9) for j in range(rng.randint(1, 3))}
    names = sorted(topics)
    members = []
    for i in range(rng.randint(2, 7)):
        subs = rng.sample(names, rng.randint(1, len(names)))
        owned = [tp(t, p) for t in subs for p in range(len(topics[t])) if rng.random() < 0.2]
        members.append(Member.of(f"m{i}", rack=rng.choice(racks), topics=subs, owned=owned,
                                 generation=1))
    return Group(f"tie-{index}", tuple(members), ClusterView(brokers=brokers, topics=topics))


def test_ties_resolve_the_same_in_any_input_order() -> None:
    seed = SEED + 2
    print(f"seed={seed}")
    rng = random.Random(seed)
    perturbed = 0
    for i in range(GROUPS):
        group = tie_heavy(rng, i)
        cfg = OptimalConfig(traffic_cost=10.0, non_overlap_cost=rng.choice([0.0, 1.0]))
        detail = solve_detail(problem(group, cfg))
        perturbed += detail.perturbation_bits > 0
        for _ in range(3):
            other = reorder(problem(shuffled(group, rng), cfg), rng)
            assert solve(other) == (detail.assignment, detail.cost), (seed, group.group_id)
    assert perturbed == GROUPS  # small groups: the perturbation always fits



def test_costs_that_do_not_fit_are_refused() -> None:
    """§ 4.2: the tries stop at (balance, cost); beyond that the input is refused."""
    from assignor.errors import SolverError

    view = ClusterView(brokers={1: "az1", 2: "az2"}, topics={"t": ((1,), (2,), (1,), (2,))},
                       # one huge weight beside ordinary ones: dividing the cost level by its
                       # gcd (§ 4.2) cannot bring it down to 2**60
                       weights={tp("t", p): 1e18 if p == 0 else 1.0 for p in range(4)})
    members = (Member.of("a", rack="az1", topics=["t"]), Member.of("b", rack="az2", topics=["t"]))
    with pytest.raises(SolverError, match="costs too large to solve exactly"):
        solve(problem(Group("g", members, view)))
    # the same group with ordinary weights solves, every partition local
    ok = replace(view, weights={})
    got = solve(problem(Group("g", members, ok)))
    assert got == ({"a": [tp("t", 0), tp("t", 2)], "b": [tp("t", 1), tp("t", 3)]}, 0.0)


def test_a_thousand_member_group_with_owners_keeps_a_perturbation() -> None:
    """§ 4.2's path bound and gcd: 1,000 members owning 10,000 partitions (seed 1, printed)
    still get a perturbation; with `1 + Σ cap · level` scales they got none."""
    from assignor.generate import generate
    from assignor.scenario.consumer import load_group

    print("seed=1")
    group = load_group(generate(partitions=10_000, members=1_000, racks=3, rf=2, skew=0.5,
                                seed=1, topics=10, owned=True))
    detail = solve_detail(problem(group))
    assert detail.kinds > 3  # owners with different profiles stay apart
    assert detail.levels_used == 3 and detail.perturbation_bits == 32


def test_two_stages_give_the_one_integer_answer_where_that_fits() -> None:
    """§ 4.2: the two stages find the lexicographic minimum, which is what one combined
    integer per arc finds wherever it fits with all 32 bits: the same flow, arc for arc."""
    print(f"seed={SEED} groups=300")
    compared = 0
    for group, cfg in groups(SEED, 300):
        pb = problem(group, cfg)
        col = collapsed(pb)
        bnd = band(col.members, col.sizes, col.classes)
        units = _Units(pb, col)
        one, _ = build(col, bnd, units.of_type, units.move)
        two, _ = build(col, bnd, units.of_type, units.move)
        combined = one.solve()
        if one.perturbation_bits != 32 or one.levels_used != 3:
            continue
        staged = two.solve_in_two_stages()
        assert list(staged.flows) == list(combined.flows), (SEED, group.group_id)
        compared += 1
    assert compared >= 200, compared  # 230 of the 300 fit all 32 bits in one integer
