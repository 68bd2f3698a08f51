"""Generated, rack-skewed consumer scenarios (``rackwise scenario gen``), seeded and pure.

Brokers: two per rack, racks ``az1..azR``. Each partition's ``rf`` replicas sit in distinct
racks, the first chosen with probability proportional to (1 - skew)^i for rack i, so with
skew > 0 most data lives in the first racks; members are spread evenly over the racks, so
the skew is what makes locality hard. ``owned`` optionally adds a previous round-robin
assignment (generation 1) so stickiness and moves show up.

Example: generate(partitions=6, members=3, racks=3, rf=2, skew=0.5, seed=1)
"""

from __future__ import annotations

import random
from typing import Any

from assignor.errors import AssignorError


def generate(
    *,
    partitions: int,
    members: int,
    racks: int,
    rf: int,
    skew: float,
    seed: int,
    topics: int = 1,
    owned: bool = False,
    group_id: str = "g1",
    assignor: str = "rack-optimal",
) -> dict[str, Any]:
    if partitions < 0 or members < 1 or racks < 1 or topics < 1:
        raise AssignorError("need partitions >= 0, members >= 1, racks >= 1, topics >= 1")
    if not 1 <= rf <= racks:
        raise AssignorError(f"rf must be between 1 and the number of racks ({racks})")
    if not 0.0 <= skew < 1.0:
        raise AssignorError("skew must be in [0, 1)")
    rng = random.Random(seed)
    rack_names = [f"az{i + 1}" for i in range(racks)]
    brokers = {str(2 * i + j + 1): rack_names[i] for i in range(racks) for j in range(2)}
    weights = [(1.0 - skew) ** i for i in range(racks)]
    names = [f"t{i}" for i in range(topics)]
    per_topic = [
        partitions // topics + (1 if i < partitions % topics else 0) for i in range(topics)
    ]
    topic_doc: dict[str, list[list[int]]] = {}
    for name, count in zip(names, per_topic, strict=True):
        rows = []
        for _ in range(count):
            chosen: list[int] = []
            while len(chosen) < rf:
                left = [i for i in range(racks) if i not in chosen]
                pick = rng.choices(left, weights=[weights[i] for i in left])[0]
                chosen.append(pick)
            rows.append([2 * r + rng.randrange(2) + 1 for r in chosen])
        topic_doc[name] = rows
    width = len(str(members - 1))
    member_docs: list[dict[str, Any]] = []
    for i in range(members):
        member_docs.append(
            {"id": f"c{i:0{width}d}", "rack": rack_names[i % racks], "topics": names}
        )
    if owned:
        flat = [(t, p) for t, c in zip(names, per_topic, strict=True) for p in range(c)]
        for k, (t, p) in enumerate(flat):
            m = member_docs[k % members]
            m.setdefault("owned", {}).setdefault(t, []).append(p)
        for m in member_docs:
            m["generation"] = 1
    return {
        "cluster": {"brokers": brokers, "topics": topic_doc},
        "group": {"id": group_id, "kind": "consumer", "assignor": assignor, "members": member_docs},
    }
