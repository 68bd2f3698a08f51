"""Reading groups from the cluster: the one step of the audit that talks to Kafka.

One AdminClient ``list_consumer_groups`` gives each group's type; one ``list_groups`` sweep
(DescribeGroups) gives every classic group's members with their metadata and assignment bytes.
"""

from __future__ import annotations

import fnmatch
import warnings
from dataclasses import dataclass
from typing import Any

from protocol.errors import RackwiseError


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


def _type_name(raw: Any) -> str:
    name = getattr(raw, "name", None) or str(raw or "unknown")
    return name.rsplit(".", 1)[-1].lower()


def read_groups(admin: Any, pattern: str = "*", timeout: float = 15.0) -> list[RawGroup]:
    """Every group whose id matches ``pattern`` (fnmatch), sorted by id.

    One ``list_consumer_groups`` gives each group's type; one ``list_groups`` sweep
    (ListGroups + DescribeGroups on every broker) gives every classic group with its members'
    bytes, including protocol types ListConsumerGroups may leave out (e.g. ``connect``).
    Groups of another type (KIP-848 ``consumer``, ``share``, ``streams``) come back with that
    type and no members: DescribeGroups cannot describe them.
    """
    try:
        listing = admin.list_consumer_groups(request_timeout=timeout).result(timeout + 5)
    except Exception as exc:  # KafkaException or a bare KafkaError
        raise AuditError(f"cannot list groups: {exc}") from None
    types = {g.group_id: _type_name(g.type) for g in listing.valid}
    try:
        with warnings.catch_warnings():  # deprecated, but the one API with member bytes
            warnings.simplefilter("ignore", DeprecationWarning)
            described = {m.id: m for m in admin.list_groups(timeout=timeout) or []}
    except Exception as exc:
        raise AuditError(f"cannot describe groups: {exc}") from None
    names = sorted(g for g in set(types) | set(described) if fnmatch.fnmatchcase(g, pattern))
    out = []
    for gid in names:
        kind = types.get(gid, "classic")
        meta = described.get(gid)
        if kind not in ("classic", "unknown"):
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
