"""Kafka Streams task assignment: KIP-441 high availability with KIP-925 rack awareness.

Reached through assignor.api with a StreamsApp (assignor.inputs), which assignor.streamsapp
validates into StreamsInputs (assignor.streams.model) for the HA assignor (assignor.streams.run);
assignor.scenario.streams reads offline scenarios into a StreamsApp. This package never
imports the seam. Differences
from Kafka's own behaviour are listed in docs/streams-assignor.md.
"""
