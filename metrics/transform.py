"""Pure DataFrame transforms: Kafka records -> parsed plans -> CRT metrics.

Nothing here starts a query or writes anything, so every function works on a streaming or a
static DataFrame and is tested on small static frames.

Definitions (docs/architecture.md § The plan): a partition is cross-rack when no replica is in its member's
rack; a member or partition without a rack is not cross-rack. Each plan-partition has a
``weight`` (1.0 unless the plan says otherwise); weighted figures sum it.

Rack pairs: every assigned partition is read from some rack by the member's rack (its
``location`` when the plan gives one: client.rack or the audit's host map). A plan with
measured traffic says where each partition is read from (``source_rack``: a local replica,
else the leader). An older plan does not: a local (not cross-rack) partition is then read in
the member's own rack, and for a cross-rack one the job picks, deterministically, the first
of its replica racks in sorted order (``array_min``: the plan keeps ``replica_racks`` sorted).
An unknown rack is reported as ``"unknown"``.

Bytes and money (plans with measured traffic): each partition's ``bytes_per_s`` and
``cross_rack_bytes_per_s`` (the expected share for a rack-unknown member) are summed per plan
and per rack pair; $/month is the cross-rack bytes at the configured price
(protocol.pricing). Plans without measured traffic give nulls there.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from metrics.schema import plan_spark_schema, validity_problems
from protocol.pricing import BYTES_PER_GB, SECONDS_PER_MONTH, Price

UNKNOWN_RACK = "unknown"
CORRUPT = "_corrupt_record"
WINDOW_SIZES: dict[str, int] = {"1 minute": 60, "1 hour": 3600}


_COLUMNS: dict[tuple[str, str], Column] = {}


def _once(name: str, build: Callable[[], Column]) -> Column:
    """``build()`` once per SparkContext. The validity column is a tree of thousands of
    nodes, and building it through py4j took about two seconds, every micro-batch."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    key = (context.applicationId if context is not None else "", name)
    if key not in _COLUMNS:
        _COLUMNS[key] = build()
    return _COLUMNS[key]


def _problems() -> Column:
    problems = F.concat(
        F.array(
            F.when(F.col("value").isNull(), F.lit("empty value")),
            F.when(F.col(f"plan.{CORRUPT}").isNotNull(),
                   F.lit("not a JSON object, or a field of the wrong type")),
        ),
        validity_problems(F.col("plan")),
    )
    return F.filter(problems, lambda p: p.isNotNull())


def _plan_column() -> Column:
    schema = plan_spark_schema().add(CORRUPT, "string")
    return F.from_json(F.col("value"), schema,
                       {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT})


def parse(raw: DataFrame) -> DataFrame:
    """Kafka rows (key, value, topic, partition, offset, timestamp) -> one row per record with
    ``plan`` (the parsed struct), ``problems`` (array<string>, empty for a valid plan) and
    ``event_time`` (the plan's created_at, else the Kafka record timestamp)."""
    parsed = raw.select(
        F.col("key").cast("string").alias("key"),
        F.col("value").cast("string").alias("value"),
        F.col("topic").alias("source_topic"),
        F.col("partition").alias("source_partition"),
        F.col("offset").alias("source_offset"),
        F.col("timestamp").alias("published_at"),
    )
    return parsed.select("*", _once("plan", _plan_column).alias("plan")).select(
        "*",
        _once("problems", _problems).alias("problems"),
        F.coalesce(F.col("plan.created_at"), F.col("published_at")).alias("event_time"),
    )


def valid(parsed: DataFrame) -> DataFrame:
    return parsed.where(F.size("problems") == 0)


# What identifies a plan record, and the plan-level figures carried next to it. Grouping by
# all of them (cheap: one hash per partition row) keeps them without a second parse or a join.
RECORD = ["source_partition", "source_offset", "published_at", "event_time"]
_PLAN_FIELDS: dict[str, str] = {
    "group_id": "plan.group_id", "generation": "plan.generation", "kind": "plan.kind",
    "reason": "plan.reason", "assignor": "plan.assignor",
    "traffic_cost": "plan.summary.traffic_cost", "lower_bound": "plan.summary.lower_bound",
    "max_load": "plan.summary.max_load", "min_load": "plan.summary.min_load",
    "moved_partitions": "plan.summary.moved_partitions",
    "standby_rack_diversity": "plan.summary.standby_rack_diversity",
    "reported_cross_rack_partitions": "plan.summary.cross_rack_partitions",
    "cross_rack_bytes_per_s_worst": "plan.summary.cross_rack_bytes_per_s_worst",
    "lower_bound_bytes_per_s": "plan.summary.lower_bound_bytes_per_s",
    "rack_unknown_members": "plan.summary.rack_unknown_members",
}
PLAN_COLUMNS = [*_PLAN_FIELDS, "members", "withheld_partitions"]
REJECT_COLUMNS = ["key", "source_topic", "problems", "bad_value"]
PAIR_KEYS = ["source_rack", "member_rack", "cross_rack"]


