package dev.rackwise.bench.jmh;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one assignor's result costs on a grid cell, counted here and not by the assignor:
 * cross-rack partitions and bytes under follower fetching (a member is local to a partition
 * when one of its replicas is in the member's rack), partitions moved off their previous
 * owner, and an independent lower bound on those moves.
 *
 * <p>The bound: in every balanced target each subscription bucket (disjoint topics here) gives
 * its members floor or ceil of its partitions over its members; so the joining member takes at
 * least the floor, all of it moved, and a member holding more than the ceil sheds the excess.
 * With no cross-rack partition and moves at that bound, no assignment can cost less under
 * KIP-925's costs: the result is the optimum, checked without the solver.
 *
 * <p>The fingerprint (a hash of every partition's owner, members by id) tells two builds of an
 * assignor apart when they do not give the very same assignment.
 */
public record Outcome(long partitions, long assigned, long cross, double crossBytesShare, long moved,
                      long movesLowerBound, int minCount, int maxCount, double maxBytesOverMean,
                      int fingerprint) {

    /**
     * @param owner      per global partition index (topic x partitionsPerTopic + partition), the
     *                   index in {@code memberIds} of its new owner, or -1 when left unassigned
     * @param previous   the same for the previous assignment, or null in a full assignment
     */
    public static Outcome of(Grid grid, List<String> memberIds, List<String> memberRacks, List<int[]> memberTopics,
                             int[] owner, int[] previous) {
        int n = memberIds.size();
        int ppt = grid.partitionsPerTopic;
        long assigned = 0;
        long cross = 0;
        double crossBytes = 0;
        double totalBytes = 0;
        long moved = 0;
        int[] count = new int[n];
        double[] load = new double[n];
        for (int t = 0; t < grid.topics; t++) {
            for (int p = 0; p < ppt; p++) {
                int g = t * ppt + p;
                double w = grid.bytes[t][p];
                totalBytes += w;
                int m = owner[g];
                if (previous != null && previous[g] >= 0 && previous[g] != m) {
                    moved++;
                }
                if (m < 0) {
                    continue;
                }
                assigned++;
                count[m]++;
                load[m] += w;
                if (!grid.local(memberRacks.get(m), t, p)) {
                    cross++;
                    crossBytes += w;
                }
            }
        }
        long bound = previous == null ? -1 : movesLowerBound(grid, memberIds, memberTopics, previous);
        double meanLoad = Arrays.stream(load).sum() / Math.max(1, n);
        return new Outcome(grid.partitions(), assigned, cross, totalBytes == 0 ? 0 : crossBytes / totalBytes,
            previous == null ? -1 : moved, bound, Arrays.stream(count).min().orElse(0),
            Arrays.stream(count).max().orElse(0), meanLoad == 0 ? 0 : Arrays.stream(load).max().orElse(0) / meanLoad,
            Arrays.hashCode(owner));
    }

    private static long movesLowerBound(Grid grid, List<String> memberIds, List<int[]> memberTopics, int[] previous) {
        int n = memberIds.size();
        int[] before = new int[n];
        for (int m : previous) {
            if (m >= 0) {
                before[m]++;
            }
        }
        // Buckets: members with the same topic list.
        Map<String, long[]> partsAndMembers = new HashMap<>();
        for (int m = 0; m < n; m++) {
            long[] pm = partsAndMembers.computeIfAbsent(Arrays.toString(memberTopics.get(m)),
                k -> new long[2]);
            pm[0] = (long) memberTopics.get(m).length * grid.partitionsPerTopic;
            pm[1]++;
        }
        Map<String, Long> shed = new HashMap<>();
        Map<String, Long> joinerNeeds = new HashMap<>();
        for (int m = 0; m < n; m++) {
            String key = Arrays.toString(memberTopics.get(m));
            long[] pm = partsAndMembers.get(key);
            long floor = pm[0] / pm[1];
            long ceil = (pm[0] + pm[1] - 1) / pm[1];
            shed.merge(key, Math.max(0, before[m] - ceil), Long::sum);
            if (memberIds.get(m).equals(Grid.NEW_MEMBER)) {
                joinerNeeds.merge(key, floor, Long::sum);
            }
        }
        long bound = 0;
        for (String key : partsAndMembers.keySet()) {
            bound += Math.max(shed.getOrDefault(key, 0L), joinerNeeds.getOrDefault(key, 0L));
        }
        return bound;
    }

    /** Optimal by the check above: nothing read across racks and no move beyond the bound. */
    public boolean certifiedOptimal() {
        return cross == 0 && assigned == partitions && (moved < 0 || moved == movesLowerBound);
    }
}
