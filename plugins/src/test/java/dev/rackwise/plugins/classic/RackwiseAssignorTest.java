package dev.rackwise.plugins.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.rackwise.plugins.RackwiseAssignor;
import dev.rackwise.plugins.core.FallbackReason;
import dev.rackwise.plugins.core.StubTransport;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import dev.rackwise.plugins.transport.ExchangeException;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RackwiseAssignorTest {
    static final Node[] NODES = {new Node(1, "h", 1, "az1"), new Node(2, "h", 2, "az2"), new Node(3, "h", 3, "az3")};

    static Cluster cluster() {
        List<PartitionInfo> parts = List.of(
            new PartitionInfo("t", 0, NODES[0], new Node[] {NODES[0], NODES[1]}, NODES),
            new PartitionInfo("t", 1, NODES[1], new Node[] {NODES[1], NODES[2]}, NODES),
            new PartitionInfo("t", 2, NODES[2], new Node[] {NODES[2], NODES[0]}, NODES));
        return new Cluster("c", List.of(NODES), parts, java.util.Set.of(), java.util.Set.of());
    }

    /** a (az1) owns t-0, b (az2) owns t-1 and t-2; c (az3) is new. "missing" has no metadata. */
    static GroupSubscription group() {
        Map<String, Subscription> subs = new HashMap<>();
        subs.put("b", new Subscription(List.of("t", "missing"), null,
            List.of(new TopicPartition("t", 1), new TopicPartition("t", 2)), 4, Optional.of("az2")));
        subs.put("a", new Subscription(List.of("t"), null, List.of(new TopicPartition("t", 0)), 4, Optional.of("az1")));
        subs.put("c", new Subscription(List.of("t"), null, List.of(), -1, Optional.of("az3")));
        return new GroupSubscription(subs);
    }

    static RackwiseAssignor assignor(StubTransport transport, String strategies) {
        RackwiseAssignor a = new RackwiseAssignor(s -> transport);
        Map<String, Object> configs = new HashMap<>();
        configs.put("group.id", "g");
        configs.put("bootstrap.servers", "localhost:9092");
        configs.put("partition.assignment.strategy", strategies);
        a.configure(configs);
        return a;
    }

    static List<TopicPartition> parts(GroupAssignment ga, String member) {
        return ga.groupAssignment().get(member).partitions();
    }

    @Test
    void usesAValidPlan() {
        StubTransport t = new StubTransport((g, r) -> StubTransport.plan(g, 2,
            Map.of("a", List.of("t-0"), "b", List.of("t-1"), "c", List.of())));
        RackwiseAssignor a = assignor(t, RackwiseAssignor.class.getName());
        GroupAssignment ga = a.assign(cluster(), group());
        assertEquals(List.of(new TopicPartition("t", 0)), parts(ga, "a"));
        assertEquals(List.of(new TopicPartition("t", 1)), parts(ga, "b"));
        assertEquals(List.of(), parts(ga, "c"));
        assertEquals(1, a.stats().plansUsed());

        AssignRequest sent = t.requests.get(0);
        assertEquals("g", t.groups.get(0));
        assertEquals(RequestProtocol.CLASSIC_COOPERATIVE, sent.protocol());
        assertEquals(List.of(new RequestTopic("t", 3)), sent.topics());
        assertEquals(List.of("a", "b", "c"), sent.members().stream().map(m -> m.memberId()).toList());
        assertEquals(Optional.of("az2"), sent.members().get(1).subscription().rackId());
        assertEquals(Optional.of(4), sent.members().get(1).subscription().generationId());
    }

    @Test
    void eagerBesideRange() {
        StubTransport t = new StubTransport((g, r) -> StubTransport.plan(g, 2,
            Map.of("a", List.of("t-0"), "b", List.of("t-1"), "c", List.of("t-2"))));
        RackwiseAssignor a = assignor(t, RackwiseAssignor.class.getName() + "," + RangeAssignor.class.getName());
        a.assign(cluster(), group());
        assertEquals(RequestProtocol.CLASSIC_EAGER, t.requests.get(0).protocol());
    }

    @Test
    void timeoutFallsBackToCooperativeSticky() {
        StubTransport t = new StubTransport((g, r) -> {
            throw new ExchangeException(ExchangeException.Failure.TIMEOUT, "no reply within 5000 ms");
        });
        RackwiseAssignor a = assignor(t, RackwiseAssignor.class.getName());
        GroupAssignment ga = a.assign(cluster(), group());
        GroupAssignment expected = new CooperativeStickyAssignor().assign(cluster(), group());
        for (String m : List.of("a", "b", "c")) {
            assertEquals(expected.groupAssignment().get(m).partitions(), parts(ga, m));
        }
        assertEquals(1, a.stats().fallbacks(FallbackReason.TIMEOUT));
    }

    @Test
    void cooperativeViolationFallsBackToAValidAssignment() {
        // t-1 to c while b still owns it: Kafka's ConsumerCoordinator would throw on this.
        StubTransport t = new StubTransport((g, r) -> StubTransport.plan(g, 2,
            Map.of("a", List.of("t-0"), "b", List.of("t-2"), "c", List.of("t-1"))));
        RackwiseAssignor a = assignor(t, RackwiseAssignor.class.getName());
        GroupAssignment ga = a.assign(cluster(), group());
        assertEquals(1, a.stats().fallbacks(FallbackReason.INVALID_PLAN));
        Map<String, Subscription> subs = group().groupSubscription();
        for (Map.Entry<String, Assignment> e : ga.groupAssignment().entrySet()) {
            for (TopicPartition tp : e.getValue().partitions()) {
                for (Map.Entry<String, Subscription> s : subs.entrySet()) {
                    boolean ownedElsewhere = !s.getKey().equals(e.getKey()) && s.getValue().ownedPartitions().contains(tp);
                    assertTrue(!ownedElsewhere, tp + " moved from " + s.getKey() + " to " + e.getKey());
                }
            }
        }
    }

    @Test
    void neverThrows() {
        RackwiseAssignor broken = new RackwiseAssignor(s -> {
            throw new IllegalStateException("boom");
        });
        broken.configure(Map.of("group.id", "g", "bootstrap.servers", "x:1"));
        GroupAssignment ga = broken.assign(cluster(), group());
        assertEquals(3, ga.groupAssignment().size());
        assertEquals(1, broken.stats().fallbacks(FallbackReason.TRANSPORT));

        RackwiseAssignor unconfigured = new RackwiseAssignor(s -> null);
        assertEquals(3, unconfigured.assign(cluster(), group()).groupAssignment().size());
        assertEquals(1, unconfigured.stats().fallbacks(FallbackReason.NOT_CONFIGURED));
    }
}
