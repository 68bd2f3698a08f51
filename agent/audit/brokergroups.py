"""Describing Kafka 4.x broker-side groups: KIP-848 ``consumer`` and KIP-1071 ``streams``.

confluent-kafka 2.16's ``describe_consumer_groups`` leaves out each member's rack and
subscribed topics and cannot describe streams groups, so the audit asks the group
coordinators itself (agent.brokers.rpc): one FindCoordinator for every group, then one
ConsumerGroupDescribe / StreamsGroupDescribe per coordinator with all of its groups.
A coordinator that moved or is still loading is asked again a few times; a group that
still cannot be described comes back as a one-line reason, never an exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from agent.brokers.rpc import WireClient, WireError
from protocol import kafkarpc as rpc
from protocol.groupdescribe import (
    CONSUMER_GROUP_DESCRIBE_RESPONSE,
    DESCRIBE_GROUPS_REQUEST,
    LIST_GROUPS_REQUEST,
    LIST_GROUPS_RESPONSE,
    STREAMS_GROUP_DESCRIBE_REQUEST,
    STREAMS_GROUP_DESCRIBE_RESPONSE,
    DescribedConsumerGroup,
    DescribedStreamsGroup,
    DescribeGroupsRequest,
    ListGroupsRequest,
    StreamsGroupDescribeRequest,
)
from protocol.schema import StructType

Described = DescribedConsumerGroup | DescribedStreamsGroup
# kind -> API key, name, request layout and body, response layout. StreamsGroupDescribe v1
# (Kafka 4.4) has a request field of its own; v0 writes the same bytes as ConsumerGroupDescribe.
_APIS: dict[str, tuple[int, str, StructType[Any], Callable[[list[str]], Any], StructType[Any]]] = {
    "consumer": (rpc.CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe", DESCRIBE_GROUPS_REQUEST,
                 DescribeGroupsRequest, CONSUMER_GROUP_DESCRIBE_RESPONSE),
    "streams": (rpc.STREAMS_GROUP_DESCRIBE, "StreamsGroupDescribe", STREAMS_GROUP_DESCRIBE_REQUEST,
                StreamsGroupDescribeRequest, STREAMS_GROUP_DESCRIBE_RESPONSE),
}


def describe_groups(client: WireClient, kind: str, group_ids: Iterable[str],
                    attempts: int = 4, backoff_s: float = 0.5) -> dict[str, Described | str]:
    """Every group of one kind (``consumer`` or ``streams``): its description, or why not."""
    api_key, name, request, body, response = _APIS[kind]
    pending = sorted(set(group_ids))
    out: dict[str, Described | str] = {}
    for attempt in range(attempts):
        if not pending:
            break
        if attempt:
            time.sleep(backoff_s * attempt)
        retry: list[str] = []
        try:
            coordinators = client.find_coordinators(pending)
        except WireError as exc:
            out.update(dict.fromkeys(pending, str(exc)))
            retry = list(pending)
            pending = retry
            continue
        by_address: dict[tuple[str, int], list[str]] = {}
        for gid in pending:
            found = coordinators[gid]
            if isinstance(found, str):
                out[gid] = found
                retry.append(gid)  # COORDINATOR_NOT_AVAILABLE while __consumer_offsets loads
            else:
                by_address.setdefault(found, []).append(gid)
        for address, ids in sorted(by_address.items()):
            try:
                _, resp = client.connection(*address).request(
                    api_key, name, request, body(ids), response)
            except WireError as exc:
                out.update(dict.fromkeys(ids, str(exc)))
                continue  # unsupported API or a broker that is gone: not worth retrying
            answered = set()
            for group in resp.groups:
                answered.add(group.group_id)
                if group.error_code in rpc.RETRIABLE_COORDINATOR:
                    out[group.group_id] = f"{name}: {rpc.error_name(group.error_code)}"
                    retry.append(group.group_id)
                elif group.error_code:
                    out[group.group_id] = (
                        f"{name}: {group.error_message or rpc.error_name(group.error_code)}")
                else:
                    out[group.group_id] = group
            for gid in ids:
                if gid not in answered:
                    out[gid] = f"{name}: the coordinator did not answer for this group"
        pending = sorted(set(retry))
    return out


def list_group_types(client: WireClient, brokers: Iterable[tuple[str, int]]) -> dict[str, str]:
    """Group id -> type (classic, consumer, streams, share) from ListGroups v5 on every broker.

    Each broker lists the groups it coordinates, so all are asked; one that cannot answer is
    skipped (its groups keep the type confluent-kafka's listing gave, if any).
    """
    out: dict[str, str] = {}
    for address in sorted(set(brokers)):
        try:
            _, resp = client.connection(*address).request(
                rpc.LIST_GROUPS, "ListGroups", LIST_GROUPS_REQUEST, ListGroupsRequest(),
                LIST_GROUPS_RESPONSE)
        except WireError:
            continue
        for g in resp.groups:
            out[g.group_id] = (g.group_type or "classic").lower()
    return out
