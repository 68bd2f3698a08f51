package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.rackwise.core.RackOptimal;
import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.junit.jupiter.api.Test;

/**
 * Replica racks kept across assign() calls ({@link TopicRacks.Cache}) on Kafka's own describer
 * over real KRaft metadata images: kept while the image is the same, read again after a replica
 * moves, never kept for another describer, the same problem either way, and safe on many threads.
 */
class TopicRacksTest {
    static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    /** The answer while orders-0 is in az1 and orders-1 in az2: each member reads its own rack's. */
    static final Map<String, Set<Integer>> AS_PLACED = Map.of("m1", Set.of(0), "m2", Set.of(1));
    /** The answer once the two partitions' racks are swapped. */
    static final Map<String, Set<Integer>> SWAPPED = Map.of("m1", Set.of(1), "m2", Set.of(0));

    /** Brokers 1, 2, 3 in az1, az2, az3; orders-0 on broker 1, orders-1 on broker 2 (RF 1). */
    static MetadataImage before() {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        for (int b = 1; b <= 3; b++) {
            delta.replay(new RegisterBrokerRecord().setBrokerId(b).setBrokerEpoch(1)
                .setIncarnationId(new Uuid(7, b)).setRack("az" + b));
        }
        delta.replay(new TopicRecord().setName("orders").setTopicId(ORDERS));
        for (int p = 0; p < 2; p++) {
            List<Integer> replicas = List.of(p + 1);
            delta.replay(new PartitionRecord().setTopicId(ORDERS).setPartitionId(p).setReplicas(replicas)
                .setIsr(replicas).setLeader(p + 1).setLeaderEpoch(0).setPartitionEpoch(0));
        }
        return delta.apply(new MetadataProvenance(10, 1, 0, true));
    }

