"""The layers of docs/architecture.md hold: `lint-imports` checks pyproject.toml's contracts.

protocol imports nothing of ours, assignor and metrics only protocol, agent reaches assignor
only through its face (assignor.api, assignor.inputs, assignor.errors; the offline CLI also
assignor.scenario and assignor.generate), and no package has an import cycle among its
modules. `make lint` runs the same command; this test makes every test run check it too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(*args: str) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} is missing: `make python-deps` installs import-linter")
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, check=False)


def test_every_layer_contract_is_kept() -> None:
    done = _lint()
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    """The tool really looks: a contract the code breaks (the daemon plans through the
    seam, so it imports assignor) fails the run."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["assignor", "agent"]\n\n'
        '[[tool.importlinter.contracts]]\nname = "agent never imports assignor"\n'
        'type = "forbidden"\nsource_modules = ["agent"]\nforbidden_modules = ["assignor"]\n'
    )
    done = _lint("--config", str(config))
    assert done.returncode != 0
    assert "agent never imports assignor BROKEN" in done.stdout
