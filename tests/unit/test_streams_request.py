"""RackwiseStreamsRequest v1 (protocol/streams_request.py) and the agent's Streams request
path (agent/daemon/streams_requests.py, requests.streams_job): the golden request the Java
task assignor writes (plugins/, StreamsRequestTest), round trips, malformed input, and a
request planned through the seam into a plan every Kafka check would accept."""

from __future__ import annotations

import gzip
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import load_settings
from agent.daemon.planning import compute_plan
from agent.daemon.requests import request_job
from agent.daemon.state import GroupTable, InputRejected
from agent.daemon.streams_requests import StreamsServiceRequest
from assignor.cluster import ClusterView
from assignor.errors import AssignorError
from protocol.errors import ProtocolError
from protocol.routing import KIND_HEADER, group_partition
from protocol.streams import TaskId
from protocol.streams_request import (
    REQUEST_ID_HEADER,
    decode_streams_request,
    encode_streams_request,
    streams_request_doc,
)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
# Written by the Java task assignor (dev.rackwise.plugins.streams.StreamsRequest) from a
# hand-built ApplicationState; StreamsRequestTest.encodesTheGoldenRequest asserts the same file.
GOLDEN = ROOT / "plugins" / "src" / "test" / "resources" / "streams-request-v1.json"
P1, P2, P3 = (f"00000000-0000-0000-0000-00000000000{i}" for i in (1, 2, 3))


def golden() -> bytes:
    return GOLDEN.read_bytes().strip()


def test_golden_request_from_the_java_task_assignor() -> None:
    req = decode_streams_request(golden())
    assert req.version == 1 and req.application_id == "orders-app"
    assert req.config["num_standby_replicas"] == 1
    assert req.config["rack_aware_assignment_strategy"] == "min_traffic"
    assert req.config["rack_aware_assignment_traffic_cost"] is None
    assert [str(t.id) for t in req.tasks] == ["0_0", "0_1", "0_2", "1_0"]
    t00 = req.tasks[0]
    assert t00.stateful and [(p.topic, p.partition, p.racks) for p in t00.source] == [
        ("in", 0, ("az1", "az2"))
    ]
    assert [(p.topic, p.racks) for p in t00.changelog] == [("app-store-changelog", ("az1", "az3"))]
    assert req.tasks[2].changelog[0].racks is None  # unknown to Kafka Streams
    assert not req.tasks[3].stateful and req.tasks[3].default_lag is None
    p1, p2, p3 = req.processes
    assert (p1.process_id, p1.threads, p1.rack) == (P1, 2, "az1")
    assert p1.prev_active == (TaskId(0, 0), TaskId(1, 0)) and p1.prev_standby == ()
    assert p2.prev_standby == (TaskId(0, 0),)
    assert dict(p3.client_tags) == {"zone": "c"}
    # lags: each process's own where it differs from the task's default, the default elsewhere
    assert p1.task_lags(req) == {TaskId(0, 0): -2, TaskId(0, 1): 500, TaskId(0, 2): 500}
    assert p2.task_lags(req) == {TaskId(0, 0): 0, TaskId(0, 1): -2, TaskId(0, 2): 500}
    assert p3.task_lags(req) == {TaskId(0, 0): 500, TaskId(0, 1): 500, TaskId(0, 2): 500}
    # our encoder writes the Java encoder's bytes
    assert encode_streams_request(req, compress=False) == golden()


def test_gzip_round_trip_and_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    req = decode_streams_request(golden())
    packed = encode_streams_request(req, compress=True)
    assert packed[:2] == b"\x1f\x8b"
    assert decode_streams_request(packed) == req
    with pytest.raises(ProtocolError, match="truncated|corrupt"):
        decode_streams_request(packed[:-9])
    monkeypatch.setattr("protocol.streams_request.MAX_INFLATED", 1 << 20)
    with pytest.raises(ProtocolError, match="inflates beyond"):
        decode_streams_request(gzip.compress(b" " * (2 << 20), compresslevel=1))


