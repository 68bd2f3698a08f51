"""The testbed's brokers take their assignor lists from RACKWISE_TESTBED_CONSUMER_ASSIGNORS and
RACKWISE_TESTBED_STREAMS_ASSIGNORS (a user tries the drop-in for ``uniform`` locally).
That brokers configured so really serve groups with it is
tests/integration/test_uniform_drop_in.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.dev import brokerassignors, testbed

pytestmark = pytest.mark.unit

DROP_IN_LIST = f"{brokerassignors.UNIFORM_DROP_IN},range,{brokerassignors.GROUP_ASSIGNOR}"


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(brokerassignors.CONSUMER_ASSIGNORS_ENV, raising=False)
    monkeypatch.delenv(brokerassignors.STREAMS_ASSIGNORS_ENV, raising=False)


def _props(tmp_path: Path, version: str = "4.4.0", plugins: bool = True,
           overrides: dict[int, dict[str, str | None]] | None = None) -> dict[str, str]:
    bed = testbed.Testbed(base_dir=tmp_path / "tb", port_base=24000, plugins=plugins,
                          kafka_version=version, overrides=overrides)
    bed.dir.mkdir(parents=True)
    bed._write_config(bed.nodes[0])
    lines = (bed.dir / "node1.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_by_default_uniform_stays_kafkas_and_rackwise_is_opt_in(tmp_path: Path) -> None:
    props = _props(tmp_path)
    assert props["group.consumer.assignors"] == f"uniform,range,{brokerassignors.GROUP_ASSIGNOR}"
    # streams groups: Kafka's sticky stays the default, a group opts in with streams.assignor.name
    assert props["group.streams.assignors"] == f"sticky,{brokerassignors.STREAMS_GROUP_ASSIGNOR}"
    older = _props(tmp_path / "older", "4.3.1")
    assert "group.streams.assignors" not in older  # the config exists from 4.4
    assert "group.streams.assignors" not in _props(tmp_path / "nojar", plugins=False)


def test_the_consumer_list_comes_from_the_environment(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(brokerassignors.CONSUMER_ASSIGNORS_ENV, f" {DROP_IN_LIST} ")
    assert _props(tmp_path)["group.consumer.assignors"] == DROP_IN_LIST


def test_per_node_overrides_still_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(brokerassignors.CONSUMER_ASSIGNORS_ENV, DROP_IN_LIST)
    props = _props(tmp_path, overrides={1: {"group.consumer.assignors": "uniform,range"}})
    assert props["group.consumer.assignors"] == "uniform,range"


def test_the_streams_list_only_on_brokers_that_know_it(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(brokerassignors.STREAMS_ASSIGNORS_ENV, "sticky")
    assert _props(tmp_path / "a", "4.4.0")["group.streams.assignors"] == "sticky"
    with pytest.raises(testbed.TestbedError, match="exists from 4.4"):
        _props(tmp_path / "b", "4.3.1")


def test_rackwise_classes_without_the_jar_are_refused(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(brokerassignors.CONSUMER_ASSIGNORS_ENV, DROP_IN_LIST)
    with pytest.raises(testbed.TestbedError, match="make plugins"):
        _props(tmp_path, plugins=False)
    monkeypatch.setenv(brokerassignors.CONSUMER_ASSIGNORS_ENV, "uniform,range")
    assert _props(tmp_path / "c", plugins=False)["group.consumer.assignors"] == "uniform,range"
