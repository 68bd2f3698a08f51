"""Read replica placement from a live cluster into an assignor.cluster.ClusterView.

``describe_cluster`` gives every broker's rack; ``describe_topics`` gives each partition's
replica brokers. A topic that does not exist (or that we may not describe) is reported
back, not raised, so one missing topic never hides the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from confluent_kafka import KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient

from assignor.cluster import ClusterView


@dataclass(frozen=True)
class ClusterSnapshot:
    """A ClusterView plus the topics that could not be described and why."""

    view: ClusterView
    missing: dict[str, str] = field(default_factory=dict)


def describe(admin: AdminClient, topics: Iterable[str], timeout: float = 15.0) -> ClusterSnapshot:
    """Brokers' racks and the replica brokers of every partition of ``topics``."""
    cluster = admin.describe_cluster(request_timeout=timeout).result(timeout + 5)
    brokers = {node.id: (node.rack or None) for node in cluster.nodes}
    names = sorted(set(topics))
    placement: dict[str, tuple[tuple[int, ...], ...]] = {}
    missing: dict[str, str] = {}
    if names:
        futures = admin.describe_topics(TopicCollection(names), request_timeout=timeout)
        for name in names:
            try:
                desc = futures[name].result(timeout + 5)
            except KafkaException as exc:
                missing[name] = exc.args[0].str() if exc.args else str(exc)
                continue
            parts = sorted(desc.partitions, key=lambda p: p.id)
            placement[name] = tuple(tuple(r.id for r in p.replicas) for p in parts)
            for p in parts:
                for replica in p.replicas:
                    # A replica on a broker that is down is still listed; keep its rack if
                    # describe_topics knows it even though describe_cluster does not.
                    if replica.id not in brokers and replica.rack:
                        brokers[replica.id] = replica.rack
    return ClusterSnapshot(ClusterView(brokers=brokers, topics=placement), missing)
