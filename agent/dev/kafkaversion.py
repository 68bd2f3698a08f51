"""Which Apache Kafka release the developer tooling runs, and where its broker jars live.

One release at a time drives the testbed brokers, the Java peers (``tests/java/*`` built with
``-Dkafka.version=``) and the plug-in unit tests. The default is the ``kafka.version`` of the
broker POM (``agent/dev/resources/kafka/pom.xml``, package data); ``make jars`` fetches it;
``RACKWISE_KAFKA_VERSION`` picks another. Each release's broker classpath has its own directory
in the jar cache, ``kafka-libs-<version>``, fetched with Maven on first use, so versions never
mix.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

from agent.dev import paths
from protocol.errors import RackwiseError

BROKER_POM = paths.resource("kafka", "pom.xml")
ENV = "RACKWISE_KAFKA_VERSION"
_VERSION = re.compile(r"\d+\.\d+\.\d+")


class KafkaVersionError(RackwiseError):
    """A Kafka release cannot be used: its name is malformed or Maven cannot fetch it."""


@cache
def default_version() -> str:
    """The release ``make jars`` fetches: the broker POM's ``kafka.version``."""
    match = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", BROKER_POM.read_text())
    if match is None:
        raise KafkaVersionError(f"no <kafka.version> in {BROKER_POM}")
    return match.group(1).strip()


def kafka_version() -> str:
    """RACKWISE_KAFKA_VERSION, else the default; a malformed value is refused by name."""
    value = os.environ.get(ENV, "").strip() or default_version()
    if not _VERSION.fullmatch(value):
        raise KafkaVersionError(f"{ENV}={value!r} is not a Kafka release (expected e.g. 4.4.0)")
    return value


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def cache_dir() -> Path:
    """The jar cache (agent.dev.paths: RACKWISE_CACHE_DIR, ``.cache`` in a checkout, else
    ``~/.cache/rackwise``)."""
    return paths.cache_dir()


def libs_dir(version: str | None = None) -> Path:
    """The broker classpath of one release: ``<cache>/kafka-libs-<version>``."""
    return cache_dir() / f"kafka-libs-{version or kafka_version()}"


def ensure_libs(version: str | None = None, log: Callable[[str], None] | None = None) -> Path:
    """The release's broker jars, copied from Maven Central into their own cache directory on
    first use (the broker POM with -Dkafka.version; its profiles pick the log4j2 that
    release was built with). Returns the directory."""
    version = version or kafka_version()
    libs = libs_dir(version)
    if (libs / ".complete").exists():
        return libs
    java, mvn = shutil.which("java"), shutil.which("mvn")
    if java is None:
        raise KafkaVersionError("'java' not found: install OpenJDK 17+ "
                                "(apt-get install openjdk-17-jre-headless)")
    if mvn is None:
        raise KafkaVersionError("'mvn' not found: install Maven (apt-get install maven) "
                                "to fetch the Kafka jars")
    (log or (lambda msg: None))(
        f"fetching Apache Kafka {version}'s broker jars from Maven Central into {libs} "
        f"(first use of this release; {ENV} picks it, `make jars` fetches the default {default_version()})")
    libs.mkdir(parents=True, exist_ok=True)
    cmd = [mvn, "-B", "-q", "-f", str(BROKER_POM), "dependency:copy-dependencies",
           "-DincludeScope=runtime", f"-Dkafka.version={version}", f"-DoutputDirectory={libs}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise KafkaVersionError(
            f"mvn could not fetch Apache Kafka {version} (is it a released version on Maven Central?):\n"
            f"{(proc.stdout + proc.stderr)[-3000:]}")
    if not (libs / f"kafka_2.13-{version}.jar").is_file():
        raise KafkaVersionError(f"mvn finished but no kafka_2.13-{version}.jar is in {libs}")
    _check_log4j(libs, version)
    (libs / ".complete").touch()
    return libs


def _check_log4j(libs: Path, version: str) -> None:
    """The SLF4J binding must be the log4j2 release the broker was built with (kafka-server's
    POM names it); a release that the broker POM has no profile for would get the
    default's, which is refused here rather than found later as a broker without logs."""
    cores = sorted(p.name for p in libs.glob("log4j-core-*.jar"))
    bindings = sorted(p.name for p in libs.glob("log4j-slf4j-impl-*.jar"))
    core_versions = {n.removeprefix("log4j-core-").removesuffix(".jar") for n in cores}
    binding_versions = {n.removeprefix("log4j-slf4j-impl-").removesuffix(".jar") for n in bindings}
    pom = Path.home() / ".m2" / "repository" / "org" / "apache" / "kafka" / "kafka-server" / version / \
        f"kafka-server-{version}.pom"
    wanted = None
    if pom.is_file():
        match = re.search(r"<artifactId>log4j-core</artifactId>\s*<version>([^<]+)</version>",
                          pom.read_text())
        wanted = match.group(1) if match else None
    if len(core_versions) != 1 or core_versions != binding_versions or (wanted and {wanted} != core_versions):
        raise KafkaVersionError(
            f"Kafka {version}: log4j-core {sorted(core_versions)} and log4j-slf4j-impl "
            f"{sorted(binding_versions)} in {libs} do not match the log4j2 {wanted or '?'} that "
            f"kafka-server {version} names: add a profile for {version} to {BROKER_POM}, "
            f"then delete {libs}")
