"""Emulation of Java ``HashMap<String, ?>`` iteration order, where Kafka's result depends on it.

Kafka's constrained sticky builder walks members in HashMap order (reference §2.6). The
parity harness inserts members into a default-constructed ``HashMap`` in sorted id order, so
the order is: bucket index of the spread ``String.hashCode()``, then insertion (= id) order.
Bins only turn into trees past 8 colliding keys in a table of >= 64 buckets, which ordinary
member ids never reach; that case is not emulated.

Example: with 16 buckets "consumer1/2/3" fall in buckets 12/11/10, so Java visits
consumer3, consumer2, consumer1::

    hashmap_order(["consumer1", "consumer2", "consumer3"])
    # ['consumer3', 'consumer2', 'consumer1']
"""

from __future__ import annotations

from collections.abc import Iterable


def java_string_hash(s: str) -> int:
    """``String.hashCode()``: s[0]*31^(n-1) + ... over UTF-16 code units, as a signed int32."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def hashmap_capacity(size: int) -> int:
    """Table size of a default ``new HashMap<>()`` after ``size`` puts (load factor 0.75)."""
    cap = 16
    while size > cap * 3 // 4:
        cap *= 2
    return cap


def hashmap_order(keys: Iterable[str]) -> list[str]:
    """Keys in the order a HashMap filled in sorted key order iterates them."""
    items = sorted(set(keys))
    mask = hashmap_capacity(len(items)) - 1

    def bucket(key: str) -> int:
        h = java_string_hash(key)
        return (h ^ (h >> 16)) & mask

    return sorted(items, key=lambda k: (bucket(k), k))
