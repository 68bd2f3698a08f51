package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * A rack-optimal problem as indices and primitive arrays: what an adapter that reads Kafka's own
 * objects hands the core, with no {@link Problem} of strings in between (docs/rack-optimal.md
 * § 7). It states the same problem a {@link Problem} does, and {@link RackOptimal#solve(IndexedProblem)}
 * returns the same assignment for it.
 *
 * <p>Members, topics and partitions are numbered by the adapter in any order it likes (the order
 * it reads them in): the core sorts them as § 4 states (members by id, topics by name,
 * partitions by (topic, partition)), so the numbering never changes an answer. A topic that no
 * member subscribes is left out, as in a Problem.
 *
 * <pre>{@code
 * IndexedProblem.Builder b = IndexedProblem.builder(2, 1, 2).racks(List.of("az1", "az2"));
 * int t = b.topic("t", 2);
 * int s = b.subscription(new int[] {t});
 * b.member("m1", "az1", true, s);
 * b.member("m2", "az2", true, s);
 * int az1 = b.rackSet(List.of("az1"));
 * int az2 = b.rackSet(List.of("az2"));
 * b.partition(t, 0, az1, -1, 1.0);
 * b.partition(t, 1, az2, -1, 1.0);
 * IndexedProblem p = b.build(); // m1 gets t-0, m2 gets t-1
 * }</pre>
 *
 * <p>Not thread-safe while building; immutable once built (its arrays are never handed out).
 */
public final class IndexedProblem {
    /** A previous owner that is no longer a member: the partition moves wherever it goes. */
    public static final int GONE = -2;

    final double alpha;
    final double beta;
    final List<String> racks;
    final String[] memberIds;
    final String[] memberRack;
    final boolean[] memberFollowers;
    final int[] memberSub;
    final int[][] subTopics;
    final String[] topicNames;
    /** Topic t's partitions are [topicStart[t], topicStart[t + 1]) in the partition arrays. */
    final int[] topicStart;
    final int[] pRackSet;
    final List<String>[] rackSets;
    final int[] pLeader;
    final String[] leaders;
    /** Null: every partition weighs 1. */
    final double[] pWeight;
    /** An input member index, -1 (none) or {@link #GONE}. */
    final int[] pOwner;

    private IndexedProblem(Builder b) {
        alpha = b.alpha;
        beta = b.beta;
        racks = List.copyOf(b.racks);
        memberIds = Arrays.copyOf(b.memberIds, b.members);
        memberRack = Arrays.copyOf(b.memberRack, b.members);
        memberFollowers = Arrays.copyOf(b.memberFollowers, b.members);
        memberSub = Arrays.copyOf(b.memberSub, b.members);
        subTopics = b.subTopics.toArray(new int[0][]);
        topicNames = Arrays.copyOf(b.topicNames, b.topics);
        topicStart = Arrays.copyOf(b.topicStart, b.topics + 1);
        int parts = topicStart[b.topics];
        pRackSet = Arrays.copyOf(b.pRackSet, parts);
        rackSets = newListArray(b.rackSets.size());
        b.rackSets.toArray(rackSets);
        pLeader = Arrays.copyOf(b.pLeader, parts);
        leaders = b.leaders.toArray(new String[0]);
        pWeight = b.pWeight == null ? null : Arrays.copyOf(b.pWeight, parts);
        pOwner = Arrays.copyOf(b.pOwner, parts);
    }

    /**
     * A builder for about {@code members} members, {@code topics} topics and {@code partitions}
     * partitions (hints: more may be added), costs α = 10 and β = 1 until {@link Builder#costs}.
     */
    public static Builder builder(int members, int topics, int partitions) {
        return new Builder(members, topics, partitions);
    }

    /** How many members. */
    public int members() {
        return memberIds.length;
    }

    /** The id of input member {@code m}. */
    public String memberId(int m) {
        return memberIds[m];
    }

    /** How many topics (subscribed or not). */
    public int topics() {
        return topicNames.length;
    }

    /** How many partitions, over every topic. */
    public int partitions() {
        return topicStart[topicNames.length];
    }

    /**
     * The same problem as a {@link Problem} (for what reads one: plan reports, tests). Topics no
     * member subscribes are left out, as the core leaves them out.
     */
    public Problem toProblem() {
        Problem.Builder b = Problem.builder().racks(racks).costs(alpha, beta);
        boolean[] subscribed = new boolean[topicNames.length];
        List<java.util.Set<String>> sets = new ArrayList<>(subTopics.length);
        for (int[] ts : subTopics) {
            List<String> names = new ArrayList<>(ts.length);
            for (int t : ts) {
                names.add(topicNames[t]);
                subscribed[t] = true;
            }
            sets.add(MemberSpec.topicSet(names));
        }
        for (int m = 0; m < memberIds.length; m++) {
            b.member(memberIds[m], memberRack[m], memberFollowers[m], sets.get(memberSub[m]));
        }
        for (int t = 0; t < topicNames.length; t++) {
            if (!subscribed[t]) {
                continue;
            }
            List<PartitionSpec> specs = new ArrayList<>(topicStart[t + 1] - topicStart[t]);
            String[] owners = null;
            for (int p = topicStart[t]; p < topicStart[t + 1]; p++) {
                specs.add(new PartitionSpec(rackSets[pRackSet[p]], pLeader[p] < 0 ? null : leaders[pLeader[p]],
                        pWeight == null ? 1.0 : pWeight[p]));
                if (pOwner[p] >= 0) {
                    if (owners == null) {
                        owners = new String[topicStart[t + 1] - topicStart[t]];
                    }
                    owners[p - topicStart[t]] = memberIds[pOwner[p]];
                }
            }
            b.topic(topicNames[t], specs);
            if (owners != null) {
                b.previousOwners(topicNames[t], owners);
            }
        }
        return b.build();
    }

    /** A {@link Problem} as indices: members, topics and partitions in its own (sorted) order. */
    static IndexedProblem of(Problem pb) {
        List<MemberSpec> members = pb.members();
        // Subscribed topics: the union of the members' sets, each distinct set once (by identity
        // first: adapters share one set among the members of a subscription).
        java.util.Map<java.util.Set<String>, Integer> setIds = new java.util.HashMap<>();
        java.util.Map<java.util.Set<String>, Integer> sameSet = new java.util.IdentityHashMap<>();
        List<java.util.Set<String>> sets = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>();
        int[] sub = new int[members.size()];
        for (int m = 0; m < members.size(); m++) {
            java.util.Set<String> ts = members.get(m).topics();
            Integer id = sameSet.get(ts);
            if (id == null) {
                id = setIds.computeIfAbsent(ts, x -> {
                    sets.add(x);
                    names.addAll(x);
                    return sets.size() - 1;
                });
                sameSet.put(ts, id);
            }
            sub[m] = id;
        }
        int total = 0;
        for (String t : names) {
            total += pb.topics().getOrDefault(t, List.of()).size();
        }
        Builder b = builder(members.size(), names.size(), total).racks(pb.racks())
                .costs(pb.trafficCost(), pb.moveCost());
        java.util.Map<String, Integer> topicIndex = new java.util.HashMap<>(2 * names.size() + 1);
        for (String t : names) {
            topicIndex.put(t, b.topic(t, pb.topics().getOrDefault(t, List.of()).size()));
        }
        for (java.util.Set<String> ts : sets) {
            int[] ids = new int[ts.size()];
            int i = 0;
            for (String t : ts) {
                ids[i++] = topicIndex.get(t);
            }
            b.subscription(ids);
        }
        java.util.Map<String, Integer> memberIndex = new java.util.HashMap<>(2 * members.size() + 1);
        for (int m = 0; m < members.size(); m++) {
            MemberSpec ms = members.get(m);
            memberIndex.put(ms.id(), b.member(ms.id(), ms.rack(), ms.readsFollowers(), sub[m]));
        }
        java.util.Map<List<String>, Integer> sameRacks = new java.util.IdentityHashMap<>();
        java.util.Map<String, Integer> leaderIds = new java.util.HashMap<>();
        for (String t : names) {
            int ti = topicIndex.get(t);
            List<PartitionSpec> specs = pb.topics().getOrDefault(t, List.of());
            for (int p = 0; p < specs.size(); p++) {
                PartitionSpec s = specs.get(p);
                Integer rs = sameRacks.get(s.replicaRacks());
                if (rs == null) {
                    rs = b.rackSet(s.replicaRacks());
                    if (sameRacks.size() < 1024) {
                        sameRacks.put(s.replicaRacks(), rs);
                    }
                }
                int leader = s.leaderRack() == null ? -1 : leaderIds.computeIfAbsent(s.leaderRack(), b::leader);
                b.partition(ti, p, rs, leader, s.weight());
            }
        }
        pb.ownerArrays().forEach((t, owners) -> {
            Integer ti = topicIndex.get(t);
            if (ti == null) {
                return;
            }
            int count = Math.min(owners.length, pb.topics().getOrDefault(t, List.of()).size());
            for (int p = 0; p < count; p++) {
                if (owners[p] != null) {
                    Integer m = memberIndex.get(owners[p]);
                    b.owner(ti, p, m == null ? GONE : m);
                }
            }
        });
        return b.build();
    }

    /** {@code clusterRacks}, checked: not null, no null rack (both builders' rule). */
    static Collection<String> checkedRacks(Collection<String> clusterRacks) {
        if (clusterRacks == null) {
            throw new CoreInputException("the cluster racks are null (pass an empty list when no broker has a rack)");
        }
        for (String r : clusterRacks) {
            if (r == null) {
                throw new CoreInputException("a cluster rack is null");
            }
        }
        return clusterRacks;
    }

    /** α and β checked: finite and ≥ 0 (both builders' rule). */
    static void checkCosts(double traffic, double move) {
        if (!(traffic >= 0) || Double.isInfinite(traffic)) {
            throw new CoreInputException("traffic_cost must be finite and >= 0, got " + traffic);
        }
        if (!(move >= 0) || Double.isInfinite(move)) {
            throw new CoreInputException("non_overlap_cost must be finite and >= 0, got " + move);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String>[] newListArray(int n) {
        return (List<String>[]) new List<?>[n];
    }

    /** Collects an {@link IndexedProblem}; every method checks its input and says what is wrong. */
    public static final class Builder {
        private double alpha = 10.0;
        private double beta = 1.0;
        private final TreeSet<String> racks = new TreeSet<>();
        private int members;
        private String[] memberIds;
        private String[] memberRack;
        private boolean[] memberFollowers;
        private int[] memberSub;
        private final List<int[]> subTopics = new ArrayList<>();
        private int topics;
        private String[] topicNames;
        private int[] topicStart;
        private int[] pRackSet;
        private final List<List<String>> rackSets = new ArrayList<>();
        private int[] pLeader;
        private final List<String> leaders = new ArrayList<>();
        private double[] pWeight;
        private int[] pOwner;
        private boolean[] pSet;

        private Builder(int members, int topics, int partitions) {
            memberIds = new String[Math.max(members, 4)];
            memberRack = new String[memberIds.length];
            memberFollowers = new boolean[memberIds.length];
            memberSub = new int[memberIds.length];
            topicNames = new String[Math.max(topics, 4)];
            topicStart = new int[topicNames.length + 1];
            int parts = Math.max(partitions, 16);
            pRackSet = new int[parts];
            pLeader = new int[parts];
            pOwner = new int[parts];
            pSet = new boolean[parts];
        }

        /** The cluster's broker racks (duplicates are merged); may be called more than once. */
        public Builder racks(Collection<String> clusterRacks) {
            racks.addAll(checkedRacks(clusterRacks));
            return this;
        }

        /** α ≥ 0 (default 10) and β ≥ 0 (default 1), as {@link Problem.Builder#costs}. */
        public Builder costs(double traffic, double move) {
            checkCosts(traffic, move);
            alpha = traffic;
            beta = move;
            return this;
        }

        /** A topic of {@code count} partitions (none yet described); returns its index. */
        public int topic(String name, int count) {
            if (name == null) {
                throw new CoreInputException("a topic name is null");
            }
            if (count < 0) {
                throw new CoreInputException("topic " + name + " has " + count + " partitions");
            }
            if (topics == topicNames.length) {
                topicNames = Arrays.copyOf(topicNames, 2 * topics);
                topicStart = Arrays.copyOf(topicStart, 2 * topics + 1);
            }
            int from = topicStart[topics];
            long to = (long) from + count;
            if (to > Integer.MAX_VALUE / 4) {
                throw new CoreInputException("too many partitions: " + to);
            }
            if (to > pRackSet.length) {
                int size = (int) Math.max(to, 2L * pRackSet.length);
                pRackSet = Arrays.copyOf(pRackSet, size);
                pLeader = Arrays.copyOf(pLeader, size);
                pOwner = Arrays.copyOf(pOwner, size);
                pSet = Arrays.copyOf(pSet, size);
                if (pWeight != null) {
                    pWeight = Arrays.copyOf(pWeight, size);
                }
            }
            Arrays.fill(pOwner, from, (int) to, -1);
            topicNames[topics] = name;
            topicStart[++topics] = (int) to;
            return topics - 1;
        }

        /** A subscription: distinct topic indices in any order; returns its index. */
        public int subscription(int[] topicIndices) {
            int[] ts = topicIndices.clone();
            Arrays.sort(ts);
            for (int i = 0; i < ts.length; i++) {
                if (ts[i] < 0 || ts[i] >= topics) {
                    throw new CoreInputException("a subscription names topic index " + ts[i] + " of " + topics);
                }
                if (i > 0 && ts[i] == ts[i - 1]) {
                    throw new CoreInputException("a subscription names topic " + topicNames[ts[i]] + " twice");
                }
            }
            subTopics.add(ts);
            return subTopics.size() - 1;
        }

        /**
         * A member: its id, rack (null or empty: unknown), whether it reads from followers
         * (ignored without a rack) and its subscription; returns its index.
         */
        public int member(String id, String rack, boolean readsFollowers, int subscription) {
            if (id == null || id.isEmpty()) {
                throw new CoreInputException("a member id is null or empty");
            }
            if (subscription < 0 || subscription >= subTopics.size()) {
                throw new CoreInputException("member " + id + " has no subscription " + subscription);
            }
            if (members == memberIds.length) {
                int size = 2 * members;
                memberIds = Arrays.copyOf(memberIds, size);
                memberRack = Arrays.copyOf(memberRack, size);
                memberFollowers = Arrays.copyOf(memberFollowers, size);
                memberSub = Arrays.copyOf(memberSub, size);
            }
            String r = rack == null || rack.isEmpty() ? null : rack;
            memberIds[members] = id;
            memberRack[members] = r;
            memberFollowers[members] = readsFollowers && r != null;
            memberSub[members] = subscription;
            return members++;
        }

        /**
         * A replica-rack set (a replica whose broker has no rack left out); returns its index.
         * Adapters add each distinct set once and pass its index for every partition that has it.
         */
        public int rackSet(Collection<String> replicaRacks) {
            TreeSet<String> sorted = new TreeSet<>();
            for (String r : replicaRacks) {
                if (r == null) {
                    throw new CoreInputException("a replica rack is null: leave out replicas whose broker has no rack");
                }
                sorted.add(r);
            }
            rackSets.add(List.copyOf(sorted));
            return rackSets.size() - 1;
        }

        /** A leader rack; returns its index. Adapters add each rack once. */
        public int leader(String rack) {
            if (rack == null) {
                throw new CoreInputException("a leader rack is null (pass -1 for an unknown leader)");
            }
            leaders.add(rack);
            return leaders.size() - 1;
        }

        /**
         * Partition {@code p} of topic {@code topic}: its replica-rack set, its leader rack's
         * index (-1: unknown) and its weight (finite, ≥ 0; 1 when nothing is measured).
         */
        public Builder partition(int topic, int p, int rackSet, int leader, double weight) {
            int at = index(topic, p);
            if (rackSet < 0 || rackSet >= rackSets.size()) {
                throw new CoreInputException("partition " + topicNames[topic] + "-" + p + ": no rack set " + rackSet);
            }
            if (leader < -1 || leader >= leaders.size()) {
                throw new CoreInputException("partition " + topicNames[topic] + "-" + p + ": no leader rack " + leader);
            }
            if (!(weight >= 0) || Double.isInfinite(weight)) {
                throw new CoreInputException("a partition weight must be finite and >= 0, got " + weight);
            }
            pRackSet[at] = rackSet;
            pLeader[at] = leader;
            if (weight != 1.0 && pWeight == null) {
                pWeight = new double[pRackSet.length];
                Arrays.fill(pWeight, 1.0);
            }
            if (pWeight != null) {
                pWeight[at] = weight == 0 ? 0.0 : weight; // -0.0 is 0.0
            }
            pSet[at] = true;
            return this;
        }

        /**
         * The previous owner of a partition: an input member index, or {@link #GONE} for one no
         * longer in the group. Where two members claim it (Kafka never says so; a malformed
         * input might), the one with the smaller id keeps the claim.
         */
        public Builder owner(int topic, int p, int member) {
            int at = index(topic, p);
            if (member == GONE) {
                if (pOwner[at] == -1) {
                    pOwner[at] = GONE;
                }
                return this;
            }
            if (member < 0 || member >= members) {
                throw new CoreInputException("partition " + topicNames[topic] + "-" + p + ": no member " + member);
            }
            int before = pOwner[at];
            if (before < 0 || memberIds[member].compareTo(memberIds[before]) < 0) {
                pOwner[at] = member;
            }
            return this;
        }

        private int index(int topic, int p) {
            if (topic < 0 || topic >= topics) {
                throw new CoreInputException("no topic index " + topic);
            }
            if (p < 0 || p >= topicStart[topic + 1] - topicStart[topic]) {
                throw new CoreInputException("partition " + topicNames[topic] + "-" + p + " is out of range");
            }
            return topicStart[topic] + p;
        }

        /** The problem; every partition of every topic must have been described. */
        public IndexedProblem build() {
            for (int t = 0; t < topics; t++) {
                for (int at = topicStart[t]; at < topicStart[t + 1]; at++) {
                    if (!pSet[at]) {
                        throw new CoreInputException("partition " + topicNames[t] + "-" + (at - topicStart[t])
                                + " was not described");
                    }
                }
            }
            return new IndexedProblem(this);
        }
    }
}
