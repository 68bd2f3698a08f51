"""A minimal blocking Kafka client for the RPCs confluent-kafka does not expose.

Used by the audit (ConsumerGroupDescribe, StreamsGroupDescribe) and the traffic estimator
(DescribeLogDirs). One :class:`Connection` per broker: TCP, optional TLS, optional
SASL/PLAIN, then ApiVersions v0 so every request is sent at the newest version both sides
know (``protocol.kafkarpc.KNOWN_VERSIONS``). Requests are sent one at a time per
connection; a few batched requests cover hundreds of groups, so no pipelining is needed.

Security comes from the same librdkafka properties the agent already uses
(``security.protocol``, ``sasl.mechanism``, ``sasl.username``, ``sasl.password``,
``ssl.ca.location``, ``ssl.endpoint.identification.algorithm``); anything else (SCRAM,
OAUTHBEARER, GSSAPI, client certificates) is refused with a :class:`WireError` saying so.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from protocol import kafkarpc as rpc
from protocol.errors import ProtocolError, RackwiseError
from protocol.schema import StructType

_SIZE = struct.Struct(">i")
MAX_RESPONSE = 256 * 1024 * 1024  # a describe of thousands of groups stays far below this


class WireError(RackwiseError):
    """A broker could not be reached or refused a request; the message says which and why."""


@dataclass(frozen=True)
class WireSettings:
    """Connection settings, read from librdkafka properties."""

    bootstrap: tuple[tuple[str, int], ...]
    security_protocol: str = "PLAINTEXT"
    username: str | None = None
    password: str | None = None
    ca_location: str | None = None
    verify_hostname: bool = True
    client_id: str = "rackwise"
    timeout: float = 15.0

    @classmethod
    def from_config(cls, conf: Mapping[str, Any], timeout: float = 15.0) -> WireSettings:
        """From the dict given to confluent-kafka (``AgentSettings.client_config()``)."""
        servers = str(conf.get("bootstrap.servers") or "")
        if not servers:
            raise WireError("no bootstrap.servers: pass --bootstrap or set RACKWISE_BOOTSTRAP")
        proto = str(conf.get("security.protocol", "PLAINTEXT")).upper()
        if proto not in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"):
            raise WireError(f"security.protocol={proto} is not one Kafka knows")
        if proto.startswith("SASL"):
            mech = str(conf.get("sasl.mechanism") or conf.get("sasl.mechanisms") or "GSSAPI").upper()
            if mech != "PLAIN":
                raise WireError(
                    f"sasl.mechanism={mech}: the audit's own describe requests (KIP-848 and "
                    "streams groups, log sizes) support SASL/PLAIN only; use a PLAIN listener "
                    "for the audit or audit classic groups only"
                )
        for key in ("ssl.certificate.location", "ssl.key.location", "ssl.keystore.location"):
            if conf.get(key):
                raise WireError(f"{key}: client certificates are not supported by the audit's "
                                "own describe requests; use a SASL/PLAIN or PLAINTEXT listener")
        return cls(
            bootstrap=tuple(_host_port(s) for s in servers.split(",") if s.strip()),
            security_protocol=proto,
            username=_opt(conf.get("sasl.username")),
            password=_opt(conf.get("sasl.password")),
            ca_location=_opt(conf.get("ssl.ca.location")),
            verify_hostname=str(conf.get("ssl.endpoint.identification.algorithm", "https"))
            .lower() != "none",
            client_id=str(conf.get("client.id") or "rackwise"),
            timeout=timeout,
        )


def _opt(v: Any) -> str | None:
    return None if v in (None, "") else str(v)


def _host_port(server: str) -> tuple[str, int]:
    s = server.strip()
    for prefix in ("PLAINTEXT://", "SSL://", "SASL_PLAINTEXT://", "SASL_SSL://"):
        if s.upper().startswith(prefix):
            s = s[len(prefix):]
    host, sep, port = s.rpartition(":")
    if not sep or not port.isdigit():
        raise WireError(f"bootstrap server {server!r} is not host:port")
    return host.strip("[]"), int(port)


class Connection:
    """One authenticated connection to one broker; knows the broker's API versions."""

    def __init__(self, host: str, port: int, settings: WireSettings) -> None:
        self.host, self.port, self.settings = host, port, settings
        self._correlation = 0
        try:
            raw = socket.create_connection((host, port), timeout=settings.timeout)
        except OSError as exc:
            raise WireError(f"cannot connect to {host}:{port}: {exc}") from None
        self.sock: socket.socket = raw
        try:
            if settings.security_protocol in ("SSL", "SASL_SSL"):
                ctx = ssl.create_default_context(cafile=settings.ca_location)
                ctx.check_hostname = settings.verify_hostname
                self.sock = ctx.wrap_socket(raw, server_hostname=host)
            self.versions: dict[int, tuple[int, int]] = {}
            if settings.security_protocol.startswith("SASL"):
                self._sasl_plain()
            self.versions = self._api_versions()
        except (OSError, ssl.SSLError) as exc:
            self.close()
            raise WireError(f"{host}:{port}: {exc}") from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    # ---- framing ---------------------------------------------------------------------------
    def _roundtrip(self, api_key: int, version: int, body: bytes) -> Any:
        self._correlation += 1
        cid = self._correlation
        self.sock.sendall(rpc.frame_request(api_key, version, cid, self.settings.client_id, body))
        size = _SIZE.unpack(self._read_exactly(4))[0]
        if not 4 <= size <= MAX_RESPONSE:
            raise WireError(f"{self.host}:{self.port}: implausible response size {size}")
        return rpc.response_body(api_key, version, cid, self._read_exactly(size))

    def _read_exactly(self, n: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < n:
            chunk = self.sock.recv(min(n - len(chunks), 1 << 20))
            if not chunk:
                raise WireError(f"{self.host}:{self.port} closed the connection "
                                "(wrong security.protocol for this listener?)")
            chunks += chunk
        return bytes(chunks)

    def _api_versions(self) -> dict[int, tuple[int, int]]:
        r = self._roundtrip(rpc.API_VERSIONS, 0, b"")
        resp = rpc.decode(rpc.API_VERSIONS_RESPONSE, r, 0)
        if resp.error_code:
            raise WireError(f"{self.host}:{self.port}: ApiVersions failed: "
                            f"{rpc.error_name(resp.error_code)}")
        return {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}

    def _sasl_plain(self) -> None:
        s = self.settings
        if s.username is None or s.password is None:
            raise WireError("SASL/PLAIN needs sasl.username and sasl.password")
        r = self._roundtrip(rpc.SASL_HANDSHAKE, 1,
                            rpc.encode(rpc.SASL_HANDSHAKE_REQUEST,
                                       rpc.SaslHandshakeRequest("PLAIN"), 1))
        hs = rpc.decode(rpc.SASL_HANDSHAKE_RESPONSE, r, 1)
        if hs.error_code:
            raise WireError(f"{self.host}:{self.port}: SASL mechanism PLAIN refused "
                            f"(broker offers {', '.join(hs.mechanisms) or 'none'})")
        token = b"\x00" + s.username.encode() + b"\x00" + s.password.encode()
        r = self._roundtrip(rpc.SASL_AUTHENTICATE, 2,
                            rpc.encode(rpc.SASL_AUTHENTICATE_REQUEST,
                                       rpc.SaslAuthenticateRequest(token), 2))
        auth = rpc.decode(rpc.SASL_AUTHENTICATE_RESPONSE, r, 2)
        if auth.error_code:
            # the broker's message names the mechanism, never the password
            raise WireError(f"{self.host}:{self.port}: SASL authentication failed: "
                            f"{auth.error_message or rpc.error_name(auth.error_code)}")

    # ---- requests --------------------------------------------------------------------------
    def version_for(self, api_key: int, name: str) -> int | None:
        """The newest version both sides know, or None when the broker lacks the API."""
        theirs = self.versions.get(api_key)
        lo, hi = rpc.KNOWN_VERSIONS[api_key]
        if theirs is None or theirs[1] < lo or theirs[0] > hi:
            return None
        return min(hi, theirs[1])

    def request_at(self, api_key: int, version: int, req: StructType[Any], value: Any,
                   resp: StructType[Any]) -> Any:
        """One request at an exact version the caller knows the broker takes (tools, benches)."""
        try:
            return rpc.decode(resp, self._roundtrip(api_key, version, rpc.encode(req, value, version)),
                              version)
        except OSError as exc:
            raise WireError(f"{self.host}:{self.port}: API {api_key} failed: {exc}") from None

    def request(self, api_key: int, name: str, req: StructType[Any], value: Any,
                resp: StructType[Any]) -> tuple[int, Any]:
        """Send ``value`` and decode the answer; WireError when the broker cannot take it."""
        version = self.version_for(api_key, name)
        if version is None:
            have = self.versions.get(api_key)
            raise WireError(
                f"{self.host}:{self.port} does not support {name} (API {api_key}) at a version "
                f"rackwise knows {rpc.KNOWN_VERSIONS[api_key]}; broker offers "
                f"{'nothing' if have is None else have}"
            )
        try:
            r = self._roundtrip(api_key, version, rpc.encode(req, value, version))
            return version, rpc.decode(resp, r, version)
        except OSError as exc:
            raise WireError(f"{self.host}:{self.port}: {name} failed: {exc}") from None
        except ProtocolError as exc:
            raise WireError(f"{self.host}:{self.port}: malformed {name} response: {exc}") from None


class WireClient:
    """Connections by broker address, opened lazily and reused; the bootstrap one first."""

    def __init__(self, settings: WireSettings) -> None:
        self.settings = settings
        self._conns: dict[tuple[str, int], Connection] = {}

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()

    def connection(self, host: str, port: int) -> Connection:
        key = (host, port)
        conn = self._conns.get(key)
        if conn is None:
            conn = self._conns[key] = Connection(host, port, self.settings)
        return conn

    def any_connection(self) -> Connection:
        errors = []
        for host, port in (*self._conns, *self.settings.bootstrap):
            try:
                return self.connection(host, port)
            except WireError as exc:
                errors.append(str(exc))
        raise WireError("no bootstrap server reachable: " + "; ".join(errors))

    def find_coordinators(self, group_ids: Iterable[str]) -> dict[str, tuple[str, int] | str]:
        """Each group's coordinator address, or the error that stopped us finding it."""
        ids = sorted(set(group_ids))
        if not ids:
            return {}
        conn = self.any_connection()
        _, resp = conn.request(
            rpc.FIND_COORDINATOR, "FindCoordinator", rpc.FIND_COORDINATOR_REQUEST,
            rpc.FindCoordinatorRequest(rpc.GROUP_KEY, ids), rpc.FIND_COORDINATOR_RESPONSE)
        out: dict[str, tuple[str, int] | str] = {}
        for c in resp.coordinators:
            if c.error_code:
                out[c.key] = f"FindCoordinator: {c.error_message or rpc.error_name(c.error_code)}"
            else:
                out[c.key] = (c.host, c.port)
        for gid in ids:
            out.setdefault(gid, "FindCoordinator: no answer for this group")
        return out
