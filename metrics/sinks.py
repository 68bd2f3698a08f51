"""Where each micro-batch goes: Parquet tables under the output directory and the metrics topic.

Idempotence, so that a restart from the checkpoint never counts anything twice:

* Spark re-runs a micro-batch after a crash with the same ``batch_id`` and the same offsets
  (and, for the windows query, the same state version). Every table is therefore written to
  ``<output>/<table>/batch_id=<N>/`` in overwrite mode: a replayed batch replaces its own
  earlier attempt instead of adding to it.
* Plan metrics and rack pairs are keyed by (group_id, generation): a plan is one Kafka record,
  so all its rows are computed inside one batch, with no streaming state at all. A plan
  published twice (a retried send) gives two records; readers keep one (:func:`latest_plans`).
* Window aggregates are emitted in update mode: a window's row is re-emitted whenever a plan
  falls into it, each time with the running totals from checkpointed state. The newest
  ``batch_id`` of a (window, window_start, group_id) is its current value
  (:func:`latest_windows`). The windows query reads the plan rows from the metrics topic,
  where a replayed plans batch sends them again: those duplicates, like a plan published
  twice, are dropped by (group_id, generation) within the watermark before counting.
* The metrics topic gets the same rows as JSON keyed by what identifies them, so a replayed
  send (the Kafka sink is at-least-once) is the same key and value again: an upsert.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from metrics.transform import TIMESTAMP_FORMAT

TABLES = ("plan_metrics", "rack_pairs", "windows", "rejected", "batches")


def write_table(df: DataFrame, output: Path, table: str, batch_id: int) -> None:
    """Replace ``<output>/<table>/batch_id=<batch_id>`` with ``df`` (one file per batch)."""
    df.coalesce(1).write.mode("overwrite").parquet(str(output / table / f"batch_id={batch_id}"))


def write_topic(parts: list[tuple[DataFrame, Column, str]], topic: str,
                options: dict[str, str]) -> None:
    """Send the rows of each (frame, key, kind) as JSON ``{"type": kind, ...}`` keyed by
    ``key``; one Spark job for all of them."""
    payloads = [
        df.select(
            key.cast("string").alias("key"),
            F.to_json(F.struct(F.lit(kind).alias("type"), *[F.col(c) for c in df.columns]),
                      {"timestampFormat": TIMESTAMP_FORMAT}).alias("value"),
        )
        for df, key, kind in parts
    ]
    union = payloads[0]
    for more in payloads[1:]:
        union = union.unionByName(more)
    union.write.format("kafka").options(**options).option("topic", topic).save()


def plan_key(df: DataFrame) -> Column:
    return F.concat_ws("/", F.lit("plan"), df["group_id"], df["generation"].cast("string"))


def pair_key(df: DataFrame) -> Column:
    return F.concat_ws("/", F.lit("pair"), df["group_id"], df["generation"].cast("string"),
                       df["source_rack"], df["member_rack"])


def window_key(df: DataFrame) -> Column:
    return F.concat_ws("/", F.lit("window"), df["window"], df["group_id"],
                       F.date_format(df["window_start"], "yyyy-MM-dd'T'HH:mm:ss'Z'"))


# ---- reading the tables back (report, tests, demo) -----------------------------------------

def read_table(spark: SparkSession, output: Path, table: str) -> DataFrame | None:
    path = output / table
    if not path.exists() or not any(path.glob("batch_id=*/*.parquet")):
        return None
    return spark.read.parquet(str(path))


def latest_plans(df: DataFrame) -> DataFrame:
    """One row per (group_id, generation): the last one seen, should a plan be published twice."""
    order = Window.partitionBy("group_id", "generation") \
        .orderBy(F.col("batch_id").desc(), F.col("source_offset").desc())
    return df.withColumn("_n", F.row_number().over(order)).where("_n = 1").drop("_n")


def latest_windows(df: DataFrame) -> DataFrame:
    """One row per (window, window_start, group_id): its newest running value."""
    order = Window.partitionBy("window", "window_start", "group_id").orderBy(F.col("batch_id").desc())
    return df.withColumn("_n", F.row_number().over(order)).where("_n = 1").drop("_n")
