package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import dev.rackwise.core.IndexedProblem;
import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.Problem;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * A KIP-848 GroupSpec as a rack-optimal {@link Problem}, and the solution back as the
 * coordinator's GroupAssignment. Everything comes from the coordinator's own inputs and the
 * advice already held: nothing here touches the network.
 *
 * <p>Topics are named by their ids in the problem (a topic id is never reused, and the
 * coordinator speaks ids); {@code names} only lets advice, which is keyed by topic name,
 * reach them. A member reads from followers when it has a rack and this broker runs
 * RackAwareReplicaSelector. The current target assignment is the previous owner of each
 * partition, so the solver keeps what costs nothing to keep.
 *
 * <p>Example: members a (az1) and b (az2), one topic whose partition 0 lives only in az1 and
 * partition 1 only in az2: a gets 0, b gets 1.
 */
public final class BrokerProblem {
    private BrokerProblem() {
    }

    /** The problem of one assign() call, every partition weighted by the advice. */
    public static Problem of(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                             AdviceView advice, GroupCosts costs, boolean followerFetching) {
        return of(spec, topics, names, advice, costs, followerFetching, Long.MAX_VALUE);
    }

    /**
     * The problem of one assign() call. The advice's weights apply only when the group's
     * subscribed topics hold at most {@code maxWeighted} partitions; past that every partition
     * weighs 1 (rack-optimal by partition count, leader racks still from the advice), because
     * distinct weights make one type per partition (docs/rack-optimal.md § 7) and the call's
     * cost on the coordinator thread grows with them.
     */
    public static Problem of(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                             AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted) {
        return indexed(spec, topics, names, advice, costs, followerFetching, maxWeighted).toProblem();
    }

    /**
     * One assign() call's problem as the core's indices, read straight from the coordinator's
     * objects (no {@link Problem} of strings in between; docs/rack-optimal.md § 7), and the
     * topic id of each topic index, so that the answer goes back without parsing a key. States
     * the same problem {@link #of} does: the core gives the same assignment for both.
     */
    public record Indexed(IndexedProblem problem, Uuid[] topicIds, MemberAssignment[] current, int[] currentSizes,
                          Map<Uuid, String> names) {
        /** The problem as a {@link Problem} (plan reports, off the assignment path). */
        public Problem toProblem() {
            return problem.toProblem();
        }
    }

    /** As {@link #of(GroupSpec, SubscribedTopicDescriber, Map, AdviceView, GroupCosts, boolean, long)}, as indices. */
    public static Indexed indexed(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                                  AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted) {
        return indexed(spec, topics, names, advice, costs, followerFetching, maxWeighted, TopicRacks.Cache.NONE);
    }

    /**
     * As {@link #indexed(GroupSpec, SubscribedTopicDescriber, Map, AdviceView, GroupCosts, boolean, long)},
     * with replica racks kept in {@code racksCache} across calls on the same metadata (never
     * stale: {@link TopicRacks.Cache}). The problem is the same with or without it.
     */
    public static Indexed indexed(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                                  AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted,
                                  TopicRacks.Cache racksCache) {
        return indexed(spec, topics, ids -> names, advice, costs, followerFetching, maxWeighted, racksCache);
    }

    /**
     * As {@link #indexed(GroupSpec, SubscribedTopicDescriber, Map, AdviceView, GroupCosts, boolean, long,
     * TopicRacks.Cache)}, asking {@code names} only for the problem's topics (subscribed and
     * known to the describer), once per call.
     */
    public static Indexed indexed(GroupSpec spec, SubscribedTopicDescriber topics, TopicNames names,
                                  AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted,
                                  TopicRacks.Cache racksCache) {
        return indexed(spec, topics, names, advice, costs, followerFetching, maxWeighted, racksCache, HeldTargets.NONE);
    }

