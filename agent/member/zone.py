"""Where this process runs: the zone to use as ``client.rack`` (docs/member.md).

:func:`detect_zone` asks a fixed list of sources, in this order, and returns the first answer:

1. ``env``: the ``RACKWISE_ZONE`` environment variable;
2. ``file``: the first non-empty line of ``RACKWISE_ZONE_FILE`` (default ``/etc/rackwise/zone``:
   a Kubernetes downward-API volume, or a file an init container wrote from its node's
   ``topology.kubernetes.io/zone`` label);
3. ``aws``: EC2 IMDSv2 (token PUT, then ``placement/availability-zone-id``, the zone *ID* such
   as ``use1-az1`` that MSK's ``broker.rack`` uses; ``placement/availability-zone`` only when
   asked for the name);
4. ``gcp``: the GCE metadata server's ``instance/zone``;
5. ``azure``: Azure IMDS ``instance/compute`` (``<location>-<zone>`` by default, as AKS labels
   its nodes).

Each source has its own budget of at most 1 s (``RACKWISE_ZONE_TIMEOUT_MS``, default 1000),
connect, request and answer included. Metadata requests go straight to the metadata address
with ``http.client``: no proxy (``HTTP_PROXY`` and friends are never read), no redirects, no
DNS lookup with the default endpoints. When no source answers, :class:`ZoneDetectionError`
lists every source and why it gave no zone. The JVM twin is
``plugins/src/main/java/dev/rackwise/plugins/zone`` (same sources, order and variables).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from protocol.errors import RackwiseError

SOURCES: tuple[str, ...] = ("env", "file", "aws", "gcp", "azure")

ENV_ZONE = "RACKWISE_ZONE"
ENV_FILE = "RACKWISE_ZONE_FILE"
ENV_SOURCES = "RACKWISE_ZONE_SOURCES"
ENV_TIMEOUT_MS = "RACKWISE_ZONE_TIMEOUT_MS"
ENV_AWS = "RACKWISE_ZONE_AWS"
ENV_AWS_ENDPOINT = "RACKWISE_ZONE_AWS_ENDPOINT"
ENV_GCP_ENDPOINT = "RACKWISE_ZONE_GCP_ENDPOINT"
ENV_AZURE = "RACKWISE_ZONE_AZURE"
ENV_AZURE_ENDPOINT = "RACKWISE_ZONE_AZURE_ENDPOINT"

DEFAULT_FILE = "/etc/rackwise/zone"
# Every cloud answers on the link-local address. GCP documents metadata.google.internal too, but
# resolving a name is a DNS query that leaves the host and that no socket timeout bounds, so the
# default is the address; RACKWISE_ZONE_GCP_ENDPOINT=http://metadata.google.internal restores it.
DEFAULT_AWS_ENDPOINT = "http://169.254.169.254"
DEFAULT_GCP_ENDPOINT = "http://169.254.169.254"
DEFAULT_AZURE_ENDPOINT = "http://169.254.169.254"
MAX_TIMEOUT_MS = 1000

AwsKey = Literal["id", "name"]
AzureFormat = Literal["location-zone", "zone"]

AWS_TOKEN_TTL_S = 60  # the token is used at once; a short life limits what a leak could do
_MAX_ANSWER = 64 * 1024
# What a metadata service may call a zone: a Kubernetes label value (use1-az1, us-central1-a,
# eastus-1). Anything else (an HTML error page, a JSON blob) is a wrong service, not a zone.
_METADATA_ZONE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?")
# What a person may call a zone (env, file): Kafka's broker.rack is free text, but a zone with
# whitespace or control characters is a copy-paste accident.
_GIVEN_ZONE = re.compile(r"[!-~]{1,255}")


class ZoneConfigError(RackwiseError):
    """A zone-detection setting is invalid (unknown source, time-out above 1 s, bad endpoint)."""


@dataclass(frozen=True)
class SourceFailure:
    """Why one source gave no zone."""

    source: str
    reason: str


class ZoneDetectionError(RackwiseError):
    """No source answered; the message lists every source in order and why it failed."""

    def __init__(self, failures: Sequence[SourceFailure]) -> None:
        self.failures = tuple(failures)
        tried = "; ".join(f"{f.source}: {f.reason}" for f in self.failures)
        super().__init__(
            f"cannot tell which zone this process runs in ({tried}). Set {ENV_ZONE} to the "
            "broker.rack of the brokers in this process's zone, or write it to "
            f"{ENV_FILE} (docs/member.md)"
        )


@dataclass(frozen=True)
class ZoneResult:
    """The detected zone, the source that answered, and the sources that failed before it."""

    zone: str
    source: str
    detail: str  # where exactly: the variable, the file, or the URL that answered
    failures: tuple[SourceFailure, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "zone": self.zone,
            "source": self.source,
            "detail": self.detail,
            "failures": [{"source": f.source, "reason": f.reason} for f in self.failures],
        }


@dataclass(frozen=True)
class _Endpoint:
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}" + ("" if self.port == 80 else f":{self.port}")


def _endpoint(name: str, raw: str) -> _Endpoint:
    try:
        parts = urlsplit(raw.strip())
        port = parts.port or 80
    except ValueError as exc:
        raise ZoneConfigError(f"{name}={raw!r} is not a URL: {exc}") from None
    if parts.scheme != "http" or not parts.hostname:
        raise ZoneConfigError(
            f"{name}={raw!r}: expected http://HOST[:PORT] (metadata services speak plain HTTP)"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ZoneConfigError(f"{name}={raw!r}: give only http://HOST[:PORT], the paths are fixed")
    return _Endpoint(parts.hostname, port)


@dataclass(frozen=True)
class ZoneConfig:
    """Which sources to ask and where. :meth:`from_env` reads the ``RACKWISE_ZONE*`` variables."""

    sources: tuple[str, ...] = SOURCES
    timeout_ms: int = MAX_TIMEOUT_MS
    zone: str | None = None
    zone_file: str = DEFAULT_FILE
    aws_key: AwsKey = "id"
    aws_endpoint: str = DEFAULT_AWS_ENDPOINT
    gcp_endpoint: str = DEFAULT_GCP_ENDPOINT
    azure_format: AzureFormat = "location-zone"
    azure_endpoint: str = DEFAULT_AZURE_ENDPOINT

    def __post_init__(self) -> None:
        unknown = sorted(set(self.sources) - set(SOURCES))
        if unknown:
            raise ZoneConfigError(
                f"unknown zone source(s) {', '.join(unknown)}: choose from {', '.join(SOURCES)}"
            )
        # The order is the documented one whatever order the sources were listed in, so that
        # the Python and JVM sides, and every deployment, agree on who wins.
        object.__setattr__(self, "sources", tuple(s for s in SOURCES if s in self.sources))
        if not self.sources:
            raise ZoneConfigError(f"no zone source enabled: choose from {', '.join(SOURCES)}")
        if (
            isinstance(self.timeout_ms, bool)
            or not isinstance(self.timeout_ms, int)
            or not 1 <= self.timeout_ms <= MAX_TIMEOUT_MS
        ):
            raise ZoneConfigError(
                f"zone time-out {self.timeout_ms!r} ms: expected 1..{MAX_TIMEOUT_MS} ms per source"
            )
        if self.aws_key not in ("id", "name"):
            raise ZoneConfigError(f"{ENV_AWS}={self.aws_key!r}: expected id or name")
        if self.azure_format not in ("location-zone", "zone"):
            raise ZoneConfigError(f"{ENV_AZURE}={self.azure_format!r}: expected location-zone or zone")
        for source in ("aws", "gcp", "azure"):
            self.endpoint(source)  # a bad URL fails here, not at the first request

    def endpoint(self, source: str) -> _Endpoint:
        if source == "aws":
            return _endpoint(ENV_AWS_ENDPOINT, self.aws_endpoint)
        if source == "gcp":
            return _endpoint(ENV_GCP_ENDPOINT, self.gcp_endpoint)
        return _endpoint(ENV_AZURE_ENDPOINT, self.azure_endpoint)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> ZoneConfig:
        """Settings from ``overrides`` (None means unset) > ``RACKWISE_ZONE*`` > defaults."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if env.get(ENV_SOURCES, "").strip():
            values["sources"] = tuple(
                s.strip().lower() for s in env[ENV_SOURCES].split(",") if s.strip()
            )
        if env.get(ENV_TIMEOUT_MS, "").strip():
            raw = env[ENV_TIMEOUT_MS].strip()
            try:
                values["timeout_ms"] = int(raw)
            except ValueError:
                raise ZoneConfigError(f"{ENV_TIMEOUT_MS}={raw!r}: expected whole milliseconds") from None
        for key, var in (
            ("zone", ENV_ZONE),
            ("zone_file", ENV_FILE),
            ("aws_key", ENV_AWS),
            ("aws_endpoint", ENV_AWS_ENDPOINT),
            ("gcp_endpoint", ENV_GCP_ENDPOINT),
            ("azure_format", ENV_AZURE),
            ("azure_endpoint", ENV_AZURE_ENDPOINT),
        ):
            if env.get(var, "").strip():
                values[key] = env[var].strip()
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