def partition_rows(parsed: DataFrame) -> DataFrame:
    """One row per partition of every valid plan (and one row per rejected record).

    Each row carries its plan record's identity and plan-level figures, the rack pair it is
    read across (``source_rack`` -> ``member_rack``), ``cross_rack`` and its weight ``w``; a
    rejected record has ``problems`` and ``bad_value`` set and null pair columns. Stateless,
    so the metrics job puts it inside the streaming query: its (large) expression tree is
    then analysed once per query instead of once per micro-batch.
    """
    ok = F.size("problems") == 0
    members = parsed.select(
        *RECORD,
        *[F.when(ok, F.col(path)).alias(name) for name, path in _PLAN_FIELDS.items()],
        F.when(ok, F.size(F.coalesce(F.col("plan.members"), F.array()))).alias("members"),
        F.when(ok, F.size(F.coalesce(F.col("plan.withheld"), F.array())))
        .alias("withheld_partitions"),
        F.col("key"), F.col("source_topic"),
        F.when(~ok, F.col("problems")).alias("problems"),
        F.when(~ok, F.col("value")).alias("bad_value"),
        F.explode_outer(F.when(ok, F.col("plan.members"))).alias("m"),
    )
    parts = members.select(
        *RECORD, *PLAN_COLUMNS, *REJECT_COLUMNS,
        F.coalesce(F.col("m.location"), F.col("m.rack")).alias("rack"),
        F.explode_outer("m.partitions").alias("p"),
    )
    member_rack = F.coalesce(F.col("rack"), F.lit(UNKNOWN_RACK))
    cross = F.coalesce(F.col("p.cross_rack"), F.lit(False))
    guessed = F.when(cross, F.coalesce(F.array_min("p.replica_racks"), F.lit(UNKNOWN_RACK))) \
        .otherwise(member_rack)
    source = F.coalesce(F.col("p.source_rack"), guessed)
    has_partition = F.col("p").isNotNull()
    return parts.select(
        *RECORD, *PLAN_COLUMNS, *REJECT_COLUMNS,
        F.when(has_partition, source).alias("source_rack"),
        F.when(has_partition, member_rack).alias("member_rack"),
        F.when(has_partition, cross).alias("cross_rack"),
        F.when(has_partition, F.coalesce(F.col("p.weight"), F.lit(1.0))).alias("w"),
        F.when(has_partition, F.col("p.bytes_per_s")).alias("b"),
        F.when(has_partition, F.col("p.cross_rack_bytes_per_s")).alias("xb"),
    )


def aggregate_pairs(rows: DataFrame) -> DataFrame:
    """:func:`partition_rows` summed per (plan record, source rack, member rack, cross_rack):
    ``partitions`` and ``weight``. A few rows per plan, so it is cheap to keep (persist) and
    everything the sinks need is derived from it (:func:`plan_metrics`, :func:`rack_pairs`,
    :func:`rejected`): the JSON is parsed once per record. Partitions are exploded and
    aggregated rather than summed with nested higher-order functions, because explode and
    hash aggregation are compiled by Spark while lambdas are interpreted per element.
    """
    return (rows.groupBy(*RECORD, *PLAN_COLUMNS, *REJECT_COLUMNS, *PAIR_KEYS)
            .agg(F.count("w").alias("partitions"),
                 F.coalesce(F.sum("w"), F.lit(0.0)).alias("weight"),
                 F.sum("b").alias("bytes"),  # null: no partition of the pair was measured
                 F.sum("xb").alias("cross_rack_bytes")))


def flatten(parsed: DataFrame) -> DataFrame:
    """``aggregate_pairs(partition_rows(parsed))``: the small per-pair frame of a batch."""
    return aggregate_pairs(partition_rows(parsed))


def rejected(flat: DataFrame) -> DataFrame:
    """The records set aside: where they came from, why, and the raw value (as text)."""
    return flat.where(F.col("problems").isNotNull()).select(
        "key", "source_topic", "source_partition", "source_offset", "published_at",
        F.try_element_at("problems", F.lit(1)).alias("reason"), "problems",
        F.col("bad_value").alias("value"),
    )


def monthly_cost(bytes_per_s: Column, price: Price) -> Column:
    """$ per month for a steady rate across racks (protocol.pricing's formula, in Spark)."""
    factor = SECONDS_PER_MONTH / BYTES_PER_GB * price.per_gb_crossing
    return F.round(bytes_per_s * F.lit(factor), 2)


