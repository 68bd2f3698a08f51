"""Parity with the real Java classes (kafka-clients / kafka-streams 4.3.1).

tests/java/golden writes golden vectors (bytes from ConsumerProtocol, the sticky assignors,
SubscriptionInfo and AssignmentInfo, with what Java reads back from them). Here every vector
is decoded by Python into the same view as Java's, re-encoded to the identical bytes, and
bytes that Python encodes are decoded by Java and must read as Python meant them.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from protocol.consumer import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    java_assignment,
    java_subscription,
)
from protocol.streams import (
    TaskId,
    build_subscription_info,
    decode_subscription_info,
    encode_subscription_info,
)
from protocol.streams_assignment import (
    build_assignment_info,
    decode_assignment_info,
    encode_assignment_info,
)
from protocol.userdata import (
    CooperativeStickyUserData,
    StickyUserData,
    decode_cooperative_sticky_user_data,
    decode_sticky_user_data,
    encode_cooperative_sticky_user_data,
    encode_sticky_user_data,
)
from tests.support import javaharness

pytestmark = pytest.mark.java  # needs mvn and java, not the Kafka testbed

PROJECT = "tests/java/golden"
MAIN = "dev.rackwise.golden.Main"


def _hex(b: bytes | None) -> str | None:
    return None if b is None else b.hex()


# ---- Python's view of decoded bytes, in the shape Main.java prints ----------------------


def view_subscription(data: bytes) -> dict[str, Any]:
    s = decode_subscription(data)
    return {"version": s.version, "topics": s.topics, "user_data": _hex(s.user_data),
            "owned_partitions": [[e.topic, e.partitions] for e in s.owned_partitions],
            "generation_id": s.generation_id, "rack_id": s.rack_id,
            "api_rack": s.rack, "api_generation": s.generation}


def view_assignment(data: bytes) -> dict[str, Any]:
    a = decode_assignment(data)
    return {"version": a.version, "user_data": _hex(a.user_data),
            "assigned_partitions": [[e.topic, e.partitions] for e in a.assigned_partitions]}


def view_sticky(data: bytes) -> dict[str, Any]:
    d = decode_sticky_user_data(data)
    return {"partitions": [[e.topic, p] for e in d.previous_assignment for p in e.partitions],
            "generation": d.generation}


def view_cooperative(data: bytes) -> dict[str, Any]:
    return {"generation": decode_cooperative_sticky_user_data(data).generation}


def view_streams_subscription(data: bytes) -> dict[str, Any]:
    i = decode_subscription_info(data)
    if i.is_future_version:
        return {"version": i.version, "latest_supported_version": i.latest_supported_version}
    return {
        "version": i.version, "latest_supported_version": i.latest_supported_version,
        "process_id": str(i.process_id),
        "prev_tasks": [[t.topic_group_id, t.partition] for t in i.prev_tasks],
        "standby_tasks": [[t.topic_group_id, t.partition] for t in i.standby_tasks],
        "user_end_point": i.user_end_point.hex(),
        "task_offset_sums": [[t.topic_group_id, t.partition, t.offset_sum, t.named_topology,
                              [[p.partition, p.offset_sum] for p in t.partition_to_offset_sum]]
                             for t in i.task_offset_sums],
        "unique_field": i.unique_field, "error_code": i.error_code,
        "client_tags": [[t.key.hex(), t.value.hex()] for t in i.client_tags],
        "offset_sums": sorted([str(t), s] for t, s in i.offset_sums().items()),
        "endpoint": i.endpoint,
    }


def view_streams_assignment(data: bytes) -> dict[str, Any]:
    i = decode_assignment_info(data)

    def hosts(m: dict[tuple[str, int], list[tuple[str, int]]]) -> list[Any]:
        return [[h, port, [list(tp) for tp in ps]] for (h, port), ps in m.items()]

    return {
        "version": i.version, "commonly_supported_version": i.commonly_supported_version,
        "active_tasks": [str(t.task()) for t in i.active_tasks],
        "standby_tasks": [[str(t), [list(tp) for tp in ps]]
                          for t, ps in i.standby_task_map().items()],
        "partitions_by_host": hosts(i.partitions_by_host_map()),
        "standby_partitions_by_host": hosts(i.standby_partitions_by_host_map()),
        "error_code": i.error_code, "next_rebalance_ms": i.next_rebalance_ms,
    }


def normalise(kind: str, read: dict[str, Any]) -> dict[str, Any]:
    """Java's HashMap/HashSet iteration order is arbitrary: sort where Java used one."""
    if kind != "streams-assignment":
        if kind == "streams-subscription" and "offset_sums" in read:
            read = dict(read, offset_sums=sorted(read["offset_sums"]))
        return read
    out = dict(read)
    out["standby_tasks"] = sorted([t, sorted(ps)] for t, ps in read["standby_tasks"])
    for key in ("partitions_by_host", "standby_partitions_by_host"):
        out[key] = sorted([h, port, sorted(ps)] for h, port, ps in read[key])
    return out


