"""Zone detection (agent.member.zone) against local stand-ins for each cloud's metadata service.

Each stand-in is an HTTP server on 127.0.0.1 (ephemeral port, own thread) that speaks the
service's documented paths and headers and refuses requests without them: IMDSv2 wants a token
from ``PUT /latest/api/token`` on every GET (401 otherwise), GCE wants ``Metadata-Flavor:
Google`` (403 otherwise) and sends it back, Azure IMDS wants ``Metadata: true`` (400
otherwise). Every test points every enabled metadata source at 127.0.0.1 or disables it, and
an autouse fixture fails any connection to another host: nothing here may reach a real
metadata address.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import agent.member.zone as zone_mod
from agent.cli import main
from agent.member.zone import (
    SOURCES,
    ZoneConfig,
    ZoneConfigError,
    ZoneDetectionError,
    detect_zone,
)

pytestmark = pytest.mark.unit

SLOW_TIMEOUT_MS = 300
GENEROUS_S = 10.0  # "it finished", not a performance bound: the machine is shared


@dataclass
class Behaviour:
    """What one stand-in server does."""

    aws_zone_id: str = "use1-az4"
    aws_zone_name: str = "us-east-1a"
    gcp_zone: str = "projects/123456789/zones/us-central1-b"
    gcp_flavor_reply: bool = True  # send Metadata-Flavor: Google back
    azure_compute: dict[str, Any] = field(
        default_factory=lambda: {"location": "eastus", "zone": "2", "name": "vm-1"}
    )
    delay_s: float = 0.0  # wait this long before answering (a slow server)
    trickle: bool = False  # answer 200 then send one byte every 50 ms, never finishing
    garbage: bytes | None = None  # answer every request 200 with this body
    status: int | None = None  # answer every request with this status
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _common(self) -> bool:
        b = self.server.behaviour
        b.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
        if b.delay_s:
            self.server.release.wait(b.delay_s)
        if b.trickle:
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.send_header("Metadata-Flavor", "Google")
            self.end_headers()
            while not self.server.release.wait(0.05):
                try:
                    self.wfile.write(b"a")
                    self.wfile.flush()
                except OSError:
                    break
            return True
        if b.status is not None:
            self._send(b.status, b"nope")
            return True
        if b.garbage is not None:
            self._send(200, b.garbage, {"Metadata-Flavor": "Google"})
            return True
        return False

    def do_PUT(self) -> None:
        if self._common():
            return
        if self.path != "/latest/api/token":
            self._send(404, b"")
            return
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
        if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            self._send(400, b"missing or bad X-aws-ec2-metadata-token-ttl-seconds")
            return
        self._send(200, self.server.token.encode())

    def do_GET(self) -> None:
        if self._common():
            return
        b = self.server.behaviour
        if self.path.startswith("/latest/"):
            if self.headers.get("X-aws-ec2-metadata-token") != self.server.token:
                self._send(401, b"")  # IMDSv2 only: no (or a wrong) token
                return
            answers = {
                "/latest/meta-data/placement/availability-zone-id": b.aws_zone_id,
                "/latest/meta-data/placement/availability-zone": b.aws_zone_name,
            }
            if self.path in answers:
                self._send(200, answers[self.path].encode())
            else:
                self._send(404, b"")
        elif self.path.startswith("/computeMetadata/v1/"):
            if self.headers.get("Metadata-Flavor") != "Google":
                self._send(403, b"Missing Metadata-Flavor:Google header.")
                return
            reply = {"Metadata-Flavor": "Google"} if b.gcp_flavor_reply else {}
            if self.path == "/computeMetadata/v1/instance/zone":
                self._send(200, b.gcp_zone.encode(), reply)
            else:
                self._send(404, b"", reply)
        elif self.path.startswith("/metadata/"):
            if self.headers.get("Metadata") != "true":
                self._send(400, b'{"error": "Bad request. Required metadata header not specified"}')
                return
            if self.path == "/metadata/instance/compute?api-version=2021-02-01":
                self._send(200, json.dumps(b.azure_compute).encode(),
                           {"Content-Type": "application/json"})
            else:
                self._send(400, b'{"error": "Bad request. api-version was not specified"}')
        else:
            self._send(404, b"")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviour = behaviour
        self.token = "AQAEAFake-token=="
        self.release = threading.Event()  # ends every wait at teardown

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def serve() -> Iterator[Callable[..., _Server]]:
    started: list[_Server] = []

    def start(**kw: Any) -> _Server:
        srv = _Server(Behaviour(**kw))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.release.set()
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def closed_url() -> str:
    """A 127.0.0.1 port nobody listens on: connecting is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def only_localhost(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every connection agent.member.zone opens must go to 127.0.0.1 (never a real metadata address)."""
    opened: list[tuple[str, int]] = []
    real = zone_mod._connection

    def guarded(host: str, port: int, timeout_s: float) -> http.client.HTTPConnection:
        assert host == "127.0.0.1", f"test tried to reach {host}:{port}"
        opened.append((host, port))
        return real(host, port, timeout_s)

    monkeypatch.setattr(zone_mod, "_connection", guarded)
    for var in [v for v in dir(zone_mod) if v.startswith("ENV_")]:
        monkeypatch.delenv(getattr(zone_mod, var), raising=False)
    return opened


def cfg(closed: str, tmp_path: Path, **kw: Any) -> ZoneConfig:
    """Every metadata endpoint refused unless given, the file absent unless given."""
    base: dict[str, Any] = {
        "aws_endpoint": closed, "gcp_endpoint": closed, "azure_endpoint": closed,
        "zone_file": str(tmp_path / "no-such-zone-file"),
    }
    return ZoneConfig(**{**base, **kw})


# ---- env and file --------------------------------------------------------------------------------
def test_env_wins_and_nothing_is_asked(serve, closed_url, tmp_path, only_localhost) -> None:  # type: ignore[no-untyped-def]
    srv = serve()
    (tmp_path / "zone").write_text("from-file\n")
    r = detect_zone(cfg(closed_url, tmp_path, zone=" az-env ", zone_file=str(tmp_path / "zone"),
                        aws_endpoint=srv.url, gcp_endpoint=srv.url, azure_endpoint=srv.url))
    assert (r.zone, r.source, r.detail, r.failures) == ("az-env", "env", "RACKWISE_ZONE", ())
    assert only_localhost == [] and srv.behaviour.requests == []


def test_file_first_non_empty_line_stripped(closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "zone"
    path.write_text("\n   \n  europe-west1-c  \nsecond-line\n")
    r = detect_zone(cfg(closed_url, tmp_path, zone_file=str(path)))
    assert (r.zone, r.source, r.detail) == ("europe-west1-c", "file", str(path))
    assert [(f.source, f.reason) for f in r.failures] == [("env", "RACKWISE_ZONE is not set")]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no such file"),
        (b"", "empty"),
        (b"\n \n\t\n", "empty"),
        (b"\xff\xfe\x00zone", "not UTF-8"),
        (b"us east 1a\n", "is not a zone"),
    ],
)
def test_file_that_gives_no_zone(closed_url, tmp_path, content, reason) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "zone"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, zone_file=str(path), sources=("file",)))
    (file_failure,) = [f for f in err.value.failures if f.source == "file"]
    assert reason in file_failure.reason and str(path) in file_failure.reason


# ---- AWS IMDSv2 ------------------------------------------------------------------------------------
def test_aws_token_flow_gives_the_zone_id(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve()
    r = detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url))
    assert (r.zone, r.source) == ("use1-az4", "aws")
    assert r.detail == srv.url + "/latest/meta-data/placement/availability-zone-id"
    (put, get) = srv.behaviour.requests
    assert put[:2] == ("PUT", "/latest/api/token")
    assert put[2]["x-aws-ec2-metadata-token-ttl-seconds"] == str(zone_mod.AWS_TOKEN_TTL_S)
    assert get[:2] == ("GET", "/latest/meta-data/placement/availability-zone-id")
    assert get[2]["x-aws-ec2-metadata-token"] == srv.token


def test_aws_zone_name_only_when_asked(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve()
    r = detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url, aws_key="name"))
    assert (r.zone, r.source) == ("us-east-1a", "aws")
    assert srv.behaviour.requests[-1][1] == "/latest/meta-data/placement/availability-zone"


def test_stand_in_imds_refuses_a_get_without_token(serve) -> None:  # type: ignore[no-untyped-def]
    # The stand-in enforces IMDSv2 as AWS does, so the token test above proves the header is sent.
    srv = serve()
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=5)
    conn.request("GET", "/latest/meta-data/placement/availability-zone-id")
    assert conn.getresponse().status == 401
    conn.close()


def test_aws_without_token_service_is_a_failure(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(status=405)  # e.g. an IMDSv1-only proxy: no PUT
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url, sources=("aws",)))
    assert "aws: IMDSv2 token: HTTP 405" in str(err.value)


# ---- GCP -----------------------------------------------------------------------------------------
def test_gcp_zone_is_the_last_path_segment(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve()
    r = detect_zone(cfg(closed_url, tmp_path, gcp_endpoint=srv.url))
    assert (r.zone, r.source) == ("us-central1-b", "gcp")
    assert srv.behaviour.requests[0][2]["metadata-flavor"] == "Google"
    assert [f.source for f in r.failures] == ["env", "file", "aws"]


def test_gcp_answer_without_flavor_header_is_not_trusted(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(gcp_flavor_reply=False)
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, gcp_endpoint=srv.url, sources=("gcp",)))
    assert "without Metadata-Flavor: Google" in str(err.value)


def test_gcp_answer_that_is_not_a_zone_path(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(gcp_zone="us-central1-b")
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, gcp_endpoint=srv.url, sources=("gcp",)))
    assert "is not projects/N/zones/ZONE" in str(err.value)


# ---- Azure ---------------------------------------------------------------------------------------
def test_azure_location_zone_by_default(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(azure_compute={"location": "EastUS2", "zone": "3"})
    r = detect_zone(cfg(closed_url, tmp_path, azure_endpoint=srv.url))
    assert (r.zone, r.source) == ("eastus2-3", "azure")
    assert srv.behaviour.requests[0][2]["metadata"] == "true"


def test_azure_bare_zone_when_configured(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(azure_compute={"location": "westeurope", "zone": "1"})
    r = detect_zone(cfg(closed_url, tmp_path, azure_endpoint=srv.url, azure_format="zone"))
    assert r.zone == "1"


@pytest.mark.parametrize("compute", [{"location": "eastus", "zone": ""}, {"location": "eastus"}])
def test_azure_vm_outside_any_zone_fails(serve, closed_url, tmp_path, compute) -> None:  # type: ignore[no-untyped-def]
    srv = serve(azure_compute=compute)
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, azure_endpoint=srv.url, sources=("azure",)))
    assert "not in an availability zone" in str(err.value)


# ---- failures, time-outs, order ----------------------------------------------------------------------
@pytest.mark.parametrize("source", ["aws", "gcp", "azure"])
def test_slow_source_gives_up_and_the_next_answers(serve, closed_url, tmp_path, source) -> None:  # type: ignore[no-untyped-def]
    slow = serve(delay_s=GENEROUS_S)
    good = serve(azure_compute={"location": "eastus", "zone": "1"})
    endpoints = {f"{s}_endpoint": good.url for s in ("aws", "gcp", "azure")}
    endpoints[f"{source}_endpoint"] = slow.url
    after = SOURCES[SOURCES.index(source) + 1 :] or ()
    sources = (source, *after) if after else (source,)
    config = cfg(closed_url, tmp_path, timeout_ms=SLOW_TIMEOUT_MS, sources=sources, **endpoints)
    started = time.monotonic()
    if after:
        r = detect_zone(config)
        assert r.source == after[0]
        failure = r.failures[-1]
    else:
        with pytest.raises(ZoneDetectionError) as err:
            detect_zone(config)
        failure = err.value.failures[-1]
    assert (failure.source, failure.reason) == (source, f"no answer within {SLOW_TIMEOUT_MS} ms")
    assert time.monotonic() - started < GENEROUS_S  # gave up before the server answered


def test_trickling_answer_is_cut_at_the_budget(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(trickle=True)
    started = time.monotonic()
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, gcp_endpoint=srv.url, sources=("gcp",),
                        timeout_ms=SLOW_TIMEOUT_MS))
    assert f"gcp: no answer within {SLOW_TIMEOUT_MS} ms" in str(err.value)
    assert time.monotonic() - started < GENEROUS_S


@pytest.mark.parametrize(
    ("behaviour", "reasons"),
    [
        ({"status": 404}, {"aws": "HTTP 404", "gcp": "without Metadata-Flavor", "azure": "HTTP 404"}),
        ({"garbage": b"<html><body>hello</body></html>"},
         {"aws": "availability-zone-id: answer '<html><body>hello</body></html>' is not a zone",
          "gcp": "is not projects/N/zones/ZONE",
          "azure": "not JSON"}),
    ],
)
def test_wrong_answers_fail_each_source(serve, closed_url, tmp_path, behaviour, reasons) -> None:  # type: ignore[no-untyped-def]
    srv = serve(**behaviour)
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url, gcp_endpoint=srv.url,
                        azure_endpoint=srv.url))
    got = {f.source: f.reason for f in err.value.failures}
    for source, reason in reasons.items():
        assert reason in got[source], (source, got[source])


def test_good_token_but_garbage_zone_is_not_a_zone(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = serve(aws_zone_id="<html>oops</html>")
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url, sources=("aws",)))
    assert "availability-zone-id: answer '<html>oops</html>' is not a zone" in str(err.value)


def test_refused_port_is_a_failure_and_the_next_source_answers(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = serve()
    r = detect_zone(cfg(closed_url, tmp_path, azure_endpoint=good.url))
    assert r.source == "azure"
    reasons = {f.source: f.reason for f in r.failures}
    assert reasons["aws"] == f"{closed_url}: connection refused"
    assert reasons["gcp"] == f"{closed_url}: connection refused"


def test_sources_are_asked_in_the_documented_order(serve, closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Every source can answer, each with its own zone; removing the winner each time must hand
    # the answer to the next source in SOURCES, whatever order the sources are listed in.
    aws, gcp = serve(aws_zone_id="z-aws"), serve(gcp_zone="projects/1/zones/z-gcp")
    azure = serve(azure_compute={"location": "z", "zone": "azure"})
    (tmp_path / "zone").write_text("z-file\n")
    expected = {"env": "z-env", "file": "z-file", "aws": "z-aws", "gcp": "z-gcp", "azure": "z-azure"}
    for i, source in enumerate(SOURCES):
        enabled = tuple(reversed(SOURCES[i:]))
        r = detect_zone(cfg(closed_url, tmp_path, sources=enabled, zone="z-env",
                            zone_file=str(tmp_path / "zone"), aws_endpoint=aws.url,
                            gcp_endpoint=gcp.url, azure_endpoint=azure.url))
        assert (r.source, r.zone) == (source, expected[source])
        assert [f.source for f in r.failures] == list(SOURCES[:i])
        assert all(f.reason.startswith("skipped") for f in r.failures)


def test_error_lists_every_source_in_order(closed_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ZoneDetectionError) as err:
        detect_zone(cfg(closed_url, tmp_path, sources=("env", "file", "aws", "azure")))
    message = str(err.value)
    assert [f.source for f in err.value.failures] == list(SOURCES)
    positions = [message.index(f"{s}: ") for s in SOURCES]
    assert positions == sorted(positions)
    assert "env: RACKWISE_ZONE is not set" in message
    assert "no-such-zone-file: no such file" in message
    assert f"aws: {closed_url}: connection refused" in message
    assert "gcp: skipped (not in RACKWISE_ZONE_SOURCES)" in message
    assert "Set RACKWISE_ZONE to the broker.rack of the brokers" in message  # says what to do


def test_metadata_requests_ignore_proxy_variables(serve, closed_url, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for var in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(var, closed_url)  # a proxy that refuses everything
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    srv = serve()
    r = detect_zone(cfg(closed_url, tmp_path, aws_endpoint=srv.url))
    assert (r.source, r.zone) == ("aws", "use1-az4")


# ---- settings -------------------------------------------------------------------------------------
def test_from_env_reads_every_variable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = {
        "RACKWISE_ZONE": " az9 ", "RACKWISE_ZONE_FILE": str(tmp_path / "z"),
        "RACKWISE_ZONE_SOURCES": "gcp, AWS", "RACKWISE_ZONE_TIMEOUT_MS": "250",
        "RACKWISE_ZONE_AWS": "name", "RACKWISE_ZONE_AWS_ENDPOINT": "http://127.0.0.1:1",
        "RACKWISE_ZONE_GCP_ENDPOINT": "http://127.0.0.1:2/",
        "RACKWISE_ZONE_AZURE": "zone", "RACKWISE_ZONE_AZURE_ENDPOINT": "http://127.0.0.1:3",
    }
    c = ZoneConfig.from_env(env)
    assert c == ZoneConfig(
        sources=("aws", "gcp"), timeout_ms=250, zone="az9", zone_file=str(tmp_path / "z"),
        aws_key="name", aws_endpoint="http://127.0.0.1:1", gcp_endpoint="http://127.0.0.1:2/",
        azure_format="zone", azure_endpoint="http://127.0.0.1:3",
    )
    assert ZoneConfig.from_env(env, timeout_ms=100, zone=None).timeout_ms == 100
    d = ZoneConfig.from_env({})
    assert (d.sources, d.timeout_ms, d.zone_file, d.aws_key, d.azure_format) == (
        SOURCES, 1000, "/etc/rackwise/zone", "id", "location-zone")
    assert d.aws_endpoint == d.gcp_endpoint == d.azure_endpoint == "http://169.254.169.254"


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"RACKWISE_ZONE_SOURCES": "env,k8s"}, "unknown zone source(s) k8s"),
        ({"RACKWISE_ZONE_SOURCES": " "}, None),  # blank: the default list
        ({"RACKWISE_ZONE_SOURCES": ","}, "no zone source enabled"),
        ({"RACKWISE_ZONE_TIMEOUT_MS": "1001"}, "expected 1..1000 ms"),
        ({"RACKWISE_ZONE_TIMEOUT_MS": "0"}, "expected 1..1000 ms"),
        ({"RACKWISE_ZONE_TIMEOUT_MS": "1.5"}, "expected whole milliseconds"),
        ({"RACKWISE_ZONE_AWS": "arn"}, "expected id or name"),
        ({"RACKWISE_ZONE_AZURE": "region"}, "expected location-zone or zone"),
        ({"RACKWISE_ZONE_AWS_ENDPOINT": "https://127.0.0.1"}, "expected http://HOST[:PORT]"),
        ({"RACKWISE_ZONE_GCP_ENDPOINT": "http://127.0.0.1/computeMetadata"}, "the paths are fixed"),
        ({"RACKWISE_ZONE_AZURE_ENDPOINT": "http://127.0.0.1:99999"}, "is not a URL"),
    ],
)
def test_bad_settings_are_clear_errors(env, needle) -> None:  # type: ignore[no-untyped-def]
    if needle is None:
        assert ZoneConfig.from_env(env).sources == SOURCES
        return
    with pytest.raises(ZoneConfigError) as err:
        ZoneConfig.from_env(env)
    assert needle in str(err.value)


# ---- PlanFollower.create(rack="auto") and `rackwise zone` -------------------------------------------
def test_follower_auto_rack_fails_clearly_before_any_client(closed_url, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from agent.member import follower as follower_mod

    def no_clients(*a: object, **k: object) -> None:
        raise AssertionError("a Kafka client was built before the rack was known")

    monkeypatch.setattr(follower_mod, "Consumer", no_clients)
    with pytest.raises(ZoneDetectionError):
        follower_mod.PlanFollower.create(
            {"bootstrap.servers": "127.0.0.1:9"}, group_id="g", topics=["t"], rack="auto",
            zone_config=cfg(closed_url, tmp_path, sources=("env", "file", "aws")),
        )


def test_follower_auto_rack_sets_client_rack(serve, closed_url, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from agent.member import follower as follower_mod

    built: list[dict[str, Any]] = []

    class FakeClient:
        def __init__(self, conf: dict[str, Any]) -> None:
            built.append(conf)

    monkeypatch.setattr(follower_mod, "Consumer", FakeClient)
    monkeypatch.setattr(follower_mod, "Producer", FakeClient)
    srv = serve()
    f = follower_mod.PlanFollower.create(
        {"bootstrap.servers": "127.0.0.1:9"}, group_id="g", topics=["t"], rack="auto",
        zone_config=cfg(closed_url, tmp_path, aws_endpoint=srv.url),
    )
    assert f.rack == "use1-az4"
    data_consumer = built[0]
    assert data_consumer["client.rack"] == "use1-az4" and data_consumer["group.id"] == "g"


def test_cli_zone_json_and_text(serve, closed_url, tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    srv = serve()
    monkeypatch.setenv("RACKWISE_ZONE_FILE", str(tmp_path / "absent"))
    for var in ("AWS", "GCP", "AZURE"):
        monkeypatch.setenv(f"RACKWISE_ZONE_{var}_ENDPOINT", closed_url)
    monkeypatch.setenv("RACKWISE_ZONE_GCP_ENDPOINT", srv.url)
    assert main(["zone", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["zone"], doc["source"]) == ("us-central1-b", "gcp")
    assert [f["source"] for f in doc["failures"]] == ["env", "file", "aws"]
    assert main(["zone"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("us-central1-b\t") and "gcp" in out


def test_cli_zone_none_answers(closed_url, tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RACKWISE_ZONE_FILE", str(tmp_path / "absent"))
    for var in ("AWS", "GCP", "AZURE"):
        monkeypatch.setenv(f"RACKWISE_ZONE_{var}_ENDPOINT", closed_url)
    assert main(["zone", "--json", "--sources", "file,aws"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["zone"] is None and [f["source"] for f in doc["failures"]] == list(SOURCES)
    assert main(["zone", "--timeout-ms", "5000"]) == 2
    assert "expected 1..1000 ms" in capsys.readouterr().err
