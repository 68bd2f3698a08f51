"""deploy/prometheus: the alerting and recording rules pass `promtool check rules` and their own
`promtool test rules`, every alert has a case that fires and one that does not, and every
metric the rules name is one the agent exports (the plug-ins' one excepted, listed below).

promtool comes from Debian's `prometheus` package (`make setup` installs it where it can).
Without it these tests skip and say so, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.promnames import agent_metric_names, metric_names

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[3]
RULES = ROOT / "deploy" / "prometheus" / "rackwise-rules.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "rackwise-rules.test.yml"
# Metrics the rules may use that the agent does not export, and whose they are.
NOT_THE_AGENTS = {
    "rackwise_plugin_fallbacks_total": "the JVM plug-ins' fallback counter, as the brokers' JMX "
                                       "exporter names it with deploy/prometheus/jmx-exporter.yml "
                                       "(tests/unit/deploy/test_jmx_exporter_config.py)",
    "up": "Prometheus' own, one per scrape target",
}


def _promtool() -> str:
    exe = shutil.which("promtool")
    if exe is None:
        reason = "promtool not installed: run `make setup` (apt-get install prometheus)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return exe


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_promtool(), *args], capture_output=True, text=True, timeout=120,
                          cwd=RULES.parent)


def _rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load(RULES.read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_rules_pass_promtool_check() -> None:
    proc = _run("check", "rules", RULES.name)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_rules_pass_their_promtool_unit_tests() -> None:
    proc = _run("test", "rules", RULE_TESTS.name)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_alert_has_a_case_that_fires_and_one_that_does_not() -> None:
    alerts = sorted(r["alert"] for r in _rules() if "alert" in r)
    cases: dict[str, set[bool]] = {a: set() for a in alerts}
    doc = yaml.safe_load(RULE_TESTS.read_text())
    assert doc["rule_files"] == [RULES.name]
    for test in doc["tests"]:
        for case in test.get("alert_rule_test", []):
            assert case["alertname"] in cases, f"a test for an unknown alert: {case['alertname']}"
            cases[case["alertname"]].add(bool(case.get("exp_alerts")))
    missing = {a: sorted({True, False} - seen) for a, seen in cases.items()
               if seen != {True, False}}
    assert not missing, f"alerts without a firing (True) or a quiet (False) case: {missing}"
    recorded = [r["record"] for r in _rules() if "record" in r]
    tested = {case["expr"] for test in doc["tests"] for case in test.get("promql_expr_test", [])}
    fleet = [name for name in recorded if name.startswith(("plan:", "rackwise:"))]
    assert fleet and set(fleet) <= tested, "the fleet recording rules need expression tests"


def test_every_metric_the_rules_use_is_exported_by_the_agent() -> None:
    exported = agent_metric_names()
    recorded = {r["record"] for r in _rules() if "record" in r}
    used: dict[str, set[str]] = {}
    for rule in _rules():
        for name in metric_names(rule["expr"]):
            used.setdefault(name, set()).add(rule.get("alert") or rule["record"])
    unknown = {name: sorted(rules) for name, rules in sorted(used.items())
               if name not in exported and name not in recorded and name not in NOT_THE_AGENTS}
    assert not unknown, f"metrics nobody exports (rules using them): {unknown}"
    # the exceptions are used and really are not the agent's
    assert set(NOT_THE_AGENTS) <= set(used) and not set(NOT_THE_AGENTS) & exported
    # each kind of agent metric the rules lean on is there: a sanity check of the scan itself
    assert {"rackwise_plan_failures_total", "rackwise_assigned_partitions",
            "rackwise_observed_cross_rack_cost_dollars_per_month",
            "rackwise_plan_latency_seconds_bucket"} <= exported


@pytest.mark.parametrize("expr, names", [
    ('sum by (job, plan) (increase(rackwise_a_total{plan="rackwise_b", x=~"y|z"}[15m])) > 0',
     {"rackwise_a_total"}),
    ("max by (group) (m1) - ignoring (plan) group_left m2 unless on (job) up == 0",
     {"m1", "m2", "up"}),
    ("sum(clamp_min(level:rackwise_x:max, 0)) or vector(1)", {"level:rackwise_x:max"}),
    ("rate(rackwise_c_total[5m] offset 1h) / 2e3", {"rackwise_c_total"}),
])
def test_metric_names_finds_what_an_expression_selects(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names
