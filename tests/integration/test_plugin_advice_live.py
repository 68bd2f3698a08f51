"""The plug-ins' advice reader and plan publisher (plugins/: advice, publish) on the testbed.

The agent advises on a topic with one hot partition and a planner rule; garbage is written to
the advice topic too. A JVM (tests/java/advice-probe/AdviceProbe.java, run as a single source
file on the plug-in's classes) reads the advice as a plug-in would, counting the garbage, and
publishes a plan built from it; the plan is read back with protocol.plan, on the partition the
plan contract names.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from agent.dev import kafkaversion
from agent.dev.tail import TopicTail
from protocol.plan import PLUGIN_REASON, AssignmentPlan
from protocol.routing import group_partition
from tests.support.agent import AgentThread, isolated_settings
from tests.support.kafkautil import create_topic, rack_of_brokers
from tests.support.pluginclients import ensure_plugin_jar
from tests.support.trafficclients import SteadyProducer

pytestmark = [pytest.mark.integration, pytest.mark.java, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "java" / "advice-probe" / "AdviceProbe.java"
REPLICAS = [[1, 2], [2, 3], [3, 1]]
LIBS = ("kafka-clients-", "slf4j-api-", "lz4-java-", "snappy-java-", "zstd-jni-")


def _classpath() -> str:
    ensure_plugin_jar()
    libs = kafkaversion.libs_dir()
    jars = [str(j) for prefix in LIBS for j in sorted(libs.glob(f"{prefix}*.jar"))[:1]]
    if len(jars) != len(LIBS):
        pytest.skip(f"kafka-libs incomplete in {libs}: start the testbed once (rackwise testbed up)")
    return ":".join([str(ROOT / "plugins" / "target" / "classes"), *jars])


def test_plugins_read_the_advice_and_publish_plans(bootstrap: str, admin: Any,
                                                    unique_name: str) -> None:
    java = shutil.which("java")
    assert java is not None
    topic, group = f"{unique_name}-data", f"{unique_name}-g1"
    create_topic(admin, topic, REPLICAS)
    racks = rack_of_brokers(admin)
    settings = isolated_settings(
        bootstrap, unique_name,
        advice={"topics": [topic], "interval_s": 0},
        planner={"rules": [{"pattern": f"{unique_name}-g*", "assignor": "rack-optimal",
                            "config": {"traffic_cost": 10}}]},
    )
    with AgentThread(settings), SteadyProducer(bootstrap, topic, {0: 40.0, 1: 2.0, 2: 2.0}):
        deadline = time.monotonic() + 60
        while settings.topics.advice not in admin.list_topics(timeout=10).topics:
            assert time.monotonic() < deadline, "the agent did not create its advice topic"
            time.sleep(0.5)
        garbage = Producer({"bootstrap.servers": bootstrap})
        garbage.produce(settings.topics.advice, key=b"topic/nonsense", value=b"{not json")
        garbage.produce(settings.topics.advice, key=f"topic/{topic}".encode(),
                        value=b'{"schema_version":9,"kind":"topic"}')
        garbage.flush(10)
        proc = subprocess.run(
            [java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", _classpath(), str(PROBE),
             bootstrap, settings.topics.advice, topic, group, settings.topics.plans],
            capture_output=True, text=True, timeout=240)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and len(lines) == 2, proc.stdout + proc.stderr[-3000:]
    held, sent = lines
    print("plug-in view:", held, sent)
    weights = held["weights"]
    assert len(weights) == 3 and weights[0] > 3 * max(weights[1], weights[2]) > 0
    assert held["leader_racks"] == [racks[r[0]] for r in REPLICAS]
    assert (held["assignor"], held["traffic_cost"]) == ("rack-optimal", 10.0)
    assert held["ignored"]["MALFORMED"] >= 1 and held["ignored"]["UNKNOWN_SCHEMA_VERSION"] >= 1
    assert (sent["published"], sent["failed"]) == (1, 0)

    tail = TopicTail(bootstrap, settings.topics.plans)
    try:
        msg = tail.wait_for(lambda m: m.key() == group.encode(), 30)
    finally:
        tail.consumer.close()
    plan = AssignmentPlan.from_json(msg.value())
    assert (plan.group_id, plan.reason, plan.generation) == (group, PLUGIN_REASON, sent["generation"])
    assert msg.partition() == group_partition(group, settings.topics.partitions)
    assert plan.summary.partitions == 3 and plan.summary.bytes_per_s is not None
    assert plan.members[0].partitions[0].bytes_per_s == pytest.approx(weights[0])
