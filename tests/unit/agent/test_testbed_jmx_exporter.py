"""The testbed attaches the Prometheus JMX exporter to each broker JVM when the jar is in the
cache (and RACKWISE_TESTBED_JMX_EXPORTER is not 0), on the node's client port + 9, bound to
the loopback, with deploy/prometheus/jmx-exporter.yml. That the brokers then really serve
rackwise_plugin_* is tests/integration/test_dashboard_live.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.dev import testbed

pytestmark = pytest.mark.unit


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RACKWISE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RACKWISE_TESTBED_JMX_EXPORTER", raising=False)
    return tmp_path


def _bed(tmp_path: Path, base: int = 24000, sasl: bool = False) -> testbed.Testbed:
    return testbed.Testbed(base_dir=tmp_path / "tb", port_base=base, sasl=sasl, plugins=False)


def _jar(cache: Path) -> Path:
    jar = cache / "jmx-exporter" / "jmx_prometheus_javaagent.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"")
    return jar


def test_each_broker_gets_the_agent_on_its_own_port(cache: Path) -> None:
    jar = _jar(cache)
    bed = _bed(cache, sasl=True)
    ports = [bed.jmx_exporter_port(n) for n in bed.nodes]
    assert ports == [24009, 24109, 24209]
    used = {p for n in bed.nodes for p in (n.client_port, n.controller_port, n.sasl_port)}
    assert not used & set(ports)  # clear of every listener
    node = bed.nodes[1]
    arg = f"-javaagent:{jar}=127.0.0.1:24109:{testbed.JMX_EXPORTER_CONFIG}"
    assert bed._jmx_exporter_args(node) == [arg]
    cmd = bed._java_cmd(node)
    assert arg in cmd and cmd.index(arg) < cmd.index("-cp")  # a JVM option, before the main class
    assert testbed.JMX_EXPORTER_CONFIG.is_file()


def test_no_jar_or_opted_out_means_no_exporter(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bed = _bed(cache)
    assert [bed.jmx_exporter_port(n) for n in bed.nodes] == [None] * 3  # no jar fetched
    assert bed._jmx_exporter_args(bed.nodes[0]) == []
    _jar(cache)
    monkeypatch.setenv("RACKWISE_TESTBED_JMX_EXPORTER", "0")
    assert bed._jmx_exporter_args(bed.nodes[0]) == []
    assert not any(a.startswith("-javaagent") for a in bed._java_cmd(bed.nodes[0]))
