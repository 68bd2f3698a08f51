"""Sweep the Streams cost-parity scenarios over many seeds against kafka-streams 4.3.1.

For every seed and strategy (``min_traffic``, ``balance_subtopology``) it runs our HA assignor
and Kafka's (Java harness, one JVM per case) on ``parity_case(seed, strategy)`` -- the same
draws as ``tests/integration/test_streams_parity.py`` -- and counts how often ours is
lower / equal / higher on

* pipeline standby traffic and total traffic (``evaluate``; depends on which tied optimum
  of the active step each side picked);
* the standby step on the same input (``standby_step`` fed Kafka's actives; ours must
  never be higher there, and Kafka's result must lie inside our feasible set);
* the stateful-active step on Kafka's own objective (``active_step_objective`` against the
  strategy-none start; ours must never be higher) and, for ``balance_subtopology``, Kafka's
  per-(client, subtopology) caps (``subtopology_caps_violated``; both must respect them).

Per seed it also checks strategy ``none`` for identity with Kafka (actives, standbys,
probing) on ``none_case(seed, tags=seed % 2 == 0)`` (lags, warm-ups, KIP-708 tags); its
row counts identical runs as "equal" and differing ones as "higher" (also a PROBLEM line).

Kafka's answers do not depend on our code, so ``--cache FILE`` keeps them (JSON) for reruns.

    PYTHONPATH=. .venv/bin/python bench/streams_parity_sweep.py --seeds 200 --start 1
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

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
from protocol.streams import TaskId

STRATEGIES = ("min_traffic", "balance_subtopology")


def _sign(ours: int, kafka: int) -> str:
    return "lower" if ours < kafka else "equal" if ours == kafka else "higher"


def _kafka(cache: dict[str, Any], key: str, inputs: Any) -> tuple[dict[str, set[TaskId]], ...]:
    if key not in cache:
        k = run_kafka(inputs)
        cache[key] = {
            "active": {p: sorted(map(str, v)) for p, v in k.active.items()},
            "standby": {p: sorted(map(str, v)) for p, v in k.standby.items()},
            "probing": k.probing,
        }
    got = cache[key]
    return tuple(
        {p: {TaskId.parse(t) for t in v} for p, v in got[part].items()}
        for part in ("active", "standby")
    )


def _none_identical(cache: dict[str, Any], seed: int) -> str:
    """'' when strategy none gives exactly Kafka's assignment on ``none_case``, else why."""
    inputs = none_case(seed, tags=seed % 2 == 0)
    res = run(inputs)
    key = f"{seed}:none"
    k_active, k_standby = _kafka(cache, key, inputs)
    if {p: set(c.active) for p, c in res.clients.items()} != k_active:
        return "actives differ"
    if {p: set(c.standby) for p, c in res.clients.items()} != k_standby:
        return "standbys differ"
    if res.probing_needed != cache[key].get("probing", res.probing_needed):
        return "probing decision differs"
    return ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    cache: dict[str, Any] = {}
    if args.cache and args.cache.exists():
        cache = json.loads(args.cache.read_text())
    tally: dict[str, Counter[str]] = {}
    problems: list[str] = []
    try:
        for seed in range(args.start, args.start + args.seeds):
            why = _none_identical(cache, seed)
            tally.setdefault(f"{'none':20} identical to Kafka", Counter())[
                "equal" if not why else "higher"
            ] += 1
            if why:
                problems.append(f"{seed}:none {why}")
            for strategy in STRATEGIES:
                inputs = parity_case(seed, strategy)
                res = run(inputs)
                active = {p: set(c.active) for p, c in res.clients.items()}
                standby = {p: set(c.standby) for p, c in res.clients.items()}
                k_active, k_standby = _kafka(cache, f"{seed}:{strategy}", inputs)
                base = run(
                    replace(
                        inputs,
                        config=replace(inputs.config, rack_aware_assignment_strategy="none"),
                    )
                )
                start = {
                    t: p
                    for p, c in base.clients.items()
                    for t in c.active
                    if t in inputs.tasks.stateful
                }
                o_obj = active_step_objective(inputs, active, start)
                k_obj = active_step_objective(inputs, k_active, start)
                if o_obj > k_obj:
                    problems.append(f"{seed}:{strategy} active step objective {o_obj} > {k_obj}")
                if strategy == "balance_subtopology":
                    for side, placed in (("ours", active), ("Kafka", k_active)):
                        if why := subtopology_caps_violated(inputs, placed):
                            problems.append(f"{seed}:{strategy} {side} over a cap: {why}")
                ours, kafka = evaluate(inputs, active, standby), evaluate(
                    inputs, k_active, k_standby
                )
                rows = {
                    "active step objective": _sign(o_obj, k_obj),
                    "standby traffic": _sign(ours["standby_traffic"], kafka["standby_traffic"]),
                    "total traffic": _sign(ours["total_traffic"], kafka["total_traffic"]),
                }
                has_step = res.rack_enabled and inputs.config.num_standby_replicas > 0
                if has_step:
                    if standby_step(inputs, active).ours != standby:
                        problems.append(f"{seed}:{strategy} standby_step replay != our pipeline")
                    step = standby_step(inputs, k_active)
                    if why := step.feasible(k_active, k_standby):
                        problems.append(f"{seed}:{strategy} Kafka outside feasible set: {why}")
                    o_cost, k_cost = step.cost(step.ours), step.cost(k_standby)
                    rows["standby step, same input"] = _sign(o_cost, k_cost)
                    if o_cost > k_cost:
                        problems.append(f"{seed}:{strategy} standby step {o_cost} > {k_cost}")
                    rows["standby traffic, standby step ran"] = rows["standby traffic"]
                    rows["total traffic, standby step ran"] = rows["total traffic"]
                    forced = all(
                        sum(t in active[p] | standby[p] for p in active) == len(active)
                        for t in inputs.tasks.stateful
                    )
                    if forced:
                        rows["standby traffic, standbys forced"] = rows["standby traffic"]
                for name, sign in rows.items():
                    tally.setdefault(f"{strategy:20} {name}", Counter())[sign] += 1
                    tally.setdefault(f"{'both':20} {name}", Counter())[sign] += 1
                if args.verbose or rows["standby traffic"] == "higher":
                    print(
                        f"seed={seed} {strategy}: ours {ours['standby_traffic']}/"
                        f"{ours['total_traffic']} kafka {kafka['standby_traffic']}/"
                        f"{kafka['total_traffic']} (standby/total) {rows}",
                        flush=True,
                    )
    finally:
        if args.cache:
            args.cache.write_text(json.dumps(cache))
    print(f"\nseeds {args.start}..{args.start + args.seeds - 1}")
    print(f"{'':55} {'lower':>6} {'equal':>6} {'higher':>6}")
    for name in sorted(tally):
        c = tally[name]
        print(f"{name:55} {c['lower']:6} {c['equal']:6} {c['higher']:6}")
    for line in problems:
        print("PROBLEM", line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
