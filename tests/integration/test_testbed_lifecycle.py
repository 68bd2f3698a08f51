"""`rackwise testbed up|status|down` on a second, private testbed (other ports, own directory).

Proves: `up` prints the bootstrap servers last, is idempotent, recovers a half-started
cluster, refuses a busy port with a message that says what to do, and `down` leaves no
process and no open port behind.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agent.dev import procs, testbed

pytestmark = pytest.mark.integration
PORT_BASE = 30092


def _cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent", "testbed", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.fixture
def private_bed(tmp_path: Path):  # type: ignore[no-untyped-def]
    env = dict(os.environ, RACKWISE_TESTBED_DIR=str(tmp_path / "bed"),
               RACKWISE_TESTBED_PORT_BASE=str(PORT_BASE))
    bed = testbed.Testbed(base_dir=tmp_path / "bed", port_base=PORT_BASE)
    yield env, bed
    bed.down()


def _ports(bed: testbed.Testbed) -> list[int]:
    return [p for n in bed.nodes for p in (n.client_port, n.controller_port)]


def test_up_is_idempotent_and_down_leaves_nothing(private_bed) -> None:  # type: ignore[no-untyped-def]
    env, bed = private_bed
    first = _cli(env, "up")
    assert first.returncode == 0, first.stderr
    expected = ",".join(f"127.0.0.1:{PORT_BASE + 100 * i}" for i in range(3))
    assert first.stdout.strip().splitlines()[-1] == expected
    pids = [row["pid"] for row in bed.status()]
    assert all(pids)

    again = _cli(env, "up")
    assert again.returncode == 0 and again.stdout.strip().splitlines()[-1] == expected
    assert [row["pid"] for row in bed.status()] == pids, "a second `up` must reuse the running nodes"
    assert _cli(env, "status").returncode == 0

    # Half-started: one node dies; `up` notices and brings a whole cluster back.
    bed.stop_node(2, hard=True)
    assert _cli(env, "status").returncode == 3
    healed = _cli(env, "up")
    assert healed.returncode == 0, healed.stderr
    assert all(row["pid"] and row["listening"] for row in bed.status())

    down = _cli(env, "down")
    assert down.returncode == 0
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert not any(procs.port_open(p) for p in _ports(bed))
    assert _cli(env, "status").returncode == 3


def test_busy_port_gives_a_clear_message(private_bed) -> None:  # type: ignore[no-untyped-def]
    env, bed = private_bed
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", PORT_BASE + 100))
        squatter.listen()
        proc = _cli(env, "up", timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{PORT_BASE + 100}" in proc.stderr and "RACKWISE_TESTBED_PORT_BASE" in proc.stderr
    assert not any(row["pid"] for row in bed.status())


def test_missing_java_is_reported(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path), RACKWISE_TESTBED_DIR=str(tmp_path / "bed"),
               RACKWISE_TESTBED_PORT_BASE=str(PORT_BASE), RACKWISE_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "agent", "testbed", "up"], capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 2
    assert "'java' not found" in proc.stderr and "Traceback" not in proc.stderr
