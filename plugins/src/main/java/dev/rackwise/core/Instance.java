package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@link Problem} as int ids and primitive arrays, everything in sorted order: members by id,
 * places by (rack or "", reads followers), classes by their first topic, partitions by
 * (topic, partition), so a partition's index is its (topic, partition) rank. Also the types,
 * kinds and owned partitions of docs/rack-optimal.md § 4.1 and the exact integer units of § 2.
 *
 * <p>Classes are built from per-topic subscriber lists ({@code O(S)}, S the subscription
 * entries), never as a class &times; member table: a member's classes are a sorted int array.
 */
final class Instance {
    static final int NO_OWNER = -1;
    /** Had an owner that cannot keep it (gone, or no longer subscribed): a move anywhere. */
    static final int LOST_OWNER = -2;

    final double alpha;
    final double beta;
    final int racks;
    /** D = max(R, 1): D x share is one of 0, D-1, D. */
    final int d;
    /** round(1000 β) x D: the integer units of one move. */
    final long moveUnit;

    final String[] memberIds;
    final int n;
    final int[] placeOf;
    final int places;

    final String[] topicNames;
    final int[] classSize;
    /** Per class, its subscribers (member indices, ascending). */
    final int[][] classMembers;
    /** Per member, the classes it subscribes (ascending): its signature. */
    final int[][] memberClasses;

    final int parts;
    final int[] pTopic;
    final int[] pNum;
    final double[] pWeight;
    final int[] pClass;
    /** The raw previous owner: a member index, {@link #NO_OWNER} or {@link #LOST_OWNER}. */
    final int[] pOwner;
    /** The owner that can keep it (subscribes its topic), else NO_OWNER: "owned" of § 4.1. */
    final int[] pKeeper;
    final int[] pType;
    final boolean sameWeights;
    final double totalWeight;

    /** Types (§ 4.1), indexed by their first partition. */
    final int types;
    final int[] tClass;
    /** round(1000 α w) of the type's weight. */
    final long[] tTraffic;
    /** D x share, per type and place: {@code tShare[t * places + place]}. */
    final int[] tShare;

    /**
     * Per member, its owned partitions sorted by (type, partition): {@code owned[ownedStart[m]
     * .. ownedStart[m + 1])}.
     */
    final int[] ownedStart;
    final int[] owned;

