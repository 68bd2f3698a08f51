"""docker-compose.yml is valid Compose and describes the same 3-rack testbed as `rackwise testbed`.

No Docker engine runs here, so validation is `docker-compose config` (Debian's Compose v1,
installed by `make setup`), which parses, interpolates and checks the file against the
Compose spec schema, and then a look at the canonical model it prints.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[3]


@functools.cache  # one `docker-compose config` (about 2 s) for the module; read only
def _config() -> dict:  # type: ignore[type-arg]
    exe = shutil.which("docker-compose")
    assert exe, "docker-compose is not installed: run `make setup` (apt-get install docker-compose)"
    # RACKWISE_CACHE_DIR unset: the mounts are checked at their default place, ./.cache
    env = {k: v for k, v in os.environ.items() if k != "RACKWISE_CACHE_DIR"}
    proc = subprocess.run([exe, "-f", str(ROOT / "docker-compose.yml"), "config"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)


def test_compose_file_is_valid_and_quiet() -> None:
    exe = shutil.which("docker-compose")
    assert exe, "docker-compose is not installed: run `make setup`"
    proc = subprocess.run([exe, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr.strip() == "", proc.stderr


def test_three_brokers_one_rack_each_with_static_voters() -> None:
    services = _config()["services"]
    brokers = {name: svc for name, svc in services.items() if name.startswith("kafka-")}
    assert sorted(brokers) == ["kafka-1", "kafka-2", "kafka-3"]
    racks = {name: svc["environment"]["KAFKA_BROKER_RACK"] for name, svc in brokers.items()}
    assert racks == {"kafka-1": "az1", "kafka-2": "az2", "kafka-3": "az3"}
    voters = {svc["environment"]["KAFKA_CONTROLLER_QUORUM_VOTERS"] for svc in brokers.values()}
    assert voters == {"1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093"}
    ids = sorted(int(svc["environment"]["KAFKA_NODE_ID"]) for svc in brokers.values())
    assert ids == [1, 2, 3]


def test_agent_and_metrics_services_point_at_the_brokers() -> None:
    services = _config()["services"]
    for name in ("agent", "metrics"):
        env = services[name]["environment"]
        assert env["RACKWISE_BOOTSTRAP"].split(",") == ["kafka-1:19092", "kafka-2:19092", "kafka-3:19092"]
    assert services["agent"]["command"][:3] == ["rackwise", "agent", "run"]
    assert services["metrics"]["command"][:3] == ["rackwise", "metrics", "run"]


# Host files the compose file mounts that are not in the repository: `make setup` makes them
# (setup -> plugins -> the jar; setup -> jars -> the exporter), and the Makefile rule that does.
MADE_BY_SETUP = {
    "plugins/target/rackwise-plugins.jar": "$(PLUGIN_JAR):",
    ".cache/jmx-exporter/jmx_prometheus_javaagent.jar": "$(CACHE)/jmx-exporter/.complete:",
}


def _binds(service: dict[str, Any]) -> dict[str, str]:
    """{container path: host path} of a service's bind mounts (named volumes left out)."""
    out = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            if volume.get("type") == "bind":
                out[volume["target"]] = volume["source"]
            continue
        source, target = volume.split(":")[:2]
        if source.startswith(("/", ".")):
            out[target] = source
    return out


def test_every_mounted_host_path_exists_or_is_made_by_make_setup() -> None:
    services = _config()["services"]
    makefile = (ROOT / "Makefile").read_text()
    setup = next(line for line in makefile.splitlines() if line.startswith("setup:"))
    assert "jars" in setup.split() and "plugins" in setup.split()
    missing = []
    for name, service in sorted(services.items()):
        for target, source in sorted(_binds(service).items()):
            rel = Path(source).resolve().relative_to(ROOT).as_posix()
            if rel in MADE_BY_SETUP:
                assert MADE_BY_SETUP[rel] in makefile, f"no Makefile rule makes {rel}"
            elif not (ROOT / rel).exists():
                missing.append(f"{name}: {rel} -> {target}")
    assert not missing, f"mounted host paths that do not exist: {missing}"
    mounted = {Path(s).resolve().relative_to(ROOT).as_posix()
               for svc in services.values() for s in _binds(svc).values()}
    assert set(MADE_BY_SETUP) <= mounted  # the exceptions are still used


