"""What applications import to follow rackwise plans (see docs/member.md).

``PlanFollower`` wraps an existing confluent-kafka consumer; ``StreamsFollower`` does the same
for a Kafka-Streams-style member whose subscription carries ``SubscriptionInfo``.
"""

from agent.member.follower import PlanFollower
from agent.member.streams import StreamsFollower, parse_task, process_id

__all__ = ["PlanFollower", "StreamsFollower", "parse_task", "process_id"]
