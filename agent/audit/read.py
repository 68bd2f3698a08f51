"""Reading groups from the cluster: the one step of the audit that talks to Kafka.

One AdminClient ``list_consumer_groups`` gives each group's type; one ``list_groups`` sweep
(DescribeGroups) gives every classic group's members with their metadata and assignment bytes.
Kafka 4.x broker-side groups (KIP-848 ``consumer``, KIP-1071 ``streams``) are described by
their coordinators with ConsumerGroupDescribe / StreamsGroupDescribe (agent.audit.brokergroups).
"""

from __future__ import annotations

import fnmatch
import warnings
from dataclasses import dataclass
from typing import Any

from agent.audit.brokergroups import Described, describe_groups, list_group_types
from agent.brokers.rpc import WireClient
from protocol.consumer import decode_assignment, decode_subscription
from protocol.errors import ProtocolError, RackwiseError

BROKER_SIDE = ("consumer", "streams")  # group types described by agent.audit.brokergroups


class AuditError(RackwiseError):
    """The cluster could not be read at all (no group listing): check --bootstrap."""


@dataclass(frozen=True)
class RawMember:
    """One member as DescribeGroups returns it."""

    member_id: str
    client_id: str = ""
    client_host: str = ""
    metadata: bytes | None = None
    assignment: bytes | None = None


@dataclass(frozen=True)
class RawGroup:
    """One group as listed and (for classic groups) described by the broker."""

    group_id: str
    group_type: str = "classic"  # classic | consumer | share | streams | unknown
    state: str = ""
    protocol_type: str = ""
    protocol: str = ""
    members: tuple[RawMember, ...] = ()
    error: str | None = None
    described: Described | None = None  # consumer / streams groups: what the coordinator said


def _type_name(raw: Any) -> str:
    name = getattr(raw, "name", None) or str(raw or "unknown")
    return name.rsplit(".", 1)[-1].lower()


def read_groups(admin: Any, pattern: str = "*", timeout: float = 15.0,
                wire: WireClient | str | None = None) -> list[RawGroup]:
    """Every group whose id matches ``pattern`` (fnmatch), sorted by id.

    One ``list_consumer_groups`` gives each group's type; one ``list_groups`` sweep
    (ListGroups + DescribeGroups on every broker) gives every classic group with its members'
    bytes, including protocol types ListConsumerGroups may leave out (e.g. ``connect``).
    KIP-848 ``consumer`` and KIP-1071 ``streams`` groups are described through ``wire`` (a
    string instead says why it could not be made; they then carry that error). Other types
    (``share``) come back with their type and no members.
    """
    try:
        listing = admin.list_consumer_groups(request_timeout=timeout).result(timeout + 5)
    except Exception as exc:  # KafkaException or a bare KafkaError
        raise AuditError(f"cannot list groups: {exc}") from None
    types = {g.group_id: _type_name(g.type) for g in listing.valid}
    if isinstance(wire, WireClient):
        # confluent-kafka's listing knows no streams groups: ask every broker with ListGroups v5
        try:
            nodes = admin.describe_cluster(request_timeout=timeout).result(timeout + 5).nodes
            types.update(list_group_types(wire, [(n.host, n.port) for n in nodes]))
        except Exception:  # noqa: BLE001 - the classic listing above still stands
            pass
    try:
        with warnings.catch_warnings():  # deprecated, but the one API with member bytes
            warnings.simplefilter("ignore", DeprecationWarning)
            described = {m.id: m for m in admin.list_groups(timeout=timeout) or []}
    except Exception as exc:
        raise AuditError(f"cannot describe groups: {exc}") from None
    names = sorted(g for g in set(types) | set(described) if fnmatch.fnmatchcase(g, pattern))
    broker_side = _describe_broker_side(wire, {g: types[g] for g in names if types.get(g)
                                               in BROKER_SIDE})
    out = []
    for gid in names:
        kind = types.get(gid, "classic")
        meta = described.get(gid)
        if kind in BROKER_SIDE:
            found = broker_side.get(gid, "not described")
            if isinstance(found, str):
                out.append(RawGroup(gid, group_type=kind, error=found))
            else:
                out.append(RawGroup(gid, group_type=kind, state=found.group_state,
                                    protocol_type=kind, described=found))
        elif kind not in ("classic", "unknown"):
            out.append(RawGroup(gid, group_type=kind))
        elif meta is None:
            out.append(RawGroup(gid, group_type=kind, state="Dead"))
        else:
            out.append(RawGroup(
                gid,
                group_type=kind,
                state=str(meta.state or ""),
                protocol_type=str(meta.protocol_type or ""),
                protocol=str(meta.protocol or ""),
                members=tuple(
                    RawMember(
                        str(m.id),
                        str(m.client_id or ""),
                        str(m.client_host or ""),
                        bytes(m.metadata) if m.metadata else None,
                        bytes(m.assignment) if m.assignment else None,
                    )
                    for m in meta.members
                ),
                error=str(meta.error) if meta.error else None,
            ))
    return out


def _describe_broker_side(wire: WireClient | str | None,
                          kinds: dict[str, str]) -> dict[str, Described | str]:
    if not kinds:
        return {}
    if wire is None or isinstance(wire, str):
        reason = wire or "no client for ConsumerGroupDescribe / StreamsGroupDescribe"
        return dict.fromkeys(kinds, reason)
    out: dict[str, Described | str] = {}
    for kind in BROKER_SIDE:
        ids = sorted(g for g, k in kinds.items() if k == kind)
        if ids:
            out.update(describe_groups(wire, kind, ids))
    return out


def topics_read(raw: RawGroup) -> set[str]:
    """The topics a group subscribes to or was given, read cheaply (for traffic sampling)."""
    out: set[str] = set()
    desc = raw.described
    if desc is not None:
        for m in getattr(desc, "members", ()):
            out.update(getattr(m, "subscribed_topic_names", ()))
            out.update(t.topic_name for t in getattr(getattr(m, "assignment", None),
                                                      "topic_partitions", ()))
        topology = getattr(desc, "topology", None)
        for sub in (topology.subtopologies or []) if topology is not None else []:
            out.update(sub.source_topics)
            out.update(t.name for t in sub.repartition_source_topics)
        return out
    if raw.protocol_type != "consumer":
        return out
    for m in raw.members:
        try:
            out.update(decode_subscription(m.metadata or b"").topics)
            out.update(e.topic for e in decode_assignment(m.assignment or b"").assigned_partitions)
        except ProtocolError:
            continue  # reported as undecodable by audit_group
    return out
