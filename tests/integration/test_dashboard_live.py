"""The dashboard and the rules against a real Prometheus scraping a real agent and the testbed
brokers' JMX exporters.

Prometheus (Debian's /usr/bin/prometheus) is started here with a generated config: a 1 s scrape
of the agent's ops port (job ``rackwise-agent``, as the rules expect) and a 2 s scrape of each
broker's JMX exporter (agent/dev/testbed.py attaches it; label ``rack`` per broker, as
docker-compose.yml's Prometheus sets it), and deploy/prometheus/rackwise-rules.yml loaded.
Traffic: one topic fed at a steady rate, read by a classic group with a member per rack and by
a KIP-848 group using the brokers' rackwise assignor (group.remote.assignor=rackwise); the agent
observes both (observe mode, 2 s rounds), so plans, bytes and $/month exist.

Then every query of every panel of deploy/grafana/dashboards/rackwise.json, read from the JSON
(never listed here), must return at least one series: a panel naming a metric nobody exports
fails. Every rule of the rules file must be loaded and evaluate healthy.

RACKWISE_DASHBOARD_PICTURES=<folder> also draws docs/operating.md's pictures from this run
(agent/dev/dashboard_pictures.py), after RACKWISE_DASHBOARD_PICTURES_S seconds of data (120).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.dev import dashboard_pictures as pictures
from agent.dev.fetchstats import brokers_load_plugin
from agent.dev.testbed import HOST, Testbed
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import wait_until
from tests.support.trafficclients import CountingConsumers, SteadyProducer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "rackwise-rules.yml"
PROMETHEUS = "/usr/bin/prometheus"
RACKS = ("az1", "az2", "az3")
# Replicas (brokers 1/2/3 = az1/az2/az3): p0 has none in az2. The classic group (roundrobin,
# static members sorted so: a in az2, b in az3, c in az1) reads p0 in az2 across racks, every
# other partition locally; the best plan reads everything locally (as tests/integration/
# test_cost.py), so the dashboard's actual and best $/month differ. p0 carries the most bytes.
PLACEMENT = [[1, 3], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]
CLASSIC_MEMBERS = (("a", "az2"), ("b", "az3"), ("c", "az1"))
RATES = {0: 30.0, **dict.fromkeys(range(1, 6), 5.0)}  # records/s of 1,000 bytes
RATE_INTERVAL = "10s"  # what Grafana's $__rate_interval stands for at these scrape intervals
KIP848 = {"group.protocol": "consumer", "group.remote.assignor": "rackwise"}


def _free_port(first: int) -> int:
    """The first port from ``first`` on that nothing listens on (the testbed's block + 500)."""
    for port in range(first, first + 100):
        with socket.socket() as sock:
            if sock.connect_ex((HOST, port)) != 0:
                return port
    raise AssertionError(f"no free port in {first}..{first + 99}")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def exporters(bootstrap: str, admin: Any) -> dict[str, str]:
    """{rack: host:port} of the brokers' JMX exporters, once each serves rackwise's MBeans."""
    if not os.path.exists(PROMETHEUS):
        reason = f"{PROMETHEUS} not installed: run `make setup` (apt-get install prometheus)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    if os.environ.get("RACKWISE_BOOTSTRAP"):
        pytest.skip("RACKWISE_BOOTSTRAP names someone else's cluster: its JMX exporters are unknown")
    assert brokers_load_plugin(admin), ("the brokers do not load rackwise's KIP-848 assignor: "
                                        "build the jar (make plugins) before the testbed starts")
    bed = Testbed()
    ports = {n.rack: bed.jmx_exporter_port(n) for n in bed.nodes}
    assert all(ports.values()), ("no JMX exporter jar in the cache: run `make jars`, then restart "
                                 "the testbed (`rackwise testbed down`)")

    def serving() -> bool:
        with contextlib.suppress(OSError):
            return all("rackwise_plugin_assignments_total" in urllib.request.urlopen(
                f"http://{HOST}:{port}/metrics", timeout=10).read().decode() for port in ports.values())
        return False
    wait_until(serving, 30, "every broker's JMX exporter serves rackwise_plugin_* (a testbed "
               "started before the jar was fetched has none: `rackwise testbed down`)")
    return {rack: f"{HOST}:{port}" for rack, port in ports.items()}


def _prometheus_config(agent_port: int, exporters: dict[str, str]) -> dict[str, Any]:
    return {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(RULES)],
        "scrape_configs": [
            {"job_name": "rackwise-agent", "static_configs": [{"targets": [f"{HOST}:{agent_port}"]}]},
            {"job_name": "kafka-brokers", "scrape_interval": "2s", "scrape_timeout": "2s",
             "static_configs": [{"targets": [address], "labels": {"rack": rack}}
                                for rack, address in sorted(exporters.items())]},
        ],
    }


