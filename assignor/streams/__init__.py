"""Kafka Streams task assignment: KIP-441 high availability with KIP-925 rack awareness.

Public entry points: :func:`plan_from_scenario` and :func:`compare_scenario` (what the CLI
calls for ``"kind": "streams"``), and :func:`assignor.streams.scenario.run` for inputs built
in code. Differences from Kafka's own behaviour are listed in docs/streams-assignor.md.
"""

from assignor.streams.scenario import compare_scenario, plan_from_scenario

__all__ = ["compare_scenario", "plan_from_scenario"]
