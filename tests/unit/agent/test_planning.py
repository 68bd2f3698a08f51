"""Taking a plan job (agent.daemon.planning): generations and the topics a group plans."""

from __future__ import annotations

import pytest

from agent.config.settings import load_settings
from agent.daemon.planning import take_job
from agent.daemon.state import GroupTable
from tests.support.groups import sub

pytestmark = pytest.mark.unit


def test_generation_strictly_above_everything_seen() -> None:
    t = GroupTable()
    t.apply(0, b"g/c1", sub(["a"], gen=7), "consumer", 1.0)
    g = t.groups["g"]
    g.last_generation = 5
    settings = load_settings(bootstrap="x:1")
    assert take_job(g, settings.planner, ("a",)).generation == 8
    assert g.in_flight == 8
    g.in_flight = 9
    assert take_job(g, settings.planner, ("a",)).generation == 10


def test_streams_groups_watch_their_changelog_topics() -> None:
    """Standbys read changelogs: their racks must be described, or rack awareness turns off."""
    from agent.config.settings import PlannerSettings
    from agent.daemon.planning import planned_topics

    topology = {"subtopologies": [
        {"id": 0, "source_topics": ["clicks"], "changelog_topics": ["app-counts-changelog"],
         "stateful": True},
        {"id": 1, "source_topics": ["app-repartition"], "changelog_topics": [], "stateful": False},
    ]}
    settings = PlannerSettings(streams_topologies={"app-*": topology})
    assert planned_topics("app-1", "streams", ["clicks", "app-repartition"], settings) == (
        "app-counts-changelog", "app-repartition", "clicks")
    # consumer groups and unconfigured Streams groups: the subscribed topics only
    assert planned_topics("app-1", "consumer", ["clicks"], settings) == ("clicks",)
    assert planned_topics("other", "streams", ["clicks"], settings) == ("clicks",)