    /**
     * As {@link #indexed(GroupSpec, SubscribedTopicDescriber, TopicNames, AdviceView, GroupCosts, boolean,
     * long, TopicRacks.Cache)}, with members' current targets kept in {@code heldCache} across
     * calls by the identity of Kafka's immutable stored assignments ({@link HeldTargets}). The
     * problem is the same with or without it.
     */
    public static Indexed indexed(GroupSpec spec, SubscribedTopicDescriber topics, TopicNames names,
                                  AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted,
                                  TopicRacks.Cache racksCache, HeldTargets heldCache) {
        int n = spec.memberIds().size();
        String[] memberIds = new String[n];
        String[] memberRacks = new String[n];
        MemberAssignment[] current = new MemberAssignment[n];
        int[] subOf = new int[n];
        // Present topics: subscribed and known to the describer (a deleted or not yet known
        // topic can be given to nobody), numbered as first met.
        TopicIndex topicIndex = new TopicIndex();
        List<Uuid> ids = new ArrayList<>();
        IntArray counts = new IntArray();
        // Each distinct subscription once, as its present topics' indices. A coordinator hands
        // each member a TopicIds of its own, a view whose hashCode hashes the metadata image,
        // every partition (4.1-4.4, read from the bytecode), so a subscription is never a map key
        // here: a group Kafka calls HOMOGENEOUS (every member subscribes every topic, as its own
        // UniformAssignor trusts) reads the first member's set once; otherwise each set object is
        // read once (by identity) and told apart by its topic indices.
        boolean homogeneous = spec.subscriptionType() == SubscriptionType.HOMOGENEOUS;
        Map<Set<Uuid>, Integer> seen = new IdentityHashMap<>();
        Map<SubKey, Integer> distinct = new HashMap<>();
        List<int[]> subTopics = new ArrayList<>();
        int firstSize = -1;
        int i = 0;
        for (String m : spec.memberIds()) {
            MemberSubscription sub = spec.memberSubscription(m);
            Set<Uuid> set = sub.subscribedTopicIds();
            Integer s = seen.get(set);
            if (s == null && homogeneous && i > 0 && set.size() == firstSize) {
                s = 0;
            }
            if (s == null) {
                IntArray mine = new IntArray();
                for (Uuid id : set) {
                    int t = topicIndex.get(id);
                    if (t == TopicIndex.ABSENT) {
                        int count = topics.numPartitions(id);
                        t = count < 0 ? -1 : ids.size();
                        topicIndex.put(id, t);
                        if (count >= 0) {
                            ids.add(id);
                            counts.add(count);
                        }
                    }
                    if (t >= 0) {
                        mine.add(t);
                    }
                }
                int[] key = mine.toArray();
                java.util.Arrays.sort(key);
                s = distinct.computeIfAbsent(new SubKey(key), k -> {
                    subTopics.add(k.topics());
                    return subTopics.size() - 1;
                });
                seen.put(set, s);
            }
            if (i == 0) {
                firstSize = set.size();
            }
            memberIds[i] = m;
            Optional<String> rack = sub.rackId();
            memberRacks[i] = rack.isPresent() && !rack.get().isEmpty() ? rack.get() : null;
            current[i] = spec.memberAssignment(m); // while the member's entry is at hand
            subOf[i++] = s;
        }
        long total = 0;
        for (int t = 0; t < ids.size(); t++) {
            total += counts.get(t);
        }
        Map<Uuid, String> known = ids.isEmpty() ? Map.of() : names.known(new HashSet<>(ids));
        boolean useWeights = total <= maxWeighted;
        IndexedProblem.Builder b = IndexedProblem.builder(n, ids.size(), (int) Math.min(total, 1 << 24))
            .costs(costs.trafficCost(), costs.nonOverlapCost());
        for (int t = 0; t < ids.size(); t++) {
            b.topic(ids.get(t).toString(), counts.get(t));
        }
        for (int[] ts : subTopics) {
            b.subscription(ts);
        }
        for (int k = 0; k < n; k++) {
            b.member(memberIds[k], memberRacks[k], followerFetching && memberRacks[k] != null, subOf[k]);
        }
        Set<String> racks = new TreeSet<>();
        RackSets rackSets = new RackSets();
        Map<String, Integer> leaders = new HashMap<>();
        TopicRacks.Cache.Lookup lookup = racksCache.forCall(topics);
        int[] setIds = new int[8];
        for (int t = 0; t < ids.size(); t++) {
            Uuid id = ids.get(t);
            String name = known.get(id);
            int count = counts.get(t);
            // each distinct rack set of the topic once, in the order of its first partition:
            // the problem's rack-set indices come out as a pass over every partition gives them
            TopicRacks topicRacks = lookup.racks(id, count);
            if (setIds.length < topicRacks.distinct()) {
                setIds = new int[topicRacks.distinct()];
            }
            for (int j = 0; j < topicRacks.distinct(); j++) {
                setIds[j] = rackSets.id(topicRacks.set(j), racks, b);
            }
            for (int p = 0; p < count; p++) {
                int set = setIds[topicRacks.setOf(p)];
                int leader = -1;
                double weight = 1.0;
                if (name != null) {
                    String lr = advice.leaderRack(name, p);
                    if (lr != null) {
                        Integer l = leaders.get(lr);
                        if (l == null) {
                            l = b.leader(lr);
                            leaders.put(lr, l);
                        }
                        leader = l;
                    }
                    if (useWeights) {
                        weight = advice.weight(name, p);
                    }
                }
                b.partition(t, p, set, leader, weight);
            }
        }
        b.racks(racks);
        // The current target is the previous owner; the first member by id wins a (malformed) tie.
        // Each member's target as flat arrays: read from Kafka's maps only where it changed
        // since a call that read it (HeldTargets), so a topic is found by its id's bits.
        HeldTargets.Held[] held = heldCache.of(current);
        int[] currentSizes = new int[n];
        for (int k = 0; k < n; k++) {
            HeldTargets.Held h = held[k];
            currentSizes[k] = h.size();
            for (int j = 0; j < h.topics(); j++) {
                int t = topicIndex.get(h.hi[j], h.lo[j]);
                if (t < 0) {
                    continue;
                }
                int count = counts.get(t);
                for (int at = h.start[j]; at < h.start[j + 1]; at++) {
                    int p = h.parts[at];
                    if (p >= 0 && p < count) {
                        b.owner(t, p, k);
                    }
                }
            }
        }
        return new Indexed(b.build(), ids.toArray(new Uuid[0]), current, currentSizes, known);
    }

