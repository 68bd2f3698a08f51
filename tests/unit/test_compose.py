"""docker-compose.yml is valid Compose and describes the same 3-rack testbed as `rackwise testbed`.

No Docker engine runs here, so validation is `docker-compose config` (Debian's Compose v1,
installed by `make setup`), which parses, interpolates and checks the file against the
Compose spec schema, and then a look at the canonical model it prints.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:  # type: ignore[type-arg]
    exe = shutil.which("docker-compose")
    assert exe, "docker-compose is not installed: run `make setup` (apt-get install docker-compose)"
    proc = subprocess.run([exe, "-f", str(ROOT / "docker-compose.yml"), "config"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
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
