"""The Structured Streaming job: rackwise.plans -> CRT metrics (topic + Parquet).

Two queries, each with its own checkpoint under ``--checkpoint`` (default OUTPUT/_checkpoints):

``plans``    stateless; reads the plans topic. Inside the streaming query each record is
             parsed with the Spark schema derived from the plan model, checked against the
             model's rules and exploded to one row per assigned partition
             (transform.partition_rows). Per micro-batch (foreachBatch) those rows are summed
             per plan and rack pair into a small frame, and from it: valid plans ->
             ``plan_metrics`` (one row per group and generation) and ``rack_pairs``; malformed
             records -> ``rejected`` with the reason (never a failed query); per-batch counts
             -> ``batches``. The metrics topic gets the plan and rack-pair rows as JSON.
``windows``  stateful; reads the ``plan`` rows back from the metrics topic (small JSON, so the
             plans are parsed once). 1-minute and 1-hour tumbling windows on event time (the
             plan's created_at) with a watermark (default 10 minutes) after which late plans
             are dropped and window state is evicted; duplicates of one (group_id, generation)
             within the watermark are dropped. Update mode, so dashboards and
             ``--available-now`` runs see open windows too. Written to the ``windows`` table
             and to the metrics topic.

The plans topic is read with isolation.level=read_committed: plans from a fenced agent's
aborted transaction are never counted. See metrics/sinks.py for why a restart counts nothing
twice. Entry points: :func:`run` (the CLI), :func:`run_available_now` (the demo and tests),
:func:`start` / :func:`run_once` (the benchmark).
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.sql import functions as F

from metrics import sinks, transform
from metrics.settings import MetricsSettings, redacted, spark_kafka_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

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
    # Plans are large (a 10,000-partition plan is about 1 MB of JSON) and the topic may have
    # fewer partitions than there are cores, or one more (3 on 2 cores leaves a core idle for
    # a third of each batch): split the offset ranges so every core gets an even share.
    splits = settings.min_partitions or 2 * spark.sparkContext.defaultParallelism
    return reader.option("minPartitions", str(splits)).load()


class PlanBatchWriter:
    """foreachBatch of the ``plans`` query."""

    def __init__(self, settings: MetricsSettings, counters: Counters) -> None:
        self.settings = settings
        self.counters = counters
        self.kafka = spark_kafka_options(settings)

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        began = time.perf_counter()
        out = self.settings.output
        stamp = {"processed_at": F.current_timestamp()}
        # ``batch`` is already parsed and exploded (start_plans); ``flat`` is a few rows per
        # plan and everything below reads it, so the plans are parsed once.
        flat = transform.aggregate_pairs(batch).persist()
        try:
            plans = transform.plan_metrics(flat, self.settings.price).withColumns(stamp).persist()
            totals = plans.agg(F.count(F.lit(1)), F.sum("partitions")).first()
            assert totals is not None  # an aggregate without grouping has exactly one row
            good, partitions = int(totals[0]), int(totals[1] or 0)
            parsed_s = time.perf_counter() - began
            bad = transform.rejected(flat).withColumns(stamp).persist()
            reasons = {r["reason"]: r["count"] for r in bad.groupBy("reason").count().collect()}
            rejected = sum(reasons.values())
            if good:
                pairs = transform.rack_pairs(flat).withColumns(stamp).persist()
                sinks.write_table(plans, out, "plan_metrics", batch_id)
                sinks.write_table(pairs, out, "rack_pairs", batch_id)
                sinks.write_topic([(plans, sinks.plan_key(plans), "plan"),
                                   (pairs, sinks.pair_key(pairs), "rack_pair")],
                                  self.settings.metrics_topic, self.kafka)
                pairs.unpersist()
            if rejected:
                sinks.write_table(bad, out, "rejected", batch_id)
            # spark.range, not createDataFrame: no Python worker process for one row
            counts = batch.sparkSession.range(1).select(
                F.lit(good).cast("long").alias("plans"),
                F.lit(partitions).cast("long").alias("partitions"),
                F.lit(rejected).cast("long").alias("rejected"),
            ).withColumns(stamp)
            sinks.write_table(counts, out, "batches", batch_id)
            plans.unpersist()
            bad.unpersist()
        finally:
            flat.unpersist()
        c = self.counters
        c.batches += 1
        c.plans += good
        c.partitions += partitions
        c.rejected += rejected
        for reason, n in reasons.items():
            c.reasons[reason] = c.reasons.get(reason, 0) + n
        log.info("plans batch %d: %d plans, %d plan-partitions, %d rejected in %.2fs "
                 "(parse and aggregate %.2fs)", batch_id, good, partitions, rejected,
                 time.perf_counter() - began, parsed_s)


class WindowBatchWriter:
    """foreachBatch of the ``windows`` query: the updated windows of this batch."""

    def __init__(self, settings: MetricsSettings, counters: Counters) -> None:
        self.settings = settings
        self.counters = counters
        self.kafka = spark_kafka_options(settings)

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        # persisted: each action on a stateful batch would otherwise run the aggregation again
        rows = batch.withColumn("processed_at", F.current_timestamp()).persist()
        try:
            sinks.write_table(rows, self.settings.output, "windows", batch_id)
            sinks.write_topic([(rows, sinks.window_key(rows), "window")],
                              self.settings.metrics_topic, self.kafka)
        finally:
            rows.unpersist()
        self.counters.window_batches += 1


def read_metrics(spark: SparkSession, settings: MetricsSettings) -> DataFrame:
    """The ``plan`` rows the plans query wrote to the metrics topic, as a stream."""
    return (spark.readStream.format("kafka")
            .options(**spark_kafka_options(settings))
            .option("subscribe", settings.metrics_topic)
            .option("startingOffsets", "earliest")
            .option("failOnDataLoss", "false")
            .load())


def windowed(metrics_records: DataFrame, watermark: str) -> DataFrame:
    """Window aggregates from the metrics topic's plan rows (small JSON, not the plans)."""
    rows = transform.plan_rows_from_topic(metrics_records)
    deduped = (rows.withWatermark("event_time", watermark)
               .dropDuplicatesWithinWatermark(["group_id", "generation"]))
    return transform.window_aggregates(transform.window_rows(deduped))


