package dev.rackwise.plugins.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.rackwise.plugins.RackwiseAssignor;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.plugins.publish.ComputedPlan;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RackwiseAssignorTest {
    static final Node[] NODES = {new Node(1, "h", 1, "az1"), new Node(2, "h", 2, "az2"), new Node(3, "h", 3, "az3")};

    /** t-0 in az1+az2 (led from az1), t-1 in az2+az3 (az2), t-2 in az3+az1 (az3). */
    static Cluster cluster() {
        List<PartitionInfo> parts = List.of(
            new PartitionInfo("t", 0, NODES[0], new Node[] {NODES[0], NODES[1]}, NODES),
            new PartitionInfo("t", 1, NODES[1], new Node[] {NODES[1], NODES[2]}, NODES),
            new PartitionInfo("t", 2, NODES[2], new Node[] {NODES[2], NODES[0]}, NODES));
        return new Cluster("c", List.of(NODES), parts, Set.of(), Set.of());
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

    static RackwiseAssignor assignor(ClassicLookups lookups, String strategies, Map<String, Object> extra) {
        RackwiseAssignor a = new RackwiseAssignor(s -> lookups);
        Map<String, Object> configs = new HashMap<>(extra);
        configs.put("group.id", "g");
        configs.put("bootstrap.servers", "localhost:9092");
        configs.put("partition.assignment.strategy", strategies);
        a.configure(configs);
        return a;
    }

    static Map<String, List<TopicPartition>> parts(GroupAssignment out) {
        Map<String, List<TopicPartition>> m = new TreeMap<>();
        out.groupAssignment().forEach((k, v) -> m.put(k, v.partitions()));
        return m;
    }

    static TopicPartition t(int p) {
        return new TopicPartition("t", p);
    }

    @Test
    void cooperativeWithholdsWhatAnotherMemberStillOwnsAndPublishesIt() {
        List<ComputedPlan> published = new ArrayList<>();
        RackwiseAssignor a = assignor(new ClassicLookups(AdviceView.NONE, published::add),
            RackwiseAssignor.class.getName(), Map.of());
        Map<String, List<TopicPartition>> got = parts(a.assign(cluster(), group()));
        // a keeps t-0, b keeps t-1, t-2 goes to c (local, az3) but b still owns it: withheld
        assertEquals(Map.of("a", List.of(t(0)), "b", List.of(t(1)), "c", List.of()), got);
        assertEquals(1, published.size());
        assertEquals("cooperative", published.get(0).protocol());
        assertEquals(Map.of(new dev.rackwise.core.TopicPartition("t", 2), "b"), published.get(0).withheld());
        assertEquals(1, a.metrics().assignments());
    }

    @Test
    void eagerHandsEverythingOverAtOnce() {
        RackwiseAssignor a = assignor(ClassicLookups.NONE,
            RackwiseAssignor.class.getName() + "," + org.apache.kafka.clients.consumer.RangeAssignor.class.getName(),
            Map.of());
        assertEquals(Map.of("a", List.of(t(0)), "b", List.of(t(1)), "c", List.of(t(2))),
            parts(a.assign(cluster(), group())));
    }

    @Test
    void withoutFollowerFetchingEachMemberWantsWhatItsRackLeads() {
        // leaders: t-0 az1, t-1 az2, t-2 az3: the same answer, now because of the leaders
        Map<String, Subscription> subs = new HashMap<>();
        for (String[] m : new String[][] {{"x", "az3"}, {"y", "az1"}, {"z", "az2"}}) {
            subs.put(m[0], new Subscription(List.of("t"), null, List.of(), -1, Optional.of(m[1])));
        }
        RackwiseAssignor a = assignor(ClassicLookups.NONE, RackwiseAssignor.class.getName(),
            Map.of(RackwiseAssignor.FOLLOWER_FETCHING, "false"));
        assertEquals(Map.of("x", List.of(t(2)), "y", List.of(t(0)), "z", List.of(t(1))),
            parts(a.assign(cluster(), new GroupSubscription(subs))));
    }

    @Test
    void twoClaimsOfTheSameGenerationAreBothDropped() {
        Map<String, Subscription> subs = new HashMap<>();
        subs.put("a", new Subscription(List.of("t"), null, List.of(t(0)), 3, Optional.of("az1")));
        subs.put("b", new Subscription(List.of("t"), null, List.of(t(0)), 3, Optional.of("az2")));
        subs.put("c", new Subscription(List.of("t"), null, List.of(t(1)), 2, Optional.of("az3")));
        Map<String, Integer> counts = Map.of("t", 3);
        assertEquals(Map.of(t(1), "c"), Ownership.previousOwners(subs, counts));
        subs.put("d", new Subscription(List.of("t"), null, List.of(t(1)), 5, Optional.of("az3")));
        assertEquals(Map.of(t(1), "d"), Ownership.previousOwners(subs, counts));
    }

    @Test
    void anInternalErrorFallsBackToCooperativeStickyAndIsCounted() {
        AdviceView broken = new AdviceView() {
            @Override
            public GroupCosts costs(String groupId) {
                throw new IllegalStateException("boom");
            }
        };
        RackwiseAssignor a = assignor(new ClassicLookups(broken, p -> true), RackwiseAssignor.class.getName(), Map.of());
        GroupAssignment out = a.assign(cluster(), group());
        int assigned = out.groupAssignment().values().stream().mapToInt(x -> x.partitions().size()).sum();
        assertTrue(assigned >= 2, parts(out).toString());
        assertEquals(1, a.metrics().fallbacks("internal"));
    }

    @Test
    void aBadFollowerFetchingValueFailsTheConsumersConstruction() {
        org.junit.jupiter.api.Assertions.assertThrows(org.apache.kafka.common.config.ConfigException.class,
            () -> assignor(ClassicLookups.NONE, RackwiseAssignor.class.getName(),
                Map.of(RackwiseAssignor.FOLLOWER_FETCHING, "maybe")));
    }

    @Test
    void everyMemberIsInTheAnswer() {
        Map<String, Assignment> out = assignor(ClassicLookups.NONE, RackwiseAssignor.class.getName(), Map.of())
            .assign(cluster(), group()).groupAssignment();
        assertEquals(Set.of("a", "b", "c"), out.keySet());
    }
}
