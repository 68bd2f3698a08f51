"""The metrics job on real local Spark reading the real testbed: known plans in, exact metrics out."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer

from metrics import sinks
from metrics.job import run_available_now
from tests.spark.plans import (
    expected_pairs,
    expected_plan_row,
    measured_plan,
    plan,
    produce,
    streams_plan,
)
from tests.support.kafkautil import create_topic

pytestmark = [pytest.mark.spark, pytest.mark.timeout(300)]


@pytest.fixture
def topics(admin: Any, unique_name: str) -> tuple[str, str]:
    plans_topic = f"{unique_name}-plans"
    create_topic(admin, plans_topic, partitions=2)
    return plans_topic, f"{unique_name}-crt"


def _run(bootstrap: str, tmp: Path, topics: tuple[str, str], spark: Any) -> dict[str, Any]:
    return run_available_now(bootstrap, tmp / "out", tmp / "ckpt", plans_topic=topics[0],
                             metrics_topic=topics[1], spark=spark, timeout=240)


def _rows(df: Any) -> list[dict[str, Any]]:
    return [r.asDict() for r in df.collect()] if df is not None else []


def _tables(spark: Any, out: Path) -> dict[str, list[dict[str, Any]]]:
    result = {}
    for table in ("plan_metrics", "rack_pairs", "windows", "rejected", "batches"):
        result[table] = _rows(sinks.read_table(spark, out, table))
    return result


def _latest(spark: Any, out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    plans = sinks.latest_plans(sinks.read_table(spark, out, "plan_metrics"))
    pairs = sinks.read_table(spark, out, "rack_pairs")
    keys = ["group_id", "generation", "source_partition", "source_offset", "batch_id"]
    return _rows(plans), _rows(pairs.join(plans.select(*keys), keys))


def _windows(spark: Any, out: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    rows = _rows(sinks.latest_windows(sinks.read_table(spark, out, "windows")))
    return {(r["window"], r["group_id"], r["window_start"].strftime("%H:%M")): r for r in rows}


def _consume(bootstrap: str, topic: str, want: int, timeout: float = 60) -> list[Any]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"t-{uuid.uuid4().hex}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    got: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < want and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got.append(msg)
    finally:
        consumer.close()
    return got


def test_known_plans_give_exact_metrics(spark: Any, bootstrap: str, topics: tuple[str, str],
                                        tmp_path: Path) -> None:
    ga1 = plan("ga", 1, {
        "a1": ("az1", [(0, ["az1", "az2"], 1.0), (1, ["az3", "az2"], 2.5)]),  # 1 local, 1 cross az2->az1
        "a2": ("az2", [(2, ["az3"], 1.0), (3, ["az2", "az3"], 1.0)]),          # 1 cross az3->az2, 1 local
    }, minute=0.0, lower_bound=1.0)
    ga2 = plan("ga", 2, {
        "a1": ("az1", [(0, ["az1", "az2"], 1.0), (2, ["az1", "az3"], 1.0)]),
        "a2": ("az2", [(1, ["az2", "az3"], 2.5), (3, ["az2", "az3"], 1.0)]),
    }, minute=0.5, moved=2, reason="replica-racks-changed")
    gb5 = plan("gb", 5, {
        "b1": (None, [(0, ["az1"], 1.0)]),                                      # unknown rack: local
        "b2": ("az3", [(1, ["az1", "az2"], 4.0), (2, ["az3"], 1.0), (3, ["az3"], 1.0)]),
    }, minute=1.5, moved=1, reason="traffic-changed")  # the newest reason is read as any other
    # shaped as the brokers' streams-group plug-in publishes it (docs/streams-groups.md)
    gs3 = streams_plan("gs", 3, minute=2.0).model_copy(update={"assignor": "rackwise",
                                                                "reason": "assigned"})
    gm7 = measured_plan("gm", 7, minute=2.5)
    published = [ga1, ga2, gb5, gs3, gm7]
    sent = [ga1, ga2, ga1, gb5, gs3, gm7]
    # ga1 is published twice (a retried send): it must count once in every figure.
    produce(bootstrap, topics[0], [(p.group_id, p.to_json()) for p in sent])

    counters = _run(bootstrap, tmp_path, topics, spark)
    assert counters["plans"] == 6 and counters["rejected"] == 0
    assert counters["partitions"] == 4 + 4 + 4 + 4 + 3 + 3

    plans, pairs = _latest(spark, tmp_path / "out")
    assert len(plans) == 5
    for p in published:
        row = next(r for r in plans if (r["group_id"], r["generation"]) == (p.group_id, p.generation))
        for key, want in expected_plan_row(p).items():
            assert row[key] == pytest.approx(want), (p.group_id, p.generation, key)
        got_pairs = {(r["source_rack"], r["member_rack"]): (r["partitions"], r["weight"])
                     for r in pairs if (r["group_id"], r["generation"]) == (p.group_id, p.generation)}
        assert got_pairs == expected_pairs(p)
    # the hand-checked figures of ga1, independent of the helper above
    ga1_row = next(r for r in plans if (r["group_id"], r["generation"]) == ("ga", 1))
    assert (ga1_row["cross_rack_partitions"], ga1_row["cross_rack_weight"]) == (2, 3.5)
    assert ga1_row["cross_rack_ratio"] == 0.5 and ga1_row["excess_cost"] == 2.5
    assert next(r for r in plans if r["group_id"] == "gb")["reason"] == "traffic-changed"
    gs_row = next(r for r in plans if r["group_id"] == "gs")
    assert (gs_row["kind"], gs_row["standby_rack_diversity"], gs_row["load_spread"]) == \
        ("streams", 2.0, 1)
    # a streams group is listed with its assignor beside its CRT figures
    assert (gs_row["assignor"], gs_row["reason"]) == ("rackwise", "assigned")
    assert next(r for r in plans if r["group_id"] == "gb")["kind"] == "consumer"
    # bytes and money: summed from the partitions, priced at $0.01/GB x 2 directions
    gm = next(r for r in plans if r["group_id"] == "gm")
    month = 730 * 3600 / 2**30 * 0.02
    assert (gm["bytes_per_s"], gm["cross_rack_bytes_per_s"], gm["rack_unknown_members"]) == (
        4900.0, 3600.0, 1)
    assert gm["usd_per_month"] == pytest.approx(round(3600 * month, 2))
    assert gm["usd_per_month_best"] == pytest.approx(round(600 * month, 2))
    assert gm["usd_per_month_worst"] == pytest.approx(round(3900 * month, 2))
    assert ga1_row["bytes_per_s"] is None and ga1_row["usd_per_month"] is None
    gm_pairs = {(r["source_rack"], r["member_rack"]): r["cross_rack_bytes_per_s"]
                for r in pairs if r["group_id"] == "gm"}
    assert gm_pairs == {("az1", "az1"): 0.0, ("az2", "az1"): 3000.0, ("az1", "unknown"): 600.0}

    windows = _windows(spark, tmp_path / "out")
    assert set(windows) == {("1 minute", "ga", "12:00"), ("1 minute", "gb", "12:01"),
                            ("1 minute", "gs", "12:02"), ("1 minute", "gm", "12:02"),
                            ("1 hour", "ga", "12:00"), ("1 hour", "gb", "12:00"),
                            ("1 hour", "gs", "12:00"), ("1 hour", "gm", "12:00")}
    assert windows[("1 hour", "gm", "12:00")]["last_usd_per_month"] == gm["usd_per_month"]
    ga_minute = windows[("1 minute", "ga", "12:00")]
    assert (ga_minute["plans"], ga_minute["last_generation"], ga_minute["moved_partitions"]) == (2, 2, 2)
    assert (ga_minute["max_cross_rack_partitions"], ga_minute["last_cross_rack_partitions"]) == (2, 0)
    assert windows[("1 hour", "gb", "12:00")]["plans"] == 1

    # the metrics topic: one plan message per record, keyed by group/generation, same figures
    want = len(sent) + sum(len(expected_pairs(p)) for p in sent) + len(windows)
    messages = _consume(bootstrap, topics[1], want)
    values = [json.loads(m.value()) for m in messages]
    assert len(messages) == want
    plan_msgs = {m.key().decode(): v for m, v in zip(messages, values, strict=True)
                 if v["type"] == "plan"}
    assert set(plan_msgs) == {"plan/ga/1", "plan/ga/2", "plan/gb/5", "plan/gs/3", "plan/gm/7"}
    assert plan_msgs["plan/gb/5"]["cross_rack_partitions"] == 1
    assert plan_msgs["plan/gb/5"]["cross_rack_weight"] == 4.0
    assert sum(v["type"] == "window" for v in values) == len(windows)


def _drop_last_commit(checkpoint: Path) -> None:
    """Pretend the job died after writing its sinks but before committing the batch."""
    for query in ("plans", "windows"):
        commits = sorted((checkpoint / query / "commits").glob("[0-9]*"), key=lambda p: int(p.name))
        commits[-1].unlink()
        # the local checksum file too, or Hadoop refuses to write the commit again
        (commits[-1].parent / f".{commits[-1].name}.crc").unlink(missing_ok=True)


def test_restart_from_checkpoint_counts_nothing_twice(spark: Any, bootstrap: str,
                                                      topics: tuple[str, str],
                                                      tmp_path: Path) -> None:
    first = [plan("ga", g, {"a": ("az1", [(0, ["az2"], 1.0), (1, ["az1"], 1.0)])},
                  minute=g * 0.1, moved=g) for g in (1, 2)]
    second = [plan("ga", 3, {"a": ("az1", [(0, ["az1"], 1.0), (1, ["az1"], 1.0)])},
                   minute=0.3, moved=3),
              plan("gb", 1, {"b": ("az2", [(0, ["az1"], 1.0)])}, minute=0.4)]
    produce(bootstrap, topics[0], [(p.group_id, p.to_json()) for p in first])
    assert _run(bootstrap, tmp_path, topics, spark)["plans"] == 2

    produce(bootstrap, topics[0], [(p.group_id, p.to_json()) for p in second])
    assert _run(bootstrap, tmp_path, topics, spark)["plans"] == 2  # only the new ones
    out = tmp_path / "out"
    before = _tables(spark, out)
    assert sorted((r["group_id"], r["generation"]) for r in before["plan_metrics"]) == \
        [("ga", 1), ("ga", 2), ("ga", 3), ("gb", 1)]
    assert sum(r["plans"] for r in before["batches"]) == 4
    windows = _windows(spark, out)
    assert (windows[("1 hour", "ga", "12:00")]["plans"],
            windows[("1 hour", "ga", "12:00")]["moved_partitions"]) == (3, 1 + 2 + 3)

    # A crash between writing the last batch and committing it: Spark replays that batch.
    _drop_last_commit(tmp_path / "ckpt")
    replay = _run(bootstrap, tmp_path, topics, spark)
    assert replay["batches"] == 1 and replay["plans"] == 2  # it really did run again
    after = _tables(spark, out)
    for table in ("plan_metrics", "rack_pairs", "batches"):
        strip = [{k: v for k, v in r.items() if k != "processed_at"} for r in after[table]]
        was = [{k: v for k, v in r.items() if k != "processed_at"} for r in before[table]]
        assert sorted(map(repr, strip)) == sorted(map(repr, was)), table
    assert _windows(spark, out).keys() == windows.keys()
    for key, row in _windows(spark, out).items():
        assert (row["plans"], row["moved_partitions"]) == \
            (windows[key]["plans"], windows[key]["moved_partitions"]), key


def test_malformed_records_are_counted_and_set_aside(spark: Any, bootstrap: str,
                                                     topics: tuple[str, str],
                                                     tmp_path: Path) -> None:
    good = plan("gm", 1, {"m": ("az1", [(0, ["az1"], 1.0)])}, minute=0)
    doc = json.loads(good.to_json())

    def variant(**change: Any) -> str:
        return json.dumps({**doc, **change})

    bad_partition = json.loads(good.to_json())
    bad_partition["members"][0]["partitions"][0]["partition"] = -1
    no_summary = {k: v for k, v in doc.items() if k != "summary"}
    records: list[tuple[str, str | None]] = [
        ("gm", good.to_json()),
        ("gm", "this is not json"),
        ("gm", "[1, 2, 3]"),
        ("gm", None),                                   # a tombstone
        ("gm", json.dumps(bad_partition)),
        ("gm", variant(reason="")),                     # a reason must be non-empty
        ("gm", json.dumps(no_summary)),
        ("gm", variant(generation="seven")),
        ("gm", variant(generation=2, future_field={"x": 1})),  # newer schema: still a plan
        ("gm", variant(generation=3, reason="from-a-newer-writer")),  # carried through as-is
    ]
    produce(bootstrap, topics[0], records)
    counters = _run(bootstrap, tmp_path, topics, spark)
    assert (counters["plans"], counters["rejected"]) == (3, 7)
    assert sum(counters["rejected_reasons"].values()) == 7

    tables = _tables(spark, tmp_path / "out")
    rejected = {r["source_offset"]: r for r in tables["rejected"]}
    assert sorted(rejected) == [1, 2, 3, 4, 5, 6, 7]
    assert rejected[3]["reason"] == "empty value" and rejected[3]["value"] is None
    assert rejected[1]["value"] == "this is not json"
    assert rejected[4]["reason"] == "members[].partitions[].partition: below 0"
    assert rejected[5]["reason"] == "reason: shorter than 1"
    assert rejected[6]["reason"] == "summary: missing or of the wrong type"
    assert "wrong type" in rejected[7]["reason"]
    assert sorted(r["generation"] for r in tables["plan_metrics"]) == [1, 2, 3]
    assert {r["reason"] for r in tables["plan_metrics"]} == {"initial", "from-a-newer-writer"}
    assert tables["batches"][0]["rejected"] == 7
