"""A local SparkSession with the Kafka connector jars from the local cache (never Ivy).

The jars (spark-sql-kafka-0-10, spark-token-provider-kafka-0-10, kafka-clients,
commons-pool2) are put in ``<cache>/spark-jars`` by ``make jars`` (testbed/spark/pom.xml).
The cache is RACKWISE_CACHE_DIR or ``.cache`` in the checkout, the same rule as the testbed;
RACKWISE_SPARK_JARS (comma-separated paths) overrides the lookup entirely.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.errors import RackwiseError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
JAR_PREFIXES = ("spark-sql-kafka-0-10", "spark-token-provider-kafka-0-10", "kafka-clients",
                "commons-pool2")

# Small, laptop-sized defaults: 2 cores shared with three brokers (runtime-setup.md §2.5).
LOCAL_CONF: dict[str, str] = {
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
    # A micro-batch with nothing to do should not cost a state-store round trip.
    "spark.sql.streaming.noDataMicroBatches.enabled": "false",
}


class SparkSetupError(RackwiseError):
    """Spark cannot be started as configured; the message says what to install or set."""


def cache_dir() -> Path:
    value = os.environ.get("RACKWISE_CACHE_DIR")
    return Path(value).resolve() if value else ROOT / ".cache"


def connector_jars() -> list[Path]:
    """The four connector jars, or SparkSetupError naming what is missing and how to get it."""
    override = os.environ.get("RACKWISE_SPARK_JARS")
    if override:
        return [Path(p).resolve() for p in override.split(",") if p.strip()]
    folder = cache_dir() / "spark-jars"
    found: list[Path] = []
    for prefix in JAR_PREFIXES:
        matches = sorted(folder.glob(f"{prefix}*.jar"))
        if not matches:
            raise SparkSetupError(f"no {prefix}*.jar in {folder}: run `make jars` "
                                  "(or set RACKWISE_SPARK_JARS to the connector jar paths)")
        found.append(matches[-1])
    return found


def build_session(master: str = "local[2]", app_name: str = "rackwise-metrics",
                  conf: dict[str, str] | None = None) -> SparkSession:
    """getOrCreate a session with the connector jars; ``conf`` overrides LOCAL_CONF."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {**LOCAL_CONF, "spark.jars": ",".join(str(p) for p in connector_jars())}
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session