def _mutate(path: list[Any], value: Any) -> bytes:
    doc = json.loads(golden())
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"", "not UTF-8 JSON"),
        (b"\xff\xfe", "not UTF-8 JSON"),
        (b"[]", "expected an object"),
        (b"[" * 100_000, "nested too deeply|not UTF-8 JSON"),
        (_mutate(["version"], 2), "version 2 is not supported"),
        (_mutate(["application_id"], None), "application_id"),
        (_mutate(["config", "surprise"], 1), "unknown keys"),
        (_mutate(["config", "num_standby_replicas"], "1"), "expected an integer"),
        (_mutate(["tasks", 0, "id"], "0-0"), "not '<subtopology>_<partition>'"),
        (_mutate(["tasks", 0, "id"], "named__0_0"), "named topologies"),
        (_mutate(["tasks", 1, "id"], "0_0"), "appears twice"),
        (_mutate(["tasks", 0, "partitions", 0, "partition"], -1), "below 0"),
        (_mutate(["tasks", 0, "partitions", 0, "changelog"], False), "neither source nor changelog"),
        (_mutate(["tasks", 0, "partitions", 0, "racks"], "az1"), "expected an array"),
        (_mutate(["tasks", 0, "default_lag"], -7), "only -2"),
        (_mutate(["tasks", 0, "stateful"], 1), "true or false"),
        (_mutate(["processes", 1, "process_id"], P1), "appears twice"),
        (_mutate(["processes", 0, "threads"], 0), "below 1"),
        (_mutate(["processes", 0, "prev_active"], ["7_7"]), "unknown tasks"),
        (_mutate(["processes", 0, "lags"], {"1_0": 5}), "no default_lag"),
        (_mutate(["processes", 0, "lags"], {"0_1": 1.5}), "expected an integer"),
        (_mutate(["processes", 0, "client_tags"], {"zone": 1}), "expected a string"),
        (_mutate(["processes"], KeyError), "processes: expected an array"),
    ],
)
def test_malformed_requests_raise_protocol_error(raw: bytes, match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        decode_streams_request(raw)


# ---- the agent's side ---------------------------------------------------------------------------

def test_topology_view_and_app_from_the_request() -> None:
    service = StreamsServiceRequest("rid", decode_streams_request(golden()))
    topo = service.topology()
    assert [(s.id, s.source_topics, s.changelog_topics, s.stateful) for s in topo.subtopologies] == [
        (0, ("in",), ("app-store-changelog",), True),
        (1, ("other",), (), False),
    ]
    # app-store-changelog-2 has no racks in the request: the agent's own placement fills them in
    placement = ClusterView.from_dict({
        "brokers": {"1": "az1", "2": "az2", "3": "az3"},
        "topics": {"app-store-changelog": [[1], [2], [2, 3]]},
    })
    assert service.placement_topics() == ("app-store-changelog",)
    view = service.view(placement)
    assert view.racks("in", 1) == ("az2", "az3")
    assert view.racks("app-store-changelog", 2) == ("az2", "az3")
    assert view.racks("other", 0) == ("az1",)
    assert service.view(ClusterView({}, {})).racks("app-store-changelog", 2) == ()  # unknown
    app = service.app("orders-app", view, "high-availability")
    assert [c.process_id for c in app.clients] == [P1, P2, P3]
    assert app.clients[0].task_lags == {TaskId(0, 0): -2, TaskId(0, 1): 500, TaskId(0, 2): 500}
    assert app.clients[1].prev_standby == frozenset({TaskId(0, 0)})
    assert app.config.num_standby_replicas == 1 and app.end_offsets == {}


def test_requests_whose_tasks_kafka_would_not_group_so_are_refused() -> None:
    req = decode_streams_request(golden())
    gap = replace(req, tasks=tuple(t for t in req.tasks if str(t.id) != "0_1"))
    service = StreamsServiceRequest("rid", gap)
    with pytest.raises(AssignorError, match="partition grouping"):
        service.app("orders-app", service.view(ClusterView({}, {})), "high-availability")
    doc = streams_request_doc(req)
    doc["tasks"][1]["partitions"][1]["partition"] = 5  # task 0_1 reading in-5
    bad = decode_streams_request(json.dumps(doc).encode())
    service = StreamsServiceRequest("rid", bad)
    with pytest.raises(AssignorError):
        service.app("orders-app", service.view(ClusterView({}, {})), "high-availability")


class FakeMsg:
    def __init__(self, key: str, value: bytes, partition: int, headers: list[tuple[str, bytes]]) -> None:
        self._key, self._value, self._partition, self._headers = key, value, partition, headers

    def key(self) -> bytes:
        return self._key.encode()

    def value(self) -> bytes:
        return self._value

    def partition(self) -> int:
        return self._partition

    def topic(self) -> str:
        return "rackwise.requests"

    def headers(self) -> list[tuple[str, bytes]]:
        return self._headers

    def timestamp(self) -> tuple[int, int]:
        return (1, int(time.time() * 1000))


def _msg(app: str, value: bytes, kind: bytes = b"streams") -> FakeMsg:
    return FakeMsg(app, value, group_partition(app, 3),
                   [(REQUEST_ID_HEADER, b"rid-1"), (KIND_HEADER, kind)])


def test_a_streams_request_is_planned_through_the_seam() -> None:
    settings = load_settings(None, bootstrap="localhost:1", topics={"partitions": 3})
    job = request_job(_msg("orders-app", golden()), settings, GroupTable(), None, 3)
    assert job.kind == "streams" and job.assignor == "high-availability"
    assert job.topics == ("app-store-changelog",)  # only the partition without racks
    plan = compute_plan(job, ClusterView({}, {}))
    assert plan.kind == "streams" and plan.request_id == "rid-1" and plan.group_id == "orders-app"
    assert plan.generation == job.generation
    active = [t for m in plan.members for t in m.active_tasks]
    assert sorted(active) == ["0_0", "0_1", "0_2", "1_0"]
    for m in plan.members:
        copies = [*m.active_tasks, *m.standby_tasks, *m.warmup_tasks]
        assert len(copies) == len(set(copies))
        assert "1_0" not in m.standby_tasks + m.warmup_tasks  # stateless: no standby
    assert {m.process_id for m in plan.members} == {P1, P2, P3}
    # previous tasks come from the request: P1 keeps 0_0 (a running active, cost-free here)
    p1 = next(m for m in plan.members if m.process_id == P1)
    assert "0_0" in p1.active_tasks
    # a second request for the same application gets a higher generation
    again = request_job(_msg("orders-app", golden()), settings, GroupTable(), plan, 3)
    assert again.generation > plan.generation


def test_bad_streams_requests_are_rejected_with_a_reason() -> None:
    settings = load_settings(None, bootstrap="localhost:1", topics={"partitions": 3})
    with pytest.raises(InputRejected) as bad:
        request_job(_msg("orders-app", b"{"), settings, GroupTable(), None, 3)
    assert bad.value.reason == "undecodable"
    with pytest.raises(InputRejected) as other:
        request_job(_msg("other-app", golden()), settings, GroupTable(), None, 3)
    assert other.value.reason == "bad-request" and "differs from the key" in other.value.detail
    with pytest.raises(InputRejected) as kind:
        request_job(_msg("orders-app", golden(), b"share"), settings, GroupTable(), None, 3)
    assert kind.value.reason == "unsupported-kind"
