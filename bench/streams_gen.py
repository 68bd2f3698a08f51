"""Seeded random Streams scenarios (docs/architecture.md § Scenarios format) for tests and benchmarks.

``generate(seed, ...)`` returns a scenario dict: ``subtopologies`` subtopologies reading
their own source topic, each stateful one logging to its own changelog, replicas placed on
``rf`` distinct brokers (one broker per rack), clients spread over racks round robin with
1..``max_threads`` threads. Lags are 0 (fresh, empty changelogs) unless ``lagged`` is set,
in which case each client reports a random subset of tasks as caught up, behind, or running.

Options that draw from their own seeded stream (so a seed's scenario without them is the
same as before they existed): ``weights`` gives every partition an integer weight (1..1000,
the ``cluster.weights`` of the scenario); ``uuids`` names clients by canonical UUIDs (Kafka's
order by signed msb/lsb) instead of short ids; ``rackless`` is the chance that a client has
no rack (rack awareness then turns off); ``costs`` sets traffic / non-overlap costs.
"""

from __future__ import annotations

import random
import uuid
from typing import Any


def generate(
    seed: int,
    *,
    tasks: int = 12,
    clients: int = 4,
    racks: int = 3,
    rf: int = 2,
    standbys: int = 1,
    strategy: str = "min_traffic",
    subtopologies: int = 2,
    source_partitions: int = 1,
    stateless_share: float = 0.25,
    max_threads: int = 2,
    lagged: bool = False,
    tags: bool = False,
    weights: bool = False,
    uuids: bool = False,
    rackless: float = 0.0,
    costs: tuple[int | None, int | None] = (None, None),
) -> dict[str, Any]:
    rng = random.Random(seed)
    extra = random.Random(seed * 7919 + 17)
    rack_names = [f"az{i + 1}" for i in range(racks)]
    brokers = {str(i + 1): rack_names[i % racks] for i in range(max(racks, rf))}
    broker_ids = sorted(int(b) for b in brokers)
    per_sub = [
        tasks // subtopologies + (1 if i < tasks % subtopologies else 0)
        for i in range(subtopologies)
    ]
    topics: dict[str, list[list[int]]] = {}
    subs = []
    for s, count in enumerate(per_sub):
        stateful = s == 0 or rng.random() >= stateless_share
        sources = [f"src{s}-{k}" for k in range(source_partitions)]
        for name in sources:
            topics[name] = [rng.sample(broker_ids, rf) for _ in range(count)]
        changelogs = [f"app-store{s}-changelog"] if stateful else []
        for name in changelogs:
            topics[name] = [rng.sample(broker_ids, rf) for _ in range(count)]
        subs.append(
            {
                "id": s,
                "source_topics": sources,
                "changelog_topics": changelogs,
                "stateful": stateful,
            }
        )
    client_docs = []
    all_ids = [f"{s}_{p}" for s, count in enumerate(per_sub) for p in range(count)]
    for i in range(clients):
        doc: dict[str, Any] = {
            "process_id": f"{rng.getrandbits(128):032x}"[:8] + f"-p{i:05d}",
            "rack": rack_names[i % racks],
            "threads": rng.randint(1, max_threads),
        }
        if uuids:
            doc["process_id"] = str(uuid.UUID(int=extra.getrandbits(128)))
        if rackless and extra.random() < rackless:
            doc["rack"] = None
        if lagged:
            lags = {}
            for task in all_ids:
                roll = rng.random()
                if roll < 0.1:
                    lags[task] = -2
                elif roll < 0.4:
                    lags[task] = rng.choice([0, 50, 5000, 200_000])
            doc["task_lags"] = lags
        if tags:
            doc["client_tags"] = {
                "zone": rack_names[i % racks],
                "cluster": f"k8s{rng.randint(1, 2)}",
            }
        client_docs.append(doc)
    config: dict[str, Any] = {
        "num_standby_replicas": standbys,
        "rack_aware_assignment_strategy": strategy,
        "acceptable_recovery_lag": 100,
    }
    if tags:
        config["rack_aware_assignment_tags"] = ["zone", "cluster"]
    if costs[0] is not None:
        config["rack_aware_assignment_traffic_cost"] = costs[0]
    if costs[1] is not None:
        config["rack_aware_assignment_non_overlap_cost"] = costs[1]
    cluster: dict[str, Any] = {"brokers": brokers, "topics": topics}
    if weights:
        cluster["weights"] = {
            name: [extra.randint(1, 1000) for _ in parts] for name, parts in sorted(topics.items())
        }
    return {
        "cluster": cluster,
        "group": {
            "id": f"gen-{seed}",
            "kind": "streams",
            "topology": {"subtopologies": subs},
            "clients": client_docs,
            "config": config,
        },
    }
