"""Settings of the metrics job, and the Kafka options it hands to Spark.

Read from flags first, then RACKWISE_* environment variables, then defaults. Kafka-wide
client settings (security.protocol, sasl.*, ssl.*) come from RACKWISE_KAFKA__<NAME> with
``_`` standing for ``.`` (``RACKWISE_KAFKA__SECURITY_PROTOCOL=SASL_SSL``), the same form
as the agent's, and reach Spark's Kafka source and sink as ``kafka.<name>`` options.

Spark's Kafka client is the Java one, while the agent's is librdkafka: librdkafka's
``sasl.username``/``sasl.password`` are turned into the Java ``sasl.jaas.config`` line so
one set of variables serves both. Values of secret-looking keys are never logged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from protocol.kafkaconf import masked, property_name
from protocol.pricing import DEFAULT_DIRECTIONS, DEFAULT_PRICE_PER_GB, Price

_JAAS_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
_LIBRDKAFKA_ONLY = ("sasl.username", "sasl.password")


class MetricsSettings(BaseSettings):
    """What the Spark job reads, where it writes, and how it talks to Kafka."""

    model_config = SettingsConfigDict(env_prefix="RACKWISE_", env_nested_delimiter="__",
                                      extra="ignore")

    bootstrap: str = "127.0.0.1:19092,127.0.0.1:19192,127.0.0.1:19292"
    plans_topic: str = "rackwise.plans"
    metrics_topic: str = "rackwise.crt-metrics"
    output: Path = Path("out/crt")
    checkpoint: Path | None = Field(default=None, description="default: <output>/_checkpoints")
    master: str = "local[2]"
    starting_offsets: str = "earliest"
    watermark: str = "10 minutes"
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = Field(
        default=None, description="Spark tasks per batch reading plans; default 2 per core")
    kafka: dict[str, str] = Field(default_factory=dict)
    price_per_gb: float = Field(default=DEFAULT_PRICE_PER_GB, ge=0,
                                description="$ per GB crossing racks, per billed direction")
    billed_directions: int = Field(default=DEFAULT_DIRECTIONS, ge=1, le=2)

    @property
    def price(self) -> Price:
        return Price(self.price_per_gb, self.billed_directions)

    @property
    def checkpoint_dir(self) -> Path:
        return self.checkpoint or self.output / "_checkpoints"


def client_config(settings: MetricsSettings) -> dict[str, str]:
    """Kafka client settings with dotted names, librdkafka SASL turned into JAAS for Java."""
    conf = {property_name(key): str(value) for key, value in settings.kafka.items()}
    user, password = conf.get("sasl.username"), conf.get("sasl.password")
    if user is not None and password is not None and "sasl.jaas.config" not in conf:
        module = _JAAS_MODULES.get(conf.get("sasl.mechanism", "PLAIN").upper())
        if module is not None:
            conf["sasl.jaas.config"] = (f'{module} required username="{_quote(user)}" '
                                        f'password="{_quote(password)}";')
    for key in _LIBRDKAFKA_ONLY:
        conf.pop(key, None)
    return conf


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def spark_kafka_options(settings: MetricsSettings) -> dict[str, str]:
    """Options common to the Kafka source and sink: bootstrap plus every kafka.* pass-through."""
    options = {"kafka.bootstrap.servers": settings.bootstrap}
    options.update({f"kafka.{key}": value for key, value in client_config(settings).items()})
    return options


def redacted(options: dict[str, Any]) -> dict[str, Any]:
    """A copy safe to log: values of secret-looking keys masked (protocol.kafkaconf)."""
    return masked(options)