@contextlib.contextmanager
def _prometheus(config: dict[str, Any], port: int) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="rackwise-prom-") as tmp:
        path = Path(tmp) / "prometheus.yml"
        path.write_text(yaml.safe_dump(config))
        log = open(Path(tmp) / "prometheus.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={path}", f"--storage.tsdb.path={tmp}/data",
             f"--web.listen-address={HOST}:{port}", "--storage.tsdb.retention.time=1h"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        url = f"http://{HOST}:{port}"
        try:
            def ready() -> bool:
                assert proc.poll() is None, (Path(tmp) / "prometheus.log").read_text()[-3000:]
                with contextlib.suppress(OSError):
                    return urllib.request.urlopen(f"{url}/-/ready", timeout=2).status == 200
                return False
            wait_until(ready, 30, "Prometheus is ready")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            log.close()


def _classic(bootstrap: str, group: str, topic: str, brokers: dict[int, Any],
             members: tuple[tuple[str, str], ...]) -> CountingConsumers:
    return CountingConsumers(
        bootstrap, group, [topic], [rack for _, rack in members], brokers,
        extra=[{"group.instance.id": f"{m}-{group}", "session.timeout.ms": 10000,
                "partition.assignment.strategy": "roundrobin"} for m, _ in members])


def _empty_queries(url: str) -> list[tuple[str, str]]:
    """(panel, query) of every dashboard query that returns no series now."""
    return [(panel.title, target.expr) for panel in pictures.panels() for target in panel.targets
            if not pictures.query(url, pictures.promql(target.expr, RATE_INTERVAL))]


def _rules_state(url: str) -> list[tuple[str, str, str]]:
    """(name, health, lastError) of every loaded rule."""
    groups = _get(f"{url}/api/v1/rules")["data"]["groups"]
    return [(r["name"], r["health"], r.get("lastError", "")) for g in groups for r in g["rules"]]


def test_every_dashboard_query_returns_series_and_every_rule_is_healthy(
        bootstrap: str, admin: Any, exporters: dict[str, str]) -> None:
    started = time.monotonic()
    # short names (they are the dashboard's legends); observe only the two groups, not the
    # agent's own consumer group ("<prefix>-agents")
    prefix = f"dash-{uuid.uuid4().hex[:6]}"
    topic, classic, kip848 = prefix, f"{prefix}-g-classic", f"{prefix}-g-848"
    create_topic(admin, topic, PLACEMENT)
    brokers = rack_of_brokers(admin)
    # The agent's topics are its own, as in every test. For the pictures its plans topic is the
    # plug-ins' default, rackwise.plans (6 partitions, as test_plugins_inprocess.py makes it),
    # so that the brokers' plug-in, whose plans go there, has a topic to publish to: a series
    # of plans published. (Without it the plug-in's counters are still exported, at 0.)
    out = os.environ.get("RACKWISE_DASHBOARD_PICTURES")
    shared = {"plans": "rackwise.plans", "partitions": 6} if out else {}
    settings = isolated_settings(bootstrap, prefix, topics=shared,
                                 observe={"groups": f"{prefix}-g-*", "interval_s": 2.0})
    port = _free_port(Testbed().nodes[0].client_port + 500)
    with contextlib.ExitStack() as stack:
        stack.enter_context(SteadyProducer(bootstrap, topic, RATES))
        agent = stack.enter_context(AgentThread(settings))
        agent.wait_ready()
        assert agent.agent.ops_port
        url = stack.enter_context(_prometheus(_prometheus_config(agent.agent.ops_port, exporters), port))
        t0 = time.time()
        groups = [_classic(bootstrap, classic, topic, brokers, CLASSIC_MEMBERS),
                  CountingConsumers(bootstrap, kip848, [topic], RACKS, brokers, extra=[KIP848] * 3)]
        stack.callback(lambda: [g.close() for g in groups])  # the groups running at the end
        for group in groups:
            wait_until(lambda g=group: sum(map(len, g.owned())) == len(PLACEMENT), 60,
                       "every partition of the topic is assigned in both groups")

        last: list[tuple[str, str]] = []

        def all_answer() -> bool:
            nonlocal last
            last = _empty_queries(url)
            return not last
        try:
            wait_until(all_answer, 90, "every dashboard query returns a series", step=2.0)
        except AssertionError:
            raise AssertionError(f"dashboard queries with no series: {last}") from None

        # the rules: all of the file's, loaded, evaluated, healthy
        names = {r.get("alert") or r["record"] for g in yaml.safe_load(RULES.read_text())["groups"]
                 for r in g["rules"]}
        wait_until(lambda: all(h != "unknown" for _, h, _ in _rules_state(url)), 30,
                   "every rule has been evaluated")
        state = _rules_state(url)
        assert {name for name, _, _ in state} == names
        assert all(h == "ok" for _, h, _ in state), [s for s in state if s[1] != "ok"]
        targets = _get(f"{url}/api/v1/targets")["data"]["activeTargets"]
        assert sorted((t["labels"]["job"], t["health"]) for t in targets) == [
            ("kafka-brokers", "up")] * 3 + [("rackwise-agent", "up")]
        for t in targets:
            print(f"target {t['labels']['job']} {t['scrapeUrl']}: last scrape took "
                  f"{t['lastScrapeDuration'] * 1000:.0f} ms")

        for panel in pictures.panels():
            for target in panel.targets:
                found = pictures.query(url, pictures.promql(target.expr, RATE_INTERVAL))
                shown = ", ".join(f"{pictures.legend(target.legend, s['metric'])}="
                                  f"{float(s['value'][1]):.4g}" for s in found[:4])
                print(f"{panel.title}: {shown}")
        print(f"all {sum(len(p.targets) for p in pictures.panels())} dashboard queries and "
              f"{len(state)} rules answered {time.monotonic() - started:.0f}s after the start")

        if out:
            # Something to see halfway: the classic group's az2 member leaves (static: after its
            # session timeout), so the az3 member takes p0 and reads it locally, and a fourth
            # member joins the KIP-848 group (the brokers' plug-in assigns again).
            hold = float(os.environ.get("RACKWISE_DASHBOARD_PICTURES_S", "120"))
            time.sleep(max(0.0, t0 + hold / 2 - time.time()))
            groups.pop(0).close()
            groups += [_classic(bootstrap, classic, topic, brokers, CLASSIC_MEMBERS[1:]),
                       CountingConsumers(bootstrap, kip848, [topic], ["az1"], brokers, extra=[KIP848])]
            time.sleep(max(0.0, t0 + hold - time.time()))
            for path in pictures.draw(url, Path(out), t0, time.time(), 2.0, RATE_INTERVAL):
                print(f"drew {path}")
