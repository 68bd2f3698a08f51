"""Which Kafka release the tooling runs and where its jars live (agent/dev/kafkaversion.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.dev import kafkaversion
from agent.dev.testbed import Testbed
from tests.support import javaharness

pytestmark = pytest.mark.unit


def test_the_default_is_the_broker_poms_release(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(kafkaversion.ENV, raising=False)
    assert kafkaversion.default_version() == "4.4.0"
    assert kafkaversion.kafka_version() == "4.4.0"


def test_the_variable_picks_another_release_with_its_own_cache_dir(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(kafkaversion.ENV, "4.1.2")
    monkeypatch.setenv("RACKWISE_CACHE_DIR", str(tmp_path))
    assert kafkaversion.libs_dir() == tmp_path / "kafka-libs-4.1.2"
    assert kafkaversion.libs_dir("4.4.0") == tmp_path / "kafka-libs-4.4.0"
    bed = Testbed(base_dir=tmp_path / "tb", plugins=False)
    assert (bed.version, bed.libs) == ("4.1.2", tmp_path / "kafka-libs-4.1.2")
    assert Testbed(base_dir=tmp_path / "tb", plugins=False, kafka_version="4.3.1").version == "4.3.1"


@pytest.mark.parametrize("value", ["latest", "4.4", "4.4.0; rm -rf /", "v4.4.0"])
def test_a_malformed_release_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(kafkaversion.ENV, value)
    with pytest.raises(kafkaversion.KafkaVersionError, match=kafkaversion.ENV):
        kafkaversion.kafka_version()


def test_a_log4j_binding_that_does_not_match_the_core_is_refused(tmp_path: Path) -> None:
    for name in ("log4j-core-2.25.5.jar", "log4j-slf4j-impl-2.25.5.jar"):
        (tmp_path / name).touch()
    kafkaversion._check_log4j(tmp_path, "9.9.9")  # matching pair, no kafka-server POM to compare
    (tmp_path / "log4j-slf4j-impl-2.25.5.jar").unlink()
    (tmp_path / "log4j-slf4j-impl-2.24.3.jar").touch()
    with pytest.raises(kafkaversion.KafkaVersionError, match="add a profile for 9.9.9"):
        kafkaversion._check_log4j(tmp_path, "9.9.9")


def test_java_peers_of_another_release_build_beside_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    project = "tests/java/plugin-clients"
    target = javaharness.ROOT / project / "target"
    monkeypatch.delenv(kafkaversion.ENV, raising=False)
    assert javaharness.output_dir(project) == target
    assert javaharness.output_dir(project, "3.5.2") == target / "kafka-3.5.2"
    monkeypatch.setenv(kafkaversion.ENV, "4.1.2")
    assert javaharness.output_dir(project) == target / "kafka-4.1.2"
    monkeypatch.setenv(kafkaversion.ENV, javaharness.pom_kafka_version(project) or "")
    assert javaharness.output_dir(project) == target
    parity = "tests/java/core-parity"  # no kafka.version: always target/
    assert javaharness.output_dir(parity) == javaharness.ROOT / parity / "target"
