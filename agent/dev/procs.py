"""Local processes and ports, for the testbed (agent/dev/testbed.py) and its tests: start a
process detached, is a TCP port on this host accepting connections, is a process (not a
zombie) alive."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from pathlib import Path

LOOPBACK = "127.0.0.1"


def port_open(port: int, host: str = LOOPBACK, timeout: float = 0.3) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); look at its state.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def spawn(cmd: list[str], log: Path, cwd: Path) -> int:
    """Start ``cmd`` in a session of its own (its process group can be signalled as one),
    stdout and stderr appended to ``log``; return its pid. It outlives the caller."""
    out = open(log, "ab")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
    out.close()
    return proc.pid
