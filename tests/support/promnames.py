"""Which Prometheus metric names exist, for the tests of deploy/ (rules, dashboard, exporter).

* :func:`metric_names`: the metric (and recorded series) names a PromQL expression selects.
* :func:`agent_metric_names`: every sample name the agent exports (its Metrics registry, plus any
  prometheus_client metric registered elsewhere in the sources).
* :func:`jmx_exporter_names`: every sample name the brokers' JMX exporter makes of rackwise's
  plug-in MBeans with deploy/prometheus/jmx-exporter.yml, found by applying that file's rules
  the way the exporter does (first matching rule names the attribute; COUNTER adds ``_total``)
  to the attributes PluginMetrics.java declares.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
JMX_EXPORTER_CONFIG = ROOT / "deploy" / "prometheus" / "jmx-exporter.yml"
PLUGIN_METRICS_JAVA = (ROOT / "plugins" / "src" / "main" / "java" / "dev" / "rackwise" / "plugins"
                       / "metrics" / "PluginMetrics.java")
# PromQL words that are not metric names: aggregations, binary-operator keywords, modifiers.
_KEYWORDS = frozenset({
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
    "topk", "quantile", "limitk", "by", "without", "on", "ignoring", "group_left", "group_right",
    "and", "or", "unless", "bool", "offset"})
_SOURCES = ("agent", "metrics", "protocol", "assignor")
# The plug-ins' fallback reasons (RackwiseGroupAssignor / RackwiseAssignor INTERNAL, and the
# catch-all PluginMetrics.OTHER): each is one Fallbacks_<reason> attribute.
PLUGIN_FALLBACK_REASONS = ("internal", "other")


def metric_names(expr: str) -> set[str]:
    """The metric (and recorded series) names a PromQL expression selects."""
    expr = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`', '""', expr)  # strings
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1",
                  expr)  # label lists
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # range and subquery durations
    names = set()
    for m in re.finditer(r"(?<![\w:.$])([A-Za-z_:][\w:]*)(\s*\()?", expr):
        word, call = m.group(1), m.group(2)
        if not call and word not in _KEYWORDS:
            names.add(word)
    return names


def agent_metric_names() -> set[str]:
    """Every sample name the agent exposes: its Metrics registry, plus any metric registered
    anywhere else in the code (found by scanning the sources for prometheus_client calls)."""
    from agent.daemon.ops import Metrics

    names = {s.name for family in Metrics().registry.collect() for s in family.samples}
    pattern = re.compile(r"\b(Counter|Gauge|Histogram|Summary)\(\s*\"([A-Za-z_:][\w:]*)\"")
    for folder in _SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for kind, name in pattern.findall(path.read_text(encoding="utf-8")):
                base = name.removesuffix("_total")
                names.update({
                    "Counter": {f"{base}_total"},
                    "Gauge": {name},
                    "Histogram": {f"{name}_bucket", f"{name}_sum", f"{name}_count"},
                    "Summary": {name, f"{name}_sum", f"{name}_count"},
                }[kind])
    return names


def plugin_attributes() -> list[str]:
    """The JMX attribute names of a PluginMetrics MBean, read from its source."""
    source = PLUGIN_METRICS_JAVA.read_text(encoding="utf-8")
    attrs = re.findall(r'out\.put\("(\w+)"\s*,', source)
    if 'out.put("Fallbacks_" +' in source:
        attrs += [f"Fallbacks_{reason}" for reason in PLUGIN_FALLBACK_REASONS]
    return attrs


def _exported_name(rule: dict[str, Any], match: re.Match[str], lowercase: bool) -> str:
    name = re.sub(r"\$(\d+)", lambda g: match.group(int(g.group(1))), rule["name"])
    name = re.sub(r"[^a-zA-Z0-9:_]", "_", name)
    if lowercase:
        name = name.lower()
    if rule.get("type") == "COUNTER" and not name.endswith("_total"):
        name += "_total"
    return name


def jmx_exporter_names() -> dict[str, str | None]:
    """{attribute line: exported name, or None when no rule matches} for each plug-in MBean
    attribute, for both plug-in MBean types."""
    config = yaml.safe_load(JMX_EXPORTER_CONFIG.read_text())
    rules = config.get("rules", [])
    out: dict[str, str | None] = {}
    for bean in ("kafka.rackwise<type=RackwiseGroupAssignor, name=broker-1>",
                 "kafka.rackwise<type=RackwiseAssignor, name=g-1>"):
        for attr in plugin_attributes():
            line = f"{bean}<>{attr}: 1"
            out[line] = None
            for rule in rules:
                # the exporter wraps each pattern as ^.*(?:pattern).*$ (Java regex)
                match = re.match(f"^.*(?:{rule['pattern']}).*$", line)
                if match:
                    if "name" in rule:
                        out[line] = _exported_name(rule, match, config.get("lowercaseOutputName", False))
                    break
    return out