def _trigger(available_now: bool, trigger_seconds: float) -> dict[str, Any]:
    return ({"availableNow": True} if available_now
            else {"processingTime": f"{trigger_seconds} seconds"})


def start_plans(spark: SparkSession, settings: MetricsSettings, counters: Counters,
                available_now: bool = False, trigger_seconds: float = 1.0) -> StreamingQuery:
    """The ``plans`` query: plans topic -> plan_metrics, rack_pairs, rejected, batches."""
    log.info("metrics job: reading %s, writing %s and %s; kafka options %s",
             settings.plans_topic, settings.metrics_topic, settings.output,
             redacted(spark_kafka_options(settings)))
    settings.output.mkdir(parents=True, exist_ok=True)
    rows = transform.partition_rows(transform.parse(read_plans(spark, settings)))
    return (rows.writeStream
            .queryName(f"rackwise_plans_{settings.plans_topic}")
            .option("checkpointLocation", str(settings.checkpoint_dir / "plans"))
            .foreachBatch(PlanBatchWriter(settings, counters))
            .trigger(**_trigger(available_now, trigger_seconds)).start())


def start_windows(spark: SparkSession, settings: MetricsSettings, counters: Counters,
                  available_now: bool = False, trigger_seconds: float = 1.0) -> StreamingQuery:
    """The ``windows`` query: metrics topic plan rows -> 1-minute and 1-hour windows."""
    return (windowed(read_metrics(spark, settings), settings.watermark).writeStream
            .queryName(f"rackwise_windows_{settings.metrics_topic}")
            .outputMode("update")
            .option("checkpointLocation", str(settings.checkpoint_dir / "windows"))
            .foreachBatch(WindowBatchWriter(settings, counters))
            .trigger(**_trigger(available_now, trigger_seconds)).start())


def start(spark: SparkSession, settings: MetricsSettings, counters: Counters | None = None,
          trigger_seconds: float = 1.0) -> list[StreamingQuery]:
    """Start both queries to run until stopped (processing-time triggers); the caller awaits
    or stops them. For a run that ends by itself use :func:`run_once`."""
    counters = counters if counters is not None else Counters()
    return [start_plans(spark, settings, counters, False, trigger_seconds),
            start_windows(spark, settings, counters, False, trigger_seconds)]


