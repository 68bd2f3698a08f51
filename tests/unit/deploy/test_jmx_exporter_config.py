"""deploy/prometheus/jmx-exporter.yml turns every figure of rackwise's plug-in MBeans
(PluginMetrics.java) into a ``rackwise_plugin_*`` series, and the names the rules use for the
plug-ins are the ones it makes. The live check (the brokers' exporter really serving them,
Prometheus scraping them) is tests/integration/test_dashboard_live.py."""

from __future__ import annotations

import pytest
import yaml

from tests.support.promnames import (
    JMX_EXPORTER_CONFIG,
    PLUGIN_FALLBACK_REASONS,
    jmx_exporter_names,
    metric_names,
    plugin_attributes,
)

pytestmark = pytest.mark.unit
RULES = JMX_EXPORTER_CONFIG.parent / "rackwise-rules.yml"
# FallbacksTotal is the sum of the Fallbacks_<reason> attributes: exporting it as well would
# count every fallback twice in sum(rackwise_plugin_fallbacks_total).
LEFT_OUT = {"FallbacksTotal"}


def test_every_plugin_figure_has_a_rackwise_plugin_series() -> None:
    attrs = plugin_attributes()
    assert {"AssignmentsComputed", "AssignTimeAvgMs", "AssignTimeMaxMs", "AdviceAgeMs",
            "PlansPublished", "PlansDropped", "PlansFailed"} <= set(attrs), attrs
    names = jmx_exporter_names()
    unnamed = [line for line, name in names.items()
               if name is None and line.split("<>")[1].split(":")[0] not in LEFT_OUT]
    assert not unnamed, f"plug-in attributes no rule of {JMX_EXPORTER_CONFIG.name} exports: {unnamed}"
    exported = {n for n in names.values() if n}
    assert all(n.startswith("rackwise_plugin_") for n in exported), exported
    assert {"rackwise_plugin_assignments_total", "rackwise_plugin_fallbacks_total",
            "rackwise_plugin_assign_time_max_seconds", "rackwise_plugin_advice_age_seconds",
            "rackwise_plugin_plans_published_total", "rackwise_plugin_plans_failed_total"} <= exported


def test_fallbacks_are_one_counter_labelled_by_reason() -> None:
    names = jmx_exporter_names()
    for reason in PLUGIN_FALLBACK_REASONS:
        lines = [line for line in names if line.endswith(f"<>Fallbacks_{reason}: 1")]
        assert lines and all(names[line] == "rackwise_plugin_fallbacks_total" for line in lines)
    config = yaml.safe_load(JMX_EXPORTER_CONFIG.read_text())
    fallback_rules = [r for r in config["rules"] if r.get("name") == "rackwise_plugin_fallbacks"]
    assert len(fallback_rules) == 1 and fallback_rules[0]["labels"]["reason"] == "$3"


def test_the_rules_name_only_plugin_series_the_exporter_makes() -> None:
    exported = {n for n in jmx_exporter_names().values() if n}
    doc = yaml.safe_load(RULES.read_text())
    used = {name for group in doc["groups"] for rule in group["rules"]
            for name in metric_names(rule["expr"]) if name.startswith("rackwise_plugin_")}
    assert used and used <= exported, used - exported


def test_only_named_mbeans_are_read() -> None:
    """A broker has thousands of MBeans; reading them all on every scrape costs it CPU."""
    config = yaml.safe_load(JMX_EXPORTER_CONFIG.read_text())
    assert "kafka.rackwise:*" in config["includeObjectNames"]
    assert config["lowercaseOutputName"] is True
