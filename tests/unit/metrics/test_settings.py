"""Kafka pass-through settings of the metrics job: names, SASL translation, no secrets in logs."""

from __future__ import annotations

import pytest

from metrics.settings import MetricsSettings, client_config, redacted, spark_kafka_options
from protocol.kafkaconf import MASK

pytestmark = pytest.mark.unit


def test_env_settings_pass_through_as_kafka_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKWISE_BOOTSTRAP", "b1:9092")
    monkeypatch.setenv("RACKWISE_KAFKA__SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("RACKWISE_KAFKA__SASL_MECHANISM", "SCRAM-SHA-512")
    monkeypatch.setenv("RACKWISE_KAFKA__SASL_USERNAME", "svc")
    monkeypatch.setenv("RACKWISE_KAFKA__SASL_PASSWORD", 'p"w')
    options = spark_kafka_options(MetricsSettings())
    assert options["kafka.bootstrap.servers"] == "b1:9092"
    assert options["kafka.security.protocol"] == "SASL_SSL"
    assert options["kafka.sasl.mechanism"] == "SCRAM-SHA-512"
    assert options["kafka.sasl.jaas.config"] == (
        'org.apache.kafka.common.security.scram.ScramLoginModule required '
        'username="svc" password="p\\"w";')
    assert "kafka.sasl.username" not in options and "kafka.sasl.password" not in options


def test_explicit_jaas_wins_and_secrets_are_redacted() -> None:
    settings = MetricsSettings(kafka={"sasl_jaas_config": "X required;", "sasl_username": "u",
                                      "sasl_password": "hunter2"})
    assert client_config(settings)["sasl.jaas.config"] == "X required;"
    shown = redacted(spark_kafka_options(settings))
    assert shown["kafka.sasl.jaas.config"] == MASK
    assert "hunter2" not in repr(shown) and "hunter2" not in repr(redacted(settings.kafka))


def test_checkpoint_defaults_under_output(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert MetricsSettings(output=tmp_path).checkpoint_dir == tmp_path / "_checkpoints"
    assert MetricsSettings(output=tmp_path, checkpoint=tmp_path / "c").checkpoint_dir == tmp_path / "c"
