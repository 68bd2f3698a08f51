"""Bytes per member on fleets with hot partitions: rack-optimal (Python and the Java core)
against Kafka's CooperativeStickyAssignor, on the same inputs.

Each group: ``--members`` members spread over 3 racks, ``--partitions`` partitions over 2
topics with RF 2 (skewed towards az1), weights 1 with ``--hot`` of them 20x hotter, no
previous owners (so Kafka's cooperative round is complete and comparable). For every group:
the busiest member's weight over the mean member's, and the cross-rack weight, for each
assignor; then the fleet's mean and worst.

    .venv/bin/python bench/bench_spread.py --groups 100 --seed 1

Run it against an older tree (``PYTHONPATH=/path/to/old/tree``) for the Python side before a
change; the Java sides always come from this checkout's jars.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assignor.cluster import ClusterView, TopicPartition  # noqa: E402
from assignor.model import Group, Member  # noqa: E402
from assignor.optimal.solve import OptimalConfig, _Problem, solve  # noqa: E402
from tests.support import javaharness  # noqa: E402
from tests.support.coreparity import run_core  # noqa: E402
from tests.support.optimalgen import core_doc, evaluate  # noqa: E402


def fleet(groups: int, members: int, partitions: int, hot: float, seed: int) -> list[Group]:
    rng = random.Random(seed)
    out = []
    brokers = {1: "az1", 2: "az1", 3: "az2", 4: "az2", 5: "az3", 6: "az3"}
    for g in range(groups):
        topics: dict[str, tuple[tuple[int, ...], ...]] = {}
        weights: dict[TopicPartition, float] = {}
        for t in ("a", "b"):
            rows = []
            for p in range(partitions // 2):
                racks = rng.sample([0, 0, 1, 1, 2], 2) if rng.random() < 0.5 else [0, 1]
                first = 1 + 2 * racks[0] + rng.randrange(2)
                second = 1 + 2 * (racks[1] if racks[1] != racks[0] else (racks[0] + 1) % 3)
                rows.append((first, second))
                weights[TopicPartition(t, p)] = 20.0 if rng.random() < hot else 1.0
            topics[t] = tuple(rows)
        view = ClusterView(brokers=brokers, topics=topics, weights=weights)
        ms = tuple(Member.of(f"m{i:02d}", rack=f"az{i % 3 + 1}", topics=["a", "b"])
                   for i in range(members))
        out.append(Group(f"spread-{g}", ms, view))
    return out


def _scenario(group: Group) -> dict[str, Any]:
    return {"cluster": group.cluster.to_dict(),
            "group": {"id": group.group_id, "kind": "consumer",
                      "members": [{"id": m.member_id, "rack": m.rack, "topics": list(m.topics)}
                                  for m in group.members]}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=100)
    ap.add_argument("--members", type=int, default=12)
    ap.add_argument("--partitions", type=int, default=120)
    ap.add_argument("--hot", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"seed={args.seed}")
    cfg = OptimalConfig(cooperative=False)
    groups = fleet(args.groups, args.members, args.partitions, args.hot, args.seed)
    rows: dict[str, list[tuple[float, float]]] = {"rack-optimal (Python)": [],
                                                  "rack-optimal (Java core)": [],
                                                  "cooperative-sticky (Kafka)": []}
    java = run_core([core_doc(g, cfg) for g in groups])
    proc = javaharness.run("bench/java/consumer-harness", "dev.rackwise.bench.ConsumerHarness",
                           "--assignor", "cooperative-sticky", "-",
                           stdin=json.dumps([_scenario(g) for g in groups]))
    sticky = [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]
    for i, g in enumerate(groups):
        py = solve(_Problem(g.cluster, g.members, g.subscribed_topics(), cfg.traffic_cost,
                            cfg.non_overlap_cost))[0]
        answers = {
            "rack-optimal (Python)": py,
            "rack-optimal (Java core)": {m: [TopicPartition(t, p) for t, p in ps]
                                         for m, ps in java[i]["assignment"].items()},
            "cooperative-sticky (Kafka)": {m: [TopicPartition(t, p) for t, p in ps]
                                           for m, ps in sticky[i]["assignment"].items()},
        }
        for name, assignment in answers.items():
            fig = evaluate(g, cfg, assignment)
            rows[name].append((fig.busiest / fig.mean, fig.cost / cfg.traffic_cost))
    print(f"{args.groups} groups x {args.members} members x {args.partitions} partitions, "
          f"3 racks, RF 2, {args.hot:.0%} of partitions 20x hot")
    print("| assignor | busiest/mean member weight: mean | worst | cross-rack weight per group: mean |")
    print("|---|---|---|---|")
    for name, vals in rows.items():
        ratios = [r for r, _ in vals]
        cross = [c for _, c in vals]
        print(f"| {name} | {statistics.mean(ratios):.3f} | {max(ratios):.3f} | "
              f"{statistics.mean(cross):.1f} |")
    worse = sum(1 for a, b in zip(rows["rack-optimal (Java core)"],
                                  rows["cooperative-sticky (Kafka)"], strict=True) if a[0] > b[0] + 1e-9)
    print(f"groups where the Java core's busiest member is heavier than Kafka's: {worse} of {args.groups}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