def run_once(spark: SparkSession, settings: MetricsSettings, counters: Counters,
             timeout: float | None = None) -> None:
    """Available-now: the plans query over what is in the plans topic, then the windows
    query over what that wrote to the metrics topic; each ends when it has caught up."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for begin in (start_plans, start_windows):
        left = None if deadline is None else max(1.0, deadline - time.monotonic())
        await_all([begin(spark, settings, counters, True)], left)


def await_all(queries: list[StreamingQuery], timeout: float | None = None) -> None:
    """Wait for every query to end (available-now) and re-raise the first failure."""
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        for q in queries:
            left = None if deadline is None else max(1.0, deadline - time.monotonic())
            if left is None:
                q.awaitTermination()
            elif not q.awaitTermination(int(left)):
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
    if available_now:
        run_once(spark, settings, counters, timeout)
        return counters
    stopping = threading.Event()
    handlers: dict[signal.Signals, Any] = {}
    # The handlers only set a flag. PySpark's own SIGINT handler cancels running jobs from
    # inside the signal, which interrupts a Parquet or Kafka write half-way and prints py4j
    # tracebacks; a restart would redo that batch correctly, but stopping between batches is
    # cleaner and leaves nothing to redo.
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handlers[sig] = signal.signal(sig, lambda *_: stopping.set())
    try:
        queries = start(spark, settings, counters)
        serve(queries, timeout, stopping)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return counters


def serve(queries: list[StreamingQuery], timeout: float | None = None,
          stopping: threading.Event | None = None) -> None:
    """Keep running queries until ``stopping`` is set (or ``timeout``), then stop them
    between micro-batches; re-raise a query's failure."""
    stopping = stopping or threading.Event()
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while not stopping.is_set() and all(q.isActive for q in queries):
            if deadline is not None and time.monotonic() > deadline:
                break
            stopping.wait(0.5)
        log.info("stopping the metrics job")
        _wait_between_batches(queries)
    finally:
        for q in queries:
            if q.isActive:
                q.stop()
    for q in queries:
        if q.exception() is not None:
            raise RuntimeError(f"query {q.name} failed: {q.exception()}")


def _wait_between_batches(queries: list[StreamingQuery], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
            q.isActive and q.status["isTriggerActive"] for q in queries):
        time.sleep(0.2)


def run_available_now(bootstrap: str, output: str | Path, checkpoint: str | Path | None = None,
                      *, plans_topic: str = "rackwise.plans",
                      metrics_topic: str = "rackwise.crt-metrics", master: str = "local[2]",
                      spark: SparkSession | None = None, timeout: float | None = 600,
                      **overrides: Any) -> dict[str, Any]:
    """Process everything in the plans topic once, then return; a stable entry point.

    Runs the ``plans`` query with an available-now trigger until it has caught up with the
    plans topic, then the ``windows`` query the same way; both resume from their checkpoints
    (``checkpoint``, default ``<output>/_checkpoints``), so calling it again only processes
    what arrived since. Tables go under ``output`` (read them with metrics.report.load or
    metrics.sinks.read_table); rows also go to ``metrics_topic`` (created if missing).
    ``spark``: an existing session to reuse (one is built with the connector jars
    otherwise; it is not stopped). ``overrides``: any other MetricsSettings field, e.g.
    ``watermark="1 hour"`` or ``kafka={...}``. Raises TimeoutError after ``timeout`` seconds
    and RuntimeError if a query fails.

    Returns the counters of this call: ``{"batches", "plans", "partitions", "rejected",
    "window_batches", "rejected_reasons": {reason: count}}``.
    """
    settings = MetricsSettings(bootstrap=bootstrap, output=Path(output),
                               checkpoint=Path(checkpoint) if checkpoint else None,
                               plans_topic=plans_topic, metrics_topic=metrics_topic,
                               master=master, **overrides)
    return run(settings, available_now=True, spark=spark, timeout=timeout).as_dict()
