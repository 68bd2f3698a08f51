"""Read replica placement from a live cluster into an assignor.cluster.ClusterView.

``describe_cluster`` gives every broker's rack; ``describe_topics`` gives each partition's
replica brokers and its leader; ``describe_configs`` gives each broker's
``replica.selector.class``, which decides whether members with ``client.rack`` may fetch
from followers (KIP-392). A topic that does not exist (or that we may not describe) is
reported back, not raised, so one missing topic never hides the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from confluent_kafka import KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from assignor.inputs import ClusterView, TopicPartition

RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector"
SELECTOR_CONFIG = "replica.selector.class"


@dataclass(frozen=True)
class ClusterSnapshot:
    """A ClusterView plus the topics that could not be described and why."""

    view: ClusterView
    missing: dict[str, str] = field(default_factory=dict)
    selectors: dict[int, str | None] = field(default_factory=dict)
    addresses: dict[int, tuple[str, int]] = field(default_factory=dict)


def replica_selectors(admin: AdminClient, broker_ids: Iterable[int],
                      timeout: float = 15.0) -> dict[int, str | None]:
    """Each broker's ``replica.selector.class`` (None: not readable, e.g. not authorised)."""
    ids = sorted(set(broker_ids))
    if not ids:
        return {}
    # librdkafka takes one BROKER resource per call; the calls run concurrently
    resources = [ConfigResource(ResourceType.BROKER, str(b)) for b in ids]
    futures = [admin.describe_configs([r], request_timeout=timeout)[r] for r in resources]
    out: dict[int, str | None] = {}
    for broker, future in zip(ids, futures, strict=True):
        try:
            entries = future.result(timeout + 5)
        except KafkaException:
            out[broker] = None
            continue
        entry = entries.get(SELECTOR_CONFIG)
        out[broker] = (entry.value or "") if entry is not None else ""
    return out


def follower_fetching(selectors: dict[int, str | None]) -> bool:
    """True when every broker serves reads from followers to clients in their rack.

    A broker whose setting could not be read counts as not doing so: a member reading from
    the leader is the conservative assumption (it never makes traffic look local).
    """
    return bool(selectors) and all(
        (v or "").strip() == RACK_AWARE_SELECTOR for v in selectors.values()
    )


def describe(admin: AdminClient, topics: Iterable[str], timeout: float = 15.0,
             selectors: dict[int, str | None] | None = None,
             read_selectors: bool = False) -> ClusterSnapshot:
    """Brokers' racks, the replica brokers and leader of every partition of ``topics``.

    The view's ``follower_fetching`` comes from ``selectors`` (e.g. cached), or from the
    brokers themselves with ``read_selectors``; with neither it keeps KIP-925's assumption
    (True) and no extra request is made, as the daemon's rack polling expects.
    """
    cluster = admin.describe_cluster(request_timeout=timeout).result(timeout + 5)
    brokers = {node.id: (node.rack or None) for node in cluster.nodes}
    addresses = {node.id: (node.host, node.port) for node in cluster.nodes}
    if selectors is None and read_selectors:
        selectors = replica_selectors(admin, brokers, timeout)
    names = sorted(set(topics))
    placement: dict[str, tuple[tuple[int, ...], ...]] = {}
    leaders: dict[TopicPartition, int] = {}
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
                if p.leader is not None and p.leader.id >= 0:
                    leaders[TopicPartition(name, p.id)] = p.leader.id
                for replica in p.replicas:
                    # A replica on a broker that is down is still listed; keep its rack if
                    # describe_topics knows it even though describe_cluster does not.
                    if replica.id not in brokers and replica.rack:
                        brokers[replica.id] = replica.rack
    view = ClusterView(brokers=brokers, topics=placement, leaders=leaders,
                       follower_fetching=True if selectors is None else follower_fetching(selectors))
    return ClusterSnapshot(view, missing, dict(selectors or {}), addresses)