def plan_metrics(flat: DataFrame, price: Price | None = None) -> DataFrame:
    """One row per valid plan record: the figures keyed by (group_id, generation).

    Partition counts and weights are measured from the members' partitions (not copied from
    the summary); traffic cost, lower bound, loads, moves and standby diversity are the
    assignor's own summary figures, since they need its cost model or the previous
    generation. ``reported_cross_rack_partitions`` is the summary's count, to compare.
    Bytes/s and $/month (actual, best = the lower bound in bytes, worst) are null for plans
    without measured traffic.
    """
    price = price or Price()
    cross = F.col("cross_rack") == F.lit(True)
    out = (
        flat.where(F.col("problems").isNull())
        .groupBy(*RECORD, *PLAN_COLUMNS)
        .agg(F.sum("partitions").alias("partitions"),
             F.sum(F.when(cross, F.col("partitions")).otherwise(0)).alias("cross_rack_partitions"),
             F.sum("weight").alias("weight"),
             F.sum(F.when(cross, F.col("weight")).otherwise(0.0)).alias("cross_rack_weight"),
             F.sum("bytes").alias("bytes_per_s"),
             F.sum("cross_rack_bytes").alias("cross_rack_bytes_per_s"))
    )
    return out.select(
        "group_id", "generation", "kind", "reason", "assignor", *RECORD, "members",
        "partitions", "cross_rack_partitions", "weight", "cross_rack_weight",
        "traffic_cost", "lower_bound", "max_load", "min_load", "moved_partitions",
        "standby_rack_diversity", "withheld_partitions", "reported_cross_rack_partitions",
        _ratio(F.col("cross_rack_partitions"), F.col("partitions")).alias("cross_rack_ratio"),
        _ratio(F.col("cross_rack_weight"), F.col("weight")).alias("weighted_cross_rack_ratio"),
        (F.col("max_load") - F.col("min_load")).alias("load_spread"),
        (F.col("traffic_cost") - F.col("lower_bound")).alias("excess_cost"),
        "bytes_per_s", "cross_rack_bytes_per_s", "cross_rack_bytes_per_s_worst",
        "lower_bound_bytes_per_s", "rack_unknown_members",
        monthly_cost(F.col("cross_rack_bytes_per_s"), price).alias("usd_per_month"),
        monthly_cost(F.col("lower_bound_bytes_per_s"), price).alias("usd_per_month_best"),
        monthly_cost(F.col("cross_rack_bytes_per_s_worst"), price).alias("usd_per_month_worst"),
    )


def _ratio(part: Column, whole: Column) -> Column:
    return F.when(whole > 0, part / whole).otherwise(F.lit(0.0))


def rack_pairs(flat: DataFrame) -> DataFrame:
    """Per (group_id, generation, source_rack, member_rack): partitions and their weight.

    ``source_rack`` is where the data is read from (see the module docstring for the choice
    among several replica racks); ``cross_rack`` is false on the diagonal of local reads.
    Rows carry the plan record's Kafka partition and offset, so that a plan published twice
    is never summed with itself: readers keep one record per plan (sinks.latest_plans).
    """
    return flat.where(F.col("problems").isNull() & (F.col("partitions") > 0)).select(
        "group_id", "generation", "source_partition", "source_offset",
        "source_rack", "member_rack", "cross_rack", "event_time", "partitions", "weight",
        F.col("bytes").alias("bytes_per_s"), F.col("cross_rack_bytes").alias("cross_rack_bytes_per_s"),
    )


# The plan rows as the job writes them to the metrics topic (metrics.sinks.write_topic), the
# columns the windows need. The windows query reads these small rows, not the plans again.
TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"
PLAN_ROW_SCHEMA = (
    "type string, group_id string, generation long, event_time timestamp, "
    "cross_rack_partitions long, cross_rack_ratio double, traffic_cost double, "
    "lower_bound double, moved_partitions long, cross_rack_bytes_per_s double, "
    "usd_per_month double"
)


def plan_rows_from_topic(records: DataFrame) -> DataFrame:
    """Kafka records of the metrics topic -> its ``plan`` rows (other types are skipped)."""
    row = F.from_json(F.col("value").cast("string"), PLAN_ROW_SCHEMA,
                      {"timestampFormat": TIMESTAMP_FORMAT})
    return (records.select(row.alias("r")).select("r.*")
            .where((F.col("type") == "plan") & F.col("event_time").isNotNull())
            .drop("type"))


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
        F.max_by("cross_rack_bytes_per_s", "generation").alias("last_cross_rack_bytes_per_s"),
        F.max_by("usd_per_month", "generation").alias("last_usd_per_month"),
        F.max("usd_per_month").alias("max_usd_per_month"),
        F.max("event_time").alias("last_event_time"),
    )