class _Failed(Exception):
    """One source gave no zone (internal: becomes a SourceFailure)."""


# Every connection the module opens goes through here: one place to see (and, in tests, to
# check) where metadata requests go. http.client never reads proxy variables.
def _connection(host: str, port: int, timeout_s: float) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(host, port, timeout=timeout_s)


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes


def _remaining(deadline: float, timeout_ms: int) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Failed(f"no answer within {timeout_ms} ms")
    return left


def _request(
    ep: _Endpoint,
    method: str,
    path: str,
    headers: Mapping[str, str],
    deadline: float,
    timeout_ms: int,
) -> _Reply:
    conn = _connection(ep.host, ep.port, _remaining(deadline, timeout_ms))
    try:
        conn.request(method, path, headers=dict(headers))
        # getresponse() drops conn.sock when the server closes after answering (HTTP/1.0):
        # keep the socket to re-arm its time-out.
        sock = conn.sock
        if sock is not None:
            sock.settimeout(_remaining(deadline, timeout_ms))
        resp = conn.getresponse()
        chunks: list[bytes] = []
        size = 0
        while True:
            # The socket time-out bounds each read; re-arming it with what is left of the
            # budget bounds a server that trickles its answer too.
            left = _remaining(deadline, timeout_ms)
            if sock is not None:
                sock.settimeout(left)
            chunk = resp.read1(4096)  # one recv: read(n) would wait for all n bytes
            if not chunk:
                break
            size += len(chunk)
            if size > _MAX_ANSWER:
                raise _Failed(f"{method} {path}: answer larger than {_MAX_ANSWER} bytes")
            chunks.append(chunk)
        return _Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, b"".join(chunks))
    except TimeoutError:
        raise _Failed(f"no answer within {timeout_ms} ms") from None
    except ConnectionRefusedError:
        raise _Failed(f"{ep.url}: connection refused") from None
    except http.client.HTTPException as exc:
        raise _Failed(f"{ep.url}: not an HTTP answer ({type(exc).__name__})") from None
    except OSError as exc:
        raise _Failed(f"{ep.url}: {exc.strerror or exc}") from None
    finally:
        conn.close()


