"""HA assignor behaviour, inputs and bad input (pure, small, hand-checked cases)."""

from __future__ import annotations

import copy
import random
import uuid

import pytest

from assignor.errors import AssignorError
from assignor.scenario.streams import compare_scenario, parse_inputs, plan_from_scenario
from assignor.streams.model import (
    LONG_MAX,
    compute_lags,
    end_offset_sum,
    process_sort_key,
)
from assignor.streams.movement import JavaPriorityQueue
from assignor.streams.standby import java_hash_order, java_task_hash
from bench.streams_gen import generate
from protocol.streams import TaskId

pytestmark = pytest.mark.unit
SEED = random.Random().randrange(1 << 30)


def _doc(**group_overrides):  # type: ignore[no-untyped-def]
    doc = {
        "cluster": {
            "brokers": {"1": "az1", "2": "az2", "3": "az3"},
            "topics": {"in": [[1], [2], [3], [1]], "cl": [[1], [2], [3], [1]]},
        },
        "group": {
            "id": "app",
            "kind": "streams",
            "topology": {
                "subtopologies": [
                    {"id": 0, "source_topics": ["in"], "changelog_topics": ["cl"], "stateful": True}
                ]
            },
            "clients": [
                {"process_id": "a", "rack": "az1", "threads": 1},
                {"process_id": "b", "rack": "az2", "threads": 1},
            ],
            "config": {},
        },
    }
    doc["group"].update(group_overrides)
    return doc


def test_compute_lags_follows_kafka() -> None:
    t0, t1, t2, t3, t4 = (TaskId(0, p) for p in range(5))
    ends = {t0: 100, t1: 100, t2: 100, t3: 100, t4: 100}
    lags = compute_lags({t0: -2, t1: -3, t2: 150, t3: 40, t4: -4, TaskId(9, 9): 5}, ends)
    assert lags == {t0: -2, t1: -3, t2: 100, t3: 60, t4: 100}
    with pytest.raises(AssignorError, match="sentinels"):
        compute_lags({t0: -7}, ends)
    assert end_offset_sum([LONG_MAX, 5]) == LONG_MAX
    with pytest.raises(AssignorError):
        end_offset_sum([-1])


def test_process_order_is_javas_signed_uuid_order() -> None:
    low = str(uuid.UUID(int=1))
    high_bit = str(uuid.UUID(int=1 << 127))  # msb negative as a Java long: sorts first
    assert sorted([low, high_bit], key=process_sort_key) == [high_bit, low]


def test_bad_inputs_are_clear_errors() -> None:
    doc = _doc()
    doc["group"]["clients"][0]["threads"] = 0
    with pytest.raises(AssignorError, match="threads"):
        plan_from_scenario(doc)
    doc = _doc()
    doc["group"]["topology"]["subtopologies"][0]["source_topics"] = ["missing"]
    with pytest.raises(AssignorError, match="missing"):
        plan_from_scenario(doc)
    doc = _doc()
    doc["group"]["clients"][0]["task_lags"] = {"zero": 3}
    with pytest.raises(AssignorError, match="subtopology"):
        plan_from_scenario(doc)
    doc = _doc()
    doc["group"]["clients"][0]["task_lags"] = {"0_0": -9}
    with pytest.raises(AssignorError, match="sentinel"):
        plan_from_scenario(doc)


def test_unknown_task_lags_are_ignored_and_reported() -> None:
    doc = _doc()
    doc["group"]["clients"][0]["task_lags"] = {"7_0": 5, "0_1": 3}
    plan = plan_from_scenario(doc)
    assert plan.config["ignored_task_lags"] == ["7_0"]


def test_warmup_keeps_active_on_caught_up_client_and_schedules_probing() -> None:
    # a runs all 4 tasks (-2); b is new and 5000 behind: round robin wants 0_1, 0_3 on b.
    doc = _doc(config={"acceptable_recovery_lag": 100, "max_warmup_replicas": 1})
    doc["group"]["clients"][0]["task_lags"] = {f"0_{p}": -2 for p in range(4)}
    doc["group"]["clients"][1]["task_lags"] = {f"0_{p}": 5000 for p in range(4)}
    plan = plan_from_scenario(doc)
    a, b = plan.members
    assert a.active_tasks == ["0_0", "0_1", "0_2", "0_3"]
    assert b.active_tasks == [] and b.warmup_tasks == ["0_1"]  # budget 1: only one warm-up
    assert plan.followup_ms == 600_000
    # the warm-up caught up: the follow-up plan hands 0_1 over, 0_3 warms up next
    doc["group"]["clients"][1]["task_lags"]["0_1"] = 0
    plan2 = plan_from_scenario(doc, previous=plan)
    assert plan2.reason == "followup" and plan2.generation == plan.generation + 1
    assert plan2.members[1].active_tasks == ["0_1"] and plan2.members[1].warmup_tasks == ["0_3"]
    assert plan2.summary.moved_partitions == 1


