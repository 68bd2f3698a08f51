"""Where the developer tooling (testbed, demo) finds and keeps its files.

Two ways to have rackwise, one rule each:

* a checkout (the repository after ``make setup``, an editable install): everything stays
  beside the code, as the Makefile expects: jars in ``.cache/``, testbed state in
  ``.testbed/``, the plug-in jar in ``plugins/target/``, demo output in ``out/demo``;
* an installed package (a wheel in some venv): only the package's own data is there (the
  Maven POMs and log4j2 files under ``agent/dev/resources/``), and what it fetches or runs
  goes to the user's directories: ``~/.cache/rackwise`` (``$XDG_CACHE_HOME``) for jars,
  ``~/.local/state/rackwise`` (``$XDG_STATE_HOME``) for the testbed and the demo's output.

RACKWISE_CACHE_DIR, RACKWISE_TESTBED_DIR and RACKWISE_PLUGIN_JAR override either way.
metrics/session.py keeps the same cache rule on its own (metrics imports nothing of agent).
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

# The directory holding the top-level packages: the checkout, or site-packages.
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
PLUGIN_JAR_NAME = "rackwise-plugins.jar"
# What to do without a checkout, said where a command needs one.
PLUGIN_JAR_HINT = ("build it from a checkout of the repository (`make plugins`) and point "
                   "RACKWISE_PLUGIN_JAR at plugins/target/rackwise-plugins.jar")


def checkout() -> Path | None:
    """The repository root when running from a checkout, None in an installed package."""
    root = PACKAGE_ROOT
    if (root / "Makefile").is_file() and (root / "pyproject.toml").is_file():
        return root
    return None


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser().resolve() if value else None


def _xdg(name: str, fallback: str) -> Path:
    value = os.environ.get(name)
    base = Path(value) if value and Path(value).is_absolute() else Path.home() / fallback
    return base / "rackwise"


def cache_dir() -> Path:
    """Maven-copied jars (testbed, Spark job, Java harnesses): RACKWISE_CACHE_DIR, else
    ``.cache`` in a checkout, else ``~/.cache/rackwise``."""
    root = checkout()
    return _env_path("RACKWISE_CACHE_DIR") or (root / ".cache" if root else _xdg("XDG_CACHE_HOME", ".cache"))


def _user_state_dir() -> Path:
    """What an installed package runs and writes; not a cache, since a running testbed's pids
    live there."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def testbed_dir() -> Path:
    """The testbed's state: RACKWISE_TESTBED_DIR, else ``.testbed`` in a checkout, else
    ``~/.local/state/rackwise/testbed``."""
    root = checkout()
    return _env_path("RACKWISE_TESTBED_DIR") or (root / ".testbed" if root else _user_state_dir() / "testbed")


def demo_out_dir() -> Path:
    """The demo's Parquet tables, report and summary.json: ``out/demo`` in a checkout, else
    ``~/.local/state/rackwise/demo``."""
    root = checkout()
    return root / "out" / "demo" if root else _user_state_dir() / "demo"


def plugin_jar() -> Path | None:
    """The JVM plug-in jar: RACKWISE_PLUGIN_JAR, else ``plugins/target/`` of a checkout (built
    by ``make plugins``). None in an installed package without the variable: the wheel ships
    no Java build (see docs/installing.md)."""
    given = _env_path("RACKWISE_PLUGIN_JAR")
    if given:
        return given
    root = checkout()
    return root / "plugins" / "target" / PLUGIN_JAR_NAME if root else None


def resource(*parts: str) -> Path:
    """A file of ``agent/dev/resources`` as a real path (Maven and the JVM take paths).

    Installed from a wheel or run from a checkout, the package is a directory and the file is
    used in place; from a zip (zipimport) it is copied once into the cache."""
    ref = importlib.resources.files("agent.dev.resources").joinpath(*parts)
    if isinstance(ref, Path):
        return ref
    target = cache_dir() / "resources" / Path(*parts)
    data = ref.read_bytes()
    if not target.is_file() or target.read_bytes() != data:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return target
