package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The optimum against every assignment of tiny random groups (docs/rack-optimal.md § 3-4). */
class BruteForceTest {
    @Test
    void optimumMatchesEveryAssignmentOfTinyGroups() {
        long seed = Long.getLong("rackwise.seed", 20261125L);
        System.out.println("BruteForceTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 400; round++) {
            Problem pb = Gen.tiny(rnd);
            String label = "seed=" + seed + " round=" + round;
            Solution s = RackOptimal.solve(pb);
            RackOptimalTest.assertValid(pb, s);
            check(pb, s, label);
        }
    }

    private static void check(Problem pb, Solution s, String label) {
        List<MemberSpec> ms = pb.members();
        List<TopicPartition> all = new ArrayList<>();
        List<int[]> choices = new ArrayList<>();
        for (Map.Entry<String, List<PartitionSpec>> t : pb.topics().entrySet()) {
            List<Integer> subs = new ArrayList<>();
            for (int m = 0; m < ms.size(); m++) {
                if (ms.get(m).topics().contains(t.getKey())) {
                    subs.add(m);
                }
            }
            if (subs.isEmpty()) {
                continue;
            }
            for (int p = 0; p < t.getValue().size(); p++) {
                all.add(new TopicPartition(t.getKey(), p));
                choices.add(subs.stream().mapToInt(Integer::intValue).toArray());
            }
        }
        int n = ms.size();
        long[][] unit = new long[all.size()][n];
        for (int p = 0; p < all.size(); p++) {
            for (int m = 0; m < n; m++) {
                unit[p][m] = Oracle.unit(pb, ms.get(m), all.get(p));
            }
        }
        // Pass 1: the best reachable maximum; pass 2: the best minimum under it; pass 3: the
        // least sum of squares within; pass 4: the least cost among those; pass 5: the fewest
        // moves among the optimal ones.
        int[] pick = new int[all.size()];
        long[] best = {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
        for (int pass = 0; pass < 5; pass++) {
            java.util.Arrays.fill(pick, 0);
            while (true) {
                int[] load = new int[n];
                long cost = 0;
                int moves = 0;
                for (int p = 0; p < all.size(); p++) {
                    int m = choices.get(p)[pick[p]];
                    load[m]++;
                    cost += unit[p][m];
                    String prev = pb.previousOwners().get(all.get(p));
                    moves += prev != null && !prev.equals(ms.get(m).id()) ? 1 : 0;
                }
                int max = 0;
                int min = Integer.MAX_VALUE;
                long squares = 0;
                for (int l : load) {
                    max = Math.max(max, l);
                    min = Math.min(min, l);
                    squares += (long) l * l;
                }
                if (pass == 0) {
                    best[0] = Math.min(best[0], max);
                } else if (max == best[0]) {
                    if (pass == 1) {
                        best[1] = Math.max(best[1], min);
                    } else if (min == best[1]) {
                        if (pass == 2) {
                            best[2] = Math.min(best[2], squares);
                        } else if (squares == best[2]) {
                            if (pass == 3) {
                                best[3] = Math.min(best[3], cost);
                            } else if (cost == best[3]) {
                                best[4] = Math.min(best[4], moves);
                            }
                        }
                    }
                }
                int i = 0;
                while (i < pick.length && ++pick[i] == choices.get(i).length) {
                    pick[i++] = 0;
                }
                if (i == pick.length) {
                    break;
                }
            }
        }
        int max = 0;
        int min = Integer.MAX_VALUE;
        long squares = 0;
        for (MemberSpec m : ms) {
            int l = s.assignment().get(m.id()).size();
            max = Math.max(max, l);
            min = Math.min(min, l);
            squares += (long) l * l;
        }
        if (all.isEmpty()) {
            assertEquals(0, s.objective(), label);
            return;
        }
        assertEquals(best[0], max, label + ": max load");
        assertEquals(best[1], min, label + ": min load");
        assertEquals(best[2], squares, label + ": sum of squared loads");
        assertEquals(best[3], s.objective(), label + ": optimum");
        boolean sameWeights = pb.topics().values().stream().flatMap(List::stream)
                .mapToDouble(PartitionSpec::weight).distinct().count() <= 1;
        if (sameWeights) {
            // Ties between optimal flows go to fewer moves, and without swaps (§ 5.3 needs
            // different weights) the decode keeps them: the fewest moves of any optimum.
            assertEquals(best[4], s.moved(), label + ": fewest moves among the optima");
        } else {
            assertTrue(s.moved() >= best[4], label);
        }
        assertTrue(s.cost() >= 0, label);
    }
}
