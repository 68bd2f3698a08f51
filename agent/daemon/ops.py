"""Operations surface: Prometheus metrics and a tiny HTTP server for /healthz and /metrics.

Bound to 127.0.0.1 by default (docs/architecture.md § Agent behaviour). The server runs in a daemon thread
and reads
only thread-safe things: the prometheus registry and a health callback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest


class Metrics:
    """Every agent metric, on its own registry (several agents may share a process in tests)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.groups = Gauge("rackwise_groups", "groups this agent plans", registry=r)
        self.members = Gauge("rackwise_members", "live members of those groups", registry=r)
        self.plans = Counter("rackwise_plans_total", "plans published", ["reason"], registry=r)
        self.plan_failures = Counter(
            "rackwise_plan_failures_total", "plans that could not be made", ["stage"], registry=r
        )
        self.plan_latency = Histogram(
            "rackwise_plan_latency_seconds",
            "from the first triggering change to the committed plan",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=r,
        )
        self.cross_rack = Gauge(
            "rackwise_cross_rack_partitions",
            "cross-rack partitions in the latest plan",
            ["group"],
            registry=r,
        )
        self.triggers = Counter(
            "rackwise_triggers_total", "re-plan triggers", ["reason"], registry=r
        )
        self.traffic_probes = Counter(
            "rackwise_traffic_probes_total",
            "traffic probes of settled groups, by outcome (replan, material, not-material, "
            "stale, unmeasured, failed)", ["outcome"], registry=r,
        )
        self.advice_records = Counter(
            "rackwise_advice_records_total",
            "advice records for Kafka's plug-ins, by outcome (published, unchanged, failed, "
            "oversized)", ["outcome"], registry=r,
        )
        self.dead_letters = Counter(
            "rackwise_dead_letters_total",
            "records sent to the dead-letter topic",
            ["reason"],
            registry=r,
        )
        self.records = Counter(
            "rackwise_subscription_records_total", "subscription records read", registry=r
        )
        self.metadata_errors = Counter(
            "rackwise_metadata_errors_total", "failed metadata rounds", registry=r
        )
        self.assigned_partitions = Gauge(
            "rackwise_assigned_partitions",
            "subscriptions partitions owned by this agent",
            registry=r,
        )

        self.observed_actual = Gauge(
            "rackwise_observed_cross_rack_actual",
            "observe mode: cross-rack partitions of the assignment the group runs",
            ["group", "kind"],
            registry=r,
        )
        self.observed_best = Gauge(
            "rackwise_observed_cross_rack_best",
            "observe mode: cross-rack partitions of the best plan under the same balance",
            ["group", "kind"],
            registry=r,
        )
        self.observed_partitions = Gauge(
            "rackwise_observed_partitions",
            "observe mode: partitions the group reads",
            ["group", "kind"],
            registry=r,
        )
        self.observed_groups = Gauge(
            "rackwise_observed_groups", "observe mode: groups seen, by audit status", ["status"],
            registry=r,
        )
        self.observed_rack_unknown = Gauge(
            "rackwise_observed_rack_unknown_members",
            "observe mode: members with neither client.rack nor a host-map rack",
            ["group", "kind"],
            registry=r,
        )
        self.observed_bytes = Gauge(
            "rackwise_observed_cross_rack_bytes_per_second",
            "observe mode: bytes/s read across racks (plan: actual, best, worst; rack-unknown "
            "members at their expected share, worst: all of theirs)",
            ["group", "kind", "plan"],
            registry=r,
        )
        self.observed_cost = Gauge(
            "rackwise_observed_cross_rack_cost_dollars_per_month",
            "observe mode: what those bytes cost per month at the configured price "
            "(cost.price_per_gb x cost.billed_directions)",
            ["group", "kind", "plan"],
            registry=r,
        )
        self.observed_rack_pair_bytes = Gauge(
            "rackwise_observed_rack_pair_bytes_per_second",
            "observe mode: bytes/s the group's members read, by the rack of the broker serving "
            "them (from_rack) and the member's own (to_rack; 'unknown' when neither client.rack "
            "nor the host map says), per plan (actual, best); from_rack == to_rack is local",
            ["group", "kind", "plan", "from_rack", "to_rack"],
            registry=r,
        )
        self.observe_errors = Counter(
            "rackwise_observe_errors_total", "observe rounds that failed", registry=r
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)


class OpsServer:
    """/healthz (JSON, 200 healthy / 503 not) and /metrics (Prometheus text format)."""

    def __init__(
        self,
        host: str,
        port: int,
        metrics: Metrics,
        health: Callable[[], tuple[bool, dict[str, Any]]],
    ) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._send(200, outer.metrics.render(), CONTENT_TYPE_LATEST)
                elif path == "/healthz":
                    ok, detail = outer.health()
                    body = json.dumps({"status": "ok" if ok else "unhealthy", **detail}).encode()
                    self._send(200 if ok else 503, body, "application/json")
                else:
                    self._send(404, b"not found\n", "text/plain")

            def _send(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return  # access logs would drown the agent's own

        self.metrics = metrics
        self.health = health
        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="rackwise-ops", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
