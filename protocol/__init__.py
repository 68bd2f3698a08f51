"""Bytes <-> typed models: Kafka's wire formats, Kafka Streams' user data, rackwise's records.

No IO and no Kafka client here, and nothing else of rackwise is imported (docs/architecture.md
§ Layers; a contract in pyproject.toml checks it). Modules:

Kafka's wire format
* ``wire``      bounds-checked primitives (Kafka and Java DataOutputStream encodings)
* ``flexible``  the compact and tagged types of flexible message versions (KIP-482)
* ``schema``    declarative field tables; codecs compiled from them
* ``consumer``  ConsumerProtocolSubscription / ConsumerProtocolAssignment v0-v3
* ``userdata``  sticky and cooperative-sticky assignor user data
* ``streams`` / ``streams_assignment``  Kafka Streams SubscriptionInfo / AssignmentInfo v1-11
* ``kafkarpc``  the few RPCs rackwise speaks itself (ApiVersions, FindCoordinator, SASL, ...)
* ``groupdescribe``  ConsumerGroupDescribe and StreamsGroupDescribe
* ``member``    the one decode guard for a member's JoinGroup metadata

rackwise's own records and rules
* ``plan``      the AssignmentPlan contract
* ``advice``    what the agent tells Kafka's plug-ins
* ``routing``   keys and partitions of the subscriptions and plans topics
* ``pricing``   what cross-rack bytes cost
* ``kafkaconf`` Kafka client properties: one normalisation, one secret rule
* ``describe``  decoded messages as the JSON dicts of ``rackwise decode``
* ``errors``    the error tree
"""

from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from protocol.describe import describe_assignment, describe_subscription
from protocol.errors import PlanError, ProtocolError, RackwiseError

__all__ = [
    "Assignment",
    "PlanError",
    "ProtocolError",
    "RackwiseError",
    "Subscription",
    "TopicPartitions",
    "decode_assignment",
    "decode_subscription",
    "describe_assignment",
    "describe_subscription",
    "encode_assignment",
    "encode_subscription",
]
