"""Replica-rack fingerprints and the debounce that turns them into triggers. Pure, no IO.

A topic's fingerprint is, per partition in order, the set of racks of its replicas. Racks
are tracked per replica *broker id* (as KAFKA-20778 does): a broker that is missing from
``describe_cluster`` keeps the rack it was last seen with, and a replica whose rack was
never known makes that partition "unknown" — an unknown partition is never a change, it
keeps its accepted value. A change must then hold for ``debounce_s`` before it triggers.

Example (brokers 1,2,3 in az1,az2,az3; p0 moves from [1,2] to [1,3])::

    fp0 = fingerprint([[1, 2]], {1: "az1", 2: "az2"})      # ((az1, az2),)
    fp1 = fingerprint([[1, 3]], {1: "az1", 3: "az3"})      # ((az1, az3),)
    diff(fp0, fp1)   # {"kind": "replica-racks-changed", "partitions": [{"partition": 0, ...}]}
    fingerprint([[1, 9]], {1: "az1"})                       # (UNKNOWN,): broker 9 never seen
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent.daemon.events import RackChange

Racks = tuple[str, ...] | None
Fingerprint = tuple[Racks, ...]
UNKNOWN: Racks = None


def fingerprint(replicas: Sequence[Sequence[int]], racks: Mapping[int, str | None]) -> Fingerprint:
    """Per partition the sorted set of replica racks, or UNKNOWN if a replica's rack is not known."""
    out: list[Racks] = []
    for ids in replicas:
        known = [racks.get(b) for b in ids]
        out.append(
            UNKNOWN
            if any(r is None for r in known)
            else tuple(sorted({r for r in known if r is not None}))
        )
    return tuple(out)


def leader_fingerprint(count: int, leaders: Mapping[int, int],
                       racks: Mapping[int, str | None]) -> Fingerprint:
    """Per partition the rack of its leader as a 1-tuple, or UNKNOWN when the leader or its
    rack is not known (a partition without a leader is never a change)."""
    out: list[Racks] = []
    for p in range(count):
        broker = leaders.get(p)
        rack = racks.get(broker) if broker is not None else None
        out.append((rack,) if rack is not None else UNKNOWN)
    return tuple(out)


def merge_unknown(accepted: Fingerprint | None, current: Fingerprint) -> Fingerprint:
    """``current`` with its UNKNOWN partitions filled from ``accepted`` (unknown is no change)."""
    if accepted is None:
        return current
    return tuple(
        accepted[i] if r is UNKNOWN and i < len(accepted) else r for i, r in enumerate(current)
    )


def diff(old: Fingerprint, new: Fingerprint) -> dict[str, object] | None:
    """What changed between two fingerprints, or None. Partition-count changes win."""
    if len(old) != len(new):
        return {"kind": "partitions-changed", "from": len(old), "to": len(new)}
    parts = [
        {
            "partition": i,
            "from": list(a) if a is not None else None,
            "to": list(b) if b is not None else None,
        }
        for i, (a, b) in enumerate(zip(old, new, strict=True))
        if a != b and a is not UNKNOWN and b is not UNKNOWN
    ]
    if not parts:
        return None
    return {"kind": "replica-racks-changed", "partitions": parts}


@dataclass
class _Pending:
    fingerprint: Fingerprint
    since: float


@dataclass
class Debouncer:
    """Per topic: the accepted fingerprint and a candidate change waiting out the window."""

    window_s: float
    accepted: dict[str, Fingerprint] = field(default_factory=dict)
    # the plan reason a per-partition change triggers: replica racks, or (for leader
    # fingerprints) "leaders-changed", whose partition-count changes are the replicas' to report
    kind: str = "replica-racks-changed"
    pending: dict[str, _Pending] = field(default_factory=dict)

    def observe(self, topic: str, current: Fingerprint, now: float) -> RackChange | None:
        """Feed one observation; returns the change once it has held for the window."""
        base = self.accepted.get(topic)
        if base is None or (len(base) != len(current) and self.kind != "replica-racks-changed"):
            self.accepted[topic] = current
            self.pending.pop(topic, None)
            return None
        candidate = merge_unknown(base, current)
        change = diff(base, candidate)
        if change is None:
            self.pending.pop(topic, None)
            # Fill in partitions that were unknown when first seen, without triggering.
            self.accepted[topic] = candidate
            return None
        held = self.pending.get(topic)
        if held is None or held.fingerprint != candidate:
            self.pending[topic] = held = _Pending(candidate, now)
        if now - held.since < self.window_s:
            return None
        del self.pending[topic]
        self.accepted[topic] = candidate
        detail = {k: v for k, v in change.items() if k != "kind"}
        kind = str(change["kind"])
        return RackChange(topic, self.kind if kind == "replica-racks-changed" else kind, detail)

    def forget(self, topic: str) -> None:
        self.accepted.pop(topic, None)
        self.pending.pop(topic, None)
