"""Kafka Streams task assignment: KIP-441 high availability with KIP-925 rack awareness.

Reached through assignor.api (``StreamsApp``); assignor.streams.scenario reads offline
scenarios into it and assignor.streams.inputs validates it for the HA assignor. Differences
from Kafka's own behaviour are listed in docs/streams-assignor.md.
"""
