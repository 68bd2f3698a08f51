package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
    /** The type of {@code owned[i]}, beside it: the passes over owned runs read no pType at random. */
    final int[] ownedType;

    /**
     * Input member of each sorted member, and input topic of each sorted topic: how the
     * solution goes back to an {@link IndexedProblem}'s own numbering.
     */
    final int[] memberInput;
    final int[] topicInput;

    Instance(Problem pb) {
        this(IndexedProblem.of(pb));
    }

    Instance(IndexedProblem ip) {
        alpha = ip.alpha;
        beta = ip.beta;
        List<String> clusterRacks = ip.racks;
        racks = clusterRacks.size();
        d = Math.max(racks, 1);
        double mv = Math.rint(1000 * beta) * d;
        if (mv >= 0x1p62) {
            throw new CoreInputException("costs too large to solve exactly: lower non_overlap_cost");
        }
        moveUnit = (long) mv;

        // Members by id (§ 4): the input's order never matters.
        n = ip.memberIds.length;
        memberInput = sortedOrder(ip.memberIds, "member");
        memberIds = new String[n];
        int[] sortedOf = new int[n];
        for (int m = 0; m < n; m++) {
            memberIds[m] = ip.memberIds[memberInput[m]];
            sortedOf[memberInput[m]] = m;
        }
        Places pl = Places.of(ip, memberInput);
        places = pl.count();
        placeOf = pl.placeOf();
        Classes cl = Classes.of(ip, Groups.of(ip, memberInput), n);
        topicNames = cl.topicNames();
        topicInput = cl.topicInput();
        classSize = cl.classSize();
        classMembers = cl.classMembers();
        memberClasses = cl.memberClasses();

        parts = (int) cl.total();
        pTopic = new int[parts];
        pNum = new int[parts];
        pWeight = new double[parts];
        pClass = new int[parts];
        pOwner = new int[parts];
        pKeeper = new int[parts];
        pType = new int[parts];
        int[] ownedCount = new int[n + 1];
        PartitionPass pass = partitionPass(ip, cl, sortedOf, pl.byLeader(), ownedCount);
        TypeTable typeTable = pass.typeTable();
        sameWeights = pass.same();
        totalWeight = pass.sum();
        types = typeTable.size();
        tClass = new int[types];
        tTraffic = new long[types];
        tShare = new int[types * places];
        typeUnits(ip, typeTable, pl);
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
        ownedType = new int[byType.length];
        for (int m = 0; m < n; m++) {
            Arrays.sort(byType, ownedStart[m], ownedStart[m + 1]);
        }
        for (int i = 0; i < byType.length; i++) {
            owned[i] = (int) byType[i];
            ownedType[i] = (int) (byType[i] >>> 32);
        }
    }

    // The constructor's sections, one method each: the JIT compiles (and, after a deopt,
    // recompiles) each on its own instead of one large blob (plugins/README.md § 3).

    /** Each member's place (§ 4: by (rack or "", reads followers)), and whether any reads leaders only. */
    private record Places(int[] placeOf, int count, String[] placeRack, boolean[] placeFollowers, boolean byLeader) {
        static Places of(IndexedProblem ip, int[] memberInput) {
            int n = memberInput.length;
            // Places: each member's (rack, reads followers) as a slot, 2 x (its rack's index in
            // order of first sight, the unknown rack first) + followers; then the few distinct
            // slots sorted into place order. One string-keyed lookup per member, by its rack.
            Map<String, Integer> rackSlot = new HashMap<>();
            List<String> slotRack = new ArrayList<>();
            slotRack.add(null);
            int[] memberSlot = new int[n];
            String lastRack = null;
            int lastSlot = 0;
            for (int m = 0; m < n; m++) {
                int i = memberInput[m];
                String rack = ip.memberRack[i];
                int r = 0;
                if (rack != null) {
                    if (rack == lastRack) { // the same string: one rack's members share it
                        r = lastSlot;
                    } else {
                        r = rackSlot.computeIfAbsent(rack, x -> {
                            slotRack.add(x);
                            return slotRack.size() - 1;
                        });
                        lastRack = rack;
                        lastSlot = r;
                    }
                }
                memberSlot[m] = 2 * r + (ip.memberFollowers[i] ? 1 : 0);
            }
            TreeSet<PlaceKey> placeSet = new TreeSet<>();
            boolean[] slotSeen = new boolean[2 * slotRack.size()];
            for (int m = 0; m < n; m++) {
                if (!slotSeen[memberSlot[m]]) {
                    slotSeen[memberSlot[m]] = true;
                    placeSet.add(new PlaceKey(slotRack.get(memberSlot[m] / 2), memberSlot[m] % 2 == 1));
                }
            }
            int places = placeSet.size();
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
            int[] placeOf = new int[n];
            boolean byLeader = false;
            for (int m = 0; m < n; m++) {
                placeOf[m] = slotPlace[memberSlot[m]];
                byLeader |= memberSlot[m] % 2 == 0;
            }
            return new Places(placeOf, places, placeRack, placeFollowers, byLeader);
        }
    }

    /** Members (sorted) with the same topic set, as groups: each member's group, each group's topics and members. */
    private record Groups(int[] memberGroup, List<int[]> groupTopics, List<IntList> groupMembers) {
        static Groups of(IndexedProblem ip, int[] memberInput) {
            int n = memberInput.length;
            // Members with the same topic set form a group (groups by their first member): most
            // groups have few subscriptions and many members, so the classes are built over the
            // groups and members of a group share one class array (§ 7: O(N + Σ over groups)).
            // Subscriptions with the same topics are one group.
            int subsIn = ip.subTopics.length;
            int[] subGroup = new int[subsIn];
            Arrays.fill(subGroup, -1);
            Map<IntList, Integer> groupIndex = new HashMap<>();
            List<int[]> groupTopics = new ArrayList<>();
            List<IntList> groupMembers = new ArrayList<>();
            int[] memberGroup = new int[n];
            for (int m = 0; m < n; m++) {
                int s = ip.memberSub[memberInput[m]];
                int g = subGroup[s];
                if (g < 0) {
                    IntList key = new IntList();
                    key.a = ip.subTopics[s];
                    key.size = key.a.length;
                    Integer known = groupIndex.get(key);
                    if (known == null) {
                        known = groupTopics.size();
                        groupIndex.put(key, known);
                        groupTopics.add(key.a);
                        groupMembers.add(new IntList());
                    }
                    g = known;
                    subGroup[s] = g;
                }
                memberGroup[m] = g;
                groupMembers.get(g).add(m);
            }
            return new Groups(memberGroup, groupTopics, groupMembers);
        }
    }

    /** Subscribed topics sorted by name, their classes, and per class and member the class lists. */
    private record Classes(String[] topicNames, int[] topicInput, int[] topicClass, int[] topicStart, long total,
                           int[] classSize, int[][] classMembers, int[][] memberClasses) {
        static Classes of(IndexedProblem ip, Groups gr, int n) {
            List<int[]> groupTopics = gr.groupTopics();
            List<IntList> groupMembers = gr.groupMembers();
            int[] memberGroup = gr.memberGroup();
            int groups = groupTopics.size();
            // Subscribed topics, sorted by name; a topic's subscribing groups (ascending) name its
            // class (groups are disjoint, so the same groups is the same subscribers).
            boolean[] subscribed = new boolean[ip.topicNames.length];
            int subscribedCount = 0;
            for (int[] ts : groupTopics) {
                for (int t : ts) {
                    if (!subscribed[t]) {
                        subscribed[t] = true;
                        subscribedCount++;
                    }
                }
            }
            String[] names = new String[subscribedCount];
            int[] inputOfName = new int[subscribedCount];
            for (int t = 0, i = 0; t < subscribed.length; t++) {
                if (subscribed[t]) {
                    names[i] = ip.topicNames[t];
                    inputOfName[i++] = t;
                }
            }
            int[] nameOrder = sortedOrder(names, "topic");
            String[] topicNames = new String[subscribedCount];
            int[] topicInput = new int[subscribedCount];
            int[] rankOf = new int[ip.topicNames.length];
            for (int t = 0; t < subscribedCount; t++) {
                topicNames[t] = names[nameOrder[t]];
                topicInput[t] = inputOfName[nameOrder[t]];
                rankOf[topicInput[t]] = t;
            }
            IntList[] subs = new IntList[subscribedCount];
            for (int g = 0; g < groups; g++) {
                for (int t : groupTopics.get(g)) {
                    int r = rankOf[t];
                    if (subs[r] == null) {
                        subs[r] = new IntList();
                    }
                    subs[r].add(g);
                }
            }
            Map<IntList, Integer> classIndex = new HashMap<>();
            List<int[]> classList = new ArrayList<>();
            IntList sizes = new IntList();
            int[] topicClass = new int[topicNames.length];
            int[] topicStart = new int[topicNames.length + 1];
            long total = 0;
            for (int t = 0; t < topicNames.length; t++) {
                IntList key = subs[t];
                Integer c = classIndex.get(key);
                if (c == null) {
                    c = classList.size();
                    classIndex.put(key, c);
                    classList.add(key.toArray());
                    sizes.add(0);
                }
                topicClass[t] = c;
                int count = ip.topicStart[topicInput[t] + 1] - ip.topicStart[topicInput[t]];
                sizes.a[c] += count;
                total += count;
                topicStart[t + 1] = (int) total;
            }
            int classes = classList.size();
            int[] classSize = sizes.toArray();
            // Per class its members (ascending): its groups' members merged.
            int[][] classMembers = new int[classes][];
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
            int[][] memberClasses = new int[n][];
            for (int m = 0; m < n; m++) {
                memberClasses[m] = byGroup[memberGroup[m]];
            }
            return new Classes(topicNames, topicInput, topicClass, topicStart, total, classSize, classMembers,
                memberClasses);
        }
    }

    /** What the pass over the partitions found beside the arrays it fills. */
    private record PartitionPass(TypeTable typeTable, boolean same, double sum) {
    }

    /**
     * One pass over the partitions (sorted by (topic, partition)): fills the partition arrays,
     * counts each keeper's owned partitions into {@code ownedCount[m + 1]}, and numbers the types.
     */
    private PartitionPass partitionPass(IndexedProblem ip, Classes cl, int[] sortedOf, boolean byLeader,
                                        int[] ownedCount) {
        int classes = cl.classSize().length;
        int[] topicClass = cl.topicClass();
        int[] topicStart = cl.topicStart();
        // Replica-rack sets and leader racks as ids by content, so type keys hash no strings.
        int[] racksKeyOf = contentIds(ip.rackSets);
        int[] leaderKeyOf = contentIds(ip.leaders);
        TypeTable typeTable = new TypeTable();
        // The common key (no leader rack, weight 1) straight from a (class, rack set) table: the
        // same ids typeTable gives (it is asked on a miss), without a hash per partition.
        long oneBits = Double.doubleToLongBits(1.0);
        int rackKeys = ip.rackSets.length;
        int[] plainType = (long) classes * rackKeys <= 1 << 16 ? new int[classes * rackKeys] : null;
        if (plainType != null) {
            Arrays.fill(plainType, -1);
        }
        // Whether member o may keep a partition of class keepClass[o] (a partition of a class it
        // lacks goes back to the pool): one search per member and topic, not per partition.
        int[] keepClass = new int[n];
        Arrays.fill(keepClass, -1);
        boolean[] keeps = new boolean[n];
        double w0 = 0;
        boolean same = true;
        double sum = 0;
        int p = 0;
        for (int t = 0; t < topicNames.length; t++) {
            int c = topicClass[t];
            int from = ip.topicStart[topicInput[t]];
            int count = topicStart[t + 1] - topicStart[t];
            for (int k = 0; k < count; k++, p++) {
                int q = from + k;
                pTopic[p] = t;
                pNum[p] = k;
                double w = ip.pWeight == null ? 1.0 : ip.pWeight[q];
                pWeight[p] = w;
                sum += w;
                if (p == 0) {
                    w0 = w;
                } else if (w != w0) {
                    same = false;
                }
                pClass[p] = c;
                int o = ip.pOwner[q];
                o = o >= 0 ? sortedOf[o] : o == IndexedProblem.GONE ? LOST_OWNER : NO_OWNER;
                pOwner[p] = o;
                if (o >= 0 && keepClass[o] != c) {
                    keepClass[o] = c;
                    keeps[o] = Arrays.binarySearch(memberClasses[o], c) >= 0;
                }
                pKeeper[p] = o >= 0 && keeps[o] ? o : NO_OWNER;
                if (pKeeper[p] >= 0) {
                    ownedCount[o + 1]++;
                }
                int leader = ip.pLeader[q];
                int leaderKey = byLeader && leader >= 0 ? leaderKeyOf[leader] : -1;
                int racksKey = racksKeyOf[ip.pRackSet[q]];
                long wBits = Double.doubleToLongBits(w);
                if (plainType != null && leaderKey < 0 && wBits == oneBits) {
                    int at = c * rackKeys + racksKey;
                    int known = plainType[at];
                    pType[p] = known >= 0 ? known : (plainType[at] = typeTable.of(c, racksKey, -1, wBits));
                } else {
                    pType[p] = typeTable.of(c, racksKey, leaderKey, wBits);
                }
            }
        }
        return new PartitionPass(typeTable, same, sum);
    }

    /** Each type's class, traffic units and shares per place (§ 2), into tClass, tTraffic and tShare. */
    private void typeUnits(IndexedProblem ip, TypeTable typeTable, Places pl) {
        List<String> clusterRacks = ip.racks;
        String[] placeRack = pl.placeRack();
        boolean[] placeFollowers = pl.placeFollowers();
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
                    r[q] = shareUnits(ip.rackSets[kRacks], kLeader < 0 ? null : ip.leaders[kLeader],
                            placeRack[q], placeFollowers[q], clusterRacks);
                }
                return r;
            });
            System.arraycopy(row, 0, tShare, g * places, places);
        }
    }

    /**
     * The indices of {@code values} in ascending order (already sorted input: one pass); a
     * value listed twice is an input error. Sorted as longs where it can, most significant
     * characters first: {@link #PREFIX} characters of each value (from where the values of a
     * range start to differ), when all are below 256, above its position, so that a primitive
     * sort orders the range, and values that agree there go on to their next characters.
     */
    static int[] sortedOrder(String[] values, String what) {
        int len = values.length;
        int[] order = new int[len];
        boolean sorted = true;
        for (int i = 0; i < len; i++) {
            order[i] = i;
            if (i > 0 && sorted && values[i - 1].compareTo(values[i]) >= 0) {
                sorted = false;
            }
        }
        if (sorted) {
            return order;
        }
        if (len < (1 << INDEX_BITS)) {
            sortFrom(values, order, 0, len, 0, new long[len]);
        } else {
            sortWhole(values, order, 0, len);
        }
        for (int i = 1; i < len; i++) {
            if (values[order[i - 1]].equals(values[order[i]])) {
                throw new CoreInputException(what + " " + values[order[i]] + " is listed twice");
            }
        }
        return order;
    }

    /** Characters of a value in a sort key, 8 bits each. */
    private static final int PREFIX = 5;
    /** Bits of a sort key that hold a position: up to 16 million values. */
    private static final int INDEX_BITS = 64 - 8 * PREFIX;

    /**
     * Sorts {@code order[from..to)}, whose values agree on their first {@code depth} characters,
     * by their characters from there on.
     */
    private static void sortFrom(String[] values, int[] order, int from, int to, int depth, long[] keys) {
        // skip the characters the whole range shares
        String first = values[order[from]];
        int shared = first.length();
        for (int i = from + 1; i < to && shared > depth; i++) {
            String v = values[order[i]];
            int c = depth;
            int max = Math.min(shared, v.length());
            while (c < max && v.charAt(c) == first.charAt(c)) {
                c++;
            }
            shared = c;
        }
        int at = Math.max(shared, depth);
        boolean more = false;
        for (int i = from; i < to; i++) {
            String v = values[order[i]];
            long prefix = 0;
            for (int c = at; c < at + PREFIX; c++) {
                int ch = c < v.length() ? v.charAt(c) : 0;
                if (ch > 0xFF) {
                    sortWhole(values, order, from, to);
                    return;
                }
                prefix = prefix << 8 | ch;
            }
            more |= v.length() > at + PREFIX;
            // the sign flipped: a signed sort in unsigned order; the low bits hold order[i]
            keys[i] = (prefix << INDEX_BITS | order[i]) ^ Long.MIN_VALUE;
        }
        Arrays.sort(keys, from, to);
        for (int i = from; i < to; i++) {
            order[i] = (int) (keys[i] & ((1 << INDEX_BITS) - 1));
        }
        for (int i = from; i < to;) { // runs that agree here go on to their next characters
            int j = i + 1;
            while (j < to && keys[j] >>> INDEX_BITS == keys[i] >>> INDEX_BITS) {
                j++;
            }
            if (j - i > 1) {
                if (more) {
                    sortFrom(values, order, i, j, at + PREFIX, keys);
                } else { // no characters left: equal, or apart only by trailing NULs
                    sortWhole(values, order, i, j);
                }
            }
            i = j;
        }
    }

    /** Sorts {@code order[from..to)} by the whole values. */
    private static void sortWhole(String[] values, int[] order, int from, int to) {
        Integer[] boxed = new Integer[to - from];
        for (int i = from; i < to; i++) {
            boxed[i - from] = order[i];
        }
        Arrays.sort(boxed, (a, b) -> values[a].compareTo(values[b]));
        for (int i = from; i < to; i++) {
            order[i] = boxed[i - from];
        }
    }

    /** For each value, the index of its first equal value: ids by content. */
    private static <T> int[] contentIds(T[] values) {
        Map<T, Integer> first = new HashMap<>(2 * values.length + 1);
        int[] ids = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            ids[i] = first.computeIfAbsent(values[i], x -> first.size());
        }
        // as an index of a representative: the value first seen with that id
        int[] rep = new int[first.size()];
        for (int i = values.length - 1; i >= 0; i--) {
            rep[ids[i]] = i;
        }
        for (int i = 0; i < values.length; i++) {
            ids[i] = rep[ids[i]];
        }
        return ids;
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
}