    /** {@code image} after a reassignment: orders-0 moves to broker 2 and orders-1 to broker 1. */
    static MetadataImage swapped(MetadataImage image) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
        for (int p = 0; p < 2; p++) {
            List<Integer> replicas = List.of(2 - p);
            delta.replay(new PartitionChangeRecord().setTopicId(ORDERS).setPartitionId(p).setReplicas(replicas)
                .setIsr(replicas).setLeader(2 - p));
        }
        return delta.apply(new MetadataProvenance(20, 1, 0, true));
    }

    /**
     * Kafka's own describer over {@code image}, as a coordinator makes one for each call: 4.1
     * wraps the MetadataImage itself, 4.4 a KRaftCoordinatorMetadataImage around it.
     */
    static SubscribedTopicDescriber kafkaDescriber(MetadataImage image) throws Exception {
        Class<?> impl = Class.forName(KafkaImage.KAFKA_DESCRIBER);
        Constructor<?> c = impl.getConstructors()[0];
        Class<?> param = c.getParameterTypes()[0];
        Object arg = image;
        if (!param.isInstance(image)) {
            arg = Class.forName("org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage")
                .getConstructor(MetadataImage.class).newInstance(image);
        }
        return (SubscribedTopicDescriber) c.newInstance(arg);
    }

    /** Members m1 (az1) and m2 (az2) on {@code topics}, with nothing assigned yet. */
    static GroupSpec twoMembers(Set<Uuid> topics) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        for (int i = 1; i <= 2; i++) {
            members.put("m" + i, new MemberSubscriptionAndAssignmentImpl(Optional.of("az" + i), Optional.empty(),
                topics, new Assignment(Map.of())));
        }
        return new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS, Map.of());
    }

    static RackwiseGroupAssignor assignor() {
        return RackwiseGroupAssignorTest.assignor(null, true);
    }

    static Map<String, Set<Integer>> partitions(GroupAssignment a) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        a.members().forEach((m, ma) -> out.put(m, new TreeSet<>(ma.partitions().getOrDefault(ORDERS, Set.of()))));
        return out;
    }

    @Test
    void aReplicaMovedBetweenTwoCallsIsReadAgain() throws Exception {
        RackwiseGroupAssignor a = assignor();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        MetadataImage first = before();
        assertEquals(AS_PLACED, partitions(a.assign(spec, kafkaDescriber(first))));
        // a second call on the same image (a new describer, as the coordinator makes): the same answer
        assertEquals(AS_PLACED, partitions(a.assign(spec, kafkaDescriber(first))));
        // the reassignment: a new image; the racks kept for the old one must not answer
        MetadataImage second = swapped(first);
        assertEquals(SWAPPED, partitions(a.assign(spec, kafkaDescriber(second))));
        // and back: the old image again is equal to the first, so its answer again
        assertEquals(AS_PLACED, partitions(a.assign(spec, kafkaDescriber(first))));
    }

    @Test
    void theSameImageIsReadOnceAndANewOneAgain() throws Exception {
        TopicRacks.Cache cache = new TopicRacks.Cache();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        MetadataImage first = before();
        for (int call = 0; call < 3; call++) {
            BrokerProblem.indexed(spec, kafkaDescriber(first), Map.of(), AdviceView.NONE, GroupCosts.DEFAULT, true,
                Long.MAX_VALUE, cache);
        }
        assertEquals(1, cache.reads(), "one read of orders for three calls on one image");
        assertEquals(2, cache.hits());
        BrokerProblem.indexed(spec, kafkaDescriber(swapped(first)), Map.of(), AdviceView.NONE, GroupCosts.DEFAULT,
            true, Long.MAX_VALUE, cache);
        assertEquals(2, cache.reads(), "a new image is read again");
    }

    /** {@code image} with a new offset only: what the controller's periodic no-op records make. */
    static MetadataImage later(MetadataImage image) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
        return delta.apply(new MetadataProvenance(image.provenance().lastContainedOffset() + 1, 1, 0, true));
    }

    /** {@code image} after broker {@code broker} re-registers in rack {@code rack}. */
    static MetadataImage rackMoved(MetadataImage image, int broker, String rack) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
        delta.replay(new RegisterBrokerRecord().setBrokerId(broker).setBrokerEpoch(2)
            .setIncarnationId(new Uuid(8, broker)).setRack(rack));
        return delta.apply(new MetadataProvenance(image.provenance().lastContainedOffset() + 1, 1, 0, true));
    }

    @Test
    void racksAreKeptAcrossImagesThatDoNotTouchThem() throws Exception {
        TopicRacks.Cache cache = new TopicRacks.Cache();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        MetadataImage image = before();
        for (int call = 0; call < 5; call++) {
            image = later(image); // a new image each call, as a live broker gets every 500 ms
            BrokerProblem.indexed(spec, kafkaDescriber(image), Map.of(), AdviceView.NONE, GroupCosts.DEFAULT, true,
                Long.MAX_VALUE, cache);
        }
        assertEquals(1, cache.reads(), "orders' replicas never changed");
        assertEquals(4, cache.hits());
    }

    @Test
    void aBrokerInANewRackIsReadAgain() throws Exception {
        RackwiseGroupAssignor a = assignor();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        MetadataImage first = before();
        assertEquals(AS_PLACED, partitions(a.assign(spec, kafkaDescriber(first))));
        // broker 1 (orders-0) now in az2 and broker 2 (orders-1) in az1: no replica moved, racks did
        MetadataImage moved = rackMoved(rackMoved(first, 1, "az2"), 2, "az1");
        assertEquals(SWAPPED, partitions(a.assign(spec, kafkaDescriber(moved))));
    }

    @Test
    void anotherDescriberIsNeverKept() {
        // the same describer object answering differently between calls (as a test's fake may)
        int[] rackOfPartition0 = {1};
        SubscribedTopicDescriber mutable = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return topicId.equals(ORDERS) ? 2 : -1;
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of("az" + (partition == 0 ? rackOfPartition0[0] : 3 - rackOfPartition0[0]));
            }
        };
        RackwiseGroupAssignor a = assignor();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        assertEquals(AS_PLACED, partitions(a.assign(spec, mutable)));
        rackOfPartition0[0] = 2;
        assertEquals(SWAPPED, partitions(a.assign(spec, mutable)));
    }

    /** A seeded image: 6 brokers in 3 racks (some without a rack), topics of RF 1-3. */
    static MetadataImage randomImage(Random rnd, List<Uuid> topics) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        for (int b = 0; b < 6; b++) {
            RegisterBrokerRecord r = new RegisterBrokerRecord().setBrokerId(b).setBrokerEpoch(1)
                .setIncarnationId(new Uuid(9, b + 1));
            if (b != 5) { // broker 5 has no rack
                r.setRack("az" + (b % 3 + 1));
            }
            delta.replay(r);
        }
        for (int t = 0; t < topics.size(); t++) {
            delta.replay(new TopicRecord().setName("t" + t).setTopicId(topics.get(t)));
            int count = 1 + rnd.nextInt(40);
            for (int p = 0; p < count; p++) {
                List<Integer> brokers = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5));
                java.util.Collections.shuffle(brokers, rnd);
                List<Integer> replicas = brokers.subList(0, 1 + rnd.nextInt(3));
                delta.replay(new PartitionRecord().setTopicId(topics.get(t)).setPartitionId(p).setReplicas(replicas)
                    .setIsr(replicas).setLeader(replicas.get(0)).setLeaderEpoch(0).setPartitionEpoch(0));
            }
        }
        return delta.apply(new MetadataProvenance(100, 1, 0, true));
    }

    @Test
    void keptRacksStateTheSameProblem() throws Exception {
        long seed = 20261129L;
        System.out.println("TopicRacksTest seed " + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 40; round++) {
            List<Uuid> topics = new ArrayList<>();
            for (int t = 0; t < 1 + rnd.nextInt(6); t++) {
                topics.add(new Uuid(round + 1, t + 1));
            }
            MetadataImage image = randomImage(rnd, topics);
            Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
            for (int m = 0; m < 1 + rnd.nextInt(8); m++) {
                Set<Uuid> subs = new java.util.HashSet<>();
                for (Uuid t : topics) {
                    if (rnd.nextInt(3) > 0) {
                        subs.add(t);
                    }
                }
                String rack = rnd.nextInt(4) == 0 ? null : "az" + (1 + rnd.nextInt(3));
                members.put("m" + m, new MemberSubscriptionAndAssignmentImpl(Optional.ofNullable(rack),
                    Optional.empty(), subs, new Assignment(Map.of())));
            }
            GroupSpec spec = new GroupSpecImpl(members, SubscriptionType.HETEROGENEOUS, Map.of());
            TopicRacks.Cache cache = new TopicRacks.Cache();
            String plain = solved(BrokerProblem.indexed(spec, kafkaDescriber(image), Map.of(), AdviceView.NONE,
                GroupCosts.DEFAULT, true, Long.MAX_VALUE));
            for (int call = 0; call < 2; call++) { // the read, then the kept racks
                String kept = solved(BrokerProblem.indexed(spec, kafkaDescriber(image), Map.of(), AdviceView.NONE,
                    GroupCosts.DEFAULT, true, Long.MAX_VALUE, cache));
                assertEquals(plain, kept, "seed " + seed + " round " + round + " call " + call);
            }
        }
    }

    /** The problem's racks and its answer, as text. */
    private static String solved(BrokerProblem.Indexed problem) {
        dev.rackwise.core.Problem p = problem.toProblem();
        return p.racks() + "\n" + p.members() + "\n" + p.topics() + "\n"
            + RackOptimal.solve(problem.problem()).toSolution().assignment();
    }

    @Test
    void threadsOnTwoImagesEachGetTheirOwnAnswer() throws Exception {
        RackwiseGroupAssignor a = assignor();
        GroupSpec spec = twoMembers(Set.of(ORDERS));
        MetadataImage first = before();
        MetadataImage second = swapped(first);
        Map<String, Set<Integer>> onFirst = AS_PLACED;
        Map<String, Set<Integer>> onSecond = SWAPPED;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                int offset = thread;
                Callable<Integer> run = () -> {
                    int wrong = 0;
                    for (int call = 0; call < 300; call++) {
                        boolean useFirst = (call + offset) % 3 != 0;
                        Map<String, Set<Integer>> got = partitions(a.assign(spec,
                            kafkaDescriber(useFirst ? first : second)));
                        if (!got.equals(useFirst ? onFirst : onSecond)) {
                            wrong++;
                        }
                    }
                    return wrong;
                };
                runs.add(pool.submit(run));
            }
            for (Future<Integer> f : runs) {
                assertEquals(0, f.get(), "calls answered from the other image's racks");
            }
        } finally {
            pool.shutdownNow();
        }
        assertNotEquals(onFirst, onSecond);
    }
}
