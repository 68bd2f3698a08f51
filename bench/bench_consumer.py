"""Consumer assignor benchmarks, Java and Python side by side in the same run.

    .venv/bin/python bench/bench_consumer.py [--quick] [--only speed|optimal|quality]

speed:   cooperative-sticky, uniform, 2,000 members x 1,000,000 partitions, 3 racks, RF 2
         (Java's own scale test) - Java CooperativeStickyAssignor vs ours, assign() only.
optimal: rack-optimal, 1,000 members x 100,000 partitions, 3 racks, RF 2: wall time and
         peak RSS of a fresh process (goal <= 5 s, <= 2 GiB).
quality: 200 generated rack-skewed scenarios: rack-optimal's traffic cost vs Java's range
         and cooperative-sticky (mean and worst reduction), same balance.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assignor.cluster import TopicPartition  # noqa: E402
from assignor.generate import generate  # noqa: E402
from assignor.scenario import load_group  # noqa: E402
from assignor.summary import traffic_cost  # noqa: E402
from tests.support import javaharness  # noqa: E402

HARNESS = "bench/java/consumer-harness"
MAIN = "dev.rackwise.bench.ConsumerHarness"


def java(docs: object, *assignors: str, repeat: int = 1) -> list[dict[str, object]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(docs, fh)
    try:
        args = [a for n in assignors for a in ("--assignor", n)] + [
            "--repeat",
            str(repeat),
            fh.name,
        ]
        proc = javaharness.run(HARNESS, MAIN, *args, heap="-Xmx6g", timeout=3600)
    finally:
        os.unlink(fh.name)
    return [json.loads(x) for x in proc.stdout.decode().splitlines() if x.strip()]


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from assignor.scenario import load_group
from assignor.{module} import {func}
doc = json.load(open({path!r}))
group = load_group(doc)
t0 = time.perf_counter()
res = {func}(group)
took = time.perf_counter() - t0
print(json.dumps({{"seconds": took, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "partitions": sum(len(v) for v in res.target().values())}}))
"""


def python_child(doc: object, module: str, func: str) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(doc, fh)
    try:
        code = CHILD.format(root=str(ROOT), path=fh.name, module=module, func=func)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        result: dict[str, float] = json.loads(out.stdout)
        result["process_seconds"] = time.perf_counter() - t0
        return result
    finally:
        os.unlink(fh.name)


def speed(quick: bool) -> None:
    members, partitions = (200, 100_000) if quick else (2000, 1_000_000)
    doc = generate(
        partitions=partitions, members=members, racks=3, rf=2, skew=0.3, seed=7, topics=10
    )
    j = java(doc, "cooperative-sticky", repeat=3)[0]
    p = python_child(doc, "sticky", "assign_cooperative_sticky")
    print(
        f"| cooperative-sticky {members} x {partitions:,} | Java first {j['elapsed_ms']:.0f} ms, "
        f"best of 3 {j['best_ms']:.0f} ms | Python {p['seconds'] * 1000:.0f} ms "
        f"(peak RSS {p['peak_rss_mib']:.0f} MiB) |"
    )


def optimal(quick: bool) -> None:
    members, partitions = (100, 10_000) if quick else (1000, 100_000)
    for owned in (False, True):
        doc = generate(
            partitions=partitions,
            members=members,
            racks=3,
            rf=2,
            skew=0.5,
            seed=11,
            topics=4,
            owned=owned,
        )
        p = python_child(doc, "optimal", "assign_rack_optimal")
        print(
            f"| rack-optimal {members} x {partitions:,}{' with owners' if owned else ''} | "
            f"{p['seconds']:.2f} s solve, {p['process_seconds']:.2f} s process | "
            f"peak RSS {p['peak_rss_mib']:.0f} MiB |"
        )


def quality(quick: bool) -> None:
    count = 20 if quick else 200
    docs = []
    for i in range(count):
        rng_racks = 3 if i % 2 else 4
        docs.append(
            generate(
                partitions=24 + (i * 37) % 400,
                members=3 + (i * 7) % 40,
                racks=rng_racks,
                rf=1 + i % 2,
                skew=[0.0, 0.3, 0.6, 0.9][i % 4],
                seed=1000 + i,
                topics=1 + i % 3,
                owned=i % 5 == 0,
            )
        )
    rows = java(docs, "range", "cooperative-sticky")
    from assignor.registry import plan_group

    red: dict[str, list[float]] = {"range": [], "cooperative-sticky": []}
    costs: dict[str, list[float]] = {"range": [], "cooperative-sticky": [], "rack-optimal": []}
    opt_cache: dict[int, float] = {}
    for row in rows:
        group = load_group(docs[int(row["index"])])  # type: ignore[call-overload]
        assignment = {
            m: [TopicPartition(t, p) for t, p in ps] for m, ps in row["assignment"].items()
        }  # type: ignore[union-attr]
        if row["assignor"] == "cooperative-sticky":
            # Java leaves partitions changing owner out of this round: compare where it ends up
            plan = plan_group(group, "cooperative-sticky")
            _, jc = 0, plan.summary.traffic_cost
        else:
            _, jc = traffic_cost(group.cluster, assignment, group.racks())
        idx = int(row["index"])  # type: ignore[call-overload]
        if idx not in opt_cache:
            opt_cache[idx] = plan_group(group, "rack-optimal").summary.traffic_cost
        oc = opt_cache[idx]
        name = str(row["assignor"])
        costs[name].append(jc)
        red[name].append(0.0 if jc == 0 else (jc - oc) / jc * 100)
    costs["rack-optimal"] = list(opt_cache.values())
    for name, vals in red.items():
        print(
            f"| vs Java {name} | mean traffic {statistics.mean(costs[name]):.1f} -> "
            f"{statistics.mean(costs['rack-optimal']):.1f} | mean reduction {statistics.mean(vals):.1f}% | "
            f"worst {min(vals):.1f}% | best {max(vals):.1f}% |"
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["speed", "optimal", "quality"])
    args = ap.parse_args()
    for name, fn in (("optimal", optimal), ("quality", quality), ("speed", speed)):
        if args.only in (None, name):
            fn(args.quick)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
