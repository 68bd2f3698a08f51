"""Offline scenarios (docs/architecture.md § Scenarios): JSON in, the seam's typed inputs out.

An adapter for the offline CLI only (``rackwise plan``, ``compare``, ``scenario``): consumer
groups are read by assignor.scenario.consumer, Kafka Streams applications (``"kind":
"streams"``) by assignor.scenario.streams; planning itself is assignor.api.plan, as for the
daemon.
"""

from assignor.scenario.consumer import compare_scenario, load_group, plan_from_scenario

__all__ = ["compare_scenario", "load_group", "plan_from_scenario"]
