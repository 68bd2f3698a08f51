"""Plan against wire in the demo: a measuring window per phase.

For every group that fetches data, with its clients running a known plan:

1. wait until no client is still receiving (a new owner catching up from its last commit);
2. read each client's own fetch figures (librdkafka statistics, or the Java client's fetch
   events; agent/dev/fetchstats.py);
3. write ``WIRE_RECORDS`` records of ``VALUE_BYTES`` bytes (no key) to every partition of the
   group's topic, so each partition's bytes are known exactly;
4. wait until the clients have received that many bytes, read their figures again;
5. set the plan against the difference (:func:`agent.dev.fetchstats.wire_figures`): *planned*
   cross-rack bytes are the bytes written to the partitions the plan calls cross-rack;
   *measured* are the bytes the clients received from a broker outside their own rack.

Both count key + value bytes (librdkafka's ``rxbytes``, the Java client's serialized sizes), so
with each record read once by the one owner the plan names they are equal to the byte, and
the bytes received equal the bytes written: no tolerance is needed. A difference means a
plan-local partition was fetched from another rack, or something was read twice or not at
all; the figures say which (``local_fetched_elsewhere``, ``unfetched``, ``stray``,
``received_bytes``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.dev.fetchstats import TP, ClientView, follows, wire_figures
from protocol.plan import AssignmentPlan

WIRE_RECORDS = 100  # per partition and window
VALUE_BYTES = 1000


@dataclass
class WireGroup:
    """A group to measure: its clients (anything with member_id, assignment(), view()) and
    the plan they run."""

    group: str
    kind: str
    topic: str
    clients: Sequence[Any]
    plan: AssignmentPlan


def _totals(groups: Sequence[WireGroup]) -> list[int]:
    return [c.view().bytes for g in groups for c in g.clients]


def _quiet(groups: Sequence[WireGroup], timeout: float = 30, step: float = 1.2,
           rounds: int = 3) -> bool:
    """Until no client's byte count moves over ``rounds`` steps in a row (each two statistics
    rounds): a member given a partition shortly before may start re-reading it from the last
    commit a few seconds later, and those bytes must not fall into the window."""
    deadline = time.monotonic() + timeout
    last = _totals(groups)
    still = 0
    while time.monotonic() < deadline:
        time.sleep(step)
        now = _totals(groups)
        still = still + 1 if now == last else 0
        if still >= rounds:
            return True
        last = now
    return False


def _produce(conf: Mapping[str, Any], groups: Sequence[WireGroup]) -> dict[str, dict[TP, int]]:
    from confluent_kafka import Producer

    producer = Producer({**conf, "linger.ms": 20})
    written: dict[str, dict[TP, int]] = {}
    value = b"w" * VALUE_BYTES
    for g in groups:
        parts = sorted({(p.topic, p.partition) for m in g.plan.members for p in m.partitions})
        written[g.group] = {tp: WIRE_RECORDS * VALUE_BYTES for tp in parts}
        for i in range(WIRE_RECORDS * len(parts)):
            topic, partition = parts[i % len(parts)]
            producer.produce(topic, value=value, partition=partition)
            if i % 500 == 0:
                producer.poll(0)
    if producer.flush(60):
        raise RuntimeError("could not write the measuring records within 60 s")
    return written


def measure(groups: Sequence[WireGroup], conf: Mapping[str, Any], racks: Mapping[int, str | None],
            say: Callable[[str], None], timeout: float = 90) -> dict[str, dict[str, Any]]:
    """One window over ``groups`` (the steps above); per group the figures for summary.json."""
    if not groups:
        return {}
    if not _quiet(groups):
        say("  (some client was still receiving after 30 s; measuring anyway)")
    began = time.monotonic()
    start = {g.group: [c.view() for c in g.clients] for g in groups}
    written = _produce(conf, groups)

    def received(g: WireGroup) -> int:
        return sum(c.view().since(v).bytes for c, v in zip(g.clients, start[g.group], strict=True))

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
            received(g) < sum(written[g.group].values()) for g in groups):
        time.sleep(0.3)
    time.sleep(1.2)  # two more statistics rounds after the last byte
    out = {}
    for g in groups:
        views: list[ClientView] = [c.view().since(v)
                                   for c, v in zip(g.clients, start[g.group], strict=True)]
        fig = wire_figures(g.plan, views, racks, written[g.group])
        parts = written[g.group]
        out[g.group] = {
            "kind": g.kind,
            "topic": g.topic,
            "plan_generation": g.plan.generation,
            "reason": g.plan.reason,
            "partitions": fig.partitions,
            "cross_rack_partitions": fig.cross_rack_partitions,
            "records_written": WIRE_RECORDS * len(parts),
            "written_bytes_per_partition": WIRE_RECORDS * VALUE_BYTES,
            "written_bytes": fig.written_bytes,
            "planned_cross_bytes": fig.planned_cross_bytes,
            "received_bytes": fig.total_bytes,
            "measured_cross_bytes": fig.measured_cross_bytes,
            "local_fetched_elsewhere": list(fig.local_fetched_elsewhere),
            "unfetched": list(fig.unfetched),
            "stray": list(fig.stray),
            "clients_follow_plan": follows(g.plan, g.clients),
            "seconds": round(time.monotonic() - began, 1),
            "partition_lines": list(fig.lines),
        }
    return out


def holds(f: Mapping[str, Any]) -> bool:
    """The plan held on the wire: every plan-local partition fetched locally, the measured
    cross-rack bytes those planned, every written byte received once."""
    return (not f["local_fetched_elsewhere"] and not f["unfetched"] and not f.get("stray")
            and f["clients_follow_plan"]
            and f["measured_cross_bytes"] == f["planned_cross_bytes"]
            and f["received_bytes"] == f["written_bytes"])


def wire_line(group: str, when: str, f: Mapping[str, Any]) -> str:
    """One printed line of a group's window."""
    local = f["partitions"] - f["cross_rack_partitions"]
    fetched_locally = local - len(f["local_fetched_elsewhere"])
    verdict = "plan holds" if holds(f) else "PLAN DOES NOT HOLD"
    return (f"{group} ({f['kind']}, {when}, plan gen {f['plan_generation']}): "
            f"{f['cross_rack_partitions']} of {f['partitions']} partitions cross-rack; "
            f"planned {f['planned_cross_bytes']:,} B cross-rack of {f['written_bytes']:,} B "
            f"written, measured {f['measured_cross_bytes']:,} B cross-rack of "
            f"{f['received_bytes']:,} B received; plan-local partitions fetched locally "
            f"{fetched_locally} of {local}: {verdict}")
