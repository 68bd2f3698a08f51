"""The JVM Streams task core against the Python reference (docs/streams-assignor.md § 7).

Every generated application (``tests.support.streamscoreparity.parity_case``) goes to both
``assignor.streams`` and ``dev.rackwise.tasks`` (one JVM for all of them). Asserted per
application: the same cost of every optimised step (exact integers), the same per-client
active and standby counts, no standby beside its active, Kafka's ``balance_subtopology``
caps respected (fresh state), the same standby rack diversity, the same probing decision,
and the same assignment (both use the one tie-break rule of § 6, so the assignment is
identical wherever the perturbation fits; the count is printed).

A brute force on tiny applications enumerates every placement of each optimised step from
the same start and checks that the step cost both report is the least.

The seed is random per run and printed; ``RACKWISE_PARITY_SEED=<int>`` replays a run.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import time
from typing import Any

import pytest

from assignor.scenario.streams import parse_inputs
from assignor.streams import rackstandby
from assignor.streams.ha import place_standbys
from assignor.streams.model import StreamsInputs
from assignor.streams.rack import rack_context
from assignor.streams.run import run
from assignor.streams.state import ClientState
from bench.streams_gen import generate
from protocol.streams import TaskId
from tests.support.streamscoreparity import (
    parity_case,
    problem_doc,
    python_answer,
    run_core,
    with_view_weights,
)

pytestmark = pytest.mark.java

SEED = int(os.environ.get("RACKWISE_PARITY_SEED") or random.Random().randrange(1 << 30))
APPS = 2400
TINY = 300


def _holders(answer: dict[str, Any], kind: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pid, c in answer["clients"].items():
        for t in c[kind]:
            out.setdefault(t, set()).add(pid)
    return out


def _diversity(inputs: StreamsInputs, answer: dict[str, Any]) -> float | None:
    rack = {c.process_id: c.rack for c in inputs.clients}
    if inputs.config.num_standby_replicas == 0 or any(not r for r in rack.values()):
        return None
    racks: dict[str, set[str]] = {str(t): set() for t in inputs.tasks.stateful}
    for pid, c in answer["clients"].items():
        for t in c["active"] + c["standby"]:
            if t in racks:
                racks[t].add(rack[pid] or "")
    return sum(len(r) for r in racks.values()) / len(racks) if racks else None


def _caps_violated(inputs: StreamsInputs, answer: dict[str, Any]) -> str:
    """Kafka's balance_subtopology caps ceil(n_c / T * T_s), per optimised step."""
    for stateful in (True, False):
        step = {
            p: [TaskId.parse(t) for t in c["active"]
                if (TaskId.parse(t) in inputs.tasks.stateful) == stateful]
            for p, c in answer["clients"].items()
        }
        total = sum(len(v) for v in step.values())
        per_sub: dict[int, int] = {}
        for tasks in step.values():
            for t in tasks:
                per_sub[t.subtopology] = per_sub.get(t.subtopology, 0) + 1
        for p, tasks in step.items():
            for sub, size in per_sub.items():
                held = sum(1 for t in tasks if t.subtopology == sub)
                if held > math.ceil(len(tasks) * 1.0 / total * size):
                    return f"{p}: {held} tasks of subtopology {sub}"
    return ""


def _check(inputs: StreamsInputs, drawn: dict[str, Any], py: dict[str, Any],
           jv: dict[str, Any]) -> None:
    assert "error" not in jv, jv.get("error")
    assert jv["costs"] == py["costs"]
    assert jv["rack_aware"] == py["rack_aware"]
    assert jv["followup"] == py["followup"]
    for kind in ("active", "standby"):
        assert {p: len(c[kind]) for p, c in jv["clients"].items()} == {
            p: len(c[kind]) for p, c in py["clients"].items()}
    for answer in (py, jv):
        active = _holders(answer, "active")
        for t, pids in _holders(answer, "standby").items():
            assert not pids & active.get(t, set()), f"standby of {t} beside its active"
        assert all(len(p) == 1 for p in active.values())
        if (drawn["strategy"] == "balance_subtopology" and answer["rack_aware"]
                and not drawn["lagged"]):
            assert _caps_violated(inputs, answer) == ""
    assert _diversity(inputs, jv) == _diversity(inputs, py)


def test_java_core_equals_python_reference() -> None:
    print(f"seed={SEED} (RACKWISE_PARITY_SEED={SEED} replays)")
    cases, problems, answers = [], [], []
    started = time.monotonic()
    for k in range(APPS):
        seed = SEED + k
        inputs, drawn = parity_case(seed)
        cases.append((seed, inputs, drawn))
        problems.append(problem_doc(inputs, str(seed)))
        answers.append(python_answer(inputs, str(seed)))
    python_s = time.monotonic() - started
    java = run_core(problems)
    java_s = time.monotonic() - started - python_s
    identical = 0
    rack_aware = sum(1 for a in answers if a["rack_aware"])
    for (seed, inputs, drawn), py, jv in zip(cases, answers, java, strict=True):
        try:
            _check(inputs, drawn, py, jv)
        except AssertionError:
            print(f"app seed={seed} drawn={drawn}")
            raise
        identical += py["clients"] == jv["clients"]
    print(f"{APPS} apps ({rack_aware} rack-aware): {identical} identical assignments, "
          f"{APPS - identical} equal cost only; python {python_s:.1f}s, java (one JVM) {java_s:.1f}s")
    assert identical == APPS


