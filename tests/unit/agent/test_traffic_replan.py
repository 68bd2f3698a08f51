"""Traffic-triggered re-plans: the decision (agent.daemon.retraffic) and the scheduler's side
(agent.daemon.trafficprobe) on real plans, with the IO (rack watch, estimator) replaced by
fixed views. Figures are computed, never typed in."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from agent.brokers.traffic import TrafficSettings, weights_from
from agent.config.settings import load_settings
from agent.daemon.events import Probed, TrafficSampled
from agent.daemon.planning import compute_plan, job_for, take_job
from agent.daemon.retraffic import (
    ReplanState,
    TrafficFigures,
    cross_rack_bytes,
    decide,
    material,
    target_assignment,
)
from agent.daemon.state import GroupTable
from agent.daemon.trafficprobe import TrafficProber, TrafficReplans
from assignor.api import pick_reason
from assignor.cluster import ClusterView, TopicPartition
from protocol.consumer import encode_subscription, java_subscription
from protocol.plan import PLAN_REASONS, AssignmentPlan
from protocol.pricing import Price

pytestmark = pytest.mark.unit

SETTINGS = TrafficSettings()  # the documented defaults
PRICE = Price()
BROKERS = {1: "az1", 2: "az2", 3: "az3"}
# b (az2) has one local partition (p1) and must read one more from another rack
REPLICAS = ((1, 3), (2,), (1,), (3,), (1, 3), (3, 1))
MEMBERS = {"a": "az1", "b": "az2", "c": "az3"}
BASE = 5000.0  # bytes/s of a partition; 50x that read across racks is ~$12/month


def _usd_bytes(usd: float) -> float:
    """Bytes/s that cost ``usd`` a month at the default price (inverse of Price.per_month)."""
    return usd / PRICE.per_month(1_000_000.0) * 1_000_000.0  # type: ignore[operator]


def test_new_reason_is_part_of_the_contract() -> None:
    assert "traffic-changed" in PLAN_REASONS
    assert pick_reason({"traffic-changed", "followup"}) == "traffic-changed"
    assert pick_reason({"traffic-changed", "member-joined"}) == "member-joined"
    plan = AssignmentPlan.from_json(_plan_json("traffic-changed"))
    assert AssignmentPlan.from_json(plan.to_json()).reason == "traffic-changed"
    # the metrics job's validity checks come from the same model: it accepts any non-empty
    # reason, this one included (tests/unit/protocol/test_plan_reasons.py)
    from metrics.schema import schema_checks

    reason = [c for c in schema_checks() if c.path == "reason"]
    assert {c.rule for c in reason} == {"required", "min_length"}


def _plan_json(reason: str) -> str:
    import json

    return json.dumps({"schema_version": 1, "group_id": "g", "generation": 2, "reason": reason,
                       "assignor": "rack-optimal", "summary": {
                           "partitions": 0, "cross_rack_partitions": 0, "traffic_cost": 0,
                           "max_load": 0, "min_load": 0}})


def test_both_thresholds_must_hold() -> None:
    big = _usd_bytes(SETTINGS.replan_min_saving_usd_month) * 10
    assert material(TrafficFigures(1, big, big * 0.5), SETTINGS, PRICE)[0]
    # a large relative saving worth a few cents: not material
    small = _usd_bytes(SETTINGS.replan_min_saving_usd_month) / 10
    ok, why = material(TrafficFigures(1, small, 0.0), SETTINGS, PRICE)
    assert not ok and "/month" in why
    # a large absolute saving that is a small share of what the group reads across racks
    ok, why = material(TrafficFigures(1, big * 100, big * 100 - big), SETTINGS, PRICE)
    assert not ok and "%" in why
    assert not material(TrafficFigures(1, big, big), SETTINGS, PRICE)[0]  # saves nothing
    assert not material(TrafficFigures(1, big, big * 2), SETTINGS, PRICE)[0]  # costs more
    assert not material(TrafficFigures(1, big, None), SETTINGS, PRICE)[0]  # not worth solving
    # no price (Azure): no $ saving, unless the $ threshold is 0
    assert not material(TrafficFigures(1, big, 0.0), SETTINGS, Price(0.0, 1))[0]
    free = SETTINGS.model_copy(update={"replan_min_saving_usd_month": 0.0})
    assert material(TrafficFigures(1, big, 0.0), free, Price(0.0, 1))[0]


def test_hold_samples_and_interval() -> None:
    s = SETTINGS.model_copy(update={"replan_hold_samples": 3, "replan_min_interval_s": 100.0})
    good = TrafficFigures(1, _usd_bytes(50), 0.0)
    bad = TrafficFigures(1, _usd_bytes(50), _usd_bytes(49))
    state = ReplanState(0, 0.0)
    replans = []
    # material, material, noise, material x3 (replan at t=5), material (within the interval)
    for t, f in enumerate([good, good, bad, good, good, good, good]):
        decision, state = decide(state, f, s, PRICE, float(t))
        replans.append(decision.replan)
    assert replans == [False, False, False, False, False, True, False]
    assert state.not_before == 5.0 + 100.0
    for t in range(2):  # the streak held through the interval: re-plan once it is over
        decision, state = decide(state, good, s, PRICE, 106.0 + t)
    assert decision.replan and decision.detail["samples_held"] >= 3


def test_decisions_are_deterministic_and_never_break_the_rules() -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    s = SETTINGS.model_copy(update={"replan_hold_samples": rng.randint(1, 3),
                                    "replan_min_interval_s": rng.choice([0.0, 30.0, 120.0])})
    samples = []
    for i in range(400):
        current = rng.choice([0.0, rng.uniform(0, 3e5), rng.uniform(0, 3e6)])
        samples.append(TrafficFigures(i, current, current * rng.uniform(0.0, 1.2), rng.randint(0, 5)))

    def run() -> list[tuple[bool, str]]:
        state, out = ReplanState(), []
        for i, f in enumerate(samples):
            decision, state = decide(state, f, s, PRICE, 10.0 * i)
            out.append((decision.replan, decision.why))
        return out

    first = run()
    assert run() == first
    assert any(replan for replan, _ in first) and not all(replan for replan, _ in first)
    last = None
    for i, (replan, _) in enumerate(first):
        if not replan:
            continue
        held = samples[i - s.replan_hold_samples + 1: i + 1]
        assert all(material(f, s, PRICE)[0] for f in held), i
        assert last is None or 10.0 * (i - last) >= s.replan_min_interval_s
        last = i


# ---- the scheduler's side on real plans ---------------------------------------------------
class _Watch:
    def __init__(self, view: ClusterView) -> None:
        self._view = view

    def view(self, topics: Any) -> ClusterView:
        return self._view


class _Traffic:
    """The estimator's reading side, with rates set by the test."""

    def __init__(self) -> None:
        self.samples = 0
        self.rates: dict[TopicPartition, float] = {}

    def sample(self, _topics: Any) -> None:
        self.samples += 1

    def enriched(self, view: ClusterView) -> tuple[int, ClusterView]:
        return self.samples, replace(view, bytes_per_s=dict(self.rates),
                                     weights=weights_from(self.rates))


