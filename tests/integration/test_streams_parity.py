"""Parity with Kafka's own HighAvailabilityTaskAssignor (kafka-streams 4.3.1, real jar).

* strategy none: Kafka's assignment is reproduced exactly (actives, standbys, probing);
* min_traffic / balance_subtopology on fresh state (no task movements), step by step:
  - stateful actives: our KIP-925 step objective is never higher than Kafka's;
  - standbys: on the *same* input (Kafka's actives, hence the same start placement) our
    step objective (traffic x cross-rack changelog + non-overlap vs the start) is never
    higher, and Kafka's result lies inside our feasible set (same per-client counts, no
    standby beside its active).
  Pipeline standby traffic is asserted only where it is fixed by the active step's optimum
  (standbys forced onto every client but the active's). Elsewhere it is
  printed, not asserted: the active step often has several optima (equal cost) and the
  standby step's input -- which clients hold a task's active, hence which may hold its
  standbys -- depends on the one picked. Seed 273717244 (3 clients, 2 standbys) was such a
  case: both active placements cost 10, standbys were forced, traffic 17 vs 14; the
  tie-break now picks the least-standby-traffic optimum (rack.standby_tie_break), but in
  general no per-step optimum can promise less pipeline traffic than Kafka's tie.
  ``bench/streams_parity_sweep.py`` counts lower/equal/higher over many seeds.

RACKWISE_PARITY_SEED=<int> replays a run (the failing case prints its seed).
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest

from assignor.streams.scenario import parse_inputs, run
from bench.streams_gen import generate
from bench.streams_parity import evaluate, parity_case, run_kafka, standby_step

pytestmark = pytest.mark.java

# Random per run; RACKWISE_PARITY_SEED=<int> replays a run (every case prints its own seed:
# none cases use SEED + case, the cost cases SEED * 7 + case).
SEED = int(os.environ.get("RACKWISE_PARITY_SEED") or random.Random().randrange(1 << 30))


def _objective(inputs, active, start):  # type: ignore[no-untyped-def]
    view, rack = inputs.view, {c.process_id: c.rack for c in inputs.clients}
    total = 0
    for pid, tasks in active.items():
        for t in tasks & set(start):
            total += 10 * sum(
                view.is_cross_rack(tp.topic, tp.partition, rack[pid])
                for tp in inputs.tasks.source[t]
            )
            total += 0 if start[t] == pid else 1
    return total


def _ours(inputs):  # type: ignore[no-untyped-def]
    res = run(inputs)
    return (
        res,
        {p: set(c.active) for p, c in res.clients.items()},
        {p: set(c.standby) for p, c in res.clients.items()},
    )


@pytest.mark.parametrize("case", range(6))
def test_none_strategy_is_kafka_exactly(case: int) -> None:
    seed = SEED + case
    print(f"seed={seed}")
    rng = random.Random(seed)
    doc = generate(
        seed,
        tasks=rng.randint(4, 20),
        clients=rng.randint(1, 6),
        standbys=rng.randint(0, 2),
        strategy="none",
        lagged=True,
        tags=case % 3 == 0,
        subtopologies=rng.randint(1, 3),
    )
    inputs = parse_inputs(doc)
    res, active, standby = _ours(inputs)
    kafka = run_kafka(inputs)
    assert active == kafka.active
    assert standby == kafka.standby
    assert res.probing_needed == kafka.probing


@pytest.mark.parametrize("strategy", ["min_traffic", "balance_subtopology"])
@pytest.mark.parametrize("case", range(6))
def test_never_costs_more_than_kafka(strategy: str, case: int) -> None:
    seed = SEED * 7 + case
    print(f"seed={seed}")
    inputs = parity_case(seed, strategy)
    res, active, standby = _ours(inputs)
    kafka = run_kafka(inputs)
    assert kafka.rack_enabled == res.rack_enabled
    ours_eval, kafka_eval = (
        evaluate(inputs, active, standby),
        evaluate(inputs, kafka.active, kafka.standby),
    )
    print(
        "ours",
        ours_eval,
        "kafka",
        kafka_eval,
        "lower by",
        kafka_eval["total_traffic"] - ours_eval["total_traffic"],
    )
    # Step objective of the stateful actives (KIP-925, HA defaults 10/1): traffic against the
    # round-robin balanced placement, which is exactly the strategy-none plan (checked above).
    base = run(
        replace(inputs, config=replace(inputs.config, rack_aware_assignment_strategy="none"))
    )
    start = {t: p for p, c in base.clients.items() for t in c.active if t in inputs.tasks.stateful}
    ours_obj = _objective(inputs, active, start)
    kafka_obj = _objective(inputs, kafka.active, start)
    print("stateful-active objective ours", ours_obj, "kafka", kafka_obj)
    assert ours_obj <= kafka_obj
    assert ours_eval["standbys"] == kafka_eval["standbys"]
    if res.rack_enabled and inputs.config.num_standby_replicas > 0:
        # Standby step on the same input: Kafka's actives -> the same start placement.
        assert standby_step(inputs, active).ours == standby  # the replay is our pipeline
        step = standby_step(inputs, kafka.active)
        assert step.feasible(kafka.active, kafka.standby) == ""
        ours_step, kafka_step = step.cost(step.ours), step.cost(kafka.standby)
        print("standby-step objective on Kafka's actives: ours", ours_step, "kafka", kafka_step)
        assert ours_step <= kafka_step
        # Every task on every client (replicas >= clients - 1; Kafka too, same copy count):
        # the standby step has no freedom and standby traffic is fixed by the actives, so
        # the tie-break towards least standby traffic among the active step's optima must
        # not lose to Kafka's optimum (equal active objective).
        forced = all(
            sum(t in active[p] | standby[p] for p in active) == len(active)
            for t in inputs.tasks.stateful
        )
        if forced and ours_obj == kafka_obj:
            assert ours_eval["standby_traffic"] <= kafka_eval["standby_traffic"]
    assert ours_eval["active_spread"] <= kafka_eval["active_spread"]
    if strategy == "balance_subtopology":
        assert ours_eval["subtopology_skew"] <= max(kafka_eval["subtopology_skew"], 4)
