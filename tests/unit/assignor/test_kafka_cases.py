"""Hand-checked cases taken from Kafka's own tests (RangeAssignorTest, StickyAssignorTest,
AbstractPartitionAssignorTest) and bad input handled as Kafka does or with an AssignorError."""

from __future__ import annotations

import base64

import pytest

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.javaorder import hashmap_order, java_string_hash
from assignor.model import Group, Member
from assignor.range import assign_range, use_rack_aware
from assignor.registry import plan_group
from assignor.scenario import load_group, plan_from_scenario
from assignor.sticky import assign_cooperative_sticky

pytestmark = pytest.mark.unit


def tp(t: str, p: int) -> TopicPartition:
    return TopicPartition(t, p)


def view(topics: dict[str, int], racks: tuple[str, ...] = ()) -> ClusterView:
    brokers = {str(i + 1): r for i, r in enumerate(racks)} or {"1": None}
    n = max(1, len(racks))
    return ClusterView.from_dict(
        {
            "brokers": brokers,
            "topics": {t: [[p % n + 1] for p in range(c)] for t, c in topics.items()},
        }
    )


def test_java_string_hash_matches_known_values() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("consumer1") - (1 << 32) == -421004549
    assert hashmap_order(["consumer1", "consumer2", "consumer3"]) == [
        "consumer3",
        "consumer2",
        "consumer1",
    ]


def test_range_two_consumers_one_topic_three_partitions() -> None:
    g = Group(
        "g",
        (Member.of("consumer1", topics=["t"]), Member.of("consumer2", topics=["t"])),
        view({"t": 3}),
    )
    assert assign_range(g).assignment == {
        "consumer1": [tp("t", 0), tp("t", 1)],
        "consumer2": [tp("t", 2)],
    }


def test_range_multiple_consumers_mixed_topics() -> None:
    g = Group(
        "g",
        (
            Member.of("consumer1", topics=["topic1"]),
            Member.of("consumer2", topics=["topic1", "topic2"]),
            Member.of("consumer3", topics=["topic1"]),
        ),
        view({"topic1": 3, "topic2": 2}),
    )
    assert assign_range(g).assignment == {
        "consumer1": [tp("topic1", 0)],
        "consumer2": [tp("topic1", 1), tp("topic2", 0), tp("topic2", 1)],
        "consumer3": [tp("topic1", 2)],
    }


def test_range_static_members_sort_first() -> None:
    g = Group(
        "g",
        (Member.of("a", topics=["t"]), Member.of("z", topics=["t"], instance_id="i1")),
        view({"t": 3}),
    )
    assert assign_range(g).assignment["z"] == [tp("t", 0), tp("t", 1)]


def test_range_rack_aware_gives_local_partitions() -> None:
    # every partition has one replica, racks a, b, c in turn: each member gets its own rack's
    g = Group(
        "g",
        tuple(Member.of(f"c{r}", rack=r, topics=["t"]) for r in "abc"),
        view({"t": 6}, ("a", "b", "c")),
    )
    out = assign_range(g).assignment
    assert out == {
        "ca": [tp("t", 0), tp("t", 3)],
        "cb": [tp("t", 1), tp("t", 4)],
        "cc": [tp("t", 2), tp("t", 5)],
    }


def test_use_rack_aware_criteria() -> None:
    one_each = [frozenset({r}) for r in "abcabcabca"]
    assert use_rack_aware({"a", "d"}, {"a", "b", "c"}, one_each)
    assert not use_rack_aware({"a", "b", "c"}, {"a", "b", "c"}, [frozenset("abc")] * 10)
    assert not use_rack_aware(set(), {"a"}, one_each)
    assert not use_rack_aware({"d"}, {"a", "b", "c"}, one_each)


def test_sticky_max_quota_member_follows_java_hashmap_order() -> None:
    # StickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers
    owned = {
        "consumer1": {"topic1": [0], "topic2": [0]},
        "consumer2": {"topic1": [1], "topic2": [1]},
    }
    members = tuple(
        Member.of(c, topics=["topic1", "topic2"], owned=owned.get(c, {}), generation=1)
        for c in ("consumer1", "consumer2", "consumer3")
    )
    res = assign_cooperative_sticky(Group("g", members, view({"topic1": 2, "topic2": 2})))
    assert res.target() == {
        "consumer1": [tp("topic1", 0)],
        "consumer2": [tp("topic1", 1), tp("topic2", 1)],
        "consumer3": [tp("topic2", 0)],
    }
    assert [(w.partition, w.owner, w.target) for w in res.withheld] == [
        (tp("topic2", 0), "consumer1", "consumer3")
    ]