def test_brokers_load_the_plugin_and_run_the_jmx_exporter_as_the_testbed_does() -> None:
    from agent.dev.brokerassignors import broker_plugin_settings

    services = _config()["services"]
    image = services["kafka-1"]["image"]
    version = image.rsplit(":", 1)[1]
    for name in ("kafka-1", "kafka-2", "kafka-3"):
        env, binds = services[name]["environment"], _binds(services[name])
        # the image's rule: a property's '.' -> '_', '_' -> '__', '-' -> '___', prefix KAFKA_
        assert services[name]["image"] == image
        for key, value in broker_plugin_settings(version=version).items():
            var = "KAFKA_" + key.replace("_", "__").replace(".", "_").replace("-", "___").upper()
            assert str(env.get(var)) == value, (name, var)
        assert env["KAFKA_GROUP_CONSUMER_ASSIGNORS"].startswith("uniform,range,")
        assert env["KAFKA_GROUP_STREAMS_ASSIGNORS"].startswith("sticky,")  # the images are 4.4+
        assert binds[env["CLASSPATH"]].endswith("plugins/target/rackwise-plugins.jar")
        agent = env["KAFKA_OPTS"].removeprefix("-javaagent:")
        jar, rest = agent.split("=", 1)
        port, config = rest.split(":", 1)
        assert binds[jar].endswith("jmx-exporter/jmx_prometheus_javaagent.jar")
        assert binds[config].endswith("deploy/prometheus/jmx-exporter.yml")
        # the healthcheck's Kafka tool must not start a second exporter on the same port
        assert "KAFKA_OPTS= " in " ".join(services[name]["healthcheck"]["test"])
        assert port == "9404"


def test_prometheus_scrapes_the_agent_and_the_brokers_and_loads_the_rules() -> None:
    services = _config()["services"]
    binds = _binds(services["prometheus"])
    assert binds["/etc/prometheus/rackwise-rules.yml"].endswith("deploy/prometheus/rackwise-rules.yml")
    config = yaml.safe_load(Path(binds["/etc/prometheus/prometheus.yml"]).read_text())
    assert config["rule_files"] == ["/etc/prometheus/rackwise-rules.yml"]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    agent_port = services["agent"]["environment"].get("RACKWISE_OPS__PORT", "9464")
    assert [t for c in jobs["rackwise-agent"]["static_configs"] for t in c["targets"]] == [
        f"agent:{agent_port}"]
    brokers = {c["labels"]["rack"]: c["targets"] for c in jobs["kafka-brokers"]["static_configs"]}
    assert brokers == {services[f"kafka-{n}"]["environment"]["KAFKA_BROKER_RACK"]: [f"kafka-{n}:9404"]
                       for n in (1, 2, 3)}


def test_grafana_is_provisioned_with_the_datasource_and_the_dashboard() -> None:
    services = _config()["services"]
    binds = _binds(services["grafana"])
    provider = yaml.safe_load(
        (Path(binds["/etc/grafana/provisioning/dashboards"]) / "rackwise.yml").read_text())
    path = provider["providers"][0]["options"]["path"]
    assert (Path(binds[path]) / "rackwise.json").is_file()
    sources = yaml.safe_load(
        (Path(binds["/etc/grafana/provisioning/datasources"]) / "prometheus.yml").read_text())
    assert sources["datasources"][0]["url"] == "http://prometheus:9090"


def test_agent_environment_names_real_settings() -> None:
    """An unknown RACKWISE_* variable is silently ignored by the settings loader: each one
    here must name a setting (nested with '__'), and the ops server must listen beyond the
    container's loopback so Prometheus can scrape it."""
    from agent.config.settings import AgentSettings

    env = _config()["services"]["agent"]["environment"]
    for var in (k for k in env if k.startswith("RACKWISE_")):
        model: Any = AgentSettings
        for part in var.removeprefix("RACKWISE_").lower().split("__"):
            assert part in model.model_fields, f"{var}: no setting {part!r}"
            model = model.model_fields[part].annotation
    assert env["RACKWISE_OPS__HOST"] == "0.0.0.0"
