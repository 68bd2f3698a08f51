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


# Lines of the Kafka broker MBeans jmx-exporter.yml reads, as the exporter writes them (seen
# on the testbed's 4.3.1 brokers), for the broker series the dashboard uses.
BROKER_BEAN_LINES = (
    "kafka.server<type=BrokerTopicMetrics, name=BytesOutPerSec, topic=t><>Count: 1",
    "kafka.server<type=BrokerTopicMetrics, name=BytesInPerSec, topic=t><>Count: 1",
    "kafka.network<type=RequestMetrics, name=RequestsPerSec, request=FetchConsumer, version=17><>Count: 1",
    "kafka.server<type=KafkaServer, name=BrokerState><>Value: 3",
)


def jmx_exporter_name(line: str) -> str | None:
    """The series name the exporter makes of one attribute line, None when no rule names it."""
    config = yaml.safe_load(JMX_EXPORTER_CONFIG.read_text())
    for rule in config.get("rules", []):
        # the exporter wraps each pattern as ^.*(?:pattern).*$ (Java regex)
        match = re.match(f"^.*(?:{rule['pattern']}).*$", line)
        if match:
            if "name" not in rule:
                return None
            return _exported_name(rule, match, config.get("lowercaseOutputName", False))
    return None


def jmx_exporter_names() -> dict[str, str | None]:
    """{attribute line: exported name, or None when no rule matches} for each plug-in MBean
    attribute, for both plug-in MBean types."""
    return {line: jmx_exporter_name(line)
            for bean in ("kafka.rackwise<type=RackwiseGroupAssignor, name=broker-1>",
                         "kafka.rackwise<type=RackwiseAssignor, name=g-1>")
            for line in (f"{bean}<>{attr}: 1" for attr in plugin_attributes())}


def broker_metric_names() -> set[str]:
    """Every series name the brokers' JMX exporter serves: the plug-ins' and Kafka's own."""
    lines = [*jmx_exporter_names(), *BROKER_BEAN_LINES]
    return {name for name in map(jmx_exporter_name, lines) if name}
