"""What the demo sets up: the skewed replica placement, the move, names, agent settings.

With brokers 1/2/3 in az1/az2/az3, every demo topic has 6 partitions on brokers 1 and 2
only, so a member in az3 reads everything across racks; the move puts one replica of
partitions 0 and 1 of demo.orders and demo.clicks on broker 3, and rackwise can then plan no
cross-rack reads at all for their groups. The topics of the plug-in groups (demo.payments,
demo.views) are not moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PARTITIONS = 6
MOVED_PARTITIONS = (0, 1)
CONSUMER_GROUP = "demo-orders"
STREAMS_GROUP = "demo-clicks"
JAVA_GROUP = "demo-payments"  # classic Java consumers, RackwiseAssignor
KIP848_GROUP = "demo-views"  # KIP-848 librdkafka consumers, group.remote.assignor=rackwise
# Quick rack watching so the re-plan follows the move within seconds (defaults: 30 s / 60 s).
METADATA = {"interval_s": 2.0, "debounce_s": 3.0}
STREAMS_CONFIG = {"num_standby_replicas": 0, "rack_aware_assignment_strategy": "min_traffic"}


@dataclass(frozen=True)
class Layout:
    """Three brokers, one per rack; the skewed placement and the move that fixes it.

    With brokers 1/2/3 in az1/az2/az3: partition p lives on [1, 2] (even p) or [2, 1] (odd
    p); the move puts one replica of partitions 0 and 1 on broker 3: [1, 3] and [2, 3].
    """

    brokers: tuple[int, int, int]
    racks: tuple[str, str, str]

    def skewed(self) -> list[list[int]]:
        a, b, _ = self.brokers
        return [[a, b] if p % 2 == 0 else [b, a] for p in range(PARTITIONS)]

    def moved(self) -> dict[int, list[int]]:
        skewed, third = self.skewed(), self.brokers[2]
        return {p: [skewed[p][0], third] for p in MOVED_PARTITIONS}


@dataclass(frozen=True)
class Names:
    """Topic and group names; ``tag`` keeps a run apart on a cluster that was already up."""

    tag: str = ""

    def __getattr__(self, item: str) -> str:
        base = {
            "orders": "demo.orders", "clicks": "demo.clicks",
            "payments": "demo.payments", "views": "demo.views",
            "subscriptions": "rackwise.subscriptions", "plans": "rackwise.plans",
            "control": "rackwise.control", "deadletter": "rackwise.deadletter",
            "advice": "rackwise.advice",
            "metrics": "rackwise.crt-metrics", "agents": "rackwise-agent",
            "consumer_group": CONSUMER_GROUP, "streams_group": STREAMS_GROUP,
            "java_group": JAVA_GROUP, "kip848_group": KIP848_GROUP,
        }
        if item not in base:
            raise AttributeError(item)
        return base[item] + self.tag


def agent_settings(n: Names) -> dict[str, Any]:
    """The ``rackwise agent run --config`` file of the demo (JSON; see agent/settings.py)."""
    return {
        "instance_id": f"demo-agent{n.tag}",
        "transactional_id_prefix": f"rackwise-demo{n.tag}",
        "topics": {"subscriptions": n.subscriptions, "plans": n.plans, "control": n.control,
                   "deadletter": n.deadletter, "advice": n.advice,
                   "partitions": 3},
        # the demo's own topics only: a cluster that was already up may hold many others
        "advice": {"topics": [f"demo.*{n.tag}"]},
        "input": {"group_id": n.agents, "session_timeout_ms": 10_000},
        "metadata": METADATA,
        "planner": {
            "rules": [{"pattern": n.consumer_group, "assignor": "rack-optimal"}],
            "streams_topologies": {n.streams_group: {"subtopologies": [{
                "id": 0, "source_topics": [n.clicks],
                "changelog_topics": [f"{n.streams_group}-counts-changelog"],
                "stateful": True}]}},
            "streams_config": STREAMS_CONFIG,
        },
        "log": {"format": "json"},
    }


def settled(plan: Any) -> bool:
    """A plan the group has settled on: every member, every partition, nothing withheld."""
    if len(plan.members) != 3 or plan.withheld:
        return False
    if plan.kind == "streams":
        return sum(len(m.active_tasks) for m in plan.members) == PARTITIONS
    return sum(len(m.partitions) for m in plan.members) == PARTITIONS