def test_rack_awareness_enablement_rules() -> None:
    doc = _doc(config={"rack_aware_assignment_strategy": "min_traffic", "num_standby_replicas": 1})
    assert plan_from_scenario(doc).config["rack_aware_enabled"] is True
    no_rack = copy.deepcopy(doc)
    no_rack["group"]["clients"][1]["rack"] = None
    assert plan_from_scenario(no_rack).config["rack_aware_enabled"] is False
    rackless_broker = copy.deepcopy(doc)
    rackless_broker["cluster"]["brokers"]["3"] = None
    assert plan_from_scenario(rackless_broker).config["rack_aware_enabled"] is False
    no_changelog = copy.deepcopy(doc)
    del no_changelog["cluster"]["topics"]["cl"]
    assert plan_from_scenario(no_changelog).config["rack_aware_enabled"] is False
    no_changelog["group"]["config"]["num_standby_replicas"] = (
        0  # changelogs only matter for standbys
    )
    assert plan_from_scenario(no_changelog).config["rack_aware_enabled"] is True


def test_min_traffic_puts_tasks_in_their_rack() -> None:
    # round robin puts the az2 partitions (0, 2) on a@az1 and the az1 ones on b@az2
    doc = _doc(config={"rack_aware_assignment_strategy": "min_traffic"})
    doc["cluster"]["topics"]["in"] = [[2], [1], [2], [1]]
    plan = plan_from_scenario(doc)
    assert plan.members[0].active_tasks == ["0_1", "0_3"]
    assert plan.summary.cross_rack_partitions == 0 == plan.summary.lower_bound
    rows = {r["strategy"]: r for r in compare_scenario(doc)}
    assert rows["none"]["cross_rack_partitions"] == 4 and rows["none"]["lower_bound"] == 0
    assert rows["balance_subtopology"]["cross_rack_partitions"] == 0


@pytest.mark.parametrize("case", range(8))
def test_same_plan_for_shuffled_input(case: int) -> None:
    seed = SEED + case
    print(f"seed={seed}")
    rng = random.Random(seed)
    doc = generate(
        seed,
        tasks=rng.randint(4, 30),
        clients=rng.randint(1, 7),
        standbys=rng.randint(0, 2),
        strategy=rng.choice(["none", "min_traffic", "balance_subtopology"]),
        subtopologies=rng.randint(1, 3),
        lagged=True,
        tags=case % 2 == 0,
    )
    shuffled = copy.deepcopy(doc)
    rng.shuffle(shuffled["group"]["clients"])
    rng.shuffle(shuffled["group"]["topology"]["subtopologies"])
    topics = list(shuffled["cluster"]["topics"].items())
    rng.shuffle(topics)
    shuffled["cluster"]["topics"] = dict(topics)
    for c in shuffled["group"]["clients"]:
        items = list(c.get("task_lags", {}).items())
        rng.shuffle(items)
        c["task_lags"] = dict(items)
    assert (
        plan_from_scenario(doc).without_timestamp()
        == plan_from_scenario(shuffled).without_timestamp()
    )


def test_offset_sums_with_end_offsets() -> None:
    doc = _doc(end_offsets={"cl": [500, 500, 500, 500]}, config={"acceptable_recovery_lag": 100})
    doc["group"]["clients"][0]["task_offset_sums"] = {"0_0": -2, "0_1": 450, "0_2": 900}
    inputs = parse_inputs(doc)
    lags = inputs.clients[0].lags
    assert lags[TaskId(0, 0)] == -2 and lags[TaskId(0, 1)] == 50
    assert lags[TaskId(0, 2)] == 500 and lags[TaskId(0, 3)] == 500  # corrupt / unreported


@pytest.mark.parametrize(
    ("subs", "parts", "expected"),
    [
        # Printed by java.util.HashMap (JDK 17, kafka-streams 4.3.1 TaskId): every task put in
        # sorted order via Collectors.toMap, then the tasks with partition % 3 == 1 removed.
        (3, 10, "0_8 1_8 0_6 2_8 1_6 2_6 0_2 1_2 0_0 2_2 1_0 2_0 0_9 1_9 2_9 0_5 1_5 0_3 2_5 1_3 2_3"),
        (1, 13, "0_12 0_11 0_9 0_8 0_6 0_5 0_3 0_2 0_0"),  # 13 > 12 entries: table of 32
        (2, 4, "1_0 0_3 0_2 1_3 1_2 0_0"),
    ],
)
def test_pending_tag_aware_standbys_follow_java_hashmap_order(
    subs: int, parts: int, expected: str
) -> None:
    """Kafka places pending tag-aware standbys walking a HashMap keyed by TaskId."""
    tasks = [TaskId(s, p) for s in range(subs) for p in range(parts)]
    kept = [t for t in tasks if t.partition % 3 != 1]
    assert [str(t) for t in java_hash_order(tasks, kept)] == expected.split()
    assert java_task_hash(TaskId(0, 0)) == 29791  # Objects.hash(0, 0, null)


def test_movement_queue_breaks_ties_like_java_priority_queue() -> None:
    """Kafka's movement queue compares (caught-up count, task) only; equal entries leave in
    java.util.PriorityQueue's order (printed by JDK 17 for these adds, index = insertion)."""
    adds = "2,0 1,0 0,3 1,0 1,2 1,3 1,0 1,3 0,3 1,0 0,3 2,3 1,2 2,3 2,0"
    java = "2 8 10 3 9 1 6 4 12 7 5 0 14 11 13"
    queue = JavaPriorityQueue()
    for index, pair in enumerate(adds.split()):
        count, partition = map(int, pair.split(","))
        queue.add((count, TaskId(0, partition)), str(index))
    polled = []
    while queue:
        polled.append(queue.poll()[1])
    assert polled == java.split()
