"""Bytes <-> typed models: Kafka's consumer protocol, Kafka Streams' user data, the plan.

No IO and no Kafka client here (docs/architecture.md § Layers). Modules:

* ``wire``    bounds-checked primitives (Kafka and Java DataOutputStream encodings)
* ``schema``  declarative field tables; codecs compiled from them
* ``consumer`` ConsumerProtocolSubscription / ConsumerProtocolAssignment v0-v3
* ``userdata`` sticky and cooperative-sticky assignor user data
* ``streams`` / ``streams_assignment``  Kafka Streams SubscriptionInfo / AssignmentInfo v1-11
* ``describe`` decoded messages as the JSON dicts of ``rackwise decode``
* ``plan``    the AssignmentPlan contract; ``errors`` the error tree
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
