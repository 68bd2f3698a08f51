"""Seeded hypothesis invariants for every consumer assignor, and rack-optimal's optimality
against an independent brute-force solver on small inputs."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from assignor.cluster import ClusterView, TopicPartition
from assignor.generate import generate
from assignor.model import Group, Member
from assignor.optimal import OptimalConfig, assign_rack_optimal, lower_bound
from assignor.ownership import previous_owners
from assignor.registry import ASSIGNORS, plan_group
from assignor.scenario import load_group

pytestmark = [pytest.mark.unit, pytest.mark.property]
SEED = 881464
print(f"hypothesis seed={SEED}")


def _scenario(s: int, *, max_partitions: int = 30, mixed: bool = True) -> dict[str, Any]:
    rng = random.Random(s)
    racks = rng.randint(1, 3)
    doc = generate(
        partitions=rng.randint(0, max_partitions),
        members=rng.randint(1, 6),
        racks=racks,
        rf=rng.randint(1, racks),
        skew=rng.choice([0.0, 0.5, 0.8]),
        seed=s,
        topics=rng.randint(1, 3),
        owned=rng.random() < 0.5,
    )
    topics = sorted(doc["cluster"]["topics"])
    for m in doc["group"]["members"]:
        if mixed and rng.random() < 0.4:
            m["topics"] = rng.sample(topics, rng.randint(1, len(topics)))
        if rng.random() < 0.15:
            m["rack"] = None
    if rng.random() < 0.3:
        doc["cluster"]["weights"] = {
            t: [rng.choice([0.5, 1, 2, 3]) for _ in ps]
            for t, ps in doc["cluster"]["topics"].items()
        }
    return doc


def _shuffled(doc: dict[str, Any], s: int) -> dict[str, Any]:
    rng = random.Random(s)
    out = json.loads(json.dumps(doc))
    rng.shuffle(out["group"]["members"])
    for m in out["group"]["members"]:
        rng.shuffle(m["topics"])
        if "owned" in m:
            m["owned"] = dict(sorted(m["owned"].items(), key=lambda _: rng.random()))
    out["cluster"]["topics"] = dict(
        sorted(out["cluster"]["topics"].items(), key=lambda _: rng.random())
    )
    return out


@seed(SEED)
@settings(max_examples=60)
@given(s=st.integers(0, 2**31))
@pytest.mark.parametrize("name", sorted(ASSIGNORS))
def test_invariants(name: str, s: int) -> None:
    doc = _scenario(s)
    group = load_group(doc)
    plan = plan_group(group, name)
    target: dict[str, list[TopicPartition]] = {
        m.member_id: [TopicPartition(p.topic, p.partition) for p in m.partitions]
        for m in plan.members
    }
    for w in plan.withheld:
        target[w.target].append(TopicPartition(w.topic, w.partition))
        assert w.owner != w.target
    seen = [tp for tps in target.values() for tp in tps]
    expected = [tp for t in group.subscribed_topics() for tp in group.cluster.partitions(t)]
    assert sorted(seen) == sorted(expected), f"seed={s}: each subscribed partition exactly once"
    topics_of = {m.member_id: set(m.topics) for m in group.members}
    assert all(tp.topic in topics_of[m] for m, tps in target.items() for tp in tps), f"seed={s}"
    uniform = len({m.topics for m in group.members}) == 1
    if name == "range":
        for t in group.subscribed_topics():
            loads = [
                sum(tp.topic == t for tp in target[m.member_id])
                for m in group.members
                if t in m.topics
            ]
            assert max(loads) - min(loads) <= 1, f"seed={s}: range balance per topic"
    elif uniform:
        loads = [len(v) for v in target.values()]
        assert max(loads) - min(loads) <= 1, f"seed={s}: floor/ceil balance"
    again = plan_group(load_group(_shuffled(doc, s)), name)
    assert again.without_timestamp() == plan.without_timestamp(), f"seed={s}: order must not matter"
    assert plan.summary.lower_bound is not None
    if name == "rack-optimal" or uniform:
        assert plan.summary.traffic_cost >= plan.summary.lower_bound - 1e-9, f"seed={s}"


def _share(group: Group, tp: TopicPartition, member: Member) -> float:
    """Share of a partition's bytes a member reads across racks, written out independently of
    assignor.cost: KIP-392 decides the replica, a rack-unknown member costs (R-1)/R."""
    view = group.cluster
    replicas = view.replicas(tp.topic, tp.partition)
    leader = view.leaders.get(tp, replicas[0] if replicas else None)
    leader_rack = view.brokers.get(leader) if leader is not None else None
    replica_racks = {view.brokers.get(b) for b in replicas} - {None}
    if member.rack and view.follower_fetching:
        return float(bool(replica_racks) and member.rack not in replica_racks)
    where = member.rack or member.location
    if where:
        return float(leader_rack is not None and leader_rack != where)
    cluster_racks = set(view.brokers.values()) - {None}
    if leader_rack is None or not cluster_racks:
        return 0.0
    return (len(cluster_racks) - 1) / len(cluster_racks)


def _with_read_model(group: Group, rng: random.Random) -> Group:
    """The same group, sometimes without follower fetching, with leaders that are not the
    first replica, and with rackless members placed by a host map."""
    view = group.cluster
    leaders = {
        tp: rng.choice(view.replicas(tp.topic, tp.partition))
        for t in view.topics for tp in view.partitions(t)
        if view.replicas(tp.topic, tp.partition) and rng.random() < 0.5
    }
    view = ClusterView(view.brokers, view.topics, view.weights, leaders,
                       follower_fetching=rng.random() < 0.5)
    racks = view.all_racks() or ("az1",)
    members = tuple(
        replace(m, location=rng.choice(racks)) if not m.rack and rng.random() < 0.5 else m
        for m in group.members
    )
    return Group(group.group_id, members, view, group.generation, group.reason, group.config)


def _brute_force(group: Group, traffic: float, move: float) -> float:
    """Minimum cost by enumeration: most balanced load vector first (min sum of squares)."""
    tps = [tp for t in group.subscribed_topics() for tp in group.cluster.partitions(t)]
    ids = [m.member_id for m in group.members]
    by_id = {m.member_id: m for m in group.members}
    subs = [[m.member_id for m in group.members if tp.topic in m.topics] for tp in tps]
    prev = previous_owners(
        group.members, {t: group.cluster.partition_count(t) for t in group.subscribed_topics()}
    )
    best: tuple[int, float] | None = None
    for choice in itertools.product(*subs):
        loads = [choice.count(m) for m in ids]
        sq = sum(x * x for x in loads)
        cost = 0.0
        for tp, m in zip(tps, choice, strict=True):
            cost += traffic * group.cluster.weight(tp) * _share(group, tp, by_id[m])
            if tp in prev and prev[tp] != m:
                cost += move
        key = (sq, round(cost, 9))
        if best is None or key < best:
            best = key
    return 0.0 if best is None else best[1]


@seed(SEED)
@settings(max_examples=120)
@given(
    s=st.integers(0, 2**31),
    traffic=st.sampled_from([1.0, 10.0]),
    move=st.sampled_from([0.0, 1.0, 4.0]),
)
def test_rack_optimal_equals_brute_force(s: int, traffic: float, move: float) -> None:
    rng = random.Random(s)
    doc = _scenario(s, max_partitions=7)
    # keep the enumeration small: at most 7 partitions over at most 4 members
    doc["group"]["members"] = doc["group"]["members"][: rng.randint(1, 4)]
    group = _with_read_model(load_group(doc), rng)
    target = assign_rack_optimal(group, OptimalConfig(traffic, move, cooperative=False)).target()
    prev = previous_owners(
        group.members, {t: group.cluster.partition_count(t) for t in group.subscribed_topics()}
    )
    cost = 0.0
    for m in group.members:
        for tp in target[m.member_id]:
            cost += traffic * group.cluster.weight(tp) * _share(group, tp, m)
            if tp in prev and prev[tp] != m.member_id:
                cost += move
    assert cost == pytest.approx(_brute_force(group, traffic, move)), f"seed={s}"
    if move == 0.0:
        assert cost / traffic == pytest.approx(lower_bound(group)), f"seed={s}"
