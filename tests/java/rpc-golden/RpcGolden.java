// Golden bytes of the describe responses rackwise decodes itself (protocol/groupdescribe.py,
// protocol/kafkarpc.py), written by kafka-clients' own generated message classes.
// Run: java -cp "$RACKWISE_CACHE_DIR/kafka-libs-4.4.0/*" tests/java/rpc-golden/RpcGolden.java
// and paste the output into tests/unit/protocol/test_kafkarpc.py (GOLDEN). Kafka 4.4.0 (the
// StreamsGroupDescribe v1 of KIP-1331/KIP-1357); every older version writes the same bytes as
// 4.3.1's classes did.
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.*;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;

public class RpcGolden {
  static void print(String name, ApiMessage m, short version) {
    ByteBuffer b = MessageUtil.toByteBufferAccessor(m, version).buffer();
    StringBuilder sb = new StringBuilder();
    while (b.hasRemaining()) sb.append(String.format("%02x", b.get()));
    System.out.println(name + " " + version + " " + sb);
  }

  public static void main(String[] args) {
    Uuid topicId = new Uuid(0x0123456789abcdefL, 0x0fedcba987654321L);
    var assignment = new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(List.of(
        new ConsumerGroupDescribeResponseData.TopicPartitions()
            .setTopicId(topicId).setTopicName("orders").setPartitions(List.of(0, 2))));
    var cgd = new ConsumerGroupDescribeResponseData().setThrottleTimeMs(5).setGroups(List.of(
        new ConsumerGroupDescribeResponseData.DescribedGroup()
            .setGroupId("g1").setGroupState("Stable").setGroupEpoch(7).setAssignmentEpoch(7)
            .setAssignorName("uniform").setMembers(List.of(
                new ConsumerGroupDescribeResponseData.Member()
                    .setMemberId("m-1").setInstanceId(null).setRackId("az2").setMemberEpoch(7)
                    .setClientId("c1").setClientHost("/10.0.2.7")
                    .setSubscribedTopicNames(List.of("orders")).setSubscribedTopicRegex(null)
                    .setAssignment(assignment).setTargetAssignment(assignment)
                    .setMemberType((byte) 0),
                new ConsumerGroupDescribeResponseData.Member()
                    .setMemberId("m-2").setRackId(null).setMemberEpoch(7)
                    .setClientId("c2").setClientHost("/10.0.1.9")
                    .setSubscribedTopicNames(List.of()).setSubscribedTopicRegex("ord.*")
                    .setMemberType((byte) 1))),
        new ConsumerGroupDescribeResponseData.DescribedGroup()
            .setErrorCode((short) 69).setErrorMessage("Group g2 not found.").setGroupId("g2")));
    print("ConsumerGroupDescribeResponse", cgd, (short) 0);
    print("ConsumerGroupDescribeResponse", cgd, (short) 1);

    var tasks = new StreamsGroupDescribeResponseData.Assignment()
        .setActiveTasks(List.of(new StreamsGroupDescribeResponseData.TaskIds()
            .setSubtopologyId("0").setPartitions(List.of(1, 2))))
        .setStandbyTasks(List.of(new StreamsGroupDescribeResponseData.TaskIds()
            .setSubtopologyId("1").setPartitions(List.of(0))));
    var sgd = new StreamsGroupDescribeResponseData().setGroups(List.of(
        new StreamsGroupDescribeResponseData.DescribedGroup()
            .setGroupId("app").setGroupState("Stable").setGroupEpoch(3).setAssignmentEpoch(3)
            .setTopology(new StreamsGroupDescribeResponseData.Topology().setEpoch(0)
                .setSubtopologies(List.of(new StreamsGroupDescribeResponseData.Subtopology()
                    .setSubtopologyId("0").setSourceTopics(List.of("in"))
                    .setRepartitionSinkTopics(List.of())
                    .setStateChangelogTopics(List.of(new StreamsGroupDescribeResponseData.TopicInfo()
                        .setName("app-store-changelog").setPartitions(0).setReplicationFactor((short) 3)
                        .setTopicConfigs(List.of(new StreamsGroupDescribeResponseData.KeyValue()
                            .setKey("cleanup.policy").setValue("compact")))))
                    .setRepartitionSourceTopics(List.of()))))
            .setMembers(List.of(new StreamsGroupDescribeResponseData.Member()
                .setMemberId("s-1").setMemberEpoch(3).setRackId("az3").setClientId("app-1")
                .setClientHost("/10.0.3.3").setTopologyEpoch(0).setProcessId("p-1")
                .setUserEndpoint(new StreamsGroupDescribeResponseData.Endpoint().setHost("h").setPort(65000))
                .setClientTags(List.of(new StreamsGroupDescribeResponseData.KeyValue().setKey("zone").setValue("z3")))
                .setTaskOffsets(List.of(new StreamsGroupDescribeResponseData.TaskOffset()
                    .setSubtopologyId("0").setPartition(1).setOffset(42L)))
                .setTaskEndOffsets(List.of())
                .setAssignment(tasks).setTargetAssignment(tasks).setIsClassic(false))),
        new StreamsGroupDescribeResponseData.DescribedGroup()
            .setGroupId("fresh").setGroupState("Empty").setTopology(null)));
    print("StreamsGroupDescribeResponse", sgd, (short) 0);
    // v1 (Kafka 4.4): the assignor the coordinator will use (KIP-1357) and a topology
    // description (KIP-1331), so the decoder reads every v1 field
    sgd.groups().get(0).setAssignorName("rackwise").setTopologyDescriptionStatus((byte) 3)
        .setTopologyDescription(new StreamsGroupDescribeResponseData.TopologyDescription()
            .setSubtopologies(List.of(new StreamsGroupDescribeResponseData.TopologyDescriptionSubtopology()
                .setSubtopologyId("0").setNodes(List.of(
                    new StreamsGroupDescribeResponseData.TopologyDescriptionNode()
                        .setName("KSTREAM-SOURCE-0000000000").setNodeType((byte) 1)
                        .setSourceTopics(List.of("in")).setSinkTopic(null).setStores(List.of())
                        .setSuccessors(List.of("KSTREAM-AGGREGATE-0000000001")),
                    new StreamsGroupDescribeResponseData.TopologyDescriptionNode()
                        .setName("KSTREAM-SINK-0000000002").setNodeType((byte) 3)
                        .setSourceTopics(List.of()).setSinkTopic("out").setStores(List.of("s"))
                        .setSuccessors(List.of())))))
            .setGlobalStores(List.of(new StreamsGroupDescribeResponseData.TopologyDescriptionGlobalStore()
                .setSource(new StreamsGroupDescribeResponseData.TopologyDescriptionNode()
                    .setName("g-src").setNodeType((byte) 1).setSourceTopics(List.of("gt"))
                    .setStores(List.of()).setSuccessors(List.of("g-proc")))
                .setProcessor(new StreamsGroupDescribeResponseData.TopologyDescriptionNode()
                    .setName("g-proc").setNodeType((byte) 2).setSourceTopics(List.of())
                    .setStores(List.of("gs")).setSuccessors(List.of())))));
    print("StreamsGroupDescribeResponse", sgd, (short) 1);
    print("StreamsGroupDescribeRequest", new StreamsGroupDescribeRequestData()
        .setGroupIds(List.of("app", "fresh")).setIncludeAuthorizedOperations(false)
        .setIncludeTopologyDescription(false), (short) 1);

    var logdirs = new DescribeLogDirsResponseData().setResults(List.of(
        new DescribeLogDirsResponseData.DescribeLogDirsResult().setLogDir("/data/n1")
            .setTotalBytes(1000000L).setUsableBytes(500000L)
            .setTopics(List.of(new DescribeLogDirsResponseData.DescribeLogDirsTopic()
                .setName("orders").setPartitions(List.of(
                    new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                        .setPartitionIndex(0).setPartitionSize(123456789012L).setOffsetLag(0),
                    new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                        .setPartitionIndex(2).setPartitionSize(7).setIsFutureKey(true)))))));
    for (short v = 2; v <= 5; v++) print("DescribeLogDirsResponse", logdirs, v);

    var fc = new FindCoordinatorResponseData().setCoordinators(List.of(
        new FindCoordinatorResponseData.Coordinator().setKey("g1").setNodeId(2).setHost("127.0.0.1").setPort(19192),
        new FindCoordinatorResponseData.Coordinator().setKey("g2").setNodeId(-1).setHost("").setPort(-1)
            .setErrorCode((short) 15).setErrorMessage("not available")));
    print("FindCoordinatorResponse", fc, (short) 4);

    print("ListGroupsResponse", new ListGroupsResponseData().setGroups(List.of(
        new ListGroupsResponseData.ListedGroup().setGroupId("app").setProtocolType("")
            .setGroupState("Stable").setGroupType("Streams"),
        new ListGroupsResponseData.ListedGroup().setGroupId("g1").setProtocolType("consumer")
            .setGroupState("Empty").setGroupType("Classic"))), (short) 5);
    print("ListGroupsRequest", new ListGroupsRequestData(), (short) 5);
    print("GroupDescribeRequest", new ConsumerGroupDescribeRequestData()
        .setGroupIds(List.of("g1", "g2")).setIncludeAuthorizedOperations(false), (short) 1);
    print("FindCoordinatorRequest", new FindCoordinatorRequestData().setKeyType((byte) 0)
        .setCoordinatorKeys(List.of("g1", "g2")), (short) 4);
    print("DescribeLogDirsRequest", new DescribeLogDirsRequestData().setTopics(
        new DescribeLogDirsRequestData.DescribableLogDirTopicCollection(List.of(
            new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic("orders")
                .setPartitions(List.of(0, 2))).iterator())), (short) 4);
  }
}
