"""What it costs a member to read a partition: where it reads from, and how much crosses racks.

One rule for every figure rackwise reports (plans, audit, metrics) and for the rack-optimal
solver, so they cannot disagree. A member's :class:`Place` says where its host is
(``location``) and whether it may read from followers (KIP-392: it sets ``client.rack`` and
the brokers use RackAwareReplicaSelector). Then for one partition:

* location known, reads followers: cross-rack when no replica is in its rack (KIP-925);
* location known, reads the leader (no rack-aware selector, or placed by the audit's host
  map without ``client.rack``): cross-rack when the leader is in another rack;
* location unknown (no ``client.rack``, no host map): it reads the leader from a host
  somewhere. Expected cross-rack fraction (R-1)/R, assuming hosts spread evenly over the
  cluster's R racks; worst case 1. Such a member is never free.

A replica or leader whose rack is unknown never counts as cross-rack.

Example: 3 racks, a partition led from az1, a member without a rack::

    fractions(("az1",), "az1", Place(None, False), ("az1", "az2", "az3"))   # (0.666..., 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assignor.cluster import ClusterView, TopicPartition

CLIENT_RACK = "client.rack"
HOST_MAP = "host-map"


@dataclass(frozen=True, order=True)
class Place:
    """Where a member reads from: its host's rack (None: unknown) and whether it may read
    from followers. ``source`` says how the location is known."""

    location: str | None
    reads_followers: bool
    source: str | None = None


def place_of(view: ClusterView, rack: str | None, location: str | None = None) -> Place:
    """A member's place from its ``client.rack`` and, failing that, a host-map location."""
    if rack:
        return Place(rack, view.reads_followers(rack), CLIENT_RACK)
    if location:
        return Place(location, False, HOST_MAP)
    return Place(None, False, None)


def fractions(replica_racks: tuple[str, ...], leader_rack: str | None, place: Place,
              cluster_racks: tuple[str, ...]) -> tuple[float, float]:
    """(expected, worst-case) share of the partition's bytes that cross racks."""
    if place.location is not None:
        if place.reads_followers:
            cross = bool(replica_racks) and place.location not in replica_racks
        else:
            cross = leader_rack is not None and leader_rack != place.location
        share = 1.0 if cross else 0.0
        return share, share
    if leader_rack is None or not cluster_racks:
        return 0.0, 0.0
    n = len(cluster_racks)
    if leader_rack not in cluster_racks:
        return 1.0, 1.0
    return (n - 1) / n, (1.0 if n > 1 else 0.0)


def partition_fractions(view: ClusterView, tp: TopicPartition, place: Place) -> tuple[float, float]:
    return fractions(view.racks(tp.topic, tp.partition), view.leader_rack(tp.topic, tp.partition),
                     place, view.all_racks())


def source_rack(view: ClusterView, tp: TopicPartition, place: Place) -> str | None:
    """The rack the member's fetches are served from (RackAwareReplicaSelector: a replica
    in the client's rack if any, else the leader)."""
    if place.reads_followers and place.location in view.racks(tp.topic, tp.partition):
        return place.location
    return view.leader_rack(tp.topic, tp.partition)


@dataclass(frozen=True)
class GroupCost:
    """Figures of one assignment: partition counts, weighted cost and measured bytes/s."""

    cross_rack_partitions: int = 0  # known cross-rack (members whose location is known)
    traffic_cost: float = 0.0  # summed weight x expected cross-rack share
    bytes_per_s: float | None = None  # None: nothing measured
    cross_rack_bytes_per_s: float | None = None  # expected
    cross_rack_bytes_per_s_worst: float | None = None
    rack_unknown_members: int = 0


def group_cost(view: ClusterView, assignment: Mapping[str, Iterable[TopicPartition]],
               places: Mapping[str, Place]) -> GroupCost:
    """Every figure of an assignment, members placed by ``places``."""
    count = 0
    cost = 0.0
    total = cross = worst = 0.0
    measured = False
    unknown = 0
    for member in sorted(assignment):
        place = places[member]
        if place.location is None:
            unknown += 1
        for tp in assignment[member]:
            expected, worst_share = partition_fractions(view, tp, place)
            if place.location is not None and expected == 1.0:
                count += 1
            cost += view.weight(tp) * expected
            rate = view.traffic(tp)
            if rate is not None:
                measured = True
                total += rate
                cross += rate * expected
                worst += rate * worst_share
    return GroupCost(
        cross_rack_partitions=count,
        traffic_cost=round(cost, 9),
        bytes_per_s=round(total, 3) if measured else None,
        cross_rack_bytes_per_s=round(cross, 3) if measured else None,
        cross_rack_bytes_per_s_worst=round(worst, 3) if measured else None,
        rack_unknown_members=unknown,
    )