    Instance(Problem pb) {
        alpha = pb.trafficCost();
        beta = pb.moveCost();
        List<String> clusterRacks = pb.racks();
        racks = clusterRacks.size();
        d = Math.max(racks, 1);
        double mv = Math.rint(1000 * beta) * d;
        if (mv >= 0x1p62) {
            throw new CoreInputException("costs too large to solve exactly: lower non_overlap_cost");
        }
        moveUnit = (long) mv;

        List<MemberSpec> members = pb.members();
        n = members.size();
        memberIds = new String[n];
        Map<String, Integer> memberIndex = new HashMap<>(2 * n + 1);
        // Places: each member's (rack, reads followers) as a slot, 2 x (its rack's index in
        // order of first sight, the unknown rack first) + followers; then the few distinct
        // slots sorted into place order. One string-keyed lookup per member, by its rack.
        Map<String, Integer> rackSlot = new HashMap<>();
        List<String> slotRack = new ArrayList<>();
        slotRack.add(null);
        int[] memberSlot = new int[n];
        for (int m = 0; m < n; m++) {
            MemberSpec ms = members.get(m);
            memberIds[m] = ms.id();
            memberIndex.put(memberIds[m], m);
            int r = 0;
            if (ms.rack() != null) {
                r = rackSlot.computeIfAbsent(ms.rack(), x -> {
                    slotRack.add(x);
                    return slotRack.size() - 1;
                });
            }
            memberSlot[m] = 2 * r + (ms.readsFollowers() ? 1 : 0);
        }
        TreeSet<PlaceKey> placeSet = new TreeSet<>();
        boolean[] slotSeen = new boolean[2 * slotRack.size()];
        for (int m = 0; m < n; m++) {
            if (!slotSeen[memberSlot[m]]) {
                slotSeen[memberSlot[m]] = true;
                placeSet.add(new PlaceKey(slotRack.get(memberSlot[m] / 2), memberSlot[m] % 2 == 1));
            }
        }
        places = placeSet.size();
        String[] placeRack = new String[places];
        boolean[] placeFollowers = new boolean[places];
        int[] slotPlace = new int[slotSeen.length];
        int pi = 0;
        for (PlaceKey k : placeSet) {
            placeRack[pi] = k.rack;
            placeFollowers[pi] = k.followers;
            int r = k.rack == null ? 0 : rackSlot.get(k.rack);
            slotPlace[2 * r + (k.followers ? 1 : 0)] = pi++;
        }
        placeOf = new int[n];
        boolean byLeader = false;
        for (int m = 0; m < n; m++) {
            placeOf[m] = slotPlace[memberSlot[m]];
            byLeader |= memberSlot[m] % 2 == 0;
        }

        // Members with the same topic set form a group (groups by their first member): most
        // groups have few subscriptions and many members, so the classes are built over the
        // groups and members of a group share one class array (§ 7: O(N + Σ over groups)).
        Map<Set<String>, Integer> groupIndex = new HashMap<>();
        List<Set<String>> groupTopics = new ArrayList<>();
        List<IntList> groupMembers = new ArrayList<>();
        int[] memberGroup = new int[n];
        for (int m = 0; m < n; m++) {
            Set<String> ts = members.get(m).topics();
            Integer g = groupIndex.get(ts);
            if (g == null) {
                g = groupTopics.size();
                groupIndex.put(ts, g);
                groupTopics.add(ts);
                groupMembers.add(new IntList());
            }
            memberGroup[m] = g;
            groupMembers.get(g).add(m);
        }
        int groups = groupTopics.size();
        // Subscribed topics, sorted; a topic's subscribing groups (ascending) name its class
        // (groups are disjoint, so the same groups is the same subscribers).
        Map<String, IntList> subs = new HashMap<>();
        for (int g = 0; g < groups; g++) {
            for (String t : groupTopics.get(g)) {
                subs.computeIfAbsent(t, k -> new IntList()).add(g);
            }
        }
        topicNames = subs.keySet().toArray(new String[0]);
        Arrays.sort(topicNames);
        Map<IntList, Integer> classIndex = new HashMap<>();
        List<int[]> classList = new ArrayList<>();
        IntList sizes = new IntList();
        int[] topicClass = new int[topicNames.length];
        int[] topicStart = new int[topicNames.length + 1];
        long total = 0;
        for (int t = 0; t < topicNames.length; t++) {
            IntList key = subs.get(topicNames[t]);
            Integer c = classIndex.get(key);
            if (c == null) {
                c = classList.size();
                classIndex.put(key, c);
                classList.add(key.toArray());
                sizes.add(0);
            }
            topicClass[t] = c;
            int count = pb.topics().getOrDefault(topicNames[t], List.of()).size();
            sizes.a[c] += count;
            total += count;
            if (total > Integer.MAX_VALUE / 4) {
                throw new CoreInputException("too many partitions: " + total);
            }
            topicStart[t + 1] = (int) total;
        }
        int classes = classList.size();
        classSize = sizes.toArray();
        // Per class its members (ascending): its groups' members merged.
        classMembers = new int[classes][];
        IntList[] groupClasses = new IntList[groups];
        for (int g = 0; g < groups; g++) {
            groupClasses[g] = new IntList();
        }
        for (int c = 0; c < classes; c++) {
            int[] gs = classList.get(c);
            int size = 0;
            for (int g : gs) {
                size += groupMembers.get(g).size;
                groupClasses[g].add(c);
            }
            int[] ms = new int[size];
            int at = 0;
            for (int g : gs) {
                System.arraycopy(groupMembers.get(g).a, 0, ms, at, groupMembers.get(g).size);
                at += groupMembers.get(g).size;
            }
            if (gs.length > 1) {
                Arrays.sort(ms);
            }
            classMembers[c] = ms;
        }
        // Per member its classes (ascending), one array per group, shared (read-only).
        int[][] byGroup = new int[groups][];
        for (int g = 0; g < groups; g++) {
            byGroup[g] = groupClasses[g].toArray();
        }
        memberClasses = new int[n][];
        for (int m = 0; m < n; m++) {
            memberClasses[m] = byGroup[memberGroup[m]];
        }

        parts = (int) total;
        pTopic = new int[parts];
        pNum = new int[parts];
        pWeight = new double[parts];
        pClass = new int[parts];
        pOwner = new int[parts];
        pKeeper = new int[parts];
        pType = new int[parts];
        Arrays.fill(pOwner, NO_OWNER);
        Map<String, Integer> topicIndex = new HashMap<>(2 * topicNames.length + 1);
        for (int t = 0; t < topicNames.length; t++) {
            topicIndex.put(topicNames[t], t);
        }
        for (Map.Entry<String, String[]> e : pb.ownerArrays().entrySet()) {
            Integer t = topicIndex.get(e.getKey());
            if (t == null) {
                continue;
            }
            String[] owners = e.getValue();
            int count = Math.min(owners.length, topicStart[t + 1] - topicStart[t]);
            String last = null;
            int lastIndex = LOST_OWNER;
            for (int k = 0; k < count; k++) {
                String o = owners[k];
                if (o != null) {
                    if (!o.equals(last)) { // runs of one owner are common: one lookup per run
                        Integer om = memberIndex.get(o);
                        last = o;
                        lastIndex = om == null ? LOST_OWNER : om;
                    }
                    pOwner[topicStart[t] + k] = lastIndex;
                }
            }
        }
        // Types: replica-rack sets and leader racks as ints, so type keys hash no strings.
        Map<List<String>, Integer> racksOf = new HashMap<>();
        Map<List<String>, Integer> sameRacks = new java.util.IdentityHashMap<>();
        Ids<List<String>> racksIds = new Ids<>();
        Ids<String> leaderIds = new Ids<>();
        TypeTable typeTable = new TypeTable();
        List<String> lastRacks = null; // the last partition's list, and its id
        int racksKey = -1;
        String lastLeader = null; // the last partition's leader rack, and its id
        int leaderKey = -1;
        int[] ownedCount = new int[n + 1];
        double w0 = 0;
        boolean same = true;
        double sum = 0;
        int p = 0;
        for (int t = 0; t < topicNames.length; t++) {
            List<PartitionSpec> specs = pb.topics().getOrDefault(topicNames[t], List.of());
            int c = topicClass[t];
            for (int k = 0; k < specs.size(); k++, p++) {
                PartitionSpec s = specs.get(k);
                pTopic[p] = t;
                pNum[p] = k;
                double w = s.weight() == 0 ? 0.0 : s.weight(); // -0.0 is 0.0
                pWeight[p] = w;
                sum += w;
                if (p == 0) {
                    w0 = w;
                } else if (w != w0) {
                    same = false;
                }
                pClass[p] = c;
                int o = pOwner[p];
                pKeeper[p] = o >= 0 && Arrays.binarySearch(memberClasses[o], c) >= 0 ? o : NO_OWNER;
                if (pKeeper[p] >= 0) {
                    ownedCount[o + 1]++;
                }
                List<String> rr = s.replicaRacks();
                if (rr != lastRacks) { // adapters share one list per rack set
                    Integer key = sameRacks.get(rr);
                    if (key == null) {
                        key = racksOf.get(rr);
                        if (key == null) {
                            key = racksIds.of(List.copyOf(new TreeSet<>(rr)));
                            racksOf.put(rr, key);
                        }
                        if (sameRacks.size() < 1024) { // adapters that share lists need a few
                            sameRacks.put(rr, key);
                        }
                    }
                    lastRacks = rr;
                    racksKey = key;
                }
                String lr = byLeader ? s.leaderRack() : null;
                if (lr == null) {
                    leaderKey = -1;
                    lastLeader = null;
                } else if (!lr.equals(lastLeader)) {
                    leaderKey = leaderIds.of(lr);
                    lastLeader = lr;
                }
                pType[p] = typeTable.of(c, racksKey, leaderKey, Double.doubleToLongBits(w));
            }
        }
        sameWeights = same;
        totalWeight = sum;
        types = typeTable.size();
        tClass = new int[types];
        tTraffic = new long[types];
        tShare = new int[types * places];
        Map<Long, int[]> shares = new HashMap<>();
        for (int g = 0; g < types; g++) {
            tClass[g] = typeTable.cls(g);
            int kRacks = typeTable.racks(g);
            int kLeader = typeTable.leader(g);
            double w = Double.longBitsToDouble(typeTable.weightBits(g));
            double units = Math.rint(1000 * alpha * w) * d;
            if (units >= 0x1p62) {
                throw new CoreInputException("costs too large to solve exactly: lower traffic_cost or weights");
            }
            tTraffic[g] = (long) Math.rint(1000 * alpha * w);
            // The shares depend on the replica and leader racks alone.
            int[] row = shares.computeIfAbsent(((long) kRacks << 32) | (kLeader & 0xFFFFFFFFL), x -> {
                int[] r = new int[places];
                for (int q = 0; q < places; q++) {
                    r[q] = shareUnits(racksIds.value(kRacks), kLeader < 0 ? null : leaderIds.value(kLeader),
                            placeRack[q], placeFollowers[q], clusterRacks);
                }
                return r;
            });
            System.arraycopy(row, 0, tShare, g * places, places);
        }
        // Owned partitions per member, by (type, partition).
        for (int m = 0; m < n; m++) {
            ownedCount[m + 1] += ownedCount[m];
        }
        ownedStart = ownedCount;
        int[] fill = Arrays.copyOf(ownedStart, n);
        long[] byType = new long[ownedStart[n]];
        for (int q = 0; q < parts; q++) {
            if (pKeeper[q] >= 0) {
                byType[fill[pKeeper[q]]++] = ((long) pType[q] << 32) | q;
            }
        }
        owned = new int[byType.length];
        for (int m = 0; m < n; m++) {
            Arrays.sort(byType, ownedStart[m], ownedStart[m + 1]);
        }
        for (int i = 0; i < byType.length; i++) {
            owned[i] = (int) byType[i];
        }
    }

