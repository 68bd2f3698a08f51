"""Agent settings: one small pydantic model per component, read from RACKWISE_* and a file.

Priority, highest first: explicit overrides (CLI flags), environment (``RACKWISE_BOOTSTRAP``,
nested with ``__``: ``RACKWISE_METADATA__INTERVAL_S=10``), the ``--config`` file (TOML or
JSON), defaults. Every Kafka client property passes through ``kafka``::

    RACKWISE_KAFKA__SECURITY_PROTOCOL=SASL_SSL       -> security.protocol
    RACKWISE_KAFKA__SASL_PASSWORD=...                -> sasl.password (kept as a SecretStr)

Secret-looking properties (password, secret, jaas, private key) become ``SecretStr`` so
they never appear in logs, reprs or ``redacted()``; ``client_config()`` unwraps them only
for the Kafka client constructor.
"""

from __future__ import annotations

import json
import os
import socket
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from agent.brokers.traffic import TrafficSettings
from agent.config.cost import CostSettings
from protocol.errors import RackwiseError
from protocol.kafkaconf import MASK, is_secret_key, property_name

_CONFIG_FILE: ContextVar[Path | None] = ContextVar("rackwise_config_file", default=None)


class SettingsError(RackwiseError):
    """The agent configuration cannot be read or is invalid."""


class TopicSettings(BaseModel):
    """The agent's topics (docs/architecture.md § Topics; names are contract defaults)."""

    subscriptions: str = "rackwise.subscriptions"
    plans: str = "rackwise.plans"
    control: str = "rackwise.control"
    deadletter: str = "rackwise.deadletter"
    advice: str = Field(
        default="rackwise.advice", description="compacted; what the agent advises Kafka's plug-ins"
    )
    partitions: int = Field(default=6, ge=1, description="for subscriptions and plans alike")
    replication_factor: int = Field(default=-1, description="-1: the broker default")
    create: bool = True


class InputSettings(BaseModel):
    """How agents share the subscriptions topic."""

    group_id: str = "rackwise-agent"
    session_timeout_ms: int = Field(
        default=30_000, ge=100, description="a member not heard from this long is expired"
    )
    poll_timeout_ms: int = Field(
        default=20, ge=1, description="the loop also reads plug-in requests between polls"
    )
    agent_session_timeout_ms: int = Field(
        default=10_000, ge=1000,
        description="the agents' own consumer-group session (librdkafka session.timeout.ms): "
        "below the members' session, so a crashed agent's groups move on before its members "
        "would be expired; kafka.session.timeout.ms overrides it",
    )


class MetadataSettings(BaseModel):
    """Replica-rack polling."""

    interval_s: float = Field(default=30.0, gt=0)
    debounce_s: float = Field(default=60.0, ge=0)
    request_timeout_s: float = Field(default=15.0, gt=0)
    attempts: int = Field(default=5, ge=1)


class AssignorRule(BaseModel):
    """Groups whose id matches ``pattern`` (fnmatch) use ``assignor``."""

    pattern: str
    assignor: str
    config: dict[str, float | int | bool | str] = Field(
        default_factory=dict,
        description="the assignor's settings for Kafka's plug-ins, e.g. traffic_cost, "
        "non_overlap_cost: published as advice (rackwise.advice, key group/<pattern>)",
    )


class PlannerSettings(BaseModel):
    """Which assignor plans which group, and how changes are coalesced."""

    consumer_assignor: str = "cooperative-sticky"
    streams_assignor: str = "high-availability"
    rules: list[AssignorRule] = Field(default_factory=list)
    coalesce_ms: int = Field(default=50, ge=0, description="wait this long for more changes")
    streams_topologies: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="group-id pattern -> streams topology (docs/architecture.md § Scenarios)",
    )
    streams_config: dict[str, Any] = Field(default_factory=dict)


class ObserveSettings(BaseModel):
    """Observe mode (docs/architecture.md § Agent behaviour): audit live classic groups on a timer
    (agent.daemon.observe)."""

    groups: str | None = Field(
        default=None, description="fnmatch pattern of group ids to observe; unset: off"
    )
    interval_s: float = Field(default=60.0, gt=0)
    publish: bool = Field(
        default=True, description="publish observed + recommended plans to the plans topic"
    )
    request_timeout_s: float = Field(default=15.0, gt=0)


class AdviceSettings(BaseModel):
    """What the agent advises Kafka's plug-ins on ``topics.advice`` (docs/architecture.md § Advice)."""

    enabled: bool = True
    topics: list[str] = Field(
        default_factory=lambda: ["*"],
        description="fnmatch patterns of topics to measure and advise, beside those of the groups "
        "the agent plans; internal topics (__*) and the agent's own never",
    )
    interval_s: float = Field(
        default=30.0, ge=0, description="at most one record per key this often"
    )
    refresh_s: float = Field(
        default=300.0, gt=0,
        description="re-publish unchanged advice this often, so a live agent's advice never "
        "looks stale (plug-ins' rackwise.advice.max.age.ms defaults to 900000)",
    )
    min_change_pct: float = Field(
        default=10.0, ge=0,
        description="a partition's bytes/s moving by more than this % of the larger of its old "
        "rate and its topic's mean is a change worth publishing at once",
    )
    max_record_bytes: int = Field(
        default=1_000_000, ge=1024,
        description="a record larger than this is not published (plug-ins ignore it too)",
    )