REPAIR_APPS = 60


def test_standby_split_repairs_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Larger applications with 2 standbys, where the greedy split of the aggregated standby
    flow often gets stuck and an augmenting path repairs it (docs/streams-assignor.md § 6):
    both implementations give the same assignment, and the repair did run."""
    print(f"seed={SEED} (RACKWISE_PARITY_SEED={SEED} replays)")
    repairs = {True: 0, False: 0}
    real = rackstandby._repair

    def counted(*args: Any) -> bool:
        done = real(*args)
        repairs[done] += 1
        return done

    monkeypatch.setattr(rackstandby, "_repair", counted)
    cases = []
    for k in range(REPAIR_APPS):
        seed = SEED * 5 + k
        rng = random.Random(seed)
        doc = generate(seed, tasks=rng.randint(100, 400), clients=rng.randint(10, 40), racks=3,
                       rf=2, standbys=2, subtopologies=rng.randint(2, 8),
                       strategy=rng.choice(["min_traffic", "balance_subtopology"]),
                       lagged=rng.random() < 0.5, max_threads=rng.randint(1, 3))
        cases.append((seed, with_view_weights(parse_inputs(doc))))
    answers = [python_answer(i, str(s)) for s, i in cases]
    java = run_core([problem_doc(i, str(s)) for s, i in cases])
    for (seed, _), py, jv in zip(cases, answers, java, strict=True):
        assert "error" not in jv, jv.get("error")
        assert (jv["costs"], jv["clients"]) == (py["costs"], py["clients"]), f"app seed={seed}"
    print(f"{REPAIR_APPS} apps identical; split repairs: {repairs[True]} made, "
          f"{repairs[False]} found no split (the exact graph decided)")
    assert repairs[True] > 0


LARGE_APPS = 8


def test_large_applications_agree() -> None:
    """1,000 tasks on 100 clients, 1-2 standbys, weighted or not: the size where a perturbation
    combined with the levels used to shrink to 8 bits or none and the plans differed (7 of 30
    identical); solved in two stages (docs/streams-assignor.md § 6) both give one plan."""
    print(f"seed={SEED} (RACKWISE_PARITY_SEED={SEED} replays)")
    cases = []
    for k in range(LARGE_APPS):
        seed = SEED * 13 + k
        rng = random.Random(seed)
        doc = generate(seed, tasks=1000, clients=100, racks=3, rf=2,
                       standbys=rng.randint(1, 2), subtopologies=10,
                       strategy=rng.choice(["min_traffic", "balance_subtopology"]),
                       lagged=rng.random() < 0.5, max_threads=1, weights=rng.random() < 0.5)
        cases.append((seed, with_view_weights(parse_inputs(doc))))
    answers = [python_answer(i, str(s)) for s, i in cases]
    java = run_core([problem_doc(i, str(s)) for s, i in cases])
    for (seed, _), py, jv in zip(cases, answers, java, strict=True):
        assert "error" not in jv, jv.get("error")
        assert py["rack_aware"], f"app seed={seed} is not rack-aware: nothing compared"
        assert (jv["costs"], jv["clients"]) == (py["costs"], py["clients"]), f"app seed={seed}"
    print(f"{LARGE_APPS} apps of 1,000 tasks x 100 clients identical")


# --- brute force on tiny applications ---------------------------------------------------


def _weighted_misses(inputs: StreamsInputs, parts: tuple[Any, ...], rack: str) -> int:
    view = inputs.view
    total = 0
    for tp in parts:
        racks = {view.brokers.get(b) for b in view.replicas(tp.topic, tp.partition)}
        if rack not in racks:
            total += inputs.weights.get(tp, 1)
    return total


def _start_states(inputs: StreamsInputs) -> dict[str, ClientState]:
    """Fresh states with the stateful actives where the optimiser starts (round robin +
    balance: the strategy-none plan of a fresh application)."""
    base = run(_with_strategy(inputs, "none"))
    states = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
    for pid, c in base.clients.items():
        for t in c.active:
            if t in inputs.tasks.stateful:
                states[pid].assign_active(t)
    return states


def _with_strategy(inputs: StreamsInputs, strategy: str) -> StreamsInputs:
    from dataclasses import replace

    return replace(inputs, config=replace(inputs.config, rack_aware_assignment_strategy=strategy))


def _best_active(inputs: StreamsInputs, start: dict[TaskId, str], racks: dict[str, str],
                 traffic: int, non_overlap: int) -> int:
    tasks = sorted(start)
    counts: dict[str, int] = {}
    for p in start.values():
        counts[p] = counts.get(p, 0) + 1
    slots = [p for p in sorted(counts) for _ in range(counts[p])]
    balance = inputs.config.rack_aware_assignment_strategy == "balance_subtopology"
    per_sub: dict[int, int] = {}
    for t in tasks:
        per_sub[t.subtopology] = per_sub.get(t.subtopology, 0) + 1
    best = None
    for perm in set(itertools.permutations(slots)):
        if balance:
            held: dict[tuple[str, int], int] = {}
            for t, p in zip(tasks, perm, strict=True):
                held[(p, t.subtopology)] = held.get((p, t.subtopology), 0) + 1
            if any(n > math.ceil(counts[p] * 1.0 / len(tasks) * per_sub[s])
                   for (p, s), n in held.items()):
                continue
        cost = sum(
            traffic * _weighted_misses(inputs, inputs.tasks.source[t], racks[p])
            + (0 if start[t] == p else non_overlap)
            for t, p in zip(tasks, perm, strict=True)
        )
        best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def _best_standby(inputs: StreamsInputs, states: dict[str, ClientState], racks: dict[str, str],
                  traffic: int, non_overlap: int) -> int:
    """Least standby-step cost over every placement keeping each client's standby count,
    one copy of a task per client, none beside its active."""
    start = {(t, p) for p, c in states.items() for t in c.standby}
    copies = sorted(start)
    counts = {p: len(c.standby) for p, c in states.items()}
    active = {t: p for p, c in states.items() for t in c.active}
    tasks = sorted({t for t, _ in copies})
    per_task = {t: sum(1 for x, _ in copies if x == t) for t in tasks}
    pids = sorted(states)
    best: int | None = None

    def rec(i: int, left: dict[str, int], acc: int, chosen: list[tuple[TaskId, str]]) -> None:
        nonlocal best
        if best is not None and acc >= best:
            return
        if i == len(tasks):
            best = acc
            return
        t = tasks[i]
        for combo in itertools.combinations([p for p in pids if p != active.get(t)],
                                            per_task[t]):
            if any(left[p] == 0 for p in combo):
                continue
            cost = sum(
                traffic * _weighted_misses(inputs, inputs.tasks.changelog[t], racks[p])
                + (0 if (t, p) in start else non_overlap)
                for p in combo
            )
            for p in combo:
                left[p] -= 1
            rec(i + 1, left, acc + cost, chosen)
            for p in combo:
                left[p] += 1

    rec(0, dict(counts), 0, [])
    assert best is not None
    return best


def test_both_are_optimal_per_step_on_tiny_apps() -> None:
    print(f"seed={SEED} (RACKWISE_PARITY_SEED={SEED} replays)")
    cases = []
    k = 0
    while len(cases) < TINY:
        seed = SEED * 3 + k
        k += 1
        inputs, drawn = parity_case(seed, tiny=True)
        if drawn["strategy"] == "none" or drawn["tags"]:
            continue
        cases.append((seed, inputs))
    java = run_core([problem_doc(i, str(s)) for s, i in cases])
    checked = {"stateful_active": 0, "standby": 0}
    for (seed, inputs), jv in zip(cases, java, strict=True):
        py = python_answer(inputs, str(seed))
        assert jv["costs"] == py["costs"], f"seed={seed}"
        if not py["rack_aware"]:
            continue
        cfg = inputs.config
        traffic, non_overlap = cfg.traffic_cost, cfg.non_overlap_cost
        racks = {c.process_id: c.rack or "" for c in inputs.clients}
        states = _start_states(inputs)
        start = {t: p for p, c in states.items() for t in c.active}
        if start:
            best = _best_active(inputs, start, racks, traffic, non_overlap)
            assert py["costs"]["stateful_active"] == best, f"seed={seed}"
            checked["stateful_active"] += 1
        if cfg.num_standby_replicas > 0 and start:
            # The standby step starts from Kafka's placement around the optimised actives.
            opt = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
            for pid, c in py["clients"].items():
                for t in c["active"]:
                    if TaskId.parse(t) in inputs.tasks.stateful:
                        opt[pid].assign_active(TaskId.parse(t))
            order = sorted(opt, key=lambda p: opt[p].key)
            place_standbys(opt, order, sorted(inputs.tasks.stateful), cfg)
            ctx = rack_context(inputs.view, inputs.tasks, list(opt.values()), cfg, inputs.weights)
            assert ctx.enabled
            if any(c.standby for c in opt.values()):
                best = _best_standby(inputs, opt, racks, traffic, non_overlap)
                assert py["costs"]["standby"] == best, f"seed={seed}"
                checked["standby"] += 1
    print(f"{len(cases)} tiny apps; brute-forced steps: {checked}")
    assert checked["stateful_active"] > TINY // 4
