"""Benchmark of the metrics job: plan-partition rows/s on local Spark, and plan -> metric latency.

Phases against a real Kafka cluster (the local testbed by default), each on fresh topics, in
one SparkSession (local[2]); every plan has PARTITIONS partitions over 30 members in 3 racks:

0. warm-up: WARMUP plans through the plans query, untimed (JIT, codegen, connector start).
1. capacity: PRELOAD plans are published first, then the plans query runs with an
   available-now trigger and maxOffsetsPerTrigger PER_TRIGGER; rows/s = plan-partitions /
   (end of its last micro-batch - start of its first), plus the Spark JVM's CPU seconds
   over the same run (rows per CPU-second does not depend on what else the machine runs).
2. steady, once per rate in RATES: both queries run with 1 s processing-time triggers while
   plans are published at RATE plans/s for SECONDS. Sustained rows/s = rows processed /
   (first publish -> last plan processed); latency = Kafka timestamp of a plan's row on the
   metrics topic - Kafka timestamp of the plan record (its published_at): p50/p95/max.

    .venv/bin/python bench/bench_metrics.py [--bootstrap B] [--partitions 10000]
        [--warmup 20] [--preload 200] [--per-trigger 100] [--rates 10,20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from metrics import job  # noqa: E402
from metrics.session import build_session  # noqa: E402
from metrics.settings import MetricsSettings  # noqa: E402
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary  # noqa: E402

RACKS = ("az1", "az2", "az3")
MAX_MESSAGE = 16 * 1024 * 1024


def template(partitions: int, members: int = 30) -> str:
    """One plan of ``partitions`` partitions over ``members`` members in three racks, as JSON
    with GROUP/GEN/TS placeholders (made once: the bench measures Spark, not pydantic)."""
    plans = []
    for m in range(members):
        rack = RACKS[m % 3]
        parts = []
        for p in range(m, partitions, members):
            replicas = sorted({RACKS[p % 3], RACKS[(p + 1) % 3]})
            parts.append(PartitionPlan(topic=f"topic-{p % 50}", partition=p // 50,
                                       replica_racks=replicas, cross_rack=rack not in replicas,
                                       weight=1.0 + (p % 7) / 10))
        plans.append(MemberPlan(member_id=f"member-{m:03d}", rack=rack, partitions=parts))
    cross = sum(x.cross_rack for mp in plans for x in mp.partitions)
    plan = AssignmentPlan(
        group_id="GROUP", generation=424242, reason="replica-racks-changed",
        assignor="rack-optimal", members=plans,
        summary=PlanSummary(partitions=partitions, cross_rack_partitions=cross,
                            traffic_cost=float(cross), lower_bound=0.0,
                            max_load=max(len(mp.partitions) for mp in plans),
                            min_load=min(len(mp.partitions) for mp in plans), moved_partitions=10),
    )
    text = plan.to_json()
    created = json.loads(text)["created_at"]
    return text.replace('"generation":424242', '"generation":GEN').replace(created, "TS")


def make_topics(admin: AdminClient, *names: str) -> None:
    config = {"max.message.bytes": str(MAX_MESSAGE)}
    futures = admin.create_topics([NewTopic(n, num_partitions=3, config=config) for n in names])
    for f in futures.values():
        f.result(30)


def publish(bootstrap: str, topic: str, text: str, count: int, rate: float | None,
            start_gen: int = 1) -> float:
    """Publish ``count`` plans (rate plans/s, or as fast as possible); returns seconds taken."""
    producer = Producer({"bootstrap.servers": bootstrap, "message.max.bytes": MAX_MESSAGE,
                         "compression.type": "lz4", "linger.ms": 5})
    started = time.monotonic()
    for i in range(count):
        if rate:
            delay = started + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        group = f"bench-{i % 8}"
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        value = (text.replace('"GROUP"', json.dumps(group))
                 .replace('"generation":GEN', f'"generation":{start_gen + i}')
                 .replace('"TS"', json.dumps(now)))
        producer.produce(topic, key=group, value=value)
        producer.poll(0)
    producer.flush(120)
    return time.monotonic() - started


def _span(queries: list[Any]) -> float:
    """Seconds from the start of the first batch with data to the end of the last one."""
    starts, ends = [], []
    for q in queries:
        for p in q.recentProgress:
            if p["numInputRows"] > 0:
                t = datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).timestamp()
                starts.append(t)
                ends.append(t + p["durationMs"]["triggerExecution"] / 1000)
    return max(ends) - min(starts)


def _topics(bootstrap: str) -> tuple[str, str]:
    suffix = uuid.uuid4().hex[:8]
    names = (f"bench-plans-{suffix}", f"bench-crt-{suffix}")
    make_topics(AdminClient({"bootstrap.servers": bootstrap}), *names)
    return names


def _jvm_cpu_seconds(spark: Any) -> float:
    """CPU time (user + system) of the Spark driver JVM so far, from /proc: a figure that,
    unlike wall time, does not depend on what else runs on a shared machine."""
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def capacity(spark: Any, bootstrap: str, text: str, plans: int, per_trigger: int,
             work: Path, name: str = "capacity") -> dict[str, Any]:
    """Preload ``plans`` plans, then one available-now run of the plans query over them."""
    plans_topic, metrics_topic = _topics(bootstrap)
    publish(bootstrap, plans_topic, text, plans, rate=None)
    settings = MetricsSettings(bootstrap=bootstrap, plans_topic=plans_topic,
                               metrics_topic=metrics_topic, output=work / name,
                               max_offsets_per_trigger=per_trigger)
    counters = job.Counters()
    cpu = _jvm_cpu_seconds(spark)
    load = os.getloadavg()[0]
    query = job.start_plans(spark, settings, counters, available_now=True)
    job.await_all([query], timeout=900)
    span = _span([query])
    cpu = _jvm_cpu_seconds(spark) - cpu
    assert counters.plans == plans, counters
    return {"plans": plans, "rows": counters.partitions, "seconds": span,
            "rows_per_s": counters.partitions / span, "batches": counters.batches,
            "jvm_cpu_s": cpu, "rows_per_cpu_s": counters.partitions / cpu,
            "load_before": load, "load_after": os.getloadavg()[0]}


def _idle(queries: list[Any], timeout: float = 60) -> None:
    """Wait until no query is in the middle of a batch: stopping one inside foreachBatch
    interrupts a Parquet or Kafka write, which Spark logs as an error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(q.status["isTriggerActive"] or q.status["isDataAvailable"] for q in queries):
            return
        time.sleep(0.2)


