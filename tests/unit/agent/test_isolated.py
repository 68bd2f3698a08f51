"""One isolated-agent layout (agent.dev.isolated) for the tests, the chaos suite, the benchmark
and the demo: every topic the agent has, under names no other agent uses."""

from __future__ import annotations

import pytest

from agent.config.settings import TopicSettings, load_settings
from agent.dev.isolated import TOPIC_ROLES, isolated_agent_config, tagged_topics

pytestmark = pytest.mark.unit


def test_every_topic_role_of_the_settings_is_isolated() -> None:
    named = {n for n, f in TopicSettings.model_fields.items() if f.annotation in (str, "str")}
    assert set(TOPIC_ROLES) == named and "advice" in named and "requests" not in named
    a = load_settings(None, **isolated_agent_config("b:1", "a"))
    b = load_settings(None, **isolated_agent_config("b:1", "b"))
    names_a = {getattr(a.topics, r) for r in TOPIC_ROLES}
    names_b = {getattr(b.topics, r) for r in TOPIC_ROLES}
    assert len(names_a) == len(TOPIC_ROLES) and not names_a & names_b
    assert not names_a & {getattr(TopicSettings(), r) for r in TOPIC_ROLES}
    assert a.input.group_id != b.input.group_id
    assert a.transactional_id_prefix != b.transactional_id_prefix


def test_overrides_merge_one_level_deep() -> None:
    doc = isolated_agent_config(None, "p", topics={"partitions": 1}, ops={"port": 0})
    assert doc["topics"]["plans"] == "p.plans" and doc["topics"]["partitions"] == 1
    assert "bootstrap" not in doc and doc["ops"] == {"port": 0}
    assert tagged_topics("-x")["subscriptions"] == "rackwise.subscriptions-x"
