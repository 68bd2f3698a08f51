"""Small checks on local processes and ports, for the testbed (agent/dev/testbed.py) and its
tests: is a TCP port on this host accepting connections, is a process (not a zombie) alive."""

from __future__ import annotations

import contextlib
import os
import socket
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
