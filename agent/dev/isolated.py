"""An agent that shares a cluster with others without touching theirs: one topic layout.

The tests, the chaos suite, the agent benchmark and the demo each run agents beside other
agents on one cluster. Such an agent needs every one of its topics under its own names, its
own consumer group and its own transactional ids, and advises only the topics it plans. The
topic roles are read from the settings model itself (agent.config.settings.TopicSettings), so
a role added there is isolated everywhere at once.

Example::

    isolated_agent_config("127.0.0.1:19092", "t-42")["topics"]["plans"]   # "t-42.plans"
    tagged_topics("-x7", 3)["plans"]                                      # "rackwise.plans-x7"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.config.settings import TopicSettings

TOPIC_ROLES: tuple[str, ...] = tuple(
    name for name, field in TopicSettings.model_fields.items() if isinstance(field.default, str)
)


def prefixed_topics(prefix: str, partitions: int = 3) -> dict[str, Any]:
    """Every topic role named ``<prefix>.<role>``."""
    return {**{role: f"{prefix}.{role}" for role in TOPIC_ROLES}, "partitions": partitions}


def tagged_names(tag: str) -> dict[str, str]:
    """Every topic role's default name with ``tag`` appended (the demo's layout)."""
    defaults = TopicSettings()
    return {role: str(getattr(defaults, role)) + tag for role in TOPIC_ROLES}


def tagged_topics(tag: str, partitions: int = 3) -> dict[str, Any]:
    """:func:`tagged_names` as the ``topics`` table of the settings."""
    return {**tagged_names(tag), "partitions": partitions}


def merged(doc: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` with ``overrides`` on top; a table given in both is merged one level deep."""
    out = dict(doc)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def isolated_agent_config(
    bootstrap: str | None, prefix: str, *, partitions: int = 3, **overrides: Any
) -> dict[str, Any]:
    """The settings (plain data, as ``rackwise agent run --config`` reads them) of an agent
    isolated under ``prefix``; ``overrides`` go on top with :func:`merged`."""
    doc: dict[str, Any] = {
        "transactional_id_prefix": f"{prefix}-agent",
        "topics": prefixed_topics(prefix, partitions),
        # only the topics the agent plans: the cluster is shared, and measuring every topic
        # on it each round would load it for nothing
        "advice": {"topics": []},
        "input": {"group_id": f"{prefix}-agents"},
    }
    if bootstrap is not None:
        doc["bootstrap"] = bootstrap
    return merged(doc, overrides)