    /** The indexed solution as the coordinator's target assignment: every member present. */
    public static GroupAssignment assignment(Indexed problem, IndexedSolution solution) {
        IndexedProblem in = problem.problem();
        Uuid[] topicIds = problem.topicIds();
        int n = in.members();
        Map<String, MemberAssignment> out = new HashMap<>(2 * n);
        int[] ts = new int[solution.maxCount()];
        int[] ps = new int[ts.length];
        for (int m = 0; m < n; m++) {
            if (solution.count(m) == problem.currentSizes()[m] && solution.allPreviouslyOwned(m)) {
                // what it holds now, exactly (a subset of the same size): Kafka's own object, as uniform does
                out.put(in.memberId(m), problem.current()[m]);
                continue;
            }
            int size = solution.fill(m, ts, ps);
            int runs = 1;
            for (int i = 1; i < size; i++) {
                if (ts[i] != ts[i - 1]) {
                    runs++;
                }
            }
            Map<Uuid, Set<Integer>> parts = new HashMap<>(runs * 4 / 3 + 1, 0.75f); // no rehash
            for (int i = 0; i < size;) { // (topic, partition) order: a topic is one run
                int j = i + 1;
                while (j < size && ts[j] == ts[i]) {
                    j++;
                }
                parts.put(topicIds[ts[i]], new PartitionSet(java.util.Arrays.copyOfRange(ps, i, j)));
                i = j;
            }
            out.put(in.memberId(m), new TargetAssignment(parts));
        }
        return new GroupAssignment(out);
    }

    /**
     * Topic id to topic index (-1: not known to the describer), open addressing on the id's
     * bits: looked up once per member and topic of the current target, so no boxing and no
     * node per entry.
     */
    private static final class TopicIndex {
        static final int ABSENT = Integer.MIN_VALUE;
        private long[] his = new long[16];
        private long[] los = new long[16];
        private boolean[] used = new boolean[16];
        private int[] values = new int[16];
        private int size;

        int get(Uuid id) {
            return get(id.getMostSignificantBits(), id.getLeastSignificantBits());
        }

        int get(long hi, long lo) {
            int mask = used.length - 1;
            for (int i = slot(hi, lo, mask);; i = (i + 1) & mask) {
                if (!used[i]) {
                    return ABSENT;
                }
                if (his[i] == hi && los[i] == lo) {
                    return values[i];
                }
            }
        }

        void put(Uuid id, int value) {
            put(id.getMostSignificantBits(), id.getLeastSignificantBits(), value);
        }

        private void put(long hi, long lo, int value) {
            if (2 * (size + 1) > used.length) {
                long[] oldHis = his;
                long[] oldLos = los;
                boolean[] oldUsed = used;
                int[] oldValues = values;
                his = new long[2 * oldUsed.length];
                los = new long[his.length];
                used = new boolean[his.length];
                values = new int[his.length];
                size = 0;
                for (int i = 0; i < oldUsed.length; i++) {
                    if (oldUsed[i]) {
                        put(oldHis[i], oldLos[i], oldValues[i]);
                    }
                }
            }
            int mask = used.length - 1;
            for (int i = slot(hi, lo, mask);; i = (i + 1) & mask) {
                if (!used[i]) {
                    used[i] = true;
                    his[i] = hi;
                    los[i] = lo;
                    values[i] = value;
                    size++;
                    return;
                }
                if (his[i] == hi && los[i] == lo) {
                    values[i] = value;
                    return;
                }
            }
        }

        private static int slot(long hi, long lo, int mask) {
            long h = (hi ^ lo) * 0x9E3779B97F4A7C15L;
            return (int) (h >>> 32) & mask;
        }
    }

    /** A subscription's present topic indices, ascending: a map key by content. */
    private record SubKey(int[] topics) {
        @Override
        public boolean equals(Object o) {
            return o instanceof SubKey k && java.util.Arrays.equals(topics, k.topics);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(topics);
        }
    }

    /** A growable int array. */
    private static final class IntArray {
        private int[] a = new int[8];
        private int size;

        void add(int v) {
            if (size == a.length) {
                a = java.util.Arrays.copyOf(a, 2 * size);
            }
            a[size++] = v;
        }

        int get(int i) {
            return a[i];
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(a, size);
        }
    }

    /**
     * Each distinct replica-rack set as one index of the problem, in the order the call first
     * meets it. Asked once per distinct set of each topic ({@link TopicRacks} tells a topic's
     * partitions apart), so a map by the sets' content is enough.
     */
    private static final class RackSets {
        private final Map<Set<String>, Integer> ids = new HashMap<>();

        /** The index of {@code set}'s rack set; a new set is added to the builder, its racks to {@code seen}. */
        int id(Set<String> set, Set<String> seen, IndexedProblem.Builder b) {
            Integer known = ids.get(set);
            if (known != null) {
                return known;
            }
            int id = b.rackSet(set);
            seen.addAll(set);
            ids.put(set, id);
            return id;
        }
    }
}
