"""Pure DataFrame transforms: Kafka records -> parsed plans -> CRT metrics.

Nothing here starts a query or writes anything, so every function works on a streaming or a
static DataFrame and is tested on small static frames.

Definitions (DESIGN.md §3): a partition is cross-rack when no replica is in its member's
rack; a member or partition without a rack is not cross-rack. Each plan-partition has a
``weight`` (1.0 unless the plan says otherwise); weighted figures sum it.

Rack pairs: every assigned partition is read from some rack by the member's rack. A local
(not cross-rack) partition is read in the member's own rack. A cross-rack partition may have
replicas in several other racks and the plan does not say which one the consumer fetches
from, so the job picks, deterministically, the first of its replica racks in sorted order
(``array_min``: the plan keeps ``replica_racks`` sorted, and sorting again costs nothing).
An unknown rack is reported as ``"unknown"``.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from metrics.schema import plan_spark_schema, validity_problems

UNKNOWN_RACK = "unknown"
CORRUPT = "_corrupt_record"
WINDOW_SIZES: dict[str, int] = {"1 minute": 60, "1 hour": 3600}


def parse(raw: DataFrame) -> DataFrame:
    """Kafka rows (key, value, topic, partition, offset, timestamp) -> one row per record with
    ``plan`` (the parsed struct), ``problems`` (array<string>, empty for a valid plan) and
    ``event_time`` (the plan's created_at, else the Kafka record timestamp)."""
    schema = plan_spark_schema().add(CORRUPT, "string")
    value = F.col("value").cast("string")
    parsed = raw.select(
        F.col("key").cast("string").alias("key"),
        value.alias("value"),
        F.col("topic").alias("source_topic"),
        F.col("partition").alias("source_partition"),
        F.col("offset").alias("source_offset"),
        F.col("timestamp").alias("published_at"),
        F.from_json(value, schema, {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT})
        .alias("plan"),
    )
    problems = F.concat(
        F.array(
            F.when(F.col("value").isNull(), F.lit("empty value")),
            F.when(F.col(f"plan.{CORRUPT}").isNotNull(),
                   F.lit("not a JSON object, or a field of the wrong type")),
        ),
        validity_problems(F.col("plan")),
    )
    return parsed.select(
        "*",
        F.filter(problems, lambda p: p.isNotNull()).alias("problems"),
        F.coalesce(F.col("plan.created_at"), F.col("published_at")).alias("event_time"),
    )


def valid(parsed: DataFrame) -> DataFrame:
    return parsed.where(F.size("problems") == 0)


def rejected(parsed: DataFrame) -> DataFrame:
    """The records set aside: where they came from, why, and the raw value (as text)."""
    return parsed.where(F.size("problems") > 0).select(
        "key", "source_topic", "source_partition", "source_offset", "published_at",
        F.try_element_at("problems", F.lit(1)).alias("reason"), "problems", "value",
    )


def _sum_over_members(per_partition: Callable[[Column, Column], Column]) -> Column:
    """Sum of ``per_partition(member, partition)`` over every partition of every member."""
    return F.aggregate(
        F.col("plan.members"), F.lit(0.0).cast("double"),
        lambda acc, m: acc + F.aggregate(
            F.coalesce(m["partitions"], F.array()), F.lit(0.0).cast("double"),
            lambda a, p: a + per_partition(m, p)),
    )


def plan_metrics(plans: DataFrame) -> DataFrame:
    """One row per plan (valid plans only): the figures keyed by (group_id, generation).

    Partition counts are measured from the members' partitions (not copied from the summary);
    traffic cost, lower bound, loads, moves and standby diversity are the assignor's own
    summary figures, since they need the cost model or the previous generation.
    """
    cross = _sum_over_members(lambda m, p: F.when(p["cross_rack"], 1.0).otherwise(0.0))
    total = _sum_over_members(lambda m, p: F.lit(1.0))
    weight = _sum_over_members(lambda m, p: F.coalesce(p["weight"], F.lit(1.0)))
    cross_weight = _sum_over_members(
        lambda m, p: F.when(p["cross_rack"], F.coalesce(p["weight"], F.lit(1.0))).otherwise(0.0))
    s = "plan.summary"
    out = plans.select(
        F.col("plan.group_id").alias("group_id"),
        F.col("plan.generation").alias("generation"),
        F.col("plan.kind").alias("kind"),
        F.col("plan.reason").alias("reason"),
        F.col("plan.assignor").alias("assignor"),
        "event_time", "published_at", "source_partition", "source_offset",
        F.size(F.coalesce(F.col("plan.members"), F.array())).alias("members"),
        total.cast("long").alias("partitions"),
        cross.cast("long").alias("cross_rack_partitions"),
        weight.alias("weight"),
        cross_weight.alias("cross_rack_weight"),
        F.col(f"{s}.traffic_cost").alias("traffic_cost"),
        F.col(f"{s}.lower_bound").alias("lower_bound"),
        F.col(f"{s}.max_load").alias("max_load"),
        F.col(f"{s}.min_load").alias("min_load"),
        F.col(f"{s}.moved_partitions").alias("moved_partitions"),
        F.col(f"{s}.standby_rack_diversity").alias("standby_rack_diversity"),
        F.size(F.coalesce(F.col("plan.withheld"), F.array())).alias("withheld_partitions"),
        F.col(f"{s}.cross_rack_partitions").alias("reported_cross_rack_partitions"),
    )
    return out.select(
        "*",
        _ratio(F.col("cross_rack_partitions"), F.col("partitions")).alias("cross_rack_ratio"),
        _ratio(F.col("cross_rack_weight"), F.col("weight")).alias("weighted_cross_rack_ratio"),
        (F.col("max_load") - F.col("min_load")).alias("load_spread"),
        (F.col("traffic_cost") - F.col("lower_bound")).alias("excess_cost"),
    )


def _ratio(part: Column, whole: Column) -> Column:
    return F.when(whole > 0, part / whole).otherwise(F.lit(0.0))


def rack_pairs(plans: DataFrame) -> DataFrame:
    """Per (group_id, generation, source_rack, member_rack): partitions and their weight.

    ``source_rack`` is where the data is read from (see the module docstring for the choice
    among several replica racks); ``cross_rack`` is false on the diagonal of local reads.
    Rows carry the plan record's Kafka partition and offset, so that a plan published twice
    is never summed with itself: readers keep one record per plan (sinks.latest_plans).
    """
    record = ["source_partition", "source_offset"]
    members = plans.select(
        F.col("plan.group_id").alias("group_id"),
        F.col("plan.generation").alias("generation"),
        "event_time", *record,
        F.explode("plan.members").alias("m"),
    )
    parts = members.select(
        "group_id", "generation", "event_time", *record,
        F.col("m.rack").alias("rack"),
        F.explode("m.partitions").alias("p"),
    )
    member_rack = F.coalesce(F.col("rack"), F.lit(UNKNOWN_RACK))
    cross = F.coalesce(F.col("p.cross_rack"), F.lit(False))
    source = F.when(cross, F.coalesce(F.array_min("p.replica_racks"), F.lit(UNKNOWN_RACK))) \
        .otherwise(member_rack)
    return (
        parts.select(
            "group_id", "generation", "event_time", *record,
            source.alias("source_rack"), member_rack.alias("member_rack"),
            cross.alias("cross_rack"),
            F.coalesce(F.col("p.weight"), F.lit(1.0)).alias("w"),
        )
        .groupBy("group_id", "generation", *record, "source_rack", "member_rack", "cross_rack")
        .agg(F.max("event_time").alias("event_time"), F.count(F.lit(1)).alias("partitions"),
             F.sum("w").alias("weight"))
    )


def window_rows(metrics: DataFrame) -> DataFrame:
    """Each plan-metrics row once per window size, with that window's [start, end).

    Tumbling windows aligned on the epoch, the same as ``window(ts, size)``; done by hand so
    the 1-minute and 1-hour windows come out of one aggregation.
    """
    secs = F.unix_seconds(F.col("event_time"))
    windows = F.array(*[
        F.struct(
            F.lit(name).alias("window"),
            F.timestamp_seconds(F.floor(secs / size) * size).alias("window_start"),
            F.timestamp_seconds(F.floor(secs / size) * size + size).alias("window_end"),
        )
        for name, size in WINDOW_SIZES.items()
    ])
    return metrics.select("*", F.explode(windows).alias("w")).select("*", "w.*").drop("w")


def window_aggregates(rows: DataFrame) -> DataFrame:
    """Per window and group: plans published, the last generation, moved partitions (churn),
    and the worst / mean / last-seen cross-rack figures; for dashboards."""
    return rows.groupBy("window", "window_start", "window_end", "group_id").agg(
        F.count(F.lit(1)).alias("plans"),
        F.max("generation").alias("last_generation"),
        F.sum("moved_partitions").alias("moved_partitions"),
        F.max("cross_rack_partitions").alias("max_cross_rack_partitions"),
        F.min("cross_rack_partitions").alias("min_cross_rack_partitions"),
        F.avg("cross_rack_ratio").alias("mean_cross_rack_ratio"),
        F.max_by("cross_rack_partitions", "generation").alias("last_cross_rack_partitions"),
        F.max_by("traffic_cost", "generation").alias("last_traffic_cost"),
        F.max_by("lower_bound", "generation").alias("last_lower_bound"),
        F.max("event_time").alias("last_event_time"),
    )
