"""Port of the invariants of Kafka's TaskAssignorConvergenceTest, as seeded property tests.

Each rebalance flips "assigned" to "subscribed": tasks a client held (active, standby or
warm-up) are caught up next time (lag 0), others lag by the whole changelog (1000 > the
acceptable 100). Fresh clusters must settle in 1 plan; after clients drop or join, within
2 x (stateful + stateful x standbys) plans. Then: one active per task, the expected copies,
active spread <= 1 per thread, per-subtopology skew <= 1 (none) or 4 (balance_subtopology).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignor.scenario.streams import parse_inputs
from assignor.streams.model import ClientInput, StreamsInputs
from assignor.streams.run import run
from bench.streams_gen import generate

pytestmark = [pytest.mark.unit, pytest.mark.property]
END = 1000


def _next_clients(inputs: StreamsInputs, result, pids) -> list[ClientInput]:  # type: ignore[no-untyped-def]
    out = []
    by_pid = {c.process_id: c for c in inputs.clients}
    for pid in pids:
        state = result.clients.get(pid)
        held = (state.active | state.standby) if state else set()
        lags = {t: (0 if t in held else END) for t in inputs.tasks.stateful}
        base = by_pid.get(pid) or ClientInput(pid, 1, "az1")
        out.append(
            replace(
                base,
                lags=lags,
                prev_active=frozenset(state.active) if state else frozenset(),
                prev_standby=frozenset(state.standby) if state else frozenset(),
            )
        )
    return out


def _converge(inputs: StreamsInputs, limit: int):  # type: ignore[no-untyped-def]
    for iteration in range(1, limit + 1):
        result = run(inputs)
        if not result.probing_needed:
            return inputs, result, iteration
        inputs = replace(
            inputs,
            clients=tuple(_next_clients(inputs, result, [c.process_id for c in inputs.clients])),
        )
    raise AssertionError(f"no convergence within {limit} rebalances")


def _verify(inputs: StreamsInputs, result, strategy: str) -> None:  # type: ignore[no-untyped-def]
    clients = result.clients
    n = len(clients)
    for task in inputs.tasks.all:
        owners = [p for p, c in clients.items() if task in c.active]
        assert len(owners) == 1, (task, owners)
        copies = sum(1 for c in clients.values() if task in c.active or task in c.standby)
        expected = 1 + (inputs.config.num_standby_replicas if task in inputs.tasks.stateful else 0)
        assert copies == min(n, expected), (task, copies)
    for c in clients.values():
        assert not c.active & c.standby
    loads = [len(c.active) / c.capacity for c in clients.values()]
    assert max(loads) - min(loads) <= 1.0
    stateful = [len(c.active & inputs.tasks.stateful) / c.capacity for c in clients.values()]
    assert max(stateful) - min(stateful) <= 1.0
    if strategy != "min_traffic":
        threshold = 4 if strategy == "balance_subtopology" else 1
        for sub, tasks in inputs.tasks.by_subtopology.items():
            counts = [len(c.active & set(tasks)) for c in clients.values()]
            assert max(counts) - min(counts) <= threshold, (sub, counts)


@settings(max_examples=40, derandomize=False)
@given(
    seed=st.integers(0, 2**31),
    strategy=st.sampled_from(["none", "min_traffic", "balance_subtopology"]),
)
def test_random_cluster_converges(seed: int, strategy: str) -> None:
    print(f"seed={seed} strategy={strategy}")
    rng = random.Random(seed)
    size = rng.randint(1, 10)
    stateful_tasks = rng.randint(1, 10)
    doc = generate(
        seed,
        tasks=stateful_tasks + rng.randint(1, 10),
        clients=size,
        racks=3,
        standbys=rng.randint(0, size),
        strategy=strategy,
        subtopologies=rng.randint(1, 3),
        max_threads=1,
    )
    doc["group"]["config"]["max_warmup_replicas"] = rng.randint(1, stateful_tasks)
    inputs = parse_inputs(doc)
    lags = {t: END for t in inputs.tasks.stateful}
    inputs = replace(inputs, clients=tuple(replace(c, lags=lags) for c in inputs.clients))
    inputs, result, _ = _converge(inputs, 1)
    _verify(inputs, result, strategy)
    n_stateful = len(inputs.tasks.stateful)
    limit = 2 * (n_stateful + n_stateful * inputs.config.num_standby_replicas) + 1
    pool = [c.process_id for c in inputs.clients]
    for event in range(rng.randint(1, 10)):
        live = [c.process_id for c in inputs.clients]
        if rng.random() < 0.5 and len(live) > 1:
            keep = sorted(rng.sample(live, rng.randint(1, len(live) - 1)))
        else:
            extra = [f"new{event}-{k}" for k in range(rng.randint(1, 3))]
            pool.extend(extra)
            keep = live + extra
        clients = _next_clients(inputs, result, keep)
        clients = [
            replace(c, rack=c.rack if c.process_id in live else f"az{1 + len(c.process_id) % 3}")
            for c in clients
        ]
        inputs = replace(inputs, clients=tuple(clients))
        inputs, result, _ = _converge(inputs, limit)
        _verify(inputs, result, strategy)


@pytest.mark.parametrize("strategy", ["none", "min_traffic", "balance_subtopology"])
def test_adding_a_node_converges_within_warmup_bound(strategy: str) -> None:
    # Kafka's assignmentShouldConvergeAfterAddingNode: 11 stateful + 7 stateless tasks,
    # one client, then 9 more join; max 2 warm-ups per round.
    doc = generate(
        11,
        tasks=18,
        clients=1,
        strategy=strategy,
        standbys=0,
        subtopologies=2,
        stateless_share=0.0,
        max_threads=1,
    )
    inputs = parse_inputs(doc)
    inputs = replace(
        inputs,
        clients=tuple(
            replace(c, lags={t: END for t in inputs.tasks.stateful}) for c in inputs.clients
        ),
    )
    inputs, result, _ = _converge(inputs, 1)
    joined = [inputs.clients[0].process_id] + [f"joiner-{i}" for i in range(9)]
    inputs = replace(inputs, clients=tuple(_next_clients(inputs, result, joined)))
    n_stateful = len(inputs.tasks.stateful)
    inputs, result, iterations = _converge(inputs, n_stateful // 2 + 2)
    assert iterations > 1  # the joiners had to warm up first
    _verify(inputs, result, strategy)
