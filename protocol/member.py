"""One decode guard for a member's JoinGroup metadata, wherever it comes from.

The agent (subscriptions published by members), the audit (DescribeGroups) and the request
service all read the same bytes: a ``ConsumerProtocolSubscription`` v0-v3 and, for a Kafka
Streams member, the ``SubscriptionInfo`` in its user data. Decoding them here, once, means
one set of checks and one wording of what is wrong.

Example::

    sub, info = decode_member_metadata(raw, streams=True)   # ProtocolError if malformed
"""

from __future__ import annotations

from protocol.consumer import Subscription, decode_subscription
from protocol.errors import ProtocolError
from protocol.streams import SubscriptionInfo, decode_subscription_info


def decode_member_metadata(
    data: bytes, *, streams: bool = False
) -> tuple[Subscription, SubscriptionInfo | None]:
    """The subscription and, for a Streams member, its SubscriptionInfo."""
    sub = decode_subscription(data)
    if any(p < 0 for tp in sub.owned_partitions for p in tp.partitions):
        raise ProtocolError("owned partitions: a partition number is negative")
    if not streams:
        return sub, None
    if not sub.user_data:
        raise ProtocolError("a Streams member's subscription has no SubscriptionInfo user data")
    try:
        return sub, decode_subscription_info(sub.user_data)
    except ProtocolError as exc:
        raise ProtocolError(f"Streams user data: {exc}") from None
