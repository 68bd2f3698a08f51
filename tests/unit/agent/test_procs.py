"""agent/dev/procs.py, the testbed's process and port checks, on real local processes and
sockets (no Kafka)."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest

from agent.dev import procs

pytestmark = pytest.mark.unit


def test_port_open_sees_a_listener_and_not_a_closed_port() -> None:
    with socket.socket() as server:
        server.bind((procs.LOOPBACK, 0))
        server.listen()
        port = server.getsockname()[1]
        assert procs.port_open(port)
    assert not procs.port_open(port)


def test_spawn_appends_output_and_runs_in_its_own_session(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    log.write_text("before\n")
    script = "import os, sys; print(os.getsid(0)); sys.stderr.write('err\\n')"
    pid = procs.spawn([sys.executable, "-c", script], log, cwd=tmp_path)
    deadline = time.monotonic() + 30
    while procs.pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not procs.pid_alive(pid)  # exited; a zombie child counts as gone
    lines = log.read_text().splitlines()
    # the child's session id is its own pid: it leads a session (and a process group) of its own
    assert lines[0] == "before" and sorted(lines[1:]) == sorted([str(pid), "err"])


def test_pid_alive_for_this_process() -> None:
    assert procs.pid_alive(os.getpid())
