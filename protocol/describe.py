"""Decoded messages as JSON-ready dicts: the keys of docs/architecture.md § Command line (``rackwise
decode``).

A subscription gives ``version, topics, user_data (base64 or null), owned_partitions
[{topic, partitions}], generation_id, rack_id`` and ``streams`` when the user data is Kafka
Streams' SubscriptionInfo. An assignment gives ``version, assigned_partitions, user_data`` and
``streams`` when the user data is AssignmentInfo.

Streams user data is recognised only if it parses *completely* (no byte left over) as a known
SubscriptionInfo/AssignmentInfo version; anything else (range's null, cooperative-sticky's
int32, sticky's previous assignment, an app's own bytes) is left undecoded, never an error.
Pass ``streams=True`` (e.g. from the ``rackwise-kind: streams`` header) to require it, or
``streams=False`` to skip it.
"""

from __future__ import annotations

import base64
from typing import Any

from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
)
from protocol.errors import ProtocolError
from protocol.streams import LATEST_SUPPORTED_VERSION, SubscriptionInfo, decode_subscription_info
from protocol.streams_assignment import AssignmentInfo, decode_assignment_info


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _partitions(entries: list[TopicPartitions]) -> list[dict[str, Any]]:
    return [{"topic": e.topic, "partitions": list(e.partitions)} for e in entries]


def _plausible_streams_version(data: bytes | None) -> bool:
    return (data is not None and len(data) >= 4
            and 1 <= int.from_bytes(data[:4], "big", signed=True) <= LATEST_SUPPORTED_VERSION)


def streams_subscription_info(user_data: bytes | None,
                              streams: bool | None = None) -> SubscriptionInfo | None:
    """The SubscriptionInfo in ``user_data``, or None if it is not one (see module doc)."""
    if streams is False:
        return None
    if streams is True:
        if user_data is None:
            raise ProtocolError("streams member without user data")
        return decode_subscription_info(user_data)
    if not _plausible_streams_version(user_data):
        return None
    assert user_data is not None
    try:
        return decode_subscription_info(user_data, exact=True)
    except ProtocolError:
        return None


def streams_assignment_info(user_data: bytes | None,
                            streams: bool | None = None) -> AssignmentInfo | None:
    """The AssignmentInfo in ``user_data``, or None if it is not one (see module doc)."""
    if streams is False:
        return None
    if streams is True:
        if user_data is None:
            raise ProtocolError("streams assignment without user data")
        return decode_assignment_info(user_data)
    if not _plausible_streams_version(user_data):
        return None
    assert user_data is not None
    try:
        return decode_assignment_info(user_data, exact=True)
    except ProtocolError:
        return None


def subscription_info_dict(info: SubscriptionInfo) -> dict[str, Any]:
    if info.is_future_version:
        return {"version": info.version,
                "latest_supported_version": info.latest_supported_version,
                "future_version": True}
    return {
        "version": info.version,
        "latest_supported_version": info.latest_supported_version,
        "process_id": str(info.process_id),
        "user_end_point": info.endpoint,
        "active_tasks": [str(t) for t in info.active_tasks()],
        "standby_tasks": [str(t) for t in info.standby_task_ids()],
        "task_offset_sums": {str(t): s for t, s in sorted(info.offset_sums().items(),
                                                         key=lambda kv: kv[0].sort_key())},
        "unique_field": info.unique_field,
        "error_code": info.error_code,
        "client_tags": info.tags(),
    }


def assignment_info_dict(info: AssignmentInfo) -> dict[str, Any]:
    def hosts(m: dict[tuple[str, int], list[tuple[str, int]]]) -> list[dict[str, Any]]:
        return [{"host": h, "port": port,
                 "partitions": [{"topic": t, "partition": p} for t, p in ps]}
                for (h, port), ps in m.items()]

    return {
        "version": info.version,
        "commonly_supported_version": info.commonly_supported_version,
        "active_tasks": [str(t.task()) for t in info.active_tasks],
        "standby_tasks": {str(t): [{"topic": tp, "partition": p} for tp, p in ps]
                          for t, ps in info.standby_task_map().items()},
        "partitions_by_host": hosts(info.partitions_by_host_map()),
        "standby_partitions_by_host": hosts(info.standby_partitions_by_host_map()),
        "error_code": info.error_code,
        "next_rebalance_ms": info.next_rebalance_ms,
    }


def subscription_dict(sub: Subscription, streams: bool | None = None) -> dict[str, Any]:
    """docs/architecture.md § Command line keys for a decoded subscription."""
    out: dict[str, Any] = {
        "version": sub.version,
        "topics": list(sub.topics),
        "user_data": _b64(sub.user_data),
        "owned_partitions": _partitions(sub.owned_partitions),
        "generation_id": sub.generation_id,
        "rack_id": sub.rack_id,
    }
    info = streams_subscription_info(sub.user_data, streams)
    if info is not None:
        out["streams"] = subscription_info_dict(info)
    return out


def assignment_dict(asg: Assignment, streams: bool | None = None) -> dict[str, Any]:
    """The same keys for a decoded assignment (``assigned_partitions`` for the partitions)."""
    out: dict[str, Any] = {
        "version": asg.version,
        "assigned_partitions": _partitions(asg.assigned_partitions),
        "user_data": _b64(asg.user_data),
    }
    info = streams_assignment_info(asg.user_data, streams)
    if info is not None:
        out["streams"] = assignment_info_dict(info)
    return out


def describe_subscription(data: bytes, streams: bool | None = None) -> dict[str, Any]:
    """Bytes to the docs/architecture.md § Command line dict; ProtocolError for malformed input."""
    return subscription_dict(decode_subscription(data), streams)


def describe_assignment(data: bytes, streams: bool | None = None) -> dict[str, Any]:
    return assignment_dict(decode_assignment(data), streams)
