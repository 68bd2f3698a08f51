"""The end-to-end demo: a real 3-rack cluster, and what rackwise makes of it."""

from __future__ import annotations

import os
import sys
import time

from agent import testbed


def _say(msg: str = "") -> None:
    print(msg, flush=True)


def run_demo(bootstrap: str | None = None, keep: bool = False) -> int:
    started = time.monotonic()
    bootstrap = bootstrap or os.environ.get("RACKWISE_BOOTSTRAP")
    bed = None
    if not bootstrap:
        bed = testbed.Testbed(log=lambda m: print(f"testbed: {m}", file=sys.stderr, flush=True))
        was_running = bed.is_running()
        _say("== starting the local testbed: 3 KRaft brokers in racks az1, az2, az3")
        bootstrap = bed.up()
    try:
        from confluent_kafka.admin import AdminClient

        admin = AdminClient({"bootstrap.servers": bootstrap})
        cluster = admin.describe_cluster(request_timeout=15).result()
        _say(f"bootstrap servers: {bootstrap}")
        for node in sorted(cluster.nodes, key=lambda n: n.id):
            _say(f"  broker {node.id}  {node.host}:{node.port}  rack={node.rack}")
    finally:
        if bed is not None and not keep and not was_running:
            _say("== stopping the testbed")
            bed.down()
    _say(f"demo finished in {time.monotonic() - started:.0f}s")
    return 0