    /** D x the share of a partition's bytes a member at this place reads across racks (§ 2). */
    private int shareUnits(List<String> replicas, String leader, String rack, boolean followers, List<String> cluster) {
        if (rack != null) {
            boolean cross = followers
                    ? !replicas.isEmpty() && !replicas.contains(rack)
                    : leader != null && !leader.equals(rack);
            return cross ? d : 0;
        }
        if (leader == null || racks == 0) {
            return 0;
        }
        return cluster.contains(leader) ? d - 1 : d;
    }

    /** The traffic units of a partition of type t read at place q (no move). */
    long typeUnit(int t, int q) {
        return tTraffic[t] * tShare[t * places + q];
    }

    /** unit(p, m) of docs/rack-optimal.md § 2. */
    long unit(int p, int m) {
        long u = typeUnit(pType[p], placeOf[m]);
        return pOwner[p] != NO_OWNER && pOwner[p] != m ? u + moveUnit : u;
    }

    /** Whether member m subscribes class c. */
    boolean subscribes(int m, int c) {
        return Arrays.binarySearch(memberClasses[m], c) >= 0;
    }

    /** The unrounded traffic cost of giving p to m: α w share. */
    double trafficCost(int p, int m) {
        int s = tShare[pType[p] * places + placeOf[m]];
        return s == 0 ? 0.0 : alpha * pWeight[p] * s / d;
    }