def _sub(topics: list[str], owned: list[tuple[str, int]], gen: int, rack: str) -> bytes:
    return encode_subscription(java_subscription(topics, owned, generation_id=gen, rack_id=rack), 3)


def _setup(**traffic: Any) -> tuple[Any, GroupTable, _Traffic, list[Any]]:
    settings = load_settings(None, bootstrap="x:1", planner={"consumer_assignor": "rack-optimal"},
                             traffic={"replan_min_interval_s": 0.0, **traffic})
    view = ClusterView(BROKERS, {"t": REPLICAS})
    table = GroupTable()
    # b owns p0 from an earlier round: with equal traffic, keeping it is free, so it stays
    owned = {"a": [("t", 2), ("t", 4)], "b": [("t", 0), ("t", 1)], "c": [("t", 3), ("t", 5)]}
    for m, rack in MEMBERS.items():
        table.apply(0, f"g/{m}".encode(), _sub(["t"], owned[m], 1, rack), "consumer", 0.0)
    traffic = _Traffic()
    traffic.rates = {TopicPartition("t", p): BASE for p in range(6)}
    events: list[Any] = []
    prober = TrafficProber(settings, _Watch(view), traffic, events.append)  # type: ignore[arg-type]
    group = table.groups["g"]
    job = take_job(group, settings.planner, ("t",))
    plan = compute_plan(job, traffic.enriched(view)[1])
    group.in_flight, group.last_plan, group.last_generation = None, plan, plan.generation
    return settings, table, traffic, [prober, view, events]


