package dev.rackwise.bench.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.apache.kafka.common.Uuid;

/**
 * One cell of Kafka's ServerSideAssignorBenchmark grid with racks that matter, built from a
 * fixed seed so every assignor and both seams see the same cluster and group.
 *
 * <p>As in Kafka's benchmark: {@code members x partitionsPerMember / topics} partitions per
 * topic; member i sits in rack {@code i % 3}; heterogeneous subscriptions split members and
 * topics into 5 buckets (a bucket's members subscribe to its topics); an incremental case
 * assigns {@code members - 1} members first and then member "newMember" joins, with the
 * subscription of member {@code members - 2} and the rack of member {@code members - 1}.
 *
 * <p>Unlike Kafka's benchmark (every partition in all three racks, which no placement can
 * exploit) each partition has RF 2: replicas in two distinct racks, drawn from the seed, the
 * first one leading. Weights are bytes/s, uniform in [1000, 10000) with about 10% hot
 * partitions at 20x.
 *
 * <p>Example: 100 members x 10 per member over 10 topics: topics topic-0..topic-9 of 100
 * partitions each; member7 is in rack1.
 */
public final class Grid {
    public static final int RACKS = 3;
    private static final String[] RACK_NAMES = {"rack0", "rack1", "rack2"};
    static final int BUCKETS = 5;
    static final long SEED = 19L;
    public static final String NEW_MEMBER = "newMember";

    public final int members;
    public final int topics;
    public final int partitionsPerTopic;
    public final boolean heterogeneous;
    public final boolean incremental;
    public final Uuid[] topicIds;
    public final String[] topicNames;
    /** Per topic and partition: the replicas' racks, leader first (two distinct of 0..2). */
    public final int[][][] replicaRacks;
    /** The same as sets of rack names, built once (what a describer hands out). */
    public final List<List<Set<String>>> rackSets;
    /** Per topic and partition: bytes/s. */
    public final double[][] bytes;
    public final double meanBytes;

    public Grid(int members, int partitionsPerMember, int topics, boolean heterogeneous, boolean incremental) {
        this.members = members;
        this.topics = topics;
        this.partitionsPerTopic = members * partitionsPerMember / topics;
        this.heterogeneous = heterogeneous;
        this.incremental = incremental;
        // The seed does not depend on the cell's other parameters, so two cells that share a
        // topic count and size share their cluster.
        Random rnd = new Random(SEED);
        topicIds = new Uuid[topics];
        topicNames = new String[topics];
        replicaRacks = new int[topics][partitionsPerTopic][];
        rackSets = new ArrayList<>(topics);
        bytes = new double[topics][partitionsPerTopic];
        double total = 0;
        for (int t = 0; t < topics; t++) {
            topicIds[t] = new Uuid(rnd.nextLong() | 1L << 62, rnd.nextLong());
            topicNames[t] = "topic-" + t;
            List<Set<String>> sets = new ArrayList<>(partitionsPerTopic);
            for (int p = 0; p < partitionsPerTopic; p++) {
                int first = rnd.nextInt(RACKS);
                int second = (first + 1 + rnd.nextInt(RACKS - 1)) % RACKS;
                replicaRacks[t][p] = new int[] {first, second};
                sets.add(Set.of(rack(first), rack(second)));
                double w = 1000 + rnd.nextInt(9000);
                if (rnd.nextInt(10) == 0) {
                    w *= 20;
                }
                bytes[t][p] = w;
                total += w;
            }
            rackSets.add(sets);
        }
        meanBytes = total / Math.max(1, (long) topics * partitionsPerTopic);
    }

    /**
     * Rack r's name: one string per rack, shared by every set, as a broker's metadata image
     * holds one per broker (Kafka's describer builds each partition's set from them).
     */
    public static String rack(int r) {
        return RACK_NAMES[r];
    }

    public long partitions() {
        return (long) topics * partitionsPerTopic;
    }

    /** Members before the incremental join (all of them in a full assignment). */
    public int baseMembers() {
        return incremental ? members - 1 : members;
    }

    public static String memberId(int i) {
        return "member" + i;
    }

    public static String memberRack(int i) {
        return rack(i % RACKS);
    }

    /** The rack of the member that joins in the incremental case. */
    public String newMemberRack() {
        return memberRack(members - 1);
    }

    /** Topic indices member {@code i} of the base members subscribes to. */
    public int[] topicsOf(int i) {
        if (!heterogeneous) {
            int[] all = new int[topics];
            for (int t = 0; t < topics; t++) {
                all[t] = t;
            }
            return all;
        }
        int n = baseMembers();
        int buckets = Math.min(BUCKETS, n);
        int topicsPerBucket = (topics + buckets - 1) / buckets;
        int membersPerBucket = (n + buckets - 1) / buckets;
        int bucket = i / membersPerBucket;
        int from = bucket * topicsPerBucket;
        int to = Math.min(from + topicsPerBucket, topics);
        int[] mine = new int[Math.max(0, to - from)];
        for (int t = from; t < to; t++) {
            mine[t - from] = t;
        }
        return mine;
    }

    /** Topic indices of the joining member: as member {@code members - 2} (Kafka's choice). */
    public int[] newMemberTopics() {
        return topicsOf(members - 2);
    }

    /** Whether a member of {@code rack} reads partition (t, p) from a replica in its own rack. */
    public boolean local(String memberRack, int t, int p) {
        for (int r : replicaRacks[t][p]) {
            if (rack(r).equals(memberRack)) {
                return true;
            }
        }
        return false;
    }
}