    TopicPartition tp(int p) {
        return new TopicPartition(topicNames[pTopic[p]], pNum[p]);
    }

    private record PlaceKey(String rack, boolean followers) implements Comparable<PlaceKey> {
        @Override
        public int compareTo(PlaceKey o) {
            if (!Objects.equals(rack, o.rack)) {
                if (rack == null) {
                    return -1;
                }
                return o.rack == null ? 1 : rack.compareTo(o.rack);
            }
            return Boolean.compare(followers, o.followers);
        }
    }

    /** A growable int list, hashed by content (a class's subscribers, a kind's key). */
    static final class IntList {
        int[] a = new int[4];
        int size;

        void add(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        int[] toArray() {
            return Arrays.copyOf(a, size);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IntList l && Arrays.equals(a, 0, size, l.a, 0, l.size);
        }

        @Override
        public int hashCode() {
            int h = 1;
            for (int i = 0; i < size; i++) {
                h = 31 * h + a[i];
            }
            return h;
        }
    }

    /** Dense ids for values, in order of first sight. */
    private static final class Ids<T> {
        private final Map<T, Integer> ids = new HashMap<>();
        private final List<T> values = new ArrayList<>();

        int of(T value) {
            return ids.computeIfAbsent(value, v -> {
                values.add(v);
                return values.size() - 1;
            });
        }

        T value(int id) {
            return values.get(id);
        }
    }
}