class OpsSettings(BaseModel):
    """/healthz and /metrics."""

    host: str = "127.0.0.1"
    port: int = Field(default=9464, ge=-1, description="0: any free port; -1: disabled")


class LogSettings(BaseModel):
    level: str = "INFO"
    format: str = Field(default="auto", pattern="^(auto|json|console)$")


def _default_instance() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class AgentSettings(BaseSettings):
    """Everything ``rackwise agent run`` needs."""

    model_config = SettingsConfigDict(
        env_prefix="RACKWISE_", env_nested_delimiter="__", extra="forbid", case_sensitive=False
    )

    bootstrap: str = "127.0.0.1:9092"
    instance_id: str = Field(default_factory=_default_instance)
    transactional_id_prefix: str = "rackwise-agent"
    kafka: dict[str, str | SecretStr] = Field(default_factory=dict)
    topics: TopicSettings = Field(default_factory=TopicSettings)
    input: InputSettings = Field(default_factory=InputSettings)
    metadata: MetadataSettings = Field(default_factory=MetadataSettings)
    planner: PlannerSettings = Field(default_factory=PlannerSettings)
    ops: OpsSettings = Field(default_factory=OpsSettings)
    observe: ObserveSettings = Field(default_factory=ObserveSettings)
    traffic: TrafficSettings = Field(default_factory=TrafficSettings)
    advice: AdviceSettings = Field(default_factory=AdviceSettings)
    cost: CostSettings = Field(default_factory=CostSettings)
    log: LogSettings = Field(default_factory=LogSettings)

    @model_validator(mode="before")
    @classmethod
    def _retired_keys(cls, raw: Any) -> Any:
        """Settings of the removed Streams request service (``requests.*``, ``topics.requests``;
        the KIP-924 task assignor now decides in-process) are ignored with a warning, so
        an agent upgraded with its old config still starts."""
        if not isinstance(raw, dict):
            return raw
        out = dict(raw)
        retired = []
        if "requests" in out:
            out.pop("requests")
            retired.append("requests")
        topics = out.get("topics")
        if isinstance(topics, dict) and "requests" in topics:
            out["topics"] = {k: v for k, v in topics.items() if k != "requests"}
            retired.append("topics.requests")
        if retired:
            structlog.get_logger("rackwise.settings").warning(
                "ignoring retired settings: the Streams request service is gone (the task "
                "assignor decides in-process)", keys=retired)
        return out

    @field_validator("kafka", mode="before")
    @classmethod
    def _kafka_keys(cls, raw: Any) -> Any:
        if not isinstance(raw, dict):
            return raw
        out: dict[str, Any] = {}
        for key, value in raw.items():
            # RACKWISE_KAFKA__SASL_USERNAME arrives as "sasl_username": librdkafka uses dots.
            name = property_name(key)
            if isinstance(value, SecretStr):
                out[name] = value
            else:
                text = str(value).lower() if isinstance(value, bool) else str(value)
                out[name] = SecretStr(text) if is_secret_key(name) else text
        return out

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _FileSource(settings_cls, _CONFIG_FILE.get()))

    def client_config(self, **extra: Any) -> dict[str, Any]:
        """librdkafka properties: bootstrap, the pass-through ``kafka`` dict, then ``extra``."""
        conf: dict[str, Any] = {"bootstrap.servers": self.bootstrap}
        for key, value in self.kafka.items():
            conf[key] = value.get_secret_value() if isinstance(value, SecretStr) else value
        conf.update(extra)
        return conf

    def redacted(self) -> dict[str, Any]:
        """The settings as plain data with every secret masked: safe to log or print."""
        data = self.model_dump(mode="json")
        data["kafka"] = {
            k: (MASK if isinstance(v, SecretStr) or is_secret_key(k) else v)
            for k, v in self.kafka.items()
        }
        return data


class _FileSource(PydanticBaseSettingsSource):
    """The ``--config`` file: TOML (``.toml``) or JSON; optional ``[rackwise]`` table."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None) -> None:
        super().__init__(settings_cls)
        self._data = read_config_file(path) if path else {}

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


def read_config_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"cannot read config file {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SettingsError(
            f"config file {path} is not valid {path.suffix or 'JSON'}: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"config file {path}: expected a table/object at the top")
    section = data.get("rackwise", data)
    if not isinstance(section, dict):
        raise SettingsError(f"config file {path}: [rackwise] must be a table")
    return section


def load_settings(config_file: str | Path | None = None, **overrides: Any) -> AgentSettings:
    """Settings from overrides > RACKWISE_* environment > config file > defaults."""
    from pydantic import ValidationError

    token = _CONFIG_FILE.set(Path(config_file) if config_file else None)
    try:
        return AgentSettings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "<root>"
        raise SettingsError(f"invalid agent setting {where}: {first.get('msg')}") from None
    finally:
        _CONFIG_FILE.reset(token)
