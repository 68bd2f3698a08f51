"""rack-optimal against an independent brute force on tiny groups (docs/rack-optimal.md § 6).

Every assignment of every partition to one of its subscribers is tried; the best is the one
with the most balanced loads (least sum of squares, which is also the least maximum and
greatest minimum on these problems) and then the fewest integer cost units. The Python
solver must reach exactly that; the Java core is held to the same brute force in
tests/integration/test_optimal_parity.py.
"""

from __future__ import annotations

import itertools
import random

import pytest

from assignor.cluster import TopicPartition
from assignor.model import Group
from assignor.optimal.solve import OptimalConfig, _Problem, solve
from tests.support.optimalgen import evaluate, parity_group, prev_of

pytestmark = pytest.mark.unit
SEED = 881925
GROUPS = 300


def brute_force(group: Group, cfg: OptimalConfig) -> tuple[int, int]:
    """(least sum of squared loads, least units among those) over every valid assignment."""
    view = group.cluster
    parts = [tp for t in group.subscribed_topics() for tp in view.partitions(t)
             if any(t in m.topics for m in group.members)]
    choices = [[m.member_id for m in group.members if tp.topic in m.topics] for tp in parts]
    best: tuple[int, int] | None = None
    for pick in itertools.product(*choices):
        assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in group.members}
        for tp, m in zip(parts, pick, strict=True):
            assignment[m].append(tp)
        fig = evaluate(group, cfg, assignment)
        key = (sum(n * n for n in fig.loads), fig.units)
        if best is None or key < best:
            best = key
    assert best is not None
    return best


def python_solution(group: Group, cfg: OptimalConfig) -> dict[str, list[TopicPartition]]:
    pb = _Problem(group.cluster, group.members, group.subscribed_topics(), cfg.traffic_cost,
                  cfg.non_overlap_cost, prev_of(group))
    return solve(pb)[0]


def tiny_groups(seed: int, count: int) -> list[tuple[Group, OptimalConfig]]:
    rng = random.Random(seed)
    return [parity_group(rng, i, tiny=True) for i in range(count)]


def test_python_reaches_the_brute_force_optimum() -> None:
    print(f"brute force seed={SEED} groups={GROUPS}")
    for group, cfg in tiny_groups(SEED, GROUPS):
        fig = evaluate(group, cfg, python_solution(group, cfg))
        assert (sum(n * n for n in fig.loads), fig.units) == brute_force(group, cfg), (
            f"seed={SEED} {group.group_id}")


def test_hot_partitions_spread_inside_one_rack() -> None:
    """The pile-up: one pool, hot partitions adjacent in (topic, partition)."""
    from assignor.cluster import ClusterView
    from assignor.model import Member

    weights = {TopicPartition("t", p): (50.0 if p < 4 else 1.0) for p in range(16)}
    view = ClusterView(brokers={1: "az1", 2: "az2"}, topics={"t": tuple((1, 2) for _ in range(16))},
                       weights=weights)
    group = Group("g", tuple(Member.of(f"m{i}", rack="az1", topics=["t"]) for i in range(4)), view)
    cfg = OptimalConfig()
    got = python_solution(group, cfg)
    hot = {m: sum(1 for tp in tps if weights[tp] > 1) for m, tps in got.items()}
    assert sorted(hot.values()) == [1, 1, 1, 1], hot
    assert evaluate(group, cfg, got).busiest == 53.0
