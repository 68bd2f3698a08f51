"""What the compat cells share: the topic they read, the replica move, and the optimum check.

Every consumer-group cell reads one topic of six RF-1 partitions, two per rack (``BEFORE``);
its replica move sends every partition to the next rack (``AFTER``), so the old assignment
becomes all cross-rack and a group that re-plans settles on a new optimum. ``settled_optimal``
holds a group's own view of what it owns to ``assignor.optimal.lower_bound``.
"""

from __future__ import annotations

import time
from typing import Any

from agent.brokers.placement import describe
from assignor.cluster import TopicPartition
from assignor.model import Group, Member
from assignor.optimal import lower_bound
from assignor.summary import summarize
from tests.support.pluginclients import wait_until

RACKS = ("az1", "az2", "az3")
# RF 1, two partitions per rack; then every partition moves to the next rack.
BEFORE = [[1], [1], [2], [2], [3], [3]]
AFTER = [[3], [3], [1], [1], [2], [2]]


def admin_of(bootstrap: str) -> Any:
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})


def create(admin: Any, topic: str) -> None:
    from tests.support.kafkautil import create_topic

    create_topic(admin, topic, BEFORE)


def move(bootstrap: str, admin: Any, topic: str) -> None:
    from kafka.admin import KafkaAdminClient
    from kafka.structs import TopicPartition as KTP

    kadmin = KafkaAdminClient(bootstrap_servers=bootstrap.split(","))
    try:
        result = kadmin.alter_partition_reassignments({KTP(topic, p): r for p, r in enumerate(AFTER)})
        assert all(v is None for v in result.values()), result
    finally:
        kadmin.close()

    def moved() -> bool:
        from confluent_kafka import TopicCollection

        desc = admin.describe_topics(TopicCollection([topic]))[topic].result(10)
        return [[r.id for r in p.replicas] for p in sorted(desc.partitions, key=lambda p: p.id)] == AFTER
    wait_until(moved, 60, "the replicas move")


def cross_and_best(admin: Any, group: str, topic: str, clients: list[Any]) -> tuple[int, float]:
    view = describe(admin, [topic], read_selectors=True).view
    actual = {c.member_id: [TopicPartition(t, p) for t, p in sorted(c.assignment() or ())] for c in clients}
    racks = {c.member_id: c.rack for c in clients}
    members = tuple(Member.of(c.member_id, rack=c.rack, topics=[topic]) for c in clients)
    best = lower_bound(Group(group, members, view))
    return summarize(view, actual, racks, lower_bound=best).cross_rack_partitions, best


def settled_optimal(admin: Any, group: str, topic: str, clients: list[Any], timeout: float) -> str:
    """Wait until every partition is owned and the assignment is the optimum, held for 3 s."""
    last = ["nothing yet"]

    def optimal() -> bool:
        owned = sum(len(c.assignment() or ()) for c in clients)
        if owned != len(BEFORE) or not all(c.member_id for c in clients):
            last[0] = f"{owned} of {len(BEFORE)} partitions owned"
            return False
        cross, best = cross_and_best(admin, group, topic, clients)
        last[0] = f"cross-rack {cross}, optimum {best:.0f}"
        return cross == best
    start = time.monotonic()
    while True:
        try:
            wait_until(optimal, max(1.0, timeout - (time.monotonic() - start)), "optimal", step=0.5)
        except AssertionError as e:
            raise AssertionError(f"within {timeout:.0f}s the group did not settle on the optimum: "
                                 f"{last[0]}") from e
        time.sleep(3)
        if optimal():
            return last[0]


def replanned_after_move(bootstrap: str, admin: Any, group: str, topic: str,
                         clients: list[Any]) -> tuple[str, float]:
    """Move every partition's replica to another rack, then wait for the group to settle on
    the new optimum: what it settled on, and how long that took after the move, in seconds."""
    moved_at = time.monotonic()
    move(bootstrap, admin, topic)
    replanned = settled_optimal(admin, group, topic, clients, 150)
    return replanned, time.monotonic() - moved_at
