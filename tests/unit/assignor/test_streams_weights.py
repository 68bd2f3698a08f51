"""Task weights, the one tie-break rule (lexflow) and Kafka's client order
(docs/streams-assignor.md § 1, § 2, § 6)."""

from __future__ import annotations

import random
import uuid
from dataclasses import replace

import pytest

from assignor.cluster import TopicPartition
from assignor.errors import AssignorError
from assignor.optimal.lexflow import LexNetwork, perturbation
from assignor.scenario.streams import parse_inputs
from assignor.streams.model import process_sort_key
from assignor.streams.run import run
from bench.streams_gen import generate

pytestmark = pytest.mark.unit


def _doc() -> dict:  # type: ignore[type-arg]
    # a@az1 and b@az2; both source partitions live in az2 only: one task reads across racks.
    return {
        "cluster": {"brokers": {"1": "az1", "2": "az2"},
                    "topics": {"src": [[2], [2]], "log": [[1, 2], [1, 2]]}},
        "group": {"id": "g", "kind": "streams",
                  "topology": {"subtopologies": [{"id": 0, "source_topics": ["src"],
                                                  "changelog_topics": ["log"]}]},
                  "clients": [{"process_id": "a", "rack": "az1", "threads": 1},
                              {"process_id": "b", "rack": "az2", "threads": 1}],
                  "config": {"rack_aware_assignment_strategy": "min_traffic"}},
    }


def test_weights_count_instead_of_partitions() -> None:
    inputs = parse_inputs(_doc())
    plain = run(inputs)
    assert plain.step_costs["stateful_active"] == 10  # 0_0 stays on a, reads 1 partition across
    # 0_0 weighs 7: keeping it costs 70, swapping costs 10 (0_1 weighs 1) + 2 moves.
    weighted = run(replace(inputs, weights={TopicPartition("src", 0): 7}))
    assert weighted.step_costs["stateful_active"] == 12
    assert {str(t) for t in weighted.clients["a"].active} == {"0_1"}


@pytest.mark.parametrize("seed", range(20))
def test_all_ones_is_the_same_as_no_weights(seed: int) -> None:
    rng = random.Random(seed)
    doc = generate(seed, tasks=rng.randint(2, 20), clients=rng.randint(1, 5),
                   standbys=rng.randint(0, 2),
                   strategy=rng.choice(["min_traffic", "balance_subtopology"]))
    inputs = parse_inputs(doc)
    ones = {tp: 1 for t in inputs.view.topics for tp in
            (TopicPartition(t, p) for p in range(inputs.view.partition_count(t)))}
    a, b = run(inputs), run(replace(inputs, weights=ones))
    assert a.step_costs == b.step_costs
    assert {p: c.active for p, c in a.clients.items()} == {p: c.active for p, c in b.clients.items()}
    assert {p: c.standby for p, c in a.clients.items()} == {p: c.standby for p, c in b.clients.items()}


def test_negative_weight_is_refused() -> None:
    with pytest.raises(AssignorError, match="weights must be >= 0"):
        run(replace(parse_inputs(_doc()), weights={TopicPartition("src", 0): -1}))


def test_perturbation_is_a_fixed_non_linear_hash() -> None:
    values = [perturbation(k, 16) for k in range(5000)]
    assert all(1 <= v <= 1 << 16 for v in values)
    assert all(1 <= perturbation(k) <= 1 << 32 for k in range(5000))
    # golden values, the same in LexFlowTest.java: both implementations number arcs alike
    assert [perturbation(k) for k in range(4)] == [1364076728, 821347079, 2247144488, 614249094]
    assert values[:4] == [20815, 12533, 34289, 9373]
    assert perturbation(123456, 4) == 7
    # a linear hash ties every swap between arcs the same distance apart; this one does not
    diffs = {perturbation(k) - perturbation(k + 3) for k in range(100)}
    assert len(diffs) > 90
    assert all(1 <= perturbation(k, 4) <= 16 for k in range(100))


def test_levels_break_ties_and_drop_when_they_do_not_fit() -> None:
    net = LexNetwork()
    s, a, b, t = (net.add_node() for _ in range(4))
    net.set_supply(s, 1)
    net.set_supply(t, -1)
    first = net.add_arc(s, a, 1, (10, 1))
    net.add_arc(s, b, 1, (10, 0))
    net.add_arc(a, t, 1, (0, 0))
    net.add_arc(b, t, 1, (0, 0))
    sol = net.solve()
    assert sol.flow(first) == 0  # same cost, the second level decides
    assert (net.levels_used, net.perturbation_bits) == (2, 32)
    big = LexNetwork()
    s, t = big.add_node(), big.add_node()
    big.set_supply(s, 1)
    big.set_supply(t, -1)
    big.add_arc(s, t, 1, (1 << 40, 1 << 30))
    big.solve()
    assert (big.levels_used, big.perturbation_bits) == (1, 0)
    huge = LexNetwork()
    s, t = huge.add_node(), huge.add_node()
    huge.set_supply(s, 1)
    huge.set_supply(t, -1)
    huge.add_arc(s, t, 1, (1 << 62,))
    with pytest.raises(AssignorError, match="too large"):
        huge.solve()


def test_client_order_is_kafkas_signed_uuid_order() -> None:
    neg = "ffffffff-ffff-ffff-ffff-ffffffffffff"
    low = "00000000-0000-0000-0000-000000000001"
    ids = sorted([low, "p1", neg, "0123456789abcdef0123456789abcdef"], key=process_sort_key)
    # only the canonical 8-4-4-4-12 form is a UUID; the 32-digit form sorts as a plain id
    assert ids == [neg, low, "0123456789abcdef0123456789abcdef", "p1"]
    assert process_sort_key(str(uuid.UUID(int=5)))[:3] == (0, 0, 5)
