"""Which assignors the testbed's brokers list (KIP-848 consumer groups and, on 4.4+, KIP-1071
streams groups), when they load rackwise's plug-in jar (the default once it is built).

``group.consumer.assignors`` is ``uniform,range,dev.rackwise.plugins.RackwiseGroupAssignor``
(groups opt in with ``group.remote.assignor=rackwise``), or RACKWISE_TESTBED_CONSUMER_ASSIGNORS
when set, e.g. ``dev.rackwise.plugins.RackwiseUniformAssignor,range,``
``dev.rackwise.plugins.RackwiseGroupAssignor`` to try the drop-in for ``uniform`` (every
KIP-848 group that names no assignor, or names ``uniform``, is then rack-optimal;
plugins/README.md). RACKWISE_TESTBED_STREAMS_ASSIGNORS, when set, is the brokers'
``group.streams.assignors`` (KIP-1071 streams groups); only Kafka 4.4 and later know that
config, so the testbed refuses it for older releases. Per-node ``overrides`` still win.

Example: ``broker_plugin_settings("4.4.0")["group.streams.assignors"]`` is
``"sticky,dev.rackwise.plugins.RackwiseStreamsGroupAssignor"``.
"""

from __future__ import annotations

import os

from agent.dev import kafkaversion
from agent.dev.errors import TestbedError

GROUP_ASSIGNOR = "dev.rackwise.plugins.RackwiseGroupAssignor"
STREAMS_GROUP_ASSIGNOR = "dev.rackwise.plugins.RackwiseStreamsGroupAssignor"
# KIP-1357 (custom streams-group task assignors, group.streams.assignors) exists from 4.4.0.
STREAMS_GROUP_ASSIGNORS_SINCE = (4, 4)
UNIFORM_DROP_IN = "dev.rackwise.plugins.RackwiseUniformAssignor"
CONSUMER_ASSIGNORS_ENV = "RACKWISE_TESTBED_CONSUMER_ASSIGNORS"
STREAMS_ASSIGNORS_ENV = "RACKWISE_TESTBED_STREAMS_ASSIGNORS"


def broker_plugin_settings(version: str | None = None) -> dict[str, str]:
    """What a broker needs to serve KIP-848 groups with rackwise (plugins/README.md §3).
    Kafka's own ``uniform`` stays first, so it stays the default for groups that name no
    assignor; a group opts in with group.remote.assignor=rackwise (or the brokers list the
    drop-in RackwiseUniformAssignor instead: RACKWISE_TESTBED_CONSUMER_ASSIGNORS). On 4.4+ the
    streams-group assignor is listed after Kafka's ``sticky`` (plugins/README.md §10); a streams
    group opts in with the group config streams.assignor.name=rackwise."""
    settings = {
        "group.consumer.assignors": f"uniform,range,{GROUP_ASSIGNOR}",
        "group.consumer.assignor.offload.enable": "true",
    }
    if version is not None and kafkaversion.version_tuple(version)[:2] >= STREAMS_GROUP_ASSIGNORS_SINCE:
        settings["group.streams.assignors"] = f"sticky,{STREAMS_GROUP_ASSIGNOR}"
    return settings


def from_environment(version: str, plugins: bool) -> dict[str, str]:
    """The brokers' assignor lists from RACKWISE_TESTBED_CONSUMER_ASSIGNORS and
    RACKWISE_TESTBED_STREAMS_ASSIGNORS (module docstring); empty when neither is set. A list
    naming a class of rackwise's jar needs the jar on the brokers' classpath (``plugins``), and
    the streams list needs Kafka 4.4+ (``version``): both are refused, saying what to do."""
    out: dict[str, str] = {}
    consumer = os.environ.get(CONSUMER_ASSIGNORS_ENV, "").strip()
    streams = os.environ.get(STREAMS_ASSIGNORS_ENV, "").strip()
    if consumer:
        out["group.consumer.assignors"] = consumer
    if streams:
        if kafkaversion.version_tuple(version)[:2] < STREAMS_GROUP_ASSIGNORS_SINCE:
            raise TestbedError(f"{STREAMS_ASSIGNORS_ENV} is set, but Kafka {version} has no "
                               "group.streams.assignors (it exists from 4.4): unset it, or run 4.4+")
        out["group.streams.assignors"] = streams
    if not plugins and "dev.rackwise." in consumer + streams:
        raise TestbedError("the brokers' assignor lists name rackwise classes, but the brokers do "
                           "not load the plug-in jar: build it (`make plugins`), or unset "
                           f"{CONSUMER_ASSIGNORS_ENV} and {STREAMS_ASSIGNORS_ENV}")
    return out
