package dev.rackwise.bench.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.broker.BrokerLookups;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * A grid cell as the group coordinator hands it to a broker-side assignor: a GroupSpecImpl and
 * a describer. In an incremental cell the current target is the same assignor's own result for
 * the members before the join, as in Kafka's benchmark.
 */
public final class BrokerCase {
    /** What is timed; RACKS_PASS reads every partition's racks once and assigns nothing. */
    public enum Assignor { RACKS_PASS, UNIFORM, RANGE, RACKWISE, RACKWISE_WEIGHTED }

    /**
     * The plug-in's warm-up budget in ms (rackwise.warmup.ms): 0 unless this system property
     * says otherwise, since JMH and the CPU drives warm up themselves (ColdDrive sets it).
     */
    public static final String WARMUP_PROPERTY = "bench.rackwise.warmup.ms";

    public final Grid grid;
    public final RackDescriber describer;
    public final ConsumerGroupPartitionAssignor assignor;
    public final GroupSpec spec;
    /** The previous result (incremental), else null. */
    public final GroupAssignment previous;
    private final Map<Uuid, Integer> topicIndex = new HashMap<>();

    public BrokerCase(Grid grid, Assignor which) {
        this.grid = grid;
        this.describer = new RackDescriber(grid);
        for (int t = 0; t < grid.topics; t++) {
            topicIndex.put(grid.topicIds[t], t);
        }
        this.assignor = assignor(grid, which);
        GroupSpec base = spec(grid, null);
        if (grid.incremental && assignor != null) {
            previous = assignor.assign(base, describer);
            spec = spec(grid, previous);
        } else {
            previous = null;
            spec = grid.incremental ? spec(grid, new GroupAssignment(Map.of())) : base;
        }
    }

    static ConsumerGroupPartitionAssignor assignor(Grid grid, Assignor which) {
        switch (which) {
            case UNIFORM:
                return new UniformAssignor();
            case RANGE:
                return new RangeAssignor();
            case RACKWISE:
                return configured(new RackwiseGroupAssignor(settings -> null), -1);
            case RACKWISE_WEIGHTED: {
                Map<Uuid, String> names = new HashMap<>();
                for (int t = 0; t < grid.topics; t++) {
                    names.put(grid.topicIds[t], grid.topicNames[t]);
                }
                GridAdvice advice = new GridAdvice(grid);
                // Names and advice as the background lookups would hold them; plans are dropped.
                BrokerLookups side = new BrokerLookups(ids -> names, members -> Optional.of("g"), advice, plan -> true);
                // The core's weighted cost at every size: no limit (rackwise.weights.max.partitions,
                // by default 10,000, assigns larger groups by count, i.e. at RACKWISE's cost).
                return configured(new RackwiseGroupAssignor(settings -> side), Long.MAX_VALUE);
            }
            default:
                return null;
        }
    }

    private static RackwiseGroupAssignor configured(RackwiseGroupAssignor a, long maxWeighted) {
        Map<String, Object> broker = new HashMap<>();
        if (maxWeighted >= 0) {
            broker.put("rackwise.weights.max.partitions", Long.toString(maxWeighted));
        }
        broker.put("rackwise.warmup.ms", System.getProperty(WARMUP_PROPERTY, "0"));
        broker.put("node.id", "1");
        broker.put("listeners", "PLAINTEXT://127.0.0.1:1,CONTROLLER://127.0.0.1:2");
        broker.put("controller.listener.names", "CONTROLLER");
        broker.put("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector");
        a.configure(broker);
        return a;
    }

    /** The spec before the join (previous == null), or after it with previous as the current target. */
    private static GroupSpec spec(Grid grid, GroupAssignment previous) {
        Map<String, Set<Uuid>> shared = new HashMap<>();
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (int i = 0; i < grid.baseMembers(); i++) {
            String id = Grid.memberId(i);
            Map<Uuid, Set<Integer>> current = Map.of();
            if (previous != null) {
                MemberAssignment ma = previous.members().get(id);
                current = ma == null ? Map.of() : ma.partitions();
                for (Map.Entry<Uuid, Set<Integer>> e : current.entrySet()) {
                    Map<Integer, String> byPartition = inverted.computeIfAbsent(e.getKey(), k -> new HashMap<>());
                    for (int p : e.getValue()) {
                        byPartition.put(p, id);
                    }
                }
            }
            members.put(id, new MemberSubscriptionAndAssignmentImpl(Optional.of(Grid.memberRack(i)), Optional.empty(),
                topicIds(grid, grid.topicsOf(i), shared), new Assignment(current)));
        }
        if (previous != null) {
            members.put(Grid.NEW_MEMBER, new MemberSubscriptionAndAssignmentImpl(Optional.of(grid.newMemberRack()),
                Optional.empty(), topicIds(grid, grid.newMemberTopics(), shared), Assignment.EMPTY));
        }
        return new GroupSpecImpl(members,
            grid.heterogeneous ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS, inverted);
    }

    /** One set per distinct topic list, shared by its members (as the coordinator shares them). */
    private static Set<Uuid> topicIds(Grid grid, int[] topics, Map<String, Set<Uuid>> shared) {
        return shared.computeIfAbsent(Arrays.toString(topics), k -> {
            Set<Uuid> ids = new HashSet<>();
            for (int t : topics) {
                ids.add(grid.topicIds[t]);
            }
            return Set.copyOf(ids);
        });
    }

    /** One pass over every subscribed partition's racks through the describer. */
    public long racksPass() {
        return racksPass(grid, describer);
    }

    /** One pass over every partition's racks of {@code grid} through {@code d}. */
    static long racksPass(Grid grid, SubscribedTopicDescriber d) {
        long seen = 0;
        for (Uuid id : grid.topicIds) {
            int count = d.numPartitions(id);
            for (int p = 0; p < count; p++) {
                seen += d.racksForPartition(id, p).size();
            }
        }
        return seen;
    }

    public GroupAssignment assign() {
        return assignor.assign(spec, describer);
    }

    /** Cross-rack partitions and bytes, moves and balance of {@code result}. */
    public Outcome outcome(GroupAssignment result) {
        List<String> ids = new ArrayList<>(spec.memberIds());
        ids.sort(null);
        List<String> racks = new ArrayList<>();
        List<int[]> topics = new ArrayList<>();
        for (String id : ids) {
            racks.add(spec.memberSubscription(id).rackId().orElse(null));
            int[] ts = spec.memberSubscription(id).subscribedTopicIds().stream().mapToInt(topicIndex::get).toArray();
            Arrays.sort(ts);
            topics.add(ts);
        }
        return Outcome.of(grid, ids, racks, topics, owners(result, ids), previous == null ? null : owners(previous, ids));
    }

    private int[] owners(GroupAssignment a, List<String> ids) {
        int[] owner = new int[(int) grid.partitions()];
        Arrays.fill(owner, -1);
        for (int m = 0; m < ids.size(); m++) {
            MemberAssignment ma = a.members().get(ids.get(m));
            if (ma == null) {
                continue;
            }
            for (Map.Entry<Uuid, Set<Integer>> e : ma.partitions().entrySet()) {
                int t = topicIndex.get(e.getKey());
                for (int p : e.getValue()) {
                    owner[t * grid.partitionsPerTopic + p] = m;
                }
            }
        }
        return owner;
    }
}
