"""Streams plans' ``lower_bound_bytes_per_s`` (assignor.streams.bytesbound): checked against
brute force over every placement with the same per-client active counts, on seeded random
instances, and carried by the daemon's plans and the audit."""

from __future__ import annotations

import itertools
import random

import pytest

from assignor.api import Round, StreamsApp, StreamsClient, plan
from assignor.cluster import ClusterView, TopicPartition
from assignor.cost import Place, partition_fractions, place_of
from assignor.streams.bytesbound import active_bytes_bound
from assignor.streams.model import AssignmentConfig, Topology, build_tasks

pytestmark = pytest.mark.unit

BROKERS = {1: "az1", 2: "az2", 3: "az3"}


def _topology(*sources: list[str]) -> Topology:
    return Topology.from_dict({"subtopologies": [
        {"id": i, "source_topics": s, "changelog_topics": [], "stateful": False}
        for i, s in enumerate(sources)]})


def test_the_lighter_task_is_the_one_read_across_racks() -> None:
    view = ClusterView(BROKERS, {"orders": ((1,), (1,))},
                       bytes_per_s={TopicPartition("orders", 0): 9000.0,
                                    TopicPartition("orders", 1): 1000.0})
    tasks = build_tasks(_topology(["orders"]), view)
    places = {"x": place_of(view, "az1"), "y": place_of(view, "az2")}
    assert active_bytes_bound(view, tasks, {"x": 1, "y": 1}, places) == 1000.0
    assert active_bytes_bound(view, tasks, {"x": 2, "y": 0}, places) == 0.0
    unmeasured = ClusterView(BROKERS, {"orders": ((1,), (1,))})
    assert active_bytes_bound(unmeasured, tasks, {"x": 1, "y": 1}, places) is None


def _brute(view: ClusterView, tasks: list, sources: dict, counts: dict[str, int],
           places: dict[str, Place]) -> float:
    slots = [c for c in sorted(counts) for _ in range(counts[c])]
    best = float("inf")
    for perm in set(itertools.permutations(slots)):
        cost = sum((view.traffic(tp) or 0.0) * partition_fractions(view, tp, places[c])[0]
                   for task, c in zip(tasks, perm, strict=True) for tp in sources[task])
        best = min(best, cost)
    return best


def test_bound_is_the_brute_force_minimum_on_random_instances() -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    for _ in range(60):
        n = rng.randint(1, 6)
        topics = {t: tuple(tuple(rng.sample([1, 2, 3], rng.randint(1, 2))) for _ in range(n))
                  for t in ("a", "b")[: rng.randint(1, 2)]}
        rates = {TopicPartition(t, p): rng.choice([0.0, 10.0, rng.uniform(1, 5e6)])
                 for t in topics for p in range(n) if rng.random() < 0.9}
        view = ClusterView(BROKERS, topics, bytes_per_s=rates,
                           follower_fetching=rng.random() < 0.7)
        tasks = build_tasks(_topology(sorted(topics)), view)
        clients = [f"c{i}" for i in range(rng.randint(1, 4))]
        places = {c: place_of(view, rng.choice(["az1", "az2", "az3", None])) for c in clients}
        counts = dict.fromkeys(clients, 0)
        for _task in tasks.all:
            counts[rng.choice(clients)] += 1
        got = active_bytes_bound(view, tasks, counts, places)
        if not rates:
            assert got is None
            continue
        want = _brute(view, list(tasks.all), tasks.source, counts, places)
        top = max(rates.values())
        assert got == pytest.approx(want, abs=1e-3 + len(tasks.all) * top * 1e-6), (seed, topics)


def _app(view: ClusterView) -> StreamsApp:
    clients = (StreamsClient("p1", "az1"), StreamsClient("p2", "az2"), StreamsClient("p3", "az3"))
    return StreamsApp("app", clients, _topology(["in"]), view,
                      AssignmentConfig.from_dict({"rack_aware_assignment_strategy": "min_traffic"}))


def test_streams_plans_carry_the_bound_when_traffic_is_measured() -> None:
    topics = {"in": ((1,), (1,), (2,), (2,), (3,), (1,))}
    rates = {TopicPartition("in", p): 1000.0 * (p + 1) for p in range(6)}
    measured = plan(_app(ClusterView(BROKERS, topics, bytes_per_s=rates)), Round(generation=1))
    s = measured.summary
    assert s.lower_bound_bytes_per_s is not None and s.cross_rack_bytes_per_s is not None
    assert s.lower_bound_bytes_per_s <= s.cross_rack_bytes_per_s + 1e-6
    # az1 holds 3 of the partitions, 2 tasks per client: one az1 partition is read across
    # racks at best, the lightest (p0, 1,000 B/s)
    assert s.lower_bound_bytes_per_s == pytest.approx(1000.0)
    assert sum(p.bytes_per_s or 0 for m in measured.members for p in m.partitions) == sum(
        rates.values())
    # the same app unmeasured: no bytes at all, the plan exactly as before
    bare = plan(_app(ClusterView(BROKERS, topics)), Round(generation=1))
    assert bare.summary.lower_bound_bytes_per_s is None and bare.summary.bytes_per_s is None
    assert '"bytes_per_s"' not in bare.to_json()


def test_audit_of_a_streams_group_has_a_best_figure_in_money() -> None:
    from agent.audit import RawGroup, audit_group
    from protocol.groupdescribe import (
        DescribedStreamsGroup,
        StreamsGroupMember,
        StreamsTopology,
        Subtopology,
        TaskIds,
        TasksAssignment,
    )

    rates = {TopicPartition("in", p): float(2**20 * (p + 1)) for p in range(4)}

    def describe(names):  # type: ignore[no-untyped-def]
        return ClusterView(BROKERS, {"in": ((1,), (1,), (2,), (2,))}, bytes_per_s=rates)

    def member(mid: str, rack: str, active: list[int]) -> StreamsGroupMember:
        return StreamsGroupMember(member_id=mid, rack_id=rack, process_id=f"p-{mid}",
                                  assignment=TasksAssignment(active_tasks=[TaskIds("0", active)]))

    desc = DescribedStreamsGroup(group_id="app", group_state="Stable", topology=StreamsTopology(
        subtopologies=[Subtopology("0", ["in"])]),
        members=[member("x", "az1", [2, 3]), member("y", "az2", [0, 1])])
    out = audit_group(RawGroup("app", group_type="streams", state="Stable",
                               protocol_type="streams", described=desc), describe)
    assert out.status == "ok" and out.actual is not None and out.best is not None
    assert out.cross_rack_bytes_actual == sum(rates.values())  # every task read across racks
    bound = out.actual.summary.lower_bound_bytes_per_s
    assert bound == 0.0 == out.best.summary.lower_bound_bytes_per_s  # swap them: all local
    assert out.money()["best"] == 0.0 and out.money()["actual"] > 0