def _ok(reply: _Reply, what: str) -> str:
    if reply.status != 200:
        raise _Failed(f"{what}: HTTP {reply.status}")
    try:
        return reply.body.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise _Failed(f"{what}: answer is not UTF-8 text") from None


def _metadata_zone(text: str, what: str) -> str:
    if not _METADATA_ZONE.fullmatch(text):
        shown = text[:40] + ("..." if len(text) > 40 else "")
        raise _Failed(f"{what}: answer {shown!r} is not a zone")
    return text


def _given_zone(text: str, what: str) -> str:
    if not _GIVEN_ZONE.fullmatch(text):
        raise _Failed(f"{what}: {text[:40]!r} is not a zone (printable, no spaces, 1..255 characters)")
    return text


# ---- the sources, each (config, deadline) -> (zone, detail) ------------------------------------
def _from_env(cfg: ZoneConfig, deadline: float) -> tuple[str, str]:
    if cfg.zone is None or not cfg.zone.strip():
        raise _Failed(f"{ENV_ZONE} is not set")
    return _given_zone(cfg.zone.strip(), ENV_ZONE), ENV_ZONE


def _from_file(cfg: ZoneConfig, deadline: float) -> tuple[str, str]:
    path = Path(cfg.zone_file)
    try:
        with path.open("rb") as fh:
            raw = fh.read(_MAX_ANSWER)
    except FileNotFoundError:
        raise _Failed(f"{path}: no such file") from None
    except OSError as exc:
        raise _Failed(f"{path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Failed(f"{path}: not UTF-8 text") from None
    for line in text.splitlines():
        if line.strip():
            return _given_zone(line.strip(), str(path)), str(path)
    raise _Failed(f"{path}: empty")


def _from_aws(cfg: ZoneConfig, deadline: float) -> tuple[str, str]:
    ep = cfg.endpoint("aws")
    token_reply = _request(
        ep, "PUT", "/latest/api/token",
        {"X-aws-ec2-metadata-token-ttl-seconds": str(AWS_TOKEN_TTL_S)}, deadline, cfg.timeout_ms,
    )
    token = _ok(token_reply, "IMDSv2 token")
    if not token or not token.isascii() or not token.isprintable():
        raise _Failed("IMDSv2 token: empty or not printable ASCII")
    leaf = "availability-zone-id" if cfg.aws_key == "id" else "availability-zone"
    path = f"/latest/meta-data/placement/{leaf}"
    reply = _request(
        ep, "GET", path, {"X-aws-ec2-metadata-token": token}, deadline, cfg.timeout_ms
    )
    return _metadata_zone(_ok(reply, leaf), leaf), ep.url + path


_GCP_PATH = "/computeMetadata/v1/instance/zone"


def _from_gcp(cfg: ZoneConfig, deadline: float) -> tuple[str, str]:
    ep = cfg.endpoint("gcp")
    reply = _request(ep, "GET", _GCP_PATH, {"Metadata-Flavor": "Google"}, deadline, cfg.timeout_ms)
    # Google's server always answers with this header; another cloud's service on the same
    # address does not, and its answer must not be taken for a GCP zone.
    if reply.headers.get("metadata-flavor", "").lower() != "google":
        raise _Failed(f"{ep.url}: answer without Metadata-Flavor: Google (not the GCE metadata server)")
    text = _ok(reply, "instance/zone")  # projects/123456789/zones/us-central1-a
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != "projects" or parts[2] != "zones":
        raise _Failed(f"instance/zone: {text[:60]!r} is not projects/N/zones/ZONE")
    return _metadata_zone(parts[3], "instance/zone"), ep.url + _GCP_PATH


_AZURE_PATH = "/metadata/instance/compute?api-version=2021-02-01"


def _from_azure(cfg: ZoneConfig, deadline: float) -> tuple[str, str]:
    ep = cfg.endpoint("azure")
    reply = _request(ep, "GET", _AZURE_PATH, {"Metadata": "true"}, deadline, cfg.timeout_ms)
    try:
        compute = json.loads(_ok(reply, "instance/compute"))
    except json.JSONDecodeError:
        raise _Failed("instance/compute: answer is not JSON") from None
    if not isinstance(compute, dict):
        raise _Failed("instance/compute: answer is not a JSON object")
    zone, location = compute.get("zone"), compute.get("location")
    if not isinstance(zone, str) or not zone.strip():
        raise _Failed("instance/compute: no zone (the VM is not in an availability zone)")
    zone = zone.strip()
    if cfg.azure_format == "location-zone":
        if not isinstance(location, str) or not location.strip():
            raise _Failed("instance/compute: no location")
        zone = f"{location.strip().lower()}-{zone}"
    return _metadata_zone(zone, "instance/compute"), ep.url + _AZURE_PATH


_SOURCE_FUNCS: dict[str, Callable[[ZoneConfig, float], tuple[str, str]]] = {
    "env": _from_env,
    "file": _from_file,
    "aws": _from_aws,
    "gcp": _from_gcp,
    "azure": _from_azure,
}


def detect_zone(config: ZoneConfig | None = None) -> ZoneResult:
    """The zone this process runs in, from the first source that answers (see the module doc).

    ``config`` defaults to :meth:`ZoneConfig.from_env`. Raises :class:`ZoneDetectionError`
    (listing every source) when none answers, :class:`ZoneConfigError` for bad settings.
    """
    cfg = ZoneConfig.from_env() if config is None else config
    failures: list[SourceFailure] = []
    for name in SOURCES:
        if name not in cfg.sources:
            failures.append(SourceFailure(name, f"skipped (not in {ENV_SOURCES})"))
            continue
        deadline = time.monotonic() + cfg.timeout_ms / 1000
        try:
            zone, detail = _SOURCE_FUNCS[name](cfg, deadline)
        except _Failed as exc:
            failures.append(SourceFailure(name, str(exc)))
            continue
        return ZoneResult(zone, name, detail, tuple(failures))
    raise ZoneDetectionError(failures)


AUTO = "auto"  # rack="auto" (PlanFollower.create): detect the zone

