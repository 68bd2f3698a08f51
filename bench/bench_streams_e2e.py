"""End-to-end Streams assignment: rackwise's KIP-924 task assignor vs Kafka's own, one run.

    PYTHONPATH=. .venv/bin/python bench/bench_streams_e2e.py [--seed 1] [--repeat 5]
        [--sizes 400x40,1000x100] [--kafka-timeout 900] [--skip-kafka]

Needs the testbed (RACKWISE_BOOTSTRAP, or the local one: started if it is not running, and
stopped again at the end) and the plug-in jar (`make plugins`).

What is timed is the task-assignment step of a Kafka Streams leader's rebalance, the only step
that differs between the two (JoinGroup/SyncGroup and the thread-level distribution are the
same code either way):

* rackwise: `bench/java/streams-harness` `TaskAssignorE2E` builds the ApplicationState Kafka
  Streams would hand a KIP-924 assignor for the scenario and calls
  `RackwiseTaskAssignor.assign` on a new, configured instance (as Streams does on every
  rebalance), so every call is the real round trip: the request written to the testbed's
  requests topic, a real agent (`agent.daemon`, in this process) planning it with the HA +
  min_traffic assignor, the plan published transactionally and read back read_committed,
  checked and translated. The first call also starts the plug-in's Kafka clients (once per
  application JVM); the following calls are what every later rebalance costs.
* Kafka: kafka-streams 4.3.1's `HighAvailabilityTaskAssignor` with its
  `RackAwareTaskAssignor` (`min_traffic`) on the same scenario, in-process in the
  `StreamsHarness` JVM (bench/streams_parity.run_kafka), timed inside the JVM; it is what a
  Streams application without `task.assignor.class` runs. Given up after --kafka-timeout.

Scenarios: bench/streams_gen.py (seeded): all tasks stateful with 2 source partitions each,
tasks/100 subtopologies, 3 racks, RF 2, 1 standby, clients with 1-2 threads, fresh state
(the shape bench/bench_streams.py uses). Both assignments are scored by
bench/streams_parity.evaluate: active traffic = source partitions of actives with no replica in
the client's rack; standby traffic = changelog partitions of standbys likewise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assignor.scenario.streams import parse_inputs  # noqa: E402
from assignor.streams.model import StreamsInputs  # noqa: E402
from bench.streams_gen import generate  # noqa: E402
from bench.streams_parity import PROJECT, evaluate, harness_input, run_kafka  # noqa: E402
from protocol.streams import TaskId  # noqa: E402
from tests.support import javaharness  # noqa: E402
from tests.support.agent import AgentThread, isolated_settings  # noqa: E402
from tests.support.streamsapp import build_plugin_jar  # noqa: E402

E2E_MAIN = "dev.rackwise.bench.TaskAssignorE2E"


def scenario(tasks: int, clients: int, seed: int) -> StreamsInputs:
    return parse_inputs(generate(
        seed, tasks=tasks, clients=clients, racks=3, rf=2, standbys=1,
        subtopologies=max(1, tasks // 100), source_partitions=2, stateless_share=0.0,
        strategy="min_traffic",
    ))


def rackwise(inputs: StreamsInputs, bootstrap: str, topics: Any, repeat: int, app: str) -> dict[str, Any]:
    doc, uuid_of = harness_input(inputs, repeat)
    doc["assignor_configs"] = {
        "application.id": app,
        "bootstrap.servers": bootstrap,
        "rackwise.requests.topic": topics.requests,
        "rackwise.plans.topic": topics.plans,
        "rackwise.deadletter.topic": topics.deadletter,
        "rackwise.timeout.ms": "30000",
    }
    cp = javaharness.classpath(PROJECT) + os.pathsep + str(build_plugin_jar())
    proc = subprocess.run(
        [javaharness._require("java"), "-Xmx512m", "-cp", cp, E2E_MAIN],
        input=json.dumps(doc).encode(), capture_output=True, timeout=1200,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{E2E_MAIN} exited {proc.returncode}: {proc.stderr.decode()[-3000:]}")
    out = json.loads(proc.stdout)
    pid_of = {u: p for p, u in uuid_of.items()}
    active = {pid_of[c["uuid"]]: {TaskId.parse(t) for t in c["active"]} for c in out["clients"]}
    standby = {pid_of[c["uuid"]]: {TaskId.parse(t) for t in c["standby"]} for c in out["clients"]}
    millis = [float(m) for m in out["millis"]]
    if not out["stats"].startswith(f"plans_used={repeat} ") or out["kafka_check"] != "NONE":
        raise RuntimeError(f"rackwise did not use every plan: {out['stats']}, Kafka's check "
                           f"{out['kafka_check']}; stderr: {proc.stderr.decode()[-2000:]}")
    warm = millis[1:] or millis
    return {
        "first_s": millis[0] / 1000,
        "seconds": statistics.median(warm) / 1000,
        "best_s": min(warm) / 1000,
        "stats": out["stats"],
        **evaluate(inputs, active, standby),
    }


def kafka(inputs: StreamsInputs, timeout: float) -> dict[str, Any] | None:
    try:
        out = run_kafka(inputs, repeat=1, heap="-Xmx1g", timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return {"seconds": out.millis[0] / 1000, **evaluate(inputs, out.active, out.standby)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="rackwise calls per size (first + warm)")
    ap.add_argument("--sizes", default="400x40,1000x100")
    ap.add_argument("--kafka-timeout", type=float, default=900.0)
    ap.add_argument("--skip-kafka", action="store_true")
    args = ap.parse_args()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]

    from agent.dev import testbed

    bed = None
    bootstrap = os.environ.get("RACKWISE_BOOTSTRAP")
    if not bootstrap:
        bed = testbed.Testbed()
        was_running = bed.is_running()
        bootstrap = bed.up()
    prefix = f"bench-e2e-{uuid.uuid4().hex[:6]}"
    settings = isolated_settings(bootstrap, prefix)
    rows: list[tuple[str, str, dict[str, Any] | None]] = []
    try:
        with AgentThread(settings) as agent:
            agent.wait_ready()
            deadline = time.monotonic() + 60
            while len(agent.agent.health()[1]["serving_requests"]) < settings.topics.partitions:
                if time.monotonic() > deadline:
                    raise TimeoutError("agent does not serve every requests partition")
                time.sleep(0.2)
            for tasks, clients in sizes:
                inputs = scenario(tasks, clients, args.seed)
                name = f"{tasks} tasks x {clients} clients"
                mine = rackwise(inputs, bootstrap, settings.topics, args.repeat,
                                f"{prefix}-{tasks}x{clients}")
                rows.append((name, "rackwise (KIP-924 plug-in + agent)", mine))
                print(f"{name}: rackwise {mine}", file=sys.stderr, flush=True)
                if not args.skip_kafka:
                    theirs = kafka(inputs, args.kafka_timeout)
                    rows.append((name, "kafka-streams 4.3.1 HA + min_traffic", theirs))
                    print(f"{name}: kafka {theirs}", file=sys.stderr, flush=True)
                    if theirs is not None:
                        print(f"{name}: speed-up {theirs['seconds'] / mine['seconds']:.0f}x "
                              f"(vs first call {theirs['seconds'] / mine['first_s']:.0f}x); "
                              f"total traffic rackwise {mine['total_traffic']} vs kafka "
                              f"{theirs['total_traffic']}", file=sys.stderr, flush=True)
    finally:
        if bed is not None and not was_running:
            bed.down()
    print("| scenario | assignor | assignment time (s) | first call (s) | active traffic | "
          "standby traffic | active spread/thread | subtopology skew |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, who, r in rows:
        if r is None:
            print(f"| {name} | {who} | > {args.kafka_timeout:.0f} (gave up) | - | - | - | - | - |")
            continue
        first = f"{r['first_s']:.3f}" if "first_s" in r else "-"
        print(f"| {name} | {who} | {r['seconds']:.3f} | {first} | {r['active_traffic']} | "
              f"{r['standby_traffic']} | {r['active_spread']} | {r['subtopology_skew']} |")


if __name__ == "__main__":
    main()
