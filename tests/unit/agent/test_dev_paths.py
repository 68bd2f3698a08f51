"""Where the tooling finds its files, in a checkout and in an installed package (agent/dev/paths.py).

The wheel itself is built and run in tests/integration/test_wheel_install.py; these check the
rules alone, with the package root pointed at a directory that is not a checkout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.cli import main
from agent.dev import paths
from metrics import session

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("RACKWISE_CACHE_DIR", "RACKWISE_TESTBED_DIR", "RACKWISE_PLUGIN_JAR",
                 "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_a_checkout_keeps_everything_beside_the_code(clean_env: Path) -> None:
    assert paths.checkout() == ROOT
    assert paths.cache_dir() == ROOT / ".cache" == session.cache_dir()
    assert paths.testbed_dir() == ROOT / ".testbed"
    assert paths.demo_out_dir() == ROOT / "out" / "demo"
    assert paths.plugin_jar() == ROOT / "plugins" / "target" / "rackwise-plugins.jar"


def test_an_installed_package_uses_the_users_directories(
        clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = clean_env / "site-packages"
    site.mkdir()
    monkeypatch.setattr(paths, "PACKAGE_ROOT", site)
    monkeypatch.setattr(session, "ROOT", site)
    home = clean_env / "home"
    assert paths.checkout() is None
    assert paths.cache_dir() == home / ".cache" / "rackwise" == session.cache_dir()
    assert paths.testbed_dir() == home / ".local" / "state" / "rackwise" / "testbed"
    assert paths.demo_out_dir() == home / ".local" / "state" / "rackwise" / "demo"
    assert paths.plugin_jar() is None, "a wheel ships no Java build: the jar must be named"

    monkeypatch.setenv("XDG_CACHE_HOME", str(clean_env / "xdg-cache"))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    assert paths.cache_dir() == clean_env / "xdg-cache" / "rackwise" == session.cache_dir()
    assert paths.testbed_dir() == home / ".local" / "state" / "rackwise" / "testbed"


def test_the_variables_win_either_way(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKWISE_CACHE_DIR", str(clean_env / "c"))
    monkeypatch.setenv("RACKWISE_TESTBED_DIR", str(clean_env / "t"))
    monkeypatch.setenv("RACKWISE_PLUGIN_JAR", str(clean_env / "p.jar"))
    for root in (ROOT, clean_env):
        monkeypatch.setattr(paths, "PACKAGE_ROOT", root)
        monkeypatch.setattr(session, "ROOT", root)
        assert paths.cache_dir() == clean_env / "c" == session.cache_dir()
        assert paths.testbed_dir() == clean_env / "t"
        assert paths.plugin_jar() == clean_env / "p.jar"


def test_the_poms_and_log4j_files_are_package_data() -> None:
    pom = paths.resource("kafka", "pom.xml")
    assert pom.is_file() and "<artifactId>kafka_2.13</artifactId>" in pom.read_text()
    assert paths.resource("kafka", "log4j2.properties").is_file()
    # The Spark POM names the connector jars itself, so the Makefile, the Dockerfile and a
    # first `metrics run` copy the same four.
    spark = (ROOT / "metrics" / "resources" / "spark" / "pom.xml").read_text()
    assert "<includeArtifactIds>" in spark and "commons-pool2" in spark


def test_a_missing_extra_is_one_line_naming_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import agent.cli.report as report

    def render_without_matplotlib(*_: object) -> None:
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    monkeypatch.setattr(report, "run", render_without_matplotlib)
    assert main(["report"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("rackwise report: error: matplotlib is not installed; it comes with the "
                   "'spark' extra: pip install 'rackwise[spark]'")
