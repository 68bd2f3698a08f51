package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.plugins.publish.ComputedPlan;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.junit.jupiter.api.Test;

class RackwiseGroupAssignorTest {
    static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    /** orders-p lives in rack az(p mod 3 + 1) only. */
    static final SubscribedTopicDescriber TOPICS = new SubscribedTopicDescriber() {
        @Override
        public int numPartitions(Uuid topicId) {
            return topicId.equals(ORDERS) ? 6 : -1;
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            return Set.of("az" + (partition % 3 + 1));
        }
    };

    /** Members m1..m3 in az1..az3, m1 holding {@code m1Target} as its current target. */
    static GroupSpec spec(Set<Integer> m1Target) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Integer, String> owners = new HashMap<>();
        for (int i = 1; i <= 3; i++) {
            Map<Uuid, Set<Integer>> target = i == 1 && !m1Target.isEmpty() ? Map.of(ORDERS, m1Target) : Map.of();
            members.put("m" + i, new MemberSubscriptionAndAssignmentImpl(Optional.of("az" + i), Optional.empty(),
                Set.of(ORDERS), new Assignment(target)));
        }
        m1Target.forEach(p -> owners.put(p, "m1"));
        return new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS,
            owners.isEmpty() ? Map.of() : Map.of(ORDERS, owners));
    }

    private static final java.util.concurrent.atomic.AtomicInteger NODES = new java.util.concurrent.atomic.AtomicInteger(1000);

    static RackwiseGroupAssignor assignor(BrokerLookups lookups, boolean followerFetching) {
        return assignor(lookups, followerFetching, Map.of());
    }

    static RackwiseGroupAssignor assignor(BrokerLookups lookups, boolean followerFetching, Map<String, String> extra) {
        RackwiseGroupAssignor a = new RackwiseGroupAssignor(s -> lookups);
        Map<String, Object> broker = new HashMap<>(extra);
        // a node id of its own: the instances of one node share their metrics (PluginMetrics.shared)
        broker.put("node.id", String.valueOf(NODES.incrementAndGet()));
        broker.put("listeners", "PLAINTEXT://127.0.0.1:21092,CONTROLLER://127.0.0.1:21093");
        broker.put("controller.listener.names", "CONTROLLER");
        if (followerFetching) {
            broker.put("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector");
        }
        a.configure(broker);
        return a;
    }

    /** orders-0 and orders-3 weigh 50, the others 1. */
    static final AdviceView EVERY_THIRD_HOT = new AdviceView() {
        @Override
        public double weight(String topic, int partition) {
            return partition % 3 == 0 ? 50.0 : 1.0;
        }
    };

    /** A new group over orders: {member id, rack} pairs, nothing assigned yet. */
    static GroupSpec newGroup(String[][] memberRacks) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        for (String[] m : memberRacks) {
            members.put(m[0], new MemberSubscriptionAndAssignmentImpl(Optional.of(m[1]), Optional.empty(),
                Set.of(ORDERS), new Assignment(Map.of())));
        }
        return new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS, Map.of());
    }

    static Map<String, Set<Integer>> partitions(GroupAssignment a) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        a.members().forEach((m, ma) -> out.put(m, new TreeSet<>(ma.partitions().getOrDefault(ORDERS, Set.of()))));
        return out;
    }

    @Test
    void aNewGroupWithNothingInTheBackgroundYetIsRackOptimalAtOnce() {
        // the first assignment on a broker: no names, no group id, no advice (lookups not ready)
        GroupAssignment a = assignor(null, true).assign(spec(Set.of()), TOPICS);
        assertEquals(Map.of("m1", Set.of(0, 3), "m2", Set.of(1, 4), "m3", Set.of(2, 5)), partitions(a));
    }

    @Test
    void previousTargetsAreKeptWhereThatIsFree() {
        // m1 holds 0 and 3 (local to it): nothing moves
        GroupAssignment a = assignor(null, true).assign(spec(Set.of(0, 3)), TOPICS);
        assertEquals(Set.of(0, 3), partitions(a).get("m1"));
    }

    @Test
    void withoutFollowerFetchingLeadersDecideAndAdviceGivesThem() {
        // every leader in az1: reads go to the leader, so only m1 reads locally whatever the replicas
        AdviceView leadersInAz1 = new AdviceView() {
            @Override
            public String leaderRack(String topic, int partition) {
                return "az1";
            }
        };
        List<ComputedPlan> published = new ArrayList<>();
        BrokerLookups lookups = new BrokerLookups(ids -> Map.of(ORDERS, "orders"), m -> Optional.of("g1"),
            leadersInAz1, p -> published.add(p));
        RackwiseGroupAssignor a = assignor(lookups, false);
        GroupAssignment out = a.assign(spec(Set.of()), TOPICS);
        assertEquals(2, partitions(out).get("m1").size());
        assertEquals(1, published.size());
        assertEquals("g1", published.get(0).groupId());
        assertEquals(Map.of(ORDERS.toString(), "orders"), published.get(0).topicNames());
        assertEquals(1, a.metrics().assignments());
    }

    @Test
    void weightsFromAdviceSpreadTheHotPartitions() {
        // orders-0 and orders-3 (both only in az1) are hot; m1 and m4 are in az1
        AdviceView hot = EVERY_THIRD_HOT;
        GroupSpec spec = newGroup(new String[][] {{"m1", "az1"}, {"m2", "az2"}, {"m3", "az3"}, {"m4", "az1"}});
        BrokerLookups lookups = new BrokerLookups(ids -> Map.of(ORDERS, "orders"), m -> Optional.of("g1"), hot,
            PlanSink -> true);
        Map<String, Set<Integer>> got = partitions(assignor(lookups, true).assign(spec, TOPICS));
        assertTrue(got.get("m1").contains(0) != got.get("m1").contains(3), got.toString());
        assertTrue(got.get("m4").contains(0) != got.get("m4").contains(3), got.toString());
    }

    @Test
    void adviceWeightsApplyUpToTheLimitOfPartitions() {
        AdviceView hot = EVERY_THIRD_HOT;
        Map<Uuid, String> names = Map.of(ORDERS, "orders");
        // the group's 6 partitions: weighted at a limit of 6, every partition 1 at a limit of 5
        dev.rackwise.core.Problem at6 = BrokerProblem.of(spec(Set.of()), TOPICS, names, hot, GroupCosts.DEFAULT, true, 6);
        dev.rackwise.core.Problem at5 = BrokerProblem.of(spec(Set.of()), TOPICS, names, hot, GroupCosts.DEFAULT, true, 5);
        assertEquals(50.0, at6.topics().get(ORDERS.toString()).get(3).weight());
        for (dev.rackwise.core.PartitionSpec p : at5.topics().get(ORDERS.toString())) {
            assertEquals(1.0, p.weight());
        }
        // the broker setting reaches assign(): two members in az1, every partition there, 0 and
        // 2 hot. Weighted, each member gets one hot partition; by count (limit 5 < 6 partitions)
        // they are dealt in partition order, and m1 gets both: the same as with no advice.
        SubscribedTopicDescriber allInAz1 = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return topicId.equals(ORDERS) ? 6 : -1;
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of("az1");
            }
        };
        AdviceView evenHot = new AdviceView() {
            @Override
            public double weight(String topic, int partition) {
                return partition == 0 || partition == 2 ? 50.0 : 1.0;
            }
        };
        GroupSpec spec = newGroup(new String[][] {{"m1", "az1"}, {"m2", "az1"}});
        BrokerLookups lookups = new BrokerLookups(ids -> names, m -> Optional.of("g1"), evenHot, PlanSink -> true);
        BrokerLookups noAdvice = new BrokerLookups(ids -> names, m -> Optional.of("g1"), AdviceView.NONE,
            PlanSink -> true);
        Map<String, Set<Integer>> weighted = partitions(assignor(lookups, true).assign(spec, allInAz1));
        Map<String, Set<Integer>> capped = partitions(assignor(lookups, true,
            Map.of(RackwiseGroupAssignor.MAX_WEIGHTED_PARTITIONS, "5")).assign(spec, allInAz1));
        assertTrue(weighted.get("m1").contains(0) != weighted.get("m1").contains(2), weighted.toString());
        assertEquals(partitions(assignor(noAdvice, true).assign(spec, allInAz1)), capped);
        assertNotEquals(weighted, capped);
    }

    @Test
    void aPartitionInTwoTargetsHasTheFirstMemberByIdAsItsPreviousOwner() {
        // malformed: m3 and m2 both hold orders-0; m3 alone holds orders-1
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        for (int i = 1; i <= 3; i++) {
            Map<Uuid, Set<Integer>> target = i == 3 ? Map.of(ORDERS, Set.of(0, 1)) : i == 2 ? Map.of(ORDERS, Set.of(0)) : Map.of();
            members.put("m" + i, new MemberSubscriptionAndAssignmentImpl(Optional.of("az" + i), Optional.empty(),
                Set.of(ORDERS), new Assignment(target)));
        }
        GroupSpec spec = new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS, Map.of());
        dev.rackwise.core.Problem p = BrokerProblem.of(spec, TOPICS, Map.of(), AdviceView.NONE, GroupCosts.DEFAULT, true);
        Map<String, String> owners = new TreeMap<>();
        p.previousOwners().forEach((tp, m) -> owners.put(tp.toString(), m));
        assertEquals(Map.of(ORDERS + "-0", "m2", ORDERS + "-1", "m3"), owners);
    }

    @Test
    void anInternalErrorFallsBackToUniformAndIsCounted() {
        AdviceView broken = new AdviceView() {
            @Override
            public GroupCosts costs(String groupId) {
                throw new IllegalStateException("boom");
            }
        };
        BrokerLookups lookups = new BrokerLookups(ids -> Map.of(), m -> Optional.of("g1"), broken, p -> true);
        RackwiseGroupAssignor a = assignor(lookups, true);
        GroupAssignment out = a.assign(spec(Set.of()), TOPICS);
        assertEquals(6, partitions(out).values().stream().mapToInt(Set::size).sum());
        assertEquals(1, a.metrics().fallbacks("internal"));
    }

    @Test
    void concurrentCallsOnManyThreadsGiveTheSameAnswer() throws Exception {
        RackwiseGroupAssignor a = assignor(null, true);
        Map<String, Set<Integer>> once = partitions(a.assign(spec(Set.of(1, 2)), TOPICS));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Map<String, Set<Integer>>>> all = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                Callable<Map<String, Set<Integer>>> c = () -> partitions(a.assign(spec(Set.of(1, 2)), TOPICS));
                all.add(pool.submit(c));
            }
            for (Future<Map<String, Set<Integer>>> f : all) {
                assertEquals(once, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void manyInstancesOfOneBrokerShowAsOneMBean() throws Exception {
        // Kafka configures one instance per KafkaConfig it builds; only one of them ever assigns
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        javax.management.ObjectName pattern =
            new javax.management.ObjectName("kafka.rackwise:type=RackwiseGroupAssignor,name=broker-77*");
        javax.management.ObjectName one =
            new javax.management.ObjectName("kafka.rackwise:type=RackwiseGroupAssignor,name=broker-77");
        List<RackwiseGroupAssignor> built = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RackwiseGroupAssignor a = new RackwiseGroupAssignor(s -> null);
            a.configure(Map.of("node.id", "77", "listeners", "PLAINTEXT://127.0.0.1:21092"));
            built.add(a);
        }
        assertEquals(Set.of(one), server.queryNames(pattern, null), "one MBean, there before any assign()");
        assertEquals(0L, server.getAttribute(one, "AssignmentsComputed"));
        built.get(1).assign(spec(Set.of()), TOPICS);
        built.get(1).assign(spec(Set.of()), TOPICS);
        assertEquals(Set.of(one), server.queryNames(pattern, null));
        assertEquals(2L, server.getAttribute(one, "AssignmentsComputed"));
    }
}