VIEWS: dict[str, Callable[[bytes], dict[str, Any]]] = {
    "subscription": view_subscription,
    "assignment": view_assignment,
    "sticky": view_sticky,
    "cooperative-sticky": view_cooperative,
    "streams-subscription": view_streams_subscription,
    "streams-assignment": view_streams_assignment,
}

REENCODE: dict[str, Callable[[bytes], bytes]] = {
    "subscription": lambda b: encode_subscription(decode_subscription(b)),
    "assignment": lambda b: encode_assignment(decode_assignment(b)),
    "sticky": lambda b: encode_sticky_user_data(decode_sticky_user_data(b)),
    "cooperative-sticky": lambda b: encode_cooperative_sticky_user_data(
        decode_cooperative_sticky_user_data(b)),
    "streams-subscription": lambda b: encode_subscription_info(decode_subscription_info(b)),
    "streams-assignment": lambda b: encode_assignment_info(decode_assignment_info(b)),
}


@pytest.fixture(scope="module")
def golden() -> list[dict[str, Any]]:
    proc = javaharness.run(PROJECT, MAIN, "write")
    return [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]


def java_decode(lines: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    stdin = "".join(f"{kind} {data.hex()}\n" for kind, data in lines)
    proc = javaharness.run(PROJECT, MAIN, "decode", stdin=stdin)
    out = [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]
    assert len(out) == len(lines)
    return out


def test_golden_covers_every_version(golden: list[dict[str, Any]]) -> None:
    seen = {(g["kind"], g["name"].rsplit("-v", 1)[-1]) for g in golden if "-v" in g["name"]}
    for v in range(4):
        assert ("subscription", str(v)) in seen and ("assignment", str(v)) in seen
    for v in range(1, 12):
        assert ("streams-subscription", str(v)) in seen
        assert ("streams-assignment", str(v)) in seen
    assert {g["kind"] for g in golden} == set(VIEWS)


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_python_reads_what_java_reads(golden: list[dict[str, Any]], kind: str) -> None:
    vectors = [g for g in golden if g["kind"] == kind]
    assert vectors
    for g in vectors:
        data = bytes.fromhex(g["hex"])
        assert normalise(kind, VIEWS[kind](data)) == normalise(kind, g["read"]), g["name"]


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_reencode_gives_identical_bytes(golden: list[dict[str, Any]], kind: str) -> None:
    vectors = [g for g in golden if g["kind"] == kind and g["reencode"]]
    assert vectors
    for g in vectors:
        assert REENCODE[kind](bytes.fromhex(g["hex"])).hex() == g["hex"], g["name"]


def test_java_helpers_order_like_java(golden: list[dict[str, Any]]) -> None:
    """java_subscription/java_assignment sort and group as ConsumerProtocol does."""
    for g in golden:
        if g["kind"] == "subscription" and g["reencode"]:
            s = decode_subscription(bytes.fromhex(g["hex"]))
            pairs = [(e.topic, p) for e in s.owned_partitions for p in e.partitions]
            rebuilt = java_subscription(reversed(s.topics), reversed(pairs), s.user_data,
                                        s.generation_id, s.rack_id)
            assert encode_subscription(rebuilt, s.version).hex() == g["hex"], g["name"]


def _random_cases(rng: random.Random) -> list[tuple[str, bytes]]:
    names = ["t", "orders", "zürich", "日本語", "emoji-\U0001F680", "x" * 200, ""]
    cases: list[tuple[str, bytes]] = []
    for _ in range(40):
        topics = rng.sample(names, rng.randint(0, len(names)))
        owned = [(rng.choice(names), rng.randint(0, 2**31 - 1)) for _ in range(rng.randint(0, 30))]
        user_data = rng.choice([None, b"", rng.randbytes(rng.randint(1, 64))])
        sub = java_subscription(topics, owned, user_data, rng.randint(-1, 2**31 - 1),
                                rng.choice([None, "", "az1", "ラック"]))
        cases.append(("subscription", encode_subscription(sub, rng.randint(0, 3))))
        asg = java_assignment(owned, user_data)
        cases.append(("assignment", encode_assignment(asg, rng.randint(0, 3))))
        gen = rng.choice([None, rng.randint(0, 2**31 - 1)])
        cases.append(("sticky", encode_sticky_user_data(StickyUserData(asg.assigned_partitions,
                                                                       gen))))
        cases.append(("cooperative-sticky", encode_cooperative_sticky_user_data(
            CooperativeStickyUserData(rng.randint(-1, 2**31 - 1)))))
        version = rng.randint(1, 11)
        sums = {TaskId(rng.randint(0, 50), rng.randint(0, 500),
                       rng.choice([None, "topo", "tö"]) if version >= 10 else None):
                rng.choice([-2, -3, 0, rng.randint(0, 2**63 - 1)])
                for _ in range(rng.randint(0, 40))}
        info = build_subscription_info(
            version, uuid.UUID(int=rng.getrandbits(128)), sums,
            endpoint=rng.choice([None, "h:1", "hôst:9"]), unique_field=rng.randint(-128, 127),
            error_code=rng.randint(0, 4), client_tags={"az": "az1", "ключ": "значение"})
        cases.append(("streams-subscription", encode_subscription_info(info)))
        tps = sorted({(rng.choice(names[:5] + ["nul\x00"]), rng.randint(0, 99))
                      for _ in range(rng.randint(0, 20))})
        active = sorted({TaskId(rng.randint(0, 9), rng.randint(0, 99),
                                rng.choice([None, "topo-ü"]) if version >= 10 else None)
                         for _ in range(rng.randint(0, 20))}, key=TaskId.sort_key)
        ainfo = build_assignment_info(
            version, active, {TaskId(99, 1): tps[:3]},
            {("host-a", 1): tps[: len(tps) // 2], ("hôst-b", 2): tps[len(tps) // 2:]},
            {("host-a", 1): tps[-2:]}, error_code=rng.randint(0, 3),
            next_rebalance_ms=rng.randint(0, 2**63 - 1))
        cases.append(("streams-assignment", encode_assignment_info(ainfo)))
    return cases


def test_java_decodes_what_python_encodes(golden: list[dict[str, Any]]) -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    cases = _random_cases(rng)
    # Also every golden vector as Python re-encodes it (not the Java bytes themselves).
    cases += [(g["kind"], REENCODE[g["kind"]](bytes.fromhex(g["hex"])))
              for g in golden if g["reencode"]]
    for (kind, data), answer in zip(cases, java_decode(cases), strict=True):
        assert answer["ok"], (seed, kind, data.hex(), answer.get("error"))
        assert normalise(kind, answer["read"]) == normalise(kind, VIEWS[kind](data)), (
            seed, kind, data.hex())


def test_java_and_python_both_reject_truncated(golden: list[dict[str, Any]]) -> None:
    """Every proper prefix Java rejects, Python rejects too (and vice versa for most)."""
    cases: list[tuple[str, bytes]] = []
    for g in golden:
        data = bytes.fromhex(g["hex"])
        if g["kind"] in ("subscription", "assignment", "streams-assignment") and len(data) < 300:
            cases += [(g["kind"], data[:cut]) for cut in range(len(data))]
    for (kind, data), answer in zip(cases, java_decode(cases), strict=True):
        if not answer["ok"]:
            with pytest.raises(Exception) as info:
                VIEWS[kind](data)
            assert type(info.value).__name__ == "ProtocolError", (kind, data.hex())