def steady(spark: Any, bootstrap: str, text: str, partitions: int, rate: float, seconds: float,
           work: Path) -> dict[str, Any]:
    """Both queries running (1 s triggers) while plans arrive at ``rate`` per second."""
    plans_topic, metrics_topic = _topics(bootstrap)
    settings = MetricsSettings(bootstrap=bootstrap, plans_topic=plans_topic,
                               metrics_topic=metrics_topic, output=work / f"steady-{rate:g}",
                               starting_offsets="earliest")
    counters = job.Counters()
    queries = job.start(spark, settings, counters)
    count = int(rate * seconds)
    time.sleep(5)  # let both queries get through their first (empty) trigger
    began = time.monotonic()
    took = publish(bootstrap, plans_topic, text, count, rate=rate)
    published_at = time.monotonic()
    deadline = time.monotonic() + 300
    while counters.plans < count and time.monotonic() < deadline:
        time.sleep(0.2)
    done = time.monotonic()
    _idle(queries)
    for q in queries:
        q.stop()
    latencies = _latencies(bootstrap, metrics_topic, count)
    return {"rate": rate, "load_after": os.getloadavg()[0], "published": count, "publish_seconds": took,
            "processed": counters.plans, "batches": counters.batches,
            "offered_rows_per_s": count * partitions / took,
            "sustained_rows_per_s": counters.partitions / (done - began),
            "p50_ms": statistics.median(latencies),
            "p95_ms": statistics.quantiles(latencies, n=20)[18] if len(latencies) > 1
            else latencies[0],
            "max_ms": max(latencies), "measured": len(latencies),
            "drain_s_after_publish": done - published_at}


def _latencies(bootstrap: str, topic: str, want: int) -> list[float]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{uuid.uuid4().hex}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    out: list[float] = []
    deadline = time.monotonic() + 60
    try:
        while len(out) < want and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is None or msg.error() or not msg.key().startswith(b"plan/"):
                continue
            published = datetime.fromisoformat(json.loads(msg.value())["published_at"])
            out.append(msg.timestamp()[1] - published.timestamp() * 1000)
    finally:
        consumer.close()
    return out


def main() -> int:
    import logging

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default=os.environ.get(
        "RACKWISE_BOOTSTRAP", "127.0.0.1:19092,127.0.0.1:19192,127.0.0.1:19292"))
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=20, help="plans run through first, untimed")
    parser.add_argument("--preload", type=int, default=200, help="plans for the capacity phase")
    parser.add_argument("--per-trigger", type=int, default=100, help="maxOffsetsPerTrigger (plans)")
    parser.add_argument("--rates", default="10,20",
                        help="plans/s of the steady phases, comma-separated (20 = 200k rows/s)")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each steady phase")
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()

    # Nothing random: every plan is the same template with its own group, generation and time.
    work = Path(tempfile.mkdtemp(prefix="rackwise-bench-"))
    text = template(args.partitions)
    print(f"plan of {args.partitions} partitions: {len(text) / 1e6:.2f} MB of JSON", flush=True)
    spark = build_session(args.master, app_name="rackwise-bench")
    results: dict[str, Any] = {"partitions": args.partitions, "master": args.master}
    try:
        if args.warmup:
            capacity(spark, args.bootstrap, text, args.warmup, args.warmup, work, "warmup")
        cap = capacity(spark, args.bootstrap, text, args.preload, args.per_trigger, work)
        results["capacity"] = cap
        print(f"capacity: {cap['rows']:,} plan-partition rows in {cap['seconds']:.1f}s = "
              f"{cap['rows_per_s']:,.0f} rows/s ({cap['batches']} batches); Spark JVM CPU "
              f"{cap['jvm_cpu_s']:.1f}s = {cap['rows_per_cpu_s']:,.0f} rows per CPU-second; "
              f"load average {cap['load_before']:.1f} -> {cap['load_after']:.1f}", flush=True)
        results["steady"] = []
        for rate in [float(r) for r in args.rates.split(",") if r.strip()]:
            st = steady(spark, args.bootstrap, text, args.partitions, rate, args.seconds, work)
            results["steady"].append(st)
            print(f"steady: {st['published']} plans at {rate:g}/s "
                  f"({st['offered_rows_per_s']:,.0f} rows/s offered), sustained "
                  f"{st['sustained_rows_per_s']:,.0f} rows/s in {st['batches']} batches, "
                  f"caught up {st['drain_s_after_publish']:.1f}s after the last publish; "
                  f"latency p50 {st['p50_ms']:.0f} ms, p95 {st['p95_ms']:.0f} ms, "
                  f"max {st['max_ms']:.0f} ms over {st['measured']} plans", flush=True)
        print(json.dumps(results, default=str))
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
