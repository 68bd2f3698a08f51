"""ConsumerGroupDescribe (KIP-848, API 69 v0-1), StreamsGroupDescribe (KIP-1071, API 89 v0-1),
and ListGroups v5 (which gives each group's type).

The describe responses of Kafka 4.x's broker-side groups: each member's rack, subscription
and current assignment (topic partitions for consumer groups; tasks, i.e. subtopology and
partition, for streams groups), and a streams group's topology (source and changelog topics
per subtopology). Field tables follow Kafka 4.4.0's specs (``ConsumerGroupDescribe*.json``,
``StreamsGroupDescribe*.json``), checked against kafka-clients 4.4.0's generated classes.
StreamsGroupDescribe v1 (Kafka 4.4) adds the group's ``assignor_name`` (KIP-1357: the task
assignor the coordinator uses for the group's next assignment; None on a describe error) and
its topology description (KIP-1331), which rackwise never asks for but can read.
Every flexible struct ends with a tagged-field buffer (the ``tags`` attribute, always None).

Example: a one-member consumer group whose member in az1 owns orders-0::

    ConsumerGroupDescribeResponse(groups=[DescribedConsumerGroup(group_id="g",
        members=[ConsumerGroupMember(member_id="m1", rack_id="az1",
        assignment=MemberAssignment([AssignedTopic(topic_name="orders", partitions=[0])]))])])
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from protocol.flexible import (
    BOOL,
    COMPACT_INT32_ARRAY,
    COMPACT_NULLABLE_STRING,
    COMPACT_STRING,
    TAGGED_FIELDS,
    UINT16,
    CompactArrayOf,
    NullableStruct,
)
from protocol.schema import INT8, INT16, INT32, INT64, UUID, Field, StructType

_STRINGS = CompactArrayOf(COMPACT_STRING)


@dataclass
class DescribeGroupsRequest:
    """The request body of both APIs (identical layouts)."""

    group_ids: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False
    tags: None = None


DESCRIBE_GROUPS_REQUEST = StructType("GroupDescribeRequest", DescribeGroupsRequest, [
    Field("group_ids", _STRINGS, "0+"),
    Field("include_authorized_operations", BOOL, "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])


@dataclass
class StreamsGroupDescribeRequest:
    group_ids: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False
    include_topology_description: bool = False  # v1+ (KIP-1331)
    tags: None = None


STREAMS_GROUP_DESCRIBE_REQUEST = StructType("StreamsGroupDescribeRequest", StreamsGroupDescribeRequest, [
    Field("group_ids", _STRINGS, "0+"),
    Field("include_authorized_operations", BOOL, "0+"),
    Field("include_topology_description", BOOL, "1+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])


# ---- ConsumerGroupDescribe ------------------------------------------------------------------

@dataclass
class AssignedTopic:
    topic_id: uuid.UUID = uuid.UUID(int=0)
    topic_name: str = ""
    partitions: list[int] = field(default_factory=list)
    tags: None = None


@dataclass
class MemberAssignment:
    topic_partitions: list[AssignedTopic] = field(default_factory=list)
    tags: None = None


@dataclass
class ConsumerGroupMember:
    member_id: str = ""
    instance_id: str | None = None
    rack_id: str | None = None
    member_epoch: int = 0
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = field(default_factory=list)
    subscribed_topic_regex: str | None = None
    assignment: MemberAssignment = field(default_factory=MemberAssignment)
    target_assignment: MemberAssignment = field(default_factory=MemberAssignment)
    member_type: int = -1  # v1: 0 consumer protocol, 1 classic member in a consumer group
    tags: None = None


@dataclass
class DescribedConsumerGroup:
    error_code: int = 0
    error_message: str | None = None
    group_id: str = ""
    group_state: str = ""
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor_name: str = ""
    members: list[ConsumerGroupMember] = field(default_factory=list)
    authorized_operations: int = -(2**31)
    tags: None = None


@dataclass
class ConsumerGroupDescribeResponse:
    throttle_time_ms: int = 0
    groups: list[DescribedConsumerGroup] = field(default_factory=list)
    tags: None = None


_ASSIGNMENT = StructType("Assignment", MemberAssignment, [
    Field("topic_partitions", CompactArrayOf(StructType("TopicPartitions", AssignedTopic, [
        Field("topic_id", UUID, "0+"),
        Field("topic_name", COMPACT_STRING, "0+"),
        Field("partitions", COMPACT_INT32_ARRAY, "0+"),
        Field("tags", TAGGED_FIELDS, "0+"),
    ])), "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])

CONSUMER_GROUP_DESCRIBE_RESPONSE = StructType(
    "ConsumerGroupDescribeResponse", ConsumerGroupDescribeResponse, [
        Field("throttle_time_ms", INT32, "0+"),
        Field("groups", CompactArrayOf(StructType("DescribedGroup", DescribedConsumerGroup, [
            Field("error_code", INT16, "0+"),
            Field("error_message", COMPACT_NULLABLE_STRING, "0+"),
            Field("group_id", COMPACT_STRING, "0+"),
            Field("group_state", COMPACT_STRING, "0+"),
            Field("group_epoch", INT32, "0+"),
            Field("assignment_epoch", INT32, "0+"),
            Field("assignor_name", COMPACT_STRING, "0+"),
            Field("members", CompactArrayOf(StructType("Member", ConsumerGroupMember, [
                Field("member_id", COMPACT_STRING, "0+"),
                Field("instance_id", COMPACT_NULLABLE_STRING, "0+"),
                Field("rack_id", COMPACT_NULLABLE_STRING, "0+"),
                Field("member_epoch", INT32, "0+"),
                Field("client_id", COMPACT_STRING, "0+"),
                Field("client_host", COMPACT_STRING, "0+"),
                Field("subscribed_topic_names", _STRINGS, "0+"),
                Field("subscribed_topic_regex", COMPACT_NULLABLE_STRING, "0+"),
                Field("assignment", _ASSIGNMENT, "0+"),
                Field("target_assignment", _ASSIGNMENT, "0+"),
                Field("member_type", INT8, "1+"),
                Field("tags", TAGGED_FIELDS, "0+"),
            ])), "0+"),
            Field("authorized_operations", INT32, "0+"),
            Field("tags", TAGGED_FIELDS, "0+"),
        ])), "0+"),
        Field("tags", TAGGED_FIELDS, "0+"),
    ])


# ---- StreamsGroupDescribe -------------------------------------------------------------------

@dataclass
class KeyValue:
    key: str = ""
    value: str = ""
    tags: None = None


@dataclass
class TopicInfo:
    name: str = ""
    partitions: int = 0
    replication_factor: int = 0
    topic_configs: list[KeyValue] = field(default_factory=list)
    tags: None = None


@dataclass
class Subtopology:
    subtopology_id: str = ""
    source_topics: list[str] = field(default_factory=list)
    repartition_sink_topics: list[str] = field(default_factory=list)
    state_changelog_topics: list[TopicInfo] = field(default_factory=list)
    repartition_source_topics: list[TopicInfo] = field(default_factory=list)
    tags: None = None


@dataclass
class StreamsTopology:
    epoch: int = 0
    subtopologies: list[Subtopology] | None = None  # None: not initialised yet
    tags: None = None


@dataclass
class Endpoint:
    host: str = ""
    port: int = 0
    tags: None = None


@dataclass
class TaskOffset:
    subtopology_id: str = ""
    partition: int = 0
    offset: int = 0
    tags: None = None


@dataclass
class TaskIds:
    subtopology_id: str = ""
    partitions: list[int] = field(default_factory=list)
    tags: None = None


@dataclass
class TasksAssignment:
    active_tasks: list[TaskIds] = field(default_factory=list)
    standby_tasks: list[TaskIds] = field(default_factory=list)
    warmup_tasks: list[TaskIds] = field(default_factory=list)
    tags: None = None


@dataclass
class StreamsGroupMember:
    member_id: str = ""
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    topology_epoch: int = 0
    process_id: str = ""
    user_endpoint: Endpoint | None = None
    client_tags: list[KeyValue] = field(default_factory=list)
    task_offsets: list[TaskOffset] = field(default_factory=list)
    task_end_offsets: list[TaskOffset] = field(default_factory=list)
    assignment: TasksAssignment = field(default_factory=TasksAssignment)
    target_assignment: TasksAssignment = field(default_factory=TasksAssignment)
    is_classic: bool = False
    tags: None = None


@dataclass
class TopologyDescriptionNode:
    name: str = ""
    node_type: int = 0  # 1 source, 2 processor, 3 sink
    source_topics: list[str] = field(default_factory=list)
    sink_topic: str | None = None
    stores: list[str] = field(default_factory=list)
    successors: list[str] = field(default_factory=list)
    tags: None = None


@dataclass
class TopologyDescriptionSubtopology:
    subtopology_id: str = ""
    nodes: list[TopologyDescriptionNode] = field(default_factory=list)
    tags: None = None


@dataclass
class TopologyDescriptionGlobalStore:
    source: TopologyDescriptionNode = field(default_factory=TopologyDescriptionNode)
    processor: TopologyDescriptionNode = field(default_factory=TopologyDescriptionNode)
    tags: None = None


@dataclass
class TopologyDescription:
    subtopologies: list[TopologyDescriptionSubtopology] = field(default_factory=list)
    global_stores: list[TopologyDescriptionGlobalStore] = field(default_factory=list)
    tags: None = None


@dataclass
class DescribedStreamsGroup:
    error_code: int = 0
    error_message: str | None = None
    group_id: str = ""
    group_state: str = ""
    group_epoch: int = 0
    assignment_epoch: int = 0
    topology: StreamsTopology | None = None
    members: list[StreamsGroupMember] = field(default_factory=list)
    authorized_operations: int = -(2**31)
    # v1+ (Kafka 4.4): absent (None, 0, None) in a v0 answer
    topology_description: TopologyDescription | None = None
    topology_description_status: int = 0  # 0 not requested, 1 not stored, 2 error, 3 available
    assignor_name: str | None = None
    tags: None = None


@dataclass
class StreamsGroupDescribeResponse:
    throttle_time_ms: int = 0
    groups: list[DescribedStreamsGroup] = field(default_factory=list)
    tags: None = None


_KEY_VALUE = StructType("KeyValue", KeyValue, [
    Field("key", COMPACT_STRING, "0+"),
    Field("value", COMPACT_STRING, "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])
_TOPIC_INFO = StructType("TopicInfo", TopicInfo, [
    Field("name", COMPACT_STRING, "0+"),
    Field("partitions", INT32, "0+"),
    Field("replication_factor", INT16, "0+"),
    Field("topic_configs", CompactArrayOf(_KEY_VALUE), "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])
_TASK_OFFSET = StructType("TaskOffset", TaskOffset, [
    Field("subtopology_id", COMPACT_STRING, "0+"),
    Field("partition", INT32, "0+"),
    Field("offset", INT64, "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])
_TASK_IDS = CompactArrayOf(StructType("TaskIds", TaskIds, [
    Field("subtopology_id", COMPACT_STRING, "0+"),
    Field("partitions", COMPACT_INT32_ARRAY, "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
]))
_TASKS = StructType("Assignment", TasksAssignment, [
    Field("active_tasks", _TASK_IDS, "0+"),
    Field("standby_tasks", _TASK_IDS, "0+"),
    Field("warmup_tasks", _TASK_IDS, "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])
_TOPOLOGY = StructType("Topology", StreamsTopology, [
    Field("epoch", INT32, "0+"),
    Field("subtopologies", CompactArrayOf(StructType("Subtopology", Subtopology, [
        Field("subtopology_id", COMPACT_STRING, "0+"),
        Field("source_topics", _STRINGS, "0+"),
        Field("repartition_sink_topics", _STRINGS, "0+"),
        Field("state_changelog_topics", CompactArrayOf(_TOPIC_INFO), "0+"),
        Field("repartition_source_topics", CompactArrayOf(_TOPIC_INFO), "0+"),
        Field("tags", TAGGED_FIELDS, "0+"),
    ]), nullable=True), "0+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])

_NODE = StructType("TopologyDescriptionNode", TopologyDescriptionNode, [
    Field("name", COMPACT_STRING, "1+"),
    Field("node_type", INT8, "1+"),
    Field("source_topics", _STRINGS, "1+"),
    Field("sink_topic", COMPACT_NULLABLE_STRING, "1+"),
    Field("stores", _STRINGS, "1+"),
    Field("successors", _STRINGS, "1+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])
_TOPOLOGY_DESCRIPTION = StructType("TopologyDescription", TopologyDescription, [
    Field("subtopologies", CompactArrayOf(StructType(
        "TopologyDescriptionSubtopology", TopologyDescriptionSubtopology, [
            Field("subtopology_id", COMPACT_STRING, "1+"),
            Field("nodes", CompactArrayOf(_NODE), "1+"),
            Field("tags", TAGGED_FIELDS, "0+"),
        ])), "1+"),
    Field("global_stores", CompactArrayOf(StructType(
        "TopologyDescriptionGlobalStore", TopologyDescriptionGlobalStore, [
            Field("source", _NODE, "1+"),
            Field("processor", _NODE, "1+"),
            Field("tags", TAGGED_FIELDS, "0+"),
        ])), "1+"),
    Field("tags", TAGGED_FIELDS, "0+"),
])

STREAMS_GROUP_DESCRIBE_RESPONSE = StructType(
    "StreamsGroupDescribeResponse", StreamsGroupDescribeResponse, [
        Field("throttle_time_ms", INT32, "0+"),
        Field("groups", CompactArrayOf(StructType("DescribedGroup", DescribedStreamsGroup, [
            Field("error_code", INT16, "0+"),
            Field("error_message", COMPACT_NULLABLE_STRING, "0+"),
            Field("group_id", COMPACT_STRING, "0+"),
            Field("group_state", COMPACT_STRING, "0+"),
            Field("group_epoch", INT32, "0+"),
            Field("assignment_epoch", INT32, "0+"),
            Field("topology", NullableStruct(_TOPOLOGY), "0+"),
            Field("members", CompactArrayOf(StructType("Member", StreamsGroupMember, [
                Field("member_id", COMPACT_STRING, "0+"),
                Field("member_epoch", INT32, "0+"),
                Field("instance_id", COMPACT_NULLABLE_STRING, "0+"),
                Field("rack_id", COMPACT_NULLABLE_STRING, "0+"),
                Field("client_id", COMPACT_STRING, "0+"),
                Field("client_host", COMPACT_STRING, "0+"),
                Field("topology_epoch", INT32, "0+"),
                Field("process_id", COMPACT_STRING, "0+"),
                Field("user_endpoint", NullableStruct(StructType("Endpoint", Endpoint, [
                    Field("host", COMPACT_STRING, "0+"),
                    Field("port", UINT16, "0+"),
                    Field("tags", TAGGED_FIELDS, "0+"),
                ])), "0+"),
                Field("client_tags", CompactArrayOf(_KEY_VALUE), "0+"),
                Field("task_offsets", CompactArrayOf(_TASK_OFFSET), "0+"),
                Field("task_end_offsets", CompactArrayOf(_TASK_OFFSET), "0+"),
                Field("assignment", _TASKS, "0+"),
                Field("target_assignment", _TASKS, "0+"),
                Field("is_classic", BOOL, "0+"),
                Field("tags", TAGGED_FIELDS, "0+"),
            ])), "0+"),
            Field("authorized_operations", INT32, "0+"),
            Field("topology_description", NullableStruct(_TOPOLOGY_DESCRIPTION), "1+"),
            Field("topology_description_status", INT8, "1+"),
            Field("assignor_name", COMPACT_NULLABLE_STRING, "1+"),
            Field("tags", TAGGED_FIELDS, "0+"),
        ])), "0+"),
        Field("tags", TAGGED_FIELDS, "0+"),
    ])


# ---- ListGroups v5: every group a broker coordinates, with its type (KIP-848) -------------
# confluent-kafka 2.16's list_consumer_groups knows the classic and consumer types only, so
# KIP-1071 streams groups are invisible to it.

@dataclass
class ListGroupsRequest:
    states_filter: list[str] = field(default_factory=list)
    types_filter: list[str] = field(default_factory=list)
    tags: None = None


@dataclass
class ListedGroup:
    group_id: str = ""
    protocol_type: str = ""
    group_state: str = ""
    group_type: str = ""
    tags: None = None


@dataclass
class ListGroupsResponse:
    throttle_time_ms: int = 0
    error_code: int = 0
    groups: list[ListedGroup] = field(default_factory=list)
    tags: None = None


LIST_GROUPS_REQUEST = StructType("ListGroupsRequest", ListGroupsRequest, [
    Field("states_filter", CompactArrayOf(COMPACT_STRING), "5+"),
    Field("types_filter", CompactArrayOf(COMPACT_STRING), "5+"),
    Field("tags", TAGGED_FIELDS, "5+"),
])
LIST_GROUPS_RESPONSE = StructType("ListGroupsResponse", ListGroupsResponse, [
    Field("throttle_time_ms", INT32, "5+"),
    Field("error_code", INT16, "5+"),
    Field("groups", CompactArrayOf(StructType("ListedGroup", ListedGroup, [
        Field("group_id", COMPACT_STRING, "5+"),
        Field("protocol_type", COMPACT_STRING, "5+"),
        Field("group_state", COMPACT_STRING, "5+"),
        Field("group_type", COMPACT_STRING, "5+"),
        Field("tags", TAGGED_FIELDS, "5+"),
    ])), "5+"),
    Field("tags", TAGGED_FIELDS, "5+"),
])
