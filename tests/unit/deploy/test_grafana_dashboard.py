"""deploy/grafana: the dashboard parses, every panel queries something, every metric its
queries name is exported by the agent or the brokers' JMX exporter (with
deploy/prometheus/jmx-exporter.yml), and the provisioning files point Grafana at it. That
the queries return series from real exporters is tests/integration/test_dashboard_live.py."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.promnames import ROOT, agent_metric_names, broker_metric_names, metric_names

pytestmark = pytest.mark.unit
GRAFANA = ROOT / "deploy" / "grafana"
DASHBOARD = GRAFANA / "dashboards" / "rackwise.json"
PROMETHEUS_OWN = {"up"}


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) for every target of every panel."""
    doc = json.loads(DASHBOARD.read_text())
    return [(panel["title"], target["expr"]) for panel in doc["panels"]
            for target in panel.get("targets", [])]


def test_every_panel_but_rows_has_a_query() -> None:
    doc = json.loads(DASHBOARD.read_text())
    assert doc["uid"] == "rackwise"
    panels = [p for p in doc["panels"] if p["type"] != "row"]
    assert len(panels) >= 8
    empty = [p["title"] for p in panels if not p.get("targets")]
    assert not empty, empty
    ids = [p["id"] for p in doc["panels"]]
    assert len(ids) == len(set(ids))


def test_every_metric_a_panel_names_is_exported() -> None:
    known = agent_metric_names() | broker_metric_names() | PROMETHEUS_OWN
    unknown = {(title, name) for title, expr in dashboard_queries()
               for name in metric_names(expr) if name not in known}
    assert not unknown, f"panels naming metrics nobody exports: {sorted(unknown)}"


def test_the_panels_the_issue_asks_for_are_there() -> None:
    names = {name for _, expr in dashboard_queries() for name in metric_names(expr)}
    assert {"rackwise_observed_cross_rack_cost_dollars_per_month",
            "rackwise_observed_cross_rack_bytes_per_second",
            "rackwise_observed_rack_pair_bytes_per_second", "rackwise_plans_total",
            "rackwise_plugin_assign_time_max_seconds", "rackwise_plugin_fallbacks_total",
            "up"} <= names


def test_provisioning_points_at_the_dashboard_and_its_datasource() -> None:
    doc = json.loads(DASHBOARD.read_text())
    uids = {t["datasource"]["uid"] for p in doc["panels"] for t in p.get("targets", [])}
    sources = yaml.safe_load((GRAFANA / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert uids == {s["uid"] for s in sources["datasources"]} == {"rackwise-prometheus"}
    providers = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "rackwise.yml").read_text())
    assert [p["type"] for p in providers["providers"]] == ["file"]
