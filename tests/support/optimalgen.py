"""Seeded consumer groups for the rack-optimal parity suite, and the spec's own yardsticks.

One generator feeds both implementations (docs/rack-optimal.md § 6): weights (quantized so
the integer units are exact, with hot partitions), previous owners with generations,
mixed subscriptions, rack-unknown members, leader-only reads and 1-6 racks. ``core_doc``
writes a group as the JSON line the Java harness (tests/java/core-parity) reads;
``evaluate`` prices any assignment by the spec, so both answers are judged by one ruler.

Example::

    rng = random.Random(7)
    group, cfg = parity_group(rng, 0)
    doc = core_doc(group, cfg)             # for dev.rackwise.tests.CoreParity
    evaluate(group, cfg, assignment)       # Figures(cost=..., units=..., moved=..., ...)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import fractions, place_of
from assignor.model import Group, Member
from assignor.optimal import SCALE, OptimalConfig
from assignor.ownership import previous_owners


def parity_group(rng: random.Random, index: int, *, tiny: bool = False) -> tuple[Group, OptimalConfig]:
    """One generated group and the costs to solve it with."""
    racks = rng.randint(1, 6) if not tiny else rng.randint(1, 3)
    rack_names = [f"az{i + 1}" for i in range(racks)]
    brokers = {i + 1: rack_names[i % racks] for i in range(racks * 2)}
    if rng.random() < 0.1:
        brokers[len(brokers) + 1] = None  # type: ignore[assignment]  # a broker without a rack
    broker_ids = sorted(brokers)
    n_topics = rng.randint(1, 2 if tiny else 4)
    topics: dict[str, tuple[tuple[int, ...], ...]] = {}
    skew = rng.choice([0.0, 0.4, 0.8])
    for t in range(n_topics):
        count = rng.randint(1, 3) if tiny else rng.randint(1, 24)
        rows = []
        for _ in range(count):
            rf = rng.randint(1, min(3, len(broker_ids)))
            pick = sorted(broker_ids, key=lambda b: (rng.random() * (1 + skew * b)))[:rf]
            rng.shuffle(pick)
            rows.append(tuple(pick))
        topics[f"t{t}"] = tuple(rows)
    weights: dict[TopicPartition, float] = {}
    style = rng.choice(["none", "uniform", "hot", "spread"])
    for t, rows in topics.items():
        for p in range(len(rows)):
            tp = TopicPartition(t, p)
            if style == "uniform":
                weights[tp] = 2.0
            elif style == "hot":
                weights[tp] = 40.0 if rng.random() < 0.15 else 1.0
            elif style == "spread":
                weights[tp] = round(rng.uniform(0.1, 20.0), 3)  # 1000 x 10 x w is an integer
    follower_fetching = rng.random() < 0.75
    n_members = rng.randint(1, 3) if tiny else rng.randint(1, 9)
    names = sorted(topics)
    mixed = rng.random() < 0.3
    members = []
    for i in range(n_members):
        rack = rng.choice(rack_names) if rng.random() > 0.15 else None
        subs = rng.sample(names, rng.randint(1, len(names))) if mixed else names
        members.append({"id": f"m{i}", "rack": rack, "topics": subs})
    if rng.random() < 0.6:  # a previous round: a random owner per partition, some conflicts
        for t, rows in topics.items():
            for p in range(len(rows)):
                if rng.random() < 0.8:
                    # mostly a subscriber; sometimes one that has since dropped the topic
                    subs = [m for m in members if t in m["topics"]]
                    owner = rng.choice(subs if subs and rng.random() < 0.95 else members)
                    owner.setdefault("owned", []).append(TopicPartition(t, p))
        for m in members:
            m["generation"] = rng.choice([1, 1, 2])
    group = Group(
        group_id=f"parity-{index}",
        members=tuple(
            Member.of(m["id"], rack=m["rack"], topics=m["topics"], owned=m.get("owned", ()),
                      generation=m.get("generation"))
            for m in members
        ),
        cluster=ClusterView(brokers=brokers, topics=topics, weights=weights,
                            follower_fetching=follower_fetching),
    )
    traffic, move = rng.choice([(10.0, 1.0), (10.0, 1.0), (1.0, 0.0), (10.0, 5.0), (0.0, 1.0)])
    return group, OptimalConfig(traffic_cost=traffic, non_overlap_cost=move, cooperative=False)


def prev_of(group: Group) -> dict[TopicPartition, str]:
    counts = {t: group.cluster.partition_count(t) for t in group.subscribed_topics()}
    return previous_owners(group.members, counts)


def core_doc(group: Group, cfg: OptimalConfig) -> dict[str, Any]:
    """The group as one input line of the Java core harness."""
    view = group.cluster
    topics = group.subscribed_topics()
    prev: dict[str, dict[str, str]] = {}
    for tp, owner in sorted(prev_of(group).items()):
        prev.setdefault(tp.topic, {})[str(tp.partition)] = owner
    return {
        "id": group.group_id,
        "racks": list(view.all_racks()),
        "traffic_cost": cfg.traffic_cost,
        "non_overlap_cost": cfg.non_overlap_cost,
        "members": [
            {"id": m.member_id, "rack": m.rack,
             "reads_followers": place_of(view, m.rack, m.location).reads_followers,
             "topics": [t for t in m.topics if t in topics]}
            for m in group.members
        ],
        "topics": {
            t: [{"replica_racks": list(view.racks(t, p)), "leader_rack": view.leader_rack(t, p),
                 "weight": view.weight(TopicPartition(t, p))}
                for p in range(view.partition_count(t))]
            for t in topics
        },
        "previous_owners": prev,
    }


@dataclass(frozen=True)
class Figures:
    """An assignment judged by the spec: cost, integer units, moves, counts and bytes."""

    cost: float
    units: int
    moved: int
    loads: tuple[int, ...]  # sorted partition counts
    busiest: float  # the most weight on one member
    mean: float


def evaluate(group: Group, cfg: OptimalConfig,
             assignment: Mapping[str, Sequence[TopicPartition]]) -> Figures:
    """Price an assignment by docs/rack-optimal.md § 2 and check it is valid."""
    view = group.cluster
    racks = view.all_racks()
    d = max(len(racks), 1)
    prev = prev_of(group)
    by_id = {m.member_id: m for m in group.members}
    seen: set[TopicPartition] = set()
    cost = 0.0
    units = moved = 0
    loads: list[float] = []
    for member in sorted(assignment):
        m = by_id[member]
        place = place_of(view, m.rack, m.location)
        load = 0.0
        for tp in sorted(assignment[member]):
            assert tp.topic in m.topics, f"{member} got {tp} without subscribing {tp.topic}"
            assert tp not in seen, f"{tp} assigned twice"
            seen.add(tp)
            w = view.weight(tp)
            share = fractions(view.racks(tp.topic, tp.partition),
                              view.leader_rack(tp.topic, tp.partition), place, racks)[0]
            cost += cfg.traffic_cost * w * share
            units += round(SCALE * cfg.traffic_cost * w) * round(d * share)
            was = prev.get(tp)
            if was is not None and was != member:
                moved += 1
                cost += cfg.non_overlap_cost
                units += round(SCALE * cfg.non_overlap_cost) * d
            load += w
        loads.append(load)
    every = {tp for t in group.subscribed_topics() for tp in view.partitions(t)
             if any(t in m.topics for m in group.members)}
    assert seen == every, f"unassigned: {sorted(every - seen)[:5]}"
    counts = tuple(sorted(len(v) for v in assignment.values()))
    total = sum(loads)
    return Figures(cost=cost, units=units, moved=moved, loads=counts,
                   busiest=max(loads, default=0.0),
                   mean=total / len(loads) if loads else 0.0)
