"""Where a group's records live: keys and partitions of the subscriptions and plans topics.

Every record of one group must land in one partition of ``rackwise.subscriptions`` so one
agent owns the whole group; members therefore pick the partition from the *group id* (not
the whole key) with Kafka's murmur2, the hash Java's default partitioner uses. Plans go to
the same partition number of ``rackwise.plans`` (both topics are created with the same
partition count), which lets an agent recover the last generation of exactly the groups it
now owns, and lets a member read one partition only.

Example::

    group_partition("orders-app", 6)   # the same number Java's producer would pick for that key
    parse_key(b"orders-app/c-1")        # ("orders-app", "c-1")
"""

from __future__ import annotations

KEY_SEPARATOR = "/"
KIND_HEADER = "rackwise-kind"
KINDS = ("consumer", "streams")


class BadKey(ValueError):
    """A subscriptions key that is not ``<group_id>/<member_id>`` in UTF-8."""


def murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2`` as an unsigned 32-bit value."""
    m = 0x5BD1E995
    length = len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(0, length - length % 4, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = length & ~3
    extra = length % 4
    if extra == 3:
        h ^= data[tail + 2] << 16
    if extra >= 2:
        h ^= data[tail + 1] << 8
    if extra >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def group_partition(group_id: str, partitions: int) -> int:
    """Java's ``toPositive(murmur2(key)) % partitions`` with the group id as the key."""
    return (murmur2(group_id.encode("utf-8")) & 0x7FFFFFFF) % partitions


def member_key(group_id: str, member_id: str) -> bytes:
    return f"{group_id}{KEY_SEPARATOR}{member_id}".encode()


def parse_key(key: bytes | None) -> tuple[str, str]:
    """(group id, member id); the group id may not contain '/', the member id may."""
    if not key:
        raise BadKey("missing key: expected <group_id>/<member_id>")
    try:
        text = key.decode("utf-8")
    except UnicodeDecodeError:
        raise BadKey("key is not UTF-8") from None
    group, sep, member = text.partition(KEY_SEPARATOR)
    if not sep or not group or not member:
        raise BadKey(f"key {text[:80]!r} is not <group_id>/<member_id>")
    return group, member


def header_value(headers: list[tuple[str, bytes | None]] | None, name: str) -> str | None:
    for key, value in headers or []:
        if key == name:
            return value.decode("utf-8", "replace") if value is not None else None
    return None
