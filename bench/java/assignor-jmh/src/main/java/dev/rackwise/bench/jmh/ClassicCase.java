package dev.rackwise.bench.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.rackwise.plugins.RackwiseAssignor;
import dev.rackwise.plugins.classic.ClassicLookups;
import dev.rackwise.plugins.publish.PlanSink;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * A grid cell as a classic group's leader sees it: the metadata (two brokers per rack, each
 * partition's replicas on brokers of its two racks, the first leading) and the members'
 * subscriptions with client.rack. In an incremental cell every member lists the partitions the
 * same assignor gave it before, at generation 1, and one member joins with none.
 */
public final class ClassicCase {
    public enum Assignor { COOPERATIVE_STICKY, RACKWISE, RACKWISE_WEIGHTED }

    private static final int BROKERS_PER_RACK = 2;

    public final Grid grid;
    public final Cluster cluster;
    public final ConsumerPartitionAssignor assignor;
    public final GroupSubscription subscription;
    public final GroupAssignment previous;
    private final Map<String, Integer> topicIndex = new HashMap<>();

    public ClassicCase(Grid grid, Assignor which) {
        this.grid = grid;
        this.cluster = cluster(grid);
        for (int t = 0; t < grid.topics; t++) {
            topicIndex.put(grid.topicNames[t], t);
        }
        this.assignor = assignor(grid, which);
        GroupSubscription base = subscription(grid, null);
        if (grid.incremental) {
            previous = assignor.assign(cluster, base);
            subscription = subscription(grid, previous);
        } else {
            previous = null;
            subscription = base;
        }
    }

    private static ConsumerPartitionAssignor assignor(Grid grid, Assignor which) {
        switch (which) {
            case COOPERATIVE_STICKY:
                return new CooperativeStickyAssignor();
            case RACKWISE:
                return configured(new RackwiseAssignor(s -> ClassicLookups.NONE));
            default: {
                ClassicLookups side = new ClassicLookups(new GridAdvice(grid), PlanSink.NONE);
                return configured(new RackwiseAssignor(s -> side));
            }
        }
    }

    private static RackwiseAssignor configured(RackwiseAssignor a) {
        Map<String, Object> consumer = new HashMap<>();
        consumer.put("group.id", "g");
        consumer.put("bootstrap.servers", "127.0.0.1:1");
        consumer.put("partition.assignment.strategy", RackwiseAssignor.class.getName());
        a.configure(consumer);
        return a;
    }

    private static Cluster cluster(Grid grid) {
        Node[] nodes = new Node[Grid.RACKS * BROKERS_PER_RACK];
        for (int id = 0; id < nodes.length; id++) {
            nodes[id] = new Node(id, "broker" + id, 9092, Grid.rack(id % Grid.RACKS));
        }
        List<PartitionInfo> parts = new ArrayList<>();
        for (int t = 0; t < grid.topics; t++) {
            for (int p = 0; p < grid.partitionsPerTopic; p++) {
                int[] racks = grid.replicaRacks[t][p];
                // Which broker of a rack holds the replica does not matter to any assignor here.
                Node[] replicas = {nodes[racks[0] + Grid.RACKS * (p % BROKERS_PER_RACK)],
                    nodes[racks[1] + Grid.RACKS * ((p + 1) % BROKERS_PER_RACK)]};
                parts.add(new PartitionInfo(grid.topicNames[t], p, replicas[0], replicas, replicas));
            }
        }
        return new Cluster("bench", Arrays.asList(nodes), parts, Set.of(), Set.of());
    }

    private static GroupSubscription subscription(Grid grid, GroupAssignment previous) {
        Map<String, List<String>> shared = new HashMap<>();
        Map<String, Subscription> subs = new HashMap<>();
        for (int i = 0; i < grid.baseMembers(); i++) {
            String id = Grid.memberId(i);
            List<TopicPartition> owned = List.of();
            if (previous != null && previous.groupAssignment().get(id) != null) {
                owned = previous.groupAssignment().get(id).partitions();
            }
            subs.put(id, new Subscription(topics(grid, grid.topicsOf(i), shared), null, owned,
                previous == null ? -1 : 1, Optional.of(Grid.memberRack(i))));
        }
        if (previous != null) {
            subs.put(Grid.NEW_MEMBER, new Subscription(topics(grid, grid.newMemberTopics(), shared), null, List.of(),
                -1, Optional.of(grid.newMemberRack())));
        }
        return new GroupSubscription(subs);
    }

    private static List<String> topics(Grid grid, int[] topics, Map<String, List<String>> shared) {
        return shared.computeIfAbsent(Arrays.toString(topics), k -> {
            List<String> names = new ArrayList<>();
            for (int t : topics) {
                names.add(grid.topicNames[t]);
            }
            return List.copyOf(names);
        });
    }

    public GroupAssignment assign() {
        return assignor.assign(cluster, subscription);
    }

    /** Cross-rack partitions and bytes, moves and balance of {@code result}; withheld partitions count as unassigned. */
    public Outcome outcome(GroupAssignment result) {
        Map<String, Subscription> subs = subscription.groupSubscription();
        List<String> ids = new ArrayList<>(subs.keySet());
        ids.sort(null);
        List<String> racks = new ArrayList<>();
        List<int[]> topics = new ArrayList<>();
        for (String id : ids) {
            racks.add(subs.get(id).rackId().orElse(null));
            int[] ts = subs.get(id).topics().stream().mapToInt(topicIndex::get).toArray();
            Arrays.sort(ts);
            topics.add(ts);
        }
        return Outcome.of(grid, ids, racks, topics, owners(result, ids), previous == null ? null : owners(previous, ids));
    }

    private int[] owners(GroupAssignment a, List<String> ids) {
        int[] owner = new int[(int) grid.partitions()];
        Arrays.fill(owner, -1);
        for (int m = 0; m < ids.size(); m++) {
            ConsumerPartitionAssignor.Assignment ma = a.groupAssignment().get(ids.get(m));
            if (ma == null) {
                continue;
            }
            for (TopicPartition tp : ma.partitions()) {
                owner[topicIndex.get(tp.topic()) * grid.partitionsPerTopic + tp.partition()] = m;
            }
        }
        return owner;
    }
}
