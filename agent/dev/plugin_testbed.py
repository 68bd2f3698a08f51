"""The local testbed with rackwise's broker-side assignor loaded (plugins/README.md).

Every node gets the plug-in jar on its classpath and these broker settings:

    group.consumer.assignors=dev.rackwise.plugins.RackwiseGroupAssignor,uniform,range
    group.consumer.assignor.offload.enable=true
    rackwise.timeout.ms=...            (and any other rackwise.* given)

Kafka builds the group coordinator's config (and so instantiates the assignor) for every
KafkaConfig, ``kafka-storage format`` included, so the jar must be on the classpath of the
format step too. Both use ``<dir>/libs/*``: symbolic links to the cached Kafka jars plus the
plug-in jar (a rebuilt jar is picked up by the next broker start).

Example::

    tb = PluginTestbed(base_dir=Path("/tmp/tb"), port_base=21092)
    bootstrap = tb.up()
    ...
    tb.down()
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.dev.testbed import ROOT, Node, Testbed, TestbedError, cache_dir

PLUGIN_JAR = ROOT / "plugins" / "target" / "rackwise-plugins.jar"
GROUP_ASSIGNOR = "dev.rackwise.plugins.RackwiseGroupAssignor"
CLASSIC_ASSIGNOR = "dev.rackwise.plugins.RackwiseAssignor"


def broker_plugin_settings(timeout_ms: int = 5000, **rackwise: str) -> dict[str, str]:
    """The broker settings that load the assignor; ``rackwise`` adds rackwise.* keys
    (``plans_topic="p"`` becomes ``rackwise.plans.topic=p``)."""
    settings = {
        "group.consumer.assignors": f"{GROUP_ASSIGNOR},uniform,range",
        "group.consumer.assignor.offload.enable": "true",
        "rackwise.timeout.ms": str(timeout_ms),
    }
    for key, value in rackwise.items():
        settings["rackwise." + key.replace("_", ".")] = value
    return settings


class PluginTestbed(Testbed):
    """The three-node testbed whose brokers load the rackwise plug-in jar."""

    def __init__(self, *args: Any, jar: Path = PLUGIN_JAR,
                 settings: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.jar = jar
        self.settings = dict(settings if settings is not None else broker_plugin_settings())

    @property
    def libs(self) -> Path:
        return self.dir / "libs"

    def ensure_jars(self) -> None:
        """The cached Kafka jars (fetched as the plain testbed does) plus the plug-in jar."""
        Testbed(base_dir=self.dir, port_base=self.nodes[0].client_port).ensure_jars()
        if not self.jar.is_file():
            raise TestbedError(f"no plug-in jar at {self.jar}: build it with `make plugins`")
        self.libs.mkdir(parents=True, exist_ok=True)
        for old in self.libs.glob("*.jar"):
            old.unlink()
        for jar in (cache_dir() / "kafka-libs").glob("*.jar"):
            (self.libs / jar.name).symlink_to(jar)
        (self.libs / self.jar.name).symlink_to(self.jar.resolve())

    def _write_config(self, node: Node) -> None:
        super()._write_config(node)
        with self._props(node).open("a") as out:
            for key, value in self.settings.items():
                out.write(f"{key}={value}\n")
