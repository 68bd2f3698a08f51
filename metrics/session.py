"""A local SparkSession with the Kafka connector jars from the local cache (never Ivy).

The jars (spark-sql-kafka-0-10, spark-token-provider-kafka-0-10, kafka-clients,
commons-pool2) are put in ``<cache>/spark-jars`` by ``make jars``, or on first use by
``mvn`` from the POM shipped as package data (metrics/resources/spark/pom.xml).
The cache is RACKWISE_CACHE_DIR, else ``.cache`` in a checkout, else ``~/.cache/rackwise``:
the testbed's rule (agent/dev/paths.py), kept here on its own since metrics imports nothing
of agent. RACKWISE_SPARK_JARS (comma-separated paths) overrides the lookup entirely.
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import subprocess
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
    if value:
        return Path(value).expanduser().resolve()
    if (ROOT / "Makefile").is_file() and (ROOT / "pyproject.toml").is_file():  # a checkout
        return ROOT / ".cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "rackwise"


def fetch_connector_jars(folder: Path) -> None:
    """Copy the connector jars into ``folder`` with mvn from the packaged POM (first use of an
    installed package; a checkout has them from ``make jars``)."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise SparkSetupError(f"no Spark Kafka connector jars in {folder} and no 'mvn' to fetch "
                              "them: install Maven (apt-get install maven), or set "
                              "RACKWISE_SPARK_JARS to the connector jar paths")
    pom = importlib.resources.files("metrics.resources").joinpath("spark", "pom.xml")
    with importlib.resources.as_file(pom) as pom_path:
        proc = subprocess.run([mvn, "-B", "-q", "-f", str(pom_path), "dependency:copy-dependencies",
                               f"-DoutputDirectory={folder}"],
                              capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise SparkSetupError(f"mvn could not fetch the Spark Kafka connector jars into {folder}:\n"
                              f"{(proc.stdout + proc.stderr)[-3000:]}")
    (folder / ".complete").touch()


def connector_jars() -> list[Path]:
    """The four connector jars, or SparkSetupError naming what is missing and how to get it.
    Fetched with mvn on first use when the cache has none yet."""
    override = os.environ.get("RACKWISE_SPARK_JARS")
    if override:
        return [Path(p).resolve() for p in override.split(",") if p.strip()]
    folder = cache_dir() / "spark-jars"
    if not (folder / ".complete").exists():
        fetch_connector_jars(folder)
    found: list[Path] = []
    for prefix in JAR_PREFIXES:
        matches = sorted(folder.glob(f"{prefix}*.jar"))
        if not matches:
            raise SparkSetupError(f"no {prefix}*.jar in {folder}: run `make jars`, or delete "
                                  f"{folder / '.complete'} to fetch them again "
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