def test_sticky_same_generation_duplicates_are_revoked_higher_generation_wins() -> None:
    members = (
        Member.of("a", topics=["t"], owned={"t": [0, 1]}, generation=5),
        Member.of("b", topics=["t"], owned={"t": [1, 2]}, generation=5),
        Member.of("c", topics=["t"], owned={"t": [2, 3]}, generation=4),
    )
    res = assign_cooperative_sticky(Group("g", members, view({"t": 4})))
    target = res.target()
    assert tp("t", 0) in target["a"] and tp("t", 2) in target["b"] and tp("t", 3) in target["c"]
    # t-1 was claimed twice in generation 5: nobody keeps it, it is handed over in two rounds
    assert tp("t", 1) in {w.partition for w in res.withheld}


def _doc(
    members: list[dict[str, object]], brokers: dict[str, object] | None = None
) -> dict[str, object]:
    return {
        "cluster": {
            "brokers": brokers or {"1": "az1", "2": "az2"},
            "topics": {"t": [[1], [2], [1, 2], [2]]},
        },
        "group": {"id": "g", "members": members},
    }


@pytest.mark.parametrize("assignor", ["range", "sticky", "cooperative-sticky", "rack-optimal"])
def test_bad_input_handled_like_kafka(assignor: str) -> None:
    doc = _doc(
        [
            {"id": "ghost", "rack": "az1", "topics": ["missing"]},  # unknown topic: skipped
            {"id": "idle", "rack": "az2", "topics": []},  # subscribed to nothing
            {
                "id": "norack",
                "topics": ["t"],
                "owned": {"t": [0, 0, 9]},
                "generation": 1,
            },  # dup + beyond count
            {"id": "x", "rack": "az1", "topics": ["t"], "owned": {"t": [0]}, "generation": 1},
        ],
        brokers={"1": None, "2": "az2"},  # broker 1 has no rack: partition 0 has no known rack
    )
    plan = plan_from_scenario(doc, assignor=assignor)
    assigned = [(p.topic, p.partition) for m in plan.members for p in m.partitions]
    assigned += [(w.topic, w.partition) for w in plan.withheld]
    assert sorted(assigned) == [("t", 0), ("t", 1), ("t", 2), ("t", 3)]
    by_id = {m.member_id: m for m in plan.members}
    assert by_id["ghost"].partitions == [] and by_id["idle"].partitions == []
    assert plan.summary.partitions == 4


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({}, "a scenario is"),
        ({"cluster": {"brokers": [], "topics": {}}, "group": {"members": []}}, "cluster"),
        (_doc([{"id": "a", "topics": ["t"]}, {"id": "a", "topics": ["t"]}]), "unique"),
        (_doc([{"topics": ["t"]}]), "malformed"),
        (_doc([{"id": "a", "topics": ["t"], "owned": {"t": [-1]}}]), ">= 0"),
        (_doc([{"id": "a", "subscription_b64": "%%%"}]), "base64"),
        (_doc([{"id": "a", "subscription_b64": "AAM="}]), "a"),
    ],
)
def test_bad_scenarios_raise_assignor_error(doc: dict[str, object], message: str) -> None:
    with pytest.raises(AssignorError, match=message):
        plan_from_scenario(doc)  # type: ignore[arg-type]


def test_unknown_assignor_is_an_error() -> None:
    with pytest.raises(AssignorError, match="unknown assignor"):
        plan_group(load_group(_doc([{"id": "a", "topics": ["t"]}])), "roundrobin")


def test_subscription_bytes_are_decoded() -> None:
    # v3: topics ["t"], null user data, owned t:[0,1], generation 5, rack "az1" (reference §1.6)
    raw = bytes.fromhex(
        "0003 00000001 00027431 ffffffff 00000001 00027431 00000002"
        " 00000000 00000001 00000005 0003617a31".replace(" ", "")
    )
    doc = _doc([{"id": "a", "subscription_b64": base64.b64encode(raw).decode()}])
    group = load_group(doc)
    m = group.members[0]
    assert (m.rack, m.topics, m.generation) == ("az1", ("t1",), 5)
    assert m.owned == (tp("t1", 0), tp("t1", 1))
