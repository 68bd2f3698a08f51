"""The Structured Streaming job: rackwise.plans -> CRT metrics (topic + Parquet).

Two queries read the plans topic, each with its own checkpoint under ``--checkpoint``:

``plans``    stateless. Per micro-batch (foreachBatch): parse every record with the schema
             derived from the plan model; valid plans -> ``plan_metrics`` (one row per group
             and generation) and ``rack_pairs``; everything else -> ``rejected`` with the
             reason; per-batch counts -> ``batches``. The metrics topic gets plan and
             rack-pair rows.
``windows``  stateful. Plan metrics by event time (the plan's created_at) in 1-minute and
             1-hour tumbling windows, with a watermark (default 10 minutes) after which late
             plans are dropped and window state is evicted; duplicates of one
             (group_id, generation) within the watermark are dropped. Update mode, so
             dashboards and ``--available-now`` runs see open windows too.

Both read with isolation.level=read_committed: plans from a fenced agent's aborted
transaction are never counted. See metrics/sinks.py for why a restart counts nothing twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.sql import functions as F

from metrics import sinks, transform
from metrics.settings import MetricsSettings, redacted, spark_kafka_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery

log = logging.getLogger("rackwise.metrics")


@dataclass
class Counters:
    """What this run of the job has processed (the rejected count is the malformed-record counter)."""

    batches: int = 0
    plans: int = 0
    partitions: int = 0
    rejected: int = 0
    window_batches: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"batches": self.batches, "plans": self.plans, "partitions": self.partitions,
                "rejected": self.rejected, "window_batches": self.window_batches,
                "rejected_reasons": dict(self.reasons)}


def read_plans(spark: SparkSession, settings: MetricsSettings) -> DataFrame:
    reader = (spark.readStream.format("kafka")
              .options(**spark_kafka_options(settings))
              .option("subscribe", settings.plans_topic)
              .option("startingOffsets", settings.starting_offsets)
              .option("failOnDataLoss", "false")
              .option("kafka.isolation.level", "read_committed"))
    if settings.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(settings.max_offsets_per_trigger))
    return reader.load()


class PlanBatchWriter:
    """foreachBatch of the ``plans`` query."""

    def __init__(self, settings: MetricsSettings, counters: Counters) -> None:
        self.settings = settings
        self.counters = counters
        self.kafka = spark_kafka_options(settings)

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        out = self.settings.output
        parsed = transform.parse(batch).persist()
        try:
            tally = {(r["bad"], r["reason"]): r["n"] for r in parsed.groupBy(
                (F.size("problems") > 0).alias("bad"),
                F.try_element_at("problems", F.lit(1)).alias("reason")).count()
                .withColumnRenamed("count", "n").collect()}
            good = sum(n for (bad, _), n in tally.items() if not bad)
            bad = sum(n for (is_bad, _), n in tally.items() if is_bad)
            partitions = 0
            stamp = {"processed_at": F.current_timestamp()}
            if good:
                ok = transform.valid(parsed)
                plans = transform.plan_metrics(ok).withColumns(stamp).persist()
                sinks.write_table(plans, out, "plan_metrics", batch_id)
                pairs = transform.rack_pairs(ok).withColumns(stamp)
                sinks.write_table(pairs, out, "rack_pairs", batch_id)
                partitions = int(plans.agg(F.sum("partitions")).first()[0] or 0)
                topic = self.settings.metrics_topic
                sinks.write_topic(plans, sinks.plan_key(plans), "plan", topic, self.kafka)
                saved = sinks.read_table_batch(batch.sparkSession, out, "rack_pairs", batch_id)
                sinks.write_topic(saved, sinks.pair_key(saved), "rack_pair", topic, self.kafka)
                plans.unpersist()
            if bad:
                sinks.write_table(transform.rejected(parsed).withColumns(stamp), out, "rejected",
                                  batch_id)
            counts = batch.sparkSession.createDataFrame(
                [(batch_id, good, partitions, bad)],
                "batch_id_ long, plans long, partitions long, rejected long",
            ).withColumns(stamp).drop("batch_id_")
            sinks.write_table(counts, out, "batches", batch_id)
        finally:
            parsed.unpersist()
        c = self.counters
        c.batches += 1
        c.plans += good
        c.partitions += partitions
        c.rejected += bad
        for (is_bad, reason), n in tally.items():
            if is_bad:
                c.reasons[reason] = c.reasons.get(reason, 0) + n
        log.info("plans batch %d: %d plans, %d plan-partitions, %d rejected",
                 batch_id, good, partitions, bad)


class WindowBatchWriter:
    """foreachBatch of the ``windows`` query: the updated windows of this batch."""

    def __init__(self, settings: MetricsSettings, counters: Counters) -> None:
        self.settings = settings
        self.counters = counters
        self.kafka = spark_kafka_options(settings)

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        rows = batch.withColumn("processed_at", F.current_timestamp())
        sinks.write_table(rows, self.settings.output, "windows", batch_id)
        saved = sinks.read_table_batch(batch.sparkSession, self.settings.output, "windows",
                                       batch_id)
        if saved is not None:
            sinks.write_topic(saved, sinks.window_key(saved), "window",
                              self.settings.metrics_topic, self.kafka)
        self.counters.window_batches += 1


def windowed(raw: DataFrame, watermark: str) -> DataFrame:
    plans = transform.plan_metrics(transform.valid(transform.parse(raw)))
    deduped = (plans.withWatermark("event_time", watermark)
               .dropDuplicatesWithinWatermark(["group_id", "generation"]))
    return transform.window_aggregates(transform.window_rows(deduped))


def start(spark: SparkSession, settings: MetricsSettings, available_now: bool = False,
          counters: Counters | None = None, trigger_seconds: float = 1.0) -> list[StreamingQuery]:
    """Start both queries; the caller awaits them."""
    counters = counters or Counters()
    log.info("metrics job: reading %s, writing %s and %s; kafka options %s",
             settings.plans_topic, settings.metrics_topic, settings.output,
             redacted(spark_kafka_options(settings)))
    settings.output.mkdir(parents=True, exist_ok=True)
    trigger: dict[str, Any] = ({"availableNow": True} if available_now
                               else {"processingTime": f"{trigger_seconds} seconds"})
    ckpt = settings.checkpoint_dir
    plans_q = (read_plans(spark, settings).writeStream
               .queryName("rackwise_plans")
               .option("checkpointLocation", str(ckpt / "plans"))
               .foreachBatch(PlanBatchWriter(settings, counters))
               .trigger(**trigger).start())
    windows_q = (windowed(read_plans(spark, settings), settings.watermark).writeStream
                 .queryName("rackwise_windows")
                 .outputMode("update")
                 .option("checkpointLocation", str(ckpt / "windows"))
                 .foreachBatch(WindowBatchWriter(settings, counters))
                 .trigger(**trigger).start())
    return [plans_q, windows_q]


def await_all(queries: list[StreamingQuery], timeout: float | None = None) -> None:
    """Wait for every query to end (available-now) and re-raise the first failure."""
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        for q in queries:
            left = None if deadline is None else max(1.0, deadline - time.monotonic())
            if left is None:
                q.awaitTermination()
            elif not q.awaitTermination(left):
                raise TimeoutError(f"query {q.name} still running after {timeout}s")
    finally:
        for q in queries:
            if q.isActive:
                q.stop()
    for q in queries:
        if q.exception() is not None:
            raise RuntimeError(f"query {q.name} failed: {q.exception()}")


def run(settings: MetricsSettings, available_now: bool = False,
        spark: SparkSession | None = None, timeout: float | None = None) -> Counters:
    """Run the job: until interrupted, or (available_now) until what is in the topic is done."""
    from metrics.session import build_session
    from metrics.topics import ensure_topic

    ensure_topic(settings, settings.metrics_topic)
    spark = spark or build_session(settings.master)
    counters = Counters()
    queries = start(spark, settings, available_now=available_now, counters=counters)
    try:
        await_all(queries, timeout)
    except KeyboardInterrupt:
        log.info("stopping the metrics job")
        for q in queries:
            q.stop()
    return counters


def run_available_now(bootstrap: str, output: str | Path, checkpoint: str | Path | None = None,
                      *, plans_topic: str = "rackwise.plans",
                      metrics_topic: str = "rackwise.crt-metrics", master: str = "local[2]",
                      spark: SparkSession | None = None, timeout: float | None = 600,
                      **overrides: Any) -> dict[str, Any]:
    """Process everything in the plans topic once and return the counters (for the demo)."""
    settings = MetricsSettings(bootstrap=bootstrap, output=Path(output),
                               checkpoint=Path(checkpoint) if checkpoint else None,
                               plans_topic=plans_topic, metrics_topic=metrics_topic,
                               master=master, **overrides)
    return run(settings, available_now=True, spark=spark, timeout=timeout).as_dict()
