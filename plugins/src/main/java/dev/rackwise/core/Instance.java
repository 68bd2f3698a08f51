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
 * places (unknown first, then by rack, leader readers before follower readers), partitions by
 * (topic, partition), so a partition's index is its (topic, partition) rank. Also the
 * aggregate groups of docs/rack-optimal.md § 4 and the exact integer units of § 2.
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
    final String[] placeRack;
    final boolean[] placeFollowers;

    final String[] topicNames;
    final int[] classSize;
    final int[][] classMembers;
    final boolean[][] inClass;

    final int parts;
    final int[] pTopic;
    final int[] pNum;
    final double[] pWeight;
    final int[] pClass;
    /** The raw previous owner: a member index, {@link #NO_OWNER} or {@link #LOST_OWNER}. */
    final int[] pOwner;
    final int[] pGroup;

    final int groups;
    final int[] gClass;
    /** A member index that can keep the group's partitions, or NO_OWNER / LOST_OWNER. */
    final int[] gOwner;
    final int[][] gParts;
    /** round(1000 α w) of the group's weight. */
    final long[] gTraffic;
    /** D x share, per group and place: {@code gShare[g * places + place]}. */
    final int[] gShare;
    /**
     * Groups that differ only in weight, merged (docs/rack-optimal.md § 4 with the weight left
     * out): per aggregate, its groups in order of their first partition.
     */
    final int[][] aggregates;

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
        Map<String, Integer> memberIndex = new HashMap<>();
        TreeSet<PlaceKey> placeSet = new TreeSet<>();
        for (int m = 0; m < n; m++) {
            memberIds[m] = members.get(m).id();
            memberIndex.put(memberIds[m], m);
            placeSet.add(new PlaceKey(members.get(m).rack(), members.get(m).readsFollowers()));
        }
        places = placeSet.size();
        placeRack = new String[places];
        placeFollowers = new boolean[places];
        Map<PlaceKey, Integer> placeIndex = new HashMap<>();
        int pi = 0;
        for (PlaceKey k : placeSet) {
            placeRack[pi] = k.rack;
            placeFollowers[pi] = k.followers;
            placeIndex.put(k, pi++);
        }
        placeOf = new int[n];
        boolean byLeader = false;
        for (int m = 0; m < n; m++) {
            MemberSpec ms = members.get(m);
            placeOf[m] = placeIndex.get(new PlaceKey(ms.rack(), ms.readsFollowers()));
            byLeader |= !ms.readsFollowers();
        }

        // Subscribed topics, sorted; a topic's subscribers (a sorted member list) name its class.
        // Hashed, then the names sorted once: a TreeMap paid string compares per subscription.
        Map<String, List<Integer>> subs = new HashMap<>();
        for (int m = 0; m < n; m++) {
            for (String t : members.get(m).topics()) {
                subs.computeIfAbsent(t, k -> new ArrayList<>()).add(m);
            }
        }
        topicNames = subs.keySet().toArray(new String[0]);
        Arrays.sort(topicNames);
        Map<List<Integer>, Integer> classIndex = new HashMap<>();
        List<int[]> classList = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        int[] topicClass = new int[topicNames.length];
        long total = 0;
        for (int t = 0; t < topicNames.length; t++) {
            List<Integer> key = subs.get(topicNames[t]);
            Integer c = classIndex.get(key);
            if (c == null) {
                c = classList.size();
                classIndex.put(key, c);
                classList.add(key.stream().mapToInt(Integer::intValue).toArray());
                sizes.add(0);
            }
            topicClass[t] = c;
            int count = pb.topics().getOrDefault(topicNames[t], List.of()).size();
            sizes.set(c, sizes.get(c) + count);
            total += count;
        }
        if (total > Integer.MAX_VALUE / 4) {
            throw new CoreInputException("too many partitions: " + total);
        }
        classMembers = classList.toArray(new int[0][]);
        classSize = sizes.stream().mapToInt(Integer::intValue).toArray();
        inClass = new boolean[classMembers.length][n];
        for (int c = 0; c < classMembers.length; c++) {
            for (int m : classMembers[c]) {
                inClass[c][m] = true;
            }
        }

        parts = (int) total;
        pTopic = new int[parts];
        pNum = new int[parts];
        pWeight = new double[parts];
        pClass = new int[parts];
        pOwner = new int[parts];
        pGroup = new int[parts];
        // Previous owners by partition index, read in one walk over the map: a TreeMap lookup
        // per partition (string compares on every level) cost more than the flow itself.
        int[] topicStart = new int[topicNames.length + 1];
        Map<String, Integer> topicIndex = new HashMap<>();
        for (int t = 0; t < topicNames.length; t++) {
            topicIndex.put(topicNames[t], t);
            topicStart[t + 1] = topicStart[t] + pb.topics().getOrDefault(topicNames[t], List.of()).size();
        }
        String[] previous = new String[parts];
        for (Map.Entry<TopicPartition, String> e : pb.previousOwners().entrySet()) {
            Integer t = topicIndex.get(e.getKey().topic());
            int k = e.getKey().partition();
            if (t != null && k < topicStart[t + 1] - topicStart[t]) {
                previous[topicStart[t] + k] = e.getValue();
            }
        }
        // One sorted copy per distinct replica-rack list, shared by the group keys that use it.
        // Replica-rack lists (sorted) and leader racks as ints, so group keys hash no strings.
        Map<List<String>, Integer> racksOf = new HashMap<>();
        Ids<List<String>> racksIds = new Ids<>();
        Ids<String> leaderIds = new Ids<>();
        Map<GroupKey, Integer> groupIndex = new HashMap<>();
        List<GroupKey> keys = new ArrayList<>();
        int p = 0;
        for (int t = 0; t < topicNames.length; t++) {
            List<PartitionSpec> specs = pb.topics().getOrDefault(topicNames[t], List.of());
            int c = topicClass[t];
            for (int k = 0; k < specs.size(); k++, p++) {
                PartitionSpec s = specs.get(k);
                pTopic[p] = t;
                pNum[p] = k;
                pWeight[p] = s.weight() == 0 ? 0.0 : s.weight(); // -0.0 is 0.0
                pClass[p] = c;
                String owner = previous[p];
                Integer om = owner == null ? null : memberIndex.get(owner);
                pOwner[p] = owner == null ? NO_OWNER : om == null ? LOST_OWNER : om;
                int keyOwner = pOwner[p] >= 0 && !inClass[c][pOwner[p]] ? LOST_OWNER : pOwner[p];
                int racksKey = racksOf.computeIfAbsent(s.replicaRacks(), r -> racksIds.of(List.copyOf(new TreeSet<>(r))));
                int leaderKey = byLeader && s.leaderRack() != null ? leaderIds.of(s.leaderRack()) : -1;
                GroupKey gk = new GroupKey(c, racksKey, leaderKey, Double.doubleToLongBits(pWeight[p]), keyOwner);
                Integer g = groupIndex.get(gk);
                if (g == null) {
                    g = keys.size();
                    groupIndex.put(gk, g);
                    keys.add(gk);
                }
                pGroup[p] = g;
            }
        }
        groups = keys.size();
        gClass = new int[groups];
        gOwner = new int[groups];
        gParts = new int[groups][];
        gTraffic = new long[groups];
        gShare = new int[groups * places];
        Map<GroupKey, List<Integer>> merged = new java.util.LinkedHashMap<>();
        for (int g = 0; g < groups; g++) {
            GroupKey k = keys.get(g);
            merged.computeIfAbsent(new GroupKey(k.cls, k.racks, k.leader, 0, k.owner), x -> new ArrayList<>()).add(g);
        }
        aggregates = new int[merged.size()][];
        int ai = 0;
        for (List<Integer> gs : merged.values()) {
            aggregates[ai++] = gs.stream().mapToInt(Integer::intValue).toArray();
        }
        fillParts(gParts, pGroup);
        for (int g = 0; g < groups; g++) {
            GroupKey k = keys.get(g);
            gClass[g] = k.cls;
            gOwner[g] = k.owner;
            double w = Double.longBitsToDouble(k.weightBits);
            double units = Math.rint(1000 * alpha * w) * d;
            if (units >= 0x1p62) {
                throw new CoreInputException("costs too large to solve exactly: lower traffic_cost or weights");
            }
            gTraffic[g] = (long) Math.rint(1000 * alpha * w);
        }
        // The shares depend on the replica and leader racks alone, which an aggregate's groups share.
        for (int[] gs : aggregates) {
            GroupKey k = keys.get(gs[0]);
            for (int q = 0; q < places; q++) {
                gShare[gs[0] * places + q] = shareUnits(racksIds.value(k.racks), k.leader < 0 ? null : leaderIds.value(k.leader),
                        placeRack[q], placeFollowers[q], clusterRacks);
            }
            for (int i = 1; i < gs.length; i++) {
                System.arraycopy(gShare, gs[0] * places, gShare, gs[i] * places, places);
            }
        }
    }

    /** Per group, its partitions in index order. */
    private static void fillParts(int[][] gParts, int[] pGroup) {
        int[] size = new int[gParts.length];
        for (int g : pGroup) {
            size[g]++;
        }
        for (int g = 0; g < gParts.length; g++) {
            gParts[g] = new int[size[g]];
            size[g] = 0;
        }
        for (int p = 0; p < pGroup.length; p++) {
            gParts[pGroup[p]][size[pGroup[p]]++] = p;
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

    /** unit(p, m) of docs/rack-optimal.md § 2. */
    long unit(int p, int m) {
        int g = pGroup[p];
        long u = gTraffic[g] * gShare[g * places + placeOf[m]];
        return pOwner[p] != NO_OWNER && pOwner[p] != m ? u + moveUnit : u;
    }

    /** The unrounded traffic cost of giving p to m: α w share. */
    double trafficCost(int p, int m) {
        int s = gShare[pGroup[p] * places + placeOf[m]];
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

    /** A group: class, replica racks and leader rack (ids, -1: none), weight and owner; weight 0 for an aggregate. */
    private record GroupKey(int cls, int racks, int leader, long weightBits, int owner) {
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