def test_a_hot_partition_read_across_racks_is_replanned_local() -> None:
    settings, table, traffic, (prober, view, events) = _setup()
    group = table.groups["g"]
    before = group.last_plan
    assert before is not None and not before.withheld
    cross = [tp for m, tps in target_assignment(before).items() for tp in tps
             if MEMBERS[m] not in view.racks(tp.topic, tp.partition)]
    assert cross == [TopicPartition("t", 0)], "equal traffic: b keeps p0 (stickiness is free)"
    replans = TrafficReplans(settings, prober)
    prober.submit = lambda job: events.append(Probed(job, prober.probe(job)))  # type: ignore[method-assign]

    def round_(now: float) -> list[tuple[str, dict[str, object]]]:
        traffic.sample(["t"])
        replans.sampled(TrafficSampled(traffic.samples))
        replans.schedule(now, table.groups, {0}, {})  # probes this sample
        for e in [e for e in events if isinstance(e, Probed)]:
            replans.probed(e)
        events.clear()
        return replans.schedule(now, table.groups, {0}, {})

    assert round_(1.0) == [] and round_(2.0) == []  # equal traffic: nothing to save
    traffic.rates[TopicPartition("t", 0)] = 50 * BASE  # p0 turns 50x hotter
    assert round_(3.0) == []  # one sample is not enough (replan_hold_samples = 2)
    (due,) = round_(4.0)
    gid, detail = due
    info = detail["traffic"]
    assert gid == "g" and isinstance(info, dict)
    hot = traffic.enriched(view)[1]
    assert info["cross_rack_bytes_per_s"] == pytest.approx(cross_rack_bytes(hot, before))
    assert info["cross_rack_bytes_per_s"] == pytest.approx(50 * BASE)
    assert info["expected_cross_rack_bytes_per_s"] == pytest.approx(BASE)
    # the scheduler's trigger: the real plan, through the seam, with the new reason
    group.mark("traffic-changed", 4.0, {"reason": "traffic-changed", **detail})
    plan = compute_plan(take_job(group, settings.planner, ("t",)), hot)
    assert plan.reason == "traffic-changed" and plan.generation > before.generation
    owner = {tp: m for m, tps in target_assignment(plan).items() for tp in tps}
    assert MEMBERS[owner[TopicPartition("t", 0)]] in view.racks("t", 0)
    assert {w.partition for w in plan.withheld} >= {0}, "cooperative: p0 waits for b to let go"
    assert cross_rack_bytes(hot, plan) == pytest.approx(BASE)


def test_thresholds_interval_and_assignor_keep_groups_still() -> None:
    # the same hot partition, but a saving below the $ threshold: never re-planned
    settings, table, traffic, (prober, _view, events) = _setup(replan_min_saving_usd_month=1000.0)
    replans = TrafficReplans(settings, prober)
    prober.submit = lambda job: events.append(Probed(job, prober.probe(job)))  # type: ignore[method-assign]
    traffic.rates[TopicPartition("t", 0)] = 50 * BASE
    for now in range(1, 6):
        traffic.sample(["t"])
        replans.sampled(TrafficSampled(traffic.samples))
        assert replans.schedule(float(now), table.groups, {0}, {}) == []
        for e in events:
            assert isinstance(e, Probed) and e.figures is not None
            assert e.figures.candidate is None  # not even worth running the assignor
            replans.probed(e)
        events.clear()
    # cooperative-sticky does not weigh traffic: not probed at all
    settings2, table2, traffic2, (prober2, _v, events2) = _setup()
    sticky = settings2.model_copy(update={"planner": settings2.planner.model_copy(
        update={"consumer_assignor": "cooperative-sticky"})})
    replans2 = TrafficReplans(sticky, prober2)
    traffic2.sample(["t"])
    replans2.sampled(TrafficSampled(traffic2.samples))
    replans2.schedule(1.0, table2.groups, {0}, {})
    assert events2 == []
    # a group with a change pending, or not ready, is not probed either
    table.groups["g"].dirty.add("member-joined")
    traffic.sample(["t"])
    replans.sampled(TrafficSampled(traffic.samples))
    replans.schedule(9.0, table.groups, {0}, {})
    assert events == []


def test_a_swap_is_followed_up_once_every_owner_has_let_go() -> None:
    """The traffic re-plan swaps partitions between two members (both withheld). The
    follow-up waits until both owners report the plan's generation: planned while one still
    may hold its partition, it would withhold it again (the livelock the testbed showed)."""
    from agent.daemon.state import awaiting_release

    settings, table, traffic, (prober, view, events) = _setup()
    group = table.groups["g"]
    traffic.rates[TopicPartition("t", 0)] = 50 * BASE
    hot = traffic.enriched(view)[1]
    group.mark("traffic-changed", 1.0)
    swap = compute_plan(take_job(group, settings.planner, ("t",)), hot)
    group.in_flight, group.last_plan, group.last_generation = None, swap, swap.generation
    owners = sorted({w.owner for w in swap.withheld})
    assert len(owners) == 2, "a swap: two owners let go"
    mine = {m.member_id: [(p.topic, p.partition) for p in m.partitions] for m in swap.members}
    assert awaiting_release(group)
    # one owner lets go (reports the plan's generation without the withheld partition)
    first = owners[0]
    table.apply(0, f"g/{first}".encode(), _sub(["t"], mine[first], swap.generation, MEMBERS[first]),
                "consumer", 2.0)
    assert awaiting_release(group)
    # planned now, the other owner's partition would be withheld once more
    early = compute_plan(job_for(group, settings.planner, ("t",), ("followup",)), hot)
    assert early.withheld
    for m in sorted(MEMBERS):
        table.apply(0, f"g/{m}".encode(), _sub(["t"], mine[m], swap.generation, MEMBERS[m]),
                    "consumer", 3.0)
    assert not awaiting_release(group)
    group.mark("followup", 3.0)
    follow = compute_plan(take_job(group, settings.planner, ("t",)), hot)
    assert not follow.withheld and cross_rack_bytes(hot, follow) == pytest.approx(BASE)
