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
* balance_subtopology: KIP-925 has no subtopology-balance cost term; Kafka's graph caps
  every (client, subtopology) pair at ceil(n_c / T * T_s) tasks and minimises the same
  traffic + non-overlap cost as min_traffic. We assert both plans stay within those caps and
  (above) that our cost is not higher. The raw per-subtopology skew (max - min tasks per
  client) is not part of that objective and is only printed: seed 1262873466 (1- and
  2-thread clients) has two optima of cost 10, Kafka's with skew 4 and ours with skew 5, both
  inside the caps. An earlier ``skew <= max(kafka, 4)`` assertion (after Kafka's convergence
  test) claimed more than Kafka's objective implies.

RACKWISE_PARITY_SEED=<int> replays a run (the failing case prints its seed).
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest

from assignor.streams.run import run
from bench.streams_parity import (
    active_step_objective,
    evaluate,
    none_case,
    parity_case,
    run_kafka,
    standby_step,
    subtopology_caps_violated,
)

pytestmark = pytest.mark.java

# Random per run; RACKWISE_PARITY_SEED=<int> replays a run (every case prints its own seed:
# none cases use SEED + case, the cost cases SEED * 7 + case).
SEED = int(os.environ.get("RACKWISE_PARITY_SEED") or random.Random().randrange(1 << 30))


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
    inputs = none_case(seed, tags=case % 3 == 0)
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
    ours_obj = active_step_objective(inputs, active, start)
    kafka_obj = active_step_objective(inputs, kafka.active, start)
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
        # Kafka's balance is a constraint of its graph, not a cost term: both sides must
        # respect the same per-(client, subtopology) capacities. The raw max-min skew is
        # printed above but not asserted (equal-cost optima may differ in it).
        assert subtopology_caps_violated(inputs, kafka.active) == ""  # our caps = the jar's
        assert subtopology_caps_violated(inputs, active) == ""
