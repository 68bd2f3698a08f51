"""One librdkafka member of a compat cell, run by the Python of the confluent-kafka release
under test (tests/compat/clientvenv.py), with the checkout first on ``sys.path``
(agentcells.DriverClient): ``main([MODE, "k=v", ...])``.

Modes:
* ``follower``: a classic-protocol member following the agent's plans
  (``agent.member.PlanFollower.create``, docs/plug-in-points.md's way), keys ``bootstrap group topic rack
  member subscriptions plans``;
* ``kip848``: a KIP-848 member with ``group.remote.assignor=rackwise``, keys ``bootstrap group
  topic rack``.

It prints JSON lines the way agent.dev.fetchstats.JsonLineClient reads them: ``hello`` (the
confluent-kafka and librdkafka versions it really imported), ``assignment`` (member id and
owned partitions, every time they change, and once at start), ``error`` (then it exits 3).
It stops on SIGTERM or when its stdin closes: the follower gives its partitions up and
leaves, the consumer closes.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from typing import Any

import confluent_kafka
from confluent_kafka import Consumer


def _say(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def _assignment(member_id: str, owned: set[tuple[str, int]]) -> None:
    _say("assignment", member_id=member_id, partitions=sorted([t, p] for t, p in owned),
         revoked=[], lost=[])


def main(argv: list[str]) -> int:
    mode, args = argv[0], dict(a.split("=", 1) for a in argv[1:])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def stdin_closed() -> None:
        sys.stdin.read()
        stop.set()
    threading.Thread(target=stdin_closed, daemon=True).start()
    import agent
    from agent.config.logs import configure_logging

    configure_logging("INFO", "json")  # to stderr: stdout carries the events
    _say("hello", confluent_kafka=confluent_kafka.__version__, agent=agent.__file__,
         librdkafka=confluent_kafka.libversion()[0], module=confluent_kafka.__file__)
    if mode == "follower":
        return _follower(args, stop)
    if mode == "kip848":
        return _kip848(args, stop)
    _say("error", message=f"unknown mode {mode}")
    return 3


def _follower(args: dict[str, str], stop: threading.Event) -> int:
    from agent.member import PlanFollower
    from protocol.errors import RackwiseError

    follower = PlanFollower.create(
        {"bootstrap.servers": args["bootstrap"]}, group_id=args["group"], topics=[args["topic"]],
        rack=args["rack"], member_id=args["member"], subscriptions_topic=args["subscriptions"],
        plans_topic=args["plans"], heartbeat_s=float(args.get("heartbeat", "1")))
    consumer = follower.consumer
    try:
        follower.start(timeout=20)
    except RackwiseError as exc:
        _say("error", message=str(exc))
        consumer.close()
        return 3
    owned = set(follower.owned)
    _assignment(follower.member_id, owned)
    try:
        while not stop.is_set():
            consumer.consume(100, 0.2)
            follower.poll()
            if follower.owned != owned:
                owned = set(follower.owned)
                _assignment(follower.member_id, owned)
                _say("plan", generation=follower.generation)
    finally:
        follower.close(leave=True)
        consumer.close()
    return 0


def _kip848(args: dict[str, str], stop: threading.Event) -> int:
    consumer = Consumer({
        "bootstrap.servers": args["bootstrap"], "group.id": args["group"],
        "group.protocol": "consumer", "group.remote.assignor": "rackwise",
        "client.rack": args["rack"], "client.id": f"rdkafka-{args['rack']}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
    })
    consumer.subscribe([args["topic"]])
    owned: set[tuple[str, int]] | None = None
    try:
        while not stop.is_set():
            consumer.consume(100, 0.2)
            member = consumer.memberid()
            now = {(tp.topic, tp.partition) for tp in consumer.assignment()}
            if member and now != owned:
                owned = now
                _assignment(member, owned)
            time.sleep(0.05)
    finally:
        consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
