"""Streams HA + KIP-925 benchmark: rackwise vs Kafka's own assignor, same inputs and run.

    PYTHONPATH=. .venv/bin/python bench/bench_streams.py [--seed 1] [--skip-kafka]
        [--only small|big]

small: 1,000 tasks (2 source partitions each) x 100 clients, 3 racks, RF 2, 1 standby,
       min_traffic -- rackwise and Kafka 4.3.1 (HighAvailabilityTaskAssignor with its
       RackAwareTaskAssignor).
big:   10,000 tasks x 500 clients, 2 standbys, min_traffic -- rackwise only, in a child
       process so its peak RSS is its own (Kafka's scale tests run with rack awareness off).
Prints a Markdown table; times are the assignor call only (inputs already parsed).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assignor.scenario.streams import parse_inputs  # noqa: E402
from assignor.streams.run import run  # noqa: E402
from bench.streams_gen import generate  # noqa: E402
from bench.streams_parity import evaluate, run_kafka  # noqa: E402

SMALL = {
    "tasks": 1000,
    "clients": 100,
    "racks": 3,
    "rf": 2,
    "standbys": 1,
    "subtopologies": 10,
    "source_partitions": 2,
    "stateless_share": 0.0,
    "strategy": "min_traffic",
}
BIG = {
    "tasks": 10_000,
    "clients": 500,
    "racks": 3,
    "rf": 2,
    "standbys": 2,
    "subtopologies": 20,
    "source_partitions": 1,
    "stateless_share": 0.0,
    "strategy": "min_traffic",
}


def ours(params: dict[str, Any], seed: int) -> dict[str, Any]:
    inputs = parse_inputs(generate(seed, **params))
    start = time.perf_counter()
    result = run(inputs)
    seconds = time.perf_counter() - start
    score = evaluate(
        inputs,
        {p: c.active for p, c in result.clients.items()},
        {p: c.standby for p, c in result.clients.items()},
    )
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "rss_mib": rss_mib, **score}


def kafka(params: dict[str, Any], seed: int) -> dict[str, Any]:
    inputs = parse_inputs(generate(seed, **params))
    out = run_kafka(inputs, repeat=1, heap="-Xmx3g", timeout=3600)
    score = evaluate(inputs, out.active, out.standby)
    return {"seconds": out.millis[0] / 1000, "jvm_wall": out.wall_s, **score}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-kafka", action="store_true")
    ap.add_argument("--only", choices=["small", "big"])
    ap.add_argument("--child", choices=["big"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(ours(BIG, args.seed)))
        return
    rows = []
    if args.only in (None, "small"):
        mine = ours(SMALL, args.seed)
        rows.append(("1k tasks x 100 clients, 1 standby", "rackwise", mine))
        if not args.skip_kafka:
            theirs = kafka(SMALL, args.seed)
            rows.append(("1k tasks x 100 clients, 1 standby", "kafka 4.3.1", theirs))
            print(
                f"speed-up: {theirs['seconds'] / mine['seconds']:.1f}x; traffic ours "
                f"{mine['total_traffic']} vs kafka {theirs['total_traffic']}",
                file=sys.stderr,
            )
    if args.only in (None, "big"):
        proc = subprocess.run(
            [sys.executable, __file__, "--child", "big", "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(("10k tasks x 500 clients, 2 standbys", "rackwise", json.loads(proc.stdout)))
    print(
        "| scenario | assignor | assign time (s) | active traffic | standby traffic | "
        "active spread/thread | subtopology skew | peak RSS (MiB) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, who, r in rows:
        rss = f"{r['rss_mib']:.0f}" if "rss_mib" in r else "-"
        print(
            f"| {name} | {who} | {r['seconds']:.3f} | {r['active_traffic']} | "
            f"{r['standby_traffic']} | {r['active_spread']} | {r['subtopology_skew']} | {rss} |"
        )


if __name__ == "__main__":
    main()
