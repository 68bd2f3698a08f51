"""A Python for a given confluent-kafka release, for the librdkafka cells of the compat matrix.

The project's venv holds one confluent-kafka (the newest); an older release runs in a venv of
its own under the cache, ``<cache>/compat-venvs/confluent-kafka-<version>`` (kept between
runs): ``pip install confluent-kafka==<version>`` and nothing else. Everything else a driver
imports (pydantic, structlog, ...) comes from the project's venv, through a ``.pth`` line
naming its site-packages: ``.pth`` paths go *after* the venv's own site-packages, so the
venv's confluent_kafka wins, and a bare path does not run the project venv's own ``.pth``
files (its editable install), so rackwise's packages come from the working directory the
driver is started in (``python -m tests.compat.rdkafka_driver`` with cwd = the checkout).
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import sysconfig
from pathlib import Path

from agent.dev.paths import cache_dir


class ClientVenvError(RuntimeError):
    """The venv for a confluent-kafka release could not be made."""


def installed_version() -> str:
    return importlib.metadata.version("confluent-kafka")


def python_for(version: str) -> str:
    """The interpreter that imports confluent-kafka ``version``: this one when the project's
    venv has it, else a cached venv with it (made on first use)."""
    if installed_version() == version:
        return sys.executable
    root = cache_dir() / "compat-venvs" / f"confluent-kafka-{version}"
    python = root / "bin" / "python"
    ready = root / "rackwise-ready"
    if python.is_file() and ready.is_file():
        return str(python)
    _run([sys.executable, "-m", "venv", "--clear", str(root)], f"python -m venv {root}")
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
          f"confluent-kafka=={version}"], f"pip install confluent-kafka=={version}")
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     "find its site-packages").strip())
    (site / "rackwise-project-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    got = _run([str(python), "-c", "import confluent_kafka, pydantic, structlog; "
                "print(confluent_kafka.__version__)"], "import check").strip()
    if got != version:
        raise ClientVenvError(f"{root}: imports confluent-kafka {got}, not {version}")
    ready.write_text(version + "\n")
    return str(python)


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise ClientVenvError(f"{what} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
                              f"{proc.stderr[-2000:]}")
    return proc.stdout
