"""`Testbed.down` returns only when every node process is gone and every port `up` checks is
closed, the JMX exporter's included.

A broker in a controlled shutdown closes its Kafka listeners first; the JMX exporter's port
lives until the JVM is gone. A clean-clone CI run met exactly that: `down` saw the Kafka ports
closed, returned, and `up` then refused the exporter port of the JVM it had just killed. Here
each "broker" is a small process that closes its client and controller ports on SIGTERM and
then hangs, keeping its exporter port, like a shutdown that waits on a lost quorum.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.dev import testbed
from agent.dev.procs import port_open

pytestmark = pytest.mark.unit

BASE = 24600

HANGING_BROKER = r"""
import signal, socket, sys, time
def listen(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen()
    return s
kafka = [listen(int(p)) for p in sys.argv[1:3]]
exporter = listen(int(sys.argv[3]))
def term(*_):
    for s in kafka:
        s.close()
signal.signal(signal.SIGTERM, term)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> testbed.Testbed:
    monkeypatch.setenv("RACKWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RACKWISE_TESTBED_JMX_EXPORTER", raising=False)
    jar = testbed.jmx_exporter_jar()
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"")
    return testbed.Testbed(base_dir=tmp_path / "tb", port_base=BASE, plugins=False)


def test_down_waits_for_the_killed_jvm_and_its_exporter_port(bed: testbed.Testbed) -> None:
    ports = [p for n in bed.nodes for p in (n.client_port, n.controller_port, bed.jmx_exporter_port(n))]
    if any(port_open(p) for p in ports):
        pytest.skip(f"ports {ports} are taken")
    (bed.dir / "pids").mkdir(parents=True)
    procs = []
    for node in bed.nodes:
        proc = subprocess.Popen([sys.executable, "-c", HANGING_BROKER, str(node.client_port),
                                 str(node.controller_port), str(bed.jmx_exporter_port(node))],
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        bed._pidfile(node).write_text(str(proc.pid))
        procs.append(proc)
    try:
        started = time.monotonic()
        bed.down(timeout=1.0)
        took = time.monotonic() - started
        # Each process ignored SIGTERM past the timeout, so down killed it, and waited.
        assert [p.poll() for p in procs] == [-9, -9, -9], f"down returned after {took:.2f}s"
        still_open = [p for p in ports if port_open(p)]
        assert not still_open, f"down returned after {took:.2f}s with ports {still_open} open"
        assert not any(bed._pidfile(n).exists() for n in bed.nodes)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
