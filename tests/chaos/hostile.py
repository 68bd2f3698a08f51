"""Hostile subscription records for the chaos suite: every one must be rejected by the agent.

Each generator returns (partition, key, value, headers, kind) where ``kind`` names the attack.
``make_records`` mixes them with a seeded RNG and keeps only records that a fresh
``GroupTable`` rejects (it counts any it had to drop, which should stay near zero), so the
suite asserts on the real agent what the pure code already promises.
"""

from __future__ import annotations

import random
import struct
from typing import Any

from agent.daemon.state import GroupTable, InputRejected
from protocol.consumer import encode_subscription, java_subscription
from protocol.routing import KIND_HEADER, group_partition, member_key

Record = tuple[int, bytes | None, bytes | None, list[tuple[str, bytes]], str]
INT32_MAX = 0x7FFFFFFF


def _valid(rng: random.Random, version: int) -> bytes:
    topics = [f"t{rng.randrange(5)}" for _ in range(rng.randrange(1, 4))]
    owned = {(t, rng.randrange(6)) for t in topics[: rng.randrange(2)]}
    sub = java_subscription(topics, owned, generation_id=rng.randrange(50), rack_id="az1")
    return encode_subscription(sub, version)


class Hostile:
    """Attack generators over ``partitions`` subscriptions partitions; ``target`` is a real
    group some records pretend to belong to."""

    def __init__(self, rng: random.Random, partitions: int, target: str) -> None:
        self.rng = rng
        self.partitions = partitions
        self.target = target

    def _home(self, group: str) -> int:
        return group_partition(group, self.partitions)

    def _key(self) -> tuple[int, bytes]:
        rng = self.rng
        group = self.target if rng.random() < 0.2 else f"hostile-{rng.randrange(40)}"
        return self._home(group), member_key(group, f"x{rng.randrange(10**6)}")

    def fuzz(self) -> Record:
        p, key = self._key()
        return p, key, self.rng.randbytes(self.rng.randrange(0, 200)), [], "fuzz"

    def truncated(self) -> Record:
        p, key = self._key()
        data = _valid(self.rng, self.rng.randrange(1, 4))
        return p, key, data[: self.rng.randrange(0, len(data) - 1)], [], "truncated"

    def huge_count(self) -> Record:
        p, key = self._key()
        rng = self.rng
        which = rng.randrange(4)
        if which == 0:  # topics array claims 2^31-1 entries
            value = struct.pack(">hi", 1, INT32_MAX) + rng.randbytes(16)
        elif which == 1:  # a topic name longer than the buffer
            value = struct.pack(">hih", 0, 1, 32767) + b"x" * 10
        elif which == 2:  # user data claims 2 GiB
            value = struct.pack(">hi", 0, 0) + struct.pack(">i", INT32_MAX) + b"u" * 8
        else:  # owned partitions: one topic with 2^31-1 partitions
            value = (struct.pack(">hih", 1, 1, 2) + b"t1" + struct.pack(">i", -1)
                     + struct.pack(">ih", 1, 2) + b"t1" + struct.pack(">i", INT32_MAX))
        return p, key, value, [], "huge-count"

    def oversized(self) -> Record:
        """Close to the broker's 1 MiB record limit; the body claims more topics than it has."""
        p, key = self._key()
        self._big = getattr(self, "_big", -1) + 1
        size = (1_040_000, 600_000, 900_000)[self._big % 3]
        body = struct.pack(">hi", 0, 1_000_000) + (struct.pack(">h", 6) + b"topic-") * (size // 8)
        return p, key, body[:size], [], "oversized"

    def wrong_kind(self) -> Record:
        p, key = self._key()
        kind = self.rng.choice([b"banana", b"CONSUMER", b"\xff\xfe", b"streams"])
        return p, key, _valid(self.rng, 3), [(KIND_HEADER, kind)], "wrong-kind"

    def bad_key(self) -> Record:
        rng = self.rng
        # (A null key cannot be tested: the compacted topic refuses it at the broker.)
        key = rng.choice([b"", b"no-separator", b"\xff\xfe/x", b"/member", b"group/"])
        return rng.randrange(self.partitions), key, _valid(rng, 3), [], "bad-key"

    def wrong_partition(self) -> Record:
        p, key = self._key()
        other = (p + 1 + self.rng.randrange(self.partitions - 1)) % self.partitions
        return other, key, _valid(self.rng, 3), [], "wrong-partition"

    def negative(self) -> Record:
        p, key = self._key()
        value = (struct.pack(">hih", 1, 1, 2) + b"t1" + struct.pack(">i", -1)
                 + struct.pack(">ih", 1, 2) + b"t1" + struct.pack(">ii", 1, -5))
        return p, key, value, [], "negative-partition"

    def negative_version(self) -> Record:
        p, key = self._key()
        return p, key, struct.pack(">h", -1 - self.rng.randrange(100)) + b"\0" * 8, [], "bad-version"


WEIGHTS = {"fuzz": 30, "truncated": 20, "huge_count": 15, "wrong_kind": 10, "bad_key": 8,
           "wrong_partition": 8, "negative": 5, "negative_version": 4}


def make_records(rng: random.Random, n: int, partitions: int, target: str,
                 oversized: int) -> tuple[list[Record], dict[str, Any]]:
    gen = Hostile(rng, partitions, target)
    names = sorted(WEIGHTS)
    weights = [WEIGHTS[k] for k in names]
    out: list[Record] = []
    dropped = 0
    check = GroupTable()
    while len(out) < n:
        make = "oversized" if len(out) < oversized else rng.choices(names, weights)[0]
        rec = getattr(gen, make)()
        p, key, value, headers, _ = rec
        kind = next((v.decode("utf-8", "replace") for k, v in headers if k == KIND_HEADER), None)
        try:
            check.apply(p, key, value, kind, 0.0,
                        partition_of=lambda g: group_partition(g, partitions))
        except InputRejected:
            out.append(rec)
            continue
        dropped += 1  # it happened to be valid; not hostile after all
        check = GroupTable()
    rng.shuffle(out)
    counts: dict[str, int] = {}
    for rec in out:
        counts[rec[4]] = counts.get(rec[4], 0) + 1
    return out, {"by_attack": counts, "valid_by_chance_dropped": dropped}
